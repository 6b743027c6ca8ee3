package vision

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// Least scores of classifyPatch for a ball, and for a ball whose
// projected radius is below smallBall pixels (5 m away in the NAO's top
// camera).
const (
	minBallScore      = 0.3
	minSmallBallScore = 0.7
	smallBall         = 6
)

type ballCand struct {
	u, v, r float64 // guess: centre and expected radius, px
	length  float64 // the run's length, px
}

// findBalls collects candidates (stretches of non-field runs on a vertical
// scan line, below the field boundary, about as long as the projected
// ball and holding white), fits a circle to the field edge around each and
// checks it on a 32×32 patch.
func (p *Pipeline) findBalls() {
	p.nCands = 0
	tolR := p.cfg.BallSizeTolerance
	for ci := range p.cols {
		rs := p.vruns[p.colStart[ci]:p.colEnd[ci]]
		u := float64(p.cols[ci])
		bnd := p.boundaryAt(u)
		for i := 0; i < len(rs); {
			if rs[i].cls == clsField {
				i++
				continue
			}
			// rs runs bottom-up: collect the stretch i..j-1.
			j, white := i, false
			for j < len(rs) && rs[j].cls != clsField {
				white = white || rs[j].cls == clsWhite
				j++
			}
			top, bot := float64(rs[j-1].a), float64(rs[i].b)
			i = j
			if !white || bot < bnd {
				continue
			}
			vc := (top + bot) / 2
			r := p.expectedRadius(u, vc)
			if r > p.maxBallRadius() {
				continue
			}
			if top < bnd-1 {
				// The stretch runs on beyond the field: a ball at the
				// boundary, its top against the background.
				r = p.expectedRadius(u, bot)
				if bot-bnd < 0.8*r {
					continue
				}
				top = math.Max(top, bot-2*r)
				vc = (top + bot) / 2
			}
			if r < 1.5 || r > p.maxBallRadius() {
				continue
			}
			l := bot - top + 1
			// A scan line within a third of a radius of the centre (the
			// grid's spacing) crosses at least 1.88 radii.
			if l > 2*r*(1+tolR) || l < 1.3*r*(1-tolR/2) {
				continue
			}
			p.addCand(ballCand{u: u, v: vc, r: r, length: l})
		}
	}
	for k := range p.nCands {
		c := p.cands[k]
		b, ok := p.checkBall(c)
		if !ok {
			continue
		}
		dup := false
		for i := range p.res.Balls {
			o := &p.res.Balls[i]
			if math.Hypot(o.U-b.U, o.V-b.V) < math.Max(o.Radius, b.Radius) {
				dup = true
				if b.Score > o.Score {
					*o = b
				}
			}
		}
		if !dup && len(p.res.Balls) < maxBalls {
			p.res.Balls = append(p.res.Balls, b)
		}
	}
}

// maxBallRadius is the largest ball radius looked for: a quarter of the
// image's height.
func (p *Pipeline) maxBallRadius() float64 { return float64(p.h) / 4 }

// addCand keeps a candidate unless one within its radius was longer.
func (p *Pipeline) addCand(c ballCand) {
	for k := range p.nCands {
		o := &p.cands[k]
		if math.Abs(o.u-c.u) < c.r && math.Abs(o.v-c.v) < c.r {
			if c.length > o.length {
				*o = c
			}
			return
		}
	}
	if p.nCands < p.cfg.MaxBallCandidates {
		p.cands[p.nCands] = c
		p.nCands++
	}
}

// checkBall fits a circle to the field edges seen from the candidate's
// centre on 32 rays and classifies the patch it encloses.
func (p *Pipeline) checkBall(c ballCand) (Ball, bool) {
	// Rays all round: those pointing down may end in the ball's shadow
	// and those along a line the ball lies on beyond it; the circle with
	// the most edge points on it, of about the projected size, is the
	// ball's edge.
	n, lost, _ := p.edgeRays(c, true, 0)
	n, l2, _ := p.edgeRays(c, false, n)
	lost += l2
	// A ball stands on the field: field surrounds it except where a
	// robot or a line touches it.
	if n < 8 || lost > maxLostRays {
		return Ball{}, false
	}
	tolR := p.cfg.BallSizeTolerance
	m := p.robustCircle(n, c.r*(1-tolR), c.r*(1+tolR))
	if m < 8 {
		return Ball{}, false
	}
	cx, cy, r, ok := fitCircle(p.edgeX[:m], p.edgeY[:m])
	if !ok {
		return Ball{}, false
	}
	// A ball's edge is curved where field meets it; a robot's straight
	// edge fits a circle over a short arc only.
	if p.arcCoverage(m, cx, cy) < minArcCoverage {
		return Ball{}, false
	}
	// The fit's spread: a ball's edge is round.
	var res float64
	for i := range m {
		e := math.Hypot(p.edgeX[i]-cx, p.edgeY[i]-cy) - r
		res += e * e
	}
	res = math.Sqrt(res / float64(m))
	if res > math.Max(1.5, 0.12*r) {
		return Ball{}, false
	}
	er := p.expectedRadius(cx, cy)
	tol := p.cfg.BallSizeTolerance
	if er < 1.5 || er > p.maxBallRadius() || r < er*(1-tol) || r > er*(1+tol) {
		return Ball{}, false
	}
	score, ok := p.classifyPatch(cx, cy, r)
	if !ok {
		return Ball{}, false
	}
	if p.underObject(cx, cy, r) || p.atObstacleFoot(cx, cy, r) {
		return Ball{}, false
	}
	// A small ball's patch holds few pixels: far away, only a clear one.
	if er < smallBall && score < minSmallBallScore {
		return Ball{}, false
	}
	pos, ok := p.ballPosition(cx, cy, r)
	if !ok {
		return Ball{}, false
	}
	return Ball{U: cx, V: cy, Radius: r, Pos: pos, Score: score}, true
}

// underObject reports whether the circle is the lower end of something
// standing on the field (a robot's foot): above it, on at least two of
// three columns across it, the image is not field for two radii (above a
// ball it is field, or a line thinner than that), and the column does not
// reach below the circle too (a robot nearer than the ball, hiding part
// of it). Pixels beyond the field boundary are not counted.
func (p *Pipeline) underObject(cx, cy, r float64) bool {
	blocked := 0
	for _, du := range [3]float64{-0.4, 0, 0.4} {
		u := int(cx + du*r + 0.5)
		if u < 0 || u >= p.w {
			// Beside the image: a circle whose centre is there shows
			// too little of itself to tell.
			blocked++
			continue
		}
		bnd := p.boundaryAt(float64(u))
		// Something standing at the boundary pulls it down to its foot:
		// then count up to the boundary beside it.
		if side := math.Min(p.boundaryAt(cx-4*r), p.boundaryAt(cx+4*r)); bnd > side+2*r {
			bnd = side
		}
		var n, other int
		top := false
		for t := 1.15 * r; t <= 3.15*r; t++ {
			v := int(cy - t + 0.5)
			if v < 0 {
				top = true
				break
			}
			if float64(v) < bnd {
				break
			}
			n++
			if p.classify(u, v) != clsField {
				other++
			}
		}
		if (n >= int(r) || top) && other*10 >= n*8 && !p.reachesBelow(u, cy, r) {
			blocked++
		}
	}
	return blocked >= 2
}

// atObstacleFoot reports whether the circle's lowest point lies at the
// foot of an obstacle found in this frame, within its columns: a robot's
// foot, not a ball before it (whose lowest point would lie below the
// robot's foot row, nearer the camera).
func (p *Pipeline) atObstacleFoot(cx, cy, r float64) bool {
	for _, o := range p.res.Obstacles {
		if cx >= float64(o.U0) && cx <= float64(o.U1) && math.Abs(cy+r-float64(o.V)) <= obstacleFootRows*r {
			return true
		}
	}
	return false
}

// obstacleFootRows is how near, in ball radii, a circle's lowest point
// must be to an obstacle's foot row to be taken for its foot.
const obstacleFootRows = 1.0

// reachesBelow reports whether column u is mostly not field from the
// circle's lowest point down to belowRadii radii from its centre:
// something nearer than the ball, hiding part of it, not standing on it.
func (p *Pipeline) reachesBelow(u int, cy, r float64) bool {
	var n, other int
	for t := 1.15 * r; t <= belowRadii*r; t++ {
		v := int(cy + t + 0.5)
		if v >= p.h {
			break
		}
		n++
		if p.classify(u, v) != clsField {
			other++
		}
	}
	return n > int(r) && other*10 >= n*8
}

// belowRadii is how far below a ball's centre, in radii, reachesBelow
// looks.
const belowRadii = 4.15

