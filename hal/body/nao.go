package body

import "github.com/robotd/robotd/hal"

// naoSpeed is each NAO v6 joint's no-load speed (rad/s): the motor's
// no-load speed over its reduction ratio, after Aldebaran's NAO v6 joint
// documentation (docs.aldebaran.com, "NAO – Joints" and "Motors"). The
// hands are taken as the slowest joints, as they are not used for motion.
var naoSpeed = [hal.NumJoints]hal.RadPerSec{
	hal.HeadYaw: 8.27, hal.HeadPitch: 7.19,
	hal.LShoulderPitch: 8.27, hal.LShoulderRoll: 7.19, hal.LElbowYaw: 8.27, hal.LElbowRoll: 7.19, hal.LWristYaw: 24.6,
	hal.LHipYawPitch: 4.16, hal.LHipRoll: 4.16, hal.LHipPitch: 6.40, hal.LKneePitch: 6.40, hal.LAnklePitch: 6.40, hal.LAnkleRoll: 4.16,
	hal.RHipRoll: 4.16, hal.RHipPitch: 6.40, hal.RKneePitch: 6.40, hal.RAnklePitch: 6.40, hal.RAnkleRoll: 4.16,
	hal.RShoulderPitch: 8.27, hal.RShoulderRoll: 7.19, hal.RElbowYaw: 8.27, hal.RElbowRoll: 7.19, hal.RWristYaw: 24.6,
	hal.LHand: 4.16, hal.RHand: 4.16,
}

// NAO returns the NAO v6's table: link lengths and masses after
// Aldebaran's published NAO v6 figures ("NAO – Links" and "Masses"),
// lumped per segment (the neck is in the head, arm and hand are one point
// mass per arm); joint ranges from hal.Joints.
func NAO() Model {
	m := Model{
		Kind: NAOv6,
		Leg: Leg{
			HipOffsetY: 0.050, HipOffsetZ: -0.085, Thigh: 0.100, Tibia: 0.1029, FootHeight: 0.04519,
			// The sole from the foot bumpers: toe 0.1 m ahead of and heel
			// 0.057 m behind the ankle, 0.09 m wide.
			SoleForward: 0.0215, SoleLength: 0.157, SoleWidth: 0.09,
		},
		Mass: MassModel{
			Torso:    Segment{1.0496, hal.Vec3{X: -0.0041, Z: 0.0434}},
			Head:     Segment{0.6837, hal.Vec3{Z: 0.18}},
			Arm:      Segment{0.5786, hal.Vec3{X: 0.09}},
			Shoulder: hal.Vec3{Y: 0.098, Z: 0.100},
			Hip:      Segment{Mass: 0.2103},
			Thigh:    Segment{0.3897, hal.Vec3{Z: -0.0538}},
			Tibia:    Segment{0.3014, hal.Vec3{Z: -0.0494}},
			Ankle:    Segment{Mass: 0.1342},
			Foot:     Segment{0.1718, hal.Vec3{X: 0.0254, Z: -0.0324}},
		},
	}
	for j := range m.Joints {
		info := &hal.Joints[j]
		m.Joints[j] = Joint{Present: true, Min: info.Min, Max: info.Max, Enforced: true, MaxSpeed: naoSpeed[j]}
	}
	return m
}
