//go:build !race

package visioneval

// quickFrames is TestRenderedFrames' default: a few seconds of rendering.
const quickFrames = 40
