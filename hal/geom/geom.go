// Package geom is robotd's one library of 3D vectors, rotations and rigid
// transforms: the leg kinematics, the camera matrix, the simulator client's
// forward kinematics, the embedded simulator's world and its camera images
// all compute with these types. Everything is fixed-size value arithmetic
// that lives on the stack and does not allocate.
//
// Rotations are row-major 3×3 matrices: m[3*r+c]. A rotation that maps a
// body's frame into its parent's has the body's axes as its columns.
package geom

import "math"

// Vec3 is a point or direction, in the frame and unit its user documents
// (metres, unless said otherwise).
type Vec3 struct{ X, Y, Z float64 }

// V3 returns the vector of the components a (x, y, z), as the simulator's
// messages and ODE hand them over.
func V3(a [3]float64) Vec3 { return Vec3{X: a[0], Y: a[1], Z: a[2]} }

// Finite reports whether every component is a number (not NaN or ±Inf).
func (a Vec3) Finite() bool {
	return !math.IsNaN(a.X) && !math.IsInf(a.X, 0) && !math.IsNaN(a.Y) && !math.IsInf(a.Y, 0) &&
		!math.IsNaN(a.Z) && !math.IsInf(a.Z, 0)
}

// Array returns a's components (x, y, z).
func (a Vec3) Array() [3]float64 { return [3]float64{a.X, a.Y, a.Z} }

// Add returns a+b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{X: a.X + b.X, Y: a.Y + b.Y, Z: a.Z + b.Z} }

// Sub returns a-b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{X: a.X - b.X, Y: a.Y - b.Y, Z: a.Z - b.Z} }

// Scale returns s·a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{X: a.X * s, Y: a.Y * s, Z: a.Z * s} }

// Dot returns a·b.
func (a Vec3) Dot(b Vec3) float64 { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

// Norm returns |a|.
func (a Vec3) Norm() float64 { return math.Sqrt(a.X*a.X + a.Y*a.Y + a.Z*a.Z) }

// Lerp returns a + (b-a)·t: a at t=0, b at t=1.
func (a Vec3) Lerp(b Vec3, t float64) Vec3 { return a.Add(b.Sub(a).Scale(t)) }

// Cross returns a×b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{X: a.Y*b.Z - a.Z*b.Y, Y: a.Z*b.X - a.X*b.Z, Z: a.X*b.Y - a.Y*b.X}
}

// Unit returns a/|a|, or a itself when it is zero.
func (a Vec3) Unit() Vec3 {
	n := a.Norm()
	if n == 0 {
		return a
	}
	return a.Scale(1 / n)
}

// Mat3 is a 3×3 matrix (a rotation), row-major: m[3*r+c].
type Mat3 [9]float64

// Identity is the identity rotation.
var Identity = Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}

// At returns the element in row r, column c.
func (m Mat3) At(r, c int) float64 { return m[3*r+c] }

// Mul returns m·n.
func (m Mat3) Mul(n Mat3) Mat3 {
	var r Mat3
	for i := range 3 {
		for j := range 3 {
			r[3*i+j] = m[3*i]*n[j] + m[3*i+1]*n[3+j] + m[3*i+2]*n[6+j]
		}
	}
	return r
}

// Apply returns m·v.
func (m Mat3) Apply(v Vec3) Vec3 {
	return Vec3{
		X: m[0]*v.X + m[1]*v.Y + m[2]*v.Z,
		Y: m[3]*v.X + m[4]*v.Y + m[5]*v.Z,
		Z: m[6]*v.X + m[7]*v.Y + m[8]*v.Z,
	}
}

// ApplyT returns mᵀ·v (for a rotation, the inverse rotation).
func (m Mat3) ApplyT(v Vec3) Vec3 {
	return Vec3{
		X: m[0]*v.X + m[3]*v.Y + m[6]*v.Z,
		Y: m[1]*v.X + m[4]*v.Y + m[7]*v.Z,
		Z: m[2]*v.X + m[5]*v.Y + m[8]*v.Z,
	}
}

