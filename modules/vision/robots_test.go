package vision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // the real set has JPEG frames
	_ "image/png"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/robotd/robotd/internal/testimages"
	"github.com/robotd/robotd/modules/vision/nets"
)

// robotFrame is a frame of the real set with its labelled robots.
type robotFrame struct {
	file, camera string
	img          Image
	robots       []RobotBox // labelled, inclusive pixel boxes made half-open
	tags         [][]string
	boundary     [][2]float64 // labelled field boundary, empty when none
}

// boundaryY is the labelled boundary's row at column u (linear between
// the points), or nil when the frame has none.
func (f *robotFrame) boundaryY() func(u float64) float64 {
	pts := f.boundary
	if len(pts) == 0 {
		return nil
	}
	return func(u float64) float64 {
		if u <= pts[0][0] {
			return pts[0][1]
		}
		for i := 1; i < len(pts); i++ {
			if u <= pts[i][0] {
				a, b := pts[i-1], pts[i]
				return a[1] + (b[1]-a[1])*(u-a[0])/(b[0]-a[0])
			}
		}
		return pts[len(pts)-1][1]
	}
}

// loadRobotFrames reads the real set (internal/testimages): every frame
// of the robot detector's size with its robot labels.
func loadRobotFrames(t testing.TB) []robotFrame {
	t.Helper()
	fsys := testimages.RealSet()
	raw, err := fs.ReadFile(fsys, "labels.json")
	if err != nil {
		t.Fatal(err)
	}
	var lf struct {
		Images []struct {
			File   string `json:"file"`
			Camera string `json:"camera"`
			Robots []struct {
				X0, Y0, X1, Y1 float64
				Tags           []string
			} `json:"robots"`
			Boundary [][2]float64 `json:"boundary"`
		} `json:"images"`
	}
	if err := json.Unmarshal(raw, &lf); err != nil {
		t.Fatalf("labels.json: %v", err)
	}
	var out []robotFrame
	for _, im := range lf.Images {
		b, err := fs.ReadFile(fsys, im.File)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := image.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", im.File, err)
		}
		w, h := m.Bounds().Dx(), m.Bounds().Dy()
		if _, ok := robotScale(w, h); !ok {
			continue
		}
		f := robotFrame{file: im.File, camera: im.Camera, boundary: im.Boundary,
			img: Image{Data: testimages.ToYUYV(m), Width: w, Height: h}}
		for _, r := range im.Robots {
			f.robots = append(f.robots, RobotBox{X0: r.X0, Y0: r.Y0, X1: r.X1 + 1, Y1: r.Y1 + 1})
			f.tags = append(f.tags, r.Tags)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		t.Fatal("no frames in the real set")
	}
	return out
}

