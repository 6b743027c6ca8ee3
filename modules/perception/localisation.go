package perception

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// MaxParticles bounds LocalisationConfig.Particles.
const MaxParticles = 1024

// The localiser's fixed tuning (the rest is in LocalisationConfig).
const (
	// maxCandidates bounds the pose hypotheses derived from one frame.
	maxCandidates = 24
	// maxPairObs bounds the observations (nearest first) that are paired to
	// derive hypotheses.
	maxPairObs = 7
	// minPairSeparation is the least distance between two observations for
	// their pair to give a heading.
	minPairSeparation = 0.3
	// clusterRadius and clusterHeading bound the estimate's mode.
	clusterRadius  = 0.5
	clusterHeading = 0.6
	// clusterSeeds is how many particles are tried as centres of other modes.
	clusterSeeds = 16
	// localRadius and localHeading bound hypotheses injected near the
	// estimate while it is tracked.
	localRadius  = 0.5
	localHeading = 0.5
	// minInjection is the least injection fraction that is acted on.
	minInjection = 0.03
	// candidateJitter is the spread of injected particles (m, rad).
	candidateJitterXY, candidateJitterH = 0.05, 0.03
	// alphaSlow and alphaFast are the averaging rates of the observation
	// likelihood (augmented MCL).
	alphaSlow, alphaFast = 0.02, 0.3
	// alphaQuality is the averaging rate of the estimate's quality.
	alphaQuality = 0.15
	// mirrorMargin is the log-likelihood by which the mirrored estimate must
	// explain a frame better, mirrorAfter the number of frames in a row, for
	// the belief to be mirrored.
	mirrorMargin = 3.0
	mirrorAfter  = 5
	// fieldMargin is how far outside the lines hypotheses may be.
	fieldMargin = 0.3
	// ownHalfMargin is how far beyond the halfway line the own-half prior
	// reaches.
	ownHalfMargin = 0.2
	// confidenceTime is the time without landmarks that halves the
	// confidence, in seconds.
	confidenceTime = 10.0
	// searchRadius bounds the first search after the estimate was lost.
	searchRadius = 2.0
	// widenAfter is the number of frames with two landmarks or more but no
	// hypothesis in the prior (own half, or near the lost estimate) after
	// which the search widens to the whole field (1 s of SimSpark's
	// frames).
	widenAfter = 30
)

// Landmark kinds the localiser uses.
const (
	lmPost = iota
	lmCorner
	lmT
	lmCentre
	lmSpot
	lmX
	numLM
)

// Line association (B-Human's and HULKs' line matching): a seen line
// matches the field lines within lineAngleTol of its direction, and its
// midpoint is compared with the nearest such line across it (along it,
// only beyond the line's ends). lineAngleNoise is the direction's
// standard deviation; maxLines bounds the lines used per frame.
const (
	lineAngleTol   = 0.4
	sinLineTol     = 0.3894183423086505 // sin(lineAngleTol)
	lineAngleNoise = 0.08
	maxLines       = 16
)

// landmarkKind maps a vision object kind to a landmark kind.
func landmarkKind(k hal.ObjectKind) (int, bool) {
	switch k {
	case hal.ObjGoalPost:
		return lmPost, true
	case hal.ObjCorner:
		return lmCorner, true
	case hal.ObjTJunction:
		return lmT, true
	case hal.ObjCentreCircle:
		return lmCentre, true
	case hal.ObjPenaltySpot:
		return lmSpot, true
	case hal.ObjXCrossing:
		return lmX, true
	}
	return 0, false
}

type landmarkSet struct {
	n int
	p [8]hal.Vec2
}

// particle is one pose hypothesis; s and c cache sin and cos of h.
type particle struct{ x, y, h, s, c, w float64 }

// turn adds d to the particle's heading and updates its sine and cosine;
// small turns (every tick's) use a series instead of math.Sincos.
func (p *particle) turn(d float64) {
	p.h = wrap(p.h + d)
	if math.Abs(d) > 0.05 {
		p.s, p.c = math.Sincos(p.h)
		return
	}
	d2 := d * d
	sd, cd := d*(1-d2/6*(1-d2/20)), 1-d2/2*(1-d2/12)
	sn, cs := p.s*cd+p.c*sd, p.c*cd-p.s*sd
	k := 1.5 - 0.5*(sn*sn+cs*cs) // keeps (s, c) on the unit circle
	p.s, p.c = sn*k, cs*k
}

