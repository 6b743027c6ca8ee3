package simserver

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/proto/simspark"
)

// The NAO model of rsg/agent/nao/nao.rsg (type 0, no toes) as the embedded
// simulator sees it: 22 hinge joints in the order the fork reports them,
// with their limits in the simulator's sign convention, and the model's
// parts for the kinematics, all from the body table (package body).

// numJoints is the number of hinge joints of the type-0 NAO.
const numJoints = 22

// Joint indices in the order of the fork's HJ perceptors: head, right arm,
// left arm, right leg, left leg.
const (
	jHeadYaw = iota
	jHeadPitch
	jRArm // raj1..raj4
	_
	_
	_
	jLArm // laj1..laj4
	_
	_
	_
	jRLeg // rlj1..rlj6
	_
	_
	_
	_
	_
	jLLeg // llj1..llj6
	_
	_
	_
	_
	_
)

// MaxJointSpeed is the motor velocity clamp of every joint: 351.77 deg/s.
const MaxJointSpeed = math.Pi * 351.77 / 180

type jointSpec struct {
	id       simspark.JointID
	min, max float64 // radians; limited only if min < max
	rest     float64 // angle at creation
}

func (j *jointSpec) limited() bool { return j.min < j.max }

// jointIDs is the order of the fork's HJ perceptors.
var jointIDs = [numJoints]simspark.JointID{
	simspark.HJ1, simspark.HJ2,
	simspark.RAJ1, simspark.RAJ2, simspark.RAJ3, simspark.RAJ4,
	simspark.LAJ1, simspark.LAJ2, simspark.LAJ3, simspark.LAJ4,
	simspark.RLJ1, simspark.RLJ2, simspark.RLJ3, simspark.RLJ4, simspark.RLJ5, simspark.RLJ6,
	simspark.LLJ1, simspark.LLJ2, simspark.LLJ3, simspark.LLJ4, simspark.LLJ5, simspark.LLJ6,
}

// naoPart is one of the model's rigid parts in the simulator's build frame
// (x right, y forward, z up; torso centre at the origin, zero pose): its
// centre and mass, and the hinge that joins it to its parent part.
type naoPart struct {
	centre geom.Vec3
	mass   float64
	parent int // part index; -1 for the torso
	joint  int // index into joints of the hinge to the parent
	anchor geom.Vec3
	axis   geom.Vec3
}

// naoModel is the type-0 model from the body table.
type naoModel struct {
	parts     []naoPart // parents before children
	head      int
	lowerArm  [2]int // right, left
	foot      [2]int
	shank     [2]int
	ankle     [2]int
	knee      [2]geom.Vec3 // knee and ankle pitch pivots at the zero pose
	anklePvt  [2]geom.Vec3
	soleBelow float64   // the sole below the foot's centre
	neck      geom.Vec3 // the HeadPitch hinge's anchor (on the HeadYaw axis)
	totalMass float64
}

// build turns a NAO-frame vector into the build frame: (-y, x, z).
func build(v hal.Vec3) geom.Vec3 { return geom.Vec3{X: -v.Y, Y: v.X, Z: v.Z} }

var (
	joints [numJoints]jointSpec
	model  naoModel
	// The sole's half width and length.
	soleHalfW, soleHalfL float64
	totalMass            float64
)

