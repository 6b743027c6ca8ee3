//go:build !(ode && cgo)

package simserver

import (
	"errors"
	"testing"

	"github.com/robotd/robotd/simserver/ode"
)

// TestPhysicsWithoutODE: a build without ODE refuses the physics mode,
// saying why, and still runs the kinematic one.
func TestPhysicsWithoutODE(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Physics = PhysicsODE
	if _, err := NewWorld(cfg); !errors.Is(err, ode.ErrNoODE) {
		t.Fatalf("NewWorld in physics mode without ODE: %v, want ode.ErrNoODE", err)
	}
	cfg.Physics = PhysicsKinematic
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
}
