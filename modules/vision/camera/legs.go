package camera

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
)

// HipHeight returns the height of the hip joints above the ground for a
// robot standing on a flat foot, from the leg joint angles and the leg's
// link lengths: with the sole flat, the tibia leans from the vertical by
// the ankle's pitch and roll, the thigh by those plus the knee's, and the
// height is FootHeight + Tibia·cos + Thigh·cos. Of the two legs the
// higher hip is the supporting leg's (a lifted foot makes its leg's hip
// come out lower).
func HipHeight(leg body.Leg, j *[hal.NumJoints]hal.Radians) hal.Metres {
	h := func(ankleP, ankleR, knee hal.Radians) float64 {
		ar := math.Cos(float64(ankleR))
		return leg.FootHeight + (leg.Tibia*math.Cos(float64(ankleP))+leg.Thigh*math.Cos(float64(ankleP+knee)))*ar
	}
	return hal.Metres(max(h(j[hal.LAnklePitch], j[hal.LAnkleRoll], j[hal.LKneePitch]),
		h(j[hal.RAnklePitch], j[hal.RAnkleRoll], j[hal.RKneePitch])))
}

// FromFrameLegs returns the camera matrix of frame f with the hip height
// from its leg joint angles (HipHeight).
func FromFrameLegs(f *hal.CameraFrame, leg body.Leg) Matrix {
	return FromFrame(f, HipHeight(leg, &f.Joints))
}
