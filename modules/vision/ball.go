package vision

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// Candidate is a ball spot checked (or not) in this frame: its centre and
// projected radius, px, its rank, and the network's ball and penalty mark
// probabilities (−1 when the frame's budget of checks ran out before it).
type Candidate struct {
	U, V, R float64
	// Width is the non-field width of its row, px.
	Width      float64
	Rank       float64
	Ball, Mark float64
}

type ballCand struct {
	u, v, r float64 // spot: centre and expected radius, px
	length  float64 // the run's length, px (the rules' check)
	width   float64 // the non-field width of its row, px
	mid     float64 // the middle row of its stretch (a penalty mark's)
	rank    float64
}

// findBalls collects ball spots on the vertical scan lines, ranks them and
// checks the best MaxBallChecks with the network.
func (p *Pipeline) findBalls() {
	if p.net == nil {
		return
	}
	p.nCands = 0
	p.ballSpots()
	p.rankCands()
	p.checkCands()
}

// ballSpots adds a spot for every stretch of non-field runs on a vertical
// scan line below the field boundary that is long enough to be a ball
// resting on the field at its lowest row (B-Human's BallSpotsProvider:
// the ball's centre one projected radius above that row), and one at the
// middle of a stretch that the image's bottom cuts. Short field runs (the
// ball's black patches or its shading in faint field colour) do not end a
// stretch. The spot is then centred on the stretch of non-field pixels of
// its row.
func (p *Pipeline) ballSpots() {
	for ci := range p.cols {
		rs := p.vruns[p.colStart[ci]:p.colEnd[ci]]
		u := float64(p.cols[ci])
		bnd := p.boundaryAt(u)
		for i := 0; i < len(rs); {
			if rs[i].cls == clsField {
				i++
				continue
			}
			// rs runs bottom-up: collect the stretch i..j-1, through field
			// runs shorter than a fifth of the ball there.
			bot := float64(rs[i].b)
			r0 := p.expectedRadius(u, bot)
			gap := int32(math.Max(2, 0.2*r0))
			j, white, n := i, 0, int32(0)
			for j < len(rs) {
				if rs[j].cls == clsField {
					if rs[j].len() > gap || j+1 == len(rs) {
						break
					}
				} else {
					n += rs[j].len()
					if rs[j].cls == clsWhite {
						white += int(rs[j].len())
					}
				}
				j++
			}
			top := float64(rs[j-1].a)
			cut := i == 0 && rs[0].b >= int32(p.h-2)
			i = j
			if bot < bnd-1 || r0 < p.minBallRadius() {
				continue
			}
			r := r0
			vc := bot - r
			if rc := p.radiusAtCentre(u, vc); rc > 0 {
				r = rc
				vc = bot - r
			}
			if r < p.minBallRadius() || r > p.maxBallRadius() {
				continue
			}
			l := bot - top + 1
			switch {
			case l >= 1.1*r:
			case cut && l >= 0.6*r:
				vc = (top + bot) / 2
			default:
				continue
			}
			if vc < bnd-r {
				continue
			}
			uc, width := p.centreRow(u, vc, r)
			// Rank: a length near the diameter, and contrast (a ball's white
			// and black).
			fill := math.Min(1, float64(n)/math.Max(1, l))
			agree := 1 - math.Min(1, math.Abs(math.Min(l, 3*r)/(2*r)-1))
			c := p.columnContrast(int(u), int(math.Max(top, bot-2*r)), int(bot))
			rank := agree + fill + c
			if white > 0 {
				rank += 0.25
			}
			p.addCand(ballCand{u: uc, v: vc, r: r, length: l, width: width, mid: (math.Max(top, bot-2*r) + bot) / 2, rank: rank})
		}
	}
}

// minBallRadius is the smallest ball radius looked for, px.
func (p *Pipeline) minBallRadius() float64 { return 2 }

