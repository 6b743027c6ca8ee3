package record

import (
	"bufio"
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/robotd/robotd/record/codec"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/runner"
)

// fakeRobot is a board with a few entries whose values change every tick.
type fakeRobot struct {
	board  *blackboard.Board
	tickW  *blackboard.Writer[hal.Tick]
	jointW *blackboard.Writer[hal.JointCommand]
	imuW   *blackboard.Writer[hal.IMU]
	rng    *rand.Rand
	seq    uint64
}

func newFakeRobot(t testing.TB) *fakeRobot {
	t.Helper()
	f := &fakeRobot{board: blackboard.New(), rng: rand.New(rand.NewPCG(1, 2))}
	var err error
	if f.tickW, err = blackboard.Write(f.board, "hal", msg.TickKey); err != nil {
		t.Fatal(err)
	}
	if f.jointW, err = blackboard.Write(f.board, "motion", msg.JointCommandKey); err != nil {
		t.Fatal(err)
	}
	if f.imuW, err = blackboard.Write(f.board, "hal", msg.IMUKey); err != nil {
		t.Fatal(err)
	}
	return f
}

// step runs one tick: new, partly random values (so that they do not
// compress to nothing).
func (f *fakeRobot) step() {
	f.seq++
	tk := hal.Tick{Seq: f.seq, Time: time.Duration(f.seq) * 10 * time.Millisecond, Period: 10 * time.Millisecond, Connected: true}
	f.board.BeginTick(tk.Seq, tk.Time)
	f.tickW.Set(tk)
	var c hal.JointCommand
	for j := range c.Angle {
		c.Angle[j] = hal.Radians(math.Sin(float64(f.seq)/100 + float64(j)))
		c.Stiffness[j] = 0.7
	}
	f.jointW.Set(c)
	f.imuW.Set(hal.IMU{Gyro: hal.Vec3{X: f.rng.NormFloat64()}, Accel: hal.Vec3{Z: 9.81 + f.rng.NormFloat64()/100}})
}

func testConfig(dir string) Config {
	c := DefaultConfig()
	c.Dir = dir
	c.Queue = 10000 // the tests run ticks faster than real time
	return c
}

// readAll reads every record of a recording.
func readAll(t *testing.T, path string) (*Reader, [][]byte) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	var recs [][]byte
	for r.Next() {
		recs = append(recs, slices.Clone(r.Record().Data))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return r, recs
}

