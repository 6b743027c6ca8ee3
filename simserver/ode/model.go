package ode

import (
	"errors"
	"fmt"
	"math"
)

// ErrNoODE is returned by New in a build without ODE (no "ode" build tag or
// no cgo).
var ErrNoODE = errors.New("ode: built without ODE (build with -tags ode and cgo, and libode-dev)")

// Shape is a body's shape: of its mass and, if it has one, its collider.
type Shape int

// Shapes.
const (
	Box     Shape = iota // Size: the three sides
	Sphere               // Size[0]: radius
	Capsule              // Size[0]: radius, Size[1]: cylinder length, along z
)

// Surface is a collider's contact handler class.
type Surface int

// Surface classes. NoCollider: the body has mass only.
const (
	NoCollider Surface = -1
	Part       Surface = 0 // a robot's part
	Foot       Surface = 1 // a robot's foot (its contacts feed FRP)
	Field      Surface = 2 // the field plane
	BallClass  Surface = 3 // the ball
	Static     Surface = 4 // a fixed box: a wall, a goal post, a goal's back
	numSurface         = 5
)

// Handler is one contact handler's surface (SimSpark's
// ContactJointHandler): a parameter takes part in the mixing only if its
// flag is set.
type Handler struct {
	Mu                                         float64
	SoftERP, SoftCFM, Slip                     float64
	Bounce, BounceVel                          float64
	HasSoftERP, HasSoftCFM, HasSlip, HasBounce bool
}

// Mixed is the surface of a contact between two handlers.
type Mixed struct {
	Mu, SoftERP, SoftCFM, Slip, Bounce, BounceVel float64
	SoftERPOn, SoftCFMOn, SlipOn, BounceOn        bool
}

// Mix combines two handlers as SimSpark's
// ODEContactJointHandler::CalcSurfaceParamInternal: mu is the average; a
// flagged parameter is the average when both set it, the one value when one
// does, and off when neither does.
func Mix(a, b Handler) Mixed {
	one := func(fa, fb bool, va, vb float64) (bool, float64) {
		switch {
		case fa && fb:
			return true, (va + vb) / 2
		case fa:
			return true, va
		case fb:
			return true, vb
		}
		return false, 0
	}
	var m Mixed
	m.Mu = (a.Mu + b.Mu) / 2
	m.SoftERPOn, m.SoftERP = one(a.HasSoftERP, b.HasSoftERP, a.SoftERP, b.SoftERP)
	m.SoftCFMOn, m.SoftCFM = one(a.HasSoftCFM, b.HasSoftCFM, a.SoftCFM, b.SoftCFM)
	m.SlipOn, m.Slip = one(a.HasSlip, b.HasSlip, a.Slip, b.Slip)
	m.BounceOn, m.Bounce = one(a.HasBounce, b.HasBounce, a.Bounce, b.Bounce)
	if m.BounceOn {
		_, m.BounceVel = one(a.HasBounce, b.HasBounce, a.BounceVel, b.BounceVel)
	}
	return m
}

// Params are the scene's physics.
type Params struct {
	Gravity      float64 // m/s², pulling along -z
	CFM, ERP     float64 // world constraint force mixing and error reduction
	SurfaceLayer float64 // m
	Step         float64 // s per dWorldStep, one per cycle
	AutoDisable  bool    // ODE's auto-disable with its default thresholds
	MaxContacts  int     // per geom pair
	// Threads, if above 1, steps separate islands (robots that do not
	// touch) on a pool of that many threads (ODE's built-in threading).
	Threads int
	// Handlers by Surface class.
	Handlers [numSurface]Handler
	// Statics are fixed boxes (surface Static).
	Statics []StaticBox
	// The ball.
	BallRadius, BallMass           float64
	BallLinDrag, BallAngDrag       float64
	BallDecelFactor, BallDecelBase float64
}

func f32(v float64) float64 { return float64(float32(v)) }

// StaticBox is a fixed box: its sides, centre and row-major rotation.
type StaticBox struct {
	Name string
	Size [3]float64
	Pos  [3]float64
	Rot  [9]float64
}

