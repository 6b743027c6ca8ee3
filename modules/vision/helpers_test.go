package vision

import (
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/modules/vision/visiontest"
)

// oneGoroutine skips a test under the race detector. The pipeline starts
// no goroutine and these tests run it in one (none of them is parallel),
// so the race detector has nothing to find in them; it only makes them 5
// to 10 times slower. Their numbers are asserted without it: scripts/test
// runs every package that imports internal/racetest a second time without
// -race.
func oneGoroutine(t *testing.T) {
	t.Helper()
	if racetest.Enabled {
		t.Skip("the vision pipeline in one goroutine: asserted without the race detector")
	}
}

// pngToYUYV converts an image to YUYV with full-range BT.601 (what
// color.RGBToYCbCr computes), chroma averaged over each pixel pair.
func pngToYUYV(img image.Image) Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := Image{Data: make([]byte, w*h*2), Width: w, Height: h}
	for y := range h {
		for x := 0; x < w; x += 2 {
			var us, vs int
			for k := range 2 {
				r, g, bb, _ := img.At(b.Min.X+x+k, b.Min.Y+y).RGBA()
				Y, U, V := color.RGBToYCbCr(uint8(r>>8), uint8(g>>8), uint8(bb>>8))
				out.Data[(y*w+x+k)*2] = Y
				us += int(U)
				vs += int(V)
			}
			i := (y*w + x) * 2
			out.Data[i+1], out.Data[i+3] = byte((us+1)/2), byte((vs+1)/2)
		}
	}
	return out
}

func loadPNG(t testing.TB, path string) Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return pngToYUYV(img)
}

// htwkDir holds the three real NAO images of Nao-Team HTWK, kept once in
// the repository with their licence and origin (internal/testimages).
var htwkDir = filepath.Join("..", "..", "internal", "testimages", "testdata", "htwk-vision-2015")

// labels mirrors testdata/htwk-labels.json, this package's hand labels of
// those images (ball, field boundary per column, camera estimate).
type labels struct {
	Images map[string]struct {
		Ball []struct {
			CX, CY, R float64
		} `json:"ball"`
		Boundary [][2]float64 `json:"field_boundary"` // u, v
		Camera   struct {
			HFOVDeg, HeightM, PitchDeg, RollDeg float64
		} `json:"camera_estimate"`
	} `json:"images"`
}

func loadLabels(t testing.TB) labels {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "htwk-labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	var l labels
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("labels.json: %v", err)
	}
	return l
}

// scene returns a synthetic frame of the given scene for the NAO v6 top
// camera at 0.5 m, tilted down by pitch and turned by yaw (relative to
// the robot's heading).
func scene(s visiontest.Scene, yaw, pitch float64) (Image, *visiontest.Pinhole) {
	if s.Field == (field.Dimensions{}) {
		s.Field = field.SPL()
	}
	cam := visiontest.NAOv6Top(0.5, yaw, pitch)
	img := Image{Data: make([]byte, cam.Width*cam.Height*2), Width: cam.Width, Height: cam.Height}
	s.Render(cam, img.Data)
	return img, cam
}

// toRobot maps a field point into the frame of a robot at pose.
func toRobot(pose hal.Pose2, p hal.Vec2) hal.Vec2 {
	s, c := math.Sincos(float64(pose.Heading))
	dx, dy := p.X-float64(pose.X), p.Y-float64(pose.Y)
	return hal.Vec2{X: c*dx + s*dy, Y: -s*dx + c*dy}
}

func dist(a, b hal.Vec2) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

func deg(d float64) float64 { return d * math.Pi / 180 }