// lmObs is one landmark observation of the current frame, prepared.
type lmObs struct {
	kind int
	// fixed is set when the landmark is known (a goal post with its ID).
	fixed  bool
	fx, fy float64
	// ox, oy is the observation relative to the robot, d its distance and
	// (ux, uy) its direction.
	ox, oy, d, ux, uy float64
	// ir and it are the inverse variances along and across the line of
	// sight.
	ir, it float64
	sigma  float64
}

// lineObs is one seen line of the current frame: its midpoint (ox, oy)
// and direction (cos, sin of a, modulo π) relative to the robot, and the
// inverse variance across it.
type lineObs struct {
	ox, oy, ca, sa float64
	iperp          float64
}

// fieldLine is a straight field line: from (x0, y0) along (ux, uy) for
// length.
type fieldLine struct{ x0, y0, ux, uy, length float64 }

type candidate struct{ x, y, h, score float64 }

// region restricts hypotheses.
type region struct {
	// ownHalf restricts to the own half (x ≤ ownHalfMargin).
	ownHalf bool
	// near restricts to within r of (x, y) and, unless anyHeading, within
	// dh of heading h.
	near       bool
	anyHeading bool
	x, y, h    float64
	r, dh      float64
}

// localiser is a particle filter over the robot's field pose with sensor
// resetting: hypotheses derived from pairs of landmark observations are
// injected when the belief disagrees with what is seen.
type localiser struct {
	cfg      LocalisationConfig
	dims     field.Dimensions
	rng      *rand.Rand
	lms      [numLM]landmarkSet
	posts    [5]hal.Vec2
	logFloor float64
	n        int
	ps       [2][MaxParticles]particle
	cur      int
	lik      [MaxParticles]float64

	obs  [hal.MaxObservations]lmObs
	nObs int
	// lines are this frame's seen lines, fieldLines the field's.
	lines      [maxLines]lineObs
	nLines     int
	fieldLines [11]fieldLine
	// nFixed counts the observations of known landmarks (posts with IDs).
	nFixed int
	cands  [maxCandidates]candidate
	nCand  int

	// The estimate: the mode tracked from tick to tick.
	valid, everLocalised bool
	est                  hal.Pose2
	mass, mirror         float64
	cov                  msg.Cov3

	// localised is false until the estimate has agreed with the landmarks
	// for GoodFrames frames; until then hypotheses are injected within
	// prior.
	localised             bool
	prior                 region
	goodFrames, badFrames int
	searchFrames          int // frames without hypotheses in the prior
	// mirrorFrames counts consecutive frames that the mirrored estimate
	// explains clearly better (only goal posts with IDs can).
	mirrorFrames int
	// symmetryFrames counts consecutive frames of evidence from outside
	// the field's lines (game state, team ball) that the belief is
	// mirrored.
	symmetryFrames int
	quality        float64
	wSlow, wFast   float64
	seenLandmark   bool
	lastLandmark   time.Duration
	fallUntil      time.Duration
	inFallWindow   bool
	resets         uint32
}

func newLocaliser(cfg LocalisationConfig, dims field.Dimensions, rng *rand.Rand) *localiser {
	l := &localiser{cfg: cfg, dims: dims, rng: rng}
	l.n = min(max(cfg.Particles, 1), MaxParticles)
	l.logFloor = math.Log(min(max(cfg.OutlierLikelihood, 1e-12), 1))
	for id := field.PostOppLeft; id <= field.PostOwnRight; id++ {
		p, _ := dims.Post(id)
		l.posts[id] = p
		l.lms[lmPost].p[l.lms[lmPost].n] = p
		l.lms[lmPost].n++
	}
	for _, p := range dims.Corners() {
		l.lms[lmCorner].p[l.lms[lmCorner].n] = p
		l.lms[lmCorner].n++
	}
	for _, p := range dims.TJunctions() {
		l.lms[lmT].p[l.lms[lmT].n] = p
		l.lms[lmT].n++
	}
	l.lms[lmCentre].p[0], l.lms[lmCentre].n = dims.CentreCircle(), 1
	spot := float64(dims.Length)/2 - float64(dims.PenaltyMarkDistance)
	l.lms[lmSpot].p[0], l.lms[lmSpot].p[1], l.lms[lmSpot].n = hal.Vec2{X: spot}, hal.Vec2{X: -spot}, 2
	r := float64(dims.CentreCircleRadius)
	l.lms[lmX].p[0], l.lms[lmX].p[1], l.lms[lmX].n = hal.Vec2{Y: r}, hal.Vec2{Y: -r}, 2
	for i, sg := range fieldLineSegments(dims) {
		dx, dy := sg[2]-sg[0], sg[3]-sg[1]
		n := math.Hypot(dx, dy)
		l.fieldLines[i] = fieldLine{sg[0], sg[1], dx / n, dy / n, n}
	}
	l.unlocalise(cfg.InitialOwnHalf)
	return l
}

