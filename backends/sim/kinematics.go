package sim

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/proto/simspark"
)

// vec3 and mat3 are the small fixed-size algebra the forward kinematics
// needs; they live on the stack and never allocate.
type vec3 [3]float64

type mat3 [3][3]float64

func (a vec3) add(b vec3) vec3      { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec3) sub(b vec3) vec3      { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec3) scale(s float64) vec3 { return vec3{a[0] * s, a[1] * s, a[2] * s} }

func (m *mat3) mul(v vec3) vec3 {
	return vec3{
		m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2],
		m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2],
		m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2],
	}
}

func (m *mat3) mulm(n *mat3) mat3 {
	var r mat3
	for i := range 3 {
		for j := range 3 {
			r[i][j] = m[i][0]*n[0][j] + m[i][1]*n[1][j] + m[i][2]*n[2][j]
		}
	}
	return r
}

// rot is the rotation by angle (rad) about the unit axis u (Rodrigues).
func rot(u vec3, angle float64) mat3 {
	c, s := math.Cos(angle), math.Sin(angle)
	t := 1 - c
	x, y, z := u[0], u[1], u[2]
	return mat3{
		{t*x*x + c, t*x*y - s*z, t*x*z + s*y},
		{t*x*y + s*z, t*y*y + c, t*y*z - s*x},
		{t*x*z - s*y, t*y*z + s*x, t*z*z + c},
	}
}

// tilt is the torso's orientation relative to the ground for the HAL's
// body angles: R = Ry(pitch)·Rx(roll), the yaw-free part of a Z-Y-X Euler
// rotation, which is the convention the angle filter estimates.
func tilt(roll, pitch float64) mat3 {
	ry := rot(vec3{0, 1, 0}, pitch)
	rx := rot(vec3{1, 0, 0}, roll)
	return ry.mulm(&rx)
}

// hinge is one joint of the model: its pivot and axis in the torso frame
// (NAO axes: x forward, y left, z up) at the zero pose, where every body is
// aligned with the torso. A joint turns its child by the simulator's angle
// about the axis (the model's hinges measure the child relative to the
// parent, so a positive knee angle straightens the leg: the knee's range
// is [-121.04°, 5.29°]).
type hinge struct {
	id    simspark.JointID
	pivot vec3
	axis  vec3
}

// The NAO type-0 model's hinges, from the body table (package body): each
// pivot and axis in the NAO frame at the zero pose. Upright on straight
// legs the torso centre is 0.385 m and the camera (the vision perceptor sits
// in the head body, at its centre) 0.54 m above the ground, as mypos reads
// in every recorded trace.
var (
	legs           [2][6]hinge // left, right; hip yaw-pitch first
	headYawHinge   hinge
	headPitchHinge hinge
	cameraZero     vec3
	// ankleRelHip and soleRelHip are the ankle (pitch pivot) and the sole's
	// centre relative to the hip.
	ankleRelHip, soleRelHip vec3
)

func init() {
	m := body.SimSpark()
	v := func(p hal.Vec3) vec3 { return vec3{p.X, p.Y, p.Z} }
	get := func(eff string) hinge {
		h, ok := m.HingeByEffector(eff)
		id, known := simspark.JointByEffectorName([]byte(eff))
		if !ok || !known {
			panic("backends/sim: the body table has no hinge " + eff)
		}
		return hinge{id, v(h.Anchor), v(h.Axis)}
	}
	for i, side := range []string{"l", "r"} {
		for k := range 6 {
			legs[i][k] = get(side + "le" + string(rune('1'+k)))
		}
	}
	headYawHinge, headPitchHinge = get("he1"), get("he2")
	cameraZero = v(m.Parts[m.PartIndex("head")].Pos)
	hip := legs[0][0].pivot
	ankleRelHip = legs[0][4].pivot.sub(hip)
	foot := m.Parts[m.PartIndex("lfoot")]
	soleRelHip = v(foot.Pos).sub(vec3{0, 0, foot.Size.Z / 2}).sub(hip)
	soleRelHip[1] = 0
}

// apply moves point p (zero-pose coordinates of a body distal to joints
// chain[:n]) by those joints' angles, distal joint first.
func apply(chain []hinge, angles *[simspark.NumJoints]float64, p vec3) vec3 {
	for i := len(chain) - 1; i >= 0; i-- {
		h := &chain[i]
		r := rot(h.axis, angles[h.id])
		p = h.pivot.add(r.mul(p.sub(h.pivot)))
	}
	return p
}

// cameraPose is the camera's pose in the robot frame: the origin on the
// ground below the midpoint of the two ankles, x along the torso's heading,
// z up.
type cameraPose struct {
	// Pos is the camera's position (m); Pos[2] is its height.
	Pos vec3
	// Rot turns camera-frame directions (x forward, y left, z up, as the
	// server measures its angles) into robot-frame directions.
	Rot mat3
}

// camera computes the camera pose from the simulator's joint angles (rad,
// simulator signs) and the torso's roll and pitch relative to the ground.
// The lower of the two soles is taken to be on the ground.
func camera(angles *[simspark.NumJoints]float64, roll, pitch float64) cameraPose {
	rt := tilt(roll, pitch)
	var ankles vec3
	ground := math.Inf(1)
	for i := range legs {
		l := legs[i][:]
		hip := l[0].pivot
		ankles = ankles.add(rt.mul(apply(l[:4], angles, hip.add(ankleRelHip))))
		ground = min(ground, rt.mul(apply(l, angles, hip.add(soleRelHip)))[2])
	}
	origin := vec3{ankles[0] / 2, ankles[1] / 2, ground}
	head := [2]hinge{headYawHinge, headPitchHinge}
	cam := rt.mul(apply(head[:], angles, cameraZero)).sub(origin)
	ry := rot(headYawHinge.axis, angles[simspark.HJ1])
	rp := rot(headPitchHinge.axis, angles[simspark.HJ2])
	rh := ry.mulm(&rp)
	return cameraPose{Pos: cam, Rot: rt.mulm(&rh)}
}
