package runner_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/haltest"
	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/runner"
)

const period = 10 * time.Millisecond

// fake is a module wired from declarations, running a function each tick.
type fake struct {
	name          string
	reads, writes []string
	uses          []string
	tick          func(hal.Tick) error
	ticks         int
	ws            []*blackboard.Writer[float64]
}

func (f *fake) Name() string { return f.name }
func (f *fake) Wire(b *blackboard.Board) error {
	for _, e := range f.reads {
		if _, err := blackboard.Read(b, f.name, blackboard.NewKey[float64](e)); err != nil {
			return err
		}
	}
	for _, e := range f.uses {
		if _, err := blackboard.Use(b, f.name, blackboard.NewKey[float64](e)); err != nil {
			return err
		}
	}
	for _, e := range f.writes {
		w, err := blackboard.Write(b, f.name, blackboard.NewKey[float64](e))
		if err != nil {
			return err
		}
		f.ws = append(f.ws, w)
	}
	return nil
}
func (f *fake) Tick(t hal.Tick) error {
	f.ticks++
	for _, w := range f.ws {
		w.Set(float64(t.Seq))
	}
	if f.tick != nil {
		return f.tick(t)
	}
	return nil
}

func newRunner(t testing.TB, cfg runner.Config, limit uint64, ms ...runner.Module) (*runner.Runner, *loopback.Backend) {
	t.Helper()
	dev := loopback.New(haltest.NewClock(period, limit))
	r := runner.New(cfg, dev, blackboard.New(), nil, nil)
	r.Add(ms...)
	return r, dev
}

func TestOrderFromDeclarations(t *testing.T) {
	// Added in reverse; the order must follow the data.
	c := &fake{name: "c", reads: []string{"b.out"}}
	b := &fake{name: "b", reads: []string{"a.out"}, writes: []string{"b.out"}, uses: []string{"c.out"}}
	a := &fake{name: "a", writes: []string{"a.out"}}
	cw := &fake{name: "cw", writes: []string{"c.out"}}
	r, _ := newRunner(t, runner.DefaultConfig(), 0, c, b, cw, a)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(r.Order(), ",")
	if got != "cw,a,b,c" {
		t.Fatalf("order = %s, want cw,a,b,c", got)
	}
}