func newTestRobotDetector(t testing.TB, cfg RobotConfig) *RobotDetector {
	t.Helper()
	d, err := NewRobotDetector(nets.RobotDetector(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// robotMatchIoU is the least IoU of a detection with a labelled robot for
// the robot to count as detected (the criterion).
const robotMatchIoU = 0.3

// robotScoreCard is one run over frames: labelled robots, those matched, and
// detections matching no label; on-field counts leave out the robots
// labelled off-field (not obstacles on the field).
type robotScoreCard struct {
	frames, labelled, found, falseBoxes int
	onField, onFieldFound               int
	lines                               []string
}

func (s *robotScoreCard) add(f *robotFrame, boxes []RobotBox) {
	s.frames++
	s.labelled += len(f.robots)
	line := fmt.Sprintf("%s (%s):", f.file, f.camera)
	for i, l := range f.robots {
		best := 0.0
		for _, b := range boxes {
			best = max(best, robotIoU(l, b))
		}
		off := slices.Contains(f.tags[i], "off-field")
		if !off {
			s.onField++
		}
		if best >= robotMatchIoU {
			s.found++
			if !off {
				s.onFieldFound++
			}
		}
		line += fmt.Sprintf(" label[%s] IoU %.2f;", strings.Join(f.tags[i], ","), best)
	}
	for _, b := range boxes {
		hit := false
		for _, l := range f.robots {
			hit = hit || robotIoU(l, b) >= robotMatchIoU
		}
		if !hit {
			s.falseBoxes++
			line += fmt.Sprintf(" FALSE %.0f,%.0f-%.0f,%.0f %.2f;", b.X0, b.Y0, b.X1, b.Y1, b.Score)
		}
	}
	s.lines = append(s.lines, line)
}

func (s *robotScoreCard) String() string {
	return fmt.Sprintf("%d frames: robots detected %d/%d (IoU ≥ %.1f), on the field %d/%d; false boxes %d (%.2f per frame)",
		s.frames, s.found, s.labelled, robotMatchIoU, s.onFieldFound, s.onField, s.falseBoxes, float64(s.falseBoxes)/float64(max(s.frames, 1)))
}

// TestRobotDetectorRealSet measures the detector on the real set as the
// pipeline runs it (B-Human's settings, the labelled field boundary) and
// without the boundary, and at other thresholds. Upper-camera frames are
// B-Human's use; lower-camera ones are reported apart. Numbers:
// go test ./modules/vision -run TestRobotDetectorRealSet -v
func TestRobotDetectorRealSet(t *testing.T) {
	oneGoroutine(t)
	frames := loadRobotFrames(t)
	d := newTestRobotDetector(t, RobotConfig{})
	for _, a := range []robotAugmentation{{name: "mirrored", mirror: true}, {name: "luma ×0.6", luma: 0.6}, {name: "luma ×1.3", luma: 1.3}} {
		var upper robotScoreCard
		for i := range frames {
			if frames[i].camera == "lower" {
				continue
			}
			f := a.apply(frames[i])
			boxes, err := d.DetectBelow(f.img, f.boundaryY())
			if err != nil {
				t.Fatal(err)
			}
			upper.add(&f, boxes)
		}
		for _, l := range upper.lines {
			t.Logf("%s: %s", a.name, l)
		}
		t.Logf("%s, threshold 0.60, boundary true: upper camera: %v", a.name, &upper)
	}
	for _, th := range []float64{0.6, 0.45, 0.3} {
		d := newTestRobotDetector(t, RobotConfig{Threshold: th})
		for _, withBoundary := range []bool{true, false} {
			var upper, lower robotScoreCard
			for i := range frames {
				f := &frames[i]
				var bnd func(float64) float64
				if withBoundary {
					bnd = f.boundaryY()
				}
				boxes, err := d.DetectBelow(f.img, bnd)
				if err != nil {
					t.Fatalf("%s: %v", f.file, err)
				}
				if f.camera == "lower" {
					lower.add(f, boxes)
				} else {
					upper.add(f, boxes)
				}
			}
			if th == 0.6 && withBoundary {
				for _, l := range append(upper.lines, lower.lines...) {
					t.Log(l)
				}
			}
			t.Logf("threshold %.2f, boundary %v: upper camera: %v", th, withBoundary, &upper)
			t.Logf("threshold %.2f, boundary %v: lower camera: %v", th, withBoundary, &lower)
			if upper.frames == 0 {
				t.Fatal("no upper-camera frames")
			}
		}
	}
}

// robotAugmentation is a change of a frame that keeps its robots: mirrored
// left to right (the labels mirrored too), or the luma scaled (darker or
// brighter light).
type robotAugmentation struct {
	name   string
	mirror bool
	luma   float64
}

func (a robotAugmentation) apply(f robotFrame) robotFrame {
	w, h := f.img.Width, f.img.Height
	data := bytes.Clone(f.img.Data)
	if a.mirror {
		for y := range h {
			row := data[y*2*w : (y+1)*2*w]
			src := f.img.Data[y*2*w : (y+1)*2*w]
			for p := range w / 2 {
				q := src[4*(w/2-1-p):]
				row[4*p], row[4*p+1], row[4*p+2], row[4*p+3] = q[2], q[1], q[0], q[3]
			}
		}
		robots := make([]RobotBox, len(f.robots))
		for i, r := range f.robots {
			robots[i] = RobotBox{X0: float64(w) - r.X1, Y0: r.Y0, X1: float64(w) - r.X0, Y1: r.Y1}
		}
		f.robots = robots
		bnd := make([][2]float64, len(f.boundary))
		for i, pt := range f.boundary {
			bnd[len(bnd)-1-i] = [2]float64{float64(w-1) - pt[0], pt[1]}
		}
		f.boundary = bnd
	}
	if a.luma != 0 {
		for i := 0; i < len(data); i += 2 {
			data[i] = byte(min(255, float64(data[i])*a.luma+0.5))
		}
	}
	f.img.Data = data
	return f
}

// TestRobotDetectorKnownFrames checks the frames whose answer is clear:
// the two close robots of GO2018G5C_MrBurns (upper camera) are found,
// and an empty field (ChinaTest2015 …00049806, …00051659) gives no box.
func TestRobotDetectorKnownFrames(t *testing.T) {
	oneGoroutine(t)
	frames := loadRobotFrames(t)
	d := newTestRobotDetector(t, RobotConfig{})
	checked := 0
	for i := range frames {
		f := &frames[i]
		switch {
		case strings.Contains(f.file, "GO2018G5C_MrBurns_00312222_U"):
			boxes, err := d.DetectBelow(f.img, f.boundaryY())
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []RobotBox{{X0: 180, Y0: 0, X1: 277, Y1: 117}, {X0: 543, Y0: 0, X1: 640, Y1: 214}} {
				best := 0.0
				for _, b := range boxes {
					best = max(best, robotIoU(want, b))
				}
				if best < 0.5 {
					t.Errorf("%s: robot %v found with IoU %.2f, want ≥ 0.5 (boxes %v)", f.file, want, best, boxes)
				}
			}
			checked++
		case strings.Contains(f.file, "00049806_U"), strings.Contains(f.file, "00051659_U"):
			for _, bnd := range []func(float64) float64{nil, f.boundaryY()} {
				boxes, err := d.DetectBelow(f.img, bnd)
				if err != nil {
					t.Fatal(err)
				}
				if len(boxes) != 0 {
					t.Errorf("%s (no robot): boxes %v", f.file, boxes)
				}
			}
			checked++
		}
	}
	if checked != 3 {
		t.Fatalf("checked %d of the 3 known frames", checked)
	}
}

// bhRobotShrinkY is Resize::shrinkY on a whole image, stage by stage as the
// SIMD code does: across, means of 8 truncated while three halvings are
// left, then rounded pairwise means; down, rounded pairwise means.
func bhRobotShrinkY(a []uint8, w, h, s int) []uint8 {
	avg := func(x, y uint8) uint8 { return uint8((uint16(x) + uint16(y) + 1) >> 1) }
	left := s
	for ; left > 2; left -= 3 {
		b := make([]uint8, len(a)/8)
		for i := range b {
			sum := 0
			for _, v := range a[8*i : 8*i+8] {
				sum += int(v)
			}
			b[i] = uint8(sum >> 3)
		}
		a, w = b, w/8
	}
	for ; left > 0; left-- {
		b := make([]uint8, len(a)/2)
		for i := range b {
			b[i] = avg(a[2*i], a[2*i+1])
		}
		a, w = b, w/2
	}
	for left = s; left > 0; left-- {
		b := make([]uint8, len(a)/2)
		for y := range h / 2 {
			for x := range w {
				b[y*w+x] = avg(a[2*y*w+x], a[(2*y+1)*w+x])
			}
		}
		a, h = b, h/2
	}
	return a
}

// bhRobotInput is B-Human's network input for a YUYV frame: the
// grayscaled image (Y) and the chromaticity images
// (ECImageProvider::extractChromaticity: U and V of two rows, floor of
// the mean) shrunk by Resize::shrinkY to 80×60, interleaved Y, U, V.
func bhRobotInput(img Image) []float32 {
	w, h := img.Width, img.Height
	gray := make([]uint8, w*h)
	for i := range gray {
		gray[i] = img.Data[2*i]
	}
	cw, ch := w/2, h/2
	cu, cv := make([]uint8, cw*ch), make([]uint8, cw*ch)
	for y := range ch {
		a, b := img.Data[2*y*2*w:], img.Data[(2*y+1)*2*w:]
		for x := range cw {
			cu[y*cw+x] = uint8((int(a[4*x+1]) + int(b[4*x+1])) >> 1)
			cv[y*cw+x] = uint8((int(a[4*x+3]) + int(b[4*x+3])) >> 1)
		}
	}
	s := int(math.Round(math.Log2(float64(w / robotInW))))
	g, u, v := bhRobotShrinkY(gray, w, h, s), bhRobotShrinkY(cu, cw, ch, s-1), bhRobotShrinkY(cv, cw, ch, s-1)
	out := make([]float32, 0, robotInW*robotInH*3)
	for i := range g {
		out = append(out, float32(g[i]), float32(u[i]), float32(v[i]))
	}
	return out
}

// TestRobotShrinkIsBHumans compares the detector's input with B-Human's
// preprocessing, value for value, on random frames of every supported
// size and on a real one.
func TestRobotShrinkIsBHumans(t *testing.T) {
	oneGoroutine(t)
	d := &RobotDetector{in: make([]float32, robotInW*robotInH*robotInC)}
	rng := rand.New(rand.NewPCG(1, 2))
	var imgs []Image
	for s := 1; s <= robotMaxScale; s++ {
		img := Image{Width: robotInW << s, Height: robotInH << s}
		img.Data = make([]byte, img.Width*img.Height*2)
		for i := range img.Data {
			img.Data[i] = byte(rng.IntN(256))
		}
		imgs = append(imgs, img)
	}
	imgs = append(imgs, loadRobotFrames(t)[0].img)
	for _, img := range imgs {
		s, ok := robotScale(img.Width, img.Height)
		if !ok {
			t.Fatalf("%d×%d not supported", img.Width, img.Height)
		}
		d.shrink(img, s)
		want := bhRobotInput(img)
		for i := range want {
			if d.in[i] != want[i] {
				t.Fatalf("%d×%d: input[%d] (row %d, column %d, channel %d) = %g, B-Human's %g",
					img.Width, img.Height, i, i/(3*robotInW), i/3%robotInW, i%3, d.in[i], want[i])
			}
		}
	}
}

// robotRawFor is the raw network output whose sigmoid is p.
func robotRawFor(p float64) float32 { return float32(math.Log(p / (1 - p))) }

// setRobotPrediction writes one anchor's raw outputs: confidence, the centre
// within the cell (0–1, y then x) and the size exponents (σ of height and
// width; 0.5 is the anchor's size).
func setRobotPrediction(out []float32, cy, cx, b int, conf, y, x, sh, sw float64) {
	p := out[((cy*robotOutW+cx)*robotAnchorCount+b)*robotParams:]
	p[0], p[1], p[2], p[3], p[4] = robotRawFor(conf), robotRawFor(y), robotRawFor(x), robotRawFor(sh), robotRawFor(sw)
}

func robotDecodeOnly(cfg RobotConfig) *RobotDetector {
	cfg = cfg.WithDefaults()
	d := &RobotDetector{cfg: cfg, out: make([]float32, robotPredictions*robotParams)}
	for i := range d.out {
		d.out[i] = -20 // nothing
	}
	d.logitThreshold = float32(math.Log(cfg.Threshold / (1 - cfg.Threshold)))
	return d
}

// TestRobotDecode checks B-Human's decoding of one prediction.
func TestRobotDecode(t *testing.T) {
	d := robotDecodeOnly(RobotConfig{})
	// Cell (row 3, column 4), anchor 2, centre at 0.25 down and 0.75
	// across the cell, height σ 0.5 (the anchor's), width σ 0.6
	// (8^0.2 times the anchor's).
	setRobotPrediction(d.out, 3, 4, 2, 0.9, 0.25, 0.75, 0.5, 0.6)
	// Below the threshold: ignored.
	setRobotPrediction(d.out, 0, 0, 0, 0.59, 0.5, 0.5, 0.5, 0.5)
	boxes := d.suppress(d.decode(640, 480, nil), 640, 480)
	if len(boxes) != 1 {
		t.Fatalf("boxes %v, want 1", boxes)
	}
	ym, xm := (3+0.25)/8*480, (4+0.75)/10*640
	bh, bw := robotAnchors[2][1]*480, robotAnchors[2][0]*math.Pow(8, 0.2)*640
	want := RobotBox{X0: xm - bw/2, Y0: ym - bh/2, X1: xm + bw/2, Y1: ym + bh/2, Score: 0.9}
	got := boxes[0]
	for _, c := range [][2]float64{{got.X0, want.X0}, {got.Y0, want.Y0}, {got.X1, want.X1}, {got.Y1, want.Y1}, {got.Score, want.Score}} {
		if math.Abs(c[0]-c[1]) > 1e-3 {
			t.Fatalf("box %+v, want %+v", got, want)
		}
	}
	// Above the field boundary (the bottom above the boundary's row at the
	// centre column): dropped.
	if n := d.decode(640, 480, func(float64) float64 { return want.Y1 + 1 }); n != 0 {
		t.Errorf("a box above the boundary kept")
	}
	if n := d.decode(640, 480, func(float64) float64 { return want.Y1 - 1 }); n != 1 {
		t.Errorf("a box below the boundary dropped")
	}
}

// TestRobotSuppression checks B-Human's non-maximum suppression (against
// all boxes, not greedy), the big box suppression, the size filters and
// the order.
func TestRobotSuppression(t *testing.T) {
	d := robotDecodeOnly(RobotConfig{})
	put := func(bs ...RobotBox) []RobotBox {
		n := copy(d.cands[:], bs)
		return d.suppress(n, 640, 480)
	}
	a := RobotBox{X0: 100, Y0: 100, X1: 160, Y1: 220, Score: 0.9}
	b := RobotBox{X0: 130, Y0: 100, X1: 190, Y1: 220, Score: 0.8} // IoU(a, b) = 1/3
	c := RobotBox{X0: 160, Y0: 100, X1: 220, Y1: 220, Score: 0.7} // IoU(b, c) = 1/3, IoU(a, c) = 0
	got := put(a, b, c)
	if len(got) != 1 || got[0] != a {
		t.Errorf("chain a > b > c: %v, want a alone (c goes for b, suppressed or not)", got)
	}
	far := RobotBox{X0: 400, Y0: 100, X1: 460, Y1: 220, Score: 0.95}
	got = put(a, far)
	if len(got) != 2 || got[0] != far || got[1] != a {
		t.Errorf("two apart: %v, want far then a", got)
	}
	// A box strictly containing another goes, whatever its score.
	big := RobotBox{X0: 90, Y0: 50, X1: 300, Y1: 300, Score: 0.99}
	if got = put(big, a); len(got) != 1 || got[0] != a {
		t.Errorf("big box around a: %v, want a", got)
	}
	d.cfg.KeepEnclosing = true
	if got = put(big, a); len(got) != 2 {
		t.Errorf("KeepEnclosing: %v, want both", got)
	}
	d.cfg.KeepEnclosing = false
	// Too small, too wide; clipped to the image.
	small := RobotBox{X0: 10, Y0: 10, X1: 25, Y1: 100, Score: 0.9}
	wide := RobotBox{X0: 0, Y0: 300, X1: 330, Y1: 470, Score: 0.9}
	out := RobotBox{X0: 600, Y0: -20, X1: 700, Y1: 200, Score: 0.9}
	got = put(small, wide, out)
	if len(got) != 1 || got[0] != (RobotBox{X0: 600, Y0: 0, X1: 640, Y1: 200, Score: 0.9}) {
		t.Errorf("small, wide, clipped: %v", got)
	}
	// MaxBoxes keeps the best.
	d.cfg.MaxBoxes = 2
	var many []RobotBox
	for i := range 5 {
		many = append(many, RobotBox{X0: float64(100 * i), Y0: 0, X1: float64(100*i + 50), Y1: 100, Score: 0.6 + 0.05*float64(i)})
	}
	got = put(many...)
	if len(got) != 2 || got[0] != many[4] || got[1] != many[3] {
		t.Errorf("MaxBoxes 2: %v", got)
	}
}

func TestOnRobot(t *testing.T) {
	boxes := []RobotBox{{X0: 0, Y0: 0, X1: 100, Y1: 200, Score: 0.7}, {X0: 50, Y0: 50, X1: 150, Y1: 250, Score: 0.9}}
	for _, c := range []struct {
		u, v  float64
		score float64
		ok    bool
	}{{10, 10, 0.7, true}, {75, 100, 0.9, true}, {140, 240, 0.9, true}, {200, 100, 0, false}, {10, 220, 0, false}} {
		s, ok := OnRobot(boxes, c.u, c.v)
		if s != c.score || ok != c.ok {
			t.Errorf("OnRobot(%g, %g) = %g, %v, want %g, %v", c.u, c.v, s, ok, c.score, c.ok)
		}
	}
	if _, ok := OnRobot(nil, 1, 1); ok {
		t.Error("OnRobot without boxes")
	}
}

func TestRobotConfigValidate(t *testing.T) {
	if err := DefaultRobotConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	if (RobotConfig{}).WithDefaults() != DefaultRobotConfig() {
		t.Fatal("zero config is not the default")
	}
	for _, c := range []RobotConfig{
		{Threshold: 1}, {Threshold: -0.5}, {Threshold: math.NaN()},
		{NMSIoU: 1.5}, {NMSIoU: -1},
		{MaxBoxes: -1}, {MaxBoxes: robotPredictions + 1},
		{MinSize: -1}, {MinSize: 1000},
		{MaxWidthRatio: 2}, {MaxWidthRatio: -0.1},
	} {
		if err := c.WithDefaults().Validate(); err == nil {
			t.Errorf("%+v valid", c)
		}
		if _, err := NewRobotDetector(nets.RobotDetector(), c); err == nil {
			t.Errorf("NewRobotDetector(%+v) without error", c)
		}
	}
}

// TestRobotDetectorBadInput: frames of other sizes, short buffers and
// broken models give errors, never a panic.
func TestRobotDetectorBadInput(t *testing.T) {
	d := newTestRobotDetector(t, RobotConfig{})
	for _, img := range []Image{
		{Width: 641, Height: 480, Data: make([]byte, 641*480*2)},
		{Width: 640, Height: 482, Data: make([]byte, 640*482*2)},
		{Width: 480, Height: 640, Data: make([]byte, 640*480*2)},
		{Width: 80, Height: 60, Data: make([]byte, 80*60*2)},
		{Width: 0, Height: 0},
		{Width: -640, Height: -480},
		{Width: 2560, Height: 1920, Data: make([]byte, 16)},
	} {
		if _, err := d.Detect(img); !errors.Is(err, ErrImageSize) {
			t.Errorf("%d×%d: error %v, want ErrImageSize", img.Width, img.Height, err)
		}
	}
	for _, n := range []int{0, 1, 640*480*2 - 1} {
		img := Image{Width: 640, Height: 480, Data: make([]byte, n)}
		if _, err := d.Detect(img); !errors.Is(err, ErrShortBuffer) {
			t.Errorf("%d bytes: error %v, want ErrShortBuffer", n, err)
		}
	}
	// The detector still works after the errors.
	if _, err := d.Detect(Image{Width: 640, Height: 480, Data: make([]byte, 640*480*2)}); err != nil {
		t.Fatal(err)
	}

	model := nets.RobotDetector()
	rng := rand.New(rand.NewPCG(3, 4))
	bad := map[string][]byte{
		"nil":            nil,
		"empty":          {},
		"garbage":        []byte("not an onnx model at all"),
		"truncated half": model[:len(model)/2],
		"truncated tail": model[:len(model)-7],
		"ball model":     nets.BallAndPenaltyMark(),
	}
	for i := range 10 {
		bad[fmt.Sprintf("truncated %d", i)] = model[:rng.IntN(len(model))]
	}
	for i := range 32 {
		m := bytes.Clone(model)
		for range 16 {
			m[rng.IntN(len(m))] = byte(rng.IntN(256))
		}
		bad[fmt.Sprintf("corrupted %d", i)] = m
	}
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	bad["random"] = random
	for name, m := range bad {
		d, err := NewRobotDetector(m, RobotConfig{})
		switch {
		case strings.HasPrefix(name, "corrupted"), strings.HasPrefix(name, "truncated "):
			// Flipped bytes may hit weights only, a cut may fall after
			// the graph: then the model may load and must run without a
			// panic.
			if err == nil {
				if _, err := d.Detect(Image{Width: 640, Height: 480, Data: make([]byte, 640*480*2)}); err != nil {
					t.Logf("%s: Detect: %v", name, err)
				}
			} else if !errors.Is(err, ErrRobotModel) {
				t.Errorf("%s: error %v, want ErrRobotModel", name, err)
			}
		case err == nil || !errors.Is(err, ErrRobotModel):
			t.Errorf("%s: error %v, want ErrRobotModel", name, err)
		}
	}
	if err := checkRobotShapes([]int{1, 60, 80, 1}, []int{1, 8, 10, 4, 5}); !errors.Is(err, ErrRobotModel) {
		t.Errorf("one input channel accepted: %v", err)
	}
	if err := checkRobotShapes([]int{1, 60, 80, 3}, []int{1, 8, 10, 4, 6}); !errors.Is(err, ErrRobotModel) {
		t.Errorf("6 values per anchor accepted: %v", err)
	}
	if err := checkRobotShapes([]int{-1, 60, 80, 3}, []int{-1, 8, 10, 4, 5}); err != nil {
		t.Errorf("free batch refused: %v", err)
	}
}

// TestRobotDetectorAllocs: Detect allocates nothing.
func TestRobotDetectorAllocs(t *testing.T) {
	oneGoroutine(t)
	frames := loadRobotFrames(t)
	d := newTestRobotDetector(t, RobotConfig{})
	f := &frames[0]
	bnd := f.boundaryY()
	if n := testing.AllocsPerRun(20, func() {
		if _, err := d.DetectBelow(f.img, bnd); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("DetectBelow: %v allocations per frame, want 0", n)
	}
	var boxes []RobotBox
	if n := testing.AllocsPerRun(20, func() { boxes, _ = d.Detect(f.img) }); n != 0 {
		t.Errorf("Detect: %v allocations per frame, want 0", n)
	}
	_ = boxes
}

// BenchmarkRobotDetector is one 640×480 frame: shrink, network, decoding.
// Besides ns/op (wall time, which a loaded machine inflates) it reports
// cpu-ns/op, the process's CPU time per frame (Linux, /proc/self/stat, at
// 100 ticks per second), and the load average.
func BenchmarkRobotDetector(b *testing.B) {
	frames := loadRobotFrames(b)
	d := newTestRobotDetector(b, RobotConfig{})
	var f *robotFrame
	for i := range frames {
		if frames[i].img.Width == 640 {
			f = &frames[i]
		}
	}
	bnd := f.boundaryY()
	b.ReportAllocs()
	cpu0, cpuOK := processCPUTicks()
	b.ResetTimer()
	for b.Loop() {
		if _, err := d.DetectBelow(f.img, bnd); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if cpu1, ok := processCPUTicks(); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)*1e7/float64(b.N), "cpu-ns/op")
	}
	if l, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("GOMAXPROCS %d, load %s", runtime.GOMAXPROCS(0), strings.TrimSpace(string(l)))
	}
}

// processCPUTicks is the process's user and system time in clock ticks
// (fields 14 and 15 of /proc/self/stat); false where there is none.
func processCPUTicks() (int64, bool) {
	raw, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')') // the command may hold spaces
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3
	if len(f) < 13 {
		return 0, false
	}
	var u, k int64
	if _, err := fmt.Sscan(f[11], &u); err != nil {
		return 0, false
	}
	if _, err := fmt.Sscan(f[12], &k); err != nil {
		return 0, false
	}
	return u + k, true
}

// BenchmarkRobotShrink is the preprocessing alone.
func BenchmarkRobotShrink(b *testing.B) {
	frames := loadRobotFrames(b)
	d := newTestRobotDetector(b, RobotConfig{})
	img := frames[0].img
	b.ReportAllocs()
	for b.Loop() {
		d.shrink(img, 3)
	}
}