// arcCoverage returns how much of the circle around (cx, cy), radians,
// the first m edge points cover: 2π less the widest gap between them.
func (p *Pipeline) arcCoverage(m int, cx, cy float64) float64 {
	var seen [32]bool
	for i := range m {
		a := math.Atan2(p.edgeY[i]-cy, p.edgeX[i]-cx)
		k := int(math.Floor((a + math.Pi) / (2 * math.Pi) * 32))
		seen[min(max(k, 0), 31)] = true
	}
	gap, run := 0, 0
	for k := range 64 {
		if seen[k%32] {
			run = 0
			continue
		}
		run++
		gap = max(gap, min(run, 32))
	}
	return 2 * math.Pi * float64(32-gap) / 32
}

// minArcCoverage is the least arc of a ball's edge, radians, that its
// edge points must cover (120°: half hidden, a ball still shows more).
const minArcCoverage = 2.1

// maxLostRays is the most of the 32 edge rays that may find no field
// near a ball (a robot beside it, a line along it).
const maxLostRays = 20

// robustCircle finds, among circles through three of the first n edge
// points with a radius in [rmin, rmax], the one with the most edge points
// near it, moves those to the front and returns their number. The triples
// are spread over the points (a third, a quarter and a sixth apart, each
// point first once), so the result does not depend on a random draw.
func (p *Pipeline) robustCircle(n int, rmin, rmax float64) int {
	best, bx, by, br := 0, 0.0, 0.0, 0.0
	for _, step := range [3]int{n / 3, n / 4, n / 6} {
		if step < 1 {
			continue
		}
		for i := range n {
			j, k := (i+step)%n, (i+2*step)%n
			if i == j || j == k || i == k {
				continue
			}
			cx, cy, r, ok := circleThrough(p.edgeX[i], p.edgeY[i], p.edgeX[j], p.edgeY[j], p.edgeX[k], p.edgeY[k])
			if !ok || r < rmin || r > rmax {
				continue
			}
			tol := math.Max(1.5, 0.12*r)
			cnt := 0
			for q := range n {
				if math.Abs(math.Hypot(p.edgeX[q]-cx, p.edgeY[q]-cy)-r) <= tol {
					cnt++
				}
			}
			if cnt > best {
				best, bx, by, br = cnt, cx, cy, r
			}
		}
	}
	if best == 0 {
		return 0
	}
	tol := math.Max(1.5, 0.12*br)
	m := 0
	for q := range n {
		if math.Abs(math.Hypot(p.edgeX[q]-bx, p.edgeY[q]-by)-br) <= tol {
			p.edgeX[m], p.edgeY[m] = p.edgeX[q], p.edgeY[q]
			m++
		}
	}
	return m
}

// circleThrough returns the circle through three points.
func circleThrough(x1, y1, x2, y2, x3, y3 float64) (cx, cy, r float64, ok bool) {
	bx, by := x2-x1, y2-y1
	qx, qy := x3-x1, y3-y1
	d := 2 * (bx*qy - by*qx)
	if math.Abs(d) < 1e-9 {
		return 0, 0, 0, false
	}
	b2, q2 := bx*bx+by*by, qx*qx+qy*qy
	ux := (qy*b2 - by*q2) / d
	uy := (bx*q2 - qx*b2) / d
	return x1 + ux, y1 + uy, math.Hypot(ux, uy), true
}

// edgeRays scans rays from the candidate's centre (the upper ones, or the
// others) for the first two field pixels in a row, appending edge points
// after the first n. lost counts rays that found no field within 2.2
// radii, beyond those that left the field (crossed its boundary); rays
// that leave the image count as neither.
func (p *Pipeline) edgeRays(c ballCand, upper bool, n int) (int, int, int) {
	lost, beyond := 0, 0
	maxR := 2.2 * c.r
	for k := range 32 {
		s, co := math.Sincos(float64(k) * 2 * math.Pi / 32)
		if (s <= -0.2) != upper {
			continue
		}
		prevField, found := false, false
		for t := 0.3 * c.r; t <= maxR; t++ {
			u, v := c.u+t*co, c.v+t*s
			ui, vi := int(u+0.5), int(v+0.5)
			if ui < 0 || vi < 0 || ui >= p.w || vi >= p.h {
				found = true
				break
			}
			if v < p.boundaryAt(u)-1 {
				found = true
				beyond++
				break
			}
			if p.classify(ui, vi) == clsField {
				if prevField {
					p.edgeX[n], p.edgeY[n] = c.u+(t-1.5)*co, c.v+(t-1.5)*s
					n++
					found = true
					break
				}
				prevField = true
			} else {
				prevField = false
			}
		}
		if !found {
			lost++
		}
	}
	return n, lost, beyond
}

