package simrun

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/runner"
)

// firstDown records the simulation time since the robot connected of the
// first tick in which perception saw it not upright (at), and of the first
// in which it saw it lying on its back (back).
type firstDown struct {
	body     *blackboard.Reader[msg.BodyState]
	conn     time.Duration
	ok       bool
	at, back atomic.Int64
}

func (*firstDown) Name() string { return "down" }
func (d *firstDown) Wire(b *blackboard.Board) (err error) {
	d.body, err = blackboard.Read(b, d.Name(), msg.BodyStateKey)
	return err
}
func (d *firstDown) Tick(t hal.Tick) error {
	if !d.ok && t.Connected {
		d.conn, d.ok = t.Time, true
	}
	b, _ := d.body.Get()
	if d.ok && b.Fall != msg.Upright && d.at.Load() == 0 {
		d.at.Store(int64(t.Time - d.conn))
	}
	if d.ok && b.Fall == msg.FallenBack && d.back.Load() == 0 {
		d.back.Store(int64(t.Time - d.conn))
	}
	return nil
}

// startWorld starts a world for a test (the embedded simulator, or
// ROBOTD_SIMSPARK's server); stop closes it, reporting a failure to.
func startWorld(ctx context.Context, t *testing.T) (*World, func()) {
	t.Helper()
	w, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return w, func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestParseTarget(t *testing.T) {
	cases := []struct {
		in      string
		want    Target
		wantErr bool
	}{
		{"127.0.0.1:3100,127.0.0.1:3200", Target{"127.0.0.1:3100", "127.0.0.1:3200"}, false},
		{" sim:3100 , sim:3200 ", Target{"sim:3100", "sim:3200"}, false},
		{"127.0.0.1:3100", Target{}, true},
		{"127.0.0.1,127.0.0.1:3200", Target{}, true},
		{"", Target{}, true},
	}
	for _, tc := range cases {
		got, err := ParseTarget(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestTargetFromEnvRejectsGarbage(t *testing.T) {
	t.Setenv(EnvVar, "nonsense")
	if _, _, err := TargetFromEnv(); err == nil {
		t.Fatal("no error for a malformed " + EnvVar)
	}
	if _, err := Start(context.Background(), Options{}); err == nil {
		t.Fatal("Start accepted a malformed " + EnvVar)
	}
}

// TestRobotStandsAtBeam, the drop-in check: an in-process robotd
// (SimSpark backend over TCP, the daemon's modules) connects to the
// simulator unchanged, and the trainer/monitor state and the fork's
// ground truth show it standing where it was beamed. With ROBOTD_SIMSPARK
// set it runs against that server instead.
func TestRobotStandsAtBeam(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	w, stop := startWorld(ctx, t)
	defer stop()
	beam := sim.Beam{X: -1.5, Y: 0.5, Deg: 30}
	r, err := w.AddRobot(RobotConfig{Team: "robotd", Player: 2, Beam: beam})
	if err != nil {
		t.Fatal(err)
	}
	// Let it settle into its stand for 3 s of simulation from its first
	// message (a real server takes seconds to answer; those ticks count).
	if r.ConnectedAt() <= 0 {
		t.Fatalf("AddRobot returned before the robot connected (at %v)", r.ConnectedAt())
	}
	if _, err := r.WaitFor(ctx, 3*time.Second+time.Hour, func() bool { return r.Elapsed() > 3*time.Second }); err != nil {
		t.Fatal(err)
	}
	gt, meta := r.Truth()
	if !gt.Valid || !meta.Valid() {
		t.Fatalf("no ground truth after 3 s: %+v", gt)
	}
	if d := math.Hypot(float64(gt.Pose.X)-beam.X, float64(gt.Pose.Y)-beam.Y); d > 0.05 {
		t.Errorf("ground truth %+v is %.3f m from the beam (%.2f, %.2f)", gt.Pose, d, beam.X, beam.Y)
	}
	if dh := math.Abs(math.Remainder(float64(gt.Pose.Heading)-beam.Deg*math.Pi/180, 2*math.Pi)); dh > 5*math.Pi/180 {
		t.Errorf("ground-truth heading %.1f°, beamed %.1f°", float64(gt.Pose.Heading)*180/math.Pi, beam.Deg)
	}
	body, _ := r.Body()
	if body.Fall != msg.Upright {
		t.Errorf("robot fell: %+v", body)
	}
	if w.Embedded() == nil {
		return // a real server's scene graph has other nodes; ground truth was checked
	}
	if err := w.Trainer().RequestFullState(); err != nil {
		t.Fatal(err)
	}
	var st MonitorState
	for i := 0; i < 50; i++ {
		if err := w.Trainer().WaitUpdate(ctx, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		st = w.Trainer().State()
		if len(st.Nodes) == 5 {
			break
		}
	}
	if len(st.Nodes) != 5 {
		t.Fatalf("monitor scene has %d nodes, want ball + 4 for the robot", len(st.Nodes))
	}
	torso, lf, rf := st.Nodes[1], st.Nodes[3], st.Nodes[4]
	mid := [2]float64{(lf[0] + rf[0]) / 2, (lf[1] + rf[1]) / 2}
	if d := math.Hypot(mid[0]-beam.X, mid[1]-beam.Y); d > 0.05 {
		t.Errorf("monitor: feet centred at (%.3f, %.3f), %.3f m from the beam", mid[0], mid[1], d)
	}
	if torso[2] < 0.25 || torso[2] > 0.45 {
		t.Errorf("monitor: torso at height %.3f m: not standing", torso[2])
	}
	if n, err := w.Trainer().Malformed(); n != 0 {
		t.Errorf("%d monitor messages did not parse, the last: %v", n, err)
	}
}

// TestTrainerPlacesBallAndLaysDown: the trainer places the ball for good
// (play mode PlayOn in the same message: a server in BeforeKickOff puts a
// placed ball back), and a commanded fall lays the robot on its front,
// on any server.
func TestTrainerPlacesBallAndLaysDown(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	w, stop := startWorld(ctx, t)
	defer stop()
	r, err := w.AddRobot(RobotConfig{Team: "robotd", Player: 1, Beam: sim.Beam{X: -2, Y: -1, Deg: 0}})
	if err != nil {
		t.Fatal(err)
	}
	// A second robot falls on its back at a planned simulation time.
	const layAt = 1500 * time.Millisecond
	down := &firstDown{}
	r2, err := w.AddRobot(RobotConfig{Team: "robotd", Player: 2, Beam: sim.Beam{X: -2, Y: 1, Deg: 0}, LayDown: FallBack, LayDownAt: layAt, Extra: []runner.Module{down}})
	if err != nil {
		t.Fatal(err)
	}
	r.WaitFor(ctx, time.Second, func() bool { return false })
	const bx, by = 1.5, 1.2
	if err := w.Trainer().PlaceBall(bx, by, 0, 0); err != nil {
		t.Fatal(err)
	}
	ballThere := func() bool {
		gt, _ := r.Truth()
		return gt.BallValid && math.Hypot(gt.Ball.X-bx, gt.Ball.Y-by) < 0.1
	}
	if _, err := r.WaitFor(ctx, 3*time.Second, ballThere); err != nil {
		gt, _ := r.Truth()
		t.Fatalf("ball at %+v, placed at (%.1f, %.1f): %v", gt.Ball, bx, by, err)
	}
	r.WaitFor(ctx, 2*time.Second, func() bool { return false })
	if !ballThere() {
		t.Errorf("the placed ball did not stay")
	}
	if st := w.Trainer().State(); st.PlayModeName != "" && st.PlayModeName != "PlayOn" {
		t.Errorf("play mode %q after PlaceBall", st.PlayModeName)
	}
	// Seen lying on its back (it may be up again by now: it gets up).
	if _, err := r2.WaitFor(ctx, 5*time.Second, func() bool { return down.back.Load() != 0 }); err != nil {
		b, _ := r2.Body()
		t.Errorf("robot 2 never seen lying on its back after its planned fall (now %+v)", b)
	}
	// The fall pose tips a standing robot over in under a second.
	if at := time.Duration(down.at.Load()); at < layAt || at > layAt+time.Second {
		t.Errorf("robot 2 was first seen down %v after it connected; its fall was planned at %v", at, layAt)
	}
	// The commanded fall tips a standing robot: in PlayOn robot 1 walks
	// to the ball, and a fall begun mid-step can end on a side. In
	// BeforeKickOff it stops and stands.
	if err := w.Trainer().PlayMode("BeforeKickOff"); err != nil {
		t.Fatal(err)
	}
	r.WaitFor(ctx, 1500*time.Millisecond, func() bool { return false })
	r.LayDown(true)
	if _, err := r.WaitFor(ctx, 3*time.Second, func() bool { b, _ := r.Body(); return b.Fall == msg.FallenFront }); err != nil {
		b, _ := r.Body()
		t.Fatalf("not lying on its front after the commanded fall: %+v", b)
	}
}

// TestWaitPlayMode: WaitPlayMode returns once the monitor reports the
// play mode set, and fails, naming the mode there is, when it does not
// come.
func TestWaitPlayMode(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	w, stop := startWorld(ctx, t)
	defer stop()
	if _, err := w.AddRobot(RobotConfig{Team: "robotd", Player: 1, Beam: sim.Beam{X: -2, Y: -1}}); err != nil {
		t.Fatal(err)
	}
	tr := w.Trainer()
	if err := tr.PlayMode("PlayOn"); err != nil {
		t.Fatal(err)
	}
	if err := tr.WaitPlayMode(ctx, "PlayOn", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	err := tr.WaitPlayMode(ctx, "GameOver", 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), `"PlayOn"`) {
		t.Errorf("waiting for a play mode never set: %v, want an error naming PlayOn", err)
	}
}
