package walk

import (
	"math"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/modules/motion/kinematics"
	"github.com/robotd/robotd/msg"
)

const dt = 0.01

// armsDown is the arms' stand pose (motion's default), for the mass model.
func armsDown(a *[hal.NumJoints]hal.Radians) {
	a[hal.LShoulderPitch], a[hal.RShoulderPitch] = 1.45, 1.45
	a[hal.LShoulderRoll], a[hal.RShoulderRoll] = 0.15, -0.15
	a[hal.LElbowYaw], a[hal.RElbowYaw] = -1.2, 1.2
	a[hal.LElbowRoll], a[hal.RElbowRoll] = -0.4, 0.4
}

// feet follows where the commanded legs put the soles on the ground: the
// support foot stays where it is, and when the walk changes support (both
// feet on the ground) the new support sole is placed where the legs'
// forward kinematics put it relative to the old one. It is geometry of
// the commands, not a model of the body's balance: whether a walk stays
// up is judged in the embedded simulator's physics mode (the scenarios).
type feet struct {
	g        kinematics.Geometry
	support  kinematics.Side
	pose     geom.Pose3 // the support sole on the ground (world)
	switches int
}

// newFeet starts with the right foot carrying, the feet's midpoint of
// the pose a at the world origin.
func newFeet(g kinematics.Geometry, a *[hal.NumJoints]hal.Radians) *feet {
	legs := kinematics.LegsFrom(a)
	l, r := g.FK(kinematics.Left, &legs[kinematics.Left]), g.FK(kinematics.Right, &legs[kinematics.Right])
	mx, my := (l.P.X+r.P.X)/2, (l.P.Y+r.P.Y)/2
	return &feet{g: g, support: kinematics.Right,
		pose: geom.Pose3{R: geom.RotZ(r.R.Yaw()), P: geom.Vec3{X: r.P.X - mx, Y: r.P.Y - my, Z: 0}}}
}

// other is the other sole's pose on the ground (projected), from the legs
// a, relative to the support sole.
func (f *feet) other(a *[hal.NumJoints]hal.Radians) geom.Pose3 {
	legs := kinematics.LegsFrom(a)
	o := f.support.Other()
	rel := f.g.FK(f.support, &legs[f.support]).Inv().Mul(f.g.FK(o, &legs[o]))
	return f.pose.Mul(geom.Pose3{R: geom.RotZ(rel.R.Yaw()), P: geom.Vec3{X: rel.P.X, Y: rel.P.Y, Z: 0}})
}

// update follows the walk's support foot for the legs a.
func (f *feet) update(support kinematics.Side, a *[hal.NumJoints]hal.Radians) {
	if support == f.support {
		return
	}
	f.pose = f.other(a)
	f.support = support
	f.switches++
}

// ground returns the soles' midpoint and mean heading: the walk frame at
// a step boundary.
func (f *feet) ground(a *[hal.NumJoints]hal.Radians) (x, y, h float64) {
	s, o := f.pose, f.other(a)
	hs, ho := s.R.Yaw(), o.R.Yaw()
	return (s.P.X + o.P.X) / 2, (s.P.Y + o.P.Y) / 2, hs + geom.WrapAngle(ho-hs)/2
}

// rig is a walk whose commands are followed exactly; feet tracks where
// they put the soles.
type rig struct {
	w     *Walk
	feet  *feet
	cmd   hal.JointCommand
	in    Input
	odo   geom.Pose2 // integrated odometry
	ticks int
	// steps records the support foot's world pose at every step start,
	// from the walk's own plan.
	steps      []geom.Pose2
	supportW   geom.Pose2
	lastPhase  float64
	maxJointV  float64
	unreachble int
}

