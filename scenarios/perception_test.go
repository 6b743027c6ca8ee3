//go:build !ode

// The kinematic world: perception and behaviour scenarios (the motion
// scenarios, motion_test.go, run in the physics mode, with -tags ode).

package scenarios

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/simrun"
)

// worldProbe samples perception's estimates and the ground truth every
// tick, in the robot's goroutine; fn runs under mu.
type worldProbe struct {
	mu    sync.Mutex
	fn    func(t hal.Tick, gt hal.GroundTruth, ball msg.Ball, pose msg.RobotPose)
	gt    *blackboard.Reader[hal.GroundTruth]
	ball  *blackboard.Reader[msg.Ball]
	pose  *blackboard.Reader[msg.RobotPose]
	world struct {
		gt   hal.GroundTruth
		ball msg.Ball
		pose msg.RobotPose
	}
}

func (p *worldProbe) Name() string { return "probe" }
func (p *worldProbe) Wire(b *blackboard.Board) (err error) {
	if p.gt, err = blackboard.Read(b, p.Name(), msg.GroundTruthKey); err != nil {
		return err
	}
	if p.ball, err = blackboard.Read(b, p.Name(), msg.BallKey); err != nil {
		return err
	}
	p.pose, err = blackboard.Read(b, p.Name(), msg.RobotPoseKey)
	return err
}
func (p *worldProbe) Tick(t hal.Tick) error {
	p.gt.Load(&p.world.gt)
	p.ball.Load(&p.world.ball)
	p.pose.Load(&p.world.pose)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fn != nil {
		p.fn(t, p.world.gt, p.world.ball, p.world.pose)
	}
	return nil
}

// set replaces the probe's function.
func (p *worldProbe) set(fn func(hal.Tick, hal.GroundTruth, msg.Ball, msg.RobotPose)) {
	p.mu.Lock()
	p.fn = fn
	p.mu.Unlock()
}

// poseError is the distance (m) and heading difference (rad) between
// perception's pose and the ground truth.
func poseError(r *simrun.Robot) (dist, angle float64, ok bool) {
	gt, gm := r.Truth()
	p, pm := r.Pose()
	if !gt.Valid || !gm.Valid() || !p.Valid || !pm.Valid() {
		return 0, 0, false
	}
	dist = math.Hypot(float64(p.Pose.X-gt.Pose.X), float64(p.Pose.Y-gt.Pose.Y))
	angle = math.Abs(math.Remainder(float64(p.Pose.Heading-gt.Pose.Heading), 2*math.Pi))
	return dist, angle, true
}

func scan(time.Duration) msg.MotionRequest {
	return msg.MotionRequest{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadScan}}
}

// TestRelocalisesAfterKidnap: the trainer moves
// a localised robot at least 3 m; within 10 s of seeing landmarks again
// its pose is right.
func TestRelocalisesAfterKidnap(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	w, stop := startWorld(t)
	defer stop()
	r, err := w.AddRobot(scriptedRobot(sim.Beam{X: -2, Y: 0, Deg: 0}, scan))
	if err != nil {
		t.Fatal(err)
	}
	localised := func() bool {
		d, a, ok := poseError(r)
		return ok && d < 0.25 && a < 10*math.Pi/180
	}
	if took, err := r.WaitFor(ctx, 20*time.Second, localised); err != nil {
		d, a, _ := poseError(r)
		t.Fatalf("not localised at the start: error %.2f m %.1f° after %v: %v", d, a*180/math.Pi, took, err)
	}
	cases := []struct {
		x, y, headingDeg float64
	}{
		{1.5, 1.5, 180},  // across the centre line: 4.3 m
		{2.5, -2, 90},    // 3.6 m
		{-1.5, 1.0, -45}, // back into our half: 5.1 m
	}
	prev := [2]float64{-2, 0}
	for _, tc := range cases {
		if d := math.Hypot(tc.x-prev[0], tc.y-prev[1]); d < 3 {
			t.Fatalf("case moves only %.1f m", d)
		}
		prev = [2]float64{tc.x, tc.y}
		if err := w.Trainer().MoveAgent("Left", 1, tc.x, tc.y, tc.headingDeg); err != nil {
			t.Fatal(err)
		}
		moved := func() bool {
			gt, _ := r.Truth()
			return gt.Valid && math.Hypot(float64(gt.Pose.X)-tc.x, float64(gt.Pose.Y)-tc.y) < 0.1
		}
		if _, err := r.WaitFor(ctx, 2*time.Second, moved); err != nil {
			t.Fatalf("trainer move to (%.1f, %.1f): %v", tc.x, tc.y, err)
		}
		took, err := r.WaitFor(ctx, 10*time.Second, localised)
		d, a, _ := poseError(r)
		if err != nil {
			t.Errorf("moved to (%.1f, %.1f, %.0f°): still %.2f m / %.1f° off after %v", tc.x, tc.y, tc.headingDeg, d, a*180/math.Pi, took)
			continue
		}
		// It stays right (not a lucky crossing).
		if _, err := r.WaitFor(ctx, time.Second, func() bool { return false }); err == nil {
			t.Fatal("unreachable")
		}
		d, a, _ = poseError(r)
		if d > 0.35 || a > 15*math.Pi/180 {
			t.Errorf("moved to (%.1f, %.1f): right after %v but %.2f m / %.1f° off a second later", tc.x, tc.y, took, d, a*180/math.Pi)
		}
		t.Logf("moved to (%.1f, %.1f, %.0f°): localised again after %v of simulation (error %.2f m, %.1f°)", tc.x, tc.y, tc.headingDeg, took, d, a*180/math.Pi)
	}
}

