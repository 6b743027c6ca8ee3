package perception

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// wrap returns a in (-π, π].
func wrap(a float64) float64 {
	if a > math.Pi || a <= -math.Pi {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return 0
		}
		a = math.Remainder(a, 2*math.Pi)
		if a <= -math.Pi {
			a += 2 * math.Pi
		}
	}
	return a
}

// finite reports whether every value is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// compose returns the pose b given in a's frame, in a's parent frame (a ⊕ b).
func compose(a, b hal.Pose2) hal.Pose2 {
	s, c := math.Sincos(float64(a.Heading))
	return hal.Pose2{
		X:       a.X + hal.Metres(c*float64(b.X)-s*float64(b.Y)),
		Y:       a.Y + hal.Metres(s*float64(b.X)+c*float64(b.Y)),
		Heading: hal.Radians(wrap(float64(a.Heading + b.Heading))),
	}
}

// relative returns pose b in a's frame (a⁻¹ ⊕ b).
func relative(a, b hal.Pose2) hal.Pose2 {
	s, c := math.Sincos(float64(a.Heading))
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	return hal.Pose2{
		X:       hal.Metres(c*dx + s*dy),
		Y:       hal.Metres(-s*dx + c*dy),
		Heading: hal.Radians(wrap(float64(b.Heading - a.Heading))),
	}
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

// rotate rotates v by the angle with sine s and cosine c.
func rotate(v hal.Vec2, s, c float64) hal.Vec2 {
	return hal.Vec2{X: c*v.X - s*v.Y, Y: s*v.X + c*v.Y}
}

// rotateCov2 returns R·C·Rᵀ for the rotation with sine s and cosine c.
func rotateCov2(m [2][2]float64, s, c float64) [2][2]float64 {
	// R = [c -s; s c]
	a, b, d := m[0][0], m[0][1], m[1][1]
	xx := c*c*a - 2*c*s*b + s*s*d
	xy := c*s*a + (c*c-s*s)*b - c*s*d
	yy := s*s*a + 2*c*s*b + c*c*d
	return [2][2]float64{{xx, xy}, {xy, yy}}
}

// inv2 inverts a symmetric 2×2 matrix; ok is false when it is singular.
func inv2(m [2][2]float64) (inv [2][2]float64, ok bool) {
	det := m[0][0]*m[1][1] - m[0][1]*m[1][0]
	if !(math.Abs(det) > 1e-18) || !finite(det) {
		return inv, false
	}
	return [2][2]float64{{m[1][1] / det, -m[0][1] / det}, {-m[1][0] / det, m[0][0] / det}}, true
}

// mahalanobis2 returns vᵀ·inv·v.
func mahalanobis2(v hal.Vec2, inv [2][2]float64) float64 {
	return v.X*(inv[0][0]*v.X+inv[0][1]*v.Y) + v.Y*(inv[1][0]*v.X+inv[1][1]*v.Y)
}

// polarCov returns the covariance of a ground observation at p with
// standard deviations sr along the line of sight and st across it.
func polarCov(p hal.Vec2, sr, st float64) [2][2]float64 {
	d := math.Hypot(p.X, p.Y)
	c, s := 1.0, 0.0
	if d > 1e-9 {
		c, s = p.X/d, p.Y/d
	}
	return rotateCov2([2][2]float64{{sr * sr, 0}, {0, st * st}}, s, c)
}
