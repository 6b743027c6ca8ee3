package visioneval

import (
	"flag"
	"math"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/modules/vision"
	"github.com/robotd/robotd/render"
)

var (
	frames = flag.Int("frames", 0, "frames of TestRenderedFrames (0: its quick default)")
	seed   = flag.Uint64("seed", 1, "scene seed of TestRenderedFrames")
	dir    = flag.String("dir", "", "measure on the data set simframes wrote there instead of rendering")
)

// newPipeline is the vision pipeline with its defaults.
func newPipeline() (Pipeline, error) {
	c := vision.DefaultConfig()
	if *ballScore > 0 {
		c.BallScore = *ballScore
		c.SureBallScore = max(c.SureBallScore, c.BallScore)
	}
	return vision.New(c)
}

var ballScore = flag.Float64("ball-score", 0, "vision BallScore for the measurement (0: the default)")

// TestRenderedFrames runs the pipeline on rendered frames and asserts the
// ball criteria (Report.Check: recall at least 90 % within NearRange and
// 85 % up to FarRange, at most one false ball per 100 frames, every found
// ball within 10 % of its distance); the field features are reported, with
// floors below what they measure so that a regression shows. The full
// measurement:
//
//	go test ./experiments/visioneval -run RenderedFrames -v -args -frames=1000
func TestRenderedFrames(t *testing.T) {
	n := *frames
	if n <= 0 {
		n = quickFrames
	}
	var rep *Report
	var err error
	if *dir != "" {
		rep, err = RunDir(*dir, newPipeline, nil)
	} else {
		rep, err = Run(Config{Frames: n, Seed: *seed, NewPipeline: newPipeline}, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	if *dir != "" {
		n = rep.Frames
	} else if rep.Frames != n {
		t.Fatalf("%d frames measured, want %d", rep.Frames, n)
	}
	t.Logf("\n%s", rep.Table())
	if racetest.Enabled && *frames <= 0 {
		// The short form: too few frames for the rates below.
		if rep.FalseBalls > 0 {
			t.Errorf("%d false balls in %d frames", rep.FalseBalls, n)
		}
		return
	}
	if err := rep.Check(); err != nil {
		t.Error(err)
	}
	if rep.BallNear.Total < n/3 {
		t.Errorf("only %d balls in view within %g m of %d frames: the scenes do not test the ball", rep.BallNear.Total, NearRange, n)
	}
	if rep.Lines.Recall.Total == 0 || rep.Lines.Recall.Percent() < 35 {
		t.Errorf("line recall %v, want ≥ 35 %%", rep.Lines.Recall)
	}
	if x := rep.Intersections[2].Recall; x.Total > 0 && x.Percent() < 60 {
		t.Errorf("X intersection recall %v, want ≥ 60 %%", x)
	}
	if c := rep.Circle.Recall; c.Total > 0 && c.Percent() < 60 {
		t.Errorf("centre circle recall %v, want ≥ 60 %%", c)
	}
}

// TestMatrixMatchesRenderer: the camera matrix built from a rendered
// frame's pose projects world points to the renderer's pixels and back.
func TestMatrixMatchesRenderer(t *testing.T) {
	in := render.NAOIntrinsics(640, 480)
	robot := [3]float64{1.2, -0.7, 2.1}
	head := render.HeadOrientation(robot[2], 0.4, 0.3)
	pose := render.HeadCamera(geom.Vec3{X: robot[0], Y: robot[1], Z: 0.46}, head, render.Top)
	m := Matrix(&pose, robot, in)
	fr := newFrame(robot)
	for _, q := range [][2]float64{{2, -0.5}, {3.5, 0.4}, {1.6, 0.9}} {
		// q in the robot frame, w in the world.
		s, c := math.Sincos(robot[2])
		w := [2]float64{robot[0] + c*q[0] - s*q[1], robot[1] + s*q[0] + c*q[1]}
		u, v, ok := render.Project(&pose, &in, geom.Vec3{X: w[0], Y: w[1], Z: 0})
		if !ok {
			t.Fatalf("%v behind the camera", w)
		}
		// The renderer's continuous pixel u is the matrix's u + 0.5.
		x, y, ok := m.ImageToGround(u-0.5, v-0.5)
		want := fr.toRobot(w[0], w[1])
		if !ok || math.Hypot(x-want.X, y-want.Y) > 1e-9 {
			t.Errorf("%v: pixel (%.1f, %.1f) back to (%.4f, %.4f), want (%.4f, %.4f)", w, u, v, x, y, want.X, want.Y)
		}
	}
}

// TestReportCounts scores hand-made frames: a found ball, a false one, a
// missed one.
func TestReportCounts(t *testing.T) {
	rep := &Report{Frames: 3}
	tr := render.Truth{Robot: [3]float64{0, 0, 0}}
	tr.Ball = render.BallTruth{Present: true, Pos: [3]float64{2, 0, 0.05}, Distance: 2, InImage: true, Pixels: 100, Visible: 100}
	fr := newFrame(tr.Robot)
	// Found (5 cm off at 2 m) and a second detection: false.
	rep.addBall(&tr, &vision.Result{Balls: []vision.Ball{{Pos: hal.Vec2{X: 2.05}}, {Pos: hal.Vec2{X: 1, Y: 1}}}}, fr)
	// 30 cm off at 2 m: not found, and an off ball.
	rep.addBall(&tr, &vision.Result{Balls: []vision.Ball{{Pos: hal.Vec2{X: 2.3}}}}, fr)
	// Mostly hidden: not in the recall.
	tr.Ball.Visible = 20
	rep.addBall(&tr, &vision.Result{}, fr)
	if rep.BallNear != (Rate{1, 2}) || rep.FalseBalls != 2 || rep.OffBalls != 1 || rep.BallMostlyHidden != (Rate{0, 1}) {
		t.Errorf("near %v, false %d, off %d, mostly hidden %v", rep.BallNear, rep.FalseBalls, rep.OffBalls, rep.BallMostlyHidden)
	}
	if err := rep.Check(); err == nil {
		t.Error("Check passed a recall of 50 % and 2 false balls in 3 frames")
	}
}