// TestBallEstimate: with the ball within 2 m and
// in view the estimate is within 10 cm (median); unseen for longer than
// the configured time, it is lost.
func TestBallEstimate(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	w, stop := startWorld(t)
	defer stop()
	look := func(time.Duration) msg.MotionRequest {
		return msg.MotionRequest{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadLookAt, Pitch: 0.35}}
	}
	probe := &worldProbe{}
	r, err := w.AddRobot(scriptedRobot(sim.Beam{X: -3, Y: 0, Deg: 0}, look, probe))
	if err != nil {
		t.Fatal(err)
	}
	lostAfter := perception.DefaultConfig().Ball.LostAfter.D()
	// Robot-relative ball positions within 2 m and the camera's view.
	spots := [][2]float64{{0.4, 0}, {0.8, 0.2}, {1.2, -0.3}, {1.6, 0.4}, {1.9, 0}, {1.0, 0.5}}
	var errs []float64
	for _, s := range spots {
		if err := w.Trainer().PlaceBall(-3+s[0], s[1], 0, 0); err != nil {
			t.Fatal(err)
		}
		// Let the filter converge, then sample for 2 s. WaitFor polls on
		// the wall clock, and Seen holds only in the ticks of a vision
		// frame (one in three): "seen within the last two frames" does
		// not depend on which ticks a busy machine lets it poll; the
		// estimate within 0.3 m of the ball says it is this spot's.
		seen := func() bool {
			b, _ := r.Ball()
			gt, _ := r.Truth()
			if !b.Valid || b.SinceSeen > 60*time.Millisecond || !gt.Valid || !gt.BallValid || math.Hypot(gt.Ball.X-(-3+s[0]), gt.Ball.Y-s[1]) >= 0.02 {
				return false
			}
			rel := gt.Pose.Local(gt.Ball)
			return math.Hypot(b.Pos.X-rel.X, b.Pos.Y-rel.Y) < 0.3
		}
		if _, err := r.WaitFor(ctx, 3*time.Second, seen); err != nil {
			t.Fatalf("ball at %v never seen: %v", s, err)
		}
		r.WaitFor(ctx, time.Second, func() bool { return false })
		seenTicks, ticks := 0, 0
		probe.set(func(_ hal.Tick, gt hal.GroundTruth, b msg.Ball, _ msg.RobotPose) {
			ticks++
			if b.Seen {
				seenTicks++
			}
			// In view: seen within the last two vision frames.
			if b.Valid && b.SinceSeen <= 60*time.Millisecond && gt.Valid && gt.BallValid {
				rel := gt.Pose.Local(gt.Ball)
				errs = append(errs, math.Hypot(b.Pos.X-rel.X, b.Pos.Y-rel.Y))
			}
		})
		r.WaitFor(ctx, 2*time.Second, func() bool { return false })
		probe.set(nil)
		probe.mu.Lock()
		t.Logf("ball at %v: seen in %d of %d ticks", s, seenTicks, ticks)
		if seenTicks < ticks/4 {
			t.Errorf("ball at %v (in view) seen in only %d of %d ticks", s, seenTicks, ticks)
		}
		probe.mu.Unlock()
	}
	probe.mu.Lock()
	errs = slices.Clone(errs)
	probe.mu.Unlock()
	if len(errs) < 1000 {
		t.Fatalf("only %d ball samples", len(errs))
	}
	slices.Sort(errs)
	med, p95 := errs[len(errs)/2], errs[len(errs)*95/100]
	t.Logf("ball error over %d samples at %d spots: median %.1f cm, 95th percentile %.1f cm", len(errs), len(spots), med*100, p95*100)
	if med > 0.10 {
		t.Errorf("median ball error %.1f cm, want ≤ 10", med*100)
	}

	// Out of view (behind the robot): lost once unseen for the configured
	// time, not before and not much after.
	var sinceSeen, lostAt time.Duration
	probe.set(func(t hal.Tick, _ hal.GroundTruth, b msg.Ball, _ msg.RobotPose) {
		if b.Lost && lostAt == 0 {
			lostAt, sinceSeen = t.Time, b.SinceSeen
		}
	})
	moved := r.Time()
	if err := w.Trainer().PlaceBall(-4, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	lost := func() bool { probe.mu.Lock(); defer probe.mu.Unlock(); return lostAt != 0 }
	if took, err := r.WaitFor(ctx, lostAfter+2*time.Second, lost); err != nil {
		t.Fatalf("ball not lost %v after it left the view (lost_after %v)", took, lostAfter)
	}
	probe.mu.Lock()
	defer probe.mu.Unlock()
	if sinceSeen <= lostAfter || sinceSeen > lostAfter+20*time.Millisecond {
		t.Errorf("ball lost when unseen for %v, configured %v", sinceSeen, lostAfter)
	}
	if after := lostAt - moved; after < lostAfter-100*time.Millisecond || after > lostAfter+100*time.Millisecond {
		t.Errorf("ball lost %v after it left the view, configured %v", after, lostAfter)
	}
	t.Logf("ball lost %v after it left the view, unseen for %v (configured %v)", lostAt-moved, sinceSeen, lostAfter)
}