func newRig(t testing.TB, cfg Config, req msg.WalkRequest) *rig {
	t.Helper()
	g := kinematics.NAOv6()
	st := DefaultStance()
	r := &rig{w: New(cfg, st, g), in: Input{Walk: true, Request: req}}
	legs := st.Legs(&g)
	legs.Put(&r.cmd.Angle)
	armsDown(&r.cmd.Angle)
	r.feet = newFeet(g, &r.cmd.Angle)
	return r
}

func (r *rig) step() Status {
	prev := r.cmd.Angle
	support := r.w.support
	s := r.w.Step(dt, &r.in, &r.cmd)
	if support != s.Support {
		// A step finished: the old swing foot is the new support.
		r.supportW = r.supportW.Mul(r.w.swingStart.Inv())
		r.steps = append(r.steps, r.supportW)
	}
	if !s.Reachable {
		r.unreachble++
	}
	for j := range prev {
		r.maxJointV = max(r.maxJointV, math.Abs(float64(r.cmd.Angle[j]-prev[j]))/dt)
	}
	r.odo = r.odo.Mul(geom.Pose2{X: float64(s.Odometry.X), Y: float64(s.Odometry.Y), H: float64(s.Odometry.Heading)})
	r.feet.update(s.Support, &r.cmd.Angle)
	r.ticks++
	return s
}

// ground is where the commanded feet are (feet.ground).
func (r *rig) ground() (x, y, h float64) { return r.feet.ground(&r.cmd.Angle) }

// run walks for secs seconds, then stops and waits for the stance.
func (r *rig) run(t testing.TB, secs float64) {
	t.Helper()
	for range int(secs / dt) {
		r.step()
	}
	r.in.Walk = false
	for i := 0; r.w.Stepping(); i++ {
		if i > 500 {
			t.Fatal("did not stop within 5 s")
		}
		r.step()
	}
	for range 5 {
		r.step()
	}
}

// TestWalkOdometryAndStance: every kind of walk reaches its feet, its
// odometry matches where the commanded legs put the feet (their forward
// kinematics), and it ends exactly in the stance.
func TestWalkOdometryAndStance(t *testing.T) {
	tests := []struct {
		name string
		req  msg.WalkRequest
	}{
		{"forward at full speed", msg.WalkRequest{Forward: 0.3}},
		{"faster than allowed", msg.WalkRequest{Forward: 1}},
		{"backward", msg.WalkRequest{Forward: -0.15}},
		{"left", msg.WalkRequest{Left: 0.05}},
		{"right", msg.WalkRequest{Left: -0.05}},
		{"turn left", msg.WalkRequest{Turn: 1}},
		{"turn right", msg.WalkRequest{Turn: -1}},
		{"arc", msg.WalkRequest{Forward: 0.2, Turn: 0.5}},
		{"everything", msg.WalkRequest{Forward: 0.3, Left: 0.1, Turn: -0.5}},
		{"backward arc", msg.WalkRequest{Forward: -0.3, Left: -0.1, Turn: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, DefaultConfig(), tc.req)
			r.run(t, 8)
			if r.unreachble > 0 {
				t.Errorf("%d ticks with an unreachable foot", r.unreachble)
			}
			if r.feet.switches < 10 {
				t.Errorf("%d support changes in 8 s", r.feet.switches)
			}
			x, y, h := r.ground()
			if d := math.Hypot(x-r.odo.X, y-r.odo.Y); d > 0.01 || math.Abs(geom.WrapAngle(h-r.odo.H)) > 0.01 {
				t.Errorf("odometry (%.3f, %.3f, %.3f), the feet are at (%.3f, %.3f, %.3f)", r.odo.X, r.odo.Y, r.odo.H, x, y, h)
			}
			// Stopped in the stance: the legs are the stance's.
			g := kinematics.NAOv6()
			want := DefaultStance().Legs(&g)
			got := kinematics.LegsFrom(&r.cmd.Angle)
			for s := range got {
				for i := range got[s] {
					if math.Abs(got[s][i]-want[s][i]) > 1e-9 {
						t.Fatalf("stopped with legs %v, want the stance %v", got, want)
					}
				}
			}
			t.Logf("peak joint speed commanded %.2f rad/s, odometry (%.3f, %.3f, %.3f)", r.maxJointV, r.odo.X, r.odo.Y, r.odo.H)
		})
	}
}

