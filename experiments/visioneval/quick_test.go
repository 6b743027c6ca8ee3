//go:build !race

package visioneval

// quickFrames is TestRenderedFrames' default: about a second of rendering.
const quickFrames = 100
