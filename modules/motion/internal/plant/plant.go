// Package plant is a kinematic stand-in for a NAO on flat ground, for
// motion's tests: it executes joint commands with a delay and a speed limit
// (as SimSpark does), carries the body on the support foot with the legs'
// forward kinematics, measures the torso's rotation rate like a gyro, and
// says the robot falls when the zero-moment point (the centre of mass, from
// kinematics' mass model, less the torso's horizontal acceleration times
// h/g) leaves the support polygon. It is what robotd's embedded simulator
// does (simserver), not a physics engine.
package plant

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/modules/motion/kinematics"
)

// FallMargin is how far the ZMP may leave the support polygon before the
// robot falls: the embedded simulator's default (simserver.Config).
const FallMargin = 0.005

// Foot is the sole's rectangle around the sole point, in the foot frame.
type Foot struct{ Back, Front, Half float64 }

// NAOFoot is the NAO's sole, roughly.
var NAOFoot = Foot{Back: -0.05, Front: 0.10, Half: 0.04}

// Plant is the simulated robot.
type Plant struct {
	Geom kinematics.Geometry
	Foot Foot
	// Delay is how many ticks a command takes to act; MaxSpeed bounds each
	// joint's speed (rad/s; 0: none).
	Delay    int
	MaxSpeed float64

	// Joints are the measured angles.
	Joints [hal.NumJoints]hal.Radians
	queue  [8][hal.NumJoints]hal.Radians
	n      int

	// Support is the foot carrying the body; SupportPose its sole on the
	// ground (world frame).
	Support     kinematics.Side
	SupportPose geom.Pose3
	// Torso is the torso's world pose.
	Torso geom.Pose3
	// Soles are both soles' world poses.
	Soles [2]geom.Pose3
	// CoM is the centre of mass in the world.
	CoM geom.Vec3
	// ZMP is the zero-moment point on the ground (x, y).
	ZMP [2]float64
	// Margin is the ZMP's distance inside the support polygon (negative
	// outside); MinMargin the smallest so far.
	Margin, MinMargin float64
	// The torso's smoothed velocity and acceleration, as the simulator
	// filters them.
	tv, ta  geom.Vec3
	prevP   geom.Vec3
	samples int
	// Double is true when both feet are on the ground.
	Double bool
	// Fallen is set once the CoM left the support polygon.
	Fallen bool
	// Gyro is the torso's rotation rate in the torso frame.
	Gyro hal.Vec3
	// Switches counts support changes.
	Switches int
}

// New returns a plant standing with joints a, its feet's midpoint at the
// world origin.
func New(g kinematics.Geometry, a [hal.NumJoints]hal.Radians) *Plant {
	p := &Plant{Geom: g, Foot: NAOFoot, Joints: a, MinMargin: math.Inf(1)}
	for i := range p.queue {
		p.queue[i] = a
	}
	legs := kinematics.LegsFrom(&a)
	l := g.FK(kinematics.Left, &legs[kinematics.Left])
	r := g.FK(kinematics.Right, &legs[kinematics.Right])
	// The torso above the feet's midpoint, feet on the ground.
	mx, my := (l.P[0]+r.P[0])/2, (l.P[1]+r.P[1])/2
	p.Support = kinematics.Right
	p.SupportPose = geom.Pose3{R: geom.RotZ(r.R.Yaw()), P: geom.Vec3{r.P[0] - mx, r.P[1] - my, 0}}
	p.update(0)
	p.MinMargin = math.Inf(1)
	return p
}

// Step executes one tick of dt seconds with the command c.
func (p *Plant) Step(c *hal.JointCommand, dt float64) {
	// The command acts Delay ticks later.
	d := min(max(p.Delay, 0), len(p.queue)-1)
	p.queue[p.n%len(p.queue)] = c.Angle
	target := p.queue[(p.n-d+len(p.queue)*2)%len(p.queue)]
	p.n++
	for j := range p.Joints {
		t := hal.Joint(j).Clamp(target[j])
		delta := float64(t - p.Joints[j])
		if p.MaxSpeed > 0 {
			lim := p.MaxSpeed * dt
			delta = min(max(delta, -lim), lim)
		}
		p.Joints[j] += hal.Radians(delta)
	}
	p.update(dt)
}

