//go:build !race

package scenarios

// raceBuild is true under the race detector (race_test.go).
const raceBuild = false
