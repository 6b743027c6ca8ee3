//go:build sim

package main

import (
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/simserver/ode"
)

// testPhysics is the embedded simulator's world model for the sim
// daemon's tests: the physics mode in a build with ODE (-tags sim,ode, as
// scripts/test runs them), where walks, kicks and falls happen as on the
// real server; the kinematic one in a build without.
func testPhysics() string {
	if ode.Available {
		return simserver.PhysicsODE
	}
	return simserver.PhysicsKinematic
}
