// Package kinematics is the NAO's leg kinematics: forward kinematics of both
// legs, analytic inverse kinematics for a flat foot at a position and yaw,
// and the shared hip yaw-pitch joint of the two legs, plus an approximate
// mass model for the centre of mass.
//
// Frames: the torso frame of the NAO (x forward, y left, z up, origin at the
// torso centre, where the NAO documentation puts it). A foot is placed by its
// sole point: the point FootHeight below the ankle joints, in the foot frame.
// Angles are in radians with NAOqi's signs: pitch joints turn about +y,
// roll joints about +x, and the hip yaw-pitch joint about the 45° axis
// (0, 1, -1)/√2 for the left leg and (0, 1, 1)/√2 for the right, so that
// one value gives mirror-symmetric legs (positive turns the toes inwards
// and the thighs backwards).
//
// The NAO has one motor for both hip yaw-pitch joints, so the two legs cannot
// be solved independently: with the shared joint fixed, each leg has five
// joints left, just enough for a flat foot at a position; the foot's yaw then
// follows. LegsIK chooses the shared value as B-Human and rUNSWift do, from
// the two legs' independent solutions (see LegsIK).
//
// Everything here is allocation-free value arithmetic.
package kinematics

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/hal/geom"
)

// Geometry is a body's leg geometry and lumped mass model, from its body
// table (package body).
type Geometry struct {
	body.Leg
	Mass body.MassModel
}

// For returns the geometry of body m.
func For(m *body.Model) Geometry { return Geometry{Leg: m.Leg, Mass: m.Mass} }

// NAOv6 is the NAO v6's geometry.
func NAOv6() Geometry {
	m := body.NAO()
	return For(&m)
}

// Side is a leg.
type Side uint8

// The legs.
const (
	Left Side = iota
	Right
)

// Sign is +1 for the left leg and -1 for the right.
func (s Side) Sign() float64 {
	if s == Left {
		return 1
	}
	return -1
}

// Other returns the other leg.
func (s Side) Other() Side { return 1 - s }

// String names the side.
func (s Side) String() string {
	if s == Left {
		return "left"
	}
	return "right"
}

// The indexes of LegAngles.
const (
	HipYawPitch = iota
	HipRoll
	HipPitch
	KneePitch
	AnklePitch
	AnkleRoll
)

// LegAngles is one leg's six joint angles in radians, indexed by
// HipYawPitch … AnkleRoll.
type LegAngles [6]float64

// legJoints maps LegAngles to hal joints; the right leg's hip yaw-pitch is
// the left one's (the NAO has one motor).
var legJoints = [2][6]hal.Joint{
	{hal.LHipYawPitch, hal.LHipRoll, hal.LHipPitch, hal.LKneePitch, hal.LAnklePitch, hal.LAnkleRoll},
	{hal.LHipYawPitch, hal.RHipRoll, hal.RHipPitch, hal.RKneePitch, hal.RAnklePitch, hal.RAnkleRoll},
}

// Joint returns the hal joint of a leg's joint index i.
func Joint(s Side, i int) hal.Joint { return legJoints[s][i] }

// Legs is both legs' angles. The two HipYawPitch entries are equal for a
// pose the NAO can take.
type Legs [2]LegAngles

// Put writes the legs into a joint array (the left leg's hip yaw-pitch is
// the one written).
func (l *Legs) Put(a *[hal.NumJoints]hal.Radians) {
	for i := 5; i >= 0; i-- {
		a[legJoints[Right][i]] = hal.Radians(l[Right][i])
	}
	for i := range 6 {
		a[legJoints[Left][i]] = hal.Radians(l[Left][i])
	}
}

// LegsFrom reads both legs from a joint array (both legs get LHipYawPitch).
func LegsFrom(a *[hal.NumJoints]hal.Radians) Legs {
	var l Legs
	for s := range 2 {
		for i := range 6 {
			l[s][i] = float64(a[legJoints[s][i]])
		}
	}
	return l
}

// FootPose is a flat foot's pose: the sole point's position relative to the
// torso frame in metres and the foot's yaw in radians.
type FootPose struct {
	X, Y, Z, Yaw float64
}

