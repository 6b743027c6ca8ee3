//go:build ode

// The motion scenarios run in the embedded simulator's physics mode (ODE,
// as rcssserver3d steps the SimSpark NAO), which decides by dynamics
// whether a walk, a kick or a get-up works; the kinematic world would
// decide it by rules fitted to motion's own output. They need a build with
// -tags ode (cgo, libode); scripts/test runs them.

package scenarios

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/motion/walk"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
)

// Motion's scenarios, each checked in the embedded simulator's physics mode
// (or on the server ROBOTD_SIMSPARK names) with robotd's motion and
// perception and a scripted behaviour.

// motionSample is one tick as a motion probe sees it.
type motionSample struct {
	t      time.Duration
	gt     hal.GroundTruth
	body   msg.BodyState
	motion msg.MotionState
	joints hal.JointSensors
	cmd    hal.JointCommand
}

// motionProbe records every tick's ground truth, body and motion state,
// joints and joint command, in the robot's goroutine.
type motionProbe struct {
	gt     *blackboard.Reader[hal.GroundTruth]
	body   *blackboard.Reader[msg.BodyState]
	motion *blackboard.Reader[msg.MotionState]
	joints *blackboard.Reader[hal.JointSensors]
	cmd    *blackboard.Reader[hal.JointCommand]

	clock   sinceConnected
	mu      sync.Mutex
	samples []motionSample
}

func (p *motionProbe) Name() string { return "probe" }
func (p *motionProbe) Wire(b *blackboard.Board) (err error) {
	if p.gt, err = blackboard.Read(b, p.Name(), msg.GroundTruthKey); err != nil {
		return err
	}
	if p.body, err = blackboard.Read(b, p.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	if p.motion, err = blackboard.Read(b, p.Name(), msg.MotionStateKey); err != nil {
		return err
	}
	if p.joints, err = blackboard.Read(b, p.Name(), msg.JointsKey); err != nil {
		return err
	}
	p.cmd, err = blackboard.Read(b, p.Name(), msg.JointCommandKey)
	return err
}
func (p *motionProbe) Tick(t hal.Tick) error {
	s := motionSample{t: p.clock.el(t)}
	p.gt.Load(&s.gt)
	p.body.Load(&s.body)
	p.motion.Load(&s.motion)
	p.joints.Load(&s.joints)
	p.cmd.Load(&s.cmd)
	p.mu.Lock()
	p.samples = append(p.samples, s)
	p.mu.Unlock()
	return nil
}

// since returns the samples from time from on.
func (p *motionProbe) since(from time.Duration) []motionSample {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []motionSample
	for _, s := range p.samples {
		if s.t >= from {
			out = append(out, s)
		}
	}
	return out
}

// last returns the latest sample.
func (p *motionProbe) last() motionSample {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.samples) == 0 {
		return motionSample{}
	}
	return p.samples[len(p.samples)-1]
}

// motionRobot starts a world and one robot beamed to beam whose behaviour
// is request (by simulation time).
func motionRobot(t *testing.T, beam sim.Beam, request func(time.Duration) msg.MotionRequest) (*simrun.World, *simrun.Robot, *motionProbe, func()) {
	t.Helper()
	w, stop := startWorldIn(t, simserver.PhysicsODE)
	probe := &motionProbe{}
	r, err := w.AddRobot(scriptedRobot(beam, request, probe))
	if err != nil {
		stop()
		t.Fatal(err)
	}
	return w, r, probe, stop
}

// wait lets simulation time d pass for r.
func wait(t *testing.T, r *simrun.Robot, d time.Duration) {
	t.Helper()
	if _, err := r.WaitFor(context.Background(), d, func() bool { return false }); err != nil && r.Elapsed() <= 0 {
		t.Fatal(err)
	}
}

// fellIn reports the first sample in which the robot was not upright.
func fellIn(ss []motionSample) (motionSample, bool) {
	for _, s := range ss {
		if s.body.Fall != msg.Upright {
			return s, true
		}
	}
	return motionSample{}, false
}

