package body

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// The SimSpark NAO model, type 0, of the UNSW SPL fork of rcssserver3d
// (github.com/UNSWComputing/SimSpark at b1464ef2; files
// rcssserver3d/data/rsg/agent/nao/nao_hetero.rsg, naoleg.rsg, naoarm.rsg,
// naoneckhead.rsg, hingejoint.rsg and rcssserver3d/naorobottypes.rb).
// docs/simspark-nao-model.md §1–2 has every figure with its source file.
//
// The tables below are written as the model files write them, in the
// model's build frame (x to the robot's right, y forward, z up, origin at
// the torso centre, every body unrotated at the zero pose) for the right
// side; the left side mirrors x. SimSpark converts them into the NAO frame.

// simMaxSpeed is every type-0 joint's velocity clamp: 351.77°/s.
const simMaxSpeed = math.Pi * 351.77 / 180

// simMaxForce is every hinge's motor torque limit (dParamFMax), N·m.
const simMaxForce = 10

type simPart struct {
	name  string
	shape Shape
	size  [3]float64 // build-frame extents; sphere: radius; capsule: radius, -, length
	mass  float64
	pos   [3]float64 // right side (or centre line), build frame
	side  bool       // one per side
	coll  bool
	foot  bool
}

var simParts = []simPart{
	{"torso", Box, [3]float64{0.10, 0.10, 0.18}, 1.2171, [3]float64{0, 0, 0}, false, true, false},
	{"neck", Capsule, [3]float64{0.015, 0, 0.08}, 0.050, [3]float64{0, 0, 0.090}, false, true, false},
	{"head", Sphere, [3]float64{0.065, 0, 0}, 0.350, [3]float64{0, 0, 0.155}, false, true, false},
	{"shoulder", Sphere, [3]float64{0.01, 0, 0}, 0.070, [3]float64{0.098, 0, 0.075}, true, false, false},
	{"upperarm", Box, [3]float64{0.07, 0.08, 0.06}, 0.150, [3]float64{0.108, 0.020, 0.075}, true, true, false},
	{"elbow", Sphere, [3]float64{0.01, 0, 0}, 0.035, [3]float64{0.098, 0.090, 0.084}, true, false, false},
	{"lowerarm", Box, [3]float64{0.05, 0.11, 0.05}, 0.200, [3]float64{0.098, 0.140, 0.084}, true, true, false},
	{"hip1", Sphere, [3]float64{0.01, 0, 0}, 0.090, [3]float64{0.055, -0.010, -0.115}, true, false, false},
	{"hip2", Sphere, [3]float64{0.01, 0, 0}, 0.125, [3]float64{0.055, -0.010, -0.115}, true, false, false},
	{"thigh", Box, [3]float64{0.07, 0.07, 0.14}, 0.275, [3]float64{0.055, 0.000, -0.155}, true, true, false},
	{"shank", Box, [3]float64{0.08, 0.07, 0.11}, 0.225, [3]float64{0.055, 0.005, -0.280}, true, true, false},
	{"ankle", Sphere, [3]float64{0.01, 0, 0}, 0.125, [3]float64{0.055, -0.005, -0.335}, true, false, false},
	{"foot", Box, [3]float64{0.08, 0.16, 0.02}, 0.200, [3]float64{0.055, 0.025, -0.375}, true, true, true},
}

type simHinge struct {
	eff, per      string // right side's names; the left's start with "l"
	child, parent string
	anchor        [3]float64 // right side, build frame
	axisR, axisL  [3]float64
	limR, limL    [2]float64   // degrees, lo and hi as written
	joint         [2]hal.Joint // right, left (the head's are the same)
	sign          float64      // model angle → HAL angle
}

