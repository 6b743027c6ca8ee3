// Package racetest tells a test whether the race detector is on, so that a
// long simulation can run a short form under it and its full length
// without it.
//
// The race detector makes the simulations 10 to 30 times slower, and it
// finds nothing in the ticks that repeat what the first ones did: under it
// a test runs the same code (the same goroutines, servers and connections)
// for a shorter simulated time or fewer cases, and asserts what still
// holds then. The full form, with the test's numbers, runs without the
// race detector: scripts/test runs the tests of every package that imports
// this one a second time, without -race.
package racetest

// Enabled is true in a build with the race detector (-race).
const Enabled = enabled
