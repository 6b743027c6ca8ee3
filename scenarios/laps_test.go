//go:build !ode

// The kinematic world: perception and behaviour scenarios (the motion
// scenarios, motion_test.go, run in the physics mode, with -tags ode).

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
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/simrun"
)

// lapper is one robot of TestLocalisationWalkingLaps and what it measured.
type lapper struct {
	name string
	r    *simrun.Robot
	// probe's function fills the rest, under probe.mu.
	probe          *worldProbe
	dists, angles  []float64
	travelled      float64
	prev           hal.Pose2
	maxMedianAngle float64 // degrees
}

// TestLocalisationWalkingLaps: walking laps around the centre circle for
// 30 s (most of a lap), the pose error against the ground truth has a
// median of at most 15 cm and 10°, and a 95th percentile of at most 35 cm.
// A second robot on the other side of the circle localises without the
// goal posts' IDs (every observation is ambiguous, as on a real field):
// median at most 15 cm and 5°.
//
// Under the race detector the robots walk for 15 s (the distance and the
// number of samples asked for halve).
func TestLocalisationWalkingLaps(t *testing.T) {
	defer leaktest.Check(t)()
	walk := 30 * time.Second
	if racetest.Enabled {
		walk = 15 * time.Second
	}
	scale := walk.Seconds() / 30
	ctx := context.Background()
	w, stop := startWorld(t)
	defer stop()
	const radius, speed = 1.2, 0.2 // m, m/s
	lap := lapMotion(radius, speed)
	laps := []*lapper{
		{name: "goal posts with IDs", maxMedianAngle: 10},
		{name: "unlabeled (no post IDs)", maxMedianAngle: 5},
	}
	for i, l := range laps {
		l.probe = &worldProbe{}
		cfg := scriptedRobot(sim.Beam{X: 0, Y: -radius, Deg: 0}, lap, l.probe)
		if i == 1 {
			// The other side of the circle, in the own half: (-1.2, 0)
			// facing -y, walking the same way round.
			cfg.Player, cfg.Beam = 2, sim.Beam{X: -radius, Y: 0, Deg: -90}
			probe := l.probe
			cfg.Modules = func(c *robot.Config) []runner.Module {
				c.Perception.Localisation.PostIDs = false
				return []runner.Module{perception.New(c.Perception), motion.New(c.Motion), &perceiver{request: lap}, probe}
			}
		}
		var err error
		if l.r, err = w.AddRobot(cfg); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range laps {
		r := l.r
		if _, err := r.WaitFor(ctx, 5*time.Second, func() bool { _, _, ok := poseError(r); return ok }); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range laps {
		l.probe.set(func(_ hal.Tick, gt hal.GroundTruth, _ msg.Ball, p msg.RobotPose) {
			if !gt.Valid || !p.Valid {
				return
			}
			// The path in 10 cm chords, so the steps' sway does not count.
			if d := math.Hypot(float64(gt.Pose.X-l.prev.X), float64(gt.Pose.Y-l.prev.Y)); l.prev == (hal.Pose2{}) || d >= 0.1 {
				if l.prev != (hal.Pose2{}) {
					l.travelled += d
				}
				l.prev = gt.Pose
			}
			l.dists = append(l.dists, math.Hypot(float64(p.Pose.X-gt.Pose.X), float64(p.Pose.Y-gt.Pose.Y)))
			l.angles = append(l.angles, math.Abs(math.Remainder(float64(p.Pose.Heading-gt.Pose.Heading), 2*math.Pi)))
		})
	}
	fell := [2]bool{}
	laps[0].r.WaitFor(ctx, walk, func() bool {
		for i, l := range laps {
			if b, _ := l.r.Body(); b.Fall != msg.Upright {
				fell[i] = true
			}
		}
		return false
	})
	for i, l := range laps {
		l.probe.set(nil)
		l.probe.mu.Lock()
		if fell[i] {
			t.Errorf("%s: the robot fell while walking", l.name)
		}
		if l.travelled < 2.5*scale {
			t.Errorf("%s: walked only %.1f m in %v: the laps did not happen", l.name, l.travelled, walk)
		}
		if len(l.dists) < int(1500*scale) {
			t.Errorf("%s: only %d samples", l.name, len(l.dists))
			l.probe.mu.Unlock()
			continue
		}
		slices.Sort(l.dists)
		slices.Sort(l.angles)
		med, p95, amed := l.dists[len(l.dists)/2], l.dists[len(l.dists)*95/100], l.angles[len(l.angles)/2]*180/math.Pi
		t.Logf("%s: walked %.1f m; pose error over %d ticks: median %.1f cm / %.1f°, 95th percentile %.1f cm", l.name, l.travelled, len(l.dists), med*100, amed, p95*100)
		if med > 0.15 || amed > l.maxMedianAngle || p95 > 0.35 {
			t.Errorf("%s: pose error median %.1f cm / %.1f°, 95th percentile %.1f cm; want ≤ 15 cm / %v°, ≤ 35 cm", l.name, med*100, amed, p95*100, l.maxMedianAngle)
		}
		l.probe.mu.Unlock()
	}
}

// lapMotion stands for 2 s with the head scanning, then walks circles of
// radius (m) at speed (m/s), still scanning.
func lapMotion(radius, speed float64) func(time.Duration) msg.MotionRequest {
	return func(el time.Duration) msg.MotionRequest {
		if el < 2*time.Second {
			return msg.MotionRequest{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadScan}}
		}
		return msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: hal.MetresPerSec(speed), Turn: hal.RadPerSec(speed / radius)},
			Head: msg.HeadRequest{Mode: msg.HeadScan}}
	}
}