// radiusAtCentre is the projected radius of a ball whose centre is at
// pixel (u, v): the ray cut at the ball's radius when the projector can,
// else the ground point's.
func (p *Pipeline) radiusAtCentre(u, v float64) float64 {
	R := float64(p.cfg.Field.BallRadius)
	if pp, ok := p.proj.(PlaneProjector); ok {
		x, y, ok := pp.ImageToPlane(u, v, R)
		d := math.Hypot(x, y)
		if ok && finite(x, y) && d > 1e-3 {
			if r := p.radiusAt(x, y, d, R); finite(r) {
				return r
			}
		}
	}
	return p.expectedRadius(u, v)
}

// centreRow scans row v left and right of u for the extent of non-field
// pixels (three field samples in a row end it) and returns the centre of
// its part within 1.2 radii (B-Human's correctWithScanLeftAndRight) and
// its width within 3 radii (a ball smeared sideways by the head's
// motion). Beyond
// 8 px radius it samples every r/8 pixels: at most 48 samples.
func (p *Pipeline) centreRow(u, v, r float64) (uc, width float64) {
	vi := int(v + 0.5)
	if vi < 0 || vi >= p.h {
		return u, 0
	}
	step := max(1, int(r/8))
	maxL, centreL := int(3*r+0.5), int(1.2*r+0.5)
	// ext returns the extent within 1.2 radii (the centre) and within 3.
	ext := func(dir int) (int, int) {
		l, lc, skipped := 0, 0, 0
		for k := step; k <= maxL; k += step {
			x := int(u) + dir*k
			if x < 0 || x >= p.w {
				break
			}
			if p.classify(x, vi) == clsField {
				skipped++
				if skipped >= 3 {
					break
				}
				continue
			}
			skipped = 0
			l = k
			if k <= centreL {
				lc = k
			}
		}
		return lc, l
	}
	lc, left := ext(-1)
	rc, right := ext(1)
	return u + float64(rc-lc)/2, float64(left + right + 1)
}

// columnContrast is the luma range of column u from row a to b, over
// 128, at most 1 (every second pixel).
func (p *Pipeline) columnContrast(u, a, b int) float64 {
	a, b = max(a, 0), min(b, p.h-1)
	lo, hi := 255, 0
	for v := a; v <= b; v += 2 {
		y := int(p.img[(v*p.w+u)*2])
		lo, hi = min(lo, y), max(hi, y)
	}
	if hi < lo {
		return 0
	}
	return math.Min(1, float64(hi-lo)/128)
}

// addCand keeps a spot unless one within 1.3 radii ranks higher (B-Human's
// minAllowedDistanceRadiusRelation); when the buffer is full the lowest
// rank gives way.
func (p *Pipeline) addCand(c ballCand) {
	p.res.Work.Spots++
	d := 1.3 * c.r
	for k := range p.nCands {
		o := &p.cands[k]
		if (o.u-c.u)*(o.u-c.u)+(o.v-c.v)*(o.v-c.v) < d*d {
			if c.rank > o.rank || (c.rank == o.rank && c.length > o.length) {
				*o = c
			}
			return
		}
	}
	if p.nCands < p.cfg.MaxBallCandidates {
		p.cands[p.nCands] = c
		p.nCands++
		return
	}
	low := 0
	for k := 1; k < p.nCands; k++ {
		if p.cands[k].rank < p.cands[low].rank {
			low = k
		}
	}
	if c.rank > p.cands[low].rank {
		p.cands[low] = c
	}
}

// rankCands sorts the candidates by rank, best first (insertion sort: at
// most MaxBallCandidates).
func (p *Pipeline) rankCands() {
	cs := p.cands[:p.nCands]
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].rank > cs[j-1].rank; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	p.res.Candidates = p.candOut[:0]
	for _, c := range cs {
		p.res.Candidates = append(p.res.Candidates, Candidate{U: c.u, V: c.v, R: c.r, Width: c.width, Rank: c.rank, Ball: -1, Mark: -1})
	}
	p.res.Work.Candidates = len(cs)
}

