package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/record/codec"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/backends/replay"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/haltest"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/record"
	"github.com/robotd/robotd/runner"
)

const (
	period      = 10 * time.Millisecond
	visionEvery = 3
)

// The script, in ticks: 45 s, every scripted event, then 4 s of play.
// Under the race detector (internal/racetest) it runs a third as fast:
// the same events in the same order, 15 s in all, each a third as long
// (the modules' code and the recorder's goroutines are the same; the
// full script runs without the race detector).
var (
	ticks = scaled(4500)

	fallFrom, fallTo          = scaled(1000), scaled(1600) // the robot lies on its front
	penaltyFrom, penaltyTo    = scaled(3000), scaled(3300)
	disconnectFrom, disconnTo = scaled(4000), scaled(4100)
	chestPress1, chestPress2  = scaled(2000), scaled(2030)
	segmentBytes              = scaled(256 << 10) // several segments
)

// scaled is n ticks (or bytes) of the script: a third under the race
// detector.
func scaled(n uint64) uint64 {
	if racetest.Enabled {
		return n / 3
	}
	return n
}

// tmp holds the recordings, shared by the tests.
var tmp string

func TestMain(m *testing.M) {
	var err error
	if tmp, err = os.MkdirTemp("", "replay-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func tempDir() (string, error) { return os.MkdirTemp(tmp, "rec-") }

// robotConfig is the part of robotd's configuration the modules use, as
// the test records it.
type robotConfig struct {
	Perception perception.Config `json:"perception"`
	Behaviour  behaviour.Config  `json:"behaviour"`
	Motion     motion.Config     `json:"motion"`
}

func defaultRobotConfig() robotConfig {
	return robotConfig{Perception: perception.DefaultConfig(), Behaviour: behaviour.DefaultConfig(), Motion: motion.DefaultConfig()}
}

func (c *robotConfig) modules() []runner.Module {
	return []runner.Module{perception.New(c.Perception), behaviour.New(c.Behaviour), motion.New(c.Motion)}
}

// scriptClock paces a fake clock and changes what the loopback robot senses
// before each tick: a ball and goal posts in view, a fall, chest presses, a
// penalty and a disconnection.
type scriptClock struct {
	c   *haltest.Clock
	dev *loopback.Backend
	seq uint64
}

func (s *scriptClock) Next(ctx context.Context) (hal.Tick, error) {
	s.seq++
	n := s.seq
	s.c.Disconnected = n >= disconnectFrom && n < disconnTo
	s.dev.Update(func(st *loopback.State) {
		st.BodyAngles = hal.BodyAngles{Roll: hal.Radians(0.02 * math.Sin(float64(n)/50))}
		st.IMU.Gyro = hal.Vec3{X: 0.01 * math.Cos(float64(n)/30)}
		if n >= fallFrom && n < fallTo {
			st.BodyAngles.Pitch = 1.3
			st.IMU.Gyro.Y = 2
		}
		st.Buttons = 0
		if n == chestPress1 || n == chestPress2 {
			st.Buttons = 1 << hal.ChestButton
		}
		st.Game.Penalised = n >= penaltyFrom && n < penaltyTo
		st.Vision = hal.Vision{}
		if n%visionEvery == 0 {
			st.Vision.Fresh = true
			ball := hal.Vec2{X: 1.5 + 0.5*math.Sin(float64(n)/200), Y: 0.4 * math.Cos(float64(n)/150)}
			st.Vision.Add(observation(hal.ObjBall, 0, ball))
			// The robot stands at (-1, 0) facing the opponent goal.
			st.Vision.Add(observation(hal.ObjGoalPost, field.PostOppLeft, hal.Vec2{X: 5.5, Y: 0.8}))
			st.Vision.Add(observation(hal.ObjGoalPost, field.PostOppRight, hal.Vec2{X: 5.5, Y: -0.8}))
			st.Vision.Add(observation(hal.ObjPenaltySpot, 0, hal.Vec2{X: 4.2, Y: 0}))
			st.Vision.Add(observation(hal.ObjCentreCircle, 0, hal.Vec2{X: 1, Y: 0}))
		}
	})
	return s.c.Next(ctx)
}

func observation(k hal.ObjectKind, id uint8, p hal.Vec2) hal.Observation {
	return hal.Observation{Kind: k, ID: id, Pos: p, Distance: hal.Metres(math.Hypot(p.X, p.Y)), Bearing: hal.Radians(math.Atan2(p.Y, p.X))}
}

// recording is the one 60 s recording the tests replay.
var recording struct {
	once sync.Once
	dir  string
	err  error
}

// record60s records 60 s of the real modules on the loopback robot.
func record60s(t *testing.T) string {
	t.Helper()
	recording.once.Do(func() {
		dir, err := tempDir()
		if err != nil {
			recording.err = err
			return
		}
		recording.dir = dir
		recording.err = recordRun(dir)
	})
	if recording.err != nil {
		t.Fatal(recording.err)
	}
	return recording.dir
}

func recordRun(dir string) error {
	cfg := defaultRobotConfig()
	clock := &scriptClock{c: haltest.NewClock(period, ticks)}
	dev := loopback.New(clock)
	clock.dev = dev
	board := blackboard.New()
	r := runner.New(runner.DefaultConfig(), dev, board, nil, nil)
	r.Add(cfg.modules()...)
	if err := r.Start(); err != nil {
		return err
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	rc := record.DefaultConfig()
	rc.Dir, rc.Queue, rc.SegmentBytes, rc.MaxTotalBytes = dir, int(ticks), int64(segmentBytes), 0
	rec, err := record.Start(context.Background(), rc, board, record.Info{Config: raw, Build: "test"}, nil)
	if err != nil {
		return err
	}
	runErr := r.RunRecorded(context.Background(), rec)
	if err := rec.Close(); err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	if rec.Dropped() != 0 || rec.Written() != ticks {
		return fmt.Errorf("recording: %d records dropped, %d written, want %d", rec.Dropped(), rec.Written(), ticks)
	}
	return nil
}

// replayRun replays dir with the recorded configuration, changed by change.
func replayRun(t *testing.T, dir string, change func(*robotConfig)) replay.Result {
	t.Helper()
	src, err := record.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultRobotConfig()
	if err := config.Decode(bytes.NewReader(src.Header().Config), &cfg); err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(&cfg)
	}
	dev, err := replay.New(src)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	board := blackboard.New()
	r := runner.New(runner.DefaultConfig(), dev, board, nil, nil)
	r.Add(cfg.modules()...)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	chk := replay.NewChecker(dev, board, append([]string{runner.HALName}, r.Order()...))
	start := time.Now()
	if err := r.RunRecorded(context.Background(), chk); err != nil {
		t.Fatal(err)
	}
	res, err := chk.Result()
	if err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	t.Logf("replayed %d ticks in %v (%.0f ticks/s): %s", res.Ticks, d.Round(time.Millisecond), float64(res.Ticks)/d.Seconds(), res)
	return res
}

func TestReplayIsBitExact(t *testing.T) {
	defer leaktest.Check(t)()
	dir := record60s(t)
	res := replayRun(t, dir, nil)
	if res.First != nil {
		t.Fatalf("replay differs: %s", res.First)
	}
	if res.Ticks != ticks || res.Gaps != 0 || len(res.Truncated) != 0 {
		t.Fatalf("replayed %d ticks, %d gaps, truncated %v", res.Ticks, res.Gaps, res.Truncated)
	}
	// Every recorded entry is compared, and the replay has no other: the
	// loopback robot has no ground truth, so neither has its replay
	// (Backend.Provides).
	src, err := record.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if res.Entries != src.Schema().Len() || len(res.Extra) != 0 {
		t.Fatalf("compared %d of %d entries; extra %v", res.Entries, src.Schema().Len(), res.Extra)
	}
	if n := len(src.Files()); n < 2 {
		t.Fatalf("the recording has %d segment(s); the replay should cross segments", n)
	}
	var size int64
	for _, f := range src.Files() {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	src.Next()
	t.Logf("recording: %d segments, %d bytes, %.0f bytes per tick on disk; %d bytes per record before compression",
		len(src.Files()), size, float64(size)/float64(ticks), len(src.Record().Data))
	if got, want := res.String(), fmt.Sprintf("%d ticks, 30 entries, bit-exact", ticks); got != want {
		t.Fatalf("result %q", got)
	}
}

// TestRecordingIsNotConstant checks that the recorded run exercises the
// modules, so that a bit-exact replay means something: the ball is seen and
// tracked, the robot localises, falls, is asked to get up, relaxes while
// disconnected.
func TestRecordingIsNotConstant(t *testing.T) {
	dir := record60s(t)
	balls := recorded(t, dir, msg.BallKey)
	poses := recorded(t, dir, msg.RobotPoseKey)
	bodies := recorded(t, dir, msg.BodyStateKey)
	reqs := recorded(t, dir, msg.MotionRequestKey)
	var seen, localised, fallen, relax int
	kinds := map[msg.MotionKind]bool{}
	for i := range balls {
		if balls[i].Seen {
			seen++
		}
		if poses[i].Valid && poses[i].Confidence > 0 {
			localised++
		}
		if bodies[i].Fall != msg.Upright {
			fallen++
		}
		if reqs[i].Kind == msg.MotionRelax {
			relax++
		}
		kinds[reqs[i].Kind] = true
	}
	t.Logf("ball seen in %d ticks, localised in %d, fallen in %d, relaxing in %d; last pose %+v", seen, localised, fallen, relax, poses[len(poses)-1].Pose)
	// The loopback robot stands, walks to the ball it sees in play, gets
	// up after the fall and relaxes while disconnected.
	want := []msg.MotionKind{msg.MotionStand, msg.MotionWalk, msg.MotionGetUp, msg.MotionRelax}
	missing := slices.ContainsFunc(want, func(k msg.MotionKind) bool { return !kinds[k] })
	if seen < int(ticks/visionEvery/2) || localised < int(ticks/2) || fallen < int(fallTo-fallFrom)/2 || relax < int(disconnTo-disconnectFrom) || missing {
		t.Fatalf("the recorded run is too uneventful: motion kinds %v", kinds)
	}
}

// recorded returns entry k's recorded value in every tick (index seq-1).
func recorded[T any](t *testing.T, dir string, k blackboard.Key[T]) []T {
	t.Helper()
	src, err := record.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s := src.Schema()
	i := s.Index(k.Name())
	if i < 0 {
		t.Fatalf("%s not recorded", k.Name())
	}
	c, err := codec.NewCodec[T]()
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	var rec codec.Record
	for src.Next() {
		if err := s.Split(src.Record().Data, &rec); err != nil {
			t.Fatal(err)
		}
		var v T
		if _, err := c.Decode(rec.Entries[i].Value, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if len(out) != int(ticks) {
		t.Fatalf("%d records", len(out))
	}
	return out
}

// TestReplayFindsChangedParameter replays with one module parameter
// changed and checks the first difference reported against the tick at
// which the recorded data says the parameter first matters.
func TestReplayFindsChangedParameter(t *testing.T) {
	dir := record60s(t)
	cmds := recorded(t, dir, msg.JointCommandKey)
	states := recorded(t, dir, msg.MotionStateKey)
	reqs := recorded(t, dir, msg.MotionRequestKey)
	joints := recorded(t, dir, msg.JointsKey)
	stand := motion.DefaultConfig().StandPose

	// The first tick in which motion moved a joint further than 1.0 rad/s
	// allows.
	slowTick := func() uint64 {
		for i, c := range cmds {
			prev := joints[0].Angle
			if i > 0 {
				prev = cmds[i-1].Angle
			}
			for j := range c.Angle {
				if math.Abs(float64(c.Angle[j]-prev[j])) > 1.0*period.Seconds()+1e-12 {
					return uint64(i + 1)
				}
			}
		}
		return 0
	}()
	// The first tick in which every joint but the head's (the head
	// controller's, which the stand does not wait for) was within 0.2 rad
	// of the stand pose while the recorded motion said it was not settled.
	settledTick := func() uint64 {
		for i, c := range cmds {
			if states[i].Active != msg.MotionStand || states[i].Settled {
				continue
			}
			within := true
			for j := range c.Angle {
				if hal.Joint(j) == hal.HeadYaw || hal.Joint(j) == hal.HeadPitch {
					continue
				}
				if d := hal.Joint(j).Clamp(stand[j]) - c.Angle[j]; d > 0.2 || d < -0.2 {
					within = false
				}
			}
			if within {
				return uint64(i + 1)
			}
		}
		return 0
	}()
	// The first tick in which behaviour asked for a get-up.
	getUpTick := func() uint64 {
		for i, r := range reqs {
			if r.Kind == msg.MotionGetUp {
				return uint64(i + 1)
			}
		}
		return 0
	}()
	if slowTick == 0 || settledTick == 0 || getUpTick < fallFrom || getUpTick > fallFrom+100 {
		t.Fatalf("the recording does not exercise the parameters: ticks %d, %d, %d", slowTick, settledTick, getUpTick)
	}

	cases := []struct {
		name   string
		change func(*robotConfig)
		entry  string
		field  string
		tick   uint64
	}{
		{"motion max speed", func(c *robotConfig) { c.Motion.MaxSpeed = 1.0 }, "cmd.joints", "Angle", slowTick},
		{"motion tolerance", func(c *robotConfig) { c.Motion.Tolerance = 0.2 }, "motion.state", "Settled", settledTick},
		{"no get-up", func(c *robotConfig) { c.Behaviour.GetUp = false }, "behaviour.motion_request", "Kind", getUpTick},
		{"motion stiffness", func(c *robotConfig) { c.Motion.Stiffness = 0.75 }, "cmd.joints", "Stiffness[0]", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := replayRun(t, dir, tc.change)
			d := res.First
			if d == nil {
				t.Fatal("no difference reported")
			}
			if d.Entry != tc.entry || d.Tick != tc.tick || len(d.Field) < len(tc.field) || d.Field[:len(tc.field)] != tc.field {
				t.Fatalf("first difference: %s\nwant %s %s... at tick %d", d, tc.entry, tc.field, tc.tick)
			}
			if res.Ticks != tc.tick {
				t.Fatalf("the replay went on for %d ticks after the difference at %d", res.Ticks, tc.tick)
			}
		})
	}
}

func BenchmarkReplay(b *testing.B) {
	dir, err := tempDir()
	if err != nil {
		b.Fatal(err)
	}
	if err := recordRun(dir); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		src, err := record.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		dev, err := replay.New(src)
		if err != nil {
			b.Fatal(err)
		}
		cfg := defaultRobotConfig()
		board := blackboard.New()
		r := runner.New(runner.DefaultConfig(), dev, board, nil, nil)
		r.Add(cfg.modules()...)
		if err := r.Start(); err != nil {
			b.Fatal(err)
		}
		chk := replay.NewChecker(dev, board, append([]string{runner.HALName}, r.Order()...))
		if err := r.RunRecorded(context.Background(), chk); err != nil {
			b.Fatal(err)
		}
		if res, _ := chk.Result(); res.First != nil || res.Ticks != ticks {
			b.Fatal(res)
		}
		dev.Close()
	}
	b.ReportMetric(float64(ticks)*float64(b.N)/b.Elapsed().Seconds(), "ticks/s")
}