// TestFootTrajectories: over whole steps the support foot stays exactly
// where it is on the ground and the swing foot never goes below it, lifts
// in the middle of the step and is flat throughout (legs' FK of the
// commanded angles, torso where the walk puts it).
func TestFootTrajectories(t *testing.T) {
	g := kinematics.NAOv6()
	cfg := DefaultConfig()
	st := DefaultStance()
	for _, req := range []msg.WalkRequest{{Forward: 0.3}, {Forward: -0.15}, {Left: 0.05}, {Turn: 0.8}, {Forward: 0.2, Left: -0.05, Turn: 0.5}} {
		w := New(cfg, st, g)
		in := Input{Walk: true, Request: req}
		var cmd hal.JointCommand
		height := st.HipHeight - g.HipOffsetZ
		maxLift, steps := 0.0, 0
		prevSupport := w.support
		for i := range 300 {
			s := w.Step(dt, &in, &cmd)
			if s.Support != prevSupport {
				steps++
				prevSupport = s.Support
			}
			if i < 30 {
				continue // from the first full step on
			}
			tp := w.torsoAt(s.Phase)
			torso := geom.Pose3{R: geom.RotZ(tp.H + w.torsoTurn), P: geom.Vec3{X: tp.X, Y: tp.Y, Z: height}}
			legs := kinematics.LegsFrom(&cmd.Angle)
			sup := torso.Mul(g.FK(s.Support, &legs[s.Support]))
			sw := torso.Mul(g.FK(s.Support.Other(), &legs[s.Support.Other()]))
			f, tilt := kinematics.Flat(sup)
			if math.Abs(f.X) > 1e-3 || math.Abs(f.Y) > 1e-3 || math.Abs(f.Z) > 1e-3 || math.Abs(f.Yaw) > 0.5*math.Pi/180 || tilt > 0.5*math.Pi/180 {
				t.Fatalf("%+v tick %d phase %.2f: support foot at %+v tilt %.3g, want fixed at the origin", req, i, s.Phase, f, tilt)
			}
			fs, tilt := kinematics.Flat(sw)
			if fs.Z < -1e-6 || tilt > 0.5*math.Pi/180 {
				t.Fatalf("%+v tick %d: swing foot at %+v tilt %.3g", req, i, fs, tilt)
			}
			u, lift := w.swingProgress(s.Phase)
			if lift == 0 && fs.Z > 1e-6 {
				t.Fatalf("%+v tick %d phase %.2f: swing foot %.4f m up in double support", req, i, s.Phase, fs.Z)
			}
			if u == 0 || u == 1 {
				// On the ground the swing foot is where it lifted off or
				// landed.
				want := w.swingStart
				if u == 1 {
					want = w.swingEnd
				}
				if math.Hypot(fs.X-want.X, fs.Y-want.Y) > 1e-3 || math.Abs(geom.WrapAngle(fs.Yaw-want.H)) > 0.5*math.Pi/180 {
					t.Fatalf("%+v tick %d: swing foot on the ground at %+v, want %+v", req, i, fs, want)
				}
			}
			maxLift = max(maxLift, fs.Z)
		}
		if math.Abs(maxLift-cfg.StepHeight) > 1e-3 || steps < 10 {
			t.Fatalf("%+v: highest lift %.4f m, want %.3f; %d steps", req, maxLift, cfg.StepHeight, steps)
		}
	}
}

