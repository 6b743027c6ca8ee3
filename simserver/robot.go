package simserver

import (
	"math"

	"github.com/robotd/robotd/hal/geom"
)

// bodyState is what carries the robot's body.
type bodyState uint8

const (
	// bodyFloating: before it is placed, the robot hangs in the air at its
	// creation point and feels nothing (ACC 0), as the real server's.
	bodyFloating bodyState = iota
	// bodyDropping: placed (beam, trainer) just above the ground, falling
	// onto its feet.
	bodyDropping
	// bodyStanding: carried by the supporting foot.
	bodyStanding
	// bodyFalling: tipping over an edge of the support polygon.
	bodyFalling
	// bodyLying: on the ground until a get-up brings the centre of mass
	// over the feet, or the trainer moves it.
	bodyLying
	// bodyRising: the get-up's last phase, from lying to standing.
	bodyRising
)

var bodyStateNames = [...]string{"floating", "dropping", "standing", "falling", "lying", "rising"}

func (s bodyState) String() string { return bodyStateNames[s] }

// Model constants of the kinematic body.
const (
	// dropTime is how long a placed robot falls before its feet touch:
	// 6 cycles at 10 ms and 3 at 20 ms, as connect.txt and
	// step20ms_he1_p1.txt show.
	dropTime = 0.055
	// contactTol is how close to the ground a sole corner counts as
	// touching (FRP).
	contactTol = 0.002
	// supportTol is how close to the ground a foot still helps to support
	// the body: a kinematic body cannot tilt the last millimetres onto it.
	supportTol = 0.006
	// riseTime is the last phase of a get-up.
	riseTime = 0.4
	// getUpKnee and getUpHip are the knee and hip flexion a get-up must
	// reach (a deep squat, the feet under the body: both get-ups pass
	// through knees 121°, hips -80°) before the robot can stand up (sim
	// signs: knee negative, hip positive). The stand pose (knees 71°, hips
	// -33°) is not enough: a lying robot does not stand by standing.
	getUpKnee = -110 * rad
	getUpHip  = 60 * rad
	// getUpMargin is how far inside the support polygon the centre of mass
	// must be for a get-up to succeed.
	getUpMargin = 0.01
	// layDownSpeed is the tipping rate (rad/s) a robot the trainer lays
	// down starts with.
	layDownSpeed = 3.0
)

// Lying tilts of the torso after a fall, from the final ACC of the imu_fall
// traces: forward (0, -9.62, 1.92), backward (0, 9.81, 0.20), to the side
// (∓9.4, 0, 2.8).
var (
	lieForward  = math.Atan2(9.62, 1.92)
	lieBackward = math.Atan2(9.81, 0.20)
	lieSide     = math.Atan2(9.44, 2.81)
)

// robot is the simulated NAO: joints, body pose and sensors.
type robot struct {
	// Joints.
	q, v   [numJoints]float64 // angle (rad), commanded motor velocity (rad/s)
	over   [numJoints]int8    // +1/-1: the last step overshot the upper/lower stop
	qBack  [numJoints]float64 // angle before an overshoot
	asleep bool               // resting long enough that a start is delayed a cycle
	still  int                // steps without joint motion
	moved  bool               // a joint moved since the last wake-up
	kin    kinematics
	dirty  bool // kin is stale

	state   bodyState
	R       geom.Mat3 // torso orientation in the world
	p       geom.Vec3 // torso origin in the world
	support int       // 0 right, 1 left
	footYaw float64
	footPos geom.Vec3 // support sole centre on the ground
	contact [2]bool   // touching the ground (FRP)
	// supported: near enough the ground to share the weight.
	supported [2]bool
	corners   [2][4]geom.Vec3 // sole corners in the world, from contacts
	frpC      [2]geom.Vec3
	frpF      [2]geom.Vec3
	// Sensors.
	gyr, acc geom.Vec3
	prevR    geom.Mat3
	prevP    geom.Vec3
	prevV    geom.Vec3
	hist     int // valid pose history samples
	// Dropping.
	dropT  float64
	dropZ0 float64
	// Falling.
	pivot, axis, fallN geom.Vec3
	footW              geom.Mat3 // the pivoting foot's world orientation
	phi, omega, lie    float64
	comV               geom.Vec3 // the torso's velocity (smoothed)
	comA               geom.Vec3 // the torso's acceleration (smoothed)
	comN               int       // velocity samples since comValid
	prevCom            geom.Vec3 // the torso's last position
	comValid           bool
	// Rising.
	riseT     float64
	riseFromR geom.Mat3
	riseFromP geom.Vec3
	// Seen body parts in the world, for the cycle partsCycle-1.
	parts      [5]geom.Vec3
	partsCycle int64
}

