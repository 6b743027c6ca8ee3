package vision

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/vision/visiontest"
)

// TestRealFrames runs the pipeline on the three real NAO frames of
// internal/testimages/testdata/htwk-vision-2015 (see its SOURCE.txt)
// against the hand labels of testdata/htwk-labels.json: the ball is found
// within 10 px of its label, no ball is reported anywhere else, and the
// field boundary passes within 8 px of every labelled point.
func TestRealFrames(t *testing.T) {
	oneGoroutine(t)
	l := loadLabels(t)
	if len(l.Images) != 3 {
		t.Fatalf("labels.json has %d images, want 3", len(l.Images))
	}
	p, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(l.Images))
	for n := range l.Images {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		lab := l.Images[name]
		t.Run(name, func(t *testing.T) {
			img := loadPNG(t, filepath.Join(htwkDir, name))
			c := lab.Camera
			if c.HFOVDeg == 0 || c.HeightM == 0 {
				t.Fatal("labels.json: no camera_estimate")
			}
			cam := visiontest.NewPinhole(img.Width, img.Height, deg(c.HFOVDeg), [3]float64{0, 0, c.HeightM}, 0, deg(c.PitchDeg), deg(c.RollDeg))
			var out hal.Vision
			r, err := p.Process(img, cam, &out)
			if err != nil {
				t.Fatal(err)
			}
			if !r.FieldFound {
				t.Fatal("no field colour found")
			}
			if len(lab.Ball) != 1 {
				t.Fatalf("labels: %d balls, want 1", len(lab.Ball))
			}
			want := lab.Ball[0]
			if len(r.Balls) != 1 {
				t.Fatalf("found %d balls %+v, want exactly the labelled one at (%g, %g)", len(r.Balls), r.Balls, want.CX, want.CY)
			}
			b := r.Balls[0]
			if e := math.Hypot(b.U-want.CX, b.V-want.CY); e > 10 {
				t.Errorf("ball at (%.1f, %.1f), %.1f px from the label (%g, %g)", b.U, b.V, e, want.CX, want.CY)
			}
			nb := 0
			for i := range out.N {
				if out.Obs[i].Kind == hal.ObjBall {
					nb++
					o := out.Obs[i]
					if o.DistanceSigma <= 0 || o.BearingSigma <= 0 || float64(o.Distance) < 0.3 || float64(o.Distance) > 4 {
						t.Errorf("ball observation %+v: distance or uncertainty implausible", o)
					}
				}
			}
			if nb != 1 {
				t.Errorf("%d ball observations, want 1", nb)
			}
			if len(lab.Boundary) < 3 {
				t.Fatalf("labels: %d boundary points", len(lab.Boundary))
			}
			for _, pt := range lab.Boundary {
				v, ok := r.BoundaryAt(pt[0])
				if !ok || math.Abs(v-pt[1]) > 8 {
					t.Errorf("field boundary at u=%g: row %.1f (ok %v), labelled %g ± 8", pt[0], v, ok, pt[1])
				}
			}
			t.Logf("ball (%.1f, %.1f) r %.1f; %d line points, %d lines, circle %v, %d intersections, %d obstacles",
				b.U, b.V, b.Radius, r.LinePoints, len(r.Lines), r.CircleFound, len(r.Intersections), len(r.Obstacles))
		})
	}
}