// checkCands runs the network on the best MaxBallChecks candidates. A
// ball needs BallScore (and more than the probability of nothing), on a
// robot (an obstacle found in this frame, or a robot box) RobotBallScore; its circle is
// the network's. A penalty mark needs PenaltyMarkScore and more than
// the ball's probability. The search ends at a ball of at least
// SureBallScore off every robot, as B-Human's does: the SPL plays with one
// ball.
func (p *Pipeline) checkCands() {
	for k := range p.nCands {
		if p.res.Work.NetRuns >= p.cfg.MaxBallChecks {
			break
		}
		c := p.cands[k]
		su, sv := int(math.Floor(c.u+0.5)), int(math.Floor(c.v+0.5))
		nr, err := p.runNet(su, sv, c.r, 1)
		if err != nil {
			return
		}
		if nr.ball >= retryScore && nr.ball < p.cfg.BallScore && finite(nr.u, nr.v) && p.res.Work.NetRuns < p.cfg.MaxBallChecks &&
			math.Hypot(nr.u-c.u, nr.v-c.v) > 0.15*c.r && math.Hypot(nr.u-c.u, nr.v-c.v) < 1.5*c.r {
			// Unsure, and the ball it sees lies off the spot: again
			// centred on it.
			if r2 := p.radiusAtCentre(nr.u, nr.v); r2 >= p.minBallRadius() && r2 <= p.maxBallRadius() {
				u2, v2 := int(math.Floor(nr.u+0.5)), int(math.Floor(nr.v+0.5))
				if n2, err := p.runNet(u2, v2, r2, 1); err == nil && n2.ball > nr.ball {
					nr, su, sv = n2, u2, v2
				}
			}
		}
		if nr.ball < p.cfg.BallScore && nr.mark < p.cfg.PenaltyMarkScore && c.width > streakWidth*2*c.r && p.res.Work.NetRuns < p.cfg.MaxBallChecks {
			// Wider than a ball: perhaps one smeared sideways by the
			// head's motion. Again with the patch squeezed to make the
			// smear round (the network knows blurred balls, but round).
			sx := math.Min(c.width/(2*c.r), maxStreak)
			if n2, err := p.runNet(su, sv, c.r, sx); err == nil && n2.ball > nr.ball {
				nr = n2
			}
		}
		p.res.Candidates[k].Ball, p.res.Candidates[k].Mark = nr.ball, nr.mark
		if nr.mark >= p.cfg.PenaltyMarkScore && nr.mark > nr.ball {
			// The mark lies flat: its centre is the stretch's middle.
			p.netMark(c.u, c.mid)
			continue
		}
		if nr.ball < p.cfg.BallScore || nr.ball < nr.none || !finite(nr.u, nr.v, nr.r) || nr.r <= 0 {
			continue
		}
		// Its size: within BallSizeTolerance of the projected one
		// (smaller by that fraction, or larger by its inverse).
		er, tol := p.radiusAtCentre(nr.u, nr.v), p.cfg.BallSizeTolerance
		if er <= 0 || nr.r > er/(1-tol) || nr.r < er*(1-tol) {
			continue
		}
		if nr.v < p.boundaryAt(nr.u)-nr.r {
			continue
		}
		onRobot := p.onRobot(nr.u, nr.v, nr.r)
		if onRobot && nr.ball < p.cfg.RobotBallScore {
			continue
		}
		pos, ok := p.ballPosition(nr.u, nr.v, nr.r)
		if !ok {
			continue
		}
		p.addBall(Ball{U: nr.u, V: nr.v, Radius: nr.r, Pos: pos, Score: nr.ball})
		if nr.ball >= p.cfg.SureBallScore && !onRobot {
			break
		}
	}
}

// A candidate whose row is wider than streakWidth diameters is checked a
// second time with the patch squeezed sideways by up to maxStreak.
const (
	streakWidth = 1.4
	maxStreak   = 4.0
)

