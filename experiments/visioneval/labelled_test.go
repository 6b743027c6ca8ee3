package visioneval

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"math"
	"testing"
	"testing/fstest"

	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/internal/testimages"
	"github.com/robotd/robotd/modules/vision"
)

var pitchSweep = flag.Bool("pitch-sweep", false, "TestRealSet: also measure with the camera pitch off by ±3°")

// TestRealSet runs the pipeline on the whole labelled real-image set
// (internal/testimages/testdata/realset) and asserts recall and false
// balls a little under what the pipeline reaches: a regression shows. The
// full report:
//
//	go test ./experiments/visioneval -run RealSet -v [-args -pitch-sweep]
//	go run ./cmd/visioneval -real internal/testimages/testdata/realset -pitch-sweep 3
func TestRealSet(t *testing.T) {
	set := testimages.RealSet()
	// Frames up to 1280×960: other teams' logs too.
	newPipe := func() (Pipeline, error) { return vision.New(vision.Config{MaxWidth: 1280, MaxHeight: 960}) }
	rep, err := RunLabelled(set, LabelledConfig{NewPipeline: newPipe})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s\n%s", rep.Table(false), rep.Summary())
	for _, ir := range rep.Images {
		if ir.Err != nil {
			t.Errorf("%s: %v", ir.File, ir.Err)
		}
	}
	if err := rep.Check(realThresholds); err != nil {
		t.Error(err)
	}
	if p := rep.Robots.Percent(); p < minRealRobots {
		t.Errorf("robots %v detected, want ≥ %g %%", rep.Robots, minRealRobots)
	}
	if *pitchSweep {
		for _, off := range []float64{-3, 3} {
			r, err := RunLabelled(set, LabelledConfig{NewPipeline: newPipe, PitchOffsetDeg: off})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("pitch %+g°: recall %v, within %g m %v, false balls %.2f per 100 frames", off, r.Recall, LabelledNearRange, r.Near, r.PerHundred(r.FalseBalls))
		}
	}
}

// TestRealSetAugmented measures the real-image set under the
// Augmentations (faint green, dim, bright, colour cast, noise, motion
// blur): the recall must not collapse under light the set's own frames do
// not show.
func TestRealSetAugmented(t *testing.T) {
	set := testimages.RealSet()
	newPipe := func() (Pipeline, error) { return vision.New(vision.Config{MaxWidth: 1280, MaxHeight: 960}) }
	augs := Augmentations()
	if racetest.Enabled {
		// The short form: one augmentation; every one of them is the run
		// without the race detector's (the pipeline is one goroutine).
		augs = augs[:1]
	}
	for _, a := range augs {
		rep, err := RunLabelled(set, LabelledConfig{NewPipeline: newPipe, Transform: a.Transform})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-12s recall %v, within %g m %v, false balls %.2f per 100 frames; misses %s", a.Name, rep.Recall, LabelledNearRange, rep.Near,
			rep.PerHundred(rep.FalseBalls), kinds(rep.MissKinds))
		if err := rep.Check(augmentedThresholds); err != nil {
			t.Errorf("%s: %v", a.Name, err)
		}
	}
}

// augmentedThresholds are TestRealSetAugmented's floors.
var augmentedThresholds = LabelledThresholds{MinRecall: 60, MinNear: 60, MaxFalsePer100: 5}

// realThresholds are TestRealSet's floors: a little under what the
// pipeline measures on the set.
var realThresholds = LabelledThresholds{MinRecall: 75, MinNear: 75, MaxFalsePer100: 2}

// minRealRobots is TestRealSet's floor of the labelled robots detected
// (IoU ≥ RobotIoU), %: the pipeline finds 2 of the 7. The misses: in
// GO2018G5C_MrBurns_00312222_U the robot cut off by the image's top
// (78×70 px, its legs only); in ChinaTest2015 …00070111_U a far robot
// off the field (44×42 px), which the network does not see; in
// GO2018G2B_Joker_00476316_L three parts of robots close to the lower
// camera (a foot, a leg, a jersey 609 px wide), which B-Human's network,
// trained on the upper camera's whole robots, does not see, and the
// jersey is wider than half the image (B-Human's limit).
const minRealRobots = 25.0

