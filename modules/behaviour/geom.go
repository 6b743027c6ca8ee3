package behaviour

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// wrap returns a in (-π, π].
func wrap(a float64) float64 {
	if math.IsNaN(a) || math.IsInf(a, 0) {
		return 0
	}
	a = math.Remainder(a, 2*math.Pi)
	if a <= -math.Pi {
		a += 2 * math.Pi
	}
	return a
}

// toField returns the point p, relative to pose, in the field frame.
func toField(pose hal.Pose2, p hal.Vec2) hal.Vec2 {
	s, c := math.Sincos(float64(pose.Heading))
	return hal.Vec2{X: float64(pose.X) + c*p.X - s*p.Y, Y: float64(pose.Y) + s*p.X + c*p.Y}
}

// toRobot returns the field point p relative to pose.
func toRobot(pose hal.Pose2, p hal.Vec2) hal.Vec2 {
	s, c := math.Sincos(float64(pose.Heading))
	dx, dy := p.X-float64(pose.X), p.Y-float64(pose.Y)
	return hal.Vec2{X: c*dx + s*dy, Y: -s*dx + c*dy}
}

func norm(v hal.Vec2) float64 { return math.Hypot(v.X, v.Y) }

func sub(a, b hal.Vec2) hal.Vec2 { return hal.Vec2{X: a.X - b.X, Y: a.Y - b.Y} }

func add(a, b hal.Vec2) hal.Vec2 { return hal.Vec2{X: a.X + b.X, Y: a.Y + b.Y} }

func scale(a hal.Vec2, k float64) hal.Vec2 { return hal.Vec2{X: a.X * k, Y: a.Y * k} }

func pos(p hal.Pose2) hal.Vec2 { return hal.Vec2{X: float64(p.X), Y: float64(p.Y)} }

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }
