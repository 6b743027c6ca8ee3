// Package walk is robotd's omnidirectional walk for the NAO: a step
// generator with speed and acceleration limits, a proportional step planner
// for walking to a relative target, smooth swing-foot trajectories, a
// sideways sway of the torso over the support foot, leg inverse kinematics
// every tick, gyro feedback on the ankles and hips, and odometry from the
// executed steps.
//
// # Model
//
// A step lasts StepPeriod. The support foot stays where it is on the ground
// for the whole step, and everything is planned in its frame. The walk frame
// (the robot frame the odometry reports in) lies on the ground; at every step
// boundary it is exactly halfway between the feet, with their mean heading,
// and during a step it moves at constant speed from one boundary pose to the
// next. At the end of a step the support foot is half a step's forward
// motion behind the walk frame and the swing foot lands mirrored through it,
// so a step moves the robot by the planned velocity times StepPeriod.
// Sideways and turning motion is done by opening steps (the foot on the side
// of the motion steps out by twice the step's share, or turns by twice the
// step's turn) and closing steps (the other foot comes back beside it,
// parallel), so the feet never cross and the toes never turn in. The planned
// velocity follows the request within the speed limits, and changes once per
// step within the acceleration limits.
//
// Within a step, both feet are on the ground for the first and last
// DoubleSupport/2 of the step. In between the swing foot lifts on a raised
// cosine (StepHeight at mid swing, zero vertical speed at lift-off and
// touch-down), moves only vertically for the first and last twentieth of
// the swing, and moves over the ground with a trapezoidal speed profile; in
// the air it also comes SwingInward closer to the support foot. The torso
// sits TorsoOffsetX ahead of the walk frame and sways sideways towards the
// support foot on a sine over the step, SwayAmplitude from the feet's
// midpoint at mid step (just beyond the support foot's centre by default),
// so that the centre of mass is over the support foot whenever the other
// foot is in the air: the walk is statically stable, as a kinematic
// simulator that carries the body on the support foot needs. The feet stay
// flat and parallel to the ground.
//
// Every tick the feet's poses relative to the torso go through the legs' IK
// (kinematics.LegsIK, with the shared hip yaw-pitch), then the filtered gyro
// adds small corrections to the ankles and hips.
//
// The walk starts from its Stance and stops in it: a stop decelerates within
// the acceleration limits and ends with a step that puts the swing foot
// beside the support foot, after which the legs are exactly in the stance.
// The odometry is the walk frame's motion, so it integrates to exactly the
// executed step plan.
package walk

import (
	"math"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/motion/kinematics"
	"github.com/robotd/robotd/msg"
)

// Stance is the standing posture: the walk starts and ends in it, and it is
// the stand pose.
type Stance struct {
	// HipHeight is the height of the hip joints above the soles.
	HipHeight float64 `json:"hip_height"`
	// FootSeparation is the lateral distance between the soles' centres.
	FootSeparation float64 `json:"foot_separation"`
	// TorsoOffsetX is how far the torso centre is ahead of the feet's
	// midpoint (moves the centre of mass forward over the feet).
	TorsoOffsetX float64 `json:"torso_offset_x"`
}

// DefaultStance returns the default stance: hips 0.21 m above the soles
// (torso centre 0.295 m, knees bent by about 70°), feet under the hips,
// torso 10 mm forward.
func DefaultStance() Stance {
	return Stance{HipHeight: 0.21, FootSeparation: 0.10, TorsoOffsetX: 0.01}
}

// Feet returns the stance's sole poses in the torso frame.
func (s Stance) Feet(g *kinematics.Geometry) (l, r kinematics.FootPose) {
	z := g.HipOffsetZ - s.HipHeight
	return kinematics.FootPose{X: -s.TorsoOffsetX, Y: s.FootSeparation / 2, Z: z},
		kinematics.FootPose{X: -s.TorsoOffsetX, Y: -s.FootSeparation / 2, Z: z}
}

// Legs returns the stance's leg angles.
func (s Stance) Legs(g *kinematics.Geometry) kinematics.Legs {
	l, r := s.Feet(g)
	legs, _, _ := g.LegsIK(l, r)
	return legs
}