// returnFromPenalty restarts the localisation of a robot carried back
// from a penalty: on its own half, the landmarks it saw before no longer
// counting.
func (l *localiser) returnFromPenalty() {
	l.unlocalise(true)
	l.seenLandmark = false
}

// unlocalise scatters the particles over the prior (own half or the whole
// field) and injects hypotheses from landmarks until localised again.
func (l *localiser) unlocalise(ownHalf bool) {
	l.prior = region{ownHalf: ownHalf}
	l.localised, l.goodFrames, l.badFrames, l.searchFrames = false, 0, 0, 0
	hx, hy := float64(l.dims.Length)/2, float64(l.dims.Width)/2
	x0, x1 := -hx, hx
	if ownHalf {
		x1 = 0
	}
	ps := &l.ps[l.cur]
	w := 1 / float64(l.n)
	for i := range l.n {
		p := &ps[i]
		p.x = x0 + (x1-x0)*l.rng.Float64()
		p.y = -hy + 2*hy*l.rng.Float64()
		p.h = wrap(2 * math.Pi * l.rng.Float64())
		p.s, p.c = math.Sincos(p.h)
		p.w = w
	}
	l.wSlow, l.wFast = 0, 0
}

// predict moves every particle by the odometry odo (in the previous robot
// frame) with noise.
func (l *localiser) predict(odo hal.Pose2) {
	if odo == (hal.Pose2{}) {
		return
	}
	dx, dy, dh := float64(odo.X), float64(odo.Y), float64(odo.Heading)
	if !finite(dx, dy, dh) {
		return
	}
	d := math.Hypot(dx, dy)
	sx := l.cfg.OdometryTransNoise*math.Abs(dx) + 0.2*l.cfg.OdometryTransNoise*math.Abs(dy)
	sy := l.cfg.OdometryTransNoise*math.Abs(dy) + 0.2*l.cfg.OdometryTransNoise*math.Abs(dx)
	sh := l.cfg.OdometryRotNoise*math.Abs(dh) + l.cfg.OdometryDrift*d
	ps := &l.ps[l.cur]
	for i := range l.n {
		p := &ps[i]
		nx := dx + sx*l.rng.NormFloat64()
		ny := dy + sy*l.rng.NormFloat64()
		p.x += p.c*nx - p.s*ny
		p.y += p.s*nx + p.c*ny
		p.turn(dh + sh*l.rng.NormFloat64())
	}
	if l.valid {
		l.est = l.est.Compose(odo)
	}
}

// spread widens the belief after a fall: heading and position noise on
// every particle, and hypotheses near the estimate (any heading) for a
// while.
func (l *localiser) spread(now time.Duration) {
	ps := &l.ps[l.cur]
	sxy, sh := float64(l.cfg.AfterFallPositionNoise), float64(l.cfg.AfterFallHeadingNoise)
	for i := range l.n {
		p := &ps[i]
		p.x += sxy * l.rng.NormFloat64()
		p.y += sxy * l.rng.NormFloat64()
		p.h = wrap(p.h + sh*l.rng.NormFloat64())
		p.s, p.c = math.Sincos(p.h)
	}
	l.fallUntil, l.inFallWindow = now+l.cfg.AfterFallWindow.D(), true
	l.goodFrames, l.badFrames = 0, 0
}

// fieldLineSegments returns the field's straight lines (x0, y0, x1, y1):
// touch lines, goal lines, the halfway line and the penalty areas' sides.
func fieldLineSegments(d field.Dimensions) [11][4]float64 {
	x, y := float64(d.Length)/2, float64(d.Width)/2
	px, py := x-float64(d.PenaltyAreaLength), float64(d.PenaltyAreaWidth)/2
	return [11][4]float64{
		{-x, y, x, y}, {-x, -y, x, -y}, {x, -y, x, y}, {-x, -y, -x, y}, {0, -y, 0, y},
		{px, -py, px, py}, {px, py, x, py}, {px, -py, x, -py},
		{-px, -py, -px, py}, {-px, py, -x, py}, {-px, -py, -x, -py},
	}
}

// nUsed is the number of this frame's observations the likelihood uses.
func (l *localiser) nUsed() int { return l.nObs + l.nLines }