func (p *Plant) update(dt float64) {
	g := &p.Geom
	legs := kinematics.LegsFrom(&p.Joints)
	var sole [2]geom.Pose3
	for s := range 2 {
		sole[s] = g.FK(kinematics.Side(s), &legs[s])
	}
	prev := p.Torso.R
	p.Torso = p.SupportPose.Mul(sole[p.Support].Inv())
	o := p.Support.Other()
	other := p.Torso.Mul(sole[o])
	if other.P[2] < -1e-4 {
		// The other foot would sink: it carries the body now, flat on the
		// ground where it stood last tick (where it is now is reckoned
		// through the leg that has just begun to lift).
		was := p.Soles[o]
		if p.n <= 1 {
			was = other
		}
		p.Support = o
		p.SupportPose = geom.Pose3{R: geom.RotZ(was.R.Yaw()), P: geom.Vec3{was.P[0], was.P[1], 0}}
		p.Torso = p.SupportPose.Mul(sole[o].Inv())
		p.Switches++
	}
	for s := range 2 {
		p.Soles[s] = p.Torso.Mul(sole[s])
	}
	if dt > 0 {
		// Rotation rate from the change of orientation, in the torso frame.
		d := prev.T().Mul(p.Torso.R)
		p.Gyro = hal.Vec3{X: (d[7] - d[5]) / 2 / dt, Y: (d[2] - d[6]) / 2 / dt, Z: (d[3] - d[1]) / 2 / dt}
	}
	p.CoM = p.Torso.Apply(g.CoM(&p.Joints))
	if dt > 0 {
		var v geom.Vec3
		for i := range v {
			v[i] = 0.5*p.tv[i] + 0.5*(p.Torso.P[i]-p.prevP[i])/dt
		}
		if p.samples >= 2 {
			for i := range v {
				p.ta[i] = 0.8*p.ta[i] + 0.2*(v[i]-p.tv[i])/dt
			}
		}
		if p.samples >= 1 {
			p.tv = v
		}
		p.samples++
	}
	p.prevP = p.Torso.P
	h := max(p.CoM[2], 0.05) / 9.81
	p.ZMP = [2]float64{p.CoM[0] - p.ta[0]*h, p.CoM[1] - p.ta[1]*h}
	p.Double = p.Soles[o].P[2] < 0.002
	p.Margin = p.margin()
	p.MinMargin = min(p.MinMargin, p.Margin)
	if p.Margin < -FallMargin {
		p.Fallen = true
	}
}

// margin is the ZMP's distance inside the support polygon.
func (p *Plant) margin() float64 {
	var pts [8][2]float64
	n := 0
	feet := [2]kinematics.Side{p.Support, p.Support.Other()}
	for i, s := range feet {
		if i == 1 && !p.Double {
			break
		}
		f := p.Soles[s]
		for _, c := range [4][2]float64{{p.Foot.Back, -p.Foot.Half}, {p.Foot.Front, -p.Foot.Half}, {p.Foot.Front, p.Foot.Half}, {p.Foot.Back, p.Foot.Half}} {
			w := f.Apply(geom.Vec3{c[0], c[1], 0})
			pts[n] = [2]float64{w[0], w[1]}
			n++
		}
	}
	hull, m := convexHull(pts[:n])
	return inside(hull[:m], p.ZMP[0], p.ZMP[1])
}

// convexHull returns the hull of pts counter-clockwise (Andrew's monotone
// chain, insertion sort: at most 8 points).
func convexHull(pts [][2]float64) ([16][2]float64, int) {
	for i := 1; i < len(pts); i++ {
		for j := i; j > 0 && (pts[j][0] < pts[j-1][0] || pts[j][0] == pts[j-1][0] && pts[j][1] < pts[j-1][1]); j-- {
			pts[j], pts[j-1] = pts[j-1], pts[j]
		}
	}
	cross := func(o, a, b [2]float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	var h [16][2]float64
	k := 0
	for _, q := range pts {
		for k >= 2 && cross(h[k-2], h[k-1], q) <= 0 {
			k--
		}
		h[k] = q
		k++
	}
	lower := k + 1
	for i := len(pts) - 2; i >= 0; i-- {
		q := pts[i]
		for k >= lower && cross(h[k-2], h[k-1], q) <= 0 {
			k--
		}
		h[k] = q
		k++
	}
	return h, k - 1
}

// inside returns the signed distance of (x, y) inside a counter-clockwise
// convex polygon.
func inside(poly [][2]float64, x, y float64) float64 {
	d := math.Inf(1)
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		ex, ey := b[0]-a[0], b[1]-a[1]
		l := math.Hypot(ex, ey)
		if l == 0 {
			continue
		}
		d = min(d, (ex*(y-a[1])-ey*(x-a[0]))/l)
	}
	return d
}

// Heading is the torso's yaw in the world.
func (p *Plant) Heading() float64 { return p.Torso.R.Yaw() }

// Ground returns the feet's midpoint and mean heading on the ground: the
// walk frame when the feet are at a step boundary.
func (p *Plant) Ground() (x, y, h float64) {
	l, r := p.Soles[kinematics.Left], p.Soles[kinematics.Right]
	hl, hr := l.R.Yaw(), r.R.Yaw()
	return (l.P[0] + r.P[0]) / 2, (l.P[1] + r.P[1]) / 2, hr + geom.WrapAngle(hl-hr)/2
}
