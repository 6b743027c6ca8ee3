package simrun

import (
	"testing"

	"github.com/robotd/robotd/hal"
)

// TestFallPose: a commanded fall to the side swings both hip rolls the
// same way (hip rolls positive tip a NAO to its right: backends/sim's
// adapter, from the recorded imu_fall_right) and both ankle rolls the
// other way, within the NAO's joint limits, and leaves the pitches to motion;
// the falls to the front and back pitch the ankles and hips as before.
func TestFallPose(t *testing.T) {
	tests := []struct {
		fall        Fall
		hip, ankle  float64 // sign of both hip rolls and of both ankle rolls
		pitches     bool    // sets the leg pitches
		ankle0, hp0 hal.Radians
	}{
		{FallLeft, -1, 1, false, 0, 0},
		{FallRight, 1, -1, false, 0, 0},
		{FallFront, 0, 0, true, -1.0, 0.5},
		{FallBack, 0, 0, true, 0.9, -0.5},
	}
	for _, tc := range tests {
		t.Run(tc.fall.String(), func(t *testing.T) {
			var c hal.JointCommand
			const untouched = hal.Radians(0.123)
			for j := range c.Angle {
				c.Angle[j] = untouched
			}
			fallPose(tc.fall, &c)
			for j := range hal.Joint(hal.NumJoints) {
				if !tc.pitches && c.Angle[j] != untouched && c.Angle[j] != j.Clamp(c.Angle[j]) {
					t.Errorf("%v=%v outside its limits", j, c.Angle[j])
				}
			}
			sign := func(a hal.Radians) float64 {
				switch {
				case a > 0 && a != untouched:
					return 1
				case a < 0:
					return -1
				}
				return 0
			}
			for _, j := range []hal.Joint{hal.LHipRoll, hal.RHipRoll} {
				if s := sign(c.Angle[j]); s != tc.hip || (tc.hip != 0 && c.Stiffness[j] != 1) {
					t.Errorf("%v=%v stiffness %v, want sign %v", j, c.Angle[j], c.Stiffness[j], tc.hip)
				}
			}
			for _, j := range []hal.Joint{hal.LAnkleRoll, hal.RAnkleRoll} {
				if s := sign(c.Angle[j]); s != tc.ankle {
					t.Errorf("%v=%v, want sign %v", j, c.Angle[j], tc.ankle)
				}
			}
			for _, j := range []hal.Joint{hal.LAnklePitch, hal.RAnklePitch, hal.LHipPitch, hal.RHipPitch} {
				if set := c.Angle[j] != untouched; set != tc.pitches {
					t.Errorf("%v=%v: set %v, want %v", j, c.Angle[j], set, tc.pitches)
				}
			}
			if tc.pitches && (c.Angle[hal.LAnklePitch] != tc.ankle0 || c.Angle[hal.LHipPitch] != tc.hp0) {
				t.Errorf("ankle pitch %v, hip pitch %v; want %v, %v", c.Angle[hal.LAnklePitch], c.Angle[hal.LHipPitch], tc.ankle0, tc.hp0)
			}
		})
	}
}

// TestFallNames: every commanded fall has a name FallByName reads back.
func TestFallNames(t *testing.T) {
	for f := FallFront; f <= FallRight; f++ {
		if g, ok := FallByName(f.String()); !ok || g != f {
			t.Errorf("FallByName(%q) = %v, %v", f.String(), g, ok)
		}
	}
	if _, ok := FallByName("up"); ok {
		t.Error(`FallByName("up") is a fall`)
	}
}