func newRobot() *robot {
	r := &robot{dirty: true, R: geom.Identity}
	for i := range joints {
		r.q[i] = joints[i].rest
	}
	r.kin.compute(&r.q)
	r.dirty = false
	return r
}

func (r *robot) updateKin() {
	if r.dirty {
		r.kin.compute(&r.q)
		r.dirty = false
	}
}

// float places the robot hanging in the air with its camera at cam.
func (r *robot) float(cam geom.Vec3, heading float64) {
	r.updateKin()
	r.R = uprightFrame(heading)
	r.p = cam.Sub(r.R.Apply(r.kin.cam))
	r.state = bodyFloating
	r.hist = 0
	r.comValid = false
	r.gyr, r.acc = geom.Vec3{}, geom.Vec3{}
	r.contact = [2]bool{}
}

// place puts the robot upright with its torso over (x, y), facing heading
// (rad), its lower foot on the ground, or drop above it when drop is set.
func (r *robot) place(x, y, heading float64, drop bool) {
	r.updateKin()
	k := &r.kin
	// Put the lower foot (in the upright torso's frame) on the ground.
	up := uprightFrame(heading)
	sf := 0
	z0 := up.Apply(k.sole[0]).Z
	if z1 := up.Apply(k.sole[1]).Z; z1 < z0 {
		sf = 1
	}
	r.support = sf
	fw := up.Mul(k.footR[sf])
	r.footYaw = yawOf(&fw) - math.Pi/2
	r.footPos = geom.Vec3{}
	r.standPose()
	// Shift so the torso is over (x, y).
	d := geom.Vec3{X: x - r.p.X, Y: y - r.p.Y, Z: 0}
	r.footPos = r.footPos.Add(d)
	r.p = r.p.Add(d)
	r.hist = 0
	r.comValid = false
	r.phi, r.omega = 0, 0
	if drop {
		r.state = bodyDropping
		r.dropT = -1 // the placing step itself does not fall
		r.dropZ0 = 0.5 * gravity * dropTime * dropTime
		r.p.Z += r.dropZ0
		r.contact = [2]bool{}
	} else {
		r.state = bodyStanding
		r.contacts()
	}
	r.gyr, r.acc = geom.Vec3{}, geom.Vec3{}
}

// footFrame is the world orientation of a flat foot with yaw y.
func footFrame(y float64) geom.Mat3 { return geom.RotZ(y) }

// standPose sets R and p from the support foot flat on the ground.
func (r *robot) standPose() {
	fr := footFrame(r.footYaw)
	r.footPose(&fr)
}

// footPose sets R and p from the support foot's world orientation fr and
// its sole centre r.footPos.
func (r *robot) footPose(fr *geom.Mat3) {
	k := &r.kin
	sf := r.support
	ft := k.footR[sf].T()
	r.R = fr.Mul(ft)
	r.p = r.footPos.Sub(r.R.Apply(k.sole[sf]))
}

// soleCorners returns the world corners of foot i for torso pose (R, p).
func (r *robot) soleCorners(i int, R *geom.Mat3, p geom.Vec3) (c [4]geom.Vec3) {
	k := &r.kin
	fr := R.Mul(k.footR[i])
	o := p.Add(R.Apply(k.sole[i]))
	for n, d := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		c[n] = o.Add(fr.Apply(geom.Vec3{X: d[0] * soleHalfW, Y: d[1]*soleHalfL + 0, Z: 0}))
	}
	return c
}

func minMaxZ(c *[4]geom.Vec3) (lo, hi float64) {
	lo, hi = c[0].Z, c[0].Z
	for _, v := range c[1:] {
		lo, hi = math.Min(lo, v.Z), math.Max(hi, v.Z)
	}
	return lo, hi
}

