package vision

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// observations writes the frame's findings to out, most useful first (the
// buffer holds hal.MaxObservations): balls, obstacles, the centre circle,
// penalty marks, intersections, lines.
func (p *Pipeline) observations(out *hal.Vision) {
	r := &p.res
	for _, b := range r.Balls {
		if math.Hypot(b.Pos.X, b.Pos.Y) > float64(p.cfg.MaxBallDistance) {
			continue
		}
		p.add(out, hal.ObjBall, b.Pos, 0, hal.Vec2{}, p.cfg.PixelSigma+0.1*b.Radius)
	}
	for _, o := range r.Obstacles {
		ob := p.obs(hal.ObjRobot, o.Pos, 0, hal.Vec2{}, p.cfg.PixelSigma)
		ob.Team = hal.TeamUnknown
		out.Add(ob)
	}
	if r.CircleFound {
		a := 0.0
		if p.hasCAxis {
			a = p.circleAxisAngle
		}
		p.add(out, hal.ObjCentreCircle, r.Circle, a, hal.Vec2{}, 2*p.cfg.PixelSigma)
	}
	for _, m := range r.Marks {
		p.add(out, hal.ObjPenaltySpot, m, 0, hal.Vec2{}, p.cfg.PixelSigma)
	}
	for _, in := range r.Intersections {
		p.add(out, in.Kind, in.Pos, in.Orientation, hal.Vec2{}, 2*p.cfg.PixelSigma)
	}
	for _, l := range r.Lines {
		mid := hal.Vec2{X: (l.A.X + l.B.X) / 2, Y: (l.A.Y + l.B.Y) / 2}
		p.add(out, hal.ObjLine, mid, math.Atan2(l.B.Y-l.A.Y, l.B.X-l.A.X), l.B, p.cfg.PixelSigma)
	}
}

func (p *Pipeline) add(out *hal.Vision, k hal.ObjectKind, pos hal.Vec2, orient float64, end hal.Vec2, pxSigma float64) {
	out.Add(p.obs(k, pos, orient, end, pxSigma))
}

// obs builds an observation whose uncertainty is what pxSigma pixels of
// error at its image position mean on the ground, plus 2 % of the
// distance for the camera matrix's own error.
func (p *Pipeline) obs(k hal.ObjectKind, pos hal.Vec2, orient float64, end hal.Vec2, pxSigma float64) hal.Observation {
	d := math.Hypot(pos.X, pos.Y)
	b := math.Atan2(pos.Y, pos.X)
	sd, sb := 0.02*d+0.01, 0.01
	if u, v, ok := p.proj.GroundToImage(pos.X, pos.Y); ok && finite(u, v) {
		if x1, y1, ok := p.proj.ImageToGround(u, v+pxSigma); ok && finite(x1, y1) {
			sd += math.Abs(math.Hypot(x1, y1) - d)
		} else {
			sd += d
		}
		if x2, y2, ok := p.proj.ImageToGround(u+pxSigma, v); ok && finite(x2, y2) {
			db := math.Atan2(y2, x2) - b
			sb += math.Abs(math.Atan2(math.Sin(db), math.Cos(db)))
		}
	}
	return hal.Observation{Kind: k, Pos: pos, Distance: hal.Metres(d), Bearing: hal.Radians(b),
		Orientation: hal.Radians(orient), End: end, DistanceSigma: hal.Metres(sd), BearingSigma: hal.Radians(sb)}
}
