package vision

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/vision/nets"
	"github.com/robotd/robotd/modules/vision/visiontest"
)

// TestPatchArea: B-Human's square of 3.5 radii, rounded up to the next
// multiple of 4 above.
func TestPatchArea(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want int
	}{{10, 36}, {8, 32}, {2, 8}, {1, 4}, {20.3, 72}} {
		if got := patchArea(c.r); got != c.want {
			t.Errorf("patchArea(%g) = %d, want %d", c.r, got, c.want)
		}
	}
}

// TestNormalizeBrightness against the reference: sort descending, the
// value at index int(1023·0.02) is the maximum, everything clipped to it
// and scaled to 255 (PatchUtilities::normalizeBrightness).
func TestNormalizeBrightness(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		var p [patchSize * patchSize]uint8
		hi := 1 + rng.IntN(255)
		for i := range p {
			p[i] = uint8(rng.IntN(hi + 1))
		}
		if trial == 0 {
			clear(p[:])
		}
		want := p
		sorted := slices.Clone(p[:])
		slices.Sort(sorted)
		slices.Reverse(sorted)
		ratio := float32(0.02)
		mx := sorted[int(float32(len(p)-1)*ratio)]
		for i, v := range want {
			if mx == 0 {
				want[i] = 0
				continue
			}
			want[i] = uint8(float32(min(v, mx)) * 255 / float32(mx))
		}
		normalizeBrightness(&p)
		if p != want {
			t.Fatalf("trial %d: normalised patch differs from the reference", trial)
		}
	}
}

// TestExtractPatch: nearest-neighbour sampling from the spot's square,
// 128 outside the image.
func TestExtractPatch(t *testing.T) {
	w, h := 64, 48
	img := Image{Data: make([]byte, w*h*2), Width: w, Height: h}
	for v := range h {
		for u := range w {
			img.Data[(v*w+u)*2] = uint8(u + 2*v)
		}
	}
	p := mustNew(t)
	p.img, p.w, p.h = img.Data, w, h
	// r 8: area 32, step 1: the patch is the image from (spot − 16).
	_, step := p.extractPatch(30, 20, 8, 1)
	if step != 1 {
		t.Fatalf("step %g, want 1", step)
	}
	for j := range patchSize {
		for i := range patchSize {
			u, v := 30-16+i, 20-16+j
			want := uint8(128)
			if u >= 0 && v >= 0 && u < w && v < h {
				want = uint8(u + 2*v)
			}
			if got := p.patch[j*patchSize+i]; got != want {
				t.Fatalf("patch (%d, %d) = %d, want %d", i, j, got, want)
			}
		}
	}
	// At the corner: the part outside is 128.
	p.extractPatch(0, 0, 16, 1)
	if p.patch[0] != 128 || p.patch[patchSize*patchSize-1] == 128 {
		t.Errorf("corner patch: first %d (want 128), last %d", p.patch[0], p.patch[patchSize*patchSize-1])
	}
}

// fakeNet answers every patch with fixed outputs.
type fakeNet struct {
	in, out []float32
	runs    int
}

func (f *fakeNet) Input(int) []float32  { return f.in }
func (f *fakeNet) Output(int) []float32 { return f.out }
func (f *fakeNet) Run() error           { f.runs++; return nil }

// TestNetDecision: the network's circle (patch coordinates) maps back to
// the image around the spot; a sure ball ends the search; no ball below
// BallScore; the checks per frame are bounded by MaxBallChecks.
func TestNetDecision(t *testing.T) {
	img, cam := scene(visiontest.Scene{Robot: hal.Pose2{X: -3}, Ball: hal.Vec2{X: -1.5, Y: 0.1}, BallVisible: true, Noise: 2, Seed: 3}, 0, deg(20))
	p := mustNew(t)
	f := &fakeNet{in: make([]float32, patchSize*patchSize), out: make([]float32, netOutputs)}
	p.net = f
	// A ball at the patch's centre, radius a quarter of the patch (the
	// patch is 3.5 radii wide, so about the expected radius).
	copy(f.out, []float32{0.02, 0.01, 0.97, 16, 16, 32 / 3.5})
	r, err := p.Process(img, cam, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) == 0 || len(r.Balls) != 1 || f.runs != 1 {
		t.Fatalf("%d candidates, %d balls, %d net runs; want ≥ 1, 1 ball after 1 run (a sure ball ends the search)", len(r.Candidates), len(r.Balls), f.runs)
	}
	b, c := r.Balls[0], r.Candidates[0]
	if d := (b.U-float64(int(c.U+0.5)))*(b.U-float64(int(c.U+0.5))) + (b.V-float64(int(c.V+0.5)))*(b.V-float64(int(c.V+0.5))); d > 1 {
		t.Errorf("ball (%.1f, %.1f) not at the spot (%.1f, %.1f)", b.U, b.V, c.U, c.V)
	}
	// Not a ball: nothing, and every candidate up to the bound checked.
	copy(f.out, []float32{0.6, 0.1, 0.3, 16, 16, 8})
	f.runs = 0
	r, err = p.Process(img, cam, nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range r.Candidates {
		if c.Ball >= 0 {
			checked++
		}
	}
	// A wide candidate is checked twice (squeezed the second time).
	if len(r.Balls) != 0 || f.runs > p.Config().MaxBallChecks || r.Work.NetRuns != f.runs ||
		(checked < len(r.Candidates) && f.runs < p.Config().MaxBallChecks) {
		t.Errorf("%d balls, %d runs (work %d) for %d candidates, %d checked", len(r.Balls), f.runs, r.Work.NetRuns, len(r.Candidates), checked)
	}
}

// TestBadBallModel: a corrupted, truncated or wrong model is a clear
// error from New, never a panic.
func TestBadBallModel(t *testing.T) {
	good := nets.BallAndPenaltyMark()
	for _, c := range []struct {
		name  string
		model []byte
	}{
		{"garbage", []byte("not an onnx model at all")},
		{"truncated", good[:len(good)/2]},
		{"flipped bytes", func() []byte {
			b := slices.Clone(good)
			for i := 100; i < len(b); i += 97 {
				b[i] ^= 0xff
			}
			return b
		}()},
		{"another network", nets.RobotDetector()},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(Config{BallModel: c.model})
			if !errors.Is(err, ErrBallModel) {
				t.Errorf("err %v, want ErrBallModel", err)
			}
		})
	}
}
