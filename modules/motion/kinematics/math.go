package kinematics

import "math"

func clamp1(x float64) float64 { return min(max(x, -1), 1) }

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
