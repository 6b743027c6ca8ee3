package simserver

import (
	"math"
	"strconv"

	"github.com/robotd/robotd/hal/geom"
)

// The fork's RestrictedVisionPerceptor on the NAO's head (naoneckhead.rsg):
// a 120° × 120° view cone around the head's forward axis, polar
// coordinates (distance, horizontal angle, vertical angle in degrees) from
// the head, noise σ = 3 % of the distance, 3.148° horizontally, 3.1225°
// vertically and 7° on a field feature's orientation, and a fixed
// calibration error of up to 5 mm per axis added to objects (not to field
// features). Objects closer than 0.1 m are not seen.
const (
	viewHalf      = 60.0
	sigmaDistPct  = 3.0
	sigmaTheta    = 3.1480
	sigmaPhi      = 3.1225
	sigmaOrient   = 7.0
	minSeeDist    = 0.1
	calibErrorAbs = 0.005
)

// See item names of a player's body parts, in scene order.
var partNames = [5]string{"head", "rlowerarm", "llowerarm", "rfoot", "lfoot"}

// viewPolar returns (theta, phi) of rel (world frame, from the camera c)
// and whether it is inside the view cone.
func viewPolar(c *geom.Pose3, rel geom.Vec3) (th, ph float64, ok bool) {
	l := c.R.ApplyT(rel)
	// Cheap cone tests first: |θ| ≤ 60° means ahead and |x| ≤ √3·y;
	// |φ| ≤ 60° means |z| ≤ √3·√(x²+y²).
	h2 := l.X*l.X + l.Y*l.Y
	if l.Y <= 0 || l.X*l.X > 3.0000001*l.Y*l.Y || l.Z*l.Z > 3.0000001*h2 {
		return 0, 0, false
	}
	th = normDeg(atan2(l.Y, l.X)*deg - 90)
	ph = atan2(l.Z, math.Sqrt(h2)) * deg
	if math.Abs(th) > viewHalf || math.Abs(ph) > viewHalf {
		return 0, 0, false
	}
	return th, ph, true
}

func (w *World) noisy() bool { return !w.cfg.NoVisionNoise }

// appendObject appends "(name (pol d h v))" for an object at pos if visible.
func (w *World) appendObject(dst []byte, c *geom.Pose3, a *Agent, name string, pos geom.Vec3) ([]byte, bool) {
	rel := pos.Sub(c.P)
	d := rel.Norm()
	if w.noisy() {
		rel = rel.Add(a.calib)
		if rel.Dot(rel) <= minSeeDist*minSeeDist {
			return dst, false
		}
	} else if d <= minSeeDist {
		return dst, false
	}
	th, ph, ok := viewPolar(c, rel)
	if !ok {
		return dst, false
	}
	if w.noisy() {
		d += w.rng.NormFloat64() * sigmaDistPct * d / 100
		th += w.rng.NormFloat64() * sigmaTheta
		ph += w.rng.NormFloat64() * sigmaPhi
	}
	dst = append(dst, " ("...)
	dst = append(dst, name...)
	dst = append(dst, " (pol "...)
	dst = appendVec(dst, geom.Vec3{X: d, Y: th, Z: ph})
	return append(dst, "))"...), true
}

// appendSee encodes the agent's See block.
func (w *World) appendSee(dst []byte, a *Agent) []byte {
	var c geom.Pose3
	c.P, c.R = a.r.camPose()
	dst = append(dst, "(See"...)
	for i := range goalPosts {
		dst, _ = w.appendObject(dst, &c, a, goalPosts[i].name, goalPosts[i].pos)
	}
	dst, _ = w.appendObject(dst, &c, a, "B", w.ball.p)
	for _, b := range w.agents {
		if b.team == teamNone || b.r.state == bodyFloating && b != a {
			continue
		}
		dst = w.appendPlayer(dst, &c, a, b)
	}
	// Cheat values of the fork, in the agent's team frame.
	pos, ball := c.P, w.ball.p
	orient := yawOf(&c.R) * deg
	if a.team == teamRight {
		pos.X, pos.Y = -pos.X, -pos.Y
		ball.X, ball.Y = -ball.X, -ball.Y
		orient = normDeg(orient + 180)
	}
	dst = append(dst, " (mypos "...)
	dst = appendVec(dst, pos)
	dst = append(dst, ") (myorien "...)
	dst = appendF2(dst, orient)
	dst = append(dst, ") (ballpos "...)
	dst = appendVec(dst, ball)
	dst = append(dst, ')')
	for i := range features {
		f := &features[i]
		rel := f.pos.Sub(c.P)
		th, ph, ok := viewPolar(&c, rel)
		if !ok {
			continue
		}
		d := rel.Norm()
		o := normDeg(math.Atan2(-rel.Y, -rel.X)*deg - f.orient)
		if w.noisy() {
			d += w.rng.NormFloat64() * sigmaDistPct * d / 100
			th += w.rng.NormFloat64() * sigmaTheta
			ph += w.rng.NormFloat64() * sigmaPhi
			o += w.rng.NormFloat64() * sigmaOrient
		}
		dst = append(dst, " ("...)
		dst = append(dst, featureNames[f.kind]...)
		dst = append(dst, " (ffs "...)
		dst = appendVec(dst, geom.Vec3{X: d, Y: th, Z: ph})
		dst = append(dst, ' ')
		dst = appendF2(dst, o)
		dst = append(dst, "))"...)
	}
	return append(dst, ')')
}

// appendPlayer appends the P item for robot b as seen by a, if any of its
// parts is visible (a sees its own lower arms).
func (w *World) appendPlayer(dst []byte, c *geom.Pose3, a, b *Agent) []byte {
	parts := b.r.seenParts(w.cycle)
	mark := len(dst)
	dst = append(dst, " (P (team "...)
	dst = append(dst, w.teams[b.team]...)
	dst = append(dst, ") (id "...)
	dst = appendInt(dst, b.unum)
	dst = append(dst, ')')
	any := false
	for i, p := range *parts {
		var ok bool
		dst, ok = w.appendObject(dst, c, a, partNames[i], p)
		any = any || ok
	}
	if !any {
		return dst[:mark]
	}
	return append(dst, ')')
}

func appendInt(dst []byte, v int) []byte { return strconv.AppendInt(dst, int64(v), 10) }

// seenParts returns the world positions of the body parts others see,
// computed once per cycle.
func (r *robot) seenParts(cycle int64) *[5]geom.Vec3 {
	if r.partsCycle != cycle+1 {
		r.parts = [5]geom.Vec3{
			r.world(r.kin.cam),
			r.world(r.kin.lowerArm[0]),
			r.world(r.kin.lowerArm[1]),
			r.world(r.kin.footObj[0]),
			r.world(r.kin.footObj[1]),
		}
		r.partsCycle = cycle + 1
	}
	return &r.parts
}