// makeSupport makes foot i the support, flat on the ground where it is.
func (r *robot) makeSupport(i int) {
	r.comValid = false // the switch may jolt the pose a little
	k := &r.kin
	fr := r.R.Mul(k.footR[i])
	o := r.p.Add(r.R.Apply(k.sole[i]))
	r.support = i
	r.footYaw = yawOf(&fr) - math.Pi/2
	r.footPos = geom.Vec3{X: o.X, Y: o.Y, Z: 0}
	r.standPose()
}

// stepJoints integrates the joints for one step. wake reports that a
// non-zero velocity command was realised this step. restSteps is the
// number of still steps after which a start is delayed (0: never).
func (r *robot) stepJoints(dt float64, wake bool, restSteps int) {
	if r.asleep {
		if wake {
			// The command enables the resting body; it moves from the next
			// step on (the k+3 start of the traces).
			r.asleep, r.moved, r.still = false, false, 0
		}
		return
	}
	moved := false
	for j := range r.q {
		q, v := r.q[j], r.v[j]
		if o := r.over[j]; o != 0 {
			// The stop pushes an overshoot back: to the last angle inside
			// the range, or to the stop itself if the motor still pushes.
			r.over[j] = 0
			switch {
			case float64(o)*v <= 0:
				r.q[j] = r.qBack[j]
			case o > 0:
				r.q[j] = joints[j].max
			default:
				r.q[j] = joints[j].min
			}
			moved = true
			continue
		}
		if v == 0 {
			continue
		}
		n := q + v*dt
		if s := &joints[j]; !s.limited() {
			// ODE reports a hinge angle in (-180°, 180°].
			if n > math.Pi {
				n -= 2 * math.Pi
			} else if n <= -math.Pi {
				n += 2 * math.Pi
			}
		} else {
			switch {
			case n > s.max && q < s.max:
				r.over[j], r.qBack[j] = 1, q
			case n > s.max:
				n = s.max
			case n < s.min && q > s.min:
				r.over[j], r.qBack[j] = -1, q
			case n < s.min:
				n = s.min
			}
		}
		if n != q {
			r.q[j] = n
			moved = true
		}
	}
	if moved {
		r.dirty = true
		r.still = 0
		r.moved = true
		return
	}
	r.still++
	if restSteps > 0 && r.moved && r.still >= restSteps {
		r.asleep = true
	}
}

// stepBody moves the body for one step and updates the sensors.
func (r *robot) stepBody(dt, margin float64) {
	r.updateKin()
	switch r.state {
	case bodyFloating:
		r.gyr, r.acc = geom.Vec3{}, geom.Vec3{}
		r.hist = 0
		return
	case bodyDropping:
		if r.dropT < 0 {
			r.dropT = 0
		} else {
			r.dropT += dt
		}
		z := r.dropZ0 - 0.5*gravity*r.dropT*r.dropT
		r.standPose()
		r.gyr, r.acc = geom.Vec3{}, geom.Vec3{} // free fall
		if z > 0 {
			r.p.Z += z
			r.hist = 0
			return
		}
		// Landed: the impact shows as a spike in the next reading, as in
		// connect.txt.
		r.state = bodyStanding
		r.contacts()
		r.prevR, r.prevP, r.prevV, r.hist = r.R, r.p, geom.Vec3{X: 0, Y: 0, Z: -gravity * r.dropT}, 2
		return
	case bodyStanding:
		r.standPose()
		r.chooseSupport()
		r.contacts()
		if d, pivot, n := r.comOutside(dt); d > margin {
			r.startFall(pivot, n)
		}
	case bodyFalling:
		r.stepFall(dt)
	case bodyLying:
		r.contacts()
		r.tryGetUp()
	case bodyRising:
		r.stepRise(dt)
	}
	r.imu(dt)
}

