package kinematics

import "math"

// Vec3 is a vector in metres (x forward, y left, z up).
type Vec3 [3]float64

// Add returns a+b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Sub returns a-b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Scale returns s·a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a[0] * s, a[1] * s, a[2] * s} }

// Norm returns |a|.
func (a Vec3) Norm() float64 { return math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2]) }

// Mat3 is a rotation matrix, row major.
type Mat3 [3][3]float64

// Identity is the identity rotation.
var Identity = Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

// RotX is the rotation by a radians about x.
func RotX(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{{1, 0, 0}, {0, c, -s}, {0, s, c}}
}

// RotY is the rotation by a radians about y.
func RotY(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}
}

// RotZ is the rotation by a radians about z.
func RotZ(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}
}

// Mul returns m·n.
func (m Mat3) Mul(n Mat3) Mat3 {
	var r Mat3
	for i := range 3 {
		for j := range 3 {
			r[i][j] = m[i][0]*n[0][j] + m[i][1]*n[1][j] + m[i][2]*n[2][j]
		}
	}
	return r
}

// Apply returns m·v.
func (m Mat3) Apply(v Vec3) Vec3 {
	return Vec3{
		m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2],
		m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2],
		m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2],
	}
}

// T returns the transpose (the inverse rotation).
func (m Mat3) T() Mat3 {
	return Mat3{
		{m[0][0], m[1][0], m[2][0]},
		{m[0][1], m[1][1], m[2][1]},
		{m[0][2], m[1][2], m[2][2]},
	}
}

// Yaw returns the heading of the rotation's x axis projected on the ground.
func (m Mat3) Yaw() float64 { return math.Atan2(m[1][0], m[0][0]) }

// Tilt returns the angle between the rotation's z axis and the vertical.
func (m Mat3) Tilt() float64 { return math.Acos(clamp1(m[2][2])) }

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

func clamp1(x float64) float64 { return min(max(x, -1), 1) }

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// WrapAngle maps a to (-π, π].
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
