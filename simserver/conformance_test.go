package simserver

import (
	"strings"
	"testing"

	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/proto/simspark"
)

// conformanceTraces are the recorded sessions replayed against the
// embedded server.
var conformanceTraces = []string{
	"connect.txt",
	"step_he1_p1.txt", "step_he1_m0.5.txt", "step_he1_p8.txt", "step_he1_once.txt",
	"step_he1_gaps.txt", "step_he1_repeat.txt", "step20ms_he1_p1.txt",
	"step_he2_p5.txt", "step_he2_m5.txt", "step_lae1_p1.txt", "step_lae1_m0.5.txt",
	"step_lle4_p1.txt", "step_lle4_m0.5.txt",
	"imu_still.txt", "imu_yaw_left.txt",
	"imu_fall_forward.txt", "imu_fall_backward.txt", "imu_fall_left.txt", "imu_fall_right.txt",
	"vision_headsweep.txt", "sync_mode.txt",
}

// TestConformance replays the agent side of every trace against the
// embedded server over TCP (sync mode, replies that arrived late on the
// real-time server delayed accordingly) and compares what it returns with
// what rcssserver3d returned: the same perceptors with the same names in
// the same order in every message, See blocks in the same cycles with the
// same cheat items, mostly the same things in view, and, for the joint
// steps, every joint angle within 0.5° in every message.
//
// Known limit: in the four imu_fall traces the robot is brought down by
// ODE's dynamics; the kinematic world tips it later or (sideways) not at
// all, so which feet touch the ground (FRP) is compared only until the
// falling motion starts. TestFallLike checks the falls themselves.
func TestConformance(t *testing.T) {
	defer leaktest.Check(t)()
	var worst float64
	var worstAt string
	for _, name := range conformanceTraces {
		t.Run(name, func(t *testing.T) {
			tr := loadTrace(t, name)
			got := replayServer(t, tr, DefaultConfig())
			ignoreFRP := -1
			if strings.HasPrefix(name, "imu_fall_") {
				ignoreFRP = firstCommand(t, tr)
			}
			c := compareTrace(t, tr, got, ignoreFRP)
			if c.firstDiverge != "" {
				t.Fatalf("%s: first divergence at %s", name, c.firstDiverge)
			}
			if c.seeBlocks == 0 {
				t.Fatalf("%s: no See blocks compared", name)
			}
			same := float64(c.seeSameNames) / float64(c.seeBlocks)
			if !strings.HasPrefix(name, "imu_fall_") && same < 0.9 {
				t.Errorf("%s: only %d of %d See blocks show the same objects and features", name, c.seeSameNames, c.seeBlocks)
			}
			if strings.HasPrefix(name, "step") {
				if c.maxJointErr > 0.5 {
					t.Errorf("%s: joint angle off by %.3f° (%s)", name, c.maxJointErr, c.maxJointAt)
				}
				if c.maxJointErr > worst {
					worst, worstAt = c.maxJointErr, name+": "+c.maxJointAt
				}
			}
			t.Logf("%d messages, max joint error %.3f°, See blocks with the same items %d/%d, late replies %d",
				c.messages, c.maxJointErr, c.seeSameNames, c.seeBlocks, tr.late)
		})
	}
	t.Logf("step traces: max joint error %.3f° (%s)", worst, worstAt)
}

// firstCommand is the first message answered with a joint command.
func firstCommand(t testing.TB, tr *trace) int {
	var e simspark.Effectors
	for m := range tr.in {
		for _, r := range tr.replies[m] {
			if err := e.Parse(r); err != nil {
				t.Fatal(err)
			}
			if len(e.Joints) > 0 {
				return m
			}
		}
	}
	return len(tr.in)
}