// hipYawPitchRot is the rotation of a leg's hip yaw-pitch joint by h.
func hipYawPitchRot(s Side, h float64) geom.Mat3 {
	q := math.Pi / 4 * s.Sign()
	return geom.RotX(q).Mul(geom.RotZ(-h * s.Sign())).Mul(geom.RotX(-q))
}

func (g *Geometry) hip(s Side) geom.Vec3 {
	return geom.Vec3{X: g.HipOffsetX, Y: s.Sign() * g.HipOffsetY, Z: g.HipOffsetZ}
}

// LegFrames are the frames of one leg's links in the torso frame.
type LegFrames struct {
	// Thigh is at the hip joints, rotated with the thigh.
	Thigh geom.Pose3
	// Tibia is at the knee, rotated with the tibia.
	Tibia geom.Pose3
	// Foot is at the ankle joints, rotated with the foot.
	Foot geom.Pose3
	// Sole is Foot moved down to the sole point.
	Sole geom.Pose3
}

// Frames computes a leg's link frames for the joint angles a.
func (g *Geometry) Frames(s Side, a *LegAngles) LegFrames {
	var f LegFrames
	f.Thigh.R = hipYawPitchRot(s, a[HipYawPitch]).Mul(geom.RotX(a[HipRoll])).Mul(geom.RotY(a[HipPitch]))
	f.Thigh.P = g.hip(s)
	f.Tibia.R = f.Thigh.R.Mul(geom.RotY(a[KneePitch]))
	f.Tibia.P = f.Thigh.Apply(geom.Vec3{X: 0, Y: 0, Z: -g.Thigh})
	f.Foot.R = f.Tibia.R.Mul(geom.RotY(a[AnklePitch])).Mul(geom.RotX(a[AnkleRoll]))
	f.Foot.P = f.Tibia.Apply(geom.Vec3{X: 0, Y: 0, Z: -g.Tibia})
	f.Sole.R = f.Foot.R
	f.Sole.P = f.Foot.Apply(geom.Vec3{X: 0, Y: 0, Z: -g.FootHeight})
	return f
}

// FK returns the sole's pose (rotation and sole point) in the torso frame.
func (g *Geometry) FK(s Side, a *LegAngles) geom.Pose3 { return g.Frames(s, a).Sole }

// Flat reads a sole pose as a FootPose; it also returns the sole's tilt
// from the torso's xy plane (0 for a flat foot).
func Flat(p geom.Pose3) (FootPose, float64) {
	return FootPose{X: p.P.X, Y: p.P.Y, Z: p.P.Z, Yaw: p.R.Yaw()}, p.R.Tilt()
}

// MaxReach returns the longest hip-to-ankle distance the IK uses; targets
// farther away are pulled in along the hip-ankle line.
func (g *Geometry) MaxReach() float64 { return (g.Thigh + g.Tibia) * (1 - 1e-9) }

// minReach is the shortest hip-to-ankle distance the IK uses.
func (g *Geometry) minReach() float64 { return math.Abs(g.Thigh-g.Tibia) + 1e-6 }

// reach clamps the length of v (hip to ankle) into the reachable range and
// reports whether it had to.
func (g *Geometry) reach(v geom.Vec3) (geom.Vec3, float64, bool) {
	l := v.Norm()
	lmax, lmin := g.MaxReach(), g.minReach()
	switch {
	case !(l > 1e-9):
		// On the hip or NaN: straight down, as short as allowed.
		return geom.Vec3{X: 0, Y: 0, Z: -lmin}, lmin, false
	case l > lmax:
		return v.Scale(lmax / l), lmax, false
	case l < lmin:
		return v.Scale(lmin / l), lmin, false
	}
	return v, l, true
}

// knee returns the knee angle for a hip-to-ankle distance l.
func (g *Geometry) knee(l float64) float64 {
	c := (l*l - g.Thigh*g.Thigh - g.Tibia*g.Tibia) / (2 * g.Thigh * g.Tibia)
	return math.Acos(clamp1(c))
}