// TestSpeedFromFootPlacements: once accelerated, the feet land so that the
// robot moves at the commanded speed (within 5%), both as planned and as
// the commanded legs put them down.
func TestSpeedFromFootPlacements(t *testing.T) {
	tests := []struct {
		req msg.WalkRequest
	}{
		{msg.WalkRequest{Forward: 0.3}},
		{msg.WalkRequest{Forward: 0.25}},
		{msg.WalkRequest{Forward: -0.15}},
		{msg.WalkRequest{Left: 0.05}},
		{msg.WalkRequest{Turn: 0.8}},
		{msg.WalkRequest{Turn: -0.5}},
	}
	// The gait itself goes to 0.30 m/s; the default caps it lower for the
	// real server.
	cfg := DefaultConfig()
	cfg.MaxForward = 0.3
	for _, tc := range tests {
		r := newRig(t, cfg, tc.req)
		// The commanded feet's midpoint at every support change.
		var ground []geom.Pose2
		sw := r.feet.switches
		for range 600 {
			r.step()
			if r.feet.switches != sw {
				sw = r.feet.switches
				x, y, h := r.ground()
				ground = append(ground, geom.Pose2{X: x, Y: y, H: h})
			}
		}
		const n = 12 // steps measured, after 8 steps of acceleration
		if len(r.steps) < 8+n+1 || len(ground) < 8+n+1 {
			t.Fatalf("%+v: only %d steps", tc.req, len(r.steps))
		}
		period := r.w.period()
		want := [3]float64{float64(tc.req.Forward), float64(tc.req.Left), float64(tc.req.Turn)}
		for _, src := range []struct {
			name  string
			poses []geom.Pose2
		}{{"planned footholds", r.steps}, {"commanded feet", ground}} {
			a, b := src.poses[8], src.poses[8+n]
			d := a.Inv().Mul(b) // in the first pose's frame
			var got [3]float64
			if want[2] != 0 {
				var turned float64 // summed step by step: more than π in all
				for k := 8; k < 8+n; k++ {
					turned += geom.WrapAngle(src.poses[k+1].H - src.poses[k].H)
				}
				got[2] = turned / (n * period)
			} else {
				got[0], got[1] = d.X/(n*period), d.Y/(n*period)
			}
			for i := range want {
				if want[i] == 0 && i < 2 && want[2] != 0 {
					continue // turning on the spot: the midpoint wobbles
				}
				if math.Abs(got[i]-want[i]) > 0.05*math.Abs(want[i])+1e-3 {
					t.Errorf("%+v, %s: speed %v, want %v", tc.req, src.name, got, want)
					break
				}
			}
			t.Logf("%+v, %s: speed %.4f %.4f %.4f", tc.req, src.name, got[0], got[1], got[2])
		}
	}
}

// TestOdometryMatchesStepPlan: the integrated odometry of a straight and a
// turning walk is the composition of the planned steps' displacements.
func TestOdometryMatchesStepPlan(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxForward = 0.3 // the gait's own limit, above the default cap
	for _, req := range []msg.WalkRequest{{Forward: 0.3}, {Forward: 0.15, Turn: 0.6}, {Turn: -1}} {
		g := kinematics.NAOv6()
		w := New(cfg, DefaultStance(), g)
		in := Input{Walk: true, Request: req}
		var cmd hal.JointCommand
		var odo, plan geom.Pose2
		support := w.support
		started := false
		for i := 0; i < 1000; i++ {
			if i == 600 {
				in.Walk = false
			}
			s := w.Step(dt, &in, &cmd)
			if s.Stepping && (!started || s.Support != support) {
				// A step starts: add its planned displacement.
				plan = plan.Mul(w.bodyStart.Inv().Mul(w.bodyEnd))
				started, support = true, s.Support
			}
			odo = odo.Mul(geom.Pose2{X: float64(s.Odometry.X), Y: float64(s.Odometry.Y), H: float64(s.Odometry.Heading)})
		}
		if w.Stepping() {
			t.Fatalf("%+v: still stepping", req)
		}
		if math.Hypot(odo.X-plan.X, odo.Y-plan.Y) > 1e-9 || math.Abs(geom.WrapAngle(odo.H-plan.H)) > 1e-9 {
			t.Fatalf("%+v: odometry %+v, step plan %+v", req, odo, plan)
		}
		// And the plan is the command: 6 s at the commanded speed, less the
		// acceleration and deceleration.
		if req.Turn == 0 && math.Abs(odo.X-6*float64(req.Forward)) > 0.15 {
			t.Fatalf("%+v: walked %.3f m in 6 s", req, odo.X)
		}
		t.Logf("%+v: odometry %+v", req, odo)
	}
}

