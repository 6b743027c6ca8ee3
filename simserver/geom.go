package simserver

import (
	"math"

	"github.com/robotd/robotd/hal/geom"
)

// Frames. World frame: x towards the right-hand goal, y to the left, z
// up. Robot body frame (the simulator's): x right, y forward, z up. Points,
// directions and rotations are hal/geom's.

// yawOf returns the heading of a body frame in the world: the direction
// of its forward (y) axis projected on the ground, in radians.
func yawOf(m *geom.Mat3) float64 {
	f := m.Col(1)
	if math.Abs(f.X)+math.Abs(f.Y) < 1e-9 {
		// Forward axis vertical: use the right axis instead.
		r := m.Col(0)
		return math.Atan2(r.Y, r.X) + math.Pi/2
	}
	return math.Atan2(f.Y, f.X)
}

// tiltOf returns the angle between the body's up axis and the world's.
func tiltOf(m *geom.Mat3) float64 { return m.Tilt() }

// uprightFrame is the body-to-world rotation of an upright robot whose
// forward axis points to heading (rad, world).
func uprightFrame(heading float64) geom.Mat3 { return geom.RotZ(heading - math.Pi/2) }

// normDeg maps an angle in degrees to (-180, 180].
func normDeg(a float64) float64 {
	if a > -540 && a <= 540 {
		switch {
		case a > 180:
			return a - 360
		case a <= -180:
			return a + 360
		}
		return a
	}
	a = math.Mod(a, 360)
	if a > 180 {
		a -= 360
	} else if a <= -180 {
		a += 360
	}
	return a
}

const (
	deg = 180 / math.Pi
	rad = math.Pi / 180
)

// atan2 is math.Atan2 for finite arguments, about twice as fast, with an
// error below 1e-8 rad: range reduction to |t| ≤ tan(π/8) and the Taylor
// series to t¹⁵.
func atan2(y, x float64) float64 {
	ax, ay := x, y
	if ax < 0 {
		ax = -ax
	}
	if ay < 0 {
		ay = -ay
	}
	if ax == 0 && ay == 0 {
		return math.Atan2(y, x)
	}
	swap := ay > ax
	z := ay / ax
	if swap {
		z = ax / ay
	}
	// z in [0, 1]
	base := 0.0
	if z > 0.41421356237309503 {
		z = (z - 1) / (z + 1)
		base = math.Pi / 4
	}
	z2 := z * z
	a := base + z*(1+z2*(-1.0/3+z2*(1.0/5+z2*(-1.0/7+z2*(1.0/9+z2*(-1.0/11+z2*(1.0/13+z2*(-1.0/15+z2*(1.0/17)))))))))
	if swap {
		a = math.Pi/2 - a
	}
	if x < 0 {
		a = math.Pi - a
	}
	if math.Signbit(y) {
		a = -a
	}
	return a
}
