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