// T returns the transpose (for a rotation, the inverse rotation).
func (m Mat3) T() Mat3 {
	return Mat3{m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]}
}

// Col returns column c: the image of axis c.
func (m Mat3) Col(c int) Vec3 { return Vec3{X: m[c], Y: m[3+c], Z: m[6+c]} }

// Row returns row r.
func (m Mat3) Row(r int) Vec3 { return Vec3{X: m[3*r], Y: m[3*r+1], Z: m[3*r+2]} }

// RotX is the rotation by a radians about x.
func RotX(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{1, 0, 0, 0, c, -s, 0, s, c}
}

// RotY is the rotation by a radians about y; in the NAO's frames (x
// forward, y left, z up) a positive angle tilts the x axis down.
func RotY(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{c, 0, s, 0, 1, 0, -s, 0, c}
}

// RotZ is the rotation by a radians about z (counter-clockwise seen from
// above).
func RotZ(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{c, -s, 0, s, c, 0, 0, 0, 1}
}

// RotAxis is the rotation by a radians about the unit axis u (Rodrigues'
// formula).
func RotAxis(u Vec3, a float64) Mat3 {
	s, c := math.Sincos(a)
	t := 1 - c
	x, y, z := u.X, u.Y, u.Z
	return Mat3{
		t*x*x + c, t*x*y - s*z, t*x*z + s*y,
		t*x*y + s*z, t*y*y + c, t*y*z - s*x,
		t*x*z - s*y, t*y*z + s*x, t*z*z + c,
	}
}

// MulRotX returns m·RotX(a), cheaper than building RotX and multiplying.
func (m Mat3) MulRotX(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{
		m[0], c*m[1] + s*m[2], -s*m[1] + c*m[2],
		m[3], c*m[4] + s*m[5], -s*m[4] + c*m[5],
		m[6], c*m[7] + s*m[8], -s*m[7] + c*m[8],
	}
}

// MulRotY returns m·RotY(a).
func (m Mat3) MulRotY(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{
		c*m[0] - s*m[2], m[1], s*m[0] + c*m[2],
		c*m[3] - s*m[5], m[4], s*m[3] + c*m[5],
		c*m[6] - s*m[8], m[7], s*m[6] + c*m[8],
	}
}

// MulRotZ returns m·RotZ(a).
func (m Mat3) MulRotZ(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{
		c*m[0] + s*m[1], -s*m[0] + c*m[1], m[2],
		c*m[3] + s*m[4], -s*m[3] + c*m[4], m[5],
		c*m[6] + s*m[7], -s*m[6] + c*m[7], m[8],
	}
}

// RotVec returns the rotation vector (axis times angle) of the rotation m.
func (m Mat3) RotVec() Vec3 {
	tr := (m[0] + m[4] + m[8] - 1) / 2
	if tr > 1 {
		tr = 1
	} else if tr < -1 {
		tr = -1
	}
	a := math.Acos(tr)
	w := Vec3{X: m[7] - m[5], Y: m[2] - m[6], Z: m[3] - m[1]}
	if a < 1e-9 {
		return w.Scale(0.5)
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
		return Vec3{X: x, Y: y, Z: z}.Scale(a)
	}
	return w.Scale(a / (2 * s))
}

// Orthonormalize removes the drift of a product of many rotations (Gram-Schmidt
// on the first two columns, the third their cross product).
func (m *Mat3) Orthonormalize() {
	x := m.Col(0).Unit()
	y := m.Col(1)
	y = y.Sub(x.Scale(x.Dot(y))).Unit()
	z := x.Cross(y)
	*m = Mat3{x.X, y.X, z.X, x.Y, y.Y, z.Y, x.Z, y.Z, z.Z}
}

