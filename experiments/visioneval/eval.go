// Package visioneval measures the vision pipeline (modules/vision) on
// camera images rendered by the embedded simulator (render)
// against the rendered scene's ground truth: the ball (recall by
// distance, false balls, position error), the straight field lines, the
// L, T and X intersections by kind, the centre circle and the penalty
// marks.
//
// The frames are the random scenes of render.RandomSample drawn from
// render.SampleSource(seed): the data set `simframes -seed S` writes. Each
// frame is processed with the camera matrix of its true camera pose in the
// observing robot's frame (origin on the ground between its feet, x along
// its heading), so the measurement is of the image processing, not of the
// kinematics.
package visioneval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/modules/vision"
	"github.com/robotd/robotd/modules/vision/camera"
	"github.com/robotd/robotd/render"
)

// Config configures Run.
type Config struct {
	// Frames is the number of rendered frames; Seed picks the scenes.
	Frames int
	Seed   uint64
	// BottomWidth is the bottom camera's width: 320 (320 × 240) or 640.
	BottomWidth int
	// NewPipeline returns one camera's image processing (a
	// vision.Pipeline for frames up to 640 × 480); Run takes one per
	// camera.
	NewPipeline func() (Pipeline, error)
}

// Pipeline is one camera's image processing: vision.Pipeline.
type Pipeline interface {
	Process(img vision.Image, proj vision.Projector, out *hal.Vision) (*vision.Result, error)
}

// Criteria of the measurement.
const (
	// MinBallVisible is the least fraction of the ball's pixels, not hidden
	// by a robot, for a ball whose centre is in the image to count in the
	// recall: a ball half hidden still counts.
	MinBallVisible = 0.5
	// BallErrorFraction: a ball is found when a detection lies within this
	// fraction of its distance; every other detection is a false ball.
	BallErrorFraction = 0.10
	// NearRange and FarRange are the recall's distance classes, m.
	NearRange = 4.0
	FarRange  = 6.0
	// FeatureRange bounds the field features counted in the recall: their
	// distance from the robot, m.
	FeatureRange = 4.0
	// IntersectionTolerance and CircleTolerance are how near a detection
	// must be to the true feature, m; FalseTolerance how far from every
	// feature of its kind a detection must be to count as false.
	IntersectionTolerance = 0.3
	CircleTolerance       = 0.25
	MarkTolerance         = 0.2
	FalseTolerance        = 0.5
	// MinCircleFraction is the least visible fraction of the centre circle
	// for it to count as in view.
	MinCircleFraction = 0.25
	// MinLinePart is the least length of a line's visible part within
	// FeatureRange for it to count as in view, m.
	MinLinePart = 0.5
)

// Rate is found of total.
type Rate struct{ Found, Total int }

// Percent returns Found/Total in percent (NaN without a total).
func (r Rate) Percent() float64 {
	if r.Total == 0 {
		return math.NaN()
	}
	return 100 * float64(r.Found) / float64(r.Total)
}

func (r Rate) String() string { return fmt.Sprintf("%.1f %% (%d/%d)", r.Percent(), r.Found, r.Total) }

// Feature is the measurement of one kind of field feature.
type Feature struct {
	// Recall counts the features in view within FeatureRange and found.
	Recall Rate
	// False counts detections near no feature of their kind;
	// Misclassified those near a feature of another kind only.
	False, Misclassified int
	// Errors are the found features' position errors, m.
	Errors []float64
}

// Report is a measurement's result.
type Report struct {
	Frames, TopFrames, BottomFrames int
	// BallNear and BallFar count balls in view (centre in the image, at
	// least MinBallVisible of it visible) within NearRange and from
	// NearRange to FarRange, and those found.
	BallNear, BallFar Rate
	// BallPartlyHidden is the recall of the balls of BallNear and BallFar
	// that a robot partly hides; BallMostlyHidden of the balls in the
	// image but less than MinBallVisible visible (not in the recall).
	BallPartlyHidden, BallMostlyHidden Rate
	// BallMisses counts the balls of the recall that were missed, by
	// cause: "no spot" (no candidate near the ball), "not checked" (the
	// frame's checks ran out before its candidate), "net" (the network's
	// ball probability below vision's BallScore), "rejected" (probable
	// enough, but not accepted: on a robot, size, field boundary).
	BallMisses map[string]int
	// BallRecallByMetre is the recall per metre of distance (0–1 m, …).
	BallRecallByMetre [6]Rate
	// FalseBalls counts detections that are not within BallErrorFraction
	// of the true ball's distance; OffBalls those of them within
	// FalseTolerance of it (found, but too far off); NoBallFrames the
	// frames without a ball in the image.
	FalseBalls, OffBalls, NoBallFrames int
	// BallErrors are the found balls' position errors over their
	// distance.
	BallErrors []float64
	// Lines: Recall counts the lines' visible parts; False the detected
	// segments that lie on no straight line; Errors the found parts'
	// segments' mean end-point distance from the true line, m.
	Lines Feature
	// LineAngleErrors are the found lines' direction errors, radians.
	LineAngleErrors []float64
	// Segments is the number of detected segments.
	Segments int
	// Intersections by kind: L, T, X.
	Intersections [3]Feature
	Circle, Marks Feature
}

// Run renders cfg.Frames random scenes and measures the pipeline on them.
// progress, when not nil, is called after each frame.
func Run(cfg Config, progress func(done int)) (*Report, error) {
	if cfg.Frames < 1 {
		return nil, fmt.Errorf("visioneval: %d frames", cfg.Frames)
	}
	if cfg.BottomWidth == 0 {
		cfg.BottomWidth = 320
	}
	if cfg.BottomWidth != 320 && cfg.BottomWidth != 640 {
		return nil, fmt.Errorf("visioneval: bottom camera width %d: want 320 or 640", cfg.BottomWidth)
	}
	topIn, botIn := render.NAOIntrinsics(640, 480), render.NAOIntrinsics(cfg.BottomWidth, cfg.BottomWidth*3/4)
	top, err := render.NewRenderer(topIn)
	if err != nil {
		return nil, fmt.Errorf("visioneval: %w", err)
	}
	bot, err := render.NewRenderer(botIn)
	if err != nil {
		return nil, fmt.Errorf("visioneval: %w", err)
	}
	topF, botF := render.NewFrame(topIn), render.NewFrame(botIn)
	topF.Camera, botF.Camera = render.Top, render.Bottom
	ev, err := newEvaluator(cfg.NewPipeline, cfg.Frames)
	if err != nil {
		return nil, err
	}
	g := render.SampleSource(cfg.Seed)
	d := field.SPL()
	for i := range cfg.Frames {
		s := render.RandomSample(g, d)
		r, f := top, topF
		if s.Camera == render.Bottom {
			r, f = bot, botF
		}
		f.Seq = uint64(i)
		if err := r.Render(f, &s.Scene, &s.Pose, &s.Options); err != nil {
			return nil, fmt.Errorf("visioneval: frame %d: %w", i, err)
		}
		t := r.TruthOf(&s)
		if err := ev.frame(&t, f.Data); err != nil {
			return nil, fmt.Errorf("visioneval: frame %d: %w", i, err)
		}
		if progress != nil {
			progress(i + 1)
		}
	}
	return &ev.rep, nil
}

