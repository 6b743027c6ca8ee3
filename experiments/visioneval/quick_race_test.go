//go:build race

package visioneval

// quickFrames is TestRenderedFrames' default with the race detector,
// which slows rendering and the networks ten- to twentyfold: the short
// form runs the harness on a few frames (its measurement is the run
// without the race detector's, which scripts/test makes because this
// package imports internal/racetest).
const quickFrames = 10