// GyroConfig is the balance feedback: each gain turns the filtered gyro
// rate (rad/s) into a joint correction (rad), on both legs. Positive gains
// oppose the body's rotation (a forward pitch rate pushes the toes down and
// the hips back; a roll rate to the right rolls the ankles and hips left).
//
// On a kinematic simulator, where the torso's tilt follows the ankles
// without any dynamics, the loop has no physics to damp and becomes
// unstable at gains of a few hundredths (with the 20 ms filter and two
// ticks of delay, 0.05 oscillates in the tests' plant, 0.02 does not); the
// defaults stay well below that. A real NAO tolerates larger gains.
type GyroConfig struct {
	// Filter is the time constant of the gyro's first-order low-pass.
	Filter config.Duration `json:"filter"`
	// AnklePitch and HipPitch act on the pitch rate (gyro y).
	AnklePitch float64 `json:"ankle_pitch"`
	HipPitch   float64 `json:"hip_pitch"`
	// AnkleRoll and HipRoll act on the roll rate (gyro x).
	AnkleRoll float64 `json:"ankle_roll"`
	HipRoll   float64 `json:"hip_roll"`
	// Max bounds each correction.
	Max hal.Radians `json:"max"`
}

// TargetConfig is the proportional planner for walking to a target.
type TargetConfig struct {
	// Gain turns the distance to the target (m) into a speed (m/s).
	Gain float64 `json:"gain"`
	// TurnGain turns the heading error (rad) into a turn rate (rad/s).
	TurnGain float64 `json:"turn_gain"`
	// FaceDistance: farther than this the robot turns towards the target
	// and walks forwards; nearer it walks sideways as needed and turns to
	// the target's heading.
	FaceDistance float64 `json:"face_distance"`
	// Tolerance and AngleTolerance say when the target is reached.
	Tolerance      float64     `json:"tolerance"`
	AngleTolerance hal.Radians `json:"angle_tolerance"`
}

// Config configures the walk.
type Config struct {
	// StepPeriod is one step's duration.
	StepPeriod config.Duration `json:"step_period"`
	// StepHeight is the swing foot's lift at mid swing.
	StepHeight float64 `json:"step_height"`
	// SwingInward is how much closer to the support foot the swing foot
	// is at mid swing than where it lifted off and lands.
	SwingInward float64 `json:"swing_inward"`
	// DoubleSupport is the fraction of a step with both feet on the ground
	// (half at its start, half at its end).
	DoubleSupport float64 `json:"double_support"`
	// SwayAmplitude is how far the torso moves sideways from the feet's
	// midpoint towards the support foot at mid step (the nominal stance's
	// half separation puts it right above the support foot).
	SwayAmplitude float64 `json:"sway_amplitude"`
	// Max speeds of the walk frame.
	MaxForward  hal.MetresPerSec `json:"max_forward"`
	MaxBackward hal.MetresPerSec `json:"max_backward"`
	MaxLeft     hal.MetresPerSec `json:"max_left"`
	MaxTurn     hal.RadPerSec    `json:"max_turn"`
	// Acceleration limits, applied once per step.
	AccForward hal.MetresPerSec2 `json:"acc_forward"`
	AccLeft    hal.MetresPerSec2 `json:"acc_left"`
	// AccTurn is in rad/s².
	AccTurn float64 `json:"acc_turn"`
	// Stiffness is the legs' stiffness while walking.
	Stiffness float64      `json:"stiffness"`
	Gyro      GyroConfig   `json:"gyro"`
	Target    TargetConfig `json:"target"`
}

// DefaultConfig returns the defaults: 0.25 s steps 20 mm high, up to
// 0.30 m/s forward.
func DefaultConfig() Config {
	return Config{
		StepPeriod:    config.Duration(250 * time.Millisecond),
		StepHeight:    0.02,
		SwingInward:   0.01,
		DoubleSupport: 0.2,
		SwayAmplitude: 0.06,
		MaxForward:    0.30,
		MaxBackward:   0.15,
		MaxLeft:       0.05,
		MaxTurn:       1.0,
		AccForward:    0.6,
		AccLeft:       0.5,
		AccTurn:       3,
		Stiffness:     0.8,
		Gyro: GyroConfig{
			Filter:     config.Duration(20 * time.Millisecond),
			AnklePitch: 0.01, HipPitch: 0, AnkleRoll: 0.01, HipRoll: 0,
			Max: 0.1,
		},
		Target: TargetConfig{Gain: 1.5, TurnGain: 1.5, FaceDistance: 0.5, Tolerance: 0.03, AngleTolerance: 0.1},
	}
}