// RunDir measures the pipelines newPipeline returns on a data set that
// render.Generate (the command simframes) wrote into dir.
func RunDir(dir string, newPipeline func() (Pipeline, error), progress func(done int)) (*Report, error) {
	tf, err := os.Open(filepath.Join(dir, "truth.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("visioneval: %w", err)
	}
	defer tf.Close()
	var truths []render.Truth
	dec := json.NewDecoder(bufio.NewReader(tf))
	for {
		var t render.Truth
		if err := dec.Decode(&t); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("visioneval: %s: truth %d: %w", dir, len(truths), err)
		}
		truths = append(truths, t)
	}
	if len(truths) == 0 {
		return nil, fmt.Errorf("visioneval: %s: no frames", dir)
	}
	ev, err := newEvaluator(newPipeline, len(truths))
	if err != nil {
		return nil, err
	}
	for i := range truths {
		t := &truths[i]
		data, err := os.ReadFile(filepath.Join(dir, filepath.Base(t.File)))
		if err != nil {
			return nil, fmt.Errorf("visioneval: %w", err)
		}
		if err := ev.frame(t, data); err != nil {
			return nil, fmt.Errorf("visioneval: %s: %w", t.File, err)
		}
		if progress != nil {
			progress(i + 1)
		}
	}
	return &ev.rep, nil
}

// evaluator runs one pipeline per camera and scores its results.
type evaluator struct {
	pipes [2]Pipeline
	d     field.Dimensions
	rep   Report
}

func newEvaluator(newPipeline func() (Pipeline, error), frames int) (*evaluator, error) {
	if newPipeline == nil {
		return nil, errors.New("visioneval: no pipeline")
	}
	ev := &evaluator{d: field.SPL(), rep: Report{Frames: frames}}
	for i := range ev.pipes {
		p, err := newPipeline()
		if err != nil {
			return nil, fmt.Errorf("visioneval: %w", err)
		}
		ev.pipes[i] = p
	}
	return ev, nil
}

// frame processes one frame of truth t and scores it.
func (ev *evaluator) frame(t *render.Truth, data []byte) error {
	pipe := ev.pipes[0]
	if t.Camera == render.Bottom.String() {
		pipe = ev.pipes[1]
		ev.rep.BottomFrames++
	} else {
		ev.rep.TopFrames++
	}
	pose := geom.Pose3{P: geom.V3(t.CameraPos), R: t.CameraRot}
	m := Matrix(&pose, t.Robot, render.NAOIntrinsics(t.Width, t.Height))
	res, err := pipe.Process(vision.Image{Data: data, Width: t.Width, Height: t.Height}, &m, nil)
	if err != nil {
		return err
	}
	ev.rep.add(t, res, &ev.d)
	return nil
}

// Matrix returns the camera matrix of a camera at pose (world frame) in
// the frame of a robot at robot (x, y, heading), for a camera of
// intrinsics in: camera.FromWorldPose with the renderer's image size and
// fields of view.
func Matrix(pose *geom.Pose3, robot [3]float64, in render.Intrinsics) camera.Matrix {
	return camera.FromWorldPose(pose, robot, in.Width, in.Height, in.FOVX, in.FOVY)
}

// frame maps field points into the observing robot's frame.
type frame struct{ x, y, s, c float64 }

func newFrame(robot [3]float64) frame {
	s, c := math.Sincos(robot[2])
	return frame{robot[0], robot[1], s, c}
}

func (f frame) toRobot(x, y float64) hal.Vec2 {
	dx, dy := x-f.x, y-f.y
	return hal.Vec2{X: f.c*dx + f.s*dy, Y: -f.s*dx + f.c*dy}
}

func dist(a, b hal.Vec2) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }
func norm(a hal.Vec2) float64    { return math.Hypot(a.X, a.Y) }

// add scores one frame.
func (rep *Report) add(t *render.Truth, res *vision.Result, d *field.Dimensions) {
	fr := newFrame(t.Robot)
	rep.addBall(t, res, fr)
	rep.addLines(t, res, fr, d)
	rep.addIntersections(t, res, fr, d)
	rep.addCircle(t, res, fr)
	rep.addMarks(t, res, fr, d)
}

func (rep *Report) addBall(t *render.Truth, res *vision.Result, fr frame) {
	b := &t.Ball
	want := fr.toRobot(b.Pos[0], b.Pos[1])
	inView := b.Present && b.InImage && b.Pixels > 0
	visible := 0.0
	if b.Pixels > 0 {
		visible = float64(b.Visible) / float64(b.Pixels)
	}
	counted := inView && visible >= MinBallVisible && b.Distance <= FarRange
	if !inView || visible == 0 {
		rep.NoBallFrames++
	}
	found := false
	for _, det := range res.Balls {
		e := dist(det.Pos, want)
		if b.Present && !found && e <= BallErrorFraction*b.Distance {
			found = true
			rep.BallErrors = append(rep.BallErrors, e/b.Distance)
			continue
		}
		rep.FalseBalls++
		if b.Present && e <= FalseTolerance {
			rep.OffBalls++
		}
	}
	switch {
	case counted:
		r := &rep.BallFar
		if b.Distance <= NearRange {
			r = &rep.BallNear
		}
		r.Total++
		k := min(int(b.Distance), len(rep.BallRecallByMetre)-1)
		rep.BallRecallByMetre[k].Total++
		if visible < 0.999 {
			rep.BallPartlyHidden.Total++
		}
		if found {
			r.Found++
			rep.BallRecallByMetre[k].Found++
			if visible < 0.999 {
				rep.BallPartlyHidden.Found++
			}
		} else {
			if rep.BallMisses == nil {
				rep.BallMisses = map[string]int{}
			}
			rep.BallMisses[missCause(b, res)]++
		}
	case inView && visible > 0 && visible < MinBallVisible:
		rep.BallMostlyHidden.Total++
		if found {
			rep.BallMostlyHidden.Found++
		}
	}
}

// missCause says why a ball in view was missed (see Report.BallMisses).
func missCause(b *render.BallTruth, res *vision.Result) string {
	// The renderer's pixel centre is at u + 0.5, the camera matrix's at u.
	u, v := b.U-0.5, b.V-0.5
	cause := "no spot"
	for _, c := range res.Candidates {
		if math.Hypot(c.U-u, c.V-v) > math.Max(b.RadiusPx, 4) {
			continue
		}
		switch {
		case c.Ball < 0:
			if cause == "no spot" {
				cause = "not checked"
			}
		case c.Ball < vision.DefaultConfig().BallScore:
			if cause != "rejected" {
				cause = "net"
			}
		default:
			cause = "rejected"
		}
	}
	return cause
}

// lineTolerance is how near a detected segment's end must lie to a true
// line at distance dd from the robot, m: 0.1 m, or beyond 4 m what an
// error of 2 px in the image makes on the ground for a camera 0.5 m up
// (2/598 rad × dd² / 0.5 m).
func lineTolerance(dd float64) float64 { return math.Max(0.1, 0.0067*dd*dd) }

// segPoint returns the distance of p from the segment a–b and where along
// it (0..1) the nearest point is.
func segPoint(p, a, b hal.Vec2) (float64, float64) {
	dx, dy := b.X-a.X, b.Y-a.Y
	l2 := dx*dx + dy*dy
	if l2 == 0 {
		return dist(p, a), 0
	}
	f := ((p.X-a.X)*dx + (p.Y-a.Y)*dy) / l2
	fc := math.Max(0, math.Min(1, f))
	return math.Hypot(p.X-a.X-fc*dx, p.Y-a.Y-fc*dy), f
}

// lineDist is p's distance from the infinite line through a and b.
func lineDist(p, a, b hal.Vec2) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	return math.Abs((p.X-a.X)*dy-(p.Y-a.Y)*dx) / math.Hypot(dx, dy)
}

// onSegment reports whether the detected segment s lies along a–b: both
// ends within tolerance of the segment (extended by 0.3 m at each end).
func onSegment(s vision.Segment, a, b hal.Vec2) bool {
	l := dist(a, b)
	ext := 0.3 / math.Max(l, 1e-9)
	for _, p := range [2]hal.Vec2{s.A, s.B} {
		dd, f := segPoint(p, a, b)
		if f < -ext || f > 1+ext {
			return false
		}
		if lineDist(p, a, b) > lineTolerance(norm(p)) && dd > lineTolerance(norm(p)) {
			return false
		}
	}
	return true
}

func (rep *Report) addLines(t *render.Truth, res *vision.Result, fr frame, d *field.Dimensions) {
	rep.Segments += len(res.Lines)
	// False: on no straight field line.
	var all [][2]hal.Vec2
	for _, sg := range render.Lines(*d) {
		all = append(all, [2]hal.Vec2{fr.toRobot(sg.X0, sg.Y0), fr.toRobot(sg.X1, sg.Y1)})
	}
	for _, s := range res.Lines {
		ok := false
		for _, l := range all {
			if onSegment(s, l[0], l[1]) {
				ok = true
				break
			}
		}
		if !ok {
			rep.Lines.False++
		}
	}
	for _, lt := range t.Lines {
		a, b := fr.toRobot(lt.Field[0], lt.Field[1]), fr.toRobot(lt.Field[2], lt.Field[3])
		a, b, ok := clipToRange(a, b, FeatureRange)
		if !ok || dist(a, b) < MinLinePart {
			continue
		}
		rep.Lines.Recall.Total++
		// Found: a detected segment along this part, overlapping it.
		best, bestAng := math.Inf(1), 0.0
		for _, s := range res.Lines {
			if !onSegment(s, a, b) {
				continue
			}
			_, fa := segPoint(s.A, a, b)
			_, fb := segPoint(s.B, a, b)
			if math.Max(fa, fb) < 0 || math.Min(fa, fb) > 1 {
				continue // beside the visible part
			}
			e := (lineDist(s.A, a, b) + lineDist(s.B, a, b)) / 2
			if e < best {
				best = e
				ang := math.Abs(math.Atan2(s.B.Y-s.A.Y, s.B.X-s.A.X) - math.Atan2(b.Y-a.Y, b.X-a.X))
				ang = math.Mod(ang, math.Pi)
				bestAng = math.Min(ang, math.Pi-ang)
			}
		}
		if !math.IsInf(best, 1) {
			rep.Lines.Recall.Found++
			rep.Lines.Errors = append(rep.Lines.Errors, best)
			rep.LineAngleErrors = append(rep.LineAngleErrors, bestAng)
		}
	}
}

// clipToRange clips the segment a–b to the disc of radius r around the
// origin.
func clipToRange(a, b hal.Vec2, r float64) (hal.Vec2, hal.Vec2, bool) {
	dx, dy := b.X-a.X, b.Y-a.Y
	A := dx*dx + dy*dy
	B := 2 * (a.X*dx + a.Y*dy)
	C := a.X*a.X + a.Y*a.Y - r*r
	disc := B*B - 4*A*C
	if A == 0 || disc <= 0 {
		return a, b, false
	}
	sq := math.Sqrt(disc)
	t0, t1 := math.Max(0, (-B-sq)/(2*A)), math.Min(1, (-B+sq)/(2*A))
	if t0 >= t1 {
		return a, b, false
	}
	return hal.Vec2{X: a.X + t0*dx, Y: a.Y + t0*dy}, hal.Vec2{X: a.X + t1*dx, Y: a.Y + t1*dy}, true
}

var kindIndex = map[hal.ObjectKind]int{hal.ObjCorner: 0, hal.ObjTJunction: 1, hal.ObjXCrossing: 2}

