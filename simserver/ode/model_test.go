package ode

import (
	"math"
	"testing"
)

// TestMixSimSpark: the scene's handlers mix into the pair surfaces of
// docs/simspark-nao-model.md §4.
func TestMixSimSpark(t *testing.T) {
	p := SimSpark()
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }
	for _, tc := range []struct {
		name                   string
		a, b                   Surface
		erp, cfm, slip, bounce float64 // bounce 0: off; cfm 0: off
		bounceVel              float64
	}{
		{"part-field", Part, Field, 0.4, 1e-4, 5e-3, 0, 0},
		{"foot-field", Foot, Field, 0.4, 1e-4, 5e-3, 0, 0},
		{"nao-nao", Part, Foot, 0.6, 1e-4, 5e-3, 0, 0},
		{"ball-field", BallClass, Field, 0.35, 0.05, 2.0025, 0.8, 0.8},
		{"ball-nao", BallClass, Part, 0.55, 0.02505, 2.0025, 0.8, 0.8},
	} {
		for _, order := range [2][2]Surface{{tc.a, tc.b}, {tc.b, tc.a}} {
			m := Mix(p.Handlers[order[0]], p.Handlers[order[1]])
			ok := m.SoftERPOn && near(m.SoftERP, tc.erp) && m.SlipOn && near(m.Slip, tc.slip) &&
				m.SoftCFMOn == (tc.cfm != 0) && near(m.SoftCFM, tc.cfm) &&
				m.BounceOn == (tc.bounce != 0) && near(m.Bounce, tc.bounce) && near(m.BounceVel, tc.bounceVel) &&
				math.IsInf(m.Mu, 1)
			if !ok {
				t.Errorf("%s: %+v", tc.name, m)
			}
		}
	}
}

func TestUprightRot(t *testing.T) {
	// Facing +x, the build frame's forward axis (+y) points along +x.
	r := UprightRot(0)
	if f := [3]float64{r[1], r[4], r[7]}; math.Abs(f[0]-1) > 1e-12 || math.Abs(f[1]) > 1e-12 {
		t.Errorf("forward axis %v, want (1, 0, 0)", f)
	}
}
