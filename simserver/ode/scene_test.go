//go:build ode && cgo

package ode

import (
	"math"
	"testing"
)

// TestBallRoll: a ball the trainer gives 2 m/s along the ground (the
// fork's strongly damped ball, monitor_agent.txt: (ball (pos -1 0 0.05)(vel
// 2 0 0))) passes the ballpos the real server reported, cycle by cycle from
// its first move, within 3 cm. The samples end where the trace's trainer set
// BeforeKickOff, which stopped the real ball.
func TestBallRoll(t *testing.T) {
	const tol = 0.03 // m
	real := []struct {
		after int // cycles after the first sample
		x     float64
	}{{0, -0.96}, {15, -0.76}, {30, -0.57}, {45, -0.41}, {60, -0.26}, {90, -0.02}, {120, 0.18},
		{135, 0.26}, {180, 0.45}, {210, 0.54}, {240, 0.61}, {255, 0.64}}
	s, err := New(SimSpark())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetBall([3]float64{-1, 0, 0.05}, [3]float64{2, 0, 0})
	var xs []float64
	for range 400 {
		s.Step()
		p, _ := s.Ball()
		xs = append(xs, p[0])
		if math.Abs(p[2]-0.05) > 0.003 || math.Abs(p[1]) > 1e-9 {
			t.Fatalf("ball at %v: off the ground line", p)
		}
	}
	first := 0
	for xs[first] < -0.965 {
		first++
	}
	worst := 0.0
	for _, r := range real {
		d := math.Abs(xs[first+r.after] - r.x)
		worst = max(worst, d)
		if d > tol {
			t.Errorf("%d cycles after the first move: x %.3f, the real ball %.2f", r.after, xs[first+r.after], r.x)
		}
	}
	t.Logf("worst difference %.3f m (tolerance %g m) over %d samples", worst, tol, len(real))
}