// Input is one tick's input.
type Input struct {
	// Walk keeps the robot walking with Request; false brings it to a stop
	// in the stance.
	Walk    bool
	Request msg.WalkRequest
	// Gyro is the IMU's rate, if GyroValid.
	Gyro      hal.Vec3
	GyroValid bool
}

// Status is the walk's report of one tick.
type Status struct {
	// Odometry is the walk frame's motion during this tick, in the previous
	// tick's walk frame.
	Odometry hal.Pose2
	// Stepping is true while a step is under way; false once the robot
	// stands in the stance.
	Stepping bool
	// Support is the support foot, Phase the step's phase 0..1.
	Support kinematics.Side
	Phase   float64
	// Arrived is true when walking to a target and within its tolerances.
	Arrived bool
	// Reachable is false when the IK had to pull a foot in.
	Reachable bool
}

// Walk is the walk generator. It is not safe for concurrent use.
type Walk struct {
	cfg    Config
	stance Stance
	geom   kinematics.Geometry

	stepping bool
	phase    float64
	support  kinematics.Side
	// The current step, in the support foot's frame: the walk frame's start
	// and end, the swing foot's start and landing spot.
	bodyStart, bodyEnd, swingStart, swingEnd Pose
	// body is the last tick's walk frame in the support foot's frame.
	body Pose
	// vel is the current step's planned velocity (per second).
	vel Pose

	target   Pose
	lastReq  hal.Pose2
	tracking bool
	arrived  bool

	gyro hal.Vec3

	// feet are the last tick's sole targets in the torso frame.
	feet [2]kinematics.FootPose
	// torsoTurn is the IK's turn of the torso against the planned torso
	// heading (small; see kinematics.LegsIK).
	torsoTurn float64
}

// New returns a walk standing in stance.
func New(cfg Config, stance Stance, geom kinematics.Geometry) *Walk {
	w := &Walk{cfg: cfg, stance: stance, geom: geom}
	w.Reset()
	return w
}

// Reset puts the walk into the stance, not stepping, without any velocity.
func (w *Walk) Reset() {
	w.stepping, w.phase = false, 0
	w.support = kinematics.Right
	w.swingStart = w.nominalSwing(w.support)
	w.swingEnd = w.swingStart
	w.body = mid(Pose{}, w.swingStart)
	w.bodyStart, w.bodyEnd = w.body, w.body
	w.vel = Pose{}
	w.tracking, w.arrived = false, false
	w.gyro = hal.Vec3{}
}

// Stepping reports whether a step is under way.
func (w *Walk) Stepping() bool { return w.stepping }

// nominalSwing is where the swing foot stands beside the support foot.
func (w *Walk) nominalSwing(support kinematics.Side) Pose {
	return Pose{Y: -support.Sign() * w.stance.FootSeparation}
}

// mid is the pose halfway between two poses.
func mid(a, b Pose) Pose { return lerp(a, b, 0.5) }

func (w *Walk) period() float64 {
	if t := w.cfg.StepPeriod.D().Seconds(); t > 0.01 {
		return t
	}
	return 0.25
}

// Step advances the walk by dt seconds and writes the leg joints' targets
// and stiffness into out; the other joints are left alone.
func (w *Walk) Step(dt float64, in *Input, out *hal.JointCommand) Status {
	if !(dt > 0) || dt > 1 {
		dt = 0
	}
	w.filterGyro(dt, in)
	cmd := w.command(in)
	prev := w.body
	if w.stepping {
		w.phase += dt / w.period()
		if w.phase >= 1 {
			w.phase = min(w.phase-1, 0.999)
			prev = w.finishStep(prev)
			w.plan(cmd)
		}
	} else if cmd != (Pose{}) {
		w.start(cmd)
		prev = w.body
	}
	w.body = w.bodyAt(w.phase)
	odo := prev.Inv().Mul(w.body)
	reachable := w.pose(out)
	// Keep a tracked target where it is on the ground.
	if w.tracking {
		w.target = odo.Inv().Mul(w.target)
	}
	return Status{
		Odometry:  odo.Hal(),
		Stepping:  w.stepping,
		Support:   w.support,
		Phase:     w.phase,
		Arrived:   w.arrived,
		Reachable: reachable,
	}
}