func init() {
	m := body.SimSpark()
	for i, id := range jointIDs {
		h, ok := m.HingeByEffector(id.EffectorName())
		if !ok {
			panic("simserver: the body table has no hinge " + id.EffectorName())
		}
		joints[i] = jointSpec{id: id, min: float64(h.Lo), max: float64(h.Hi)}
		// The elbows are created at their stop nearest to straight.
		if id == simspark.RAJ4 || id == simspark.LAJ4 {
			joints[i].rest = float64(h.Lo)
			if h.Lo < 0 {
				joints[i].rest = float64(h.Hi)
			}
		}
	}
	idx := func(id simspark.JointID) int {
		for i := range jointIDs {
			if jointIDs[i] == id {
				return i
			}
		}
		return -1
	}
	model.parts = make([]naoPart, len(m.Parts))
	for i, p := range m.Parts {
		model.parts[i] = naoPart{centre: build(p.Pos), mass: p.Mass, parent: -1}
		model.totalMass += p.Mass
	}
	for _, h := range m.Hinges {
		id, _ := simspark.JointByEffectorName([]byte(h.Effector))
		p := &model.parts[h.Child]
		p.parent, p.joint, p.anchor, p.axis = h.Parent, idx(id), build(h.Anchor), build(h.Axis)
		if id == simspark.HJ2 {
			model.neck = p.anchor
		}
		for s, side := range []byte{'r', 'l'} {
			switch h.Effector {
			case string(side) + "le4":
				model.knee[s] = p.anchor
			case string(side) + "le5":
				model.anklePvt[s] = p.anchor
			}
		}
	}
	for i := range model.parts {
		if p := &model.parts[i]; p.parent >= i {
			panic("simserver: the body table lists a part before its parent")
		}
	}
	model.head = m.PartIndex("head")
	for s, side := range []string{"r", "l"} {
		model.lowerArm[s] = m.PartIndex(side + "lowerarm")
		model.foot[s] = m.PartIndex(side + "foot")
		model.shank[s] = m.PartIndex(side + "shank")
		model.ankle[s] = m.PartIndex(side + "ankle")
	}
	foot := m.Parts[model.foot[0]]
	model.soleBelow = foot.Size.Z / 2
	soleHalfW, soleHalfL = foot.Size.Y/2, foot.Size.X/2
	totalMass = model.totalMass
}

// gravity is the scene's gravity (m/s²).
const gravity = 9.81

// kinematics is the body's shape for one set of joint angles, relative to
// the torso. Index 0 is right, 1 left.
type kinematics struct {
	head     geom.Mat3 // camera orientation
	cam      geom.Vec3 // camera (head centre)
	lowerArm [2]geom.Vec3
	footR    [2]geom.Mat3 // sole orientation
	sole     [2]geom.Vec3 // sole centre, on the ground plane of the foot
	footObj  [2]geom.Vec3 // the foot's centre, the seen "rfoot"/"lfoot"
	knee     [2]geom.Vec3
	ankle    [2]geom.Vec3
	com      geom.Vec3
}

// compute fills k from the joint angles q (radians): each part's pose is
// its parent's turned about their hinge.
func (k *kinematics) compute(q *[numJoints]float64) {
	var rs [32]geom.Mat3
	var ts [32]geom.Vec3
	var com geom.Vec3
	for i := range model.parts {
		p := &model.parts[i]
		if p.parent < 0 {
			rs[i], ts[i] = geom.Identity, geom.Vec3{}
		} else {
			rh := geom.RotAxis(p.axis, q[p.joint])
			rp := &rs[p.parent]
			rs[i] = rp.Mul(rh)
			ts[i] = ts[p.parent].Add(rp.Apply(p.anchor.Sub(rh.Apply(p.anchor))))
		}
		com = com.Add(rs[i].Apply(p.centre).Add(ts[i]).Scale(p.mass))
	}
	at := func(part int, v geom.Vec3) geom.Vec3 { return rs[part].Apply(v).Add(ts[part]) }
	k.head = rs[model.head]
	k.cam = at(model.head, model.parts[model.head].centre)
	for s := range 2 {
		k.lowerArm[s] = at(model.lowerArm[s], model.parts[model.lowerArm[s]].centre)
		f := model.foot[s]
		k.footR[s] = rs[f]
		k.footObj[s] = at(f, model.parts[f].centre)
		k.sole[s] = at(f, model.parts[f].centre.Sub(geom.Vec3{X: 0, Y: 0, Z: model.soleBelow}))
		k.knee[s] = at(model.shank[s], model.knee[s])
		k.ankle[s] = at(model.ankle[s], model.anklePvt[s])
	}
	k.com = com.Scale(1 / model.totalMass)
}

// jointOf maps the codec's joint IDs to our indices (-1: not in this model).
var jointOf = func() (m [simspark.NumJoints]int8) {
	for i := range m {
		m[i] = -1
	}
	for i, id := range jointIDs {
		m[id] = int8(i)
	}
	return m
}()