// Slerp interpolates rotations: a at t=0, b at t=1.
func Slerp(a, b Mat3, t float64) Mat3 {
	at := a.T()
	d := at.Mul(b)
	w := d.RotVec()
	n := w.Norm()
	if n < 1e-12 {
		return b
	}
	r := RotAxis(w.Scale(1/n), n*t)
	return a.Mul(r)
}

// Yaw returns the heading of the rotation's x axis projected on the ground
// (atan2(m₁₀, m₀₀)).
func (m Mat3) Yaw() float64 { return math.Atan2(m[3], m[0]) }

// Tilt returns the angle between the rotation's z axis and the vertical.
func (m Mat3) Tilt() float64 { return math.Acos(min(max(m[8], -1), 1)) }

// Pose3 is a rigid transform: a point p in the pose's frame is R·p+P in the
// parent frame.
type Pose3 struct {
	R Mat3
	P Vec3
}

// Apply maps the point p from the pose's frame into the parent frame.
func (t Pose3) Apply(p Vec3) Vec3 { return t.R.Apply(p).Add(t.P) }

// Mul returns the composition t∘u (u expressed in t's frame).
func (t Pose3) Mul(u Pose3) Pose3 { return Pose3{R: t.R.Mul(u.R), P: t.Apply(u.P)} }

// Inv returns the inverse transform.
func (t Pose3) Inv() Pose3 {
	rt := t.R.T()
	return Pose3{R: rt, P: rt.Apply(t.P).Scale(-1)}
}

// WrapAngle maps a (radians) to (-π, π].
func WrapAngle(a float64) float64 {
	if a > -math.Pi && a <= math.Pi {
		return a
	}
	a = math.Mod(a, 2*math.Pi)
	if a > math.Pi {
		a -= 2 * math.Pi
	} else if a <= -math.Pi {
		a += 2 * math.Pi
	}
	return a
}

// Pose2 is a pose on the ground plane: position (X, Y) and heading H
// (radians, counter-clockwise from the x axis).
type Pose2 struct{ X, Y, H float64 }

// Mul returns p∘q: q expressed in p's frame, moved into p's parent frame.
func (p Pose2) Mul(q Pose2) Pose2 {
	s, c := math.Sincos(p.H)
	return Pose2{X: p.X + c*q.X - s*q.Y, Y: p.Y + s*q.X + c*q.Y, H: WrapAngle(p.H + q.H)}
}

// Rel returns q in p's frame (p⁻¹∘q): how a robot moved from p to q, or
// where q is as seen from p.
func (p Pose2) Rel(q Pose2) Pose2 {
	s, c := math.Sincos(p.H)
	dx, dy := q.X-p.X, q.Y-p.Y
	return Pose2{X: c*dx + s*dy, Y: -s*dx + c*dy, H: WrapAngle(q.H - p.H)}
}

// Apply maps the point (x, y), given in p's frame, into p's parent frame.
func (p Pose2) Apply(x, y float64) (float64, float64) {
	s, c := math.Sincos(p.H)
	return p.X + c*x - s*y, p.Y + s*x + c*y
}

// ApplyInv maps the point (x, y), given in p's parent frame, into p's
// frame.
func (p Pose2) ApplyInv(x, y float64) (float64, float64) {
	s, c := math.Sincos(p.H)
	dx, dy := x-p.X, y-p.Y
	return c*dx + s*dy, -s*dx + c*dy
}

// Inv returns the inverse pose.
func (p Pose2) Inv() Pose2 {
	s, c := math.Sincos(p.H)
	return Pose2{X: -c*p.X - s*p.Y, Y: s*p.X - c*p.Y, H: -p.H}
}

// Lerp interpolates between two poses, the heading along the short way:
// p at u=0, q at u=1.
func (p Pose2) Lerp(q Pose2, u float64) Pose2 {
	return Pose2{
		X: p.X + (q.X-p.X)*u,
		Y: p.Y + (q.Y-p.Y)*u,
		H: p.H + WrapAngle(q.H-p.H)*u,
	}
}
