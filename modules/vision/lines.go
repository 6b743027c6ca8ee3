package vision

import (
	"math"
	"slices"

	"github.com/robotd/robotd/hal"
)

// neighbourField reports whether the runs next to rs[i] in direction dir
// (−1 or +1) reach field, stepping over one short non-white run (a blurred
// edge).
func neighbourField(rs []run, i, dir int, short int32) bool {
	j := i + dir
	if j < 0 || j >= len(rs) {
		return false
	}
	if rs[j].cls == clsField {
		return true
	}
	if rs[j].cls == clsOther && rs[j].len() <= short {
		k := j + dir
		return k >= 0 && k < len(rs) && rs[k].cls == clsField
	}
	return false
}

// addLinePoint projects a white run's centre to the ground and keeps it
// when the run's ground width fits a line seen at an angle of at least 15°.
func (p *Pipeline) addLinePoint(u0, v0, u1, v1 float64) {
	if len(p.points) >= cap(p.points) {
		return
	}
	uc, vc := (u0+u1)/2, (v0+v1)/2
	if vc < p.boundaryAt(uc) || p.inObstacle(uc, vc) || p.onBall(uc, vc) {
		return
	}
	x, y, ok := p.proj.ImageToGround(uc, vc)
	if !ok || !finite(x, y) {
		return
	}
	d := math.Hypot(x, y)
	if d > float64(p.cfg.MaxDistance) {
		return
	}
	xa, ya, oka := p.proj.ImageToGround(u0, v0)
	xb, yb, okb := p.proj.ImageToGround(u1, v1)
	if !oka || !okb {
		return
	}
	wg := math.Hypot(xb-xa, yb-ya)
	if wg > 4*float64(p.cfg.LineWidth)+0.01*d {
		return
	}
	p.points = append(p.points, linePoint{x: x, y: y, d: d, tol: p.tol(d)})
}

// onBall reports whether pixel (u, v) lies on a ball found in this frame
// (its white is not a line's).
func (p *Pipeline) onBall(u, v float64) bool {
	for _, b := range p.res.Balls {
		if math.Hypot(u-b.U, v-b.V) <= 1.3*b.Radius {
			return true
		}
	}
	return false
}

// collectLinePoints turns white runs enclosed by field into line points.
func (p *Pipeline) collectLinePoints() {
	p.points = p.points[:0]
	for ci := range p.cols {
		rs := p.vruns[p.colStart[ci]:p.colEnd[ci]]
		for i, r := range rs {
			if r.cls != clsWhite {
				continue
			}
			short := max(2, r.len()/2)
			// rs runs bottom-up: i-1 is below, i+1 above.
			if !neighbourField(rs, i, -1, short) || !neighbourField(rs, i, 1, short) {
				continue
			}
			if float64(r.len()) > 4*float64(p.lineH[r.b])+3 {
				continue
			}
			p.addLinePoint(float64(r.at), float64(r.a)-0.5, float64(r.at), float64(r.b)+0.5)
		}
	}
	for ri := range p.rows {
		rs := p.hruns[p.rowStart[ri]:p.rowEnd[ri]]
		for i, r := range rs {
			if r.cls != clsWhite {
				continue
			}
			short := max(2, r.len()/2)
			if !neighbourField(rs, i, -1, short) || !neighbourField(rs, i, 1, short) {
				continue
			}
			p.addLinePoint(float64(r.a)-0.5, float64(r.at), float64(r.b)+0.5, float64(r.at))
		}
	}
	p.thinLinePoints()
	p.res.LinePoints = len(p.points)
	p.res.Work.LinePoints = len(p.points)
}

// Work bounds of the line features: the line points kept for RANSAC
// (evenly thinned beyond), the point tests of all RANSAC hypotheses per
// frame (about twice a normal frame's), and the penalty mark hypotheses.
const (
	maxRansacPoints = 384
	maxMarkTrials   = 32
)

// ransacBudget is the most RANSAC point tests per frame.
func (p *Pipeline) ransacBudget() int { return 5 * p.cfg.RansacIterations * maxRansacPoints }

// thinLinePoints keeps maxRansacPoints of the line points, evenly over
// their order (scan line by scan line), when there are more: a texture
// of white stripes on green (a goal net close up) gives a line point on
// every run.
func (p *Pipeline) thinLinePoints() {
	n := len(p.points)
	if n <= maxRansacPoints {
		return
	}
	for i := range maxRansacPoints {
		p.points[i] = p.points[i*n/maxRansacPoints]
	}
	p.points = p.points[:maxRansacPoints]
}

// tol is the inlier distance for a point at distance d.
func (p *Pipeline) tol(d float64) float64 {
	return float64(p.cfg.LineTolerance) + p.cfg.LineToleranceSlope*d
}

// rand returns a pseudo-random index below n (xorshift64*, reseeded per
// frame, so results repeat).
func (p *Pipeline) rand(n int) int {
	p.rng ^= p.rng >> 12
	p.rng ^= p.rng << 25
	p.rng ^= p.rng >> 27
	return int((p.rng * 2685821657736338717) >> 33 % uint64(n))
}

// findCircle looks for the centre circle among the line points with
// RANSAC: two points and the known radius give two centres; the best
// centre needs MinCirclePoints inliers in at least three 30° sectors, not
// on one straight line, and white where it runs in the image; it is
// refined by least squares.
func (p *Pipeline) findCircle() {
	n := len(p.points)
	if n < p.cfg.MinCirclePoints {
		return
	}
	R := float64(p.cfg.Field.CentreCircleRadius)
	bestN := 0
	var best hal.Vec2
	for range p.cfg.RansacIterations * 2 {
		if p.res.Work.RansacTests >= p.ransacBudget() {
			break
		}
		a, b := &p.points[p.rand(n)], &p.points[p.rand(n)]
		dx, dy := b.x-a.x, b.y-a.y
		dd := math.Hypot(dx, dy)
		if dd < 0.3 || dd > 2*R*0.98 {
			continue
		}
		hh := math.Sqrt(R*R - dd*dd/4)
		mx, my := (a.x+b.x)/2, (a.y+b.y)/2
		nx, ny := -dy/dd, dx/dd
		for _, s := range [2]float64{1, -1} {
			cx, cy := mx+s*hh*nx, my+s*hh*ny
			p.res.Work.RansacIterations++
			p.res.Work.RansacTests += len(p.points)
			k := p.circleInliers(cx, cy, R)
			if k > bestN {
				bestN, best = k, hal.Vec2{X: cx, Y: cy}
			}
		}
	}
	if bestN < p.cfg.MinCirclePoints {
		return
	}
	// Refine: each inlier pulls the centre to where it would lie on the
	// circle.
	c := best
	for range 5 {
		var sx, sy float64
		k := 0
		for i := range p.points {
			q := &p.points[i]
			r := math.Hypot(q.x-c.X, q.y-c.Y)
			if math.Abs(r-R) > p.tol(q.d) || r < 1e-6 {
				continue
			}
			sx += q.x - R*(q.x-c.X)/r
			sy += q.y - R*(q.y-c.Y)/r
			k++
		}
		if k == 0 {
			return
		}
		c = hal.Vec2{X: sx / float64(k), Y: sy / float64(k)}
	}
	// Arc coverage in 30° sectors; at least three (a straight line fits a
	// circle of radius R only over a short arc).
	var bins uint16
	k := 0
	for i := range p.points {
		q := &p.points[i]
		r := math.Hypot(q.x-c.X, q.y-c.Y)
		if math.Abs(r-R) > p.tol(q.d) {
			continue
		}
		a := math.Atan2(q.y-c.Y, q.x-c.X)
		bins |= 1 << (int((a+math.Pi)/(math.Pi/6)) % 12)
		k++
	}
	nb := 0
	for b := bins; b != 0; b &= b - 1 {
		nb++
	}
	if k < p.cfg.MinCirclePoints || nb < 3 {
		return
	}
	// Straight-line check: the inliers must not be collinear.
	if p.inlierLineResidual(c, R) < 0.35*R*0.15 || !p.arcInImage(c, R) {
		return
	}
	for i := range p.points {
		q := &p.points[i]
		if math.Abs(math.Hypot(q.x-c.X, q.y-c.Y)-R) <= p.tol(q.d) {
			q.used = true
		}
	}
	p.circle, p.circleFound = c, true
	p.res.CircleFound, p.res.Circle = true, c
}