// fitCircle is the algebraic (Kåsa) least-squares circle through the
// points.
func fitCircle(xs, ys []float64) (cx, cy, r float64, ok bool) {
	n := float64(len(xs))
	if len(xs) < 3 {
		return 0, 0, 0, false
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= n
	my /= n
	var suu, svv, suv, suuu, svvv, suvv, svuu float64
	for i := range xs {
		u, v := xs[i]-mx, ys[i]-my
		suu += u * u
		svv += v * v
		suv += u * v
		suuu += u * u * u
		svvv += v * v * v
		suvv += u * v * v
		svuu += v * u * u
	}
	det := suu*svv - suv*suv
	if math.Abs(det) < 1e-9 {
		return 0, 0, 0, false
	}
	b1 := 0.5 * (suuu + suvv)
	b2 := 0.5 * (svvv + svuu)
	uc := (b1*svv - b2*suv) / det
	vc := (suu*b2 - suv*b1) / det
	r = math.Sqrt(uc*uc + vc*vc + (suu+svv)/n)
	return uc + mx, vc + my, r, finite(r)
}

// classifyPatch samples a 32×32 patch of 2.5 radii around the circle and
// decides by hand-written rules what an SPL ball (white with black
// patches, on the field) looks like: inside, almost no field, a fair
// share of white and some dark, with strong contrast; around it, mostly
// field. The score is in (0, 1].
func (p *Pipeline) classifyPatch(cx, cy, r float64) (float64, bool) {
	const N = 32
	half := 1.25 * r
	var inN, inField, inWhite, coreN, inDark, ringN, ringField, ringWhite, ringOut float64
	var sy, syy float64
	for j := range N {
		for i := range N {
			du := (float64(i)+0.5)/N*2*half - half
			dv := (float64(j)+0.5)/N*2*half - half
			ui, vi := int(cx+du+0.5), int(cy+dv+0.5)
			k := j*N + i
			rho := math.Sqrt(du*du+dv*dv) / r
			if ui < 0 || vi < 0 || ui >= p.w || vi >= p.h {
				p.patchY[k], p.patchC[k] = 0, 255
				if rho > 1.15 {
					ringOut++
				}
				continue
			}
			y, cu, cv := p.pix(ui, vi)
			cls := p.classOf(y, cu, cv)
			p.patchY[k], p.patchC[k] = uint8(y), cls
			switch {
			case rho < 0.8:
				inN++
				sy += float64(y)
				syy += float64(y * y)
				switch cls {
				case clsField:
					inField++
				case clsWhite:
					inWhite++
				default:
					if rho < 0.65 && float64(y) < p.fy+0.5*float64(p.whiteY-int(p.fy)) {
						inDark++
					}
				}
				if rho < 0.65 {
					coreN++
				}
			case rho > 1.15:
				if float64(vi) < p.boundaryAt(float64(ui))-1 {
					break // beyond the field: no evidence
				}
				ringN++
				switch cls {
				case clsField:
					ringField++
				case clsWhite:
					ringWhite++
				}
			}
		}
	}
	if inN < 20 || ringN < 20 {
		return 0, false
	}
	fField, fWhite, fDark := inField/inN, inWhite/inN, inDark/math.Max(1, coreN)
	mean := sy / inN
	std := math.Sqrt(math.Max(0, syy/inN-mean*mean))
	// Around the ball: field, or white where a line passes behind or in
	// front of it (or a robot's leg beside it), but mostly field.
	fRing := (ringField + ringWhite) / ringN
	// Rules.
	if fField > 0.25 || fWhite < 0.12 || fDark < 0.12 || fRing < 0.45 || ringField < 0.25*ringN {
		return 0, false
	}
	if std < 0.5*p.cfg.MinWhiteContrast {
		return 0, false
	}
	// Field inside the circle (a fit a little off, a blurred edge) only
	// with clear black patches: a line's edge on dark field has few.
	if fField > 0.1 && fDark < 0.25 {
		return 0, false
	}
	score := (1 - fField) * math.Min(1, fWhite/0.4) * math.Min(1, fDark/0.15) * fRing
	return score, score >= minBallScore
}

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
