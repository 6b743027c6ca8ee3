package vision

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/vision/nets"
	"github.com/robotd/robotd/modules/vision/visiontest"
)

// mrBurns is the real set's frame with two close robots
// (GO2018G5C_MrBurns_00312222_U, upper camera) and its labelled camera
// pose (pitch 30.4°, 0.5 m, 60.97° field of view).
func mrBurns(t testing.TB) (robotFrame, Projector) {
	t.Helper()
	for _, f := range loadRobotFrames(t) {
		if strings.Contains(f.file, "GO2018G5C_MrBurns_00312222_U") {
			return f, visiontestPinhole(f.img.Width, f.img.Height, 60.97, 0.5, 30.4, 0)
		}
	}
	t.Fatal("GO2018G5C_MrBurns_00312222_U not in the real set")
	return robotFrame{}, nil
}

// TestPipelineRobots: the pipeline runs the robot detector and reports
// the two close robots of the MrBurns frame as boxes (Result.Robots) and
// as obstacles, each once, with observations of kind ObjRobot; with
// no_robot_detector there are no boxes.
func TestPipelineRobots(t *testing.T) {
	oneGoroutine(t)
	f, cam := mrBurns(t)
	p := mustNew(t)
	var out hal.Vision
	r, err := p.Process(f.img, cam, &out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Work.RobotRuns != 1 {
		t.Errorf("robot runs %d, want 1", r.Work.RobotRuns)
	}
	for _, want := range []RobotBox{{X0: 180, Y0: 0, X1: 277, Y1: 117}, {X0: 543, Y0: 0, X1: 640, Y1: 214}} {
		best := 0.0
		for _, b := range r.Robots {
			best = max(best, robotIoU(want, b))
		}
		if best < 0.5 {
			t.Errorf("robot %v: best box IoU %.2f, want ≥ 0.5 (boxes %v)", want, best, r.Robots)
		}
	}
	robots := 0
	for i, o := range r.Obstacles {
		if o.Score == 0 {
			continue
		}
		robots++
		d := math.Hypot(o.Pos.X, o.Pos.Y)
		if !(d > 0.3 && d < 4) || o.Width <= 0 || o.Width > robotMaxWidth || o.U0 > o.U1 {
			t.Errorf("robot obstacle %d %+v: distance %.2f m", i, o, d)
		}
		// No non-field region where a robot is.
		for _, q := range r.Obstacles {
			if q.Score == 0 && robotCovers([]RobotBox{{X0: float64(o.U0), Y0: 0, X1: float64(o.U1 + 1), Y1: float64(o.V + 1)}}, q) {
				t.Errorf("robot %+v reported again as the region %+v", o, q)
			}
		}
	}
	if robots < 2 {
		t.Errorf("%d robot obstacles of %d obstacles, want ≥ 2: %+v", robots, len(r.Obstacles), r.Obstacles)
	}
	n := 0
	for _, ob := range out.Obs[:out.N] {
		if ob.Kind == hal.ObjRobot {
			n++
			if !(ob.DistanceSigma > 0) || !(ob.BearingSigma > 0) || ob.Team != hal.TeamUnknown {
				t.Errorf("robot observation %+v: want an uncertainty and an unknown team", ob)
			}
		}
	}
	if n != len(r.Obstacles) {
		t.Errorf("%d robot observations for %d obstacles", n, len(r.Obstacles))
	}
	t.Logf("boxes %v\nobstacles %+v", r.Robots, r.Obstacles)

	off, err := New(Config{NoRobotDetector: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err = off.Process(f.img, cam, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Robots) != 0 || r.Work.RobotRuns != 0 || slices.ContainsFunc(r.Obstacles, func(o Obstacle) bool { return o.Score != 0 }) {
		t.Errorf("detector off: boxes %v, runs %d, obstacles %+v", r.Robots, r.Work.RobotRuns, r.Obstacles)
	}
}

// TestRobotDetectorEvery: with robot_detector_every 3 the detector runs
// on the first of every three frames; the frames between keep its boxes
// for the balls and report no robot; a frame of another size starts
// over; a frame the detector cannot take (not 80k×60k) has no boxes.
func TestRobotDetectorEvery(t *testing.T) {
	oneGoroutine(t)
	f, cam := mrBurns(t)
	p, err := New(Config{RobotDetectorEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	var first []RobotBox
	for i := range 7 {
		r, err := p.Process(f.img, cam, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if i%3 == 0 {
			want = 1
		}
		if r.Work.RobotRuns != want {
			t.Errorf("frame %d: robot runs %d, want %d", i, r.Work.RobotRuns, want)
		}
		if i == 0 {
			first = slices.Clone(r.Robots)
			continue
		}
		if !slices.Equal(r.Robots, first) {
			t.Errorf("frame %d: boxes %v, want the first frame's %v", i, r.Robots, first)
		}
		if want == 0 && slices.ContainsFunc(r.Obstacles, func(o Obstacle) bool { return o.Score != 0 }) {
			t.Errorf("frame %d without a run reports robots: %+v", i, r.Obstacles)
		}
	}
	if len(first) == 0 {
		t.Fatal("no robots in the first frame")
	}
	// 632×480 is not the network's size: no boxes, none kept.
	small := Image{Data: make([]byte, 632*480*2), Width: 632, Height: 480}
	for y := range 480 {
		copy(small.Data[y*632*2:(y+1)*632*2], f.img.Data[y*640*2:])
	}
	r, err := p.Process(small, visiontestPinhole(632, 480, 60.97, 0.5, 30.4, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Robots) != 0 || r.Work.RobotRuns != 0 {
		t.Errorf("632×480: boxes %v, runs %d", r.Robots, r.Work.RobotRuns)
	}
}

// TestRobotCovers: a robot box covers a non-field region whose foot is at
// its bottom and half of whose columns it spans; not one whose foot lies
// far below it, above its top, or mostly beside it.
func TestRobotCovers(t *testing.T) {
	box := []RobotBox{{X0: 100, Y0: 50, X1: 160, Y1: 250, Score: 0.9}}
	for _, c := range []struct {
		o    Obstacle
		want bool
	}{
		{Obstacle{U0: 98, U1: 162, V: 255}, true},
		{Obstacle{U0: 140, U1: 190, V: 240}, false}, // 21 of 51 columns
		{Obstacle{U0: 130, U1: 170, V: 240}, true},  // 30 of 41
		{Obstacle{U0: 100, U1: 160, V: 320}, false}, // foot 70 px below
		{Obstacle{U0: 100, U1: 160, V: 40}, false},  // above the box
	} {
		if got := robotCovers(box, c.o); got != c.want {
			t.Errorf("%+v: covered %v, want %v", c.o, got, c.want)
		}
	}
	if robotCovers(nil, Obstacle{U0: 0, U1: 10, V: 10}) {
		t.Error("covered without boxes")
	}
}

// TestBallOnRobotBox: a ball on a robot box needs RobotBallScore; off the
// box BallScore does; one the box's side cuts is beside the robot. The network is faked (ball
// probability 0.95, between the two), the box is the last run's (the
// detector runs on every 30th frame).
func TestBallOnRobotBox(t *testing.T) {
	img, cam := scene(visiontest.Scene{Robot: hal.Pose2{X: -3}, Ball: hal.Vec2{X: -1.5, Y: 0.1}, BallVisible: true, Noise: 2, Seed: 3}, 0, deg(20))
	p, err := New(Config{RobotDetectorEvery: 30})
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeNet{in: make([]float32, patchSize*patchSize), out: make([]float32, netOutputs)}
	p.net = fake
	copy(fake.out, []float32{0.03, 0.02, 0.95, 16, 16, 32 / 3.5})
	r, err := p.Process(img, cam, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Balls) != 1 {
		t.Fatalf("%d balls off any robot, want 1 (candidates %d, boxes %v)", len(r.Balls), len(r.Candidates), r.Robots)
	}
	b := r.Balls[0]
	// The frame after a run: its boxes are the last run's.
	p.lastRobots = []RobotBox{{X0: b.U - 20, Y0: b.V - 60, X1: b.U + 20, Y1: b.V + b.Radius, Score: 0.8}}
	r, err = p.Process(img, cam, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Work.RobotRuns != 0 || len(r.Robots) != 1 {
		t.Fatalf("robot runs %d, boxes %v: want the kept box", r.Work.RobotRuns, r.Robots)
	}
	// The fake network sees a ball in every spot: the search goes on to
	// the spots off the box.
	for _, o := range r.Balls {
		if onRobotBox(r.Robots, o.U, o.V, o.Radius) {
			t.Errorf("ball %+v on a robot box with probability 0.95 < robot_ball_score %g", o, p.Config().RobotBallScore)
		}
	}
	copy(fake.out, []float32{0.01, 0.01, 0.98, 16, 16, 32 / 3.5})
	if r, err = p.Process(img, cam, nil); err != nil {
		t.Fatal(err)
	}
	if len(r.Balls) != 1 || math.Hypot(r.Balls[0].U-b.U, r.Balls[0].V-b.V) > 1 {
		t.Errorf("balls %+v on a robot box with probability 0.98, want the first frame's %+v", r.Balls, b)
	}
	for _, c := range []struct {
		box  RobotBox
		want bool
	}{
		{RobotBox{X0: 90, Y0: 0, X1: 130, Y1: 200}, true},
		{RobotBox{X0: 105, Y0: 0, X1: 160, Y1: 200}, false}, // the side cuts the ball
		{RobotBox{X0: 60, Y0: 0, X1: 112, Y1: 200}, false},
		{RobotBox{X0: 60, Y0: 0, X1: 160, Y1: 95}, false}, // the ball's centre below the feet
		{RobotBox{X0: 60, Y0: 105, X1: 160, Y1: 200}, false},
	} {
		if got := onRobotBox([]RobotBox{c.box}, 110, 100, 10); got != c.want {
			t.Errorf("ball (110, 100) r 10 on %+v: %v, want %v", c.box, got, c.want)
		}
	}
}

// TestBadRobotModel: a corrupted, truncated, empty or wrong robot model
// is a clear error from New, never a panic.
func TestBadRobotModel(t *testing.T) {
	good := nets.RobotDetector()
	for _, c := range []struct {
		name  string
		model []byte
	}{
		{"garbage", []byte("not an onnx model at all")},
		{"empty", []byte{}},
		{"truncated", good[:len(good)/2]},
		{"flipped bytes", func() []byte {
			b := slices.Clone(good)
			for i := 100; i < len(b); i += 97 {
				b[i] ^= 0xff
			}
			return b
		}()},
		{"another network", nets.BallAndPenaltyMark()},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(Config{RobotModel: c.model})
			if !errors.Is(err, ErrRobotModel) {
				t.Errorf("err %v, want ErrRobotModel", err)
			}
		})
	}
	// Turned off, the model is not read.
	if _, err := New(Config{NoRobotDetector: true, RobotModel: []byte("junk")}); err != nil {
		t.Errorf("detector off: %v", err)
	}
}

// TestProcessWithRobotsDoesNotAllocate: a frame with robots (detector,
// obstacles, the merge) allocates nothing, also on the frames between
// runs.
func TestProcessWithRobotsDoesNotAllocate(t *testing.T) {
	oneGoroutine(t)
	f, cam := mrBurns(t)
	for _, every := range []int{1, 2} {
		p, err := New(Config{RobotDetectorEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		var out hal.Vision
		if _, err := p.Process(f.img, cam, &out); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(6, func() { _, _ = p.Process(f.img, cam, &out) }); a != 0 {
			t.Errorf("every %d: %v allocations per frame, want 0", every, a)
		}
	}
}