func (w *Walk) filterGyro(dt float64, in *Input) {
	if !in.GyroValid {
		w.gyro = hal.Vec3{}
		return
	}
	a := 1.0
	if tau := w.cfg.Gyro.Filter.D().Seconds(); tau > 0 {
		a = dt / (tau + dt)
	}
	g := in.Gyro
	if !finite3(g) {
		return
	}
	w.gyro.X += a * (g.X - w.gyro.X)
	w.gyro.Y += a * (g.Y - w.gyro.Y)
	w.gyro.Z += a * (g.Z - w.gyro.Z)
}

func finite3(v hal.Vec3) bool {
	return !math.IsNaN(v.X+v.Y+v.Z) && !math.IsInf(v.X+v.Y+v.Z, 0)
}

// command turns the request into the desired velocity (per second), within
// the speed limits; zero when the walk should stop.
func (w *Walk) command(in *Input) Pose {
	w.arrived = false
	if !in.Walk {
		w.tracking = false
		return Pose{}
	}
	r := &in.Request
	var v Pose
	if r.ToTarget {
		if !w.tracking || r.Target != w.lastReq {
			w.target = Pose{X: float64(r.Target.X), Y: float64(r.Target.Y), H: kinematics.WrapAngle(float64(r.Target.Heading))}
			w.lastReq, w.tracking = r.Target, true
		}
		v = w.toTarget()
	} else {
		w.tracking = false
		v = Pose{X: float64(r.Forward), Y: float64(r.Left), H: float64(r.Turn)}
	}
	return w.limit(v)
}

// toTarget is the proportional step planner.
func (w *Walk) toTarget() Pose {
	t, c := w.target, &w.cfg.Target
	if !finite3(hal.Vec3{X: t.X, Y: t.Y, Z: t.H}) {
		return Pose{}
	}
	d := math.Hypot(t.X, t.Y)
	if d < c.Tolerance && math.Abs(t.H) < float64(c.AngleTolerance) {
		w.arrived = true
		return Pose{}
	}
	if d > c.FaceDistance {
		face := math.Atan2(t.Y, t.X)
		return Pose{X: c.Gain * d * max(0, math.Cos(face)), H: c.TurnGain * face}
	}
	return Pose{X: c.Gain * t.X, Y: c.Gain * t.Y, H: c.TurnGain * t.H}
}

// limit clamps a velocity to the configured maxima, scaling all three
// components together when their combination is too fast.
func (w *Walk) limit(v Pose) Pose {
	if !finite3(hal.Vec3{X: v.X, Y: v.Y, Z: v.H}) {
		return Pose{}
	}
	mx := float64(w.cfg.MaxForward)
	if v.X < 0 {
		mx = float64(w.cfg.MaxBackward)
	}
	my, mh := float64(w.cfg.MaxLeft), float64(w.cfg.MaxTurn)
	var n float64
	for _, p := range [3][2]float64{{v.X, mx}, {v.Y, my}, {v.H, mh}} {
		if p[1] <= 0 {
			continue
		}
		n += (p[0] / p[1]) * (p[0] / p[1])
	}
	if mx <= 0 {
		v.X = 0
	}
	if my <= 0 {
		v.Y = 0
	}
	if mh <= 0 {
		v.H = 0
	}
	if n > 1 {
		s := 1 / math.Sqrt(n)
		v = Pose{X: v.X * s, Y: v.Y * s, H: v.H * s}
	}
	return v
}

// accelerate moves the step velocity towards cmd within one step's worth of
// the acceleration limits.
func (w *Walk) accelerate(cmd Pose) Pose {
	t := w.period()
	step := func(cur, want, acc float64) float64 {
		d := acc * t
		return cur + min(max(want-cur, -d), d)
	}
	return Pose{
		X: step(w.vel.X, cmd.X, float64(w.cfg.AccForward)),
		Y: step(w.vel.Y, cmd.Y, float64(w.cfg.AccLeft)),
		H: step(w.vel.H, cmd.H, w.cfg.AccTurn),
	}
}

