//go:build !sim

package main

// simBuild: this test binary is of the sim build, whose findball is the
// same code as the default build's (only cmd/robotd has tagged files).
const simBuild = false