// TestWalkForwardAtTopSpeed: from standing, at the walk's top commanded
// speed (capped at what holds up on the real server), the robot walks
// more than 3 m without falling, at a ground-truth speed within 15% of the
// command, and its odometry is within 10% of the distance walked.
func TestWalkForwardAtTopSpeed(t *testing.T) {
	defer leaktest.Check(t)()
	top := float64(walk.DefaultConfig().MaxForward)
	const startWalk = 2 * time.Second
	_, r, probe, stop := motionRobot(t, sim.Beam{X: -4, Y: 0, Deg: 0}, func(el time.Duration) msg.MotionRequest {
		if el < startWalk {
			return msg.MotionRequest{Kind: msg.MotionStand}
		}
		return msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: hal.MetresPerSec(top)}}
	})
	defer stop()
	wait(t, r, startWalk+22*time.Second)
	ss := probe.since(startWalk)
	if len(ss) < 1000 || !ss[0].gt.Valid {
		t.Fatalf("%d samples, ground truth valid %v", len(ss), len(ss) > 0 && ss[0].gt.Valid)
	}
	if s, fell := fellIn(ss); fell {
		t.Fatalf("fell (%v) at %v, at %+v", s.body.Fall, s.t, s.gt.Pose)
	}
	start := ss[0].gt.Pose
	along := func(s motionSample) float64 {
		return math.Hypot(float64(s.gt.Pose.X-start.X), float64(s.gt.Pose.Y-start.Y))
	}
	// The speed over 3 m once under way (from 0.3 m to 3.3 m).
	var t0, t1 time.Duration
	var odo hal.Pose2
	var odoAt3 hal.Pose2
	var gtAt3 motionSample
	for _, s := range ss {
		odo = odo.Compose(s.motion.Odometry)
		d := along(s)
		if t0 == 0 && d >= 0.3 {
			t0 = s.t
		}
		if t1 == 0 && d >= 3.3 {
			t1, odoAt3, gtAt3 = s.t, odo, s
		}
	}
	if t1 == 0 {
		t.Fatalf("walked only %.2f m in %v", along(ss[len(ss)-1]), ss[len(ss)-1].t-startWalk)
	}
	speed := 3 / (t1 - t0).Seconds()
	// Odometry against the ground truth, in the start pose's frame.
	g := start.Relative(gtAt3.gt.Pose)
	gtRel := [2]float64{float64(g.X), float64(g.Y)}
	odoErr := math.Hypot(float64(odoAt3.X)-gtRel[0], float64(odoAt3.Y)-gtRel[1]) / math.Hypot(gtRel[0], gtRel[1])
	drift := float64(gtAt3.gt.Pose.Y - start.Y)
	t.Logf("commanded %.0f mm/s: %.0f mm/s over 3 m (%.0f%%), reached 3.3 m after %.1f s; odometry (%.3f, %.3f) vs ground truth (%.3f, %.3f): error %.1f%%; sideways drift %.0f mm",
		top*1000, speed*1000, 100*speed/top, (t1 - startWalk).Seconds(), odoAt3.X, odoAt3.Y, gtRel[0], gtRel[1], odoErr*100, drift*1000)
	if math.Abs(speed-top) > 0.15*top {
		t.Errorf("speed %.0f mm/s; want within 15%% of %.0f mm/s", speed*1000, top*1000)
	}
	if odoErr > 0.10 {
		t.Errorf("odometry error %.1f%% after 3 m; want ≤ 10%%", odoErr*100)
	}
}