// retryScore is the least ball probability for a second check centred
// where the network sees the ball.
const retryScore = 0.1

// addBall keeps the best ball of those overlapping, and at most MaxBalls.
func (p *Pipeline) addBall(b Ball) {
	for i := range p.res.Balls {
		o := &p.res.Balls[i]
		if math.Hypot(o.U-b.U, o.V-b.V) < o.Radius+b.Radius {
			if b.Score > o.Score {
				*o = b
			}
			return
		}
	}
	if len(p.res.Balls) < p.cfg.MaxBalls {
		p.res.Balls = append(p.res.Balls, b)
		return
	}
	low := 0
	for i := range p.res.Balls {
		if p.res.Balls[i].Score < p.res.Balls[low].Score {
			low = i
		}
	}
	if b.Score > p.res.Balls[low].Score {
		p.res.Balls[low] = b
	}
}

// onRobot reports whether the circle lies on a non-field region found in
// this frame (within its columns and not below its foot) or on a robot
// box of Result.Robots (onRobotBox).
func (p *Pipeline) onRobot(cx, cy, r float64) bool {
	for _, o := range p.res.Obstacles {
		if o.Score == 0 && cx >= float64(o.U0) && cx <= float64(o.U1) && cy+r <= float64(o.V)+obstacleFootRows*r {
			return true
		}
	}
	return onRobotBox(p.res.Robots, cx, cy, r)
}

// onRobotBox reports whether a circle lies on a robot box: all of it
// within the box's columns, its centre within its rows. The network's
// boxes are wider than the robot; a ball that a box's side cuts lies
// beside the robot (of 1000 rendered frames, 6 of the 7 real balls a
// box took away were such).
func onRobotBox(boxes []RobotBox, cx, cy, r float64) bool {
	for _, b := range boxes {
		if cx-r >= b.X0 && cx+r <= b.X1 && cy >= b.Y0 && cy <= b.Y1 {
			return true
		}
	}
	return false
}

// netMark adds a penalty mark the network found at pixel (u, v) unless one
// is already near.
func (p *Pipeline) netMark(u, v float64) {
	x, y, ok := p.proj.ImageToGround(u, v)
	if !ok || !finite(x, y) || math.Hypot(x, y) > float64(p.cfg.MaxDistance) {
		return
	}
	for _, m := range p.res.Marks {
		if math.Hypot(m.X-x, m.Y-y) < 0.3 {
			return
		}
	}
	if len(p.res.Marks) < maxMarks {
		p.res.Marks = append(p.res.Marks, hal.Vec2{X: x, Y: y})
	}
}

// maxBallRadius is the largest ball radius looked for: a quarter of the
// image's height.
func (p *Pipeline) maxBallRadius() float64 { return float64(p.h) / 4 }

// obstacleFootRows is how near, in ball radii, a circle's lowest point
// must be to an obstacle's foot row to be taken for its foot.
const obstacleFootRows = 1.0

// ballPosition is the ball's centre on the ground: its centre ray cut at
// the ball's radius when the projector can, else the mean of the ground
// points under its centre ray (too far) and its lowest pixel's (too near).
func (p *Pipeline) ballPosition(u, v, r float64) (hal.Vec2, bool) {
	R := float64(p.cfg.Field.BallRadius)
	if pp, ok := p.proj.(PlaneProjector); ok {
		x, y, ok := pp.ImageToPlane(u, v, R)
		if ok && finite(x, y) {
			return hal.Vec2{X: x, Y: y}, true
		}
	}
	x0, y0, ok0 := p.proj.ImageToGround(u, v)
	x1, y1, ok1 := p.proj.ImageToGround(u, v+r)
	if !ok0 || !ok1 || !finite(x0, y0, x1, y1) {
		return hal.Vec2{}, false
	}
	return hal.Vec2{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, true
}