// arcInImage checks the circle in the image: of its points every 10° that
// project below the field boundary, at least 70 % must show white within
// a line's height (a circle fitted to the corner of two lines fails).
func (p *Pipeline) arcInImage(c hal.Vec2, R float64) bool {
	total, white := 0, 0
	for k := range 36 {
		s, co := math.Sincos(float64(k) * math.Pi / 18)
		u, v, ok := p.proj.GroundToImage(c.X+R*co, c.Y+R*s)
		if !ok || !finite(u, v) || u < 0 || v < 0 || u > float64(p.w-1) || v > float64(p.h-1) {
			continue
		}
		if v < p.boundaryAt(u)+2 || p.inObstacle(u, v) {
			continue
		}
		total++
		ui, vi := int(u+0.5), int(v+0.5)
		h := max(2, int(p.lineH[vi]+1))
		for dv := -h; dv <= h; dv++ {
			if vv := vi + dv; vv >= 0 && vv < p.h && p.classify(ui, vv) == clsWhite {
				white++
				break
			}
		}
	}
	return total >= 6 && white*10 >= total*7
}

func (p *Pipeline) circleInliers(cx, cy, R float64) int {
	k := 0
	for i := range p.points {
		q := &p.points[i]
		dx, dy := q.x-cx, q.y-cy
		if math.Abs(math.Sqrt(dx*dx+dy*dy)-R) <= q.tol {
			k++
		}
	}
	return k
}

// inlierLineResidual is the RMS distance of the circle's inliers from
// their best straight line (the smaller principal axis).
func (p *Pipeline) inlierLineResidual(c hal.Vec2, R float64) float64 {
	var n, sx, sy, sxx, syy, sxy float64
	for i := range p.points {
		q := &p.points[i]
		if math.Abs(math.Hypot(q.x-c.X, q.y-c.Y)-R) > p.tol(q.d) {
			continue
		}
		n++
		sx += q.x
		sy += q.y
		sxx += q.x * q.x
		syy += q.y * q.y
		sxy += q.x * q.y
	}
	if n < 2 {
		return 0
	}
	mx, my := sx/n, sy/n
	cxx, cyy, cxy := sxx/n-mx*mx, syy/n-my*my, sxy/n-mx*my
	tr, det := cxx+cyy, cxx*cyy-cxy*cxy
	l2 := tr/2 - math.Sqrt(math.Max(0, tr*tr/4-det))
	return math.Sqrt(math.Max(0, l2))
}

// findLines fits line segments to the unused line points with RANSAC,
// one at a time: the best pair's inliers are refitted by least squares,
// split at gaps, and the longest stretch becomes a segment when it is long
// enough and straight (an arc of the circle is spent without a segment).
func (p *Pipeline) findLines() {
	attempts := 0
	for len(p.res.Lines) < p.cfg.MaxLines {
		p.idxBuf = p.idxBuf[:0]
		for i := range p.points {
			if !p.points[i].used {
				p.idxBuf = append(p.idxBuf, int32(i))
			}
		}
		n := len(p.idxBuf)
		if n < p.cfg.MinLinePoints {
			return
		}
		bestN, bi, bj := 0, -1, -1
		for range p.cfg.RansacIterations {
			if p.res.Work.RansacTests >= p.ransacBudget() {
				break
			}
			i, j := int(p.idxBuf[p.rand(n)]), int(p.idxBuf[p.rand(n)])
			a, b := &p.points[i], &p.points[j]
			dx, dy := b.x-a.x, b.y-a.y
			dd := math.Hypot(dx, dy)
			if dd < 0.1 {
				continue
			}
			nx, ny := -dy/dd, dx/dd
			p.res.Work.RansacIterations++
			p.res.Work.RansacTests += len(p.idxBuf)
			k := 0
			for _, id := range p.idxBuf {
				q := &p.points[id]
				if math.Abs((q.x-a.x)*nx+(q.y-a.y)*ny) <= q.tol {
					k++
				}
			}
			if k > bestN {
				bestN, bi, bj = k, i, j
			}
		}
		if bestN < p.cfg.MinLinePoints {
			return
		}
		seg, ok := p.fitSegment(bi, bj)
		if !ok {
			return
		}
		switch {
		case seg.curved:
			// A piece of the centre circle: its points stay spent.
		case seg.Inliers >= p.cfg.MinLinePoints && math.Hypot(seg.B.X-seg.A.X, seg.B.Y-seg.A.Y) >= float64(p.cfg.MinLineLength):
			p.res.Lines = append(p.res.Lines, seg.Segment)
		default:
			// Too short for a line: its points go back (a penalty mark's
			// among them); only the pair is spent.
			for _, id := range p.idxBuf {
				p.points[id].used = false
			}
			p.points[bi].used, p.points[bj].used = true, true
		}
		attempts++
		if attempts >= 4*p.cfg.MaxLines {
			return
		}
	}
}

// fitted is a segment and whether it bows like the centre circle.
type fitted struct {
	Segment
	curved bool
}

// fitSegment refits the line through points i and j to its inliers and
// marks the longest gap-free stretch used; ok is false when nothing was
// marked.
func (p *Pipeline) fitSegment(i, j int) (fitted, bool) {
	a, b := &p.points[i], &p.points[j]
	dx, dy := b.x-a.x, b.y-a.y
	dd := math.Hypot(dx, dy)
	ox, oy, ex, ey := a.x, a.y, dx/dd, dy/dd
	// Refit by least squares, the later rounds with half the tolerance
	// (points of a meeting line near the intersection pull the first).
	for it := range 3 {
		f := 1.0
		if it > 0 {
			f = 0.5
		}
		var n, sx, sy, sxx, syy, sxy float64
		for _, id := range p.idxBuf {
			q := &p.points[id]
			if math.Abs(-(q.x-ox)*ey+(q.y-oy)*ex) > f*p.tol(q.d) {
				continue
			}
			n++
			sx += q.x
			sy += q.y
			sxx += q.x * q.x
			syy += q.y * q.y
			sxy += q.x * q.y
		}
		if n < 2 {
			break
		}
		mx, my := sx/n, sy/n
		cxx, cyy, cxy := sxx/n-mx*mx, syy/n-my*my, sxy/n-mx*my
		th := 0.5 * math.Atan2(2*cxy, cxx-cyy)
		ox, oy, ex, ey = mx, my, math.Cos(th), math.Sin(th)
	}
	// Positions of the inliers along the line; split at gaps.
	p.sortBuf = p.sortBuf[:0]
	for _, id := range p.idxBuf {
		q := &p.points[id]
		if math.Abs(-(q.x-ox)*ey+(q.y-oy)*ex) <= p.tol(q.d) {
			p.sortBuf = append(p.sortBuf, (q.x-ox)*ex+(q.y-oy)*ey)
		}
	}
	if len(p.sortBuf) == 0 {
		return fitted{}, false
	}
	slices.Sort(p.sortBuf)
	bs, be, s := 0, 0, 0
	for k := 1; k <= len(p.sortBuf); k++ {
		if k == len(p.sortBuf) || p.sortBuf[k]-p.sortBuf[k-1] > 0.5+0.1*math.Hypot(ox, oy) {
			if k-s > be-bs {
				bs, be = s, k
			}
			s = k
		}
	}
	t0, t1 := p.sortBuf[bs], p.sortBuf[be-1]
	marked := 0
	for _, id := range p.idxBuf {
		q := &p.points[id]
		t := (q.x-ox)*ex + (q.y-oy)*ey
		// Only the close inliers are spent: the points of a line meeting
		// this one stay for it.
		if math.Abs(-(q.x-ox)*ey+(q.y-oy)*ex) <= 0.6*q.tol && t >= t0-1e-9 && t <= t1+1e-9 {
			q.used = true
			marked++
		}
	}
	seg := Segment{A: hal.Vec2{X: ox + t0*ex, Y: oy + t0*ey}, B: hal.Vec2{X: ox + t1*ex, Y: oy + t1*ey}, Inliers: be - bs}
	return fitted{Segment: seg, curved: p.curved(ox, oy, ex, ey, t0, t1)}, marked > 0
}

// curved reports whether the inliers between t0 and t1 bow like an arc of
// the centre circle: the middle third's mean offset from the line differs
// from the outer thirds' by more than half the arc's sagitta (L²/8R) and
// by more than 2 cm.
func (p *Pipeline) curved(ox, oy, ex, ey, t0, t1 float64) bool {
	L := t1 - t0
	if L < 0.3 {
		return false
	}
	var mid, out float64
	nm, no := 0, 0
	for _, id := range p.idxBuf {
		q := &p.points[id]
		e := -(q.x-ox)*ey + (q.y-oy)*ex
		t := (q.x-ox)*ex + (q.y-oy)*ey
		if math.Abs(e) > q.tol || t < t0 || t > t1 {
			continue
		}
		switch f := (t - t0) / L; {
		case f > 1.0/3 && f < 2.0/3:
			mid += e
			nm++
		case f < 1.0/6 || f > 5.0/6:
			out += e
			no++
		}
	}
	if nm < 2 || no < 2 {
		return false
	}
	sag := L * L / (8 * float64(p.cfg.Field.CentreCircleRadius))
	return math.Abs(mid/float64(nm)-out/float64(no)) > math.Max(0.02, 0.5*sag)
}

// findIntersections classifies where pairs of roughly perpendicular
// segments meet: at an end of both (L) or at the end of one (T); points
// more than 0.3 m beyond a segment are no intersection. X intersections
// are where the halfway line crosses the centre circle (as in B-Human's
// IntersectionsProvider): straight SPL field lines never cross.
func (p *Pipeline) findIntersections() {
	const margin = 0.3
	ls := p.res.Lines
	for i := range ls {
		for j := i + 1; j < len(ls); j++ {
			a, b := ls[i], ls[j]
			ax, ay := b2(a)
			bx, by := b2(b)
			la, lb := math.Hypot(ax, ay), math.Hypot(bx, by)
			cos := math.Abs(ax*bx+ay*by) / (la * lb)
			if cos > math.Cos(60*math.Pi/180) {
				continue
			}
			den := ax*by - ay*bx
			if math.Abs(den) < 1e-9 {
				continue
			}
			// a.A + s*(ax,ay) = b.A + t*(bx,by)
			wx, wy := b.A.X-a.A.X, b.A.Y-a.A.Y
			s := (wx*by - wy*bx) / den
			t := (wx*ay - wy*ax) / den
			sa, sb := s*la, t*lb // metres along each segment
			if sa < -margin || sa > la+margin || sb < -margin || sb > lb+margin {
				continue
			}
			endA := sa < margin || sa > la-margin
			endB := sb < margin || sb > lb-margin
			pos := hal.Vec2{X: a.A.X + s*ax, Y: a.A.Y + s*ay}
			// An end where the view ends (image border, field boundary,
			// an obstacle) may not be the line's: the kind is unknown.
			if (endA && p.openEnd(a, pos)) || (endB && p.openEnd(b, pos)) {
				continue
			}
			var in Intersection
			in.Pos = pos
			// Unit directions from the intersection along each segment, to
			// its farther end.
			dax, day := farDir(a, pos)
			dbx, dby := farDir(b, pos)
			switch {
			case endA && endB:
				in.Kind = hal.ObjCorner
				in.Orientation = math.Atan2(day+dby, dax+dbx)
			case endA:
				in.Kind = hal.ObjTJunction
				in.Orientation = math.Atan2(day, dax)
			case endB:
				in.Kind = hal.ObjTJunction
				in.Orientation = math.Atan2(dby, dbx)
			default:
				// Two straight lines of an SPL field never cross: one of
				// them is not a field line.
				continue
			}
			if len(p.res.Intersections) < maxIntersections {
				p.res.Intersections = append(p.res.Intersections, in)
			}
		}
	}
	// A line through the centre circle's centre gives its orientation.
	if p.circleFound {
		for _, l := range ls {
			dx, dy := b2(l)
			d := math.Hypot(dx, dy)
			dist := math.Abs(-(p.circle.X-l.A.X)*dy+(p.circle.Y-l.A.Y)*dx) / d
			if dist < 0.2 {
				p.hasCAxis, p.circleAxisAngle = true, math.Atan2(dy, dx)
				break
			}
		}
	}
	// The halfway line crosses the centre circle: X intersections where it
	// does, in view.
	if p.hasCAxis {
		R := float64(p.cfg.Field.CentreCircleRadius)
		s, c := math.Sincos(p.circleAxisAngle)
		for _, k := range [2]float64{1, -1} {
			x, y := p.circle.X+k*R*c, p.circle.Y+k*R*s
			u, v, ok := p.proj.GroundToImage(x, y)
			if ok && finite(u, v) && u >= 0 && v >= 0 && u <= float64(p.w-1) && v <= float64(p.h-1) && len(p.res.Intersections) < maxIntersections {
				p.res.Intersections = append(p.res.Intersections, Intersection{Kind: hal.ObjXCrossing, Pos: hal.Vec2{X: x, Y: y}, Orientation: p.circleAxisAngle})
			}
		}
	}
}

