package motion

import (
	"testing"

	"github.com/robotd/robotd/hal"
)

func TestMoveTowardsIsSpeedLimitedAndClamped(t *testing.T) {
	var cmd hal.JointCommand
	var target [hal.NumJoints]hal.Radians
	target[hal.HeadYaw] = 0.1
	target[hal.LKneePitch] = 5 // beyond the limit: clamped
	const dt, speed = 0.01, 1.0
	for i := 1; i <= 5; i++ {
		if MoveTowards(&cmd, &target, speed, dt, 0.001) {
			t.Fatalf("settled after %d steps", i)
		}
	}
	if got := float64(cmd.Angle[hal.HeadYaw]); got < 0.0499 || got > 0.0501 {
		t.Fatalf("HeadYaw after 5 steps at 1 rad/s = %v, want 0.05", got)
	}
	for range 300 {
		MoveTowards(&cmd, &target, speed, dt, 0.001)
	}
	if !MoveTowards(&cmd, &target, speed, dt, 0.001) {
		t.Fatal("not settled after 3 s")
	}
	if cmd.Angle[hal.LKneePitch] != hal.Joints[hal.LKneePitch].Max {
		t.Fatalf("knee %v, want clamped to %v", cmd.Angle[hal.LKneePitch], hal.Joints[hal.LKneePitch].Max)
	}
}