// TestAccelerationLimits: the step velocity changes by at most one step's
// worth of acceleration, and stays within the maxima.
func TestAccelerationLimits(t *testing.T) {
	cfg := DefaultConfig()
	w := New(cfg, DefaultStance(), kinematics.NAOv6())
	var cmd hal.JointCommand
	reqs := []msg.WalkRequest{{Forward: 1, Turn: 2}, {Forward: -1, Left: 1}, {Turn: -3}, {Forward: 0.3}}
	prev := geom.Pose2{}
	period := w.period()
	for i := range 1200 {
		in := Input{Walk: true, Request: reqs[i/300]}
		w.Step(dt, &in, &cmd)
		v := w.vel
		if math.Abs(v.X-prev.X) > float64(cfg.AccForward)*period+1e-12 || math.Abs(v.Y-prev.Y) > float64(cfg.AccLeft)*period+1e-12 || math.Abs(v.H-prev.H) > cfg.AccTurn*period+1e-12 {
			t.Fatalf("tick %d: velocity jumped from %+v to %+v", i, prev, v)
		}
		if v.X > float64(cfg.MaxForward)+1e-12 || -v.X > float64(cfg.MaxBackward)+1e-12 || math.Abs(v.Y) > float64(cfg.MaxLeft)+1e-12 || math.Abs(v.H) > float64(cfg.MaxTurn)+1e-12 {
			t.Fatalf("tick %d: velocity %+v beyond the maxima", i, v)
		}
		prev = v
	}
}

// TestWalkToTarget: the proportional planner takes the robot to targets in
// front, to the side and behind, and stops there.
func TestWalkToTarget(t *testing.T) {
	for _, target := range []hal.Pose2{{X: 1, Y: 0.5, Heading: 1}, {X: -0.5, Y: -0.3, Heading: -2}, {X: 0.2, Y: 0.2}, {X: 2}} {
		r := newRig(t, DefaultConfig(), msg.WalkRequest{ToTarget: true, Target: target})
		arrived := false
		for range 4000 {
			s := r.step()
			if s.Arrived && !s.Stepping {
				arrived = true
				break
			}
		}
		if !arrived {
			t.Fatalf("%+v: not arrived, odometry %+v", target, r.odo)
		}
		for range 5 {
			r.step()
		}
		x, y, h := r.ground()
		if math.Hypot(x-float64(target.X), y-float64(target.Y)) > 0.05 || math.Abs(geom.WrapAngle(h-float64(target.Heading))) > 0.15 {
			t.Fatalf("%+v: stopped at (%.3f, %.3f, %.3f)", target, x, y, h)
		}
		t.Logf("%+v: at (%.3f, %.3f, %.3f) after %.1f s", target, x, y, h, float64(r.ticks)*dt)
	}
}

