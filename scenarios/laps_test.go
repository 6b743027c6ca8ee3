package scenarios

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
)

// TestLocalisationWalkingLaps: walking laps around the centre circle for
// 30 s (most of a lap), the pose error against the ground
// truth has a median of at most 15 cm and 10°, and a 95th percentile of at
// most 35 cm.
func TestLocalisationWalkingLaps(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	w, stop := startWorld(t)
	defer stop()
	const radius, speed = 1.2, 0.2 // m, m/s
	lap := func(el time.Duration) msg.MotionRequest {
		if el < 2*time.Second {
			return msg.MotionRequest{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadScan}}
		}
		return msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: speed, Turn: speed / radius},
			Head: msg.HeadRequest{Mode: msg.HeadScan}}
	}
	probe := &worldProbe{}
	r, err := w.AddRobot(scriptedRobot(sim.Beam{X: 0, Y: -radius, Deg: 0}, lap, probe))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.WaitFor(ctx, 5*time.Second, func() bool { _, _, ok := poseError(r); return ok }); err != nil {
		t.Fatal(err)
	}
	var dists, angles []float64
	var travelled float64
	var prev hal.Pose2
	fell := false
	probe.set(func(_ hal.Tick, gt hal.GroundTruth, _ msg.Ball, p msg.RobotPose) {
		if !gt.Valid || !p.Valid {
			return
		}
		// The path in 10 cm chords, so the steps' sway does not count.
		if d := math.Hypot(float64(gt.Pose.X-prev.X), float64(gt.Pose.Y-prev.Y)); prev == (hal.Pose2{}) || d >= 0.1 {
			if prev != (hal.Pose2{}) {
				travelled += d
			}
			prev = gt.Pose
		}
		dists = append(dists, math.Hypot(float64(p.Pose.X-gt.Pose.X), float64(p.Pose.Y-gt.Pose.Y)))
		angles = append(angles, math.Abs(math.Remainder(float64(p.Pose.Heading-gt.Pose.Heading), 2*math.Pi)))
	})
	r.WaitFor(ctx, 30*time.Second, func() bool {
		if b, _ := r.Body(); b.Fall != msg.Upright {
			fell = true
		}
		return false
	})
	probe.set(nil)
	probe.mu.Lock()
	defer probe.mu.Unlock()
	if fell {
		t.Error("the robot fell while walking")
	}
	if travelled < 2.5 {
		t.Errorf("walked only %.1f m in 30 s: the laps did not happen", travelled)
	}
	if len(dists) < 1500 {
		t.Fatalf("only %d samples", len(dists))
	}
	slices.Sort(dists)
	slices.Sort(angles)
	med, p95, amed := dists[len(dists)/2], dists[len(dists)*95/100], angles[len(angles)/2]
	t.Logf("walked %.1f m; pose error over %d ticks: median %.1f cm / %.1f°, 95th percentile %.1f cm", travelled, len(dists), med*100, amed*180/math.Pi, p95*100)
	if med > 0.15 || amed > 10*math.Pi/180 || p95 > 0.35 {
		t.Errorf("pose error median %.1f cm / %.1f°, 95th percentile %.1f cm; want ≤ 15 cm / 10°, ≤ 35 cm", med*100, amed*180/math.Pi, p95*100)
	}
}