// LegIK solves one leg for a flat foot at p with its own hip yaw-pitch: the
// exact six-joint solution, as if the leg had its own motor. ok is false
// when p is out of reach (or not finite); the foot is then placed as close
// as the leg allows, on the line from the hip towards p.
func (g *Geometry) LegIK(s Side, p FootPose) (a LegAngles, ok bool) {
	ok = finite(p.X, p.Y, p.Z, p.Yaw)
	if !ok {
		p = FootPose{Z: g.HipOffsetZ - g.Thigh - g.Tibia - g.FootHeight}
	}
	r := geom.RotZ(p.Yaw)
	ankle := geom.Vec3{X: p.X, Y: p.Y, Z: p.Z + g.FootHeight}
	hip := g.hip(s)
	// The hip as seen from the ankle, in the foot frame.
	v, l, in := g.reach(r.T().Apply(hip.Sub(ankle)))
	ok = ok && in
	a[AnkleRoll] = math.Atan2(v.Y, v.Z)
	a[KneePitch] = g.knee(l)
	sk, ck := math.Sincos(a[KneePitch])
	alphaS := math.Atan2(-g.Thigh*sk, g.Tibia+g.Thigh*ck)
	alphaF := math.Atan2(v.X, math.Hypot(v.Y, v.Z))
	a[AnklePitch] = alphaS - alphaF
	// The thigh's rotation, then split into yaw-pitch, roll and pitch.
	thigh := r.Mul(geom.RotX(-a[AnkleRoll])).Mul(geom.RotY(-(a[KneePitch] + a[AnklePitch])))
	q := math.Pi / 4 * s.Sign()
	m := geom.RotX(-q).Mul(thigh) // = Rz(-h·sign)·Rx(roll - q)·Ry(pitch)
	alpha := math.Atan2(-m[1], m[4])
	beta := math.Atan2(m[7], math.Hypot(m[6], m[8]))
	a[HipPitch] = math.Atan2(-m[6], m[8])
	a[HipYawPitch] = -alpha * s.Sign()
	a[HipRoll] = beta + q
	return a, ok
}

// LegIKWithHipYawPitch solves one leg's five other joints for a flat foot at
// p's position, with the hip yaw-pitch joint fixed at h. The foot's yaw is
// not free then: it follows from h and the position, and p.Yaw is ignored.
// ok is false when p is out of reach.
func (g *Geometry) LegIKWithHipYawPitch(s Side, p FootPose, h float64) (a LegAngles, ok bool) {
	a, _, ok = g.legIKFixed(s, p, h)
	return a, ok
}

// legIKFixed is LegIKWithHipYawPitch; it also returns the foot's yaw.
func (g *Geometry) legIKFixed(s Side, p FootPose, h float64) (a LegAngles, yaw float64, ok bool) {
	ok = finite(p.X, p.Y, p.Z, h)
	if !ok {
		p = FootPose{Z: g.HipOffsetZ - g.Thigh - g.Tibia - g.FootHeight}
		if !finite(h) {
			h = 0
		}
	}
	a[HipYawPitch] = h
	ryp := hipYawPitchRot(s, h)
	ankle := geom.Vec3{X: p.X, Y: p.Y, Z: p.Z + g.FootHeight}
	// Hip to ankle in the frame behind the yaw-pitch joint.
	d, l, in := g.reach(ryp.T().Apply(ankle.Sub(g.hip(s))))
	ok = ok && in
	a[HipRoll] = math.Atan2(d.Y, -d.Z)
	a[KneePitch] = g.knee(l)
	sk, ck := math.Sincos(a[KneePitch])
	a[HipPitch] = math.Atan2(-d.X, math.Hypot(d.Y, d.Z)) - math.Atan2(g.Tibia*sk, g.Thigh+g.Tibia*ck)
	// The sole must face the torso's z axis: n is that axis in the frame
	// behind the hip roll.
	r := ryp.Mul(geom.RotX(a[HipRoll]))
	n := geom.Vec3{X: r[6], Y: r[7], Z: r[8]} // = rᵀ·(0, 0, 1)
	a[AnkleRoll] = math.Asin(clamp1(-n.Y))
	sum := math.Atan2(n.X, n.Z) // hip pitch + knee + ankle pitch
	a[AnklePitch] = sum - a[HipPitch] - a[KneePitch]
	// The foot's x axis: r·Ry(sum)·Rx(roll)·x = r·(cos sum, 0, -sin sum).
	ss, cs := math.Sincos(sum)
	fx := r.Apply(geom.Vec3{X: cs, Y: 0, Z: -ss})
	return a, math.Atan2(fx.Y, fx.X), ok
}

