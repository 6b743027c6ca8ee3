// Package vision finds the ball, the field lines and their intersections,
// the centre circle, penalty marks, the field boundary and obstacles in one
// YUYV camera image, sparsely, the way the SPL's B-Human and HULKs pipelines
// do (B-Human Code Release 2019–2024 documentation, "Perception"; HULKs
// Code Release 2023, "vision"):
//
//   - the field colour is estimated from the image itself (the densest
//     chroma below the horizon), never from a fixed colour table;
//   - a scan grid whose spacing follows the projected size of the ball and
//     of the lines (coarse near the robot, dense near the horizon) splits
//     vertical and horizontal scan lines into runs of field, white and
//     other;
//   - the field boundary is the upper envelope of each column's best field
//     run;
//   - white runs between field runs become line points on the ground plane,
//     where RANSAC finds the centre circle and the line segments, and
//     segment pairs give L, T and X intersections;
//   - ball spots are stretches of non-field runs on the vertical scan
//     lines, below the field boundary, long enough for a ball resting on
//     the field at their lowest row (B-Human's BallSpotsProvider), centred
//     on their row, deduplicated and ranked (length, fill, contrast); the
//     best MaxBallChecks are checked by B-Human's ball and penalty mark
//     network (BallAndPenaltyMarkPerceptor, modules/vision/nets) on a
//     32×32 grey patch of 3.5 projected radii, which also gives the
//     ball's centre and radius; on a robot a ball needs RobotBallScore;
//   - robots are found by B-Human's RobotDetector network (robots.go,
//     modules/vision/nets) on the frame shrunk to 80×60, below the field
//     boundary; each box is an obstacle at its foot points on the ground;
//   - obstacles are also tall non-field regions standing on the field,
//     reported where no robot box covers them.
//
// Observations are relative to the robot's feet on the ground plane, with a
// one-sigma uncertainty derived from the projection, and never carry
// landmark identities: which corner or which line is the localiser's
// question. Geometry comes through Projector, which the camera matrix
// implements.
//
// A Pipeline preallocates every buffer in New; Process does not allocate.
// Every stage's work per frame is bounded (budget.go, Result.Work).
//
// This product includes software developed by B-Human
// (http://www.b-human.de): the ball network and its preprocessing
// (ballnet.go), the robot detector network, its preprocessing and box
// decoding (robots.go), and the networks themselves (modules/vision/nets).
package vision

import (
	"errors"
	"fmt"
	"math"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
)

// Projector maps between image pixels and the ground plane in the robot
// frame (x forward, y left, metres, origin between the feet). It is the
// camera matrix of the frame being processed.
type Projector interface {
	// ImageToGround intersects the pixel's viewing ray with the ground;
	// ok is false above the horizon.
	ImageToGround(u, v float64) (x, y float64, ok bool)
	// GroundToImage projects a ground point; ok is false behind the camera.
	GroundToImage(x, y float64) (u, v float64, ok bool)
	// HorizonY is the image row of the horizon at column u.
	HorizonY(u float64) float64
}

// PlaneProjector is a Projector that also intersects viewing rays with a
// horizontal plane at height z. When the Projector has it, the ball's
// position is its centre ray cut at the ball's radius; otherwise it is
// estimated from the ground points of its centre and its lowest pixel.
type PlaneProjector interface {
	ImageToPlane(u, v, z float64) (x, y float64, ok bool)
}

// Image is one YUYV 4:2:2 frame: per pair of pixels the bytes Y0 U Y1 V,
// rows without padding.
type Image struct {
	Data          []byte
	Width, Height int
}

// Errors returned by Process for input it cannot use.
var (
	ErrImageSize   = errors.New("vision: image size invalid")
	ErrShortBuffer = errors.New("vision: image buffer shorter than width*height*2")
	ErrNoProjector = errors.New("vision: no projector")
)

