package hal

import "fmt"

// Joint indexes the NAO v6 joints in LoLA order (protocols.md §1.3). The same
// order is used for every per-joint array in this package.
type Joint uint8

// The 25 LoLA joints. There is no RHipYawPitch: on a NAO the two hip yaw-pitch
// joints are one motor, driven through LHipYawPitch.
const (
	HeadYaw Joint = iota
	HeadPitch
	LShoulderPitch
	LShoulderRoll
	LElbowYaw
	LElbowRoll
	LWristYaw
	LHipYawPitch
	LHipRoll
	LHipPitch
	LKneePitch
	LAnklePitch
	LAnkleRoll
	RHipRoll
	RHipPitch
	RKneePitch
	RAnklePitch
	RAnkleRoll
	RShoulderPitch
	RShoulderRoll
	RElbowYaw
	RElbowRoll
	RWristYaw
	LHand
	RHand
	// NumJoints is the number of joints in the LoLA order.
	NumJoints = 25
)

// JointInfo describes one NAO v6 joint.
type JointInfo struct {
	Name string
	// Min and Max are the NAO v6 mechanical limits in radians. For the hands
	// the unit is the opening fraction 0..1.
	Min, Max Radians
	// InSimSpark is false for the joints the SimSpark NAO model does not have
	// (the wrists and the hands).
	InSimSpark bool
}

// Joints is the NAO v6 joint table in LoLA order. Limits are Aldebaran's
// published NAO v6 joint ranges.
var Joints = [NumJoints]JointInfo{
	HeadYaw:        {"HeadYaw", -2.0857, 2.0857, true},
	HeadPitch:      {"HeadPitch", -0.6720, 0.5149, true},
	LShoulderPitch: {"LShoulderPitch", -2.0857, 2.0857, true},
	LShoulderRoll:  {"LShoulderRoll", -0.3142, 1.3265, true},
	LElbowYaw:      {"LElbowYaw", -2.0857, 2.0857, true},
	LElbowRoll:     {"LElbowRoll", -1.5446, -0.0349, true},
	LWristYaw:      {"LWristYaw", -1.8238, 1.8238, false},
	LHipYawPitch:   {"LHipYawPitch", -1.145303, 0.740810, true},
	LHipRoll:       {"LHipRoll", -0.379472, 0.790477, true},
	LHipPitch:      {"LHipPitch", -1.535889, 0.484090, true},
	LKneePitch:     {"LKneePitch", -0.092346, 2.112528, true},
	LAnklePitch:    {"LAnklePitch", -1.189516, 0.922747, true},
	LAnkleRoll:     {"LAnkleRoll", -0.397880, 0.769001, true},
	RHipRoll:       {"RHipRoll", -0.790477, 0.379472, true},
	RHipPitch:      {"RHipPitch", -1.535889, 0.484090, true},
	RKneePitch:     {"RKneePitch", -0.103083, 2.120198, true},
	RAnklePitch:    {"RAnklePitch", -1.186448, 0.932056, true},
	RAnkleRoll:     {"RAnkleRoll", -0.768992, 0.397935, true},
	RShoulderPitch: {"RShoulderPitch", -2.0857, 2.0857, true},
	RShoulderRoll:  {"RShoulderRoll", -1.3265, 0.3142, true},
	RElbowYaw:      {"RElbowYaw", -2.0857, 2.0857, true},
	RElbowRoll:     {"RElbowRoll", 0.0349, 1.5446, true},
	RWristYaw:      {"RWristYaw", -1.8238, 1.8238, false},
	LHand:          {"LHand", 0, 1, false},
	RHand:          {"RHand", 0, 1, false},
}

// String returns the joint's NAO name.
func (j Joint) String() string {
	if int(j) < NumJoints {
		return Joints[j].Name
	}
	return fmt.Sprintf("Joint(%d)", uint8(j))
}

// JointByName returns the joint with the given NAO name.
func JointByName(name string) (Joint, bool) {
	for i := range Joints {
		if Joints[i].Name == name {
			return Joint(i), true
		}
	}
	return 0, false
}

// Clamp limits a to the joint's range.
func (j Joint) Clamp(a Radians) Radians {
	info := &Joints[j]
	return min(max(a, info.Min), info.Max)
}

// JointSet is a set of joints, one bit per Joint.
type JointSet uint32

// AllJoints is the set of all 25 joints.
const AllJoints JointSet = 1<<NumJoints - 1

// SimSparkJoints is the set of joints the SimSpark NAO model has (22 in the
// model, of which RHipYawPitch mirrors LHipYawPitch, so 21 in LoLA order).
var SimSparkJoints = func() JointSet {
	var s JointSet
	for i := range Joints {
		if Joints[i].InSimSpark {
			s |= 1 << i
		}
	}
	return s
}()

// Has reports whether j is in the set.
func (s JointSet) Has(j Joint) bool { return s&(1<<j) != 0 }