// LegsIK solves both legs for flat feet at l and r with one hip yaw-pitch
// value, as the NAO needs.
//
// The shared joint takes one degree of freedom from the legs; the torso's
// yaw against the feet gives it back. LegsIK splits the yaw as rUNSWift and
// B-Human do: the torso is turned to the feet's mean yaw, so that each foot
// gets half of the relative yaw with opposite signs, each leg is solved with
// its own hip yaw-pitch, and the shared value starts at the mean of the two
// (B-Human's ratio 0.5). The two legs agree exactly only for mirror-symmetric
// stances, so a few Newton steps then adjust the shared value and the
// torso's yaw together until both feet are exactly at their targets.
//
// torsoYaw is the torso's yaw in the frame of l and r: the joint angles put
// the feet at l and r turned by -torsoYaw about the torso's z axis. It is
// the feet's mean yaw plus a small correction, and 0 for any pair of poses
// the NAO reaches with the torso unturned, for which FK(LegsIK(p)) = p.
// ok is false when a foot is out of reach; the feet are then as close as
// the legs allow.
func (g *Geometry) LegsIK(l, r FootPose) (legs Legs, torsoYaw float64, ok bool) {
	tau := (l.Yaw + r.Yaw) / 2
	if !finite(tau) {
		tau = 0
	}
	al, okl := g.LegIK(Left, turn(l, -tau))
	ar, okr := g.LegIK(Right, turn(r, -tau))
	ok = okl && okr
	h := (al[HipYawPitch] + ar[HipYawPitch]) / 2
	if !finite(h) {
		h = 0
	}
	// residual solves both legs for (h, tau) into legs and returns each
	// foot's yaw error.
	residual := func(h, tau float64, legs *Legs) (float64, float64) {
		lt, rt := turn(l, -tau), turn(r, -tau)
		var yl, yr float64
		legs[Left], yl, _ = g.legIKFixed(Left, lt, h)
		legs[Right], yr, _ = g.legIKFixed(Right, rt, h)
		return geom.WrapAngle(yl - lt.Yaw), geom.WrapAngle(yr - rt.Yaw)
	}
	const eps, tol = 1e-6, 1e-10
	el, er := residual(h, tau, &legs)
	best := math.Abs(el) + math.Abs(er)
	torsoYaw = tau
	var scratch Legs
	for range 6 {
		if best < tol {
			break
		}
		// Finite-difference Jacobian of (el, er) over (h, tau).
		lh, rh := residual(h+eps, tau, &scratch)
		lt, rt := residual(h, tau+eps, &scratch)
		j11, j12 := (lh-el)/eps, (lt-el)/eps
		j21, j22 := (rh-er)/eps, (rt-er)/eps
		det := j11*j22 - j12*j21
		if !(math.Abs(det) > 1e-12) {
			break
		}
		dh := (j22*el - j12*er) / det
		dt := (j11*er - j21*el) / det
		if !finite(dh, dt) || math.Abs(dh) > 0.5 || math.Abs(dt) > 0.5 {
			break
		}
		h, tau = h-dh, tau-dt
		el, er = residual(h, tau, &scratch)
		e := math.Abs(el) + math.Abs(er)
		if e >= best {
			break
		}
		best, torsoYaw, legs = e, tau, scratch
	}
	return legs, torsoYaw, ok
}

// turn rotates a foot pose about the torso's z axis by a.
func turn(p FootPose, a float64) FootPose {
	s, c := math.Sincos(a)
	return FootPose{X: c*p.X - s*p.Y, Y: s*p.X + c*p.Y, Z: p.Z, Yaw: p.Yaw + a}
}