// chooseSupport moves the weight to the other foot when it reaches below
// the ground. (In double support the support foot stays put: switching by
// the centre of mass would let small symmetric motions ratchet the robot
// round.)
func (r *robot) chooseSupport() {
	o := 1 - r.support
	c := r.soleCorners(o, &r.R, r.p)
	lo, hi := minMaxZ(&c)
	if lo < -contactTol/2 {
		// The other foot reaches below the ground: the weight moves to it,
		// unless that would sink the current support foot in turn (both
		// feet planted, neither flat: the support keeps the weight).
		R, p, sup, fy, fp := r.R, r.p, r.support, r.footYaw, r.footPos
		r.makeSupport(o)
		c := r.soleCorners(sup, &r.R, r.p)
		if lo2, _ := minMaxZ(&c); lo2 < lo {
			r.R, r.p, r.support, r.footYaw, r.footPos = R, p, sup, fy, fp
		}
		return
	}
	_ = hi
}

// contacts sets which feet touch the ground and their FRP readings.
func (r *robot) contacts() {
	var on [2]bool
	var lo [2]float64
	for i := 0; i < 2; i++ {
		r.corners[i] = r.soleCorners(i, &r.R, r.p)
		lo[i], _ = minMaxZ(&r.corners[i])
		on[i] = lo[i] < contactTol
	}
	if r.state == bodyStanding || r.state == bodyFalling {
		on[r.support] = true
	}
	r.contact = on
	r.supported = on
	for i := 0; i < 2; i++ {
		r.supported[i] = on[i] || lo[i] < supportTol
	}
	com := r.p.Add(r.R.Apply(r.kin.com))
	w := totalMass * gravity
	// Share the weight by the lever rule between the sole centres.
	share := [2]float64{}
	switch {
	case on[0] && on[1]:
		a := r.p.Add(r.R.Apply(r.kin.sole[0]))
		b := r.p.Add(r.R.Apply(r.kin.sole[1]))
		ab := geom.Vec3{X: b.X - a.X, Y: b.Y - a.Y, Z: 0}
		t := 0.5
		if l2 := ab.Dot(ab); l2 > 1e-9 {
			t = geom.Vec3{X: com.X - a.X, Y: com.Y - a.Y, Z: 0}.Dot(ab) / l2
		}
		t = math.Max(0, math.Min(1, t))
		share = [2]float64{1 - t, t}
	case on[0]:
		share[0] = 1
	case on[1]:
		share[1] = 1
	}
	if r.state == bodyLying {
		share = [2]float64{0.05, 0.05}
	}
	for i := 0; i < 2; i++ {
		if !on[i] {
			r.frpC[i], r.frpF[i] = geom.Vec3{}, geom.Vec3{}
			continue
		}
		fr := r.R.Mul(r.kin.footR[i])
		o := r.p.Add(r.R.Apply(r.kin.sole[i]))
		// Centre of pressure: the centre of mass over the sole, clamped to
		// it; the fork reports it from the foot box's centre.
		c := fr.ApplyT(com.Sub(o))
		if on[0] && on[1] {
			c.X = 0 // both feet share sideways: each presses at its middle
		}
		c.X = math.Max(-soleHalfW, math.Min(soleHalfW, c.X))
		c.Y = math.Max(-soleHalfL, math.Min(soleHalfL, c.Y))
		c.Z = -0.01
		r.frpC[i] = c
		r.frpF[i] = fr.ApplyT(geom.Vec3{X: 0, Y: 0, Z: w * share[i]})
	}
}

// polygon is supportPolygon for the current pose, from the corners
// contacts found.
func (r *robot) polygon(both bool) (pts [8][2]float64, n int) {
	var all [8][2]float64
	m := 0
	for i := 0; i < 2; i++ {
		if i != r.support && !both {
			continue
		}
		for _, v := range r.corners[i] {
			all[m] = [2]float64{v.X, v.Y}
			m++
		}
	}
	return convexHull(&all, m)
}

// supportPolygon returns the convex hull of the soles in contact, in
// counter-clockwise order.
func (r *robot) supportPolygon(R *geom.Mat3, p geom.Vec3, both bool) (pts [8][2]float64, n int) {
	var all [8][2]float64
	m := 0
	for i := 0; i < 2; i++ {
		if i != r.support && !both {
			continue
		}
		c := r.soleCorners(i, R, p)
		for _, v := range c {
			all[m] = [2]float64{v.X, v.Y}
			m++
		}
	}
	return convexHull(&all, m)
}