// prepareLine adds a seen line.
func (l *localiser) prepareLine(o *hal.Observation) {
	if l.nLines >= maxLines || !finite(o.Pos.X, o.Pos.Y, float64(o.Orientation)) {
		return
	}
	d := o.Pos.Len()
	if d > 20 || (l.cfg.MaxLandmarkDistance > 0 && d > float64(l.cfg.MaxLandmarkDistance)) {
		return
	}
	sp := l.cfg.DistanceNoise*d + float64(l.cfg.MinNoise)
	sa, ca := math.Sincos(float64(o.Orientation))
	l.lines[l.nLines] = lineObs{ox: o.Pos.X, oy: o.Pos.Y, ca: ca, sa: sa, iperp: 1 / (sp * sp)}
	l.nLines++
}

// lineLogLik is the log-likelihood of seen line o from the pose (x, y)
// with heading sine s and cosine c: the nearest field line of about its
// direction across it (and beyond its ends), and the direction's error.
// A line seen at a distance d has a perpendicular standard deviation of
// DistanceNoise·d + MinNoise, its direction lineAngleNoise.
func (l *localiser) lineLogLik(o *lineObs, x, y, s, c float64) float64 {
	fx := x + c*o.ox - s*o.oy
	fy := y + s*o.ox + c*o.oy
	// The seen direction on the field.
	dx, dy := c*o.ca-s*o.sa, s*o.ca+c*o.sa
	best := math.Inf(1)
	for i := range l.fieldLines {
		fl := &l.fieldLines[i]
		// |sin| and |cos| of the angle between the directions (modulo π).
		cr := dx*fl.uy - dy*fl.ux
		dt := math.Abs(dx*fl.ux + dy*fl.uy)
		if math.Abs(cr) > sinLineTol || dt <= 0 {
			continue
		}
		rx, ry := fx-fl.x0, fy-fl.y0
		along := rx*fl.ux + ry*fl.uy
		perp := rx*fl.uy - ry*fl.ux
		beyond := 0.0
		if along < 0 {
			beyond = -along
		} else if along > fl.length {
			beyond = along - fl.length
		}
		ang := math.Asin(min(math.Abs(cr), 1))
		e := (perp*perp+beyond*beyond)*o.iperp + ang*ang/(lineAngleNoise*lineAngleNoise)
		if e < best {
			best = e
		}
	}
	ll := -0.5 * best
	if ll < l.logFloor {
		ll = l.logFloor
	}
	return ll
}

// prepare collects this frame's landmark observations; it returns their
// number.
func (l *localiser) prepare(v *hal.Vision) int {
	l.nObs, l.nFixed, l.nLines = 0, 0, 0
	for i := range min(v.N, hal.MaxObservations) {
		o := &v.Obs[i]
		if o.Kind == hal.ObjLine {
			l.prepareLine(o)
			continue
		}
		k, ok := landmarkKind(o.Kind)
		if !ok || !finite(o.Pos.X, o.Pos.Y) {
			continue
		}
		d := o.Pos.Len()
		if d < 0.05 || d > 20 || (l.cfg.MaxLandmarkDistance > 0 && d > float64(l.cfg.MaxLandmarkDistance)) {
			continue
		}
		sr := l.cfg.DistanceNoise*d + float64(l.cfg.MinNoise)
		st := float64(l.cfg.BearingNoise)*d + float64(l.cfg.MinNoise)
		lo := lmObs{kind: k, ox: o.Pos.X, oy: o.Pos.Y, d: d, ux: o.Pos.X / d, uy: o.Pos.Y / d,
			ir: 1 / (sr * sr), it: 1 / (st * st), sigma: math.Max(sr, st)}
		if k == lmPost && l.cfg.PostIDs && o.ID >= field.PostOppLeft && o.ID <= field.PostOwnRight {
			lo.fixed, lo.fx, lo.fy = true, l.posts[o.ID].X, l.posts[o.ID].Y
			l.nFixed++
		}
		// Keep them sorted by distance: the nearest are the most accurate
		// and are the ones paired into hypotheses.
		j := l.nObs
		for j > 0 && l.obs[j-1].d > d {
			l.obs[j] = l.obs[j-1]
			j--
		}
		l.obs[j] = lo
		l.nObs++
	}
	return l.nUsed()
}

