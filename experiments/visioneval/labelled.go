package visioneval

// The measurement on labelled real camera images: any folder holding a
// labels.json in the format of internal/testimages/testdata/realset (a
// team's own log images, labelled the same way).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/vision"
	"github.com/robotd/robotd/modules/vision/visiontest"
)

// LabelFile is a labels.json: the images of a labelled set.
type LabelFile struct {
	Images []LabelledImage `json:"images"`
}

// LabelledImage is one image's labels; pixel coordinates, origin at the
// top left corner, x right, y down.
type LabelledImage struct {
	// File is the image's path relative to labels.json (PNG or JPEG, RGB).
	File    string `json:"file"`
	Source  string `json:"source,omitempty"`
	Repo    string `json:"repo,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Path    string `json:"path,omitempty"`
	Licence string `json:"licence,omitempty"`
	// Camera is "upper" or "lower".
	Camera       string       `json:"camera,omitempty"`
	Venue        string       `json:"venue,omitempty"`
	Width        int          `json:"width"`
	Height       int          `json:"height"`
	Tags         []string     `json:"tags,omitempty"`
	CameraPose   *CameraPose  `json:"camera_pose,omitempty"`
	Balls        []LabelBall  `json:"balls"`
	Robots       []LabelBox   `json:"robots,omitempty"`
	PenaltyMarks []LabelPoint `json:"penalty_marks,omitempty"`
	Boundary     [][2]float64 `json:"boundary,omitempty"`
}

// CameraPose is the camera's height above the ground and its orientation
// (pitch down positive, roll clockwise in the image positive), with its
// horizontal field of view: how the image was taken, estimated where the
// log did not record it (Source says how).
type CameraPose struct {
	Source   string  `json:"source,omitempty"`
	HeightM  float64 `json:"height_m"`
	PitchDeg float64 `json:"pitch_deg"`
	RollDeg  float64 `json:"roll_deg"`
	HFOVDeg  float64 `json:"hfov_deg"`
}

// LabelBall is a labelled ball: centre and radius, px.
type LabelBall struct {
	CX   float64  `json:"cx"`
	CY   float64  `json:"cy"`
	R    float64  `json:"r"`
	Tags []string `json:"tags,omitempty"`
}

// LabelBox is a labelled robot's bounding box, px.
type LabelBox struct {
	X0   float64  `json:"x0"`
	Y0   float64  `json:"y0"`
	X1   float64  `json:"x1"`
	Y1   float64  `json:"y1"`
	Tags []string `json:"tags,omitempty"`
}

// LabelPoint is a labelled penalty mark's centre, px.
type LabelPoint struct {
	CX float64 `json:"cx"`
	CY float64 `json:"cy"`
}

// Defaults for an image without a camera pose: a NAO standing upright,
// its top camera's height and field of view (NAO v6, 56.3°).
const (
	DefaultCameraHeight = 0.5
	DefaultHFOVDeg      = 56.3
)

// Criteria of the labelled measurement.
const (
	// MatchFraction and MatchMinPixels: a detection finds a labelled ball
	// when its centre lies within max(MatchFraction·r, MatchMinPixels) of
	// the label's centre (r the labelled radius): half a radius is well
	// inside the ball whatever its size, and 4 px is the labels' own
	// accuracy on small far balls. Each detection finds at most one ball;
	// every detection that finds none is a false ball.
	MatchFraction  = 0.5
	MatchMinPixels = 4.0
	// LabelledNearRange is the distance, m, of the "within 4 m" recall.
	LabelledNearRange = 4.0
	// RobotIoU is the least intersection over union of a detected robot's
	// box with a labelled one for it to count as found.
	RobotIoU = 0.3
	// MarkPixels is how near a reported penalty mark must project to its
	// label, px.
	MarkPixels = 12.0
	// DimLuma: a ball whose brightest tenth of pixels stay below this luma
	// is dim.
	DimLuma = 140
)

// LoadLabelled reads labels.json from fsys (a folder of labelled images).
func LoadLabelled(fsys fs.FS) (*LabelFile, error) {
	raw, err := fs.ReadFile(fsys, "labels.json")
	if err != nil {
		return nil, fmt.Errorf("visioneval: %w", err)
	}
	var lf LabelFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&lf); err != nil {
		return nil, fmt.Errorf("visioneval: labels.json: %w", err)
	}
	if len(lf.Images) == 0 {
		return nil, errors.New("visioneval: labels.json: no images")
	}
	for i := range lf.Images {
		im := &lf.Images[i]
		if im.File == "" {
			return nil, fmt.Errorf("visioneval: labels.json: image %d has no file", i)
		}
		for _, b := range im.Balls {
			if !(b.R > 0) || !finite(b.CX, b.CY, b.R) {
				return nil, fmt.Errorf("visioneval: labels.json: %s: ball radius %g", im.File, b.R)
			}
		}
	}
	return &lf, nil
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// DecodeYUYV reads a PNG or JPEG image from fsys and converts it to YUYV
// (vision.Image): JFIF's full-range BT.601, each pixel pair's two lumas
// and the mean of their chromas, as a NAO camera delivers it. An odd
// width loses its last column.
func DecodeYUYV(fsys fs.FS, name string) (vision.Image, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return vision.Image{}, err
	}
	var img image.Image
	switch strings.ToLower(path.Ext(name)) {
	case ".png":
		img, err = png.Decode(bytes.NewReader(data))
	case ".jpg", ".jpeg":
		img, err = jpeg.Decode(bytes.NewReader(data))
	default:
		img, _, err = image.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return vision.Image{}, fmt.Errorf("decoding %s: %w", name, err)
	}
	return ToYUYV(img), nil
}

// ToYUYV converts an image to YUYV (see DecodeYUYV).
func ToYUYV(img image.Image) vision.Image {
	b := img.Bounds()
	w, h := b.Dx()&^1, b.Dy()
	out := vision.Image{Data: make([]byte, w*h*2), Width: w, Height: h}
	ycc, isYCC := img.(*image.YCbCr)
	for y := range h {
		row := out.Data[y*w*2:]
		for x := 0; x < w; x += 2 {
			var yy [2]float64
			var us, vs float64
			for k := range 2 {
				px, py := b.Min.X+x+k, b.Min.Y+y
				var Y, U, V float64
				if isYCC {
					yi, ci := ycc.YOffset(px, py), ycc.COffset(px, py)
					Y, U, V = float64(ycc.Y[yi]), float64(ycc.Cb[ci]), float64(ycc.Cr[ci])
				} else {
					r16, g16, b16, _ := img.At(px, py).RGBA()
					r, g, bb := float64(r16>>8), float64(g16>>8), float64(b16>>8)
					Y = 0.299*r + 0.587*g + 0.114*bb
					U = 128 - 0.168736*r - 0.331264*g + 0.5*bb
					V = 128 + 0.5*r - 0.418688*g - 0.081312*bb
				}
				yy[k] = Y
				us += U
				vs += V
			}
			row[x*2], row[x*2+1], row[x*2+2], row[x*2+3] = clampByte(yy[0]), clampByte(us/2), clampByte(yy[1]), clampByte(vs/2)
		}
	}
	return out
}

func clampByte(v float64) byte { return byte(min(max(v+0.5, 0), 255)) }

// Projector returns the camera of an image's pose (or the defaults) with
// its pitch changed by pitchOffsetDeg: an ideal pinhole at the pose's
// height. The pose's "within 4 m" and the pipeline's expected ball size
// come from it.
func (im *LabelledImage) Projector(w, h int, pitchOffsetDeg float64) *visiontest.Pinhole {
	c := CameraPose{HeightM: DefaultCameraHeight, HFOVDeg: DefaultHFOVDeg}
	if im.CameraPose != nil {
		c = *im.CameraPose
		if !(c.HeightM > 0) {
			c.HeightM = DefaultCameraHeight
		}
		if !(c.HFOVDeg > 0) {
			c.HFOVDeg = DefaultHFOVDeg
		}
	}
	rad := math.Pi / 180
	return visiontest.NewPinhole(w, h, c.HFOVDeg*rad, [3]float64{0, 0, c.HeightM}, 0, (c.PitchDeg+pitchOffsetDeg)*rad, c.RollDeg*rad)
}

// BallDistance is a labelled ball's distance from the robot, m: its centre
// ray cut at the ball's height (0.05 m) when that is in front of the
// camera and agrees with its size within a factor two, else from its
// radius and the focal length.
func BallDistance(cam *visiontest.Pinhole, b LabelBall) float64 {
	const R = 0.05
	dSize := math.Inf(1)
	if b.R > 0 {
		dSize = cam.F * R / b.R
	}
	x, y, ok := cam.ImageToPlane(b.CX, b.CY, R)
	if ok {
		d := math.Hypot(x, y)
		if d < 2*dSize && d > dSize/2 {
			return d
		}
	}
	return dSize
}

// LabelledConfig configures RunLabelled.
type LabelledConfig struct {
	// NewPipeline returns the image processing (a vision.Pipeline for
	// frames up to the set's largest size); one runs all frames.
	NewPipeline func() (Pipeline, error)
	// PitchOffsetDeg is added to every image's camera pitch (the
	// sensitivity to a pose that is a few degrees off).
	PitchOffsetDeg float64
	// Transform, when not nil, changes every image before it is
	// processed (Augmentations: other light, other cameras).
	Transform func(*vision.Image)
}

// ImageResult is one image's outcome.
type ImageResult struct {
	File   string
	Width  int
	Height int
	// Err is why the image could not be measured (not decodable, wrong
	// size); the image then counts in nothing else.
	Err error
	// Balls are the labelled balls with their outcome.
	Balls []BallOutcome
	// False are the detections that found no labelled ball.
	False []FalseBall
	// RobotsFound of RobotsLabelled were detected (IoU ≥ RobotIoU);
	// RobotIoUs is each labelled robot's best IoU with a detected box,
	// FalseRobots counts the boxes that match no label.
	RobotsFound, RobotsLabelled int
	RobotIoUs                   []float64
	FalseRobots                 int
	Duration                    time.Duration
	// Work is what the frame cost the pipeline.
	Work vision.Work
}

// BallOutcome is a labelled ball: found or missed, and why it may be hard.
type BallOutcome struct {
	Label    LabelBall
	Distance float64
	Found    bool
	// Error is the found detection's distance from the label, px.
	Error float64
	// Kinds are the ball's difficulties (its tags, "far" beyond 4 m,
	// "dim", "on robot", "edge" at the image's border, "small" below 5 px)
	// and for a miss "no spot" when no candidate was near.
	Kinds []string
	// Spot is the rank of the candidate near the ball, Net the highest
	// ball probability the network gave one near it (−1: none near, or
	// not checked).
	Spot, Net float64
}

// FalseBall is a detection that found no labelled ball, with what it lies
// on: "on robot", "on penalty mark", "near ball" (a labelled ball within
// twice the radius: off), "above boundary" (above the labelled field
// boundary), else "other".
type FalseBall struct {
	U, V, Radius, Score float64
	Kind                string
}

// LabelledReport is the measurement on a labelled set.
type LabelledReport struct {
	Images []ImageResult
	// Frames counts the measured images.
	Frames int
	// Recall is over all labelled balls, Near within LabelledNearRange;
	// Spotted counts the balls with a candidate spot near (within the
	// match distance or the ball's radius): the recall's upper bound.
	Recall, Near, Spotted Rate
	// FalseBalls counts detections that found no ball.
	FalseBalls int
	// Errors are the found balls' centre errors, px.
	Errors []float64
	// Robots counts the labelled robots and those detected; Marks the
	// labelled penalty marks and those found (a reported mark projects
	// within MarkPixels of the label), FalseMarks the reported marks near
	// no label.
	Robots, Marks Rate
	FalseMarks    int
	// FalseRobots counts the detected robot boxes that match no labelled
	// robot (IoU < RobotIoU).
	FalseRobots int
	// Durations are the frames' processing times.
	Durations []time.Duration
	// MissKinds and FalseKinds count the misses and false balls by kind.
	MissKinds, FalseKinds map[string]int
	// NonBallScores are, per frame, the highest ball probability the
	// network gave a candidate near no labelled ball (−1 without one): how
	// near the frame came to a false ball.
	NonBallScores []float64
}

// RunLabelled measures the pipeline on every image of a labelled set.
func RunLabelled(fsys fs.FS, cfg LabelledConfig) (*LabelledReport, error) {
	lf, err := LoadLabelled(fsys)
	if err != nil {
		return nil, err
	}
	if cfg.NewPipeline == nil {
		return nil, errors.New("visioneval: no pipeline")
	}
	p, err := cfg.NewPipeline()
	if err != nil {
		return nil, fmt.Errorf("visioneval: %w", err)
	}
	rep := &LabelledReport{MissKinds: map[string]int{}, FalseKinds: map[string]int{}}
	var out hal.Vision
	for i := range lf.Images {
		im := &lf.Images[i]
		ir := ImageResult{File: im.File}
		img, err := DecodeYUYV(fsys, im.File)
		if err != nil {
			ir.Err = err
			rep.Images = append(rep.Images, ir)
			continue
		}
		ir.Width, ir.Height = img.Width, img.Height
		if (im.Width != 0 && im.Width&^1 != img.Width) || (im.Height != 0 && im.Height != img.Height) {
			ir.Err = fmt.Errorf("image is %d×%d, labels say %d×%d", img.Width, img.Height, im.Width, im.Height)
			rep.Images = append(rep.Images, ir)
			continue
		}
		if cfg.Transform != nil {
			cfg.Transform(&img)
		}
		cam := im.Projector(img.Width, img.Height, cfg.PitchOffsetDeg)
		t0 := time.Now()
		res, err := p.Process(img, cam, &out)
		ir.Duration = time.Since(t0)
		if err != nil {
			ir.Err = err
			rep.Images = append(rep.Images, ir)
			continue
		}
		rep.Frames++
		rep.Durations = append(rep.Durations, ir.Duration)
		// The pose without the offset decides what is within 4 m.
		truthCam := im.Projector(img.Width, img.Height, 0)
		rep.score(&ir, im, &img, truthCam, res)
		rep.Images = append(rep.Images, ir)
	}
	if rep.Frames == 0 {
		return rep, errors.New("visioneval: no image could be measured")
	}
	return rep, nil
}

// score matches the detections to the labels.
func (rep *LabelledReport) score(ir *ImageResult, im *LabelledImage, img *vision.Image, cam *visiontest.Pinhole, res *vision.Result) {
	used := make([]bool, len(res.Balls))
	for _, lb := range im.Balls {
		bo := BallOutcome{Label: lb, Distance: BallDistance(cam, lb), Error: math.NaN()}
		tol := math.Max(MatchFraction*lb.R, MatchMinPixels)
		best := -1
		for j, b := range res.Balls {
			if used[j] {
				continue
			}
			if e := math.Hypot(b.U-lb.CX, b.V-lb.CY); e <= tol && (best < 0 || e < bo.Error) {
				best, bo.Error = j, e
			}
		}
		if best >= 0 {
			used[best] = true
			bo.Found = true
			rep.Errors = append(rep.Errors, bo.Error)
		}
		bo.Kinds = ballKinds(lb, bo.Distance, im, img)
		rep.Spotted.Total++
		bo.Spot, bo.Net = -1, -1
		for _, c := range res.Candidates {
			if math.Hypot(c.U-lb.CX, c.V-lb.CY) <= math.Max(tol, lb.R) {
				bo.Spot = c.Rank
				bo.Net = max(bo.Net, c.Ball)
			}
		}
		if bo.Spot >= 0 || bo.Found {
			rep.Spotted.Found++
		} else if !bo.Found {
			bo.Kinds = append(bo.Kinds, "no spot")
		}
		rep.Recall.Total++
		if bo.Found {
			rep.Recall.Found++
		}
		if bo.Distance <= LabelledNearRange {
			rep.Near.Total++
			if bo.Found {
				rep.Near.Found++
			}
		}
		if !bo.Found {
			for _, k := range bo.Kinds {
				rep.MissKinds[k]++
			}
			if len(bo.Kinds) == 0 {
				rep.MissKinds["plain"]++
			}
		}
		ir.Balls = append(ir.Balls, bo)
	}
	for j, b := range res.Balls {
		if used[j] {
			continue
		}
		fb := FalseBall{U: b.U, V: b.V, Radius: b.Radius, Score: b.Score, Kind: falseKind(b, im)}
		ir.False = append(ir.False, fb)
		rep.FalseBalls++
		rep.FalseKinds[fb.Kind]++
	}
	worst := -1.0
	for _, c := range res.Candidates {
		near := false
		for _, lb := range im.Balls {
			near = near || math.Hypot(c.U-lb.CX, c.V-lb.CY) <= lb.R+c.R
		}
		if !near {
			worst = max(worst, c.Ball)
		}
	}
	rep.NonBallScores = append(rep.NonBallScores, worst)
	ir.Work = res.Work
	usedM := make([]bool, len(res.Marks))
	for _, pm := range im.PenaltyMarks {
		rep.Marks.Total++
		for j, m := range res.Marks {
			u, v, ok := cam.GroundToImage(m.X, m.Y)
			if !usedM[j] && ok && math.Hypot(u-pm.CX, v-pm.CY) <= MarkPixels {
				usedM[j] = true
				rep.Marks.Found++
				break
			}
		}
	}
	for _, u := range usedM {
		if !u {
			rep.FalseMarks++
		}
	}
	ir.RobotsLabelled = len(im.Robots)
	ir.RobotIoUs, ir.RobotsFound, ir.FalseRobots = scoreRobots(im.Robots, robotBoxes(res))
	rep.Robots.Total += ir.RobotsLabelled
	rep.Robots.Found += ir.RobotsFound
	rep.FalseRobots += ir.FalseRobots
}

// ballKinds lists what may make a labelled ball hard to find.
func ballKinds(lb LabelBall, d float64, im *LabelledImage, img *vision.Image) []string {
	var ks []string
	for _, t := range lb.Tags {
		if t != "far" {
			ks = append(ks, t)
		}
	}
	if d > LabelledNearRange || slices.Contains(lb.Tags, "far") {
		ks = append(ks, "far")
	}
	if lb.R < 5 {
		ks = append(ks, "small")
	}
	if lb.CX-lb.R < 0 || lb.CY-lb.R < 0 || lb.CX+lb.R > float64(img.Width) || lb.CY+lb.R > float64(img.Height) {
		ks = append(ks, "edge")
	}
	for _, rb := range im.Robots {
		if lb.CX+lb.R > rb.X0 && lb.CX-lb.R < rb.X1 && lb.CY+lb.R > rb.Y0 && lb.CY-lb.R < rb.Y1 {
			ks = append(ks, "on robot")
			break
		}
	}
	if ballLuma(lb, img) < DimLuma {
		ks = append(ks, "dim")
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// ballLuma is the 90th percentile of the luma inside the labelled circle.
func ballLuma(lb LabelBall, img *vision.Image) float64 {
	var hist [256]int
	n := 0
	r := lb.R * 0.9
	for v := int(lb.CY - r); v <= int(lb.CY+r); v++ {
		for u := int(lb.CX - r); u <= int(lb.CX+r); u++ {
			if u < 0 || v < 0 || u >= img.Width || v >= img.Height || math.Hypot(float64(u)-lb.CX, float64(v)-lb.CY) > r {
				continue
			}
			hist[img.Data[(v*img.Width+u)*2]]++
			n++
		}
	}
	if n == 0 {
		return 255
	}
	k := 0
	for y := 255; y >= 0; y-- {
		k += hist[y]
		if k*10 >= n {
			return float64(y)
		}
	}
	return 0
}

// falseKind says what a false ball lies on.
func falseKind(b vision.Ball, im *LabelledImage) string {
	for _, lb := range im.Balls {
		if math.Hypot(b.U-lb.CX, b.V-lb.CY) <= 2*lb.R+MatchMinPixels {
			return "near ball"
		}
	}
	for _, pm := range im.PenaltyMarks {
		if math.Hypot(b.U-pm.CX, b.V-pm.CY) <= math.Max(2*b.Radius, 8) {
			return "on penalty mark"
		}
	}
	for _, rb := range im.Robots {
		if b.U >= rb.X0 && b.U <= rb.X1 && b.V >= rb.Y0 && b.V <= rb.Y1+b.Radius {
			return "on robot"
		}
	}
	if v, ok := boundaryAt(im.Boundary, b.U); ok && b.V < v {
		return "above boundary"
	}
	return "other"
}

// boundaryAt interpolates a labelled boundary polyline at column u.
func boundaryAt(pts [][2]float64, u float64) (float64, bool) {
	if len(pts) < 2 {
		return 0, false
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if u >= a[0] && u <= b[0] && b[0] > a[0] {
			return a[1] + (u-a[0])/(b[0]-a[0])*(b[1]-a[1]), true
		}
	}
	return 0, false
}

// scoreRobots returns each labelled robot's best IoU with a detected box,
// the labelled robots with one of at least RobotIoU, and the detected
// boxes with none.
func scoreRobots(labels, boxes []LabelBox) (best []float64, found, falseBoxes int) {
	best = make([]float64, len(labels))
	for i, l := range labels {
		for _, r := range boxes {
			best[i] = max(best[i], iou(l, r))
		}
		if best[i] >= RobotIoU {
			found++
		}
	}
	for _, r := range boxes {
		hit := false
		for _, l := range labels {
			hit = hit || iou(l, r) >= RobotIoU
		}
		if !hit {
			falseBoxes++
		}
	}
	return best, found, falseBoxes
}

func iou(a, b LabelBox) float64 {
	ix := math.Max(0, math.Min(a.X1, b.X1)-math.Max(a.X0, b.X0))
	iy := math.Max(0, math.Min(a.Y1, b.Y1)-math.Max(a.Y0, b.Y0))
	in := ix * iy
	un := (a.X1-a.X0)*(a.Y1-a.Y0) + (b.X1-b.X0)*(b.Y1-b.Y0) - in
	if un <= 0 {
		return 0
	}
	return in / un
}

// PerHundred is n per 100 measured frames.
func (rep *LabelledReport) PerHundred(n int) float64 {
	if rep.Frames == 0 {
		return math.NaN()
	}
	return 100 * float64(n) / float64(rep.Frames)
}

// MeanDuration is the mean processing time per frame; MaxDuration the
// longest.
func (rep *LabelledReport) MeanDuration() time.Duration {
	if len(rep.Durations) == 0 {
		return 0
	}
	var s time.Duration
	for _, d := range rep.Durations {
		s += d
	}
	return s / time.Duration(len(rep.Durations))
}

// Summary is the report's headline numbers.
func (rep *LabelledReport) Summary() string {
	var b strings.Builder
	errs := slices.Clone(rep.Errors)
	slices.Sort(errs)
	fmt.Fprintf(&b, "frames %d; balls: recall %v, within %g m %v; false balls %d (%.2f per 100 frames)\n",
		rep.Frames, rep.Recall, LabelledNearRange, rep.Near, rep.FalseBalls, rep.PerHundred(rep.FalseBalls))
	fmt.Fprintf(&b, "balls with a candidate spot near: %v\n", rep.Spotted)
	fmt.Fprintf(&b, "position error: median %.1f px, 90 %% %.1f px, max %.1f px\n", Quantile(errs, 0.5), Quantile(errs, 0.9), Quantile(errs, 1))
	var maxD time.Duration
	for _, d := range rep.Durations {
		maxD = max(maxD, d)
	}
	fmt.Fprintf(&b, "time per frame: mean %v, max %v (wall, one goroutine)\n", rep.MeanDuration().Round(time.Microsecond), maxD.Round(time.Microsecond))
	var mw vision.Work
	for _, ir := range rep.Images {
		w := ir.Work
		mw = vision.Work{ScanPoints: max(mw.ScanPoints, w.ScanPoints), Runs: max(mw.Runs, w.Runs), Spots: max(mw.Spots, w.Spots),
			Candidates: max(mw.Candidates, w.Candidates), NetRuns: max(mw.NetRuns, w.NetRuns), RobotRuns: max(mw.RobotRuns, w.RobotRuns), LinePoints: max(mw.LinePoints, w.LinePoints),
			RansacIterations: max(mw.RansacIterations, w.RansacIterations), RansacTests: max(mw.RansacTests, w.RansacTests)}
	}
	fmt.Fprintf(&b, "most work in a frame: %+v\n", mw)
	fmt.Fprintf(&b, "penalty marks: %v found, %d reported near no label\n", rep.Marks, rep.FalseMarks)
	if rep.Robots.Total > 0 || rep.FalseRobots > 0 {
		fmt.Fprintf(&b, "robots: %v detected (IoU ≥ %g), %d boxes matching no label\n", rep.Robots, RobotIoU, rep.FalseRobots)
	}
	nb := slices.Clone(rep.NonBallScores)
	slices.Sort(nb)
	fmt.Fprintf(&b, "highest ball probability off the balls per frame: median %.2f, 90 %% %.2f, 99 %% %.2f, max %.2f\n",
		Quantile(nb, 0.5), Quantile(nb, 0.9), Quantile(nb, 0.99), Quantile(nb, 1))
	fmt.Fprintf(&b, "misses by kind: %s\nfalse balls by kind: %s\n", kinds(rep.MissKinds), kinds(rep.FalseKinds))
	return b.String()
}

func kinds(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	return b.String()
}

// Table is one line per image: its balls (found with the error, or missed
// with their kinds) and its false balls with theirs. all lists images
// without a miss or false ball too.
func (rep *LabelledReport) Table(all bool) string {
	var b strings.Builder
	for _, ir := range rep.Images {
		if ir.Err != nil {
			fmt.Fprintf(&b, "%s: ERROR %v\n", ir.File, ir.Err)
			continue
		}
		bad := len(ir.False) > 0
		for _, bo := range ir.Balls {
			bad = bad || !bo.Found
		}
		if !bad && !all {
			continue
		}
		fmt.Fprintf(&b, "%s (%v):", ir.File, ir.Duration.Round(10*time.Microsecond))
		if len(ir.Balls) == 0 && len(ir.False) == 0 {
			b.WriteString(" no ball")
		}
		for _, bo := range ir.Balls {
			l := bo.Label
			if bo.Found {
				fmt.Fprintf(&b, " found (%.0f,%.0f r%.0f %.1fm) err %.1fpx;", l.CX, l.CY, l.R, bo.Distance, bo.Error)
			} else {
				fmt.Fprintf(&b, " MISS (%.0f,%.0f r%.0f %.1fm) [%s] spot %.2f net %.2f;", l.CX, l.CY, l.R, bo.Distance, strings.Join(bo.Kinds, ","), bo.Spot, bo.Net)
			}
		}
		for _, f := range ir.False {
			fmt.Fprintf(&b, " FALSE (%.0f,%.0f r%.0f p%.2f) [%s];", f.U, f.V, f.Radius, f.Score, f.Kind)
		}
		if ir.RobotsLabelled > 0 || ir.FalseRobots > 0 {
			fmt.Fprintf(&b, " robots %d/%d (IoU", ir.RobotsFound, ir.RobotsLabelled)
			for _, v := range ir.RobotIoUs {
				fmt.Fprintf(&b, " %.2f", v)
			}
			fmt.Fprintf(&b, "), %d boxes matching none", ir.FalseRobots)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// LabelledThresholds are a check's limits.
type LabelledThresholds struct {
	MinRecall, MinNear, MaxFalsePer100 float64
}

// Check reports the first threshold missed.
func (rep *LabelledReport) Check(th LabelledThresholds) error {
	switch {
	case rep.Recall.Total > 0 && rep.Recall.Percent() < th.MinRecall:
		return fmt.Errorf("ball recall %v, want ≥ %g %%", rep.Recall, th.MinRecall)
	case rep.Near.Total > 0 && rep.Near.Percent() < th.MinNear:
		return fmt.Errorf("ball recall within %g m %v, want ≥ %g %%", LabelledNearRange, rep.Near, th.MinNear)
	case rep.PerHundred(rep.FalseBalls) > th.MaxFalsePer100:
		return fmt.Errorf("%.2f false balls per 100 frames, want ≤ %g", rep.PerHundred(rep.FalseBalls), th.MaxFalsePer100)
	}
	return nil
}

// robotBoxes are the robots the pipeline detected (Result.Robots), as
// boxes.
func robotBoxes(res *vision.Result) []LabelBox {
	out := make([]LabelBox, len(res.Robots))
	for i, r := range res.Robots {
		out[i] = LabelBox{X0: r.X0, Y0: r.Y0, X1: r.X1, Y1: r.Y1}
	}
	return out
}

// Augmentation is a change of the images that real venues and cameras
// make: the labelled set measured under other conditions, so that what
// the pipeline reaches does not hang on the set's own light.
type Augmentation struct {
	Name      string
	Transform func(*vision.Image)
}

// Augmentations are faint field colour (chroma at 35 %), dim light (luma
// at 55 %), bright light (luma ×1.3 + 20, clipped), a colour cast (U −5,
// V +4), sensor noise (σ 6 luma, 3 chroma) and a sideways motion blur of
// 7 px.
func Augmentations() []Augmentation {
	perPixel := func(f func(y, u, v float64, k int) (float64, float64, float64)) func(*vision.Image) {
		return func(img *vision.Image) {
			d := img.Data
			for i := 0; i+3 < len(d); i += 4 {
				y0, u, y1, v := float64(d[i]), float64(d[i+1]), float64(d[i+2]), float64(d[i+3])
				a0, u0, v0 := f(y0, u, v, i)
				a1, _, _ := f(y1, u, v, i+2)
				d[i], d[i+1], d[i+2], d[i+3] = clampByte(a0), clampByte(u0), clampByte(a1), clampByte(v0)
			}
		}
	}
	noise := func(k int) float64 {
		// A fixed hash of the byte index: repeatable noise in [−1, 1).
		x := uint32(k)*2654435761 ^ 0x9e3779b9
		x ^= x >> 15
		x *= 2246822519
		x ^= x >> 13
		return float64(x%2048)/1024 - 1
	}
	return []Augmentation{
		{"faint green", perPixel(func(y, u, v float64, _ int) (float64, float64, float64) {
			return y, 128 + 0.35*(u-128), 128 + 0.35*(v-128)
		})},
		{"dim", perPixel(func(y, u, v float64, _ int) (float64, float64, float64) {
			return 0.55 * y, 128 + 0.55*(u-128), 128 + 0.55*(v-128)
		})},
		{"bright", perPixel(func(y, u, v float64, _ int) (float64, float64, float64) {
			return 1.3*y + 20, u, v
		})},
		{"colour cast", perPixel(func(y, u, v float64, _ int) (float64, float64, float64) {
			return y, u - 5, v + 4
		})},
		{"noise", perPixel(func(y, u, v float64, k int) (float64, float64, float64) {
			// Uniform in ±a has σ a/√3.
			return y + 6*1.732*noise(k), u + 3*1.732*noise(k+7), v + 3*1.732*noise(k+13)
		})},
		{"motion blur", func(img *vision.Image) {
			const n = 7
			w, h := img.Width, img.Height
			src := slices.Clone(img.Data)
			for v := range h {
				row := src[v*w*2 : (v+1)*w*2]
				for u := range w {
					var sy, su, sv float64
					for k := -n / 2; k <= n/2; k++ {
						x := min(max(u+k, 0), w-1)
						sy += float64(row[x*2])
						j := (x &^ 1) * 2
						su += float64(row[j+1])
						sv += float64(row[j+3])
					}
					img.Data[(v*w+u)*2] = clampByte(sy / n)
					if u&1 == 0 {
						img.Data[(v*w+u)*2+1] = clampByte(su / n)
						img.Data[(v*w+u)*2+3] = clampByte(sv / n)
					}
				}
			}
		}},
	}
}
