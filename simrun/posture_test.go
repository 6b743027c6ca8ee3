package simrun

import "testing"

// TestPosture: a fall begins when the head goes below LyingHead and ends
// only when it is back at StandingHead; a lean or a get-up's sway between
// the two is neither a fall nor a new one.
func TestPosture(t *testing.T) {
	tests := []struct {
		name  string
		heads []float64
		falls int
		lying bool
	}{
		{"standing", []float64{0.54, 0.52, 0.5, 0.53}, 0, false},
		{"leaning on another robot", []float64{0.54, 0.5, 0.47, 0.46, 0.49}, 0, false},
		{"a fall and a get-up", []float64{0.54, 0.4, 0.2, 0.08, 0.25, 0.38, 0.52}, 1, false},
		{"a get-up that sways back down", []float64{0.54, 0.1, 0.35, 0.2, 0.4, 0.28, 0.5}, 1, false},
		{"two falls", []float64{0.54, 0.1, 0.5, 0.2, 0.1}, 2, true},
		{"lying from the start", []float64{0.1, 0.1}, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Posture
			falls := 0
			for _, h := range tc.heads {
				if _, fell := p.Update(h); fell {
					falls++
				}
			}
			if falls != tc.falls || p.Lying() != tc.lying {
				t.Fatalf("heads %v: %d falls, lying %v; want %d, %v", tc.heads, falls, p.Lying(), tc.falls, tc.lying)
			}
		})
	}
}