// Config tunes the pipeline. Zero values take the defaults of
// DefaultConfig; Validate states the ranges.
type Config struct {
	// MaxWidth and MaxHeight bound the frames Process accepts; buffers are
	// sized for them.
	MaxWidth  int `json:"max_width"`
	MaxHeight int `json:"max_height"`
	// ColumnSpacing is the distance of the densest vertical scan lines, px.
	ColumnSpacing int `json:"column_spacing"`
	// FieldSampleStep is the spacing of the grid that estimates the field
	// colour, px.
	FieldSampleStep int `json:"field_sample_step"`
	// FieldGreenRatio is the fraction of the field colour's saturation (its
	// chroma distance from grey, along the same hue) a pixel needs to count
	// as field.
	FieldGreenRatio float64 `json:"field_green_ratio"`
	// MinFieldSaturation is the least chroma distance from grey the
	// estimated field colour must have; below it the image shows no field.
	MinFieldSaturation float64 `json:"min_field_saturation"`
	// MinWhiteContrast is the least luma above the field's mean for white.
	MinWhiteContrast float64 `json:"min_white_contrast"`
	// Field is the field's geometry (ball radius, line width, centre
	// circle): the SPL field's, not part of a robot's configuration.
	Field field.Dimensions `json:"-"`
	// LineWidth is the width of the field lines.
	LineWidth hal.Metres `json:"line_width"`
	// MaxDistance bounds what is reported, m.
	MaxDistance hal.Metres `json:"max_distance"`
	// MaxBallDistance bounds the balls reported, m (at most MaxDistance
	// takes effect): a detector's reliable ball distance, such as the
	// 2.5 m of the simulator's detected observations
	// (sim.vision.reliable_ball_distance).
	MaxBallDistance hal.Metres `json:"max_ball_distance"`
	// RansacIterations is the number of hypotheses per RANSAC model.
	RansacIterations int `json:"ransac_iterations"`
	// MaxLines bounds the line segments per frame.
	MaxLines int `json:"max_lines"`
	// MinLinePoints and MinLineLength are the least support of a segment.
	MinLinePoints int        `json:"min_line_points"`
	MinLineLength hal.Metres `json:"min_line_length"`
	// LineTolerance is the inlier distance of line and circle points at the
	// robot; it grows by LineToleranceSlope per metre of distance.
	LineTolerance      hal.Metres `json:"line_tolerance"`
	LineToleranceSlope float64    `json:"line_tolerance_slope"`
	// MinCirclePoints is the least support of the centre circle.
	MinCirclePoints int `json:"min_circle_points"`
	// BallSizeTolerance is the relative deviation of a ball's radius in
	// the image from the projected one that is still accepted.
	BallSizeTolerance float64 `json:"ball_size_tolerance"`
	// MaxBallCandidates bounds the ball spots kept per frame (the best
	// ranked).
	MaxBallCandidates int `json:"max_ball_candidates"`
	// MaxBallChecks bounds the spots the ball network checks per frame,
	// best ranked first.
	MaxBallChecks int `json:"max_ball_checks"`
	// BallScore is the least ball probability of the network for a ball
	// (B-Human accepts 0.8 as seen and 0.7 as guessed; at 0.5, the ball
	// the most probable of the three classes, 1000 rendered frames gave
	// no false ball and 2.5 % more recall than at 0.65, mostly blurred
	// and partly hidden balls); SureBallScore ends the frame's search
	// (B-Human's ensureThreshold); RobotBallScore is needed on a robot.
	BallScore      float64 `json:"ball_score"`
	SureBallScore  float64 `json:"sure_ball_score"`
	RobotBallScore float64 `json:"robot_ball_score"`
	// PenaltyMarkScore is the least penalty mark probability for a mark
	// (B-Human's penaltyThreshold).
	PenaltyMarkScore float64 `json:"penalty_mark_score"`
	// MaxBalls bounds the balls reported per frame, the most probable.
	MaxBalls int `json:"max_balls"`
	// BallModel is the ball network as ONNX; nil takes the embedded one
	// (modules/vision/nets).
	BallModel []byte `json:"-"`
	// NoRobotDetector turns the robot detector off: the obstacles are then
	// the tall non-field regions only. The detector runs on frames of
	// 80k×60k pixels (k = 2, 4, 8, 16: 640×480), others go without.
	NoRobotDetector bool `json:"no_robot_detector"`
	// RobotDetectorEvery runs the robot detector on every Nth frame (1:
	// each frame); the frames between use the last frame's boxes for the
	// balls but report no robot.
	RobotDetectorEvery int `json:"robot_detector_every"`
	// RobotScore is the least confidence of a detected robot (B-Human's
	// objectThreshold, 0.6).
	RobotScore float64 `json:"robot_score"`
	// RobotModel is the robot network as ONNX; nil takes the embedded one
	// (modules/vision/nets).
	RobotModel []byte `json:"-"`
	// PixelSigma is the one-sigma pixel error behind the reported
	// uncertainty.
	PixelSigma float64 `json:"pixel_sigma"`
}

// DefaultConfig returns the defaults: NAO v6 top camera size, SPL field.
func DefaultConfig() Config {
	return Config{
		MaxWidth: 640, MaxHeight: 480,
		ColumnSpacing:      4,
		FieldSampleStep:    8,
		FieldGreenRatio:    0.35,
		MinFieldSaturation: 2,
		MinWhiteContrast:   22,
		Field:              field.SPL(),
		LineWidth:          0.05,
		MaxDistance:        9,
		MaxBallDistance:    9,
		RansacIterations:   80,
		MaxLines:           8,
		MinLinePoints:      5,
		MinLineLength:      0.3,
		LineTolerance:      0.04,
		LineToleranceSlope: 0.015,
		MinCirclePoints:    8,
		BallSizeTolerance:  0.45,
		MaxBallCandidates:  64,
		MaxBallChecks:      8,
		BallScore:          0.5,
		SureBallScore:      0.9,
		RobotBallScore:     0.97,
		PenaltyMarkScore:   0.9,
		MaxBalls:           1,
		PixelSigma:         1.5,
		RobotDetectorEvery: 1,
		RobotScore:         0.6,
	}
}

// WithDefaults returns the configuration with its zero fields filled from
// DefaultConfig: what New runs with.
func (c Config) WithDefaults() Config { return c.withDefaults() }

