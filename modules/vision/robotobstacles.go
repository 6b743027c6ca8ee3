package vision

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/vision/nets"
)

// The pipeline's use of the robot detector (robots.go), as B-Human's
// RobotDetector::update(ObstaclesFieldPercept&) uses its boxes (Code
// Release 2025, Src/Modules/Perception/PlayersPerceptors/
// RobotDetector.cpp): it runs when the field was found (B-Human: a valid
// field boundary), on the frame shrunk to 80×60, dropping boxes whose
// bottom is above the field boundary; each box's lower corners are
// projected to the ground, the obstacle being their midpoint, dropped
// when a corner does not project or they are more than 0.75 m apart
// (B-Human's sqr(750.f) limit), and, here, beyond MaxDistance. Not done:
// B-Human's trimObstacle (narrowing to the contrast edges), the jersey
// classification and the lower camera's scan-based detector.

// robotMaxWidth is the widest a detected robot's feet may be on the
// ground, m (B-Human's 750 mm).
const robotMaxWidth = 0.75

// robotFootSlack is how far below a robot box's bottom, as a fraction of
// its height (at least robotFootSlackPx pixels), a non-field region's foot
// may be for the box to cover it: the network's box bottom is not
// pixel-exact.
const (
	robotFootSlack   = 0.25
	robotFootSlackPx = 8
)

// newRobotDetector opens the configured robot network (nil: the embedded
// one, B-Human's), or none when the configuration turns it off.
func newRobotDetector(cfg Config) (*RobotDetector, error) {
	if cfg.NoRobotDetector {
		return nil, nil
	}
	model := cfg.RobotModel
	if model == nil {
		model = nets.RobotDetector()
	}
	return NewRobotDetector(model, RobotConfig{Threshold: cfg.RobotScore, MaxBoxes: maxObstacles})
}

// findRobots runs the robot detector on every RobotDetectorEvery-th frame
// of a size it takes and reports its boxes as obstacles, before the
// non-field regions that no box covers. On the frames between, the last
// run's boxes (of a frame of the same size) are Result.Robots for the
// balls' check, and no robot is reported.
func (p *Pipeline) findRobots() {
	if p.robots == nil {
		return
	}
	if _, ok := robotScale(p.w, p.h); !ok {
		return
	}
	if p.robotW != p.w || p.robotH != p.h {
		p.lastRobots, p.robotTick = nil, 0
	}
	run := p.robotTick%uint64(p.cfg.RobotDetectorEvery) == 0
	p.robotTick++
	if !run {
		p.res.Robots = p.lastRobots
		return
	}
	p.res.Work.RobotRuns++
	boxes, err := p.robots.DetectBelow(Image{Data: p.img, Width: p.w, Height: p.h}, p.boundaryFn)
	if err != nil {
		// The frame's size was checked: a network that fails to run.
		p.lastRobots = nil
		return
	}
	p.lastRobots, p.robotW, p.robotH = boxes, p.w, p.h
	p.res.Robots = boxes

	regions := p.regionBuf[:copy(p.regionBuf[:], p.res.Obstacles)]
	p.res.Obstacles = p.obstacles[:0]
	reported := p.reportedBuf[:0]
	for _, b := range boxes {
		if o, ok := p.robotObstacle(b); ok && len(p.res.Obstacles) < maxObstacles {
			p.res.Obstacles = append(p.res.Obstacles, o)
			reported = append(reported, b)
		}
	}
	for _, o := range regions {
		if !robotCovers(reported, o) && len(p.res.Obstacles) < maxObstacles {
			p.res.Obstacles = append(p.res.Obstacles, o)
		}
	}
}

// robotObstacle is the obstacle of a robot box: the midpoint of its lower
// corners on the ground and their distance.
func (p *Pipeline) robotObstacle(b RobotBox) (Obstacle, bool) {
	xl, yl, okl := p.proj.ImageToGround(b.X0, b.Y1)
	xr, yr, okr := p.proj.ImageToGround(b.X1, b.Y1)
	if !okl || !okr || !finite(xl, yl, xr, yr) {
		return Obstacle{}, false
	}
	w := math.Hypot(xr-xl, yr-yl)
	pos := hal.Vec2{X: (xl + xr) / 2, Y: (yl + yr) / 2}
	if w > robotMaxWidth || math.Hypot(pos.X, pos.Y) > float64(p.cfg.MaxDistance) {
		return Obstacle{}, false
	}
	u0 := max(0, int(math.Floor(b.X0)))
	u1 := min(p.w-1, int(math.Ceil(b.X1))-1)
	v := min(p.h-1, max(0, int(math.Ceil(b.Y1))-1))
	return Obstacle{Pos: pos, Width: w, U0: u0, U1: max(u0, u1), V: v, Score: b.Score}, true
}

// robotCovers reports whether robot boxes cover a non-field region: boxes
// whose bottom is near its foot span at least half its columns.
func robotCovers(boxes []RobotBox, o Obstacle) bool {
	cols := float64(o.U1 - o.U0 + 1)
	a, b := float64(o.U0), float64(o.U1+1)
	v := float64(o.V)
	covered := 0.0
	for _, r := range boxes {
		slack := max(robotFootSlackPx, robotFootSlack*(r.Y1-r.Y0))
		if v < r.Y0 || v > r.Y1+slack {
			continue
		}
		covered += max(0, min(b, r.X1)-max(a, r.X0))
	}
	return covered >= cols/2
}