// TestWalkSidewaysAndTurn: walking sideways at the top sideways speed and
// turning on the spot at the top turn rate, both ways, the robot does not
// fall and moves as asked.
func TestWalkSidewaysAndTurn(t *testing.T) {
	cfg := walk.DefaultConfig()
	tests := []struct {
		name string
		req  msg.WalkRequest
		// check judges the motion: displacement in the start frame and
		// turn.
		check func(dx, dy, dh float64) bool
		want  string
	}{
		{"left", msg.WalkRequest{Left: cfg.MaxLeft}, func(dx, dy, dh float64) bool {
			return dy > 0.6*float64(cfg.MaxLeft)*6 && math.Abs(dx) < 0.1 && math.Abs(dh) < 0.2
		}, "≥ 60% of the commanded sideways distance, < 10 cm forward, < 0.2 rad turn"},
		{"right", msg.WalkRequest{Left: -cfg.MaxLeft}, func(dx, dy, dh float64) bool {
			return -dy > 0.6*float64(cfg.MaxLeft)*6 && math.Abs(dx) < 0.1 && math.Abs(dh) < 0.2
		}, "≥ 60% of the commanded sideways distance, < 10 cm forward, < 0.2 rad turn"},
		{"turn left", msg.WalkRequest{Turn: cfg.MaxTurn}, func(dx, dy, dh float64) bool {
			return dh > 0.6*float64(cfg.MaxTurn)*6 && math.Hypot(dx, dy) < 0.15
		}, "≥ 60% of the commanded turn, within 15 cm of the start"},
		{"turn right", msg.WalkRequest{Turn: -cfg.MaxTurn}, func(dx, dy, dh float64) bool {
			return -dh > 0.6*float64(cfg.MaxTurn)*6 && math.Hypot(dx, dy) < 0.15
		}, "≥ 60% of the commanded turn, within 15 cm of the start"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			firstUnderRace(t)
			defer leaktest.Check(t)()
			const startWalk, walkFor = 2 * time.Second, 6 * time.Second
			_, r, probe, stop := motionRobot(t, sim.Beam{X: -2, Y: 0, Deg: 0}, func(el time.Duration) msg.MotionRequest {
				if el < startWalk || el >= startWalk+walkFor {
					return msg.MotionRequest{Kind: msg.MotionStand}
				}
				return msg.MotionRequest{Kind: msg.MotionWalk, Walk: tc.req}
			})
			defer stop()
			wait(t, r, startWalk+walkFor+2*time.Second)
			ss := probe.since(startWalk)
			if len(ss) < 500 || !ss[0].gt.Valid {
				t.Fatalf("%d samples", len(ss))
			}
			if s, fell := fellIn(ss); fell {
				t.Fatalf("fell (%v) at %v", s.body.Fall, s.t)
			}
			// Turned angles accumulate tick by tick (they pass ±π).
			var dh float64
			for i := 1; i < len(ss); i++ {
				dh += math.Remainder(float64(ss[i].gt.Pose.Heading-ss[i-1].gt.Pose.Heading), 2*math.Pi)
			}
			a, b := ss[0].gt.Pose, ss[len(ss)-1].gt.Pose
			rel := a.Relative(b)
			dx, dy := float64(rel.X), float64(rel.Y)
			t.Logf("%s for %v: moved (%.3f, %.3f) m in the start frame, turned %.2f rad", tc.name, walkFor, dx, dy, dh)
			if !tc.check(dx, dy, dh) {
				t.Errorf("moved (%.3f, %.3f) m, turned %.2f rad; want %s", dx, dy, dh, tc.want)
			}
		})
	}
}

// TestKick: a ball placed in front of the kicking foot goes at least 2 m,
// within 20° of the requested direction, for either foot and a turned kick.
func TestKick(t *testing.T) {
	tests := []struct {
		name string
		foot msg.Foot
		dir  float64 // rad, relative to the robot
	}{
		{"left foot straight", msg.LeftFoot, 0},
		{"right foot straight", msg.RightFoot, 0},
		{"left foot 20° left", msg.LeftFoot, 20 * math.Pi / 180},
		{"right foot 20° right", msg.RightFoot, -20 * math.Pi / 180},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			firstUnderRace(t)
			defer leaktest.Check(t)()
			const kickAt = 2 * time.Second
			const rx, ry = -2.0, 0.0
			req := msg.MotionRequest{Kind: msg.MotionKick, Kick: msg.KickRequest{Foot: tc.foot, Direction: hal.Radians(tc.dir)}}
			// The kick waits for the ball, should the test's goroutine
			// place it late on a loaded machine.
			var placed atomic.Bool
			w, r, probe, stop := motionRobot(t, sim.Beam{X: rx, Y: ry, Deg: 0}, func(el time.Duration) msg.MotionRequest {
				if el < kickAt || !placed.Load() {
					return msg.MotionRequest{Kind: msg.MotionStand}
				}
				return req
			})
			defer stop()
			wait(t, r, kickAt-500*time.Millisecond)
			// In front of the kicking foot, where a striker's approach
			// would leave it.
			gt := probe.last().gt
			side := 1.0
			if tc.foot == msg.RightFoot {
				side = -1
			}
			foot := gt.Pose.Global(hal.Vec2{X: 0.17, Y: side * 0.05})
			bx, by := foot.X, foot.Y
			if err := w.Trainer().PlaceBall(bx, by, 0, 0); err != nil {
				t.Fatal(err)
			}
			placed.Store(true)
			wait(t, r, kickAt+6*time.Second-r.Elapsed())
			ss := probe.since(kickAt)
			if s, fell := fellIn(ss); fell {
				t.Fatalf("fell (%v) at %v", s.body.Fall, s.t)
			}
			end := ss[len(ss)-1].gt
			if !end.BallValid {
				t.Fatal("no ball ground truth")
			}
			mx, my := float64(end.Ball.X)-bx, float64(end.Ball.Y)-by
			dist := math.Hypot(mx, my)
			dir := math.Remainder(math.Atan2(my, mx)-float64(gt.Pose.Heading), 2*math.Pi)
			t.Logf("%s: ball went %.2f m towards %.1f° (asked %.0f°)", tc.name, dist, dir*180/math.Pi, tc.dir*180/math.Pi)
			if dist < 2 {
				t.Errorf("ball went %.2f m; want ≥ 2 m", dist)
			}
			if math.Abs(math.Remainder(dir-tc.dir, 2*math.Pi)) > 20*math.Pi/180 {
				t.Errorf("ball went towards %.1f°; want %.0f° ± 20°", dir*180/math.Pi, tc.dir*180/math.Pi)
			}
		})
	}
}