// convexHull is the gift-wrapping hull of the first m points.
func convexHull(pts *[8][2]float64, m int) (h [8][2]float64, n int) {
	start := 0
	for i := 1; i < m; i++ {
		if pts[i][0] < pts[start][0] || pts[i][0] == pts[start][0] && pts[i][1] < pts[start][1] {
			start = i
		}
	}
	cur := start
	for n < 8 {
		h[n] = pts[cur]
		n++
		next := (cur + 1) % m
		for i := 0; i < m; i++ {
			cr := cross2(pts[cur], pts[next], pts[i])
			if cr < 0 || cr == 0 && dist2(pts[cur], pts[i]) > dist2(pts[cur], pts[next]) {
				next = i
			}
		}
		cur = next
		if cur == start {
			break
		}
	}
	return h, n
}

func cross2(o, a, b [2]float64) float64 {
	return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
}

func dist2(a, b [2]float64) float64 { return (a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) }

// outside returns the signed distance of c from the convex polygon
// (negative inside), the nearest boundary point and the outward normal.
func outside(h *[8][2]float64, n int, c [2]float64) (d float64, near, normal [2]float64) {
	in := true
	best := math.Inf(1)
	for i := 0; i < n; i++ {
		a, b := h[i], h[(i+1)%n]
		e := [2]float64{b[0] - a[0], b[1] - a[1]}
		l2 := e[0]*e[0] + e[1]*e[1]
		if l2 < 1e-12 {
			continue
		}
		if cross2(a, b, c) < 0 {
			in = false
		}
		t := ((c[0]-a[0])*e[0] + (c[1]-a[1])*e[1]) / l2
		t = math.Max(0, math.Min(1, t))
		p := [2]float64{a[0] + t*e[0], a[1] + t*e[1]}
		if dd := math.Sqrt(dist2(p, c)); dd < best {
			l := math.Sqrt(l2)
			best, near, normal = dd, p, [2]float64{e[1] / l, -e[0] / l}
		}
	}
	if in {
		return -best, near, normal
	}
	return best, near, normal
}

// comOutside measures the zero-moment point against the support polygon:
// the centre of mass less its horizontal acceleration times h/g, the point
// the ground must push through for the body to move as it does (the linear
// inverted pendulum). A robot whose ZMP would have to leave the soles tips
// over their edge, as a rigid-footed body does in the real server; a
// robot standing still has its ZMP at its centre of mass, and a walk that
// keeps its ZMP on the support foot (a sway of a centimetre or two at a
// step a quarter-second long) does not fall even though its centre of
// mass is never above that foot. The acceleration is the torso's: a leg
// swinging under a still torso (a kick) does not topple it. It returns the
// distance outside, the nearest boundary point and the outward direction.
func (r *robot) comOutside(dt float64) (float64, geom.Vec3, geom.Vec3) {
	com := r.p.Add(r.R.Apply(r.kin.com))
	if r.comValid {
		v := r.p.Sub(r.prevCom).Scale(1 / dt)
		nv := r.comV.Scale(0.5).Add(v.Scale(0.5))
		if r.comN >= 2 {
			a := nv.Sub(r.comV).Scale(1 / dt)
			r.comA = r.comA.Scale(0.8).Add(a.Scale(0.2))
		}
		r.comV = nv
		r.comN++
	} else {
		r.comV, r.comA, r.comN = geom.Vec3{}, geom.Vec3{}, 0
	}
	r.prevCom, r.comValid = r.p, true
	h := math.Max(com.Z, 0.05)
	zmp := com.Sub(r.comA.Scale(h / gravity))
	poly, n := r.polygon(r.supported[0] && r.supported[1])
	d, near, nrm := outside(&poly, n, [2]float64{zmp.X, zmp.Y})
	if d > 0 {
		// Outward: from the polygon to the ZMP.
		nrm = [2]float64{zmp.X - near[0], zmp.Y - near[1]}
		l := math.Hypot(nrm[0], nrm[1])
		nrm = [2]float64{nrm[0] / l, nrm[1] / l}
	}
	return d, geom.Vec3{X: near[0], Y: near[1], Z: 0}, geom.Vec3{X: nrm[0], Y: nrm[1], Z: 0}
}