// logLik is the log-likelihood of this frame's observations from the pose
// (x, y) with heading sine s and cosine c; each observation is associated
// with the nearest landmark of its kind (or its known post), and
// contributes at least the outlier floor.
func (l *localiser) logLik(x, y, s, c float64) float64 {
	sum := 0.0
	for j := range l.nObs {
		o := &l.obs[j]
		fx := x + c*o.ox - s*o.oy
		fy := y + s*o.ox + c*o.oy
		lx, ly := o.fx, o.fy
		if !o.fixed {
			set := &l.lms[o.kind]
			best := math.Inf(1)
			for k := range set.n {
				dx, dy := set.p[k].X-fx, set.p[k].Y-fy
				if d2 := dx*dx + dy*dy; d2 < best {
					best, lx, ly = d2, set.p[k].X, set.p[k].Y
				}
			}
		}
		ex, ey := lx-fx, ly-fy
		rx, ry := c*ex+s*ey, -s*ex+c*ey
		er, et := rx*o.ux+ry*o.uy, -rx*o.uy+ry*o.ux
		ll := -0.5 * (er*er*o.ir + et*et*o.it)
		if ll < l.logFloor {
			ll = l.logFloor
		}
		sum += ll
	}
	for j := range l.nLines {
		sum += l.lineLogLik(&l.lines[j], x, y, s, c)
	}
	return sum
}

// observe runs the measurement update with this tick's vision, injects
// hypotheses where needed, resamples and updates the estimate. It reports
// whether there were landmarks to use.
func (l *localiser) observe(v *hal.Vision, now time.Duration) bool {
	if l.prepare(v) == 0 {
		return false
	}
	l.seenLandmark, l.lastLandmark = true, now
	invN := 1 / float64(l.nUsed())
	ps := &l.ps[l.cur]
	maxL := math.Inf(-1)
	for i := range l.n {
		p := &ps[i]
		li := l.logLik(p.x, p.y, p.s, p.c)
		l.lik[i] = li
		if li > maxL {
			maxL = li
		}
	}
	var qMean, sum float64
	for i := range l.n {
		p := &ps[i]
		qMean += p.w * math.Exp(l.lik[i]*invN)
		p.w *= math.Exp(l.lik[i] - maxL)
		sum += p.w
	}
	if !(sum > 0) || !finite(sum) {
		for i := range l.n {
			ps[i].w = 1 / float64(l.n)
		}
		sum = 1
	}
	var sum2 float64
	for i := range l.n {
		ps[i].w /= sum
		sum2 += ps[i].w * ps[i].w
	}
	neff := 1 / sum2
	if l.wSlow == 0 {
		l.wSlow, l.wFast = qMean, qMean
	} else {
		l.wSlow += alphaSlow * (qMean - l.wSlow)
		l.wFast += alphaFast * (qMean - l.wFast)
	}

	// The quality of the estimate as it stands, before this frame moves it:
	// a run of bad frames means the robot was moved.
	q := 0.0
	if l.valid {
		s, c := math.Sincos(float64(l.est.Heading))
		ll := l.logLik(float64(l.est.X), float64(l.est.Y), s, c)
		q = math.Exp(ll * invN)
		// The field is symmetric but for the goal posts' IDs: if the
		// mirrored pose keeps explaining them better, the belief is on
		// the wrong side.
		if l.nFixed > 0 && l.logLik(-float64(l.est.X), -float64(l.est.Y), -s, -c) > ll+mirrorMargin {
			l.mirrorFrames++
		} else {
			l.mirrorFrames = 0
		}
		if l.mirrorFrames >= mirrorAfter {
			l.flip()
		}
	}
	if l.inFallWindow && now > l.fallUntil {
		l.inFallWindow = false
	}
	switch {
	case q >= l.cfg.GoodQuality:
		l.badFrames = 0
	case q < l.cfg.BadQuality && l.nUsed() >= 2 && !l.inFallWindow:
		// One landmark alone may well be a false detection.
		l.badFrames++
	}
	if l.localised && l.badFrames >= l.cfg.BadFrames {
		// The estimate keeps disagreeing with what is seen: the robot was
		// moved, or odometry failed. Look near the estimate first (a global
		// search risks the mirrored pose when posts have no IDs), then
		// everywhere.
		l.localised, l.goodFrames, l.searchFrames = false, 0, 0
		l.prior = region{near: true, anyHeading: true, x: float64(l.est.X), y: float64(l.est.Y), r: searchRadius}
		l.resets++
	}

	var frac float64
	var reg region
	switch {
	case !l.localised:
		frac, reg = l.cfg.MaxInjection, l.prior
	case l.inFallWindow:
		if q < l.cfg.GoodQuality {
			frac = l.cfg.MaxInjection
		}
		reg = region{near: true, anyHeading: true, x: float64(l.est.X), y: float64(l.est.Y), r: float64(l.cfg.AfterFallRadius)}
	default:
		if l.wSlow > 0 {
			frac = min(max(1-l.wFast/l.wSlow, 0), l.cfg.MaxInjection)
		}
		reg = region{near: true, x: float64(l.est.X), y: float64(l.est.Y), h: float64(l.est.Heading), r: localRadius, dh: localHeading}
	}
	inject := 0
	l.nCand = 0
	if frac >= minInjection {
		// Hypotheses from a single landmark are weak: only while searching.
		n, pairs := l.candidates(reg)
		if n > 0 && (pairs || !l.localised || l.inFallWindow) {
			inject = int(math.Round(frac * float64(l.n)))
		}
		if !l.localised && (l.prior.ownHalf || l.prior.near) && l.nObs >= 2 && !pairs {
			// Nothing in the prior fits: it was wrong.
			if l.searchFrames++; l.searchFrames >= widenAfter {
				l.prior = region{}
			}
		}
	}
	if inject > 0 || neff < l.cfg.ResampleThreshold*float64(l.n) {
		l.resample(inject)
	}
	l.estimate(true)
	if !l.valid {
		return true
	}
	s, c := math.Sincos(float64(l.est.Heading))
	qe := math.Exp(l.logLik(float64(l.est.X), float64(l.est.Y), s, c) * invN)
	l.quality += alphaQuality * (qe - l.quality)
	// A good frame needs two landmarks: one alone fits many poses.
	switch {
	case qe < l.cfg.GoodQuality:
		l.goodFrames = 0
	case l.nUsed() >= 2 && l.nObs >= 1:
		l.goodFrames++
	}
	if l.goodFrames >= l.cfg.GoodFrames && (!l.localised || l.inFallWindow) && l.mass >= 0.5 {
		l.localised, l.everLocalised, l.badFrames, l.inFallWindow = true, true, 0, false
	}
	return true
}