// TestLabelledScoring scores a hand-made image: a found ball, a missed
// one, a false one on a robot.
func TestLabelledScoring(t *testing.T) {
	im := &LabelledImage{Width: 640, Height: 480,
		Balls:  []LabelBall{{CX: 100, CY: 300, R: 10}, {CX: 400, CY: 300, R: 10}},
		Robots: []LabelBox{{X0: 500, Y0: 100, X1: 600, Y1: 350}}}
	img := vision.Image{Data: make([]byte, 640*480*2), Width: 640, Height: 480}
	cam := im.Projector(640, 480, 0)
	res := &vision.Result{Balls: []vision.Ball{{U: 103, V: 302, Radius: 10}, {U: 550, V: 300, Radius: 8}, {U: 412, V: 300, Radius: 10}},
		Robots: []vision.RobotBox{{X0: 510, Y0: 120, X1: 600, Y1: 340, Score: 0.8}, {X0: 0, Y0: 0, X1: 50, Y1: 50, Score: 0.7}}}
	rep := &LabelledReport{Frames: 1, MissKinds: map[string]int{}, FalseKinds: map[string]int{}}
	var ir ImageResult
	rep.score(&ir, im, &img, cam, res)
	if rep.Recall != (Rate{1, 2}) || rep.FalseBalls != 2 || rep.FalseKinds["on robot"] != 1 || rep.FalseKinds["near ball"] != 1 {
		t.Errorf("recall %v, false %d %v", rep.Recall, rep.FalseBalls, rep.FalseKinds)
	}
	if len(rep.Errors) != 1 || rep.Errors[0] > 3.7 {
		t.Errorf("errors %v", rep.Errors)
	}
	// The first box matches the labelled robot (IoU 0.79), the second none.
	if rep.Robots != (Rate{1, 1}) || rep.FalseRobots != 1 || len(ir.RobotIoUs) != 1 || math.Abs(ir.RobotIoUs[0]-0.792) > 0.01 {
		t.Errorf("robots %v, false boxes %d, IoUs %v", rep.Robots, rep.FalseRobots, ir.RobotIoUs)
	}
}

// TestLabelledBadInput: a truncated image, one of another size than its
// labels say, one too large for the pipeline, and a missing one are
// reported per image; a broken labels.json is an error; nothing panics.
func TestLabelledBadInput(t *testing.T) {
	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	good := bytes.Clone(buf.Bytes())
	buf.Reset()
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2000, 20))); err != nil {
		t.Fatal(err)
	}
	huge := buf.Bytes()
	labels := `{"images": [
		{"file": "ok.png", "width": 64, "height": 48, "balls": []},
		{"file": "truncated.png", "width": 64, "height": 48, "balls": [{"cx": 3, "cy": 4, "r": 2}]},
		{"file": "ok.png", "width": 640, "height": 480, "balls": []},
		{"file": "huge.png", "width": 2000, "height": 20, "balls": []},
		{"file": "missing.jpg", "balls": []}]}`
	fsys := fstest.MapFS{
		"labels.json":   {Data: []byte(labels)},
		"ok.png":        {Data: good},
		"truncated.png": {Data: good[:len(good)/2]},
		"huge.png":      {Data: huge},
	}
	rep, err := RunLabelled(fsys, LabelledConfig{NewPipeline: newPipeline})
	if err != nil {
		t.Fatalf("%v\n%s", err, rep.Table(true))
	}
	if rep.Frames != 1 || len(rep.Images) != 5 {
		t.Fatalf("%d frames measured of %d images", rep.Frames, len(rep.Images))
	}
	for _, ir := range rep.Images[1:] {
		if ir.Err == nil {
			t.Errorf("%s: no error", ir.File)
		}
	}
	t.Logf("\n%s", rep.Table(true))
	for _, bad := range []string{`{"images": [`, `{"images": []}`, `{"images": [{"file": "ok.png", "balls": [{"r": -1}]}]}`} {
		if _, err := RunLabelled(fstest.MapFS{"labels.json": {Data: []byte(bad)}}, LabelledConfig{NewPipeline: newPipeline}); err == nil {
			t.Errorf("labels %s accepted", bad)
		}
	}
}
