package simserver

import (
	"math"
	"strconv"
	"testing"

	"github.com/robotd/robotd/proto/simspark"
)

// TestTrainerLaysDown: the agent command's rotation triple (rot x y z)
// lays a robot on its front or back, facing z degrees: it falls that way
// and lies with the accelerometer showing the recorded lying attitude
// (imu_fall traces: ACC y −9.62 on its front, +9.81 on its back).
func TestTrainerLaysDown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pitch float64
		accY  float64 // sign of ACC y when lying
	}{{"front", 90, -1}, {"back", -90, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, nil)
			s.add("T", 1, -2, 0, 0)
			s.step(40)
			var m simspark.TrainerMessage
			if err := m.Parse([]byte("(agent (unum 1)(team Left)(pos -1 1 0.35)(rot 0 " + ftoa(tc.pitch) + " 30))")); err != nil {
				t.Fatal(err)
			}
			s.w.moveAgent(s.agents[0], &m.Commands[0])
			lying := -1
			for k := range 200 {
				s.step(1)
				if lying < 0 && s.agents[0].State() == "lying" {
					lying = k + 1
				}
			}
			if lying < 0 {
				t.Fatalf("not lying after 2 s: %s", s.agents[0].State())
			}
			acc := s.perception(0).ACC
			x, y := s.agents[0].r.p.X, s.agents[0].r.p.Y
			t.Logf("on its %s after %d cycles, ACC %v, torso at (%.2f, %.2f)", tc.name, lying, acc.V, x, y)
			if acc.V[1]*tc.accY < 9 {
				t.Errorf("ACC %v: not lying on its %s", acc.V, tc.name)
			}
			// The torso lies the robot's height from its feet, the way it
			// fell: facing 30° on its front, the other way on its back.
			want := 30.0
			if tc.pitch < 0 {
				want = -150
			}
			d, dir := math.Hypot(x+1, y-1), math.Atan2(y-1, x+1)*180/math.Pi
			if d > 0.5 || math.Abs(math.Remainder(dir-want, 360)) > 20 {
				t.Errorf("lies at (%.2f, %.2f): %.2f m towards %.0f° from where it stood; want ≤ 0.5 m towards %.0f°", x, y, d, dir, want)
			}
		})
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