// start begins stepping from the stance, lifting first the foot on the side
// the robot is to move or turn to.
func (w *Walk) start(cmd Pose) {
	swing := kinematics.Left
	if cmd.Y < 0 || (cmd.Y == 0 && cmd.H < 0) {
		swing = kinematics.Right
	}
	if w.support == swing {
		w.switchSupport()
	}
	w.stepping, w.phase = true, 0
	w.vel = Pose{}
	w.plan(cmd)
}

// switchSupport makes the other foot the reference frame, without moving
// anything.
func (w *Walk) switchSupport() {
	inv := w.swingEnd.Inv()
	w.body = inv.Mul(w.body)
	w.bodyEnd = inv.Mul(w.bodyEnd)
	w.swingStart, w.swingEnd = inv, inv
	w.support = w.support.Other()
}

// finishStep ends the current step: the swing foot has landed and becomes
// the support foot. prev (a pose in the old frame) is returned in the new.
func (w *Walk) finishStep(prev Pose) Pose {
	inv := w.swingEnd.Inv()
	w.body = inv.Mul(w.bodyEnd)
	w.bodyStart, w.bodyEnd = w.body, w.body
	w.swingStart, w.swingEnd = inv, inv
	w.support = w.support.Other()
	return inv.Mul(prev)
}

// plan plans the step starting now (phase 0) towards the velocity cmd; or,
// when the robot is to stop and has stopped, ends stepping.
func (w *Walk) plan(cmd Pose) {
	w.bodyStart = w.body
	w.swingStart = w.swingEnd
	w.vel = w.accelerate(cmd)
	const eps = 1e-9
	stopped := math.Abs(w.vel.X) < eps && math.Abs(w.vel.Y) < eps && math.Abs(w.vel.H) < eps
	if stopped {
		w.vel = Pose{}
		nominal := w.nominalSwing(w.support)
		d := w.swingStart.Inv().Mul(nominal)
		if math.Hypot(d.X, d.Y) < 1e-4 && math.Abs(d.H) < 1e-3 {
			// The feet are side by side: stand.
			w.stepping, w.phase = false, 0
			w.swingEnd = nominal
			w.bodyEnd = w.bodyStart
			return
		}
		// Otherwise a closing step (the plan below with no velocity).
	}
	// Plan where the support foot is to be relative to the walk frame at
	// the step's end; the swing foot lands mirrored through that frame.
	// Forward motion is shared by both steps (the support foot ends half a
	// step behind, the swing foot half a step ahead). Sideways and turning
	// motion is done by opening steps (the swing foot on the side of the
	// motion moves out twice as far, or turns twice as much) and closing
	// steps (the other foot comes back beside it, parallel), so that the
	// feet never cross nor turn their toes in.
	t := w.period()
	sup, side := w.support.Sign(), -w.support.Sign() // side: the swing foot's
	s := Pose{X: -w.vel.X * t / 2, Y: sup * w.stance.FootSeparation / 2}
	if side*w.vel.Y > 0 {
		s.Y -= w.vel.Y * t
	}
	if side*w.vel.H > 0 {
		s.H = -w.vel.H * t
	}
	w.bodyEnd = s.Inv()
	w.swingEnd = w.bodyEnd.Mul(Pose{X: -s.X, Y: -s.Y, H: -s.H})
}

// swingProgress returns the swing foot's horizontal progress 0..1 and lift
// 0..1 at phase ph.
func (w *Walk) swingProgress(ph float64) (u, lift float64) {
	ds := min(max(w.cfg.DoubleSupport, 0), 0.9)
	p0, p1 := ds/2, 1-ds/2
	switch {
	case ph <= p0:
		return 0, 0
	case ph >= p1:
		return 1, 0
	}
	s := (ph - p0) / (p1 - p0)
	// The foot moves only vertically for the first and last twentieth
	// of the swing, so it leaves and meets the ground cleanly; in between it moves
	// with a trapezoidal speed profile (a fifth of the time accelerating,
	// a fifth braking), whose peak speed is only 5/4 of the mean.
	const a = 0.05
	return trapezoid(min(max((s-a)/(1-2*a), 0), 1), 0.2), (1 - math.Cos(2*math.Pi*s)) / 2
}

