//go:build ode

package simserver

import (
	"testing"
)

func TestScratchStand(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Physics = PhysicsODE
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	a := w.AddAgent()
	w.Step()
	w.Act(a, []byte("(init (unum 1)(teamname T))"))
	w.Step()
	w.Act(a, []byte("(beam -2 0 0)"))
	for i := 0; i < 200; i++ {
		w.Step()
		m := w.AppendPerception(nil, a)
		if i < 12 || i%50 == 0 || i == 199 {
			p, _, _ := w.TorsoPose(a)
			t.Logf("%d torso %.4f %s", i, p, m)
		}
	}
}
