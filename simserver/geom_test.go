package simserver

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/robotd/robotd/hal/geom"
)

func TestRotationProducts(t *testing.T) {
	m := geom.RotAxis(geom.Vec3{X: 1, Y: 2, Z: 3}.Unit(), 0.7)
	for _, a := range []float64{-2, -0.3, 0, 0.4, 3} {
		for name, c := range map[string]struct{ got, want geom.Mat3 }{
			"x": {m.MulRotX(a), func() geom.Mat3 { r := geom.RotX(a); return m.Mul(r) }()},
			"y": {m.MulRotY(a), func() geom.Mat3 { r := geom.RotY(a); return m.Mul(r) }()},
			"z": {m.MulRotZ(a), func() geom.Mat3 { r := geom.RotZ(a); return m.Mul(r) }()},
		} {
			for i := range c.got {
				if math.Abs(c.got[i]-c.want[i]) > 1e-12 {
					t.Fatalf("mulRot%s(%v) = %v, want %v", name, a, c.got, c.want)
				}
			}
		}
	}
}

func TestAppendF2MatchesStrconv(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), -0.001, 0.001, 0.005, 0.015, 0.125, -0.125, 1.005, 2.675,
		9.81, -9.81, 5.729577951308232, 99.995, 99.994999, 123456.785, 999999.994, 1e6, -1e6, 1e300,
		math.NaN(), math.Inf(1), math.Inf(-1), 0.3 * 3, 1.0 / 3}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		e := r.IntN(12) - 6
		vals = append(vals, (r.Float64()*2-1)*math.Pow(10, float64(e)))
		vals = append(vals, float64(r.IntN(2000000)-1000000)/1000+0.0005)
	}
	for _, v := range vals {
		got := string(appendF2(nil, v))
		want := strconv.FormatFloat(v, 'f', 2, 64)
		if got != want {
			t.Fatalf("appendF2(%v) = %q, strconv gives %q", v, got, want)
		}
	}
}

func TestAtan2(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pts := [][2]float64{{0, 1}, {1, 0}, {0, -1}, {-1, 0}, {1, 1}, {-1, -1}, {1e-300, -1}, {math.Copysign(0, -1), -1}, {0.0, -1}, {3, 0.41421356237309503 * 3}}
	for i := 0; i < 100000; i++ {
		pts = append(pts, [2]float64{r.NormFloat64() * math.Pow(10, float64(r.IntN(6)-3)), r.NormFloat64()})
	}
	for _, p := range pts {
		got, want := atan2(p[0], p[1]), math.Atan2(p[0], p[1])
		if math.Abs(got-want) > 1e-8 {
			t.Fatalf("atan2(%v, %v) = %v, want %v", p[0], p[1], got, want)
		}
	}
}
