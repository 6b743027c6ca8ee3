package vision

import (
	"bytes"
	"encoding/json"
	"image"
	_ "image/jpeg"
	"io/fs"
	"testing"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/testimages"
	"github.com/robotd/robotd/modules/vision/camera"
	"github.com/robotd/robotd/modules/vision/visiontest"
	"github.com/robotd/robotd/render"
)

// The whole pipeline per frame, ns, CPU ns and allocations:
//
//	go test -run '^$' -bench Pipeline -benchmem ./modules/vision
//
// Pipeline is the synthetic frame, PipelineReal the frames of the
// labelled real-image set (internal/testimages/testdata/realset) one after
// the other, PipelineRendered 50 frames the simulator renders (the
// rendered evaluation's scenes), PipelineHostile the goal-net textures of
// TestHostileWorkBounded.

func BenchmarkPipeline(b *testing.B) {
	img, cam := benchFrame()
	benchFrames(b, []benchCase{{img, cam}})
}

func BenchmarkPipelineReal(b *testing.B) { benchFrames(b, realSetFrames(b)) }

func BenchmarkPipelineRendered(b *testing.B) { benchFrames(b, renderedFrames(b, 50)) }

func BenchmarkPipelineHostile(b *testing.B) {
	_, hostile := hostileCases(b)
	var cs []benchCase
	for _, h := range hostile {
		cs = append(cs, benchCase{h.img, h.cam})
	}
	benchFrames(b, cs)
}

type benchCase struct {
	img Image
	cam Projector
}

func benchFrames(b *testing.B, cs []benchCase) {
	p, err := New(Config{MaxWidth: 1280, MaxHeight: 960})
	if err != nil {
		b.Fatal(err)
	}
	var out hal.Vision
	for _, c := range cs { // warm up
		if _, err := p.Process(c.img, c.cam, &out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	c0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		c := cs[i%len(cs)]
		if _, err := p.Process(c.img, c.cam, &out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// realSetFrames are the labelled real-image set's frames with their
// camera poses.
func realSetFrames(t testing.TB) []benchCase {
	set := testimages.RealSet()
	raw, err := fs.ReadFile(set, "labels.json")
	if err != nil {
		t.Fatal(err)
	}
	var lf struct {
		Images []struct {
			File string `json:"file"`
			Pose *struct {
				HeightM  float64 `json:"height_m"`
				PitchDeg float64 `json:"pitch_deg"`
				RollDeg  float64 `json:"roll_deg"`
				HFOVDeg  float64 `json:"hfov_deg"`
			} `json:"camera_pose"`
		} `json:"images"`
	}
	if err := json.Unmarshal(raw, &lf); err != nil {
		t.Fatal(err)
	}
	var cs []benchCase
	for _, im := range lf.Images {
		data, err := fs.ReadFile(set, im.File)
		if err != nil {
			t.Fatal(err)
		}
		dec, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", im.File, err)
		}
		img := pngToYUYV(dec)
		if img.Width&1 == 1 {
			continue
		}
		h, pitch, roll, hfov := 0.5, 0.0, 0.0, 56.3
		if pp := im.Pose; pp != nil {
			h, pitch, roll, hfov = pp.HeightM, pp.PitchDeg, pp.RollDeg, pp.HFOVDeg
		}
		cs = append(cs, benchCase{img, visiontestPinhole(img.Width, img.Height, hfov, h, pitch, roll)})
	}
	if len(cs) == 0 {
		t.Fatal("no real frames")
	}
	return cs
}

// renderedFrames renders n frames of the rendered evaluation's scenes
// (seed 1) with their camera matrices.
func renderedFrames(t testing.TB, n int) []benchCase {
	top, bot := render.NAOIntrinsics(640, 480), render.NAOIntrinsics(320, 240)
	rt, err := render.NewRenderer(top)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := render.NewRenderer(bot)
	if err != nil {
		t.Fatal(err)
	}
	g := render.SampleSource(1)
	var cs []benchCase
	for range n {
		s := render.RandomSample(g, field.SPL())
		r, in := rt, top
		if s.Camera == render.Bottom {
			r, in = rb, bot
		}
		f := render.NewFrame(in)
		f.Camera = s.Camera
		if err := r.Render(f, &s.Scene, &s.Pose, &s.Options); err != nil {
			t.Fatal(err)
		}
		m := camera.FromWorldPose(&s.Pose, s.Robot, in.Width, in.Height, in.FOVX, in.FOVY)
		cs = append(cs, benchCase{Image{Data: f.Data, Width: in.Width, Height: in.Height}, &m})
	}
	return cs
}

func visiontestPinhole(w, h int, hfovDeg, height, pitchDeg, rollDeg float64) Projector {
	return visiontest.NewPinhole(w, h, deg(hfovDeg), [3]float64{0, 0, height}, 0, deg(pitchDeg), deg(rollDeg))
}
