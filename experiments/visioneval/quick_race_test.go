//go:build race

package visioneval

// quickFrames is TestRenderedFrames' default with the race detector,
// which slows rendering about fourfold.
const quickFrames = 60
