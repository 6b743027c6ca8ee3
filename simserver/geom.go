package simserver

import "math"

// vec3 is a point or direction. World frame: x towards the right-hand goal,
// y to the left, z up. Robot body frame (the simulator's): x right,
// y forward, z up.
type vec3 [3]float64

func (a vec3) add(b vec3) vec3             { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec3) sub(b vec3) vec3             { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec3) scale(s float64) vec3        { return vec3{a[0] * s, a[1] * s, a[2] * s} }
func (a vec3) dot(b vec3) float64          { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a vec3) norm() float64               { return math.Sqrt(a.dot(a)) }
func (a vec3) lerp(b vec3, t float64) vec3 { return a.add(b.sub(a).scale(t)) }
func (a vec3) cross(b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func (a vec3) unit() vec3 {
	n := a.norm()
	if n == 0 {
		return a
	}
	return a.scale(1 / n)
}

// mat3 is a rotation, row-major: m[3*r+c].
type mat3 [9]float64

var ident = mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}

func (m *mat3) mul(n *mat3) mat3 {
	var r mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r[3*i+j] = m[3*i]*n[j] + m[3*i+1]*n[3+j] + m[3*i+2]*n[6+j]
		}
	}
	return r
}

func (m *mat3) apply(v vec3) vec3 {
	return vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

// applyT applies the transpose (the inverse rotation).
func (m *mat3) applyT(v vec3) vec3 {
	return vec3{
		m[0]*v[0] + m[3]*v[1] + m[6]*v[2],
		m[1]*v[0] + m[4]*v[1] + m[7]*v[2],
		m[2]*v[0] + m[5]*v[1] + m[8]*v[2],
	}
}

func (m *mat3) transpose() mat3 {
	return mat3{m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]}
}

// col returns column c: the image of the body axis c.
func (m *mat3) col(c int) vec3 { return vec3{m[c], m[3+c], m[6+c]} }

func rotX(a float64) mat3 {
	s, c := math.Sincos(a)
	return mat3{1, 0, 0, 0, c, -s, 0, s, c}
}

func rotY(a float64) mat3 {
	s, c := math.Sincos(a)
	return mat3{c, 0, s, 0, 1, 0, -s, 0, c}
}

func rotZ(a float64) mat3 {
	s, c := math.Sincos(a)
	return mat3{c, -s, 0, s, c, 0, 0, 0, 1}
}

// rotAxis is the rotation by a about the unit axis u (Rodrigues).
func rotAxis(u vec3, a float64) mat3 {
	s, c := math.Sincos(a)
	t := 1 - c
	x, y, z := u[0], u[1], u[2]
	return mat3{
		t*x*x + c, t*x*y - s*z, t*x*z + s*y,
		t*x*y + s*z, t*y*y + c, t*y*z - s*x,
		t*x*z - s*y, t*y*z + s*x, t*z*z + c,
	}
}

// rotVec returns the rotation vector (axis times angle) of m.
func (m *mat3) rotVec() vec3 {
	tr := (m[0] + m[4] + m[8] - 1) / 2
	if tr > 1 {
		tr = 1
	} else if tr < -1 {
		tr = -1
	}
	a := math.Acos(tr)
	w := vec3{m[7] - m[5], m[2] - m[6], m[3] - m[1]}
	if a < 1e-9 {
		return w.scale(0.5)
	}
	s := math.Sin(a)
	if s < 1e-9 {
		// a ≈ π: take the axis from the diagonal.
		x := math.Sqrt(math.Max(0, (m[0]+1)/2))
		y := math.Sqrt(math.Max(0, (m[4]+1)/2))
		z := math.Sqrt(math.Max(0, (m[8]+1)/2))
		if m[1] < 0 {
			y = -y
		}
		if m[2] < 0 {
			z = -z
		}
		return vec3{x, y, z}.scale(a)
	}
	return w.scale(a / (2 * s))
}

// orthonormalize removes drift from a product of many rotations.
func (m *mat3) orthonormalize() {
	x := m.col(0).unit()
	y := m.col(1)
	y = y.sub(x.scale(x.dot(y))).unit()
	z := x.cross(y)
	*m = mat3{x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]}
}

// yawOf returns the heading of a body frame in the world: the direction
// of its forward (y) axis projected on the ground, in radians.
func yawOf(m *mat3) float64 {
	f := m.col(1)
	if math.Abs(f[0])+math.Abs(f[1]) < 1e-9 {
		// Forward axis vertical: use the right axis instead.
		r := m.col(0)
		return math.Atan2(r[1], r[0]) + math.Pi/2
	}
	return math.Atan2(f[1], f[0])
}

// tiltOf returns the angle between the body's up axis and the world's.
func tiltOf(m *mat3) float64 {
	z := m[8]
	if z > 1 {
		z = 1
	} else if z < -1 {
		z = -1
	}
	return math.Acos(z)
}

// uprightFrame is the body-to-world rotation of an upright robot whose
// forward axis points to heading (rad, world).
func uprightFrame(heading float64) mat3 { return rotZ(heading - math.Pi/2) }

// slerp interpolates rotations: a at t=0, b at t=1.
func slerp(a, b *mat3, t float64) mat3 {
	at := a.transpose()
	d := at.mul(b)
	w := d.rotVec()
	n := w.norm()
	if n < 1e-12 {
		return *b
	}
	r := rotAxis(w.scale(1/n), n*t)
	return a.mul(&r)
}

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

// mulRotX returns m·Rx(a) (cheaper than building Rx and multiplying).
func (m *mat3) mulRotX(a float64) mat3 {
	s, c := math.Sincos(a)
	return mat3{
		m[0], c*m[1] + s*m[2], -s*m[1] + c*m[2],
		m[3], c*m[4] + s*m[5], -s*m[4] + c*m[5],
		m[6], c*m[7] + s*m[8], -s*m[7] + c*m[8],
	}
}

// mulRotY returns m·Ry(a).
func (m *mat3) mulRotY(a float64) mat3 {
	s, c := math.Sincos(a)
	return mat3{
		c*m[0] - s*m[2], m[1], s*m[0] + c*m[2],
		c*m[3] - s*m[5], m[4], s*m[3] + c*m[5],
		c*m[6] - s*m[8], m[7], s*m[6] + c*m[8],
	}
}

// mulRotZ returns m·Rz(a).
func (m *mat3) mulRotZ(a float64) mat3 {
	s, c := math.Sincos(a)
	return mat3{
		c*m[0] + s*m[1], -s*m[0] + c*m[1], m[2],
		c*m[3] + s*m[4], -s*m[3] + c*m[4], m[5],
		c*m[6] + s*m[7], -s*m[6] + c*m[7], m[8],
	}
}

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