// getUpRun is one commanded fall and what followed it.
type getUpRun struct {
	how       msg.Fall      // the fall perception detected first
	down, up  time.Duration // since the fall began; up is 0 if never
	fellAgain bool          // not upright at some time after up
	head      float64       // the head's height at the end (m)
}

// getUp lays a standing robot on its front or back at layAt (simulation
// time since it connected, so that the run repeats exactly) and follows it
// for 12 s: up is the first tick in which it is upright again with the
// get-up finished into the stand.
func getUp(t *testing.T, front bool, layAt time.Duration) getUpRun {
	t.Helper()
	w, stop := startWorldIn(t, simserver.PhysicsODE)
	defer stop()
	probe := &motionProbe{}
	fall := simrun.FallBack
	if front {
		fall = simrun.FallFront
	}
	r, err := w.AddRobot(simrun.RobotConfig{
		Team: "robotd", Player: 1, Beam: sim.Beam{X: -1, Y: 1, Deg: 30},
		LayDown: fall, LayDownAt: layAt,
		Modules: func(c *robot.Config) []runner.Module {
			return []runner.Module{perception.New(c.Perception), motion.New(c.Motion), &reflex{}, probe}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, r, layAt+12*time.Second)
	var run getUpRun
	for _, s := range probe.since(layAt) {
		switch {
		case run.down == 0 && s.body.Fall != msg.Upright:
			run.down, run.how = s.t-layAt, s.body.Fall
		case run.down != 0 && run.up == 0 && s.body.Fall == msg.Upright && s.motion.Active == msg.MotionStand:
			run.up = s.t - layAt
		case run.up != 0 && s.body.Fall != msg.Upright:
			run.fellAgain = true
		}
	}
	run.head = float64(probe.last().gt.HeadHeight)
	return run
}

// ok reports whether the robot stood up within 10 s and stayed up with
// its head at standing height.
func (g getUpRun) ok() bool {
	return g.up != 0 && g.up <= 10*time.Second && !g.fellAgain && g.head > 0.4
}

func (g getUpRun) String() string {
	return fmt.Sprintf("detected %v after %v, standing after %v, fell again %v, head %.2f m above the ground", g.how, g.down, g.up, g.fellAgain, g.head)
}

// TestGetUp: laid on its front (a commanded fall), the robot stands up
// again within 10 s and stays up; laid on its back, it does at least
// backGetUpsNeeded times in four falls. Both are what the real server
// does with these get-ups: from the front 10 of 10 (the physics mode 9
// of 10), from the back 4 of 10 (the physics mode 3 of 10; simmeasure,
// README). The four falls start at different times of the stand's sway,
// which decides, on a server as here, whether the back get-up works.
func TestGetUp(t *testing.T) {
	t.Run("front", func(t *testing.T) {
		firstUnderRace(t)
		defer leaktest.Check(t)()
		g := getUp(t, true, 2*time.Second)
		t.Logf("laid on its front: %v", g)
		if g.how != msg.FallenFront {
			t.Errorf("detected %v, want %v", g.how, msg.FallenFront)
		}
		if !g.ok() {
			t.Errorf("not up within 10 s and standing: %v", g)
		}
	})
	t.Run("back", func(t *testing.T) {
		firstUnderRace(t)
		defer leaktest.Check(t)()
		// backGetUpsNeeded is the bar until the back get-up is reliable.
		const backGetUpsNeeded = 1
		n := 0
		for i := range 4 {
			g := getUp(t, false, 2*time.Second+time.Duration(i)*130*time.Millisecond)
			t.Logf("laid on its back, fall %d: %v", i+1, g)
			if g.how != msg.FallenBack {
				t.Errorf("fall %d: detected %v, want %v", i+1, g.how, msg.FallenBack)
			}
			if g.ok() {
				n++
			}
		}
		if n < backGetUpsNeeded {
			t.Errorf("up within 10 s in %d of 4 falls on the back; want at least %d", n, backGetUpsNeeded)
		}
	})
}

// reflex is the behaviour a get-up needs: get up when fallen, else stand.
type reflex struct {
	body *blackboard.Reader[msg.BodyState]
	req  *blackboard.Writer[msg.MotionRequest]
}

func (*reflex) Name() string { return "reflex" }
func (x *reflex) Wire(b *blackboard.Board) (err error) {
	if x.body, err = blackboard.Read(b, x.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	x.req, err = blackboard.Write(b, x.Name(), msg.MotionRequestKey)
	return err
}
func (x *reflex) Tick(hal.Tick) error {
	b, _ := x.body.Get()
	if b.Fall != msg.Upright {
		x.req.Set(msg.MotionRequest{Kind: msg.MotionGetUp})
	} else {
		x.req.Set(msg.MotionRequest{Kind: msg.MotionStand})
	}
	return nil
}

// TestHeadScan: a scan sweeps the head's yaw to ±90°, never commanding
// more than the head's speed limit, and the measured joint never moving
// faster than the simulated motors allow.
func TestHeadScan(t *testing.T) {
	defer leaktest.Check(t)()
	hc := motion.DefaultHeadConfig()
	_, r, probe, stop := motionRobot(t, sim.Beam{X: 0, Y: -2, Deg: 90}, func(time.Duration) msg.MotionRequest {
		return msg.MotionRequest{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadScan}}
	})
	defer stop()
	wait(t, r, 10*time.Second)
	ss := probe.since(time.Second)
	if len(ss) < 500 {
		t.Fatalf("%d samples", len(ss))
	}
	// The simulated motors' limit (SimSpark's 351.77°/s clamp).
	const motorLimit = 351.77 * math.Pi / 180
	lo, hi := math.Inf(1), math.Inf(-1)
	var cmdMax, measMax float64
	for i := 1; i < len(ss); i++ {
		dt := (ss[i].t - ss[i-1].t).Seconds()
		if dt <= 0 {
			continue
		}
		y := float64(ss[i].joints.Angle[hal.HeadYaw])
		lo, hi = min(lo, y), max(hi, y)
		cmdMax = max(cmdMax, math.Abs(float64(ss[i].cmd.Angle[hal.HeadYaw]-ss[i-1].cmd.Angle[hal.HeadYaw]))/dt)
		measMax = max(measMax, math.Abs(y-float64(ss[i-1].joints.Angle[hal.HeadYaw]))/dt)
	}
	t.Logf("head yaw swept %.1f° … %.1f°; fastest commanded %.2f rad/s (limit %.2f), measured %.2f rad/s (motors %.2f)",
		lo*180/math.Pi, hi*180/math.Pi, cmdMax, float64(hc.MaxSpeed), measMax, motorLimit)
	const tol = 2 * math.Pi / 180
	if hi < math.Pi/2-tol || lo > -math.Pi/2+tol {
		t.Errorf("swept %.1f° … %.1f°; want ±90°", lo*180/math.Pi, hi*180/math.Pi)
	}
	if cmdMax > float64(hc.MaxSpeed)+1e-9 {
		t.Errorf("commanded %.2f rad/s; limit %.2f", cmdMax, float64(hc.MaxSpeed))
	}
	if measMax > motorLimit*1.01 {
		t.Errorf("measured %.2f rad/s; the motors' limit is %.2f", measMax, motorLimit)
	}
}
