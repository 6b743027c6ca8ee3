package perception

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// wrap returns a in (-π, π] (hal.Radians.Wrap on a float).
func wrap(a float64) float64 { return float64(hal.Radians(a).Wrap()) }

// finite reports whether every value is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
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
	d := p.Len()
	c, s := 1.0, 0.0
	if d > 1e-9 {
		c, s = p.X/d, p.Y/d
	}
	return rotateCov2([2][2]float64{{sr * sr, 0}, {0, st * st}}, s, c)
}