// withDefaults fills zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	setI := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	setF := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	setM := func(p *hal.Metres, v hal.Metres) {
		if *p == 0 {
			*p = v
		}
	}
	setI(&c.MaxWidth, d.MaxWidth)
	setI(&c.MaxHeight, d.MaxHeight)
	setI(&c.ColumnSpacing, d.ColumnSpacing)
	setI(&c.FieldSampleStep, d.FieldSampleStep)
	setF(&c.FieldGreenRatio, d.FieldGreenRatio)
	setF(&c.MinFieldSaturation, d.MinFieldSaturation)
	setF(&c.MinWhiteContrast, d.MinWhiteContrast)
	if c.Field == (field.Dimensions{}) {
		c.Field = d.Field
	}
	setM(&c.LineWidth, d.LineWidth)
	setM(&c.MaxDistance, d.MaxDistance)
	setM(&c.MaxBallDistance, d.MaxBallDistance)
	setI(&c.RansacIterations, d.RansacIterations)
	setI(&c.MaxLines, d.MaxLines)
	setI(&c.MinLinePoints, d.MinLinePoints)
	setM(&c.MinLineLength, d.MinLineLength)
	setM(&c.LineTolerance, d.LineTolerance)
	setF(&c.LineToleranceSlope, d.LineToleranceSlope)
	setI(&c.MinCirclePoints, d.MinCirclePoints)
	setF(&c.BallSizeTolerance, d.BallSizeTolerance)
	setI(&c.MaxBallCandidates, d.MaxBallCandidates)
	setI(&c.MaxBallChecks, d.MaxBallChecks)
	setF(&c.BallScore, d.BallScore)
	setF(&c.SureBallScore, d.SureBallScore)
	setF(&c.RobotBallScore, d.RobotBallScore)
	setF(&c.PenaltyMarkScore, d.PenaltyMarkScore)
	setI(&c.MaxBalls, d.MaxBalls)
	setF(&c.PixelSigma, d.PixelSigma)
	setI(&c.RobotDetectorEvery, d.RobotDetectorEvery)
	setF(&c.RobotScore, d.RobotScore)
	return c
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the vision section.
func (c Config) Rules() config.Rules {
	return config.Rules{
		"max_width":            config.Int(16, 4096).Doc("px", "the widest image accepted (even); buffers are sized for it"),
		"max_height":           config.Int(16, 4096).Doc("px", "the tallest image accepted; buffers are sized for it"),
		"column_spacing":       config.Int(1, 32).Doc("px", "the distance between the densest vertical scan lines"),
		"field_sample_step":    config.Int(2, 64).Doc("px", "the spacing of the pixel grid that estimates the field colour"),
		"field_green_ratio":    config.Between(0, 1, true, true).Doc("fraction", "the fraction of the field colour's saturation (its chroma distance from grey, along the same hue) a pixel needs to count as field"),
		"min_field_saturation": config.Range(1, 100).Doc("", "the least chroma distance from grey the estimated field colour must have; below it the image shows no field"),
		"min_white_contrast":   config.Range(1, 200).Doc("", "the least luma above the field's mean for a pixel to count as white"),
		"line_width":           config.Between(0.005, 0.5, true, false).Doc("m", "the width of the field lines"),
		"max_distance":         config.Range(1, 50).Doc("m", "the farthest distance at which anything is reported"),
		"max_ball_distance":    config.Range(0.3, 50).Doc("m", "the farthest distance at which a ball is reported (at most max_distance)"),
		"ransac_iterations":    config.Int(1, 10_000).Doc("", "the number of hypotheses per RANSAC model"),
		"max_lines":            config.Int(1, maxLines).Doc("", "the most line segments reported per frame"),
		"min_line_points":      config.Int(2, 100).Doc("", "the fewest points a line segment needs"),
		"min_line_length":      config.Between(0, 10, true, false).Doc("m", "the shortest line segment reported"),
		"line_tolerance":       config.Between(0, 1, true, false).Doc("m", "the inlier distance of line and circle points right at the robot"),
		"line_tolerance_slope": config.Range(0, 1).Doc("fraction", "how much the inlier distance grows per metre of distance"),
		"min_circle_points":    config.Int(4, 200).Doc("", "the fewest points the centre circle needs"),
		"ball_size_tolerance":  config.Between(0, 1, true, true).Doc("fraction", "the relative deviation of a ball's radius in the image from the projected one that is still accepted"),
		"max_ball_candidates":  config.Int(1, maxBallCandidates).Doc("", "the most ball spots kept per frame (the best ranked)"),
		"max_ball_checks":      config.Int(1, maxBallCandidates).Doc("", "the most ball spots the ball network checks per frame, best ranked first"),
		"ball_score":           config.Between(0, 1, true, true).Doc("fraction", "the least ball probability of the network for a ball"),
		"sure_ball_score":      config.Range(0, 1).Doc("fraction", "the ball probability at or above which a ball is sure (at least ball_score)"),
		"robot_ball_score":     config.Range(0, 1).Doc("fraction", "the ball probability a ball on or next to a robot needs (at least ball_score)"),
		"penalty_mark_score":   config.Between(0, 1, true, false).Doc("fraction", "the least penalty mark probability for a mark (B-Human's penaltyThreshold)"),
		"max_balls":            config.Int(1, maxBalls).Doc("", "the most balls reported per frame (the most probable)"),
		"pixel_sigma":          config.Between(0, 50, true, false).Doc("px", "the one-sigma pixel error behind the reported uncertainty"),
		"no_robot_detector":    config.Bool().Doc("", "turns the robot detector (B-Human's RobotDetector network) off: the obstacles are then the tall non-field regions only"),
		"robot_detector_every": config.Int(1, 30).Doc("", "runs the robot detector on every Nth frame (1: each); the frames between use the last boxes for the balls but report no robot"),
		"robot_score":          config.Between(0, 1, true, true).Doc("fraction", "the least confidence of a detected robot (B-Human's objectThreshold)"),
	}
}

// Validate checks every setting against Rules, then what Rules cannot
// say: an even width, the field's ball and centre circle radii and the
// scores above ball_score. It reports the first error.
func (c Config) Validate() error {
	if err := config.CheckSection("vision", c, c.Rules()); err != nil {
		return fmt.Errorf("vision config: %w", err)
	}
	switch {
	case c.MaxWidth%2 != 0:
		return fmt.Errorf("vision config: max_width %d not even in [16, 4096]", c.MaxWidth)
	case c.Field.BallRadius <= 0.01 || c.Field.BallRadius > 0.5:
		return fmt.Errorf("vision config: ball radius %g m not in (0.01, 0.5]", c.Field.BallRadius)
	case c.Field.CentreCircleRadius <= 0.1 || c.Field.CentreCircleRadius > 5:
		return fmt.Errorf("vision config: centre circle radius %g m not in (0.1, 5]", c.Field.CentreCircleRadius)
	case c.SureBallScore < c.BallScore:
		return fmt.Errorf("vision config: sure_ball_score %g not in [ball_score %g, 1]", c.SureBallScore, c.BallScore)
	case c.RobotBallScore < c.BallScore:
		return fmt.Errorf("vision config: robot_ball_score %g not in [ball_score %g, 1]", c.RobotBallScore, c.BallScore)
	}
	return nil
}