var simHinges = []simHinge{
	{"he1", "hj1", "neck", "torso", [3]float64{0, 0, 0.090}, [3]float64{0, 0, 1}, [3]float64{0, 0, 1}, [2]float64{-119.5, 119.5}, [2]float64{-119.5, 119.5}, [2]hal.Joint{hal.HeadYaw, hal.HeadYaw}, 1},
	{"he2", "hj2", "head", "neck", [3]float64{0, 0, 0.150}, [3]float64{1, 0, 0}, [3]float64{1, 0, 0}, [2]float64{29.5, -38.5}, [2]float64{29.5, -38.5}, [2]hal.Joint{hal.HeadPitch, hal.HeadPitch}, -1},
	{"rae1", "raj1", "shoulder", "torso", [3]float64{0.098, 0, 0.075}, [3]float64{1, 0, 0}, [3]float64{1, 0, 0}, [2]float64{-119.5, 119.5}, [2]float64{-119.5, 119.5}, [2]hal.Joint{hal.RShoulderPitch, hal.LShoulderPitch}, -1},
	{"rae2", "raj2", "upperarm", "shoulder", [3]float64{0.098, 0, 0.075}, [3]float64{0, 0, 1}, [3]float64{0, 0, 1}, [2]float64{-76, 18}, [2]float64{-18, 76}, [2]hal.Joint{hal.RShoulderRoll, hal.LShoulderRoll}, 1},
	{"rae3", "raj3", "elbow", "upperarm", [3]float64{0.098, 0.090, 0.084}, [3]float64{0, 1, 0}, [3]float64{0, 1, 0}, [2]float64{-119.5, 119.5}, [2]float64{-119.5, 119.5}, [2]hal.Joint{hal.RElbowYaw, hal.LElbowYaw}, 1},
	{"rae4", "raj4", "lowerarm", "elbow", [3]float64{0.098, 0.090, 0.084}, [3]float64{0, 0, 1}, [3]float64{0, 0, 1}, [2]float64{2, 88.5}, [2]float64{-88.5, -2}, [2]hal.Joint{hal.RElbowRoll, hal.LElbowRoll}, 1},
	{"rle1", "rlj1", "hip1", "torso", [3]float64{0.055, -0.010, -0.115}, [3]float64{-0.7071, 0, 0.7071}, [3]float64{-0.7071, 0, -0.7071}, [2]float64{-65.62, 42.44}, [2]float64{-65.62, 42.44}, [2]hal.Joint{hal.LHipYawPitch, hal.LHipYawPitch}, 1},
	{"rle2", "rlj2", "hip2", "hip1", [3]float64{0.055, -0.010, -0.115}, [3]float64{0, 1, 0}, [3]float64{0, 1, 0}, [2]float64{-45.29, 21.74}, [2]float64{-21.74, 45.29}, [2]hal.Joint{hal.RHipRoll, hal.LHipRoll}, 1},
	{"rle3", "rlj3", "thigh", "hip2", [3]float64{0.055, -0.010, -0.115}, [3]float64{1, 0, 0}, [3]float64{1, 0, 0}, [2]float64{-27.73, 88}, [2]float64{-27.73, 88}, [2]hal.Joint{hal.RHipPitch, hal.LHipPitch}, -1},
	{"rle4", "rlj4", "shank", "thigh", [3]float64{0.055, -0.005, -0.235}, [3]float64{1, 0, 0}, [3]float64{1, 0, 0}, [2]float64{-121.04, 5.29}, [2]float64{-121.04, 5.29}, [2]hal.Joint{hal.RKneePitch, hal.LKneePitch}, -1},
	{"rle5", "rlj5", "ankle", "shank", [3]float64{0.055, -0.005, -0.335}, [3]float64{1, 0, 0}, [3]float64{1, 0, 0}, [2]float64{-52.86, 68.15}, [2]float64{-52.86, 68.15}, [2]hal.Joint{hal.RAnklePitch, hal.LAnklePitch}, -1},
	{"rle6", "rlj6", "foot", "ankle", [3]float64{0.055, -0.005, -0.340}, [3]float64{0, 1, 0}, [3]float64{0, 1, 0}, [2]float64{-22.79, 44.06}, [2]float64{-44.06, 22.79}, [2]hal.Joint{hal.RAnkleRoll, hal.LAnkleRoll}, 1},
}

// nao turns a build-frame vector into the NAO frame: (y, -x, z), a proper
// rotation, so hinge senses are kept.
func nao(v [3]float64) hal.Vec3 { return hal.Vec3{X: v[1], Y: -v[0], Z: v[2]} }

func mirror(v [3]float64) [3]float64 { return [3]float64{-v[0], v[1], v[2]} }