// startFall tips the robot over the support polygon's edge at pivot,
// towards n, as a rigid body with the centre of mass's current speed.
func (r *robot) startFall(pivot, n geom.Vec3) {
	r.state = bodyFalling
	r.comValid = false
	r.footW = footFrame(r.footYaw)
	r.pivot = pivot
	r.fallN = n
	r.axis = geom.Vec3{X: 0, Y: 0, Z: 1}.Cross(n).Unit()
	c := r.p.Add(r.R.Apply(r.kin.com)).Sub(pivot)
	l := math.Max(math.Hypot(c.Dot(n), c.Z), 0.05)
	r.omega = math.Max(0, r.comV.Dot(n)) / l
	r.phi = 0
	// The torso lies at the tilt the traces show for the direction it falls
	// in, relative to the way it faces.
	f := r.R.ApplyT(n)
	a := math.Atan2(f.X, f.Y) // 0 forward, ±π/2 sideways
	fwd, side := math.Cos(a), math.Abs(math.Sin(a))
	switch {
	case fwd >= 0:
		r.lie = fwd*fwd*lieForward + side*side*lieSide
	default:
		r.lie = fwd*fwd*lieBackward + side*side*lieSide
	}
}

// layDown tips a standing robot over towards n (horizontal, unit) from
// under its centre of mass, as the trainer's rotation asks: it falls and
// lies like a robot that fell that way.
func (r *robot) layDown(n geom.Vec3) {
	// Tipping over the feet's edge that way (toes or heels), pushed
	// hard enough to go over it.
	pts, k := r.polygon(true)
	far := math.Inf(-1)
	for _, q := range pts[:k] {
		far = max(far, q[0]*n.X+q[1]*n.Y)
	}
	var pivot geom.Vec3
	m := 0.0
	for _, q := range pts[:k] {
		if q[0]*n.X+q[1]*n.Y > far-0.005 {
			pivot, m = pivot.Add(geom.Vec3{X: q[0], Y: q[1], Z: 0}), m+1
		}
	}
	r.startFall(pivot.Scale(1/m), n)
	r.omega = layDownSpeed
}

// stepFall rotates the body about the tipping edge: θ” = g·sin θ / L, the
// centre of mass an inverted pendulum over the pivot. When the other foot
// comes down, the body pivots over it; when the centre of mass swings back
// inside, the robot rocks back onto its feet.
func (r *robot) stepFall(dt float64) {
	// The body hangs from the pivoting foot, so joints keep moving it.
	r.footPose(&r.footW)
	c := r.p.Add(r.R.Apply(r.kin.com)).Sub(r.pivot)
	cn := c.Dot(r.fallN)
	l2 := math.Max(cn*cn+c.Z*c.Z, 0.0025)
	r.omega += gravity * cn / l2 * dt
	dphi := r.omega * dt
	r.phi += dphi
	if r.phi <= 0 {
		// Rocked back: standing on the support foot again.
		r.state = bodyStanding
		r.makeSupport(r.support)
		r.omega, r.phi = 0, 0
		r.contacts()
		return
	}
	rot := geom.RotAxis(r.axis, dphi)
	r.footW = rot.Mul(r.footW)
	r.footW.Orthonormalize()
	r.footPos = r.pivot.Add(rot.Apply(r.footPos.Sub(r.pivot)))
	r.footPose(&r.footW)
	// The other foot touching down becomes the pivot.
	o := 1 - r.support
	oc := r.soleCorners(o, &r.R, r.p)
	if lo, _ := minMaxZ(&oc); lo < -1e-6 {
		best := 0
		for i := range oc {
			if oc[i].Z < oc[best].Z {
				best = i
			}
		}
		r.pivot = geom.Vec3{X: oc[best].X, Y: oc[best].Y, Z: 0}
		r.p.Z -= lo
		r.footW = r.R.Mul(r.kin.footR[o])
		r.footPos = r.p.Add(r.R.Apply(r.kin.sole[o]))
		r.support = o
	}
	cam := r.p.Add(r.R.Apply(r.kin.cam))
	if tilt := tiltOf(&r.R); tilt >= r.lie || cam.Z < 0.05 {
		if over := tilt - r.lie; over > 0 {
			// Land at the lying tilt, not past it.
			back := geom.RotAxis(r.axis, -over)
			r.R = back.Mul(r.R)
			r.p = r.pivot.Add(back.Apply(r.p.Sub(r.pivot)))
		}
		r.state = bodyLying
		r.omega = 0
	}
	r.contacts()
	if r.state == bodyFalling {
		r.contact[r.support] = true
	}
}