// symmetryEvidence counts a frame with (or without) evidence that the
// belief is mirrored; mirrorAfter frames in a row mirror it.
func (l *localiser) symmetryEvidence(mirrored bool) {
	if !mirrored {
		l.symmetryFrames = 0
		return
	}
	if l.symmetryFrames++; l.symmetryFrames >= mirrorAfter {
		l.flip()
		l.symmetryFrames = 0
	}
}

// flip mirrors the estimate's mode through the centre spot, and widens a
// search restricted to the own half (it was wrong).
func (l *localiser) flip() {
	ps := &l.ps[l.cur]
	x, y, h := float64(l.est.X), float64(l.est.Y), float64(l.est.Heading)
	sh, ch := math.Sincos(h)
	cosLim := math.Cos(clusterHeading)
	for i := range l.n {
		p := &ps[i]
		if dx, dy := p.x-x, p.y-y; dx*dx+dy*dy > 4*clusterRadius*clusterRadius || p.c*ch+p.s*sh < cosLim {
			continue
		}
		p.x, p.y, p.h, p.s, p.c = -p.x, -p.y, wrap(p.h+math.Pi), -p.s, -p.c
	}
	l.est = hal.Pose2{X: -l.est.X, Y: -l.est.Y, Heading: hal.Radians(wrap(h + math.Pi))}
	l.mirrorFrames, l.goodFrames, l.badFrames = 0, 0, 0
	l.prior = region{}
	l.resets++
}

// allows reports whether the pose is inside the region and on the field
// (within fieldMargin of the lines: a robot beyond is penalised).
func (r *region) allows(l *localiser, x, y, h float64) bool {
	if math.Abs(x) > float64(l.dims.Length)/2+fieldMargin || math.Abs(y) > float64(l.dims.Width)/2+fieldMargin {
		return false
	}
	if r.ownHalf && x > ownHalfMargin {
		return false
	}
	if r.near {
		if dx, dy := x-r.x, y-r.y; dx*dx+dy*dy > r.r*r.r {
			return false
		}
		if !r.anyHeading && math.Abs(wrap(h-r.h)) > r.dh {
			return false
		}
	}
	return true
}

// landmarksOf returns the landmarks an observation may be of.
func (l *localiser) landmarksOf(o *lmObs, buf *[8]hal.Vec2) []hal.Vec2 {
	if o.fixed {
		buf[0] = hal.Vec2{X: o.fx, Y: o.fy}
		return buf[:1]
	}
	set := &l.lms[o.kind]
	return set.p[:set.n]
}