func (rep *Report) addIntersections(t *render.Truth, res *vision.Result, fr frame, d *field.Dimensions) {
	type pt struct {
		k int
		q hal.Vec2
	}
	var all []pt
	for _, x := range render.Intersections(*d) {
		all = append(all, pt{int(x.Kind), fr.toRobot(x.X, x.Y)})
	}
	for _, in := range res.Intersections {
		k, ok := kindIndex[in.Kind]
		if !ok {
			continue
		}
		same, other := false, false
		for _, p := range all {
			if dist(p.q, in.Pos) <= FalseTolerance {
				if p.k == k {
					same = true
				} else {
					other = true
				}
			}
		}
		switch {
		case same:
		case other:
			rep.Intersections[k].Misclassified++
		default:
			rep.Intersections[k].False++
		}
	}
	for _, x := range t.Intersections {
		q := fr.toRobot(x.X, x.Y)
		if norm(q) > FeatureRange {
			continue
		}
		k := map[string]int{"L": 0, "T": 1, "X": 2}[x.Kind]
		f := &rep.Intersections[k]
		f.Recall.Total++
		best := math.Inf(1)
		for _, in := range res.Intersections {
			if ki, ok := kindIndex[in.Kind]; ok && ki == k {
				best = math.Min(best, dist(in.Pos, q))
			}
		}
		if best <= IntersectionTolerance {
			f.Recall.Found++
			f.Errors = append(f.Errors, best)
		}
	}
}

func (rep *Report) addCircle(t *render.Truth, res *vision.Result, fr frame) {
	c := fr.toRobot(0, 0)
	if res.CircleFound && dist(res.Circle, c) > FalseTolerance {
		rep.Circle.False++
	}
	if t.CentreCircle.Fraction < MinCircleFraction || norm(c) > FeatureRange {
		return
	}
	rep.Circle.Recall.Total++
	if res.CircleFound && dist(res.Circle, c) <= CircleTolerance {
		rep.Circle.Recall.Found++
		rep.Circle.Errors = append(rep.Circle.Errors, dist(res.Circle, c))
	}
}

func (rep *Report) addMarks(t *render.Truth, res *vision.Result, fr frame, d *field.Dimensions) {
	pm := render.PenaltyMarks(*d)
	for _, m := range res.Marks {
		if dist(m, fr.toRobot(pm[0][0], pm[0][1])) > FalseTolerance && dist(m, fr.toRobot(pm[1][0], pm[1][1])) > FalseTolerance {
			rep.Marks.False++
		}
	}
	for _, p := range t.PenaltyMarks {
		q := fr.toRobot(p.X, p.Y)
		if norm(q) > FeatureRange {
			continue
		}
		rep.Marks.Recall.Total++
		best := math.Inf(1)
		for _, m := range res.Marks {
			best = math.Min(best, dist(m, q))
		}
		if best <= MarkTolerance {
			rep.Marks.Recall.Found++
			rep.Marks.Errors = append(rep.Marks.Errors, best)
		}
	}
}

// Quantile returns the q-quantile (0..1) of xs, NaN when empty.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(math.Round(q*float64(len(s)-1)))]
}

// PerHundred returns n per 100 frames.
func (rep *Report) PerHundred(n int) float64 { return 100 * float64(n) / float64(rep.Frames) }

// Check returns an error naming every ball criterion the report misses:
// recall at least 90 % within NearRange and 85 % up to FarRange, at most
// one false ball per 100 frames, every found ball within
// BallErrorFraction of its distance (by construction) with a 95th
// percentile error below it.
func (rep *Report) Check() error {
	var errs []error
	// The ball network (B-Human's) misses a third of the balls the
	// renderer smears by the head's motion (30 % of its frames, up to
	// 2 rad/s for up to 20 ms); the hand-written check this replaced found
	// more of the rendered near balls (95 %) and far fewer real ones.
	if rep.BallNear.Total == 0 || rep.BallNear.Percent() < 90 {
		errs = append(errs, fmt.Errorf("ball recall within %g m %v, want ≥ 90 %%", NearRange, rep.BallNear))
	}
	all := Rate{rep.BallNear.Found + rep.BallFar.Found, rep.BallNear.Total + rep.BallFar.Total}
	if all.Percent() < 85 {
		errs = append(errs, fmt.Errorf("ball recall up to %g m %v, want ≥ 85 %%", FarRange, all))
	}
	if rep.PerHundred(rep.FalseBalls) > 1 {
		errs = append(errs, fmt.Errorf("%d false balls in %d frames (%.2f per 100), want ≤ 1 per 100", rep.FalseBalls, rep.Frames, rep.PerHundred(rep.FalseBalls)))
	}
	if q := Quantile(rep.BallErrors, 1); q > BallErrorFraction {
		errs = append(errs, fmt.Errorf("ball position error up to %.1f %% of the distance, want ≤ 10 %%", 100*q))
	}
	return errors.Join(errs...)
}