// Fixed bounds of the per-frame results.
const (
	maxLines          = 16
	maxBallCandidates = 128
	maxBalls          = 4
	maxIntersections  = 16
	maxMarks          = 4
	maxObstacles      = 16
	maxLinePoints     = 1024
)

// Segment is a field line found on the ground.
type Segment struct {
	A, B    hal.Vec2
	Inliers int
}

// Intersection is where two line segments meet: Kind is hal.ObjCorner (L),
// hal.ObjTJunction (T) or hal.ObjXCrossing (X).
type Intersection struct {
	Kind        hal.ObjectKind
	Pos         hal.Vec2
	Orientation float64
}

// Ball is a ball found in the image: centre and radius in pixels, position
// on the ground.
type Ball struct {
	U, V, Radius float64
	Pos          hal.Vec2
	Score        float64
}

// Obstacle is a robot the robot detector found or a tall non-field region
// standing on the field: its foot point on the ground and its width
// there, its image columns and foot row. Score is the robot detector's
// confidence, 0 for a non-field region.
type Obstacle struct {
	Pos    hal.Vec2
	Width  float64
	U0, U1 int
	V      int
	Score  float64
}

// Colour is a YUV colour.
type Colour struct{ Y, U, V float64 }

// Result is everything one frame gave. It belongs to the Pipeline and is
// overwritten by the next Process.
type Result struct {
	// FieldFound is false when the image shows no field colour; nothing
	// else is then reported.
	FieldFound bool
	Field      Colour
	// BoundaryU and BoundaryV are the field boundary's polyline, one point
	// per vertical scan line (V = Height when the column shows no field).
	BoundaryU, BoundaryV []float64
	// LinePoints is the number of line points on the ground.
	LinePoints    int
	Lines         []Segment
	CircleFound   bool
	Circle        hal.Vec2
	Intersections []Intersection
	Marks         []hal.Vec2
	Balls         []Ball
	// Obstacles are the detected robots that stand on the field within
	// MaxDistance, by falling score, then the non-field regions no robot
	// box covers.
	Obstacles []Obstacle
	// Robots are the robot detector's boxes of this frame, by falling
	// score (those of the last run on a frame without a run; empty when
	// it is off).
	Robots []RobotBox
	// Candidates are the frame's ball spots, best ranked first, with the
	// network's verdict.
	Candidates []Candidate
	// Work counts what the frame cost; every count is bounded (see Work).
	Work Work
}

// Work counts one frame's work. Each count has a bound independent of
// the image's content, so that no frame, however hostile its texture,
// costs much more than a normal one.
type Work struct {
	// ScanPoints are the pixels classified (scan lines, edge searches,
	// checks).
	ScanPoints int
	// Runs are the scan lines' runs.
	Runs int
	// Spots are the ball spots found; Candidates those kept after
	// deduplication and the bound MaxBallCandidates.
	Spots, Candidates int
	// NetRuns are the ball network's evaluations (≤ MaxBallChecks).
	NetRuns int
	// RobotRuns are the robot network's evaluations (≤ 1).
	RobotRuns int
	// LinePoints are the line points on the ground; RansacIterations the
	// line and circle hypotheses tried, RansacTests the points tested
	// against them.
	LinePoints, RansacIterations, RansacTests int
}

// BoundaryAt is the field boundary's row at column u (linear between scan
// lines); ok is false without a boundary.
func (r *Result) BoundaryAt(u float64) (v float64, ok bool) {
	n := len(r.BoundaryU)
	if n == 0 {
		return 0, false
	}
	if u <= r.BoundaryU[0] {
		return r.BoundaryV[0], true
	}
	for i := 1; i < n; i++ {
		if u <= r.BoundaryU[i] {
			t := (u - r.BoundaryU[i-1]) / (r.BoundaryU[i] - r.BoundaryU[i-1])
			return r.BoundaryV[i-1] + t*(r.BoundaryV[i]-r.BoundaryV[i-1]), true
		}
	}
	return r.BoundaryV[n-1], true
}

// finite reports whether all values are finite numbers.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