func TestWiringErrors(t *testing.T) {
	tests := []struct {
		name    string
		modules []runner.Module
		want    []string
	}{
		{"duplicate producer", []runner.Module{
			&fake{name: "perception", writes: []string{"world.ball"}},
			&fake{name: "teamcomm", writes: []string{"world.ball"}},
		}, []string{"duplicate producer", `"world.ball"`, "perception", "teamcomm"}},
		{"duplicate producer of a sensor entry", []runner.Module{
			&fake{name: "vision"},
			perceptionWriting(msg.IMUKey),
		}, []string{"duplicate producer", `"hal.imu"`, "hal", "rogue"}},
		{"missing producer", []runner.Module{
			&fake{name: "behaviour", reads: []string{"world.ball"}},
		}, []string{"missing producer", `"world.ball"`, "behaviour"}},
		{"cycle", []runner.Module{
			&fake{name: "behaviour", reads: []string{"motion.state"}, writes: []string{"behaviour.request"}},
			&fake{name: "motion", reads: []string{"behaviour.request"}, writes: []string{"motion.state"}},
			&fake{name: "perception", writes: []string{"world.x"}},
		}, []string{"cycle", "behaviour", "motion", `"motion.state"`, `"behaviour.request"`}},
		{"three-module cycle", []runner.Module{
			&fake{name: "a", reads: []string{"c.out"}, writes: []string{"a.out"}},
			&fake{name: "b", reads: []string{"a.out"}, writes: []string{"b.out"}},
			&fake{name: "c", reads: []string{"b.out"}, writes: []string{"c.out"}},
		}, []string{"cycle between modules", `"a.out"`, `"b.out"`, `"c.out"`}},
		{"same name twice", []runner.Module{&fake{name: "x"}, &fake{name: "x"}}, []string{`two modules are called "x"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := newRunner(t, runner.DefaultConfig(), 0, tc.modules...)
			err := r.Start()
			if err == nil {
				t.Fatal("Start succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

type rogue struct{ k blackboard.Key[hal.IMU] }

func (r rogue) Name() string { return "rogue" }
func (r rogue) Wire(b *blackboard.Board) error {
	_, err := blackboard.Write(b, r.Name(), r.k)
	return err
}
func (rogue) Tick(hal.Tick) error { return nil }

func perceptionWriting(k blackboard.Key[hal.IMU]) runner.Module { return rogue{k} }

func TestCycleErrorIsTyped(t *testing.T) {
	r, _ := newRunner(t, runner.DefaultConfig(), 0,
		&fake{name: "x", reads: []string{"y.out"}, writes: []string{"x.out"}},
		&fake{name: "y", reads: []string{"x.out"}, writes: []string{"y.out"}})
	var ce *runner.CycleError
	if err := r.Start(); !errors.As(err, &ce) || len(ce.Modules) != 3 || ce.Modules[0] != ce.Modules[2] {
		t.Fatalf("err = %v, want a CycleError over x and y", err)
	}
}

func TestEveryNthTick(t *testing.T) {
	fast := &fake{name: "fast", writes: []string{"fast.out"}}
	slow := &fake{name: "slow", writes: []string{"slow.out"}}
	cfg := runner.DefaultConfig()
	cfg.Every = map[string]int{"slow": 3}
	r, _ := newRunner(t, cfg, 30, fast, slow)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fast.ticks != 30 || slow.ticks != 10 {
		t.Fatalf("fast ran %d, slow ran %d ticks; want 30 and 10", fast.ticks, slow.ticks)
	}
}

func TestMetricsCountOverrunsAndErrors(t *testing.T) {
	reg := prometheus.NewRegistry()
	dev := loopback.New(haltest.NewClock(period, 5))
	met, err := runner.NewMetrics(reg, dev)
	if err != nil {
		t.Fatal(err)
	}
	cfg := runner.DefaultConfig()
	cfg.Budget = 1 // every real tick overruns this
	r := runner.New(cfg, dev, blackboard.New(), nil, met)
	r.Add(&fake{name: "slow", tick: func(hal.Tick) error { time.Sleep(time.Microsecond); return nil }},
		&fake{name: "bad", tick: func(hal.Tick) error { return errors.New("boom") }})
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, module string
		want         float64
	}{
		{"robotd_ticks_total", "", 5},
		{"robotd_module_overruns_total", "slow", 5},
		{"robotd_module_errors_total", "bad", 5},
		{"robotd_module_errors_total", "slow", 0},
		{"robotd_backend_connected", "", 1},
	} {
		if got := metricValue(t, reg, c.name, c.module); got != c.want {
			t.Errorf("%s{module=%q} = %v, want %v", c.name, c.module, got, c.want)
		}
	}
	if got := metricValue(t, reg, "robotd_module_tick_seconds", "slow"); got != 5 {
		t.Errorf("slow's tick histogram has %v samples, want 5", got)
	}
}

// metricValue returns a counter's or gauge's value, or a histogram's sample
// count, for the series with the given module label ("" for none).
func metricValue(t *testing.T, reg *prometheus.Registry, name, module string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			label := ""
			if len(m.GetLabel()) > 0 {
				label = m.GetLabel()[0].GetValue()
			}
			if label != module {
				continue
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
		return 0
	}
	t.Fatalf("metric %s not found", name)
	return 0
}

// stack returns the three real modules with their defaults.
func stack() []runner.Module {
	return []runner.Module{
		motion.New(motion.DefaultConfig()),
		behaviour.New(behaviour.DefaultConfig()),
		perception.New(perception.DefaultConfig()),
	}
}

func TestDaemonStandsAndLoopsBack(t *testing.T) {
	r, dev := newRunner(t, runner.DefaultConfig(), 0, stack()...)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Order(), ","); got != "perception,behaviour,motion" {
		t.Fatalf("order = %s", got)
	}
	ctx := context.Background()
	// 3 s of ticks at 1.5 rad/s is enough to reach the stand pose from zero.
	for range 300 {
		if err := r.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	st, cmd, _, _ := dev.Snapshot()
	pose := motion.DefaultConfig().StandPose
	for j := range hal.NumJoints {
		if d := float64(st.Joints.Angle[j] - hal.Joint(j).Clamp(pose[j])); d > 0.011 || d < -0.011 {
			t.Errorf("%s reads %.3f, want stand pose %.3f", hal.Joint(j), st.Joints.Angle[j], pose[j])
		}
		if cmd.Stiffness[j] != 0.7 {
			t.Errorf("%s stiffness %v, want 0.7", hal.Joint(j), cmd.Stiffness[j])
		}
	}
	ms, m := readEntry(t, r.Board(), msg.MotionStateKey)
	if ms.Active != msg.MotionStand || !ms.Settled || !m.Fresh {
		t.Fatalf("motion state %+v %+v, want settled stand this tick", ms, m)
	}

	// A joint commanded to 0.3 rad reads 0.3 rad on the next tick.
	var c hal.JointCommand
	c.Angle[hal.HeadYaw] = 0.3
	dev.WriteJoints(&c)
	if err := dev.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := dev.Next(ctx); err != nil {
		t.Fatal(err)
	}
	var js hal.JointSensors
	dev.ReadJoints(&js)
	if js.Angle[hal.HeadYaw] != 0.3 {
		t.Fatalf("HeadYaw reads %v after commanding 0.3", js.Angle[hal.HeadYaw])
	}

	// Tilt the robot past the fall angle: perception sees it, behaviour asks
	// for a get-up.
	dev.Update(func(s *loopback.State) { s.BodyAngles.Pitch = 1.2 })
	if err := r.Step(ctx); err != nil {
		t.Fatal(err)
	}
	body, _ := readEntry(t, r.Board(), msg.BodyStateKey)
	req, _ := readEntry(t, r.Board(), msg.MotionRequestKey)
	if body.Fall != msg.FallenFront || req.Kind != msg.MotionGetUp {
		t.Fatalf("after tilting forward: fall %v, request %v", body.Fall, req.Kind)
	}
}

func TestRunEndsInSafeState(t *testing.T) {
	r, dev := newRunner(t, runner.DefaultConfig(), 0, stack()...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want nil on cancel", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	_, cmd, _, safe := dev.Snapshot()
	if safe != 1 {
		t.Fatalf("SafeState ran %d times, want 1", safe)
	}
	for j, s := range cmd.Stiffness {
		if s != 0 {
			t.Fatalf("%s stiffness %v after shutdown, want 0", hal.Joint(j), s)
		}
	}
}

func readEntry[T any](t *testing.T, b *blackboard.Board, k blackboard.Key[T]) (T, blackboard.Meta) {
	t.Helper()
	r, err := blackboard.ReadOptional(b, "test", k)
	if err != nil {
		t.Fatal(err)
	}
	return r.Get()
}

func TestTickDoesNotAllocate(t *testing.T) {
	r, _ := newRunner(t, runner.DefaultConfig(), 0, stack()...)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 10 {
		_ = r.Step(ctx)
	}
	if n := testing.AllocsPerRun(200, func() { _ = r.Step(ctx) }); n != 0 {
		t.Fatalf("one tick allocates %v times, want 0", n)
	}
}

// BenchmarkTick is one full tick: loopback backend, sensor publication, the
// three modules, command hand-back, with Prometheus metrics on.
func BenchmarkTick(b *testing.B) {
	dev := loopback.New(haltest.NewClock(period, 0))
	met, err := runner.NewMetrics(prometheus.NewRegistry(), dev)
	if err != nil {
		b.Fatal(err)
	}
	r := runner.New(runner.DefaultConfig(), dev, blackboard.New(), nil, met)
	r.Add(stack()...)
	if err := r.Start(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for range 10 {
		_ = r.Step(ctx)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Step(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// partial is the loopback robot with only some of its capabilities
// (runner.Provider), as a replay of a robot that lacked the others.
type partial struct {
	*loopback.Backend
	has []string
}

func (p partial) Provides(entry string) bool {
	for _, h := range p.has {
		if h == entry {
			return true
		}
	}
	return false
}

func TestProviderLimitsTheWiredCapabilities(t *testing.T) {
	dev := partial{Backend: loopback.New(haltest.NewClock(period, 3)), has: []string{msg.JointsKey.Name(), msg.JointCommandKey.Name()}}
	board := blackboard.New()
	r := runner.New(runner.DefaultConfig(), dev, board, nil, nil)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range board.Entries() {
		got = append(got, e.Name)
	}
	want := []string{msg.TickKey.Name(), msg.JointsKey.Name(), msg.JointCommandKey.Name()}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("entries %v, want %v", got, want)
	}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// cancelling is the loopback robot whose clock cancels the run while it
// hands out a tick (a sensor packet that arrives as shutdown starts), or
// whose modules cancel it during the tick; it counts the commits.
type cancelling struct {
	*loopback.Backend
	cancelInNext bool
	cancel       context.CancelFunc
	commits      int
	safe         int
}

func (c *cancelling) Next(ctx context.Context) (hal.Tick, error) {
	t, err := c.Backend.Next(ctx)
	if c.cancelInNext && t.Seq == 3 {
		c.cancel()
	}
	return t, err
}

func (c *cancelling) Commit(ctx context.Context) error {
	c.commits++
	return c.Backend.Commit(ctx)
}

func (c *cancelling) SafeState(ctx context.Context) error {
	c.safe++
	return c.Backend.SafeState(ctx)
}

// TestNoCommandAfterShutdownStarts: a tick that arrives as the run is
// cancelled, or whose modules run while it is, sends no module command;
// only the safe state follows.
func TestNoCommandAfterShutdownStarts(t *testing.T) {
	for _, inNext := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		dev := &cancelling{Backend: loopback.New(haltest.NewClock(period, 10)), cancelInNext: inNext, cancel: cancel}
		m := &fake{name: "m", writes: []string{"x"}, tick: func(tk hal.Tick) error {
			if !inNext && tk.Seq == 3 {
				cancel()
			}
			return nil
		}}
		r := runner.New(runner.DefaultConfig(), dev, blackboard.New(), nil, nil)
		r.Add(m)
		if err := r.Run(ctx); err != nil {
			t.Fatalf("cancel in Next %v: %v", inNext, err)
		}
		cancel()
		if dev.commits != 2 || dev.safe != 1 {
			t.Errorf("cancel in Next %v: %d commits and %d safe states; want the 2 of the ticks before shutdown, then the safe state", inNext, dev.commits, dev.safe)
		}
	}
}

// failingCommit is a backend whose every commit fails.
type failingCommit struct{ *loopback.Backend }

func (failingCommit) Commit(context.Context) error { return errors.New("link down") }

// TestFailuresLogOncePerSecond: a module that fails every tick, or a
// backend whose every commit fails, is logged at most once per second of
// tick time, each line counting the failures since the last; every failure
// is still counted in the metrics.
func TestFailuresLogOncePerSecond(t *testing.T) {
	for _, tc := range []struct {
		name, line, attr, metric string
		dev                      func(hal.Clock) hal.Device
		module                   func(hal.Tick) error
	}{
		{"failing module", "module tick failed", "module=broken", "robotd_module_errors_total",
			func(c hal.Clock) hal.Device { return loopback.New(c) },
			func(hal.Tick) error { return errors.New("no luck") }},
		{"failing commit", "backend commit failed", `err="link down"`, "robotd_backend_commit_errors_total",
			func(c hal.Clock) hal.Device { return failingCommit{loopback.New(c)} },
			func(hal.Tick) error { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf strings.Builder
			log := slog.New(slog.NewTextHandler(&buf, nil))
			dev := tc.dev(haltest.NewClock(period, 250)) // 2.5 s of ticks
			reg := prometheus.NewRegistry()
			met, err := runner.NewMetrics(reg, dev)
			if err != nil {
				t.Fatal(err)
			}
			r := runner.New(runner.DefaultConfig(), dev, blackboard.New(), log, met)
			r.Add(&fake{name: "broken", writes: []string{"x"}, tick: tc.module})
			if err := r.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, l := range strings.Split(buf.String(), "\n") {
				if strings.Contains(l, tc.line) {
					lines = append(lines, l)
				}
			}
			want := []string{"failures=1", "failures=100", "failures=100"}
			if len(lines) != len(want) {
				t.Fatalf("%d log lines for 250 failures, want %d (one per second of tick time):\n%s", len(lines), len(want), strings.Join(lines, "\n"))
			}
			for i, w := range want {
				if !strings.Contains(lines[i], w) || !strings.Contains(lines[i], tc.attr) {
					t.Errorf("line %d = %q, want %s and %s", i, lines[i], tc.attr, w)
				}
			}
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			var counted float64
			for _, mf := range mfs {
				if mf.GetName() == tc.metric {
					for _, m := range mf.GetMetric() {
						counted += m.GetCounter().GetValue()
					}
				}
			}
			if counted != 250 {
				t.Errorf("%s = %v, want 250", tc.metric, counted)
			}
		})
	}
}

// TestStopAfter: with StopAfter, Run stops once that much tick time has
// passed since the first tick, and puts the robot into its safe state.
func TestStopAfter(t *testing.T) {
	dev := &cancelling{Backend: loopback.New(haltest.NewClock(period, 1000))}
	cfg := runner.DefaultConfig()
	cfg.StopAfter = config.Duration(time.Second)
	r := runner.New(cfg, dev, blackboard.New(), nil, nil)
	m := &fake{name: "m", writes: []string{"x"}}
	r.Add(m)
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m.ticks != 101 || dev.commits != 101 || dev.safe != 1 {
		t.Errorf("%d ticks, %d commits, %d safe states; want 101 ticks (1 s at 10 ms after the first), as many commits, then the safe state", m.ticks, dev.commits, dev.safe)
	}
}

// batteryProbe records, on every tick, whether the battery entry has a
// value and whether it was written this tick.
type batteryProbe struct {
	in    *blackboard.Reader[hal.Battery]
	valid []bool
	fresh []bool
}

func (p *batteryProbe) Name() string { return "battery-probe" }
func (p *batteryProbe) Wire(b *blackboard.Board) error {
	var err error
	p.in, err = blackboard.Read(b, p.Name(), msg.BatteryKey)
	return err
}
func (p *batteryProbe) Tick(hal.Tick) error {
	_, m := p.in.Get()
	p.valid = append(p.valid, m.Valid())
	p.fresh = append(p.fresh, m.Fresh)
	return nil
}

// TestSensorsFromTheFirstConnectedTick: before the backend has reached
// the hardware its sensor buffers hold zero values, not readings (a
// battery at 0 % would make the robot sit down), so the runner publishes
// no sensor entry; from the first connected tick on it publishes every
// tick, disconnected ones with the last known values (hal.Tick).
func TestSensorsFromTheFirstConnectedTick(t *testing.T) {
	clock := haltest.NewClock(period, 0)
	clock.Disconnected = true
	r := runner.New(runner.DefaultConfig(), loopback.New(clock), blackboard.New(), nil, nil)
	p := &batteryProbe{}
	r.Add(p)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	connected := []bool{false, false, false, true, true, false, false, true}
	for i, c := range connected {
		clock.Disconnected = !c
		if err := r.Step(context.Background()); err != nil {
			t.Fatalf("tick %d: %v", i+1, err)
		}
	}
	for i, c := range connected {
		want := i >= 3 // from the first connected tick on
		if p.valid[i] != want || p.fresh[i] != want {
			t.Errorf("tick %d (connected %v): battery entry valid %v fresh %v, want %v", i+1, c, p.valid[i], p.fresh[i], want)
		}
	}
}
