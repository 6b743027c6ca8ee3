package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/record/codec"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/haltest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/record"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
)

const replayTicks = 1000 // 10 s of 10 ms ticks

// fallFrom and fallTo are the ticks [fallFrom, fallTo) for which fallClock
// lies the robot on its front.
const fallFrom, fallTo = 500, 800

// fallClock is a fake clock that tilts the loopback robot onto its front
// for ticks fallFrom..fallTo-1 and shows it a ball, so that the run is not
// constant.
type fallClock struct {
	c   *haltest.Clock
	dev *loopback.Backend
	seq uint64
}

func (f *fallClock) Next(ctx context.Context) (hal.Tick, error) {
	f.seq++
	n := f.seq
	f.dev.Update(func(st *loopback.State) {
		st.BodyAngles = hal.BodyAngles{Roll: hal.Radians(0.02 * math.Sin(float64(n)/50))}
		if n >= fallFrom && n < fallTo {
			st.BodyAngles.Pitch = 1.3
		}
		st.Vision = hal.Vision{Fresh: n%3 == 0}
		if st.Vision.Fresh {
			p := hal.Vec2{X: 1.5 + 0.5*math.Sin(float64(n)/200), Y: 0.3}
			st.Vision.Add(hal.Observation{Kind: hal.ObjBall, Pos: p, Distance: hal.Metres(math.Hypot(p.X, p.Y)), Bearing: hal.Radians(math.Atan2(p.Y, p.X))})
		}
	})
	return f.c.Next(ctx)
}

// recordServe records a run as serve does (runRecording) and returns the
// recording's directory.
func recordServe(t *testing.T) string {
	t.Helper()
	cfg := DefaultConfig()
	rc := DefaultRecordConfig()
	rc.Enabled = true
	rc.Dir = t.TempDir()
	rc.Queue = replayTicks     // faster than real time: keep every record
	rc.SegmentBytes = 32 << 10 // several segments in 10 s
	clock := &fallClock{c: haltest.NewClock(10*time.Millisecond, replayTicks)}
	dev := loopback.New(clock)
	clock.dev = dev
	r := runner.New(cfg.Runner, dev, blackboard.New(), nil, nil)
	r.Add(newModules(&cfg, robot.Legs)...)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	if err := runRecording(context.Background(), rc, &cfg, r, reg, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counters := map[string]float64{}
	for _, mf := range mfs {
		counters[mf.GetName()] = mf.GetMetric()[0].GetCounter().GetValue()
	}
	if counters["robotd_record_written_total"] != replayTicks || counters["robotd_record_dropped_total"] != 0 || counters["robotd_record_bytes_total"] == 0 {
		t.Fatalf("recording counters %v", counters)
	}
	return rc.Dir
}

// firstTick returns the first recorded tick whose value of k satisfies f.
func firstTick[T any](t *testing.T, dir string, k blackboard.Key[T], f func(*T) bool) uint64 {
	t.Helper()
	src, err := record.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	i := src.Schema().Index(k.Name())
	c, err := codec.NewCodec[T]()
	if err != nil || i < 0 {
		t.Fatalf("%s: %v", k.Name(), err)
	}
	var rec codec.Record
	for src.Next() {
		if err := src.Schema().Split(src.Record().Data, &rec); err != nil {
			t.Fatal(err)
		}
		var v T
		if _, err := c.Decode(rec.Entries[i].Value, &v); err != nil {
			t.Fatal(err)
		}
		if f(&v) {
			return rec.Tick
		}
	}
	t.Fatalf("no recorded %s matches", k.Name())
	return 0
}

// recordedTicks is the number of ticks the recording at dir holds.
func recordedTicks(t *testing.T, dir string) uint64 {
	t.Helper()
	src, err := record.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var n uint64
	for src.Next() {
		n++
	}
	if err := src.Err(); err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return n
}

func TestReplayCommand(t *testing.T) {
	// The recording and the replay run on the loopback robot, whose
	// modules, recorder and replay are the same code in both builds; the
	// sim build's replay (of a recording made in the embedded simulator,
	// with its simulated GameController) is TestReplaySimRun's.
	onlyInRealBuild(t, "the sim build's replay is TestReplaySimRun's")
	// CPU-bound and judged by the replay's output only: beside the
	// package's other parallel tests.
	t.Parallel()
	dir := recordServe(t)
	getUp := firstTick(t, dir, msg.MotionRequestKey, func(r *msg.MotionRequest) bool { return r.Kind == msg.MotionGetUp })
	if getUp < fallFrom || getUp > fallFrom+100 {
		t.Fatalf("behaviour asked for a get-up first at tick %d, want soon after %d", getUp, fallFrom)
	}
	noGetUp := writeFile(t, `{"behaviour": {"get_up": false}}`)
	emptyNext, emptyNextName, lastCut, lastCutName, wantLast := damagedCopies(t, dir)
	cases := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"bit-exact", []string{dir}, exitOK, strconv.Itoa(replayTicks) + " ticks, 30 entries, bit-exact\n", ""},
		{"motion slower", []string{"-set", "motion.max_speed=1.0", dir}, exitFailed, "tick 1 (t=10ms): cmd.joints Angle[", ""},
		{"no get-up from a file", []string{"-config", noGetUp, dir}, exitFailed,
			"tick " + strconv.FormatUint(getUp, 10) + " (t=" + (time.Duration(getUp) * 10 * time.Millisecond).String() + "): behaviour.motion_request Kind", ""},
		{"unknown setting", []string{"-set", "motion.nope=1", dir}, exitFailed, "", `no setting "motion.nope"`},
		{"no recording", []string{t.TempDir()}, exitFailed, "", "no recording"},
		// A full disk leaves an empty last segment: the rest replays.
		{"empty next segment", []string{emptyNext}, exitOK, strconv.Itoa(replayTicks) + " ticks, 30 entries, bit-exact\nskipped " + emptyNextName, "left out"},
		{"last segment emptied", []string{lastCut}, exitOK, wantLast + " ticks, 30 entries, bit-exact\nskipped " + lastCutName, "left out"},
		{"no argument", nil, exitUsage, "", "usage: robotd replay"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runReplay(context.Background(), tc.args, &stdout, &stderr)
			if code != tc.code || !strings.HasPrefix(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, want %d\nstdout: %s\nwant prefix: %s\nstderr: %s\nwant: %s", code, tc.code, stdout.String(), tc.stdout, stderr.String(), tc.stderr)
			}
			t.Logf("%s", stdout.String())
		})
	}
}