// trapezoid is the position 0..1 at time s 0..1 of a motion that
// accelerates uniformly for the fraction r of the time, moves at constant
// speed, and brakes uniformly for the last fraction r.
func trapezoid(s, r float64) float64 {
	v := 1 / (1 - r) // the peak speed
	switch {
	case s <= 0:
		return 0
	case s >= 1:
		return 1
	case s < r:
		return v * s * s / (2 * r)
	case s > 1-r:
		return 1 - v*(1-s)*(1-s)/(2*r)
	}
	return v*r/2 + v*(s-r)
}

// bodyAt is the walk frame at phase ph of the current step.
func (w *Walk) bodyAt(ph float64) Pose {
	if !w.stepping {
		return w.body
	}
	return lerp(w.bodyStart, w.bodyEnd, ph)
}

// torsoAt is the torso's ground pose at phase ph, in the support frame.
func (w *Walk) torsoAt(ph float64) Pose {
	b := w.bodyAt(ph)
	var sway float64
	if w.stepping {
		// Towards the support foot: SwayAmplitude from the nominal
		// midpoint, measured from where the support foot is.
		s := b.Inv()
		half := w.stance.FootSeparation / 2
		sway = math.Sin(math.Pi*ph) * (s.Y - w.support.Sign()*(half-w.cfg.SwayAmplitude))
	}
	return b.Mul(Pose{X: w.stance.TorsoOffsetX, Y: sway})
}

// swingAt is the swing foot's ground pose and lift at phase ph.
func (w *Walk) swingAt(ph float64) (Pose, float64) {
	if !w.stepping {
		return w.swingEnd, 0
	}
	u, lift := w.swingProgress(ph)
	p := lerp(w.swingStart, w.swingEnd, u)
	// In the air the foot comes closer to the support foot (in the support
	// foot's frame), which keeps the ankle roll within its limits at the
	// height of the sway and the swing leg's mass nearer the support.
	p.Y += w.support.Sign() * lift * w.cfg.SwingInward
	return p, lift * w.cfg.StepHeight
}

// pose computes the leg joints for the current phase and writes them; it
// reports whether both feet were reachable.
func (w *Walk) pose(out *hal.JointCommand) bool {
	torso := w.torsoAt(w.phase)
	inv := torso.Inv()
	swing, lift := w.swingAt(w.phase)
	z := w.geom.HipOffsetZ - w.stance.HipHeight
	sp := inv
	wp := inv.Mul(swing)
	sup, sw := w.support, w.support.Other()
	w.feet[sup] = kinematics.FootPose{X: sp.X, Y: sp.Y, Z: z, Yaw: sp.H}
	w.feet[sw] = kinematics.FootPose{X: wp.X, Y: wp.Y, Z: z + lift, Yaw: wp.H}
	legs, turn, ok := w.geom.LegsIK(w.feet[kinematics.Left], w.feet[kinematics.Right])
	w.torsoTurn = turn
	w.balance(&legs)
	legs.Put(&out.Angle)
	for s := range 2 {
		for i := range 6 {
			out.Stiffness[kinematics.Joint(kinematics.Side(s), i)] = w.cfg.Stiffness
		}
	}
	return ok
}

// balance adds the gyro feedback.
func (w *Walk) balance(legs *kinematics.Legs) {
	g, lim := &w.cfg.Gyro, float64(w.cfg.Gyro.Max)
	c := func(gain, rate float64) float64 { return min(max(gain*rate, -lim), lim) }
	ap, hp := c(g.AnklePitch, w.gyro.Y), c(g.HipPitch, w.gyro.Y)
	ar, hr := c(g.AnkleRoll, w.gyro.X), c(g.HipRoll, w.gyro.X)
	for s := range legs {
		legs[s][kinematics.AnklePitch] += ap
		legs[s][kinematics.HipPitch] += hp
		legs[s][kinematics.AnkleRoll] += ar
		legs[s][kinematics.HipRoll] += hr
	}
}