// TestGyroFeedback: a forward pitch rate pushes the ankles' toes down and a
// roll rate to the right rolls the ankles left, by the configured gains.
// (Whether the gains steady a walking robot is for the physics mode: the
// scenarios walk with the gyro in the loop.)
func TestGyroFeedback(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Gyro.Filter = 0
	g := kinematics.NAOv6()
	var base, got hal.JointCommand
	w0 := New(cfg, DefaultStance(), g)
	w0.Step(dt, &Input{Walk: true}, &base)
	w := New(cfg, DefaultStance(), g)
	w.Step(dt, &Input{Walk: true, Gyro: hal.Vec3{X: 2, Y: 3}, GyroValid: true}, &got)
	for _, c := range []struct {
		j    hal.Joint
		want float64
	}{
		{hal.LAnklePitch, 3 * cfg.Gyro.AnklePitch}, {hal.RAnklePitch, 3 * cfg.Gyro.AnklePitch},
		{hal.LHipPitch, 3 * cfg.Gyro.HipPitch}, {hal.LAnkleRoll, 2 * cfg.Gyro.AnkleRoll}, {hal.RHipRoll, 2 * cfg.Gyro.HipRoll},
	} {
		if d := float64(got.Angle[c.j] - base.Angle[c.j]); math.Abs(d-c.want) > 1e-12 {
			t.Errorf("%s moved by %v, want %v", c.j, d, c.want)
		}
	}
	if cfg.Gyro.AnklePitch <= 0 || cfg.Gyro.AnkleRoll <= 0 {
		t.Fatal("default ankle gains are not positive")
	}

}

// TestStepDoesNotAllocate: a walk tick allocates nothing.
func TestStepDoesNotAllocate(t *testing.T) {
	w := New(DefaultConfig(), DefaultStance(), kinematics.NAOv6())
	in := Input{Walk: true, Request: msg.WalkRequest{Forward: 0.2, Turn: 0.5}, GyroValid: true}
	var cmd hal.JointCommand
	if n := testing.AllocsPerRun(500, func() { w.Step(dt, &in, &cmd) }); n != 0 {
		t.Fatalf("Step allocates %v times", n)
	}
}

func BenchmarkStep(b *testing.B) {
	w := New(DefaultConfig(), DefaultStance(), kinematics.NAOv6())
	in := Input{Walk: true, Request: msg.WalkRequest{Forward: 0.2, Turn: 0.5}, GyroValid: true}
	var cmd hal.JointCommand
	b.ReportAllocs()
	for b.Loop() {
		w.Step(dt, &in, &cmd)
	}
}

// TestHeadingCorrection: feet that slip turn the robot by a yaw the plan
// did not make; the gyro sees it and the following steps turn it back, so
// the heading follows the request. Without the correction the slip
// accumulates.
func TestHeadingCorrection(t *testing.T) {
	const secs = 10.0
	for _, tc := range []struct {
		name       string
		gain, slip float64
		turn       hal.RadPerSec
		want, tol  float64 // the true yaw after secs (rad)
	}{
		{"slip corrected", 2, 0.1, 0, 0, 0.1},
		{"slip uncorrected", 0, 0.1, 0, 0.1 * secs, 0.1},
		{"slip the other way", 2, -0.1, 0, 0, 0.1},
		{"asked turn kept", 2, 0, 0.3, 0.3 * secs, 0.15},
		{"asked turn kept while slipping", 2, 0.05, 0.3, 0.3 * secs, 0.15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Gyro.HeadingGain = tc.gain
			w := New(cfg, DefaultStance(), kinematics.NAOv6())
			in := Input{Walk: true, Request: msg.WalkRequest{Forward: 0.15, Turn: tc.turn}, GyroValid: true}
			var cmd hal.JointCommand
			var yaw float64
			for range int(secs / dt) {
				s := w.Step(dt, &in, &cmd)
				// The body turns as planned plus the slip, which the gyro
				// reports on the next tick.
				rate := float64(s.Odometry.Heading)/dt + tc.slip
				if !s.Stepping {
					rate = 0
				}
				yaw += rate * dt
				in.Gyro = hal.Vec3{Z: rate}
			}
			if math.Abs(yaw-tc.want) > tc.tol {
				t.Errorf("turned %.3f rad in %.0f s, want %.3f ± %.2f", yaw, secs, tc.want, tc.tol)
			}
		})
	}
}
