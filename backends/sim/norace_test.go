//go:build !race

package sim

// raceBuild is true under the race detector (race_test.go).
const raceBuild = false