func TestRecordAndRead(t *testing.T) {
	for _, level := range []int{flate.BestSpeed, flate.BestCompression, flate.NoCompression, flate.HuffmanOnly} {
		t.Run(fmt.Sprintf("level=%d", level), func(t *testing.T) {
			defer leaktest.Check(t)()
			dir := t.TempDir()
			f := newFakeRobot(t)
			cfg := testConfig(dir)
			cfg.Level = level
			info := Info{Config: json.RawMessage(`{"motion":{"max_speed":1.5}}`), Build: "test"}
			rec, err := Start(context.Background(), cfg, f.board, info, nil)
			if err != nil {
				t.Fatal(err)
			}
			// A second schema of the same board gives the expected records.
			want := codec.SchemaOf(f.board)
			var expected [][]byte
			for range 500 {
				f.step()
				rec.RecordTick(f.seq)
				expected = append(expected, want.AppendRecord(nil))
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			if rec.Dropped() != 0 || rec.Written() != 500 {
				t.Fatalf("dropped %d, written %d", rec.Dropped(), rec.Written())
			}
			r, got := readAll(t, dir)
			if len(r.Truncated()) != 0 {
				t.Errorf("a closed recording reads as truncated: %v", r.Truncated())
			}
			h := r.Header()
			if h.Build != "test" || string(h.Config) != string(info.Config) || h.Segment != 0 || !h.Schema.Equal(want) {
				t.Errorf("header %+v", h)
			}
			if len(got) != len(expected) {
				t.Fatalf("read %d records, want %d", len(got), len(expected))
			}
			for i := range got {
				if !bytes.Equal(got[i], expected[i]) {
					t.Fatalf("record %d differs", i)
				}
			}
			t.Logf("%d bytes for %d records: %.0f bytes per record", rec.Bytes(), len(got), float64(rec.Bytes())/float64(len(got)))
		})
	}
}

// TestTruncatedTail cuts a recording at every length, as a crash would,
// and reads what is left: a prefix of the records, reported as truncated,
// never an error.
func TestTruncatedTail(t *testing.T) {
	dir := t.TempDir()
	f := newFakeRobot(t)
	cfg := testConfig(dir)
	cfg.FlushInterval = config.Duration(20 * time.Millisecond)
	rec, err := Start(context.Background(), cfg, f.board, Info{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	headerSize := rec.Bytes()
	schema := codec.SchemaOf(f.board)
	var expected [][]byte
	for i := range 300 {
		f.step()
		rec.RecordTick(f.seq)
		expected = append(expected, schema.AppendRecord(nil))
		if i%50 == 49 {
			// Wait for the writer, then flush as the flush interval would.
			waitFor(t, func() bool { return rec.Written() == uint64(i+1) })
			rec.syncFlushForTest(t)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.rlog"))
	if len(files) != 1 {
		t.Fatalf("segments %v", files)
	}
	full, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	cutDir := t.TempDir()
	prev := 0
	for cut := len(full); cut >= fileHeader; cut -= 1 + cut/50 {
		p := filepath.Join(cutDir, "cut.bin")
		if err := os.WriteFile(p, full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(p)
		if err != nil {
			if int64(cut) < headerSize && strings.Contains(err.Error(), "header") {
				continue // cut inside the header: nothing to read
			}
			t.Fatalf("cut at %d of %d: %v", cut, len(full), err)
		}
		n := 0
		for r.Next() {
			if !bytes.Equal(r.Record().Data, expected[n]) {
				t.Fatalf("cut at %d: record %d differs", cut, n)
			}
			n++
		}
		if err := r.Err(); err != nil {
			t.Fatalf("cut at %d of %d: %v", cut, len(full), err)
		}
		if (cut < len(full)) != (len(r.Truncated()) == 1) {
			t.Fatalf("cut at %d of %d: truncated %v", cut, len(full), r.Truncated())
		}
		if cut == len(full) && n != len(expected) {
			t.Fatalf("whole file: %d records, want %d", n, len(expected))
		}
		if cut < len(full) && n > prev && prev != 0 {
			t.Fatalf("cut at %d yields %d records, more than the longer cut before (%d)", cut, n, prev)
		}
		if cut > len(full)*9/10 && n < 200 {
			t.Fatalf("cut at %d of %d: only %d records; flushed data was lost", cut, len(full), n)
		}
		prev = n
		r.Close()
	}
}

// syncFlushForTest asks the writer for a flush and waits for it.
func (r *Recorder) syncFlushForTest(t *testing.T) {
	t.Helper()
	before := r.Bytes()
	time.Sleep(r.cfg.FlushInterval.D() + 50*time.Millisecond)
	if r.Bytes() == before {
		t.Log("no flush observed")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDropsInsteadOfBlocking stalls the writer: RecordTick must return at
// once and count what it drops.
func TestDropsInsteadOfBlocking(t *testing.T) {
	defer leaktest.Check(t)()
	dir := t.TempDir()
	f := newFakeRobot(t)
	cfg := testConfig(dir)
	cfg.Queue = 4
	release := make(chan struct{})
	var once sync.Once
	rec, err := Start(context.Background(), cfg, f.board, Info{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Set before any record is queued; the writer reads it after a receive.
	rec.testHookWrite = func() { <-release }
	defer once.Do(func() { close(release) })
	start := time.Now()
	for range 100 {
		f.step()
		t0 := time.Now()
		rec.RecordTick(f.seq)
		// A hang guard: blocking on the stalled writer would never end;
		// Dropped below shows that the ticks did not wait.
		if d := time.Since(t0); d > 5*time.Second {
			t.Fatalf("RecordTick blocked for %v", d)
		}
	}
	t.Logf("100 ticks against a stalled writer in %v", time.Since(start))
	if got := rec.Dropped(); got != 96 {
		t.Fatalf("dropped %d, want 96 (queue of 4)", got)
	}
	once.Do(func() { close(release) })
	waitFor(t, func() bool { return rec.Written() == 4 })
	f.step()
	rec.RecordTick(f.seq)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var dropped []uint64
	for r.Next() {
		dropped = append(dropped, r.Record().Dropped)
	}
	if !slices.Equal(dropped, []uint64{0, 0, 0, 0, 96}) {
		t.Fatalf("records' dropped counts %v, want the gap before the fifth", dropped)
	}
}

func TestRecordTickDoesNotAllocate(t *testing.T) {
	dir := t.TempDir()
	f := newFakeRobot(t)
	cfg := testConfig(dir)
	cfg.Queue = 64
	rec, err := Start(context.Background(), cfg, f.board, Info{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	f.step()
	for range 200 { // grow the buffers
		rec.RecordTick(f.seq)
	}
	waitFor(t, func() bool { return rec.Written()+rec.Dropped() == 200 })
	if n := testing.AllocsPerRun(1000, func() { rec.RecordTick(f.seq) }); n != 0 {
		t.Fatalf("RecordTick: %v allocations per call", n)
	}
}

// TestDiskBound records many small segments: the directory never holds more
// than max_total_bytes of them, the oldest go first (an older session's
// included), other files stay, and every remaining segment reads on its
// own.
func TestDiskBound(t *testing.T) {
	defer leaktest.Check(t)()
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.SegmentBytes = 16 << 10
	cfg.MaxTotalBytes = 64 << 10
	cfg.Level = flate.NoCompression // fill segments fast

	// An older session's segment and a file that is not ours.
	old := filepath.Join(dir, segmentName(cfg.Prefix, "20000101T000000.000000000Z", 0))
	if err := os.WriteFile(old, make([]byte, 10<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, segmentName("other", "20000101T000000.000000000Z", 0))
	if err := os.WriteFile(foreign, make([]byte, 10<<10), 0o644); err != nil {
		t.Fatal(err)
	}

	f := newFakeRobot(t)
	rec, err := Start(context.Background(), cfg, f.board, Info{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	total := func() (int64, []string) {
		des, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		var names []string
		for _, de := range des {
			if id, ok := parseSegmentName(de.Name()); ok && id.prefix == cfg.Prefix {
				fi, err := de.Info()
				if err != nil {
					continue
				}
				n += fi.Size()
				names = append(names, de.Name())
			}
		}
		return n, names
	}
	const ticks = 2000
	for i := range ticks {
		f.step()
		rec.RecordTick(f.seq)
		if i%10 == 0 {
			waitFor(t, func() bool { return rec.Written() == uint64(i+1) })
			if n, names := total(); n > cfg.MaxTotalBytes {
				t.Fatalf("tick %d: %d bytes in %v, over the bound of %d", i, n, names, cfg.MaxTotalBytes)
			}
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	n, names := total()
	if n > cfg.MaxTotalBytes {
		t.Fatalf("%d bytes at the end, over the bound", n)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the older session's segment is still there (%v)", err)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("a file with another prefix was touched: %v", err)
	}
	first, _ := parseSegmentName(names[0])
	if len(names) < 3 || first.n == 0 {
		t.Fatalf("segments left %v: want several, the oldest deleted", names)
	}
	t.Logf("%d segments left, %d bytes, first %s", len(names), n, names[0])
	// Each segment on its own.
	var lastTick uint64
	for i, name := range names {
		p := filepath.Join(dir, name)
		fi, _ := os.Stat(p)
		if fi.Size() > cfg.SegmentBytes {
			t.Errorf("%s: %d bytes, over the segment size", name, fi.Size())
		}
		r, err := OpenFiles(p)
		if err != nil {
			t.Fatal(err)
		}
		var split codec.Record
		cnt := 0
		for r.Next() {
			if err := r.Schema().Split(r.Record().Data, &split); err != nil {
				t.Fatal(err)
			}
			if lastTick != 0 && split.Tick != lastTick+1 {
				t.Fatalf("%s: tick %d after %d", name, split.Tick, lastTick)
			}
			lastTick = split.Tick
			cnt++
		}
		if r.Err() != nil || len(r.Truncated()) != 0 || cnt == 0 || r.Header().Segment != first.n+i {
			t.Fatalf("%s: %d records, err %v, truncated %v, header segment %d", name, cnt, r.Err(), r.Truncated(), r.Header().Segment)
		}
		r.Close()
	}
	if lastTick != ticks {
		t.Fatalf("the last record is of tick %d, want %d", lastTick, ticks)
	}
	// And all of them as one session, from any of its files.
	r, recs := readAll(t, filepath.Join(dir, names[len(names)-1]))
	if len(r.Files()) != len(names) || len(recs) == 0 {
		t.Fatalf("session read %d files, %d records", len(r.Files()), len(recs))
	}
}

func TestStopsWithContext(t *testing.T) {
	defer leaktest.Check(t)()
	f := newFakeRobot(t)
	ctx, cancel := context.WithCancel(context.Background())
	rec, err := Start(ctx, testConfig(t.TempDir()), f.board, Info{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.step()
	rec.RecordTick(1)
	cancel()
	select {
	case <-rec.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the writer outlived its context")
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	rec.RecordTick(2) // after Close: ignored, no panic
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"defaults", func(*Config) {}, ""},
		{"no dir", func(c *Config) { c.Dir = "" }, "dir"},
		{"prefix with a slash", func(c *Config) { c.Prefix = "a/b" }, "prefix"},
		{"tiny segments", func(c *Config) { c.SegmentBytes = 1000 }, "segment_bytes"},
		{"total below two segments", func(c *Config) { c.MaxTotalBytes = c.SegmentBytes }, "max_total_bytes"},
		{"no total bound", func(c *Config) { c.MaxTotalBytes = 0 }, ""},
		{"slow flush", func(c *Config) { c.FlushInterval = config.Duration(2 * time.Second) }, "flush_interval"},
		{"no queue", func(c *Config) { c.Queue = 0 }, "queue"},
		{"level", func(c *Config) { c.Level = 10 }, "level"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.change(&c)
			err := c.Validate()
			if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error about %q", err, tc.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "no recording") {
		t.Errorf("empty directory: %v", err)
	}
	p := filepath.Join(dir, "x.rlog")
	os.WriteFile(p, []byte("not a recording at all"), 0o644)
	if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "not a robotd recording") {
		t.Errorf("other file: %v", err)
	}
}

const crashEnv = "ROBOTD_RECORD_CRASH_DIR"

// TestCrashChild is the child process of TestCrashLosesAtMostOneSecond: a
// runner with the real modules on the loopback robot in real time,
// recorded, until it is killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("only run as TestCrashLosesAtMostOneSecond's child")
	}
	dev := loopback.New(loopback.NewWallClock(10 * time.Millisecond))
	board := blackboard.New()
	r := runner.New(runner.DefaultConfig(), dev, board, nil, nil)
	r.Add(perception.New(perception.DefaultConfig()), behaviour.New(behaviour.DefaultConfig()), motion.New(motion.DefaultConfig()))
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	// DefaultConfig().Dir is relative: to the directory the parent chose.
	rec, err := Start(context.Background(), DefaultConfig(), board, Info{Build: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("recording")
	_ = r.RunRecorded(context.Background(), tellingRecorder{rec}) // until killed
}

// tellingRecorder records every tick and says on stdout, every 10th tick,
// the wall time it handed that tick to the recorder: what the robot had
// done by then, to compare with what the recording kept.
type tellingRecorder struct{ rec *Recorder }

func (t tellingRecorder) RecordTick(seq uint64) {
	t.rec.RecordTick(seq)
	if seq%10 == 0 {
		fmt.Printf("tick %d %d\n", seq, time.Now().UnixNano())
	}
}

// TestCrashLosesAtMostOneSecond kills a recording process with SIGKILL
// after about 2.5 s and reads what it left: the last record must be less
// than a second older than the last tick the process handed to its
// recorder before the kill (what it had done; on a loaded machine the
// process may have done nothing for a while before the kill, which the
// recorder cannot be blamed for).
func TestCrashLosesAtMostOneSecond(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process for 2.5 s")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	ready := make(chan bool, 1)
	var lastTold atomic.Int64 // wall time (ns) of the last tick the child told
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if sc.Text() == "recording" && !ok {
				ok = true
				ready <- true
			}
			var seq uint64
			var wall int64
			if n, _ := fmt.Sscanf(sc.Text(), "tick %d %d", &seq, &wall); n == 2 {
				lastTold.Store(wall)
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the child ended without recording")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not start recording")
	}
	time.Sleep(2500 * time.Millisecond)
	killed := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	<-readDone

	r, err := Open(filepath.Join(dir, DefaultConfig().Dir))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var last Record
	n := 0
	for r.Next() {
		last = r.Record()
		n++
	}
	if err := r.Err(); err != nil {
		t.Fatalf("reading the killed recording: %v", err)
	}
	if len(r.Truncated()) != 1 {
		t.Errorf("truncated segments %v, want the one that was being written", r.Truncated())
	}
	told := time.Unix(0, lastTold.Load())
	lost := told.Sub(last.Wall)
	t.Logf("%d records; the last recorded %v before the last tick the process told of, which was %v before the kill", n, lost, killed.Sub(told))
	if n < 50 || lastTold.Load() == 0 {
		t.Fatalf("only %d records, last tick told at %v", n, told)
	}
	if lost > time.Second {
		t.Fatalf("the last readable record is %v older than the last tick done before the kill, want at most 1s", lost)
	}
}

var _ io.Closer = (*Reader)(nil)

// BenchmarkRecordTick measures what recording costs the tick goroutine on
// a board with the real modules' entries.
func BenchmarkRecordTick(b *testing.B) {
	dev := loopback.New(haltestClock{})
	board := blackboard.New()
	r := runner.New(runner.DefaultConfig(), dev, board, nil, nil)
	r.Add(perception.New(perception.DefaultConfig()), behaviour.New(behaviour.DefaultConfig()), motion.New(motion.DefaultConfig()))
	if err := r.Start(); err != nil {
		b.Fatal(err)
	}
	for range 10 {
		if err := r.Step(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	cfg := testConfig(b.TempDir())
	cfg.Queue = 64
	rec, err := Start(context.Background(), cfg, board, Info{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	b.ReportAllocs()
	n := uint64(0)
	for b.Loop() {
		rec.RecordTick(10)
		if n++; n%32 == 0 {
			// Let the writer catch up, as it does between real ticks.
			b.StopTimer()
			for rec.Written()+rec.Dropped() < n {
				time.Sleep(100 * time.Microsecond)
			}
			b.StartTimer()
		}
	}
	if rec.Dropped() != 0 {
		b.Fatalf("%d dropped", rec.Dropped())
	}
	b.ReportMetric(float64(rec.Bytes())/float64(rec.Written()), "disk-bytes/tick")
}

// haltestClock ticks at once, forever.
type haltestClock struct{}

func (haltestClock) Next(context.Context) (hal.Tick, error) {
	return hal.Tick{Seq: 1, Period: 10 * time.Millisecond, Connected: true}, nil
}
