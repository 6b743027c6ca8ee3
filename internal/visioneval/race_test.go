//go:build race

package visioneval

// The race detector slows rendering about fourfold: TestRenderedFrames
// then renders fewer frames.
func init() { quickFrames = 30 }
