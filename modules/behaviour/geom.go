package behaviour

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// wrap returns a in (-π, π] (hal.Radians.Wrap on a float).
func wrap(a float64) float64 { return float64(hal.Radians(a).Wrap()) }

func norm(v hal.Vec2) float64 { return math.Hypot(v.X, v.Y) }

func sub(a, b hal.Vec2) hal.Vec2 { return hal.Vec2{X: a.X - b.X, Y: a.Y - b.Y} }

func add(a, b hal.Vec2) hal.Vec2 { return hal.Vec2{X: a.X + b.X, Y: a.Y + b.Y} }

func scale(a hal.Vec2, k float64) hal.Vec2 { return hal.Vec2{X: a.X * k, Y: a.Y * k} }

func pos(p hal.Pose2) hal.Vec2 { return hal.Vec2{X: float64(p.X), Y: float64(p.Y)} }

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }
