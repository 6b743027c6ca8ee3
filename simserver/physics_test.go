//go:build ode

package simserver

import (
	"math"
	"strings"
	"testing"

	"github.com/robotd/robotd/proto/simspark"
)

// The physics mode against the real server's traces (internal/traces/testdata,
// recorded on rcssserver3d's UNSW fork): each test states its tolerance and
// logs the worst difference it saw.

func odeConfig() Config {
	cfg := DefaultConfig()
	cfg.Physics = PhysicsODE
	cfg.NoVisionNoise = true
	return cfg
}

var stepJoint = map[string]simspark.JointID{"he1": simspark.HJ1, "he2": simspark.HJ2, "lae1": simspark.LAJ1, "lle4": simspark.LLJ4}

// firstMove is the first message whose reply commands the joint with a
// non-zero velocity.
func firstMove(tr *trace, eff string) int {
	for m := 0; m < len(tr.in); m++ {
		r := string(tr.replyFor(m))
		if i := strings.Index(r, "("+eff+" "); i >= 0 && !strings.HasPrefix(r[i+len(eff)+2:], "0)") {
			return m
		}
	}
	return -1
}

// TestPhysicsStepResponses: a joint's response to velocity steps (and to
// one command, gaps and repeats after rest) follows the real server's: the
// same delay to the first movement, and an RMS difference of the joint's
// angle over the whole trace of at most 0.5°.
func TestPhysicsStepResponses(t *testing.T) {
	const tolRMS = 0.5 // degrees
	for _, name := range []string{"step_he1_p1.txt", "step_he1_m0.5.txt", "step_he1_p8.txt", "step_he2_p5.txt",
		"step_he2_m5.txt", "step_lae1_p1.txt", "step_lae1_m0.5.txt", "step_lle4_p1.txt", "step_lle4_m0.5.txt",
		"step_he1_once.txt", "step_he1_gaps.txt", "step_he1_repeat.txt", "sync_repeat.txt"} {
		t.Run(name, func(t *testing.T) {
			eff := strings.SplitN(strings.TrimPrefix(name, "step_"), "_", 2)[0]
			if name == "sync_repeat.txt" {
				eff = "he1"
			}
			id := stepJoint[eff]
			tr := loadTrace(t, name)
			got := replayWorld(t, tr, odeConfig())
			k := firstMove(tr, eff)
			if k < 0 {
				t.Fatalf("no command for %s", eff)
			}
			var sum, worst float64
			worstAt := 0
			n := 0
			var want0, got0 float64
			wantDelay, gotDelay := -1, -1
			for m := range tr.in {
				w, ok1 := parsePerception(t, tr.in[m]).joint(id)
				g, ok2 := parsePerception(t, got[m]).joint(id)
				if !ok1 || !ok2 {
					t.Fatalf("message %d: no %s angle", m, eff)
				}
				if m == k {
					want0, got0 = w, g
				}
				if m > k && wantDelay < 0 && math.Abs(w-want0) > 0.05 {
					wantDelay = m - k
				}
				if m > k && gotDelay < 0 && math.Abs(g-got0) > 0.05 {
					gotDelay = m - k
				}
				d := g - w
				sum += d * d
				n++
				if math.Abs(d) > worst {
					worst, worstAt = math.Abs(d), m
				}
			}
			rms := math.Sqrt(sum / float64(n))
			t.Logf("%s: delay %d (real %d), RMS %.3f° (tolerance %.1f°), worst %.2f° at message %d", eff, gotDelay, wantDelay, rms, tolRMS, worst, worstAt)
			if gotDelay != wantDelay {
				t.Errorf("delay %d cycles, the real server's %d", gotDelay, wantDelay)
			}
			if rms > tolRMS {
				t.Errorf("RMS difference %.3f° > %.1f°", rms, tolRMS)
			}
		})
	}
}

// imuSeries is GYR and ACC per message.
func imuSeries(t *testing.T, msgs [][]byte) (gyr, acc [][3]float64) {
	for _, b := range msgs {
		p := parsePerception(t, b)
		gyr = append(gyr, p.p.GYR.V)
		acc = append(acc, p.p.ACC.V)
	}
	return gyr, acc
}

// lieDown is the first message from which the torso stays tilted more than
// 60° (ACC z below g·cos 60°) to the end, and the peak gyro axis (0 x, 1 y)
// with its sign, and the final ACC.
func lieDown(gyr, acc [][3]float64) (at, axis int, sign float64, final [3]float64) {
	at = -1
	for m := len(acc) - 1; m >= 0; m-- {
		if acc[m][2] >= 9.81*0.5 {
			break
		}
		at = m
	}
	peak := 0.0
	for _, g := range gyr {
		for i := 0; i < 2; i++ {
			if math.Abs(g[i]) > math.Abs(peak) {
				peak, axis = g[i], i
			}
		}
	}
	return at, axis, math.Copysign(1, peak), acc[len(acc)-1]
}

// TestPhysicsFalls: tipping the robot over with both ankle pitches or both
// hip rolls (imu_fall_*.txt) makes it fall the same way as on the real
// server (the axis and sign of the gyro's peak, the axis and sign of the
// final ACC) and lie down (tilt past 60° for good) within 0.3 s of it.
func TestPhysicsFalls(t *testing.T) {
	const tolLie = 0.3 // seconds
	for _, name := range []string{"imu_fall_forward.txt", "imu_fall_backward.txt", "imu_fall_left.txt", "imu_fall_right.txt"} {
		t.Run(name, func(t *testing.T) {
			tr := loadTrace(t, name)
			got := replayWorld(t, tr, odeConfig())
			wg, wa := imuSeries(t, tr.in)
			gg, ga := imuSeries(t, got)
			wAt, wAxis, wSign, wFinal := lieDown(wg, wa)
			gAt, gAxis, gSign, gFinal := lieDown(gg, ga)
			dt := math.Abs(float64(gAt-wAt)) * 0.01
			t.Logf("lies down at message %d (real %d): %.2f s apart (tolerance %.1f s); gyro peak axis %d sign %+.0f (real %d %+.0f); final ACC %.2f (real %.2f)",
				gAt, wAt, dt, tolLie, gAxis, gSign, wAxis, wSign, gFinal, wFinal)
			if wAt < 0 {
				t.Fatal("the real robot did not lie down: trace misread")
			}
			if gAt < 0 || dt > tolLie {
				t.Errorf("lies down at message %d, the real robot at %d", gAt, wAt)
			}
			if gAxis != wAxis || gSign != wSign {
				t.Errorf("falls about axis %d sign %+.0f, the real robot about %d sign %+.0f", gAxis, gSign, wAxis, wSign)
			}
			for i := range 3 {
				if math.Abs(wFinal[i]) > 5 && math.Signbit(gFinal[i]) != math.Signbit(wFinal[i]) || math.Abs(gFinal[i]-wFinal[i]) > 5 {
					t.Errorf("final ACC %.2f, the real robot's %.2f", gFinal, wFinal)
					break
				}
			}
		})
	}
}
