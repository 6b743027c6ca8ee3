package sim

import (
	"math"

	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/proto/simspark"
)

// tilt is the torso's orientation relative to the ground for the HAL's
// body angles: R = Ry(pitch)·Rx(roll), the yaw-free part of a Z-Y-X Euler
// rotation, which is the convention the angle filter estimates.
func tilt(roll, pitch float64) geom.Mat3 {
	ry := geom.RotAxis(geom.Vec3{X: 0, Y: 1, Z: 0}, pitch)
	rx := geom.RotAxis(geom.Vec3{X: 1, Y: 0, Z: 0}, roll)
	return ry.Mul(rx)
}

// hinge is one joint of the model: its pivot and axis in the torso frame
// (NAO axes: x forward, y left, z up) at the zero pose, where every body is
// aligned with the torso. A joint turns its child by the simulator's angle
// about the axis (the model's hinges measure the child relative to the
// parent, so a positive knee angle straightens the leg: the knee's range
// is [-121.04°, 5.29°]).
type hinge struct {
	id    simspark.JointID
	pivot geom.Vec3
	axis  geom.Vec3
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
	cameraZero     geom.Vec3
	// ankleRelHip and soleRelHip are the ankle (pitch pivot) and the sole's
	// centre relative to the hip.
	ankleRelHip, soleRelHip geom.Vec3
)

func init() {
	m := body.SimSpark()
	get := func(eff string) hinge {
		h, ok := m.HingeByEffector(eff)
		id, known := simspark.JointByEffectorName([]byte(eff))
		if !ok || !known {
			panic("backends/sim: the body table has no hinge " + eff)
		}
		return hinge{id, h.Anchor, h.Axis}
	}
	for i, side := range []string{"l", "r"} {
		for k := range 6 {
			legs[i][k] = get(side + "le" + string(rune('1'+k)))
		}
	}
	headYawHinge, headPitchHinge = get("he1"), get("he2")
	cameraZero = m.Parts[m.PartIndex("head")].Pos
	hip := legs[0][0].pivot
	ankleRelHip = legs[0][4].pivot.Sub(hip)
	foot := m.Parts[m.PartIndex("lfoot")]
	soleRelHip = foot.Pos.Sub(geom.Vec3{X: 0, Y: 0, Z: foot.Size.Z / 2}).Sub(hip)
	soleRelHip.Y = 0
}

// apply moves point p (zero-pose coordinates of a body distal to joints
// chain[:n]) by those joints' angles, distal joint first.
func apply(chain []hinge, angles *[simspark.NumJoints]float64, p geom.Vec3) geom.Vec3 {
	for i := len(chain) - 1; i >= 0; i-- {
		h := &chain[i]
		r := geom.RotAxis(h.axis, angles[h.id])
		p = h.pivot.Add(r.Apply(p.Sub(h.pivot)))
	}
	return p
}

// camera computes the camera pose from the simulator's joint angles (rad,
// simulator signs) and the torso's roll and pitch relative to the ground.
// The lower of the two soles is taken to be on the ground. The pose is in
// the robot frame (the origin on the ground below the midpoint of the two
// ankles, x along the torso's heading, z up): P is the camera's position
// (m; P[2] its height), R turns camera-frame directions (x forward, y
// left, z up, as the server measures its angles) into robot-frame ones.
func camera(angles *[simspark.NumJoints]float64, roll, pitch float64) geom.Pose3 {
	rt := tilt(roll, pitch)
	var ankles geom.Vec3
	ground := math.Inf(1)
	for i := range legs {
		l := legs[i][:]
		hip := l[0].pivot
		ankles = ankles.Add(rt.Apply(apply(l[:4], angles, hip.Add(ankleRelHip))))
		ground = min(ground, rt.Apply(apply(l, angles, hip.Add(soleRelHip))).Z)
	}
	origin := geom.Vec3{X: ankles.X / 2, Y: ankles.Y / 2, Z: ground}
	head := [2]hinge{headYawHinge, headPitchHinge}
	cam := rt.Apply(apply(head[:], angles, cameraZero)).Sub(origin)
	ry := geom.RotAxis(headYawHinge.axis, angles[simspark.HJ1])
	rp := geom.RotAxis(headPitchHinge.axis, angles[simspark.HJ2])
	rh := ry.Mul(rp)
	return geom.Pose3{P: cam, R: rt.Mul(rh)}
}