// candidates derives pose hypotheses in reg from this frame's observations:
// from every pair of observations and every pair of landmarks they may be
// of whose distances agree, else from the nearest observation alone with a
// set of headings. It returns their number and whether they come from pairs.
func (l *localiser) candidates(reg region) (int, bool) {
	l.nCand = 0
	if l.nObs == 0 {
		return 0, false // lines alone fit too many poses
	}
	invN := 1 / float64(l.nUsed())
	n := min(l.nObs, maxPairObs)
	var bufA, bufB [8]hal.Vec2
	for a := range n {
		oa := &l.obs[a]
		la := l.landmarksOf(oa, &bufA)
		for b := a + 1; b < n; b++ {
			ob := &l.obs[b]
			vx, vy := ob.ox-oa.ox, ob.oy-oa.oy
			dObs := math.Hypot(vx, vy)
			if dObs < minPairSeparation {
				continue
			}
			tol := 3 * math.Hypot(oa.sigma, ob.sigma)
			angObs := math.Atan2(vy, vx)
			lb := l.landmarksOf(ob, &bufB)
			for _, pa := range la {
				for _, pb := range lb {
					w := pb.Sub(pa)
					dL := w.Len()
					if dL < 1e-6 || math.Abs(dL-dObs) > tol {
						continue
					}
					h := wrap(w.Angle() - angObs)
					s, c := math.Sincos(h)
					x := (pa.X - (c*oa.ox - s*oa.oy) + pb.X - (c*ob.ox - s*ob.oy)) / 2
					y := (pa.Y - (s*oa.ox + c*oa.oy) + pb.Y - (s*ob.ox + c*ob.oy)) / 2
					if !reg.allows(l, x, y, h) {
						continue
					}
					l.addCandidate(x, y, h, math.Exp(l.logLik(x, y, s, c)*invN))
				}
			}
		}
	}
	if l.nCand > 0 {
		return l.nCand, true
	}
	// One landmark: the robot is on a circle around it; try headings.
	o := &l.obs[0]
	base := 2 * math.Pi * l.rng.Float64()
	const headings = 12
	for _, p := range l.landmarksOf(o, &bufA) {
		for k := range headings {
			h := wrap(base + 2*math.Pi*float64(k)/headings)
			if reg.near && !reg.anyHeading {
				h = wrap(reg.h + reg.dh*(2*float64(k)/(headings-1)-1))
			}
			s, c := math.Sincos(h)
			x, y := p.X-(c*o.ox-s*o.oy), p.Y-(s*o.ox+c*o.oy)
			if !reg.allows(l, x, y, h) {
				continue
			}
			l.addCandidate(x, y, h, math.Exp(l.logLik(x, y, s, c)*invN))
		}
	}
	return l.nCand, false
}

// addCandidate keeps the best maxCandidates distinct hypotheses.
func (l *localiser) addCandidate(x, y, h, score float64) {
	if score < l.cfg.MinCandidateScore {
		return
	}
	worst := -1
	for i := range l.nCand {
		c := &l.cands[i]
		if dx, dy := c.x-x, c.y-y; dx*dx+dy*dy < 0.15*0.15 && math.Abs(wrap(c.h-h)) < 0.1 {
			if score > c.score {
				*c = candidate{x, y, h, score}
			}
			return
		}
		if worst < 0 || c.score < l.cands[worst].score {
			worst = i
		}
	}
	if l.nCand < maxCandidates {
		l.cands[l.nCand] = candidate{x, y, h, score}
		l.nCand++
	} else if score > l.cands[worst].score {
		l.cands[worst] = candidate{x, y, h, score}
	}
}

// resample draws n-inject particles by weight (systematic resampling) and
// inject from the candidates by score, all with a little jitter.
func (l *localiser) resample(inject int) {
	src, dst := &l.ps[l.cur], &l.ps[1-l.cur]
	keep := l.n - inject
	w := 1 / float64(l.n)
	jxy, jh := float64(l.cfg.ResampleJitter), float64(l.cfg.ResampleHeadingJitter)
	out := 0
	if keep > 0 {
		step := 1 / float64(keep)
		u := l.rng.Float64() * step
		acc, i := src[0].w, 0
		for range keep {
			for u > acc && i < l.n-1 {
				i++
				acc += src[i].w
			}
			p := src[i]
			p.x += jxy * l.rng.NormFloat64()
			p.y += jxy * l.rng.NormFloat64()
			p.turn(jh * l.rng.NormFloat64())
			p.w = w
			dst[out] = p
			out++
			u += step
		}
	}
	if inject > 0 {
		var total float64
		for i := range l.nCand {
			total += l.cands[i].score
		}
		step := total / float64(inject)
		u := l.rng.Float64() * step
		acc, i := l.cands[0].score, 0
		for range inject {
			for u > acc && i < l.nCand-1 {
				i++
				acc += l.cands[i].score
			}
			c := &l.cands[i]
			p := particle{
				x: c.x + candidateJitterXY*l.rng.NormFloat64(),
				y: c.y + candidateJitterXY*l.rng.NormFloat64(),
				h: wrap(c.h + candidateJitterH*l.rng.NormFloat64()),
				w: w,
			}
			p.s, p.c = math.Sincos(p.h)
			dst[out] = p
			out++
			u += step
		}
	}
	l.cur = 1 - l.cur
}

