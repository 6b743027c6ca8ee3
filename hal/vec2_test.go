package hal_test

import (
	"math"
	"testing"

	"github.com/robotd/robotd/hal"
)

// same reports whether a and b are the same float64 bit for bit.
func same(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func sameVec(a, b hal.Vec2) bool { return same(a.X, b.X) && same(a.Y, b.Y) }

func TestVec2Vectors(t *testing.T) {
	a, b := hal.Vec2{X: 1.5, Y: -2}, hal.Vec2{X: 0.25, Y: 3}
	for _, tc := range []struct {
		name string
		got  hal.Vec2
		want hal.Vec2
	}{
		{"Add", a.Add(b), hal.Vec2{X: 1.75, Y: 1}},
		{"Add zero", a.Add(hal.Vec2{}), a},
		{"Sub", a.Sub(b), hal.Vec2{X: 1.25, Y: -5}},
		{"Sub self", a.Sub(a), hal.Vec2{}},
		{"Scale", a.Scale(2), hal.Vec2{X: 3, Y: -4}},
		{"Scale negative", b.Scale(-0.5), hal.Vec2{X: -0.125, Y: -1.5}},
		{"Scale zero", a.Scale(0), hal.Vec2{X: 0, Y: math.Copysign(0, -1)}},
		{"Perp", a.Perp(), hal.Vec2{X: 2, Y: 1.5}},
		{"Perp twice", a.Perp().Perp(), hal.Vec2{X: -1.5, Y: 2}},
		{"Rotate 0", a.Rotate(0), a},
		{"Rotate π/2", hal.Vec2{X: 1}.Rotate(math.Pi / 2), hal.Vec2{X: math.Cos(math.Pi / 2), Y: 1}},
		{"RotateSC quarter", a.RotateSC(1, 0), a.Perp()},
		{"RotateSC half", a.RotateSC(0, -1), hal.Vec2{X: -1.5, Y: 2}},
		{"Pose2.Pos", hal.Pose2{X: 3, Y: -1, Heading: 2}.Pos(), hal.Vec2{X: 3, Y: -1}},
	} {
		if !sameVec(tc.got, tc.want) {
			t.Errorf("%s = %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}

func TestVec2Scalars(t *testing.T) {
	a, b := hal.Vec2{X: 1.5, Y: -2}, hal.Vec2{X: 0.25, Y: 3}
	big := hal.Vec2{X: math.Ldexp(3, 1000), Y: math.Ldexp(4, 1000)} // squares overflow
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"Dot", a.Dot(b), 1.5*0.25 + -2*3},
		{"Dot perpendicular", a.Dot(a.Perp()), 0},
		{"Cross", a.Cross(b), 1.5*3 - -2*0.25},
		{"Cross counter-clockwise", hal.Vec2{X: 1}.Cross(hal.Vec2{Y: 1}), 1},
		{"Cross clockwise", hal.Vec2{Y: 1}.Cross(hal.Vec2{X: 1}), -1},
		{"Len", hal.Vec2{X: 3, Y: -4}.Len(), 5},
		{"Len zero", hal.Vec2{}.Len(), 0},
		{"Len no overflow", big.Len(), math.Ldexp(5, 1000)},
		{"Len is Hypot", b.Len(), math.Hypot(0.25, 3)},
		{"Dist", a.Dist(hal.Vec2{X: -1.5, Y: 2}), 5},
		{"Dist is Hypot of the difference", a.Dist(b), math.Hypot(1.5-0.25, -2-3)},
		{"Dist no overflow", big.Dist(big.Scale(-0.5)), math.Ldexp(7.5, 1000)},
		{"Angle", hal.Vec2{X: 1, Y: 1}.Angle(), math.Pi / 4},
		{"Angle back", hal.Vec2{X: -1}.Angle(), math.Pi},
		{"Angle down", hal.Vec2{Y: -2}.Angle(), -math.Pi / 2},
		{"Angle zero", hal.Vec2{}.Angle(), 0},
	} {
		if !same(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if l := (hal.Vec2{X: math.NaN(), Y: 1}).Len(); !math.IsNaN(l) {
		t.Errorf("Len of NaN = %v, want NaN", l)
	}
	if l := (hal.Vec2{X: math.NaN(), Y: math.Inf(-1)}).Len(); !math.IsInf(l, 1) {
		t.Errorf("Len with an infinite component = %v, want +Inf (math.Hypot)", l)
	}
}

// TestVec2RotateIsRotateSC: Rotate turns by its angle's math.Sincos, so
// that turning several vectors by one sine and cosine gives the same bits.
func TestVec2RotateIsRotateSC(t *testing.T) {
	for _, a := range []hal.Radians{0, 0.3, -1.2, math.Pi, 2.5, -3} {
		for _, v := range []hal.Vec2{{X: 1}, {X: 0.7, Y: -0.2}, {X: -3, Y: 4}} {
			s, c := math.Sincos(float64(a))
			want := hal.Vec2{X: c*v.X - s*v.Y, Y: s*v.X + c*v.Y}
			if got := v.Rotate(a); !sameVec(got, want) || !sameVec(v.RotateSC(s, c), want) {
				t.Errorf("%+v turned by %v = %+v, want %+v", v, a, got, want)
			}
			if got := v.Rotate(a).Len(); math.Abs(got-v.Len()) > 1e-12 {
				t.Errorf("%+v turned by %v has length %v, want %v", v, a, got, v.Len())
			}
		}
	}
}

// TestVec2MatchesPose2: Pose2.Global of a point is the point turned by the
// heading plus the position.
func TestVec2MatchesPose2(t *testing.T) {
	p := hal.Pose2{X: 1, Y: -2, Heading: 0.7}
	v := hal.Vec2{X: 0.4, Y: 1.1}
	want := v.Rotate(p.Heading).Add(p.Pos())
	if got := p.Global(v); got.Dist(want) > 1e-12 {
		t.Errorf("Global(%+v) = %+v, want %+v", v, got, want)
	}
	if got := p.Local(p.Global(v)); got.Dist(v) > 1e-12 {
		t.Errorf("Local(Global(%+v)) = %+v", v, got)
	}
}