// tryGetUp stands the robot up when its get-up motion has brought the
// centre of mass over the feet in a crouch.
func (r *robot) tryGetUp() {
	if r.q[jRLeg+3] > getUpKnee || r.q[jLLeg+3] > getUpKnee || r.q[jRLeg+2] < getUpHip || r.q[jLLeg+2] < getUpHip {
		return
	}
	// Where the robot would be standing on its feet now.
	R, p := r.R, r.p
	sup, fy, fp := r.support, r.footYaw, r.footPos
	up := uprightFrame(yawOf(&r.R))
	fw := up.Mul(r.kin.footR[0])
	r.support = 0
	r.footYaw = yawOf(&fw) - math.Pi/2
	r.footPos = geom.Vec3{}
	r.standPose()
	d := geom.Vec3{X: p.X - r.p.X, Y: p.Y - r.p.Y, Z: 0}
	r.footPos, r.p = r.footPos.Add(d), r.p.Add(d)
	c0 := r.soleCorners(1, &r.R, r.p)
	lo, hi := minMaxZ(&c0)
	both := lo > -0.01 && hi < 0.01
	com := r.p.Add(r.R.Apply(r.kin.com))
	h, n := r.supportPolygon(&r.R, r.p, both)
	dist, _, _ := outside(&h, n, [2]float64{com.X, com.Y})
	if dist < -getUpMargin {
		r.state = bodyRising
		r.riseT = 0
		r.riseFromR, r.riseFromP = R, p
		r.R, r.p = R, p
		return
	}
	r.R, r.p, r.support, r.footYaw, r.footPos = R, p, sup, fy, fp
}

func (r *robot) stepRise(dt float64) {
	r.riseT += dt
	t := math.Min(1, r.riseT/riseTime)
	r.standPose()
	R := geom.Slerp(r.riseFromR, r.R, t)
	p := r.riseFromP.Lerp(r.p, t)
	if t >= 1 {
		r.state = bodyStanding
		r.comValid = false
		r.contacts()
		return
	}
	r.R, r.p = R, p
	r.contacts()
}

// imu derives GYR (deg/s) and ACC (m/s², specific force) in the torso frame
// from the pose history.
func (r *robot) imu(dt float64) {
	if r.hist == 0 {
		r.gyr = geom.Vec3{}
		r.acc = r.R.ApplyT(geom.Vec3{X: 0, Y: 0, Z: gravity})
		r.prevR, r.prevP, r.prevV, r.hist = r.R, r.p, geom.Vec3{}, 1
		return
	}
	rt := r.prevR.T()
	d := rt.Mul(r.R)
	r.gyr = d.RotVec().Scale(deg / dt)
	v := r.p.Sub(r.prevP).Scale(1 / dt)
	var a geom.Vec3
	if r.hist >= 2 {
		a = v.Sub(r.prevV).Scale(1 / dt)
	}
	r.acc = r.R.ApplyT(a.Add(geom.Vec3{X: 0, Y: 0, Z: gravity}))
	r.prevR, r.prevP, r.prevV = r.R, r.p, v
	if r.hist < 2 {
		r.hist++
	}
}

// camPose returns the camera's world position and orientation.
func (r *robot) camPose() (geom.Vec3, geom.Mat3) {
	return r.p.Add(r.R.Apply(r.kin.cam)), r.R.Mul(r.kin.head)
}

// world returns the world position of a point given in the torso frame.
func (r *robot) world(v geom.Vec3) geom.Vec3 { return r.p.Add(r.R.Apply(v)) }

// heading is the torso's heading (rad).
func (r *robot) heading() float64 { return yawOf(&r.R) }