// cluster returns the weight and weighted mean of the particles within the
// cluster bounds of (x, y, h).
func (l *localiser) cluster(x, y, h float64) (mass, mx, my, mh float64) {
	ps := &l.ps[l.cur]
	sh, ch := math.Sincos(h)
	cosLim := math.Cos(clusterHeading)
	var sx, sy, ss, sc float64
	for i := range l.n {
		p := &ps[i]
		dx, dy := p.x-x, p.y-y
		if dx*dx+dy*dy > clusterRadius*clusterRadius || p.c*ch+p.s*sh < cosLim {
			continue
		}
		mass += p.w
		sx += p.w * p.x
		sy += p.w * p.y
		ss += p.w * p.s
		sc += p.w * p.c
	}
	if mass <= 0 {
		return 0, x, y, h
	}
	return mass, sx / mass, sy / mass, math.Atan2(ss, sc)
}

// estimate updates the tracked mode: it follows the mode around the last
// estimate; on a vision frame (search) it also looks for a heavier mode
// elsewhere and switches to it if clearly heavier.
func (l *localiser) estimate(search bool) {
	var mass, x, y, h float64
	if l.valid {
		mass, x, y, h = l.cluster(float64(l.est.X), float64(l.est.Y), float64(l.est.Heading))
		mass, x, y, h = l.cluster(x, y, h)
	}
	if search || !l.valid {
		ps := &l.ps[l.cur]
		stride := max(l.n/clusterSeeds, 1)
		off := l.rng.IntN(stride)
		for i := off; i < l.n; i += stride {
			m, sx, sy, sh := l.cluster(ps[i].x, ps[i].y, ps[i].h)
			m, sx, sy, sh = l.cluster(sx, sy, sh)
			if m > 1.25*mass+0.05 || (!l.valid && m > mass) {
				mass, x, y, h = m, sx, sy, sh
				l.valid = true
			}
		}
	}
	l.est = hal.Pose2{X: hal.Metres(x), Y: hal.Metres(y), Heading: hal.Radians(wrap(h))}
	l.mass = mass
	l.mirror, _, _, _ = l.cluster(-x, -y, wrap(h+math.Pi))
	// Covariance of the mode.
	ps := &l.ps[l.cur]
	sh, ch := math.Sincos(h)
	cosLim := math.Cos(clusterHeading)
	var c msg.Cov3
	for i := range l.n {
		p := &ps[i]
		dx, dy := p.x-x, p.y-y
		if dx*dx+dy*dy > clusterRadius*clusterRadius || p.c*ch+p.s*sh < cosLim {
			continue
		}
		dh := p.s*ch - p.c*sh // sin of the heading difference
		v := [3]float64{dx, dy, dh}
		for a := range 3 {
			for b := range 3 {
				c[a][b] += p.w * v[a] * v[b]
			}
		}
	}
	if mass > 0 {
		for a := range 3 {
			for b := range 3 {
				c[a][b] /= mass
			}
		}
	}
	l.cov = c
}

// pose returns the published estimate.
func (l *localiser) pose(now time.Duration) msg.RobotPose {
	p := msg.RobotPose{Valid: l.everLocalised, Pose: l.est, Cov: l.cov, MirrorWeight: l.mirror, Resets: l.resets}
	if l.seenLandmark {
		p.SinceLandmark = now - l.lastLandmark
	}
	if !l.valid {
		return p
	}
	p.Source = msg.SourceFilter
	q := (l.quality - l.cfg.BadQuality) / (l.cfg.GoodQuality - l.cfg.BadQuality)
	q = min(max(q, 0), 1)
	sxy := math.Sqrt((l.cov[0][0] + l.cov[1][1]) / 2)
	spread := 1 / (1 + (sxy/0.25)*(sxy/0.25))
	conf := min(max(l.mass, 0), 1) * q * spread
	// Odometry drifts: trust fades without landmarks.
	conf /= 1 + p.SinceLandmark.Seconds()/confidenceTime
	if !l.localised {
		conf /= 2
	}
	p.Confidence = conf
	return p
}
