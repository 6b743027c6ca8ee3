package hal_test

import (
	"math"
	"testing"

	"github.com/robotd/robotd/hal"
)

func TestJointTable(t *testing.T) {
	seen := map[string]bool{}
	for j := range hal.Joint(hal.NumJoints) {
		info := hal.Joints[j]
		if info.Name == "" || seen[info.Name] {
			t.Errorf("joint %d: empty or duplicate name %q", j, info.Name)
		}
		seen[info.Name] = true
		if info.Min >= info.Max {
			t.Errorf("%s: min %v ≥ max %v", info.Name, info.Min, info.Max)
		}
		if got, ok := hal.JointByName(info.Name); !ok || got != j {
			t.Errorf("JointByName(%q) = %v, %v", info.Name, got, ok)
		}
	}
	// LoLA order spot checks (protocols.md §1.3).
	for idx, name := range map[hal.Joint]string{0: "HeadYaw", 7: "LHipYawPitch", 13: "RHipRoll", 18: "RShoulderPitch", 24: "RHand"} {
		if idx.String() != name {
			t.Errorf("joint %d is %s, want %s", idx, idx, name)
		}
	}
	var n int
	for j := range hal.Joint(hal.NumJoints) {
		if hal.SimSparkJoints.Has(j) {
			n++
		}
	}
	if n != 21 || hal.SimSparkJoints.Has(hal.LWristYaw) || hal.SimSparkJoints.Has(hal.RHand) {
		t.Errorf("SimSpark has %d LoLA joints, want 21 (22 minus the mirrored RHipYawPitch), no wrists or hands", n)
	}
	if _, ok := hal.JointByName("RHipYawPitch"); ok {
		t.Error("RHipYawPitch must not be a LoLA joint")
	}
}

func TestClampAndUnits(t *testing.T) {
	if got := hal.LKneePitch.Clamp(-1); got != hal.Joints[hal.LKneePitch].Min {
		t.Errorf("clamp below = %v", got)
	}
	if got := hal.HeadYaw.Clamp(0.3); got != 0.3 {
		t.Errorf("clamp inside = %v", got)
	}
	if d := hal.Deg(180); math.Abs(float64(d)-math.Pi) > 1e-12 || math.Abs(d.Degrees()-180) > 1e-9 {
		t.Errorf("Deg(180) = %v", d)
	}
	var v hal.Vision
	for range hal.MaxObservations {
		if !v.Add(hal.Observation{Kind: hal.ObjBall}) {
			t.Fatal("Add refused before full")
		}
	}
	if v.Add(hal.Observation{}) || v.N != hal.MaxObservations {
		t.Fatal("Add accepted past capacity")
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct{ in, want hal.Radians }{
		{0, 0},
		{math.Pi, math.Pi},
		{-math.Pi, math.Pi},
		{3 * math.Pi / 2, -math.Pi / 2},
		{-3 * math.Pi / 2, math.Pi / 2},
		{2 * math.Pi, 0},
		{7 * math.Pi, math.Pi},
		{hal.Radians(math.NaN()), 0},
		{hal.Radians(math.Inf(1)), 0},
		{hal.Radians(math.Inf(-1)), 0},
	} {
		if got := tc.in.Wrap(); math.Abs(float64(got-tc.want)) > 1e-12 {
			t.Errorf("Wrap(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := hal.Radians(1.25).Wrap(); got != 1.25 {
		t.Errorf("Wrap changed an angle within range: %v", got)
	}
}

// TestComposeRelative: moving by b from a, then asking where that is from
// a, gives b back; points move like positions; three cases by hand.
func TestComposeRelative(t *testing.T) {
	near := func(a, b hal.Pose2) bool {
		return math.Abs(float64(a.X-b.X)) < 1e-12 && math.Abs(float64(a.Y-b.Y)) < 1e-12 &&
			math.Abs(float64((a.Heading-b.Heading).Wrap())) < 1e-12
	}
	for _, tc := range []struct{ a, b, composed hal.Pose2 }{
		{hal.Pose2{}, hal.Pose2{X: 1, Y: 2, Heading: 0.5}, hal.Pose2{X: 1, Y: 2, Heading: 0.5}},
		{hal.Pose2{X: 1, Heading: math.Pi / 2}, hal.Pose2{X: 2}, hal.Pose2{X: 1, Y: 2, Heading: math.Pi / 2}},
		{hal.Pose2{X: -1, Y: 1, Heading: math.Pi}, hal.Pose2{X: 1, Y: 1, Heading: math.Pi / 2}, hal.Pose2{X: -2, Y: 0, Heading: -math.Pi / 2}},
		{hal.Pose2{X: 0.3, Y: -2, Heading: 3}, hal.Pose2{X: -0.4, Y: 0.1, Heading: 1}, hal.Pose2{}},
	} {
		got := tc.a.Compose(tc.b)
		if tc.composed != (hal.Pose2{}) && !near(got, tc.composed) {
			t.Errorf("%+v.Compose(%+v) = %+v, want %+v", tc.a, tc.b, got, tc.composed)
		}
		if got.Heading <= -math.Pi || got.Heading > math.Pi {
			t.Errorf("%+v.Compose(%+v) heading %v not wrapped", tc.a, tc.b, got.Heading)
		}
		if back := tc.a.Relative(got); !near(back, tc.b) {
			t.Errorf("%+v.Relative(%+v) = %+v, want %+v back", tc.a, got, back, tc.b)
		}
		// A point moves like a pose's position.
		v := hal.Vec2{X: float64(tc.b.X), Y: float64(tc.b.Y)}
		if g := tc.a.Global(v); math.Abs(g.X-float64(got.X)) > 1e-12 || math.Abs(g.Y-float64(got.Y)) > 1e-12 {
			t.Errorf("%+v.Global(%v) = %v, want the composed position %+v", tc.a, v, g, got)
		}
		if l := tc.a.Local(tc.a.Global(v)); math.Abs(l.X-v.X) > 1e-12 || math.Abs(l.Y-v.Y) > 1e-12 {
			t.Errorf("%+v.Local(Global(%v)) = %v, want it back", tc.a, v, l)
		}
	}
}
