package walk

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
)

// Pose is a pose on the ground plane: metres and radians.
type Pose struct{ X, Y, H float64 }

// Mul returns p∘q: q expressed in p's frame, moved into p's parent frame.
func (p Pose) Mul(q Pose) Pose {
	s, c := math.Sincos(p.H)
	return Pose{X: p.X + c*q.X - s*q.Y, Y: p.Y + s*q.X + c*q.Y, H: geom.WrapAngle(p.H + q.H)}
}

// Inv returns the inverse pose.
func (p Pose) Inv() Pose {
	s, c := math.Sincos(p.H)
	return Pose{X: -c*p.X - s*p.Y, Y: s*p.X - c*p.Y, H: -p.H}
}

// Hal converts the pose to a hal.Pose2.
func (p Pose) Hal() hal.Pose2 {
	return hal.Pose2{X: hal.Metres(p.X), Y: hal.Metres(p.Y), Heading: hal.Radians(p.H)}
}

// lerp interpolates between two poses (headings along the short way).
func lerp(a, b Pose, u float64) Pose {
	return Pose{
		X: a.X + (b.X-a.X)*u,
		Y: a.Y + (b.Y-a.Y)*u,
		H: a.H + geom.WrapAngle(b.H-a.H)*u,
	}
}
