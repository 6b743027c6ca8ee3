//go:build race

package sim

// raceBuild is true under the race detector, which makes rendering about
// ten times slower: tests that render many frames render fewer then.
const raceBuild = true
