package behaviour

import "github.com/robotd/robotd/hal"

// wrap returns a in (-π, π] (hal.Radians.Wrap on a float).
func wrap(a float64) float64 { return float64(hal.Radians(a).Wrap()) }

func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }
