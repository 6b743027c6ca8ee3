//go:build !ode

package scenarios

import (
	"context"
	"flag"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
)

// visionLaps is how long TestLocalisationVisionInTheLoop walks: short in
// CI, longer for a measurement (go test -run VisionInTheLoop
// -vision-laps=2m ./scenarios).
var visionLaps = flag.Duration("vision-laps", 12*time.Second, "simulation time TestLocalisationVisionInTheLoop walks its laps")

// visionBlind darkens the rendered images until the pipeline sees
// nothing: the control run of the measurement, localising from odometry
// alone (its error bounds are then not expected to hold).
var visionBlind = flag.Bool("vision-blind", false, "TestLocalisationVisionInTheLoop renders images too dark to see anything in (a control run)")

// TestLocalisationVisionInTheLoop: a robot whose backend renders its
// camera images (sim.vision.source rendered) and which sees only through
// robotd's own vision pipeline, without goal post IDs, walks laps around
// the centre circle; the pose error against the ground truth has a
// median of at most 15 cm and 5°.
func TestLocalisationVisionInTheLoop(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	w, stop := startWorld(t)
	defer stop()
	const radius, speed = 1.2, 0.2 // m, m/s
	lap := lapMotion(radius, speed)
	probe := &worldProbe{}
	cfg := scriptedRobot(sim.Beam{X: -radius, Y: 0, Deg: -90}, lap, probe)
	sc := sim.DefaultConfig()
	sc.ReadTimeout = config.Duration(10 * time.Second)
	sc.DeadTimeout = config.Duration(20 * time.Second)
	sc.HandshakeTimeout = config.Duration(20 * time.Second)
	sc.Vision.Source = sim.SourceRendered
	laps := *visionLaps
	if racetest.Enabled && !flagSet("vision-laps") {
		// The race detector makes rendering about ten times slower: a
		// short walk, rendered at 11 Hz, runs the same goroutines (the
		// full walk runs without it; scripts/test runs both).
		laps, sc.Vision.Render.Every = 3*time.Second, 3
	}
	if *visionBlind {
		sc.Vision.Render.Options.Brightness, sc.Vision.Render.Options.Noise = 0.1, 0
	}
	cfg.Sim = &sc
	cfg.Modules = func(c *robot.Config) []runner.Module {
		c.Perception.Localisation.PostIDs = false
		return []runner.Module{perception.New(c.Perception), motion.New(c.Motion), &perceiver{request: lap}, probe}
	}
	r, err := w.AddRobot(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.WaitFor(ctx, 5*time.Second, func() bool { _, _, ok := poseError(r); return ok }); err != nil {
		t.Fatal(err)
	}
	var dists, angles []float64
	probe.set(func(_ hal.Tick, gt hal.GroundTruth, _ msg.Ball, p msg.RobotPose) {
		if !gt.Valid || !p.Valid {
			return
		}
		dists = append(dists, math.Hypot(float64(p.Pose.X-gt.Pose.X), float64(p.Pose.Y-gt.Pose.Y)))
		angles = append(angles, math.Abs(math.Remainder(float64(p.Pose.Heading-gt.Pose.Heading), 2*math.Pi)))
	})
	fell := false
	r.WaitFor(ctx, laps, func() bool {
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
	want := int(laps.Seconds() * 50) // a tick every 10 ms; half of them with a pose
	if len(dists) < want {
		t.Fatalf("only %d samples in %v", len(dists), laps)
	}
	slices.Sort(dists)
	slices.Sort(angles)
	med, p95, amed := dists[len(dists)/2], dists[len(dists)*95/100], angles[len(angles)/2]*180/math.Pi
	t.Logf("vision in the loop, %v: pose error over %d ticks: median %.1f cm / %.1f°, 95th percentile %.1f cm", laps, len(dists), med*100, amed, p95*100)
	if med > 0.15 || amed > 5 {
		t.Errorf("pose error median %.1f cm / %.1f°; want ≤ 15 cm / 5°", med*100, amed)
	}
}

// flagSet reports whether the test flag name was given.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
