package simserver

import (
	"math"

	"github.com/robotd/robotd/hal/geom"
)

// Ball model, fitted to monitor_agent.txt: a ball given (vel 2 0 0) on the
// ground slides into rolling at 5/7 of that speed (a solid sphere) and then
// decelerates by ballDecel0 + ballDecel1·speed, which rolls it 1.64 m and
// stops it after 2.6 s, as the fork's strongly damped ball does (the
// recorded positions are matched within 7 cm).
const (
	ballDecel0   = 0.393 // m/s²
	ballDecel1   = 0.25  // 1/s
	rollFactor   = 5.0 / 7.0
	ballBounce   = 0.5 // restitution of a kick
	footBoxH     = 0.045
	shankRadius  = 0.035
	ballOnGround = BallRadius + 1e-6
	// contactRange bounds how far from the torso a foot can reach the ball.
	contactRange = 0.8
)

type ball struct {
	p, v geom.Vec3
	// Where each robot's feet and shanks were last step, for their speed.
	prev     [][2]contactShape
	prevSeen []int
	touched  bool
}

// contactShape is a foot box or a shank segment in the world.
type contactShape struct {
	footR     geom.Mat3
	footC     geom.Vec3 // foot box centre
	knee, ank geom.Vec3
	valid     bool
}

// set places the ball; vel, if given, is the velocity the trainer asked
// for (the ball then rolls at 5/7 of it if it is on the ground).
func (b *ball) set(p geom.Vec3, vel *geom.Vec3) {
	if p.Z < BallRadius {
		p.Z = BallRadius
	}
	b.p = p
	b.v = geom.Vec3{}
	if vel != nil {
		b.v = *vel
		if b.p.Z <= ballOnGround {
			b.v = geom.Vec3{X: vel.X * rollFactor, Y: vel.Y * rollFactor, Z: math.Max(0, vel.Z)}
		}
	}
}

func (b *ball) step(dt float64, agents []*Agent) {
	if b.p.Z > ballOnGround || b.v.Z > 0 {
		b.v.Z -= gravity * dt
	}
	if b.p.Z <= ballOnGround && b.v.Z <= 0 {
		b.v.Z = 0
		s := math.Hypot(b.v.X, b.v.Y)
		if s > 0 {
			ns := math.Max(0, s-(ballDecel0+ballDecel1*s)*dt)
			b.v.X *= ns / s
			b.v.Y *= ns / s
		}
	}
	b.p = b.p.Add(b.v.Scale(dt))
	if b.p.Z < BallRadius {
		b.p.Z = BallRadius
		b.v.Z = 0
	}
	wall(&b.p.X, &b.v.X, wallX)
	wall(&b.p.Y, &b.v.Y, wallY)
	b.collide(dt, agents)
}

// collide lets the robots' feet and shanks push the ball.
func (b *ball) collide(dt float64, agents []*Agent) {
	if cap(b.prev) < len(agents) {
		b.prev = make([][2]contactShape, len(agents), 2*len(agents)+4)
		b.prevSeen = make([]int, len(agents), 2*len(agents)+4)
	}
	b.prev = b.prev[:len(agents)]
	b.prevSeen = b.prevSeen[:len(agents)]
	for ai, a := range agents {
		r := a.r
		if b.prevSeen[ai] != a.id+1 {
			b.prev[ai] = [2]contactShape{}
			b.prevSeen[ai] = a.id + 1
		}
		if r.state == bodyFloating || math.Abs(r.p.X-b.p.X) > contactRange || math.Abs(r.p.Y-b.p.Y) > contactRange {
			// Out of reach: nothing to push (the speeds restart when the
			// ball comes within reach, long before a foot can touch it).
			b.prev[ai] = [2]contactShape{}
			continue
		}
		for i := 0; i < 2; i++ {
			var s contactShape
			s.footR = r.R.Mul(r.kin.footR[i])
			s.footC = r.world(r.kin.sole[i]).Add(s.footR.Apply(geom.Vec3{X: 0, Y: 0, Z: footBoxH / 2}))
			s.knee, s.ank = r.world(r.kin.knee[i]), r.world(r.kin.ankle[i])
			s.valid = true
			old := b.prev[ai][i]
			b.prev[ai][i] = s
			var vel geom.Vec3
			if old.valid {
				vel = s.footC.Sub(old.footC).Scale(1 / dt)
			}
			// Foot box.
			l := s.footR.ApplyT(b.p.Sub(s.footC))
			q := geom.Vec3{
				X: math.Max(-soleHalfW, math.Min(soleHalfW, l.X)),
				Y: math.Max(-soleHalfL, math.Min(soleHalfL, l.Y)),
				Z: math.Max(-footBoxH/2, math.Min(footBoxH/2, l.Z)),
			}
			b.push(s.footC.Add(s.footR.Apply(q)), BallRadius, vel)
			// Shank.
			var sv geom.Vec3
			if old.valid {
				sv = s.ank.Sub(old.ank).Scale(1 / dt)
			}
			b.push(closestOnSegment(s.knee, s.ank, b.p), BallRadius+shankRadius, sv)
		}
	}
}

// push moves the ball out of contact with the point q (at distance reach)
// moving at vel, and bounces it off.
func (b *ball) push(q geom.Vec3, reach float64, vel geom.Vec3) {
	d := b.p.Sub(q)
	n := d.Norm()
	if n >= reach {
		return
	}
	var dir geom.Vec3
	if n > 1e-9 {
		dir = d.Scale(1 / n)
	} else {
		dir = geom.Vec3{X: vel.X, Y: vel.Y, Z: 0}.Unit()
		if dir == (geom.Vec3{}) {
			dir = geom.Vec3{X: 1, Y: 0, Z: 0}
		}
	}
	if b.p.Z <= ballOnGround+0.01 {
		// A ball on the ground is pushed along it.
		dir.Z = 0
		if l := dir.Norm(); l > 1e-9 {
			dir = dir.Scale(1 / l)
		} else {
			dir = geom.Vec3{X: 1, Y: 0, Z: 0}
		}
	}
	b.p = b.p.Add(dir.Scale(reach - n + 1e-4))
	if b.p.Z < BallRadius {
		b.p.Z = BallRadius
	}
	vn := b.v.Sub(vel).Dot(dir)
	if vn < 0 {
		b.v = b.v.Sub(dir.Scale((1 + ballBounce) * vn))
		b.touched = true
	}
}

func closestOnSegment(a, b, p geom.Vec3) geom.Vec3 {
	ab := b.Sub(a)
	l2 := ab.Dot(ab)
	if l2 < 1e-12 {
		return a
	}
	t := math.Max(0, math.Min(1, p.Sub(a).Dot(ab)/l2))
	return a.Add(ab.Scale(t))
}

// wall bounces a coordinate p with speed v off walls at ±lim, keeping half
// the speed.
func wall(p, v *float64, lim float64) {
	if *p > lim {
		*p, *v = lim, -0.5**v
	} else if *p < -lim {
		*p, *v = -lim, -0.5**v
	}
}
