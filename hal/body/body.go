// Package body is the table of each robot body robotd drives: the NAO v6
// (on LoLA) and the SimSpark NAO model (type 0, on a SimSpark server or the
// embedded simulator). It holds what motion, the simulators and the
// backends need to know about a body — link lengths, joint limits, joint
// speed limits, masses — once per body. Everything is in the NAO body frame
// (x forward, y left, z up, origin at the torso centre), metres, kilograms
// and radians, with the HAL's joint signs unless a field says otherwise.
//
// A Model is a value: the constructors return a fresh copy each time, so no
// caller can change another's table.
package body

import (
	"fmt"

	"github.com/robotd/robotd/hal"
)

// Kind names a body.
type Kind uint8

// The bodies robotd knows.
const (
	// NAOv6 is the SoftBank/Aldebaran NAO v6.
	NAOv6 Kind = iota
	// SimSparkNAO is the SimSpark NAO model, type 0, as the UNSW SPL fork of
	// rcssserver3d builds it.
	SimSparkNAO
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case NAOv6:
		return "nao-v6"
	case SimSparkNAO:
		return "simspark-nao"
	}
	return "unknown"
}

// Model is one body's table.
type Model struct {
	Kind Kind
	// Leg is the leg geometry the leg kinematics use.
	Leg Leg
	// Mass is the lumped mass model for the centre of mass.
	Mass MassModel
	// Joints are the HAL joints' limits and speeds in this body.
	Joints [hal.NumJoints]Joint
	// Parts and Hinges are the full rigid-body description, for a physics
	// simulator. They are empty for a body robotd only drives (the NAO v6).
	Parts  []Part
	Hinges []Hinge
}

// Leg is one leg's geometry, mirrored for the other leg.
type Leg struct {
	// HipOffsetX is the hips' position along x from the torso centre
	// (negative: behind).
	HipOffsetX float64 `json:"hip_offset_x"`
	// HipOffsetY is the lateral distance of each hip from the torso centre.
	HipOffsetY float64 `json:"hip_offset_y"`
	// HipOffsetZ is the height of the hips relative to the torso centre
	// (negative: below).
	HipOffsetZ float64 `json:"hip_offset_z"`
	// Thigh is the hip-to-knee length.
	Thigh float64 `json:"thigh"`
	// Tibia is the knee-to-ankle length.
	Tibia float64 `json:"tibia"`
	// FootHeight is the height of the ankle joints above the sole.
	FootHeight float64 `json:"foot_height"`
	// SoleForward is how far the sole's centre is ahead of the ankle joints.
	SoleForward float64 `json:"sole_forward"`
	// SoleLength and SoleWidth are the sole's size.
	SoleLength float64 `json:"sole_length"`
	SoleWidth  float64 `json:"sole_width"`
}

// Segment is a lumped mass at a point.
type Segment struct {
	Mass float64
	// CoM is the centre of mass in the frame the MassModel field names.
	CoM hal.Vec3
}

// MassModel lumps the body into segments that ride on the leg kinematics'
// frames. Arms are a point mass along the arm.
type MassModel struct {
	// Torso and Head are in the torso frame (the head is taken as fixed).
	Torso, Head Segment
	// Arm is one arm; its CoM.X is the distance from the shoulder joint
	// along the arm, Shoulder the left shoulder joint in the torso frame.
	Arm      Segment
	Shoulder hal.Vec3
	// Hip is at the hip joints; Thigh in the thigh frame (origin at the hip
	// joints); Tibia in the tibia frame (origin at the knee); Ankle at the
	// ankle joints; Foot in the foot frame (origin at the ankle joints).
	// Positions are the left leg's; the right leg mirrors y.
	Hip, Thigh, Tibia, Ankle, Foot Segment
}

// Total is the whole body's mass.
func (m *MassModel) Total() float64 {
	return m.Torso.Mass + m.Head.Mass + 2*(m.Arm.Mass+m.Hip.Mass+m.Thigh.Mass+m.Tibia.Mass+m.Ankle.Mass+m.Foot.Mass)
}

// Joint is one HAL joint in a body.
type Joint struct {
	// Present is false for a joint the body does not have.
	Present bool
	// Min and Max are the range in HAL signs (radians; for the hands the
	// opening fraction 0..1). Enforced is false where the body has the
	// range on paper but does not stop the joint there.
	Min, Max hal.Radians
	Enforced bool
	// MaxSpeed is the joint's speed limit.
	MaxSpeed hal.RadPerSec
}

// Clamp limits a to the joint's range.
func (j *Joint) Clamp(a hal.Radians) hal.Radians { return max(j.Min, min(j.Max, a)) }

// Shape is a part's collision and inertia shape.
type Shape uint8

// The shapes of the SimSpark model.
const (
	Box Shape = iota
	Sphere
	Capsule
)

// Part is one rigid body.
type Part struct {
	// Name is the model's name, with "r"/"l" prefixed for a side's part
	// ("rthigh"), bare for the torso, neck and head.
	Name  string
	Shape Shape
	// Size is the box's full extents (x, y, z); for a sphere X is the
	// radius; for a capsule X is the radius and Z the cylinder's length
	// (axis z).
	Size hal.Vec3
	Mass float64
	// Pos is the part's centre at the zero pose.
	Pos hal.Vec3
	// Collides is true if the part has a collision geometry; Foot marks the
	// feet, whose contacts the force perceptors sum.
	Collides, Foot bool
}

// Hinge is one hinge joint of a physical model.
type Hinge struct {
	// Effector and Perceptor are the names on the SimSpark wire.
	Effector, Perceptor string
	// Child and Parent index Parts.
	Child, Parent int
	// Anchor and Axis are the hinge's point and axis at the zero pose.
	Anchor, Axis hal.Vec3
	// Lo and Hi are the stops in the model's own angle (about Axis, child
	// relative to parent), as the model writes them: Lo > Hi means the
	// physics engine applies no stop.
	Lo, Hi hal.Radians
	// MaxSpeed clamps the commanded velocity; MaxForce is the motor's
	// torque limit (N·m).
	MaxSpeed hal.RadPerSec
	MaxForce float64
	// Joint is the HAL joint this hinge moves and Sign the factor from the
	// model's angle to the HAL's. HasJoint is false for a hinge without a
	// HAL joint; Mirror marks the right hip yaw-pitch, which follows the
	// left one (the NAO has one motor for both).
	Joint    hal.Joint
	Sign     float64
	HasJoint bool
	Mirror   bool
}

// PartIndex returns the index of the named part, or -1.
func (m *Model) PartIndex(name string) int {
	for i := range m.Parts {
		if m.Parts[i].Name == name {
			return i
		}
	}
	return -1
}

// HingeByEffector returns the hinge with the given effector name.
func (m *Model) HingeByEffector(name string) (Hinge, bool) {
	for _, h := range m.Hinges {
		if h.Effector == name {
			return h, true
		}
	}
	return Hinge{}, false
}

// For returns the model of a kind.
func For(k Kind) Model {
	if k == SimSparkNAO {
		return SimSpark()
	}
	return NAO()
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) {
	if k > SimSparkNAO {
		return nil, fmt.Errorf("body kind %d: unknown", k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	for _, c := range []Kind{NAOv6, SimSparkNAO} {
		if string(b) == c.String() {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("body kind %q: want %q or %q", b, NAOv6.String(), SimSparkNAO.String())
}