// Table returns the report as a Markdown table.
func (rep *Report) Table() string {
	var b strings.Builder
	mm := func(xs []float64) string {
		if len(xs) == 0 {
			return "–"
		}
		return fmt.Sprintf("median %.0f mm, 95th %.0f mm", 1000*Quantile(xs, 0.5), 1000*Quantile(xs, 0.95))
	}
	all := Rate{rep.BallNear.Found + rep.BallFar.Found, rep.BallNear.Total + rep.BallFar.Total}
	fmt.Fprintf(&b, "%d rendered frames (%d top camera, %d bottom; %d without a visible ball)\n\n", rep.Frames, rep.TopFrames, rep.BottomFrames, rep.NoBallFrames)
	b.WriteString("| | recall | false per 100 frames | position error |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| ball ≤ %g m | %v | | |\n", NearRange, rep.BallNear)
	fmt.Fprintf(&b, "| ball %g–%g m | %v | | |\n", NearRange, FarRange, rep.BallFar)
	fmt.Fprintf(&b, "| ball 0.3–%g m | %v | %.2f (%d; %d of them near the ball but > 10 %% off) | median %.1f %%, 95th %.1f %%, max %.1f %% of the distance |\n",
		FarRange, all, rep.PerHundred(rep.FalseBalls), rep.FalseBalls, rep.OffBalls,
		100*Quantile(rep.BallErrors, 0.5), 100*Quantile(rep.BallErrors, 0.95), 100*Quantile(rep.BallErrors, 1))
	fmt.Fprintf(&b, "| ball partly hidden by a robot (≥ %.0f %% visible) | %v | | |\n", 100*MinBallVisible, rep.BallPartlyHidden)
	fmt.Fprintf(&b, "| ball mostly hidden (< %.0f %% visible; not in the recall) | %v | | |\n", 100*MinBallVisible, rep.BallMostlyHidden)
	for k, r := range rep.BallRecallByMetre {
		fmt.Fprintf(&b, "| ball %d–%d m | %v | | |\n", k, k+1, r)
	}
	if len(rep.BallMisses) > 0 {
		fmt.Fprintf(&b, "| balls missed by cause | %s | | |\n", kinds(rep.BallMisses))
	}
	fmt.Fprintf(&b, "| line parts ≤ %g m (≥ %g m seen) | %v | %.1f (%d of %d segments on no line) | %s from the line, angle median %.1f° |\n",
		FeatureRange, MinLinePart, rep.Lines.Recall, rep.PerHundred(rep.Lines.False), rep.Lines.False, rep.Segments, mm(rep.Lines.Errors), Quantile(rep.LineAngleErrors, 0.5)*180/math.Pi)
	for k, name := range [3]string{"L", "T", "X"} {
		f := &rep.Intersections[k]
		fmt.Fprintf(&b, "| %s intersections ≤ %g m | %v | %.1f false, %.1f misclassified | %s |\n",
			name, FeatureRange, f.Recall, rep.PerHundred(f.False), rep.PerHundred(f.Misclassified), mm(f.Errors))
	}
	fmt.Fprintf(&b, "| centre circle ≤ %g m (≥ %.0f %% seen) | %v | %.1f | %s |\n", FeatureRange, 100*MinCircleFraction, rep.Circle.Recall, rep.PerHundred(rep.Circle.False), mm(rep.Circle.Errors))
	fmt.Fprintf(&b, "| penalty marks ≤ %g m | %v | %.1f | %s |\n", FeatureRange, rep.Marks.Recall, rep.PerHundred(rep.Marks.False), mm(rep.Marks.Errors))
	return b.String()
}