// damagedCopies copies the recording in dir twice: once with an empty
// segment after the last, as a full disk leaves it, and once with its last
// segment emptied. It returns their directories, the damaged segments' paths
// and the number of ticks before the emptied segment.
func damagedCopies(t *testing.T, dir string) (emptyNext, emptyNextName, lastCut, lastCutName, ticksBefore string) {
	t.Helper()
	src, err := record.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := src.Files()
	src.Close()
	if len(files) < 2 {
		t.Fatalf("%d segments, want several", len(files))
	}
	emptyNext, lastCut = t.TempDir(), t.TempDir()
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(emptyNext, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if i == len(files)-1 {
			b = nil
		}
		if err := os.WriteFile(filepath.Join(lastCut, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	last := filepath.Base(files[len(files)-1])
	// The next segment's name: the number before the extension, plus one.
	base := strings.TrimSuffix(last, ".rlog")
	i := strings.LastIndexByte(base, '-')
	n, err := strconv.Atoi(base[i+1:])
	if err != nil {
		t.Fatal(err)
	}
	emptyNextName = filepath.Join(emptyNext, fmt.Sprintf("%s-%06d.rlog", base[:i], n+1))
	if err := os.WriteFile(emptyNextName, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	lastCutName = filepath.Join(lastCut, last)
	// The ticks of the segments before the last.
	r, err := record.OpenFiles(files[:len(files)-1]...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cnt := 0
	for r.Next() {
		cnt++
	}
	return emptyNext, emptyNextName, lastCut, lastCutName, strconv.Itoa(cnt)
}

func TestSetValue(t *testing.T) {
	cases := []struct {
		set   string
		check func(*Config) bool
		err   string
	}{
		{"motion.max_speed=1.0", func(c *Config) bool { return c.Motion.MaxSpeed == 1 }, ""},
		{"motion.walk.step_height=0.03", func(c *Config) bool { return c.Motion.Walk.StepHeight == 0.03 }, ""},
		{"behaviour.get_up=false", func(c *Config) bool { return !c.Behaviour.GetUp }, ""},
		{"robot.team_name=blue", func(c *Config) bool { return c.Robot.TeamName == "blue" }, ""},
		{"perception.ball.lost_after=2s", func(c *Config) bool { return c.Perception.Ball.LostAfter.D() == 2*time.Second }, ""},
		{"motion.max_speed=1.5", func(c *Config) bool { d := DefaultConfig(); return reflect.DeepEqual(*c, d) }, ""},
		{"motion.nope=1", nil, `no setting "motion.nope"`},
		{"motion.max_speed=fast", nil, "max_speed"},
		{"motion.max_speed.x=1", nil, `"motion.max_speed" is a value`},
	}
	for _, tc := range cases {
		t.Run(tc.set, func(t *testing.T) {
			cfg := DefaultConfig()
			err := setValue(&cfg, tc.set)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one about %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(&cfg) {
				t.Fatalf("not set: %+v", cfg)
			}
		})
	}
}