// openEnd reports whether the end of s nearer to pos is where the view
// ends rather than the line: near the image's border, the field boundary
// or an obstacle.
func (p *Pipeline) openEnd(s Segment, pos hal.Vec2) bool {
	e := s.A
	if math.Hypot(s.B.X-pos.X, s.B.Y-pos.Y) < math.Hypot(s.A.X-pos.X, s.A.Y-pos.Y) {
		e = s.B
	}
	// Beyond the end by the intersection margin: is that still in view?
	dx, dy := e.X-pos.X, e.Y-pos.Y
	if d := math.Hypot(dx, dy); d > 1e-6 {
		e = hal.Vec2{X: e.X + 0.3*dx/d, Y: e.Y + 0.3*dy/d}
	} else {
		ox, oy := farDir(s, pos)
		e = hal.Vec2{X: e.X - 0.3*ox, Y: e.Y - 0.3*oy}
	}
	u, v, ok := p.proj.GroundToImage(e.X, e.Y)
	if !ok || !finite(u, v) {
		return true
	}
	const m = 4
	if u < m || v < m || u > float64(p.w-1-m) || v > float64(p.h-1-m) {
		return true
	}
	if v < p.boundaryAt(u)+m {
		return true
	}
	for _, o := range p.res.Obstacles {
		if u >= float64(o.U0-8) && u <= float64(o.U1+8) && v <= float64(o.V)+8 {
			return true
		}
	}
	return false
}

func b2(s Segment) (float64, float64) { return s.B.X - s.A.X, s.B.Y - s.A.Y }

// farDir is the unit direction from pos to the segment's farther end.
func farDir(s Segment, pos hal.Vec2) (float64, float64) {
	e := s.A
	if math.Hypot(s.B.X-pos.X, s.B.Y-pos.Y) > math.Hypot(s.A.X-pos.X, s.A.Y-pos.Y) {
		e = s.B
	}
	dx, dy := e.X-pos.X, e.Y-pos.Y
	d := math.Hypot(dx, dy)
	if d < 1e-9 {
		return 1, 0
	}
	return dx / d, dy / d
}

// findMarks checks line points no line or circle took for a penalty mark:
// white at the centre and at 3 cm around it, field at 20 cm all round
// (which a line, white along its length, never has).
func (p *Pipeline) findMarks() {
	trials := 0
	for i := range p.points {
		q := &p.points[i]
		if q.used || len(p.res.Marks) >= maxMarks || q.d > 5 {
			continue
		}
		if trials >= maxMarkTrials {
			return
		}
		dup := false
		for _, m := range p.res.Marks {
			if math.Hypot(m.X-q.x, m.Y-q.y) < 0.3 {
				dup = true
			}
		}
		for _, b := range p.res.Balls {
			// A ball hides the ground behind it: no mark near one.
			if math.Hypot(b.Pos.X-q.x, b.Pos.Y-q.y) < 0.1+0.2*q.d {
				dup = true
			}
		}
		if dup {
			continue
		}
		// The run's centre may sit off the mark's centre: try it and the
		// centroid of nearby unused points.
		trials++
		var sx, sy float64
		k := 0
		for j := range p.points {
			r := &p.points[j]
			if dx, dy := r.x-q.x, r.y-q.y; !r.used && dx*dx+dy*dy < 0.12*0.12 {
				sx += r.x
				sy += r.y
				k++
			}
		}
		cx, cy := sx/float64(k), sy/float64(k)
		if !p.markAt(cx, cy) {
			continue
		}
		p.res.Marks = append(p.res.Marks, hal.Vec2{X: cx, Y: cy})
	}
}

func (p *Pipeline) markAt(cx, cy float64) bool {
	cls, ok := p.groundClass(cx, cy)
	if !ok || cls != clsWhite {
		return false
	}
	white, field := 0, 0
	for k := range 8 {
		s, c := math.Sincos(float64(k) * math.Pi / 4)
		if cl, ok := p.groundClass(cx+0.03*c, cy+0.03*s); ok && cl == clsWhite {
			white++
		}
		cl, ok := p.groundClass(cx+0.2*c, cy+0.2*s)
		if !ok {
			return false
		}
		if cl == clsField {
			field++
		}
		if cl2, ok := p.groundClass(cx+0.13*c, cy+0.13*s); !ok || cl2 == clsWhite {
			return false
		}
	}
	return white >= 4 && field >= 7
}

// groundClass is the class of the pixel showing ground point (x, y).
func (p *Pipeline) groundClass(x, y float64) (uint8, bool) {
	u, v, ok := p.proj.GroundToImage(x, y)
	if !ok || !finite(u, v) || u < 0 || v < 0 || u > float64(p.w-1) || v > float64(p.h-1) {
		return 0, false
	}
	return p.classify(int(u+0.5), int(v+0.5)), true
}
