package geom

import (
	"math"
	"testing"
)

func near(a, b Vec3, tol float64) bool { return a.Sub(b).Norm() <= tol }

func TestRotations(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    Mat3
		in   Vec3
		want Vec3
	}{
		{"x about z by 90°", RotZ(math.Pi / 2), Vec3{X: 1, Y: 0, Z: 0}, Vec3{X: 0, Y: 1, Z: 0}},
		{"x about y by 90° points down", RotY(math.Pi / 2), Vec3{X: 1, Y: 0, Z: 0}, Vec3{X: 0, Y: 0, Z: -1}},
		{"y about x by 90°", RotX(math.Pi / 2), Vec3{X: 0, Y: 1, Z: 0}, Vec3{X: 0, Y: 0, Z: 1}},
		{"axis z is RotZ", RotAxis(Vec3{X: 0, Y: 0, Z: 1}, 0.3), Vec3{X: 1, Y: 2, Z: 3}, RotZ(0.3).Apply(Vec3{X: 1, Y: 2, Z: 3})},
		{"m·RotX is MulRotX", RotZ(0.4).MulRotX(0.7), Vec3{X: 1, Y: 2, Z: 3}, RotZ(0.4).Mul(RotX(0.7)).Apply(Vec3{X: 1, Y: 2, Z: 3})},
		{"m·RotY is MulRotY", RotX(0.4).MulRotY(-0.7), Vec3{X: 1, Y: 2, Z: 3}, RotX(0.4).Mul(RotY(-0.7)).Apply(Vec3{X: 1, Y: 2, Z: 3})},
		{"m·RotZ is MulRotZ", RotY(0.4).MulRotZ(1.7), Vec3{X: 1, Y: 2, Z: 3}, RotY(0.4).Mul(RotZ(1.7)).Apply(Vec3{X: 1, Y: 2, Z: 3})},
	} {
		if got := tc.m.Apply(tc.in); !near(got, tc.want, 1e-12) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if back := tc.m.ApplyT(tc.m.Apply(tc.in)); !near(back, tc.in, 1e-12) {
			t.Errorf("%s: ApplyT does not undo Apply: %v", tc.name, back)
		}
	}
}

func TestRotVecAndSlerp(t *testing.T) {
	u := Vec3{X: 1, Y: 2, Z: 2}.Unit()
	for _, a := range []float64{0, 1e-10, 0.5, 2, math.Pi - 1e-3} {
		if got := RotAxis(u, a).RotVec(); !near(got, u.Scale(a), 1e-6) {
			t.Errorf("RotVec of %g about %v = %v", a, u, got)
		}
	}
	a, b := RotZ(0.2), RotZ(1.2)
	if m := Slerp(a, b, 0.5); math.Abs(m.Yaw()-0.7) > 1e-12 {
		t.Errorf("half-way yaw %g, want 0.7", m.Yaw())
	}
	if m := Slerp(a, b, 1); m != b && !near(m.Col(0), b.Col(0), 1e-12) {
		t.Errorf("Slerp at 1 = %v, want %v", m, b)
	}
}

func TestOrthonormalize(t *testing.T) {
	m := RotAxis(Vec3{X: 0, Y: 0.6, Z: 0.8}, 1)
	m[0] += 1e-6
	m.Orthonormalize()
	for i := range 3 {
		for j := range 3 {
			want := 0.0
			if i == j {
				want = 1
			}
			if d := m.Col(i).Dot(m.Col(j)); math.Abs(d-want) > 1e-12 {
				t.Errorf("column %d·%d = %g", i, j, d)
			}
		}
	}
}

func TestPose3(t *testing.T) {
	p := Pose3{R: RotZ(0.3).Mul(RotY(-0.2)), P: Vec3{X: 1, Y: -2, Z: 0.5}}
	q := Vec3{X: 0.1, Y: 0.2, Z: 0.3}
	if got := p.Inv().Apply(p.Apply(q)); !near(got, q, 1e-12) {
		t.Errorf("p⁻¹·p·q = %v, want %v", got, q)
	}
	if got := p.Mul(p.Inv()); !near(got.P, Vec3{}, 1e-12) || math.Abs(got.R.Tilt()) > 1e-7 {
		t.Errorf("p·p⁻¹ = %v, want identity", got)
	}
}

func TestWrapAngle(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0, 0}, {math.Pi, math.Pi}, {-math.Pi, math.Pi}, {3 * math.Pi / 2, -math.Pi / 2},
		{-3 * math.Pi / 2, math.Pi / 2}, {7, 7 - 2*math.Pi},
	} {
		if got := WrapAngle(tc.in); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("WrapAngle(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
}

// TestPose2: Rel undoes Mul, ApplyInv undoes Apply, and a point a quarter
// turn ahead lands where the heading says.
func TestPose2(t *testing.T) {
	for _, tc := range []struct{ p, q Pose2 }{
		{Pose2{1, 2, 0.5}, Pose2{-0.3, 0.7, -2}},
		{Pose2{-4, 3, 3.1}, Pose2{0.2, 0, 0.2}},
		{Pose2{0, 0, -math.Pi / 2}, Pose2{1, 1, math.Pi}},
	} {
		r := tc.p.Rel(tc.p.Mul(tc.q))
		if math.Abs(r.X-tc.q.X) > 1e-12 || math.Abs(r.Y-tc.q.Y) > 1e-12 || math.Abs(WrapAngle(r.H-tc.q.H)) > 1e-12 {
			t.Errorf("%v.Rel(%v.Mul(%v)) = %v", tc.p, tc.p, tc.q, r)
		}
		x, y := tc.p.ApplyInv(tc.p.Apply(tc.q.X, tc.q.Y))
		if math.Abs(x-tc.q.X) > 1e-12 || math.Abs(y-tc.q.Y) > 1e-12 {
			t.Errorf("%v: ApplyInv(Apply(%v, %v)) = (%v, %v)", tc.p, tc.q.X, tc.q.Y, x, y)
		}
	}
	if x, y := (Pose2{1, 2, math.Pi / 2}).Apply(1, 0); math.Abs(x-1) > 1e-12 || math.Abs(y-3) > 1e-12 {
		t.Errorf("a point 1 m ahead of a robot at (1, 2) facing +y: (%v, %v), want (1, 3)", x, y)
	}
}
