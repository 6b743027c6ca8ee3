package motion

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/modules/motion/kinematics"
)

// kick plays a kick action and turns it towards a direction: the kicking
// foot's path, relative to the support foot, is turned by the direction
// about where the foot started, and the foot turns with it as it leaves the
// ground. The support leg and the rest of the body play the keyframes as
// they are.
type kick struct {
	geom    kinematics.Geometry
	player  Player
	kicking kinematics.Side
	dir     float64
	// start is the kicking sole in the support sole's frame when the kick
	// began.
	start geom.Pose3
}

// turnRadius is the swing distance over which the foot turns to the
// direction.
const turnRadius = 0.03

// Reset starts the kick kf with the given foot towards dir from the pose
// start.
func (k *kick) Reset(kf *Keyframes, kicking kinematics.Side, dir float64, start *[hal.NumJoints]hal.Radians, stiffness float64) {
	k.player.Reset(kf, start, stiffness)
	k.kicking, k.dir = kicking, dir
	k.start = k.relative(start)
}

// relative returns the kicking sole in the support sole's frame.
func (k *kick) relative(a *[hal.NumJoints]hal.Radians) geom.Pose3 {
	legs := kinematics.LegsFrom(a)
	s := k.kicking.Other()
	sup := k.geom.FK(s, &legs[s])
	kk := k.geom.FK(k.kicking, &legs[k.kicking])
	return sup.Inv().Mul(kk)
}

// Step advances the kick and writes every joint's target and stiffness; it
// reports whether the kick has finished.
func (k *kick) Step(dt float64, out *hal.JointCommand) bool {
	done := k.player.Step(dt, out)
	if math.Abs(k.dir) < 1e-3 {
		return done
	}
	legs := kinematics.LegsFrom(&out.Angle)
	s := k.kicking.Other()
	sup := k.geom.FK(s, &legs[s])
	rel := sup.Inv().Mul(k.geom.FK(k.kicking, &legs[k.kicking]))
	dx, dy := rel.P.X-k.start.P.X, rel.P.Y-k.start.P.Y
	sn, cs := math.Sincos(k.dir)
	frac := min(math.Hypot(dx, dy)/turnRadius, 1)
	rel.P.X = k.start.P.X + cs*dx - sn*dy
	rel.P.Y = k.start.P.Y + sn*dx + cs*dy
	rel.R = geom.RotZ(rel.R.Yaw() + k.dir*frac)
	target := sup.Mul(rel)
	fs, _ := kinematics.Flat(sup)
	fk, _ := kinematics.Flat(target)
	var l, r kinematics.FootPose
	if k.kicking == kinematics.Left {
		l, r = fk, fs
	} else {
		l, r = fs, fk
	}
	turned, _, ok := k.geom.LegsIK(l, r)
	if !ok {
		// The kicking leg is stretched beyond its reach (a straight-leg
		// swing): the IK would pull the foot in along another line and
		// throw the body off its support, so the keyframe's own pose
		// stands for this tick.
		return done
	}
	turned.Put(&out.Angle)
	return done
}
