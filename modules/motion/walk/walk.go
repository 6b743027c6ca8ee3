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
// touch-down), moves only vertically for the first and last tenth of the
// swing, and moves over the ground with a trapezoidal speed profile; in the
// air it also comes SwingInward closer to the support foot. The torso sits
// TorsoOffsetX ahead of the walk frame, follows a path whose speed does not
// jump between steps, and sways sideways towards the support foot on a sine
// that leads the step by SwayLead. The sway is sized by the linear inverted
// pendulum so that the zero-moment point, not the centre of mass, reaches
// the support foot at mid step (Config.Sway): the walk is dynamically
// balanced, as in the real server and in the embedded simulator, which
// fall a robot whose ZMP leaves its support polygon. Starting from rest,
// a step with both feet down shifts the weight into the sway; stopping, a
// last one lets it settle. The feet stay flat and parallel to the ground.
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
	"github.com/robotd/robotd/hal/geom"
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
// ticks of delay, 0.05 oscillates on such a simulator, 0.02 does not); the
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
	// HeadingGain turns the difference between the yaw the gyro measured
	// and the yaw the step plan made since the walk started (rad) into a
	// turn rate (rad/s) that the next steps add to undo it: feet that slip
	// or twist turn the robot, and this turns it back. 0 turns it off.
	// A gyro with a bias b (rad/s) makes the robot turn at -b; the
	// integrals are reset whenever the walk stops.
	HeadingGain float64 `json:"heading_gain"`
	// MaxHeading bounds that turn rate.
	MaxHeading hal.RadPerSec `json:"max_heading"`
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
	// Sway is where the zero-moment point is to be at mid step, as a
	// fraction of the way from the walk frame to the support foot's centre
	// (1: right under it). The torso's sideways motion that puts it there
	// follows from the linear inverted pendulum: a torso swaying as
	// a·sin(πt/T) has its ZMP at a·(1+(π/T)²·z/g), z the centre of mass's
	// height, so it sways only about a fifth of the way itself. Swaying the
	// centre of mass over the support foot instead would throw the ZMP far
	// past it.
	Sway float64 `json:"sway"`
	// SwayLead is how far, as a fraction of a step, the sway runs ahead of
	// the step: the commands' delay plus the body's lag in responding. A
	// sway in phase with the step has the weight still between the feet
	// when the swing foot lifts.
	SwayLead float64 `json:"sway_lead"`
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
// 0.30 m/s forward. On the UNSW rcssserver3d in sync mode (20 s from
// standing, cmd/simmeasure), with the leg kinematics of the SimSpark NAO
// model's body table, 0.30 m/s walks 275 mm/s and 0.35 m/s 320 mm/s
// without a fall; with the NAO v6's legs the same gait fell at 0.25 m/s.
func DefaultConfig() Config {
	return Config{
		StepPeriod:    config.Duration(250 * time.Millisecond),
		StepHeight:    0.02,
		SwingInward:   0.01,
		DoubleSupport: 0.3,
		Sway:          1,
		SwayLead:      0.2,
		MaxForward:    0.30,
		MaxBackward:   0.15,
		MaxLeft:       0.05,
		MaxTurn:       1.0,
		AccForward:    0.3,
		AccLeft:       0.5,
		AccTurn:       3,
		Stiffness:     0.8,
		Gyro: GyroConfig{
			Filter:     config.Duration(20 * time.Millisecond),
			AnklePitch: 0.01, HipPitch: 0, AnkleRoll: 0.01, HipRoll: 0,
			Max: 0.1, HeadingGain: 2, MaxHeading: 0.3,
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
	// swayGain is the torso's sway per unit of ZMP sway (Config.Sway).
	swayGain float64
	// mode is the current step's kind: a weight shift from rest, a step,
	// or a settling back to rest.
	mode stepMode
	// prevDelta and delta are the walk frame's motion over the previous
	// and the current step, each in its own start frame.
	prevDelta, delta geom.Pose2
	phase            float64
	support          kinematics.Side
	// The current step, in the support foot's frame: the walk frame's start
	// and end, the swing foot's start and landing spot.
	bodyStart, bodyEnd, swingStart, swingEnd geom.Pose2
	// body is the last tick's walk frame in the support foot's frame.
	body geom.Pose2
	// vel is the current step's planned velocity (per second).
	vel geom.Pose2

	target   geom.Pose2
	lastReq  hal.Pose2
	tracking bool
	arrived  bool

	gyro hal.Vec3
	// yawErr is how far the robot has turned beyond what was asked since
	// the walk started (rad): the gyro's yaw minus the planned yaw, plus
	// the yaw the heading correction added to the plan.
	yawErr float64

	// feet are the last tick's sole targets in the torso frame.
	feet [2]kinematics.FootPose
	// torsoTurn is the IK's turn of the torso against the planned torso
	// heading (small; see kinematics.LegsIK).
	torsoTurn float64
}

// New returns a walk standing in stance.
func New(cfg Config, stance Stance, geom kinematics.Geometry) *Walk {
	w := &Walk{cfg: cfg, stance: stance, geom: geom}
	// The linear inverted pendulum's gain for a sway at the step
	// frequency, with the centre of mass's height in the stance.
	var stand [hal.NumJoints]hal.Radians
	legs := stance.Legs(&geom)
	legs.Put(&stand)
	z := geom.CoM(&stand).Z - (geom.HipOffsetZ - stance.HipHeight)
	w.swayGain = 1 / (1 + math.Pow(math.Pi/w.period(), 2)*max(z, 0.05)/9.81)
	w.Reset()
	return w
}

// Reset puts the walk into the stance, not stepping, without any velocity.
func (w *Walk) Reset() {
	w.stepping, w.phase, w.mode = false, 0, stepping
	w.prevDelta, w.delta = geom.Pose2{}, geom.Pose2{}
	w.support = kinematics.Right
	w.swingStart = w.nominalSwing(w.support)
	w.swingEnd = w.swingStart
	w.body = mid(geom.Pose2{}, w.swingStart)
	w.bodyStart, w.bodyEnd = w.body, w.body
	w.vel = geom.Pose2{}
	w.tracking, w.arrived = false, false
	w.gyro = hal.Vec3{}
	w.yawErr = 0
}

// Stepping reports whether a step is under way.
func (w *Walk) Stepping() bool { return w.stepping }

// nominalSwing is where the swing foot stands beside the support foot.
func (w *Walk) nominalSwing(support kinematics.Side) geom.Pose2 {
	return geom.Pose2{Y: -support.Sign() * w.stance.FootSeparation}
}

// mid is the pose halfway between two poses.
func mid(a, b geom.Pose2) geom.Pose2 { return a.Lerp(b, 0.5) }

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
	} else if cmd != (geom.Pose2{}) {
		w.start(cmd)
		prev = w.body
	}
	w.body = w.bodyAt(w.phase)
	odo := prev.Inv().Mul(w.body)
	w.trackYaw(dt, in, odo.H)
	reachable := w.pose(out)
	// Keep a tracked target where it is on the ground.
	if w.tracking {
		w.target = odo.Inv().Mul(w.target)
	}
	return Status{
		Odometry:  hal.Pose2Of(odo),
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
	if !g.Finite() {
		return
	}
	w.gyro.X += a * (g.X - w.gyro.X)
	w.gyro.Y += a * (g.Y - w.gyro.Y)
	w.gyro.Z += a * (g.Z - w.gyro.Z)
}

// trackYaw integrates the gyro's yaw against the plan's while stepping.
func (w *Walk) trackYaw(dt float64, in *Input, planned float64) {
	if !w.stepping {
		w.yawErr = 0
		return
	}
	if !in.GyroValid || !in.Gyro.Finite() {
		return
	}
	w.yawErr += in.Gyro.Z*dt - planned
	// Never more than a quarter turn: beyond that the robot has fallen or
	// been turned by hand, and undoing it is not the walk's business.
	w.yawErr = min(max(w.yawErr, -math.Pi/4), math.Pi/4)
}

// headingCorrection is the turn rate (rad/s) that undoes the measured yaw
// error.
func (w *Walk) headingCorrection() float64 {
	lim := float64(w.cfg.Gyro.MaxHeading)
	return min(max(-w.cfg.Gyro.HeadingGain*w.yawErr, -lim), lim)
}

// command turns the request into the desired velocity (per second), within
// the speed limits; zero when the walk should stop.
func (w *Walk) command(in *Input) geom.Pose2 {
	w.arrived = false
	if !in.Walk {
		w.tracking = false
		return geom.Pose2{}
	}
	r := &in.Request
	var v geom.Pose2
	if r.ToTarget {
		if !w.tracking || r.Target != w.lastReq {
			w.target = geom.Pose2{X: float64(r.Target.X), Y: float64(r.Target.Y), H: geom.WrapAngle(float64(r.Target.Heading))}
			w.lastReq, w.tracking = r.Target, true
		}
		v = w.toTarget()
	} else {
		w.tracking = false
		v = geom.Pose2{X: float64(r.Forward), Y: float64(r.Left), H: float64(r.Turn)}
	}
	return w.limit(v)
}

// toTarget is the proportional step planner.
func (w *Walk) toTarget() geom.Pose2 {
	t, c := w.target, &w.cfg.Target
	if !(hal.Vec3{X: t.X, Y: t.Y, Z: t.H}).Finite() {
		return geom.Pose2{}
	}
	d := math.Hypot(t.X, t.Y)
	if d < c.Tolerance && math.Abs(t.H) < float64(c.AngleTolerance) {
		w.arrived = true
		return geom.Pose2{}
	}
	if d > c.FaceDistance {
		face := math.Atan2(t.Y, t.X)
		return geom.Pose2{X: c.Gain * d * max(0, math.Cos(face)), H: c.TurnGain * face}
	}
	return geom.Pose2{X: c.Gain * t.X, Y: c.Gain * t.Y, H: c.TurnGain * t.H}
}

// limit clamps a velocity to the configured maxima, scaling all three
// components together when their combination is too fast.
func (w *Walk) limit(v geom.Pose2) geom.Pose2 {
	if !(hal.Vec3{X: v.X, Y: v.Y, Z: v.H}).Finite() {
		return geom.Pose2{}
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
		v = geom.Pose2{X: v.X * s, Y: v.Y * s, H: v.H * s}
	}
	return v
}

// accelerate moves the step velocity towards cmd within one step's worth of
// the acceleration limits.
func (w *Walk) accelerate(cmd geom.Pose2) geom.Pose2 {
	t := w.period()
	step := func(cur, want, acc float64) float64 {
		d := acc * t
		return cur + min(max(want-cur, -d), d)
	}
	return geom.Pose2{
		X: step(w.vel.X, cmd.X, float64(w.cfg.AccForward)),
		Y: step(w.vel.Y, cmd.Y, float64(w.cfg.AccLeft)),
		H: step(w.vel.H, cmd.H, w.cfg.AccTurn),
	}
}

// stepMode is the kind of a step.
type stepMode uint8

const (
	// stepping: the swing foot moves.
	stepping stepMode = iota
	// shifting: both feet stay down while the torso eases from standing
	// still into the sway of the first step.
	shifting
	// settling: both feet stay down while the torso comes to rest from the
	// sway of the last step.
	settling
)

// start begins stepping from the stance: a weight shift onto the foot
// that is not to move first (the one away from the side the robot is to
// move or turn to), then steps.
func (w *Walk) start(cmd geom.Pose2) {
	swing := kinematics.Left
	if cmd.Y < 0 || (cmd.Y == 0 && cmd.H < 0) {
		swing = kinematics.Right
	}
	// The shift's swing foot becomes the first step's support.
	if w.support != swing {
		w.switchSupport()
	}
	w.stepping, w.phase, w.mode = true, 0, shifting
	w.vel = geom.Pose2{}
	w.still()
}

// still plans a step in which nothing but the sway moves.
func (w *Walk) still() {
	w.bodyStart, w.bodyEnd = w.body, w.body
	w.swingStart = w.swingEnd
	w.prevDelta, w.delta = geom.Pose2{}, geom.Pose2{}
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
func (w *Walk) finishStep(prev geom.Pose2) geom.Pose2 {
	inv := w.swingEnd.Inv()
	w.body = inv.Mul(w.bodyEnd)
	w.bodyStart, w.bodyEnd = w.body, w.body
	w.swingStart, w.swingEnd = inv, inv
	w.support = w.support.Other()
	return inv.Mul(prev)
}

// plan plans the step starting now (phase 0) towards the velocity cmd; or,
// when the robot is to stop and has stopped, ends stepping.
func (w *Walk) plan(cmd geom.Pose2) {
	if w.mode == settling {
		// At rest again: stand, or start afresh.
		w.stepping, w.phase = false, 0
		w.bodyEnd, w.swingEnd = w.body, w.nominalSwing(w.support)
		if cmd != (geom.Pose2{}) {
			w.start(cmd)
		}
		return
	}
	w.bodyStart = w.body
	w.swingStart = w.swingEnd
	v := w.accelerate(cmd)
	if cmd != (geom.Pose2{}) && w.cfg.Gyro.HeadingGain != 0 {
		// Undo the turn the gyro measured and the plan did not make,
		// within the turn limit.
		mh := float64(w.cfg.MaxTurn)
		c := cmd
		c.H = min(max(cmd.H+w.headingCorrection(), -mh), mh)
		vc := w.accelerate(c)
		w.yawErr += (vc.H - v.H) * w.period()
		v = vc
	}
	w.vel = v
	const eps = 1e-9
	stopped := math.Abs(w.vel.X) < eps && math.Abs(w.vel.Y) < eps && math.Abs(w.vel.H) < eps
	if stopped {
		w.vel = geom.Pose2{}
		nominal := w.nominalSwing(w.support)
		d := w.swingStart.Inv().Mul(nominal)
		if math.Hypot(d.X, d.Y) < 1e-4 && math.Abs(d.H) < 1e-3 {
			// The feet are side by side: let the sway settle, then stand.
			w.swingEnd = nominal
			w.mode = settling
			w.still()
			return
		}
		// Otherwise a closing step (the plan below with no velocity).
	}
	w.mode = stepping
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
	s := geom.Pose2{X: -w.vel.X * t / 2, Y: sup * w.stance.FootSeparation / 2}
	if side*w.vel.Y > 0 {
		s.Y -= w.vel.Y * t
	}
	if side*w.vel.H > 0 {
		s.H = -w.vel.H * t
	}
	w.bodyEnd = s.Inv()
	w.swingEnd = w.bodyEnd.Mul(geom.Pose2{X: -s.X, Y: -s.Y, H: -s.H})
	w.prevDelta, w.delta = w.delta, w.bodyStart.Inv().Mul(w.bodyEnd)
}

// swingProgress returns the swing foot's horizontal progress 0..1 and lift
// 0..1 at phase ph.
func (w *Walk) swingProgress(ph float64) (u, lift float64) {
	ds := min(max(w.cfg.DoubleSupport, 0), 0.9)
	p0, p1 := ds/2, 1-ds/2
	if w.mode != stepping {
		return 0, 0
	}
	switch {
	case ph <= p0:
		return 0, 0
	case ph >= p1:
		return 1, 0
	}
	s := (ph - p0) / (p1 - p0)
	// The foot moves only vertically for the first and last tenth
	// of the swing, so it leaves and meets the ground cleanly; in between it moves
	// with a trapezoidal speed profile (a fifth of the time accelerating,
	// a fifth braking), whose peak speed is only 5/4 of the mean.
	const a = 0.1
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
func (w *Walk) bodyAt(ph float64) geom.Pose2 {
	if !w.stepping {
		return w.body
	}
	// A cubic Hermite in the walk frame of the step's start: it starts at
	// the previous step's speed and ends at this step's, at this step's end
	// pose. The body's speed never jumps at a step boundary: a jump would be
	// an impulse that throws the zero-moment point off the support foot.
	// The previous step's motion is turned into this step's start frame;
	// the heading turns linearly (the shared hip yaw-pitch follows it
	// best so).
	s := ph
	h10, h01, h11 := s*s*s-2*s*s+s, -2*s*s*s+3*s*s, s*s*s-s*s
	p, d := w.prevDelta, w.delta
	c, sn := math.Cos(p.H), math.Sin(p.H)
	px, py := c*p.X+sn*p.Y, -sn*p.X+c*p.Y
	return w.bodyStart.Mul(geom.Pose2{
		X: h10*px + (h01+h11)*d.X,
		Y: h10*py + (h01+h11)*d.Y,
		H: s * d.H,
	})
}

// torsoAt is the torso's ground pose at phase ph, in the support frame.
func (w *Walk) torsoAt(ph float64) geom.Pose2 {
	b := w.bodyAt(ph)
	var sway float64
	if w.stepping {
		// Towards the support foot, by the pendulum's share of the way
		// to it (see Config.Sway).
		// The sway leads the step by SwayLead, which the commands' delay
		// and the body's response take up; the first step from rest eases
		// into it from standing still.
		sway = w.swayAt(b, ph)
	}
	return b.Mul(geom.Pose2{X: w.stance.TorsoOffsetX, Y: sway})
}

// swayAt is the torso's sideways offset from the walk frame b at phase ph:
// towards the support foot, by the pendulum's share of the way to it (see
// Config.Sway), leading the step by SwayLead. The weight shift from rest
// eases into it, and the settling eases out of it, each along a cubic that
// meets the sway's position and speed.
func (w *Walk) swayAt(b geom.Pose2, ph float64) float64 {
	k, lead := w.cfg.Sway*w.swayGain, math.Pi*w.cfg.SwayLead
	switch w.mode {
	case shifting:
		// Towards the first step's support foot, the swing foot now.
		y := b.Inv().Mul(w.swingStart).Y * k
		return (3*ph*ph-2*ph*ph*ph)*math.Sin(lead)*y + (ph*ph*ph-ph*ph)*math.Pi*math.Cos(lead)*y
	case settling:
		y := b.Inv().Y * k
		q := 1 - ph
		return (3*q*q-2*q*q*q)*math.Sin(lead)*y - (q*q*q-q*q)*math.Pi*math.Cos(lead)*y
	}
	return math.Sin(math.Pi*ph+lead) * b.Inv().Y * k
}

// swingAt is the swing foot's ground pose and lift at phase ph.
func (w *Walk) swingAt(ph float64) (geom.Pose2, float64) {
	if !w.stepping {
		return w.swingEnd, 0
	}
	u, lift := w.swingProgress(ph)
	p := w.swingStart.Lerp(w.swingEnd, u)
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