// forkStatics are the fixed colliders of the UNSW fork's SPL scene, all
// solid: a BoxCollider without a handler of its own gets SimSpark's
// default ContactJointHandler (spark/lib/oxygen/physicsserver/collider.cpp,
// Collider::PrePhysicsUpdateInternal). The side walls (nao/soccer.rsg:
// 1 m boxes BorderLength = 0.333·FieldLength beyond the goal lines and
// 0.75·FieldWidth beyond the touch lines), and per goal (nao/goal.rsg,
// its centre GoalDepth/2 behind the goal line) two posts (GoalDepth ×
// 0.04 × GoalHeight, 0.02 outside GoalWidth/2) and the back of the net (a
// 0.04 × GoalWidth × GoalHeight bar 0.05 m behind the goal's centre,
// leaning 30° about y). The goal's own box collider is a RecorderHandler's
// (goal detection) and not solid.
func forkStatics() []StaticBox {
	const (
		length, width    = 9.0, 6.0
		goalW, goalD     = 1.6, 0.5
		goalH, bar       = 0.8, 0.04
		borderL, borderW = 0.333 * length, 0.75 * width
		side             = 1.0
	)
	id := [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	sideLen, sideWid := side+length+2*borderL, side+width+2*borderW
	st := []StaticBox{
		{"left wall", [3]float64{side, sideWid, side}, [3]float64{-(length/2 + borderL), 0, 0}, id},
		{"right wall", [3]float64{side, sideWid, side}, [3]float64{length/2 + borderL, 0, 0}, id},
		{"back wall", [3]float64{sideLen, side, side}, [3]float64{0, width/2 + borderW, 0}, id},
		{"front wall", [3]float64{sideLen, side, side}, [3]float64{0, -(width/2 + borderW), 0}, id},
	}
	// Rotation by 30° about y (setLocalRotation 0 30 0), and that turned
	// by 180° about z for the right goal.
	s, c := math.Sincos(30 * math.Pi / 180)
	lean := [9]float64{c, 0, s, 0, 1, 0, -s, 0, c}
	leanR := [9]float64{-c, 0, -s, 0, -1, 0, -s, 0, c}
	for _, g := range []struct {
		name string
		x    float64 // the goal's centre
		dir  float64 // +1: the left goal, its back towards −x
		rot  [9]float64
	}{{"left", -(length/2 + goalD/2), 1, lean}, {"right", length/2 + goalD/2, -1, leanR}} {
		for _, y := range []float64{-(goalW/2 + bar/2), goalW/2 + bar/2} {
			st = append(st, StaticBox{g.name + " goal post", [3]float64{goalD, bar, goalH}, [3]float64{g.x, y, goalH / 2}, id})
		}
		st = append(st, StaticBox{g.name + " goal back", [3]float64{bar, goalW, goalH}, [3]float64{g.x - g.dir*0.2*goalD/2, 0, goalH / 2}, g.rot})
	}
	return st
}

// SimSpark returns the scene of rcssserver3d's UNSW fork (b1464ef2):
// spark/spark/spark.rb (gravity, CFM, auto-disable, surface layer),
// rcssserver3d/main.cpp (0.01 s step), nao/contactjointhandler.rsg and
// nao/touchperceptorhandler.rsg (parts and feet), nao/soccer.rsg (field),
// agent/ball.rsg and naosoccersim.rb (ball). SimSpark hands ODE
// single-precision floats; the values are rounded the same way.
func SimSpark() Params {
	part := Handler{Mu: math.Inf(1), SoftERP: f32(0.6), SoftCFM: f32(1e-4), Slip: f32(5e-3),
		Bounce: f32(0.001), BounceVel: f32(10), HasSoftERP: true, HasSoftCFM: true, HasSlip: true}
	return Params{
		Gravity: f32(9.81), CFM: f32(1e-5), ERP: 0.2, SurfaceLayer: f32(0.001), Step: f32(0.01),
		AutoDisable: true, MaxContacts: 4,
		Handlers: [numSurface]Handler{
			Part: part,
			Foot: part,
			// (setContactSoftCFM true) parses as 0 and never sets the flag;
			// (setContactSlip 0.1 0.1) is rejected, the default 5e-3 stays.
			Field: {Mu: math.Inf(1), SoftERP: f32(0.2), Slip: f32(5e-3), HasSoftERP: true, HasSlip: true},
			BallClass: {Mu: math.Inf(1), SoftERP: f32(0.5), SoftCFM: f32(0.05), Slip: f32(4),
				Bounce: f32(0.8), BounceVel: f32(0.8),
				HasSoftERP: true, HasSoftCFM: true, HasSlip: true, HasBounce: true},
			// The default ContactJointHandler (odecontactjointhandler.cpp,
			// Initialize): bounce only; its slip values are set, its flag
			// is not.
			Static: {Mu: math.Inf(1), Bounce: f32(0.8), BounceVel: f32(2), HasBounce: true},
		},
		Statics:    forkStatics(),
		BallRadius: f32(0.05), BallMass: f32(0.042),
		BallLinDrag: f32(0.018), BallAngDrag: f32(0.00004),
		BallDecelFactor: f32(1.5), BallDecelBase: f32(3),
	}
}

// Body is one rigid body of a robot.
type Body struct {
	Name    string
	Shape   Shape
	Size    [3]float64
	Mass    float64
	Pos     [3]float64 // centre relative to the torso centre in the zero pose (m)
	Surface Surface    // NoCollider: mass only
	FRP     int        // -1, or the force resistance perceptor it feeds (0 right, 1 left)
	LinDrag float64    // N·s/m
	AngDrag float64    // N·m·s/rad
}

// Joint is a motorised hinge: Child is ODE's body1, Parent body2.
type Joint struct {
	Name          string
	Child, Parent int
	Anchor        [3]float64 // relative to the torso centre in the zero pose (m)
	Axis          [3]float64
	Lo, Hi        float64 // stops (rad); Lo > Hi: ODE applies none
	FMax          float64 // motor torque limit (N·m)
	CFM, StopCFM  float64
	StopERP       float64
	Fudge, Bounce float64
	MaxSpeed      float64 // |dParamVel| clamp (rad/s)
}

// Model is a robot: bodies, hinges, and which bodies are the torso (gyro,
// accelerometer) and the head (camera).
type Model struct {
	Bodies      []Body
	Joints      []Joint
	Torso, Head int
}

// Limits of the C side's fixed arrays.
const (
	MaxBodies = 32
	MaxJoints = 32
)

func (m *Model) validate() error {
	if len(m.Bodies) == 0 || len(m.Bodies) > MaxBodies {
		return fmt.Errorf("ode: model has %d bodies, want 1..%d", len(m.Bodies), MaxBodies)
	}
	if len(m.Joints) > MaxJoints {
		return fmt.Errorf("ode: model has %d joints, want at most %d", len(m.Joints), MaxJoints)
	}
	in := func(i int) bool { return i >= 0 && i < len(m.Bodies) }
	if !in(m.Torso) || !in(m.Head) {
		return fmt.Errorf("ode: torso %d or head %d is not a body", m.Torso, m.Head)
	}
	for i, b := range m.Bodies {
		if !(b.Mass > 0) || b.Size[0] <= 0 {
			return fmt.Errorf("ode: body %d (%s) has mass %v, size %v", i, b.Name, b.Mass, b.Size)
		}
		if b.FRP < -1 || b.FRP > 1 {
			return fmt.Errorf("ode: body %d (%s) feeds FRP %d, want -1, 0 or 1", i, b.Name, b.FRP)
		}
	}
	for i, j := range m.Joints {
		if !in(j.Child) || !in(j.Parent) || j.Child == j.Parent {
			return fmt.Errorf("ode: joint %d (%s) joins %d and %d", i, j.Name, j.Child, j.Parent)
		}
	}
	return nil
}

// State is a robot's senses and pose after a step (a view into the scene's
// output; valid until the next Step).
type State struct {
	out    []float64
	nj, nb int
}

// Output layout of one robot (doubles), as scene.h's PS_OUT_*.
const (
	outGyr      = 0
	outAcc      = 3
	outFRP      = 6
	outTorsoR   = 20
	outHeadR    = 29
	outLinVel   = 38
	outAngVel   = 41
	outContacts = 44
	outEnabled  = 45
	outAngles   = 46
)

func stride(nj, nb int) int { return outAngles + nj + 3*nb }

// Gyro is the torso's angular velocity in the torso frame (deg/s), as
// SimSpark's GyroRatePerceptor.
func (s State) Gyro() [3]float64 { return [3]float64(s.out[outGyr : outGyr+3]) }

// Acc is the accelerometer (m/s², torso frame, the specific force):
// (v(t) − v(t−dt))/dt − g from the last two post-step velocities, computed
// before the step as SimSpark's Accelerometer.
func (s State) Acc() [3]float64 { return [3]float64(s.out[outAcc : outAcc+3]) }

// FRP is foot k's force resistance perceptor (0 right, 1 left): whether it
// touched anything, the force-weighted centre of its contacts and the total
// contact force on it, both in the foot's frame.
func (s State) FRP(k int) (touch bool, c, f [3]float64) {
	o := s.out[outFRP+7*k:]
	return o[0] != 0, [3]float64(o[1:4]), [3]float64(o[4:7])
}

// TorsoRot is the torso's rotation, row-major.
func (s State) TorsoRot() [9]float64 { return [9]float64(s.out[outTorsoR : outTorsoR+9]) }

// HeadRot is the head body's rotation, row-major.
func (s State) HeadRot() [9]float64 { return [9]float64(s.out[outHeadR : outHeadR+9]) }

// LinVel is the torso's linear velocity (world, m/s).
func (s State) LinVel() [3]float64 { return [3]float64(s.out[outLinVel : outLinVel+3]) }

// AngVel is the torso's angular velocity (world, rad/s).
func (s State) AngVel() [3]float64 { return [3]float64(s.out[outAngVel : outAngVel+3]) }

// Contacts is the number of contact points the robot had in the step.
func (s State) Contacts() int { return int(s.out[outContacts]) }

// Enabled says whether the torso was awake (not auto-disabled).
func (s State) Enabled() bool { return s.out[outEnabled] != 0 }

// Angle is hinge j's angle (rad): the child relative to the parent.
func (s State) Angle(j int) float64 { return s.out[outAngles+j] }

// Pos is body i's centre (world, m).
func (s State) Pos(i int) [3]float64 {
	o := outAngles + s.nj + 3*i
	return [3]float64(s.out[o : o+3])
}

// UprightRot is the rotation of a robot standing upright with its forward
// axis (+y of the build frame) at heading h (rad, counter-clockwise from
// the world's +x), row-major.
func UprightRot(h float64) [9]float64 {
	// rotZ(h − π/2)
	s, c := math.Sincos(h - math.Pi/2)
	return [9]float64{c, -s, 0, s, c, 0, 0, 0, 1}
}