// SimSpark returns the SimSpark NAO model's table. Its leg geometry and
// mass model are derived from the parts and hinges, so the physical
// description is the only copy of the numbers.
func SimSpark() Model {
	m := Model{Kind: SimSparkNAO}
	for _, p := range simParts {
		sides := []string{""}
		if p.side {
			sides = []string{"r", "l"}
		}
		for _, s := range sides {
			pos := p.pos
			if s == "l" {
				pos = mirror(pos)
			}
			size := hal.Vec3{X: p.size[0], Y: p.size[1], Z: p.size[2]}
			if p.shape == Box {
				size = hal.Vec3{X: p.size[1], Y: p.size[0], Z: p.size[2]}
			}
			m.Parts = append(m.Parts, Part{Name: s + p.name, Shape: p.shape, Size: size, Mass: p.mass, Pos: nao(pos), Collides: p.coll, Foot: p.foot})
		}
	}
	const d2r = math.Pi / 180
	for _, h := range simHinges {
		sides := []string{"r", "l"}
		if h.eff[0] == 'h' {
			sides = []string{""}
		}
		for i, s := range sides {
			anchor, axis, lim := h.anchor, h.axisR, h.limR
			eff, per := h.eff, h.per
			if s == "l" {
				anchor, axis, lim = mirror(anchor), h.axisL, h.limL
				eff, per = "l"+eff[1:], "l"+per[1:]
			}
			child, parent := s+h.child, s+h.parent
			if h.parent == "torso" {
				parent = "torso"
			}
			if h.eff[0] == 'h' {
				child, parent = h.child, h.parent
			}
			m.Hinges = append(m.Hinges, Hinge{
				Effector: eff, Perceptor: per,
				Child: m.PartIndex(child), Parent: m.PartIndex(parent),
				Anchor: nao(anchor), Axis: nao(axis),
				Lo: hal.Radians(lim[0] * d2r), Hi: hal.Radians(lim[1] * d2r),
				MaxSpeed: simMaxSpeed, MaxForce: simMaxForce,
				Joint: h.joint[i], Sign: h.sign, HasJoint: true,
				Mirror: eff == "rle1",
			})
		}
	}
	for j := range m.Joints {
		m.Joints[j] = Joint{Present: false, Min: hal.Joints[j].Min, Max: hal.Joints[j].Max}
	}
	for _, h := range m.Hinges {
		if !h.HasJoint || h.Mirror {
			continue
		}
		a, b := hal.Radians(h.Sign)*h.Lo, hal.Radians(h.Sign)*h.Hi
		m.Joints[h.Joint] = Joint{Present: true, Min: min(a, b), Max: max(a, b), Enforced: h.Lo < h.Hi, MaxSpeed: h.MaxSpeed}
	}
	m.Leg, m.Mass = simLegAndMass(&m)
	return m
}

// simLegAndMass derives the leg geometry and the lumped mass model from the
// left leg's and arm's parts and hinges. The model's knee and ankle sit
// 5 mm ahead of its hip joints and its ankle roll axis 5 mm below the ankle
// pitch axis; the leg kinematics, which have one point per joint group,
// put the hips on the line through knee and ankle (HipOffsetX −0.005, not
// −0.010) and the ankle at the pitch axis.
func simLegAndMass(m *Model) (Leg, MassModel) {
	anchor := func(eff string) hal.Vec3 { h, _ := m.HingeByEffector(eff); return h.Anchor }
	part := func(name string) Part { return m.Parts[m.PartIndex(name)] }
	hip, knee, ankle := anchor("lle1"), anchor("lle4"), anchor("lle5")
	foot := part("lfoot")
	sole := foot.Pos.Z - foot.Size.Z/2
	leg := Leg{
		HipOffsetX: knee.X, HipOffsetY: hip.Y, HipOffsetZ: hip.Z,
		Thigh: hip.Z - knee.Z, Tibia: knee.Z - ankle.Z, FootHeight: ankle.Z - sole,
		SoleForward: foot.Pos.X - ankle.X, SoleLength: foot.Size.X, SoleWidth: foot.Size.Y,
	}
	hipFrame := hal.Vec3{X: leg.HipOffsetX, Y: hip.Y, Z: hip.Z}
	sub := func(a, b hal.Vec3) hal.Vec3 { return hal.Vec3{X: a.X - b.X, Y: a.Y - b.Y, Z: a.Z - b.Z} }
	seg := func(origin hal.Vec3, names ...string) Segment {
		var s Segment
		var w hal.Vec3
		for _, n := range names {
			p := part(n)
			s.Mass += p.Mass
			d := sub(p.Pos, origin)
			w = hal.Vec3{X: w.X + p.Mass*d.X, Y: w.Y + p.Mass*d.Y, Z: w.Z + p.Mass*d.Z}
		}
		s.CoM = hal.Vec3{X: w.X / s.Mass, Y: w.Y / s.Mass, Z: w.Z / s.Mass}
		return s
	}
	shoulder := anchor("lae1")
	arm := seg(shoulder, "lshoulder", "lupperarm", "lelbow", "llowerarm")
	// The arm is one point along the arm (forward at the zero pose).
	arm.CoM = hal.Vec3{X: arm.CoM.X}
	thigh := seg(hipFrame, "lthigh")
	tibia := seg(hal.Vec3{X: knee.X, Y: knee.Y, Z: knee.Z}, "lshank")
	footSeg := seg(ankle, "lfoot")
	for _, s := range []*Segment{&thigh, &tibia, &footSeg} {
		s.CoM.Y = 0
	}
	mm := MassModel{
		Torso:    seg(hal.Vec3{}, "torso"),
		Head:     seg(hal.Vec3{}, "neck", "head"),
		Arm:      arm,
		Shoulder: shoulder,
		Hip:      Segment{Mass: part("lhip1").Mass + part("lhip2").Mass},
		Thigh:    thigh,
		Tibia:    tibia,
		Ankle:    Segment{Mass: part("lankle").Mass},
		Foot:     footSeg,
	}
	return leg, mm
}
