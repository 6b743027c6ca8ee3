package perception

import (
	"math"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// ballFilter is a Kalman filter of the ball in the robot frame: state
// (x, y, vx, vy), constant velocity with exponential rolling friction,
// predicted through the robot's own motion (odometry), with a Mahalanobis
// gate on observations and re-initialisation after persistent, mutually
// consistent disagreement.
type ballFilter struct {
	cfg BallConfig
	// odoTrans and odoRot are the relative odometry noise (see
	// LocalisationConfig).
	odoTrans, odoRot float64

	valid bool
	x     [4]float64
	p     [4][4]float64

	seen     bool
	lastSeen time.Duration
	// rejects counts consecutive rejected observations that agree with each
	// other; lastReject is the latest, in the current robot frame.
	rejects    int
	lastReject hal.Vec2
}

// velVar0 is the velocity variance of a newly initialised ball, (m/s)².
const velVar0 = 1.0

// maxPosVar bounds the position variance of a long unseen ball, m².
const maxPosVar = 100.0

// predict advances the ball by dt seconds and moves it into the robot frame
// after the robot's motion odo (in the previous robot frame).
func (f *ballFilter) predict(dt float64, odo hal.Pose2) {
	f.seen = false
	if !f.valid {
		return
	}
	if dt > 0 {
		k := f.cfg.Friction
		decay, g := 1.0, dt
		if k > 1e-9 {
			decay = math.Exp(-k * dt)
			g = (1 - decay) / k
		}
		f.x[0] += g * f.x[2]
		f.x[1] += g * f.x[3]
		f.x[2] *= decay
		f.x[3] *= decay
		// P = F P Fᵀ with F = [I gI; 0 decay·I], per axis.
		var fm [4][4]float64
		fm[0][0], fm[1][1], fm[0][2], fm[1][3], fm[2][2], fm[3][3] = 1, 1, g, g, decay, decay
		f.p = mul4T(mul4(fm, f.p), fm)
		q := f.cfg.AccelNoise * f.cfg.AccelNoise
		for a := range 2 {
			f.p[a][a] += q * dt * dt * dt / 3
			f.p[a][a+2] += q * dt * dt / 2
			f.p[a+2][a] += q * dt * dt / 2
			f.p[a+2][a+2] += q * dt
		}
	}
	if odo != (hal.Pose2{}) {
		s, c := math.Sincos(-float64(odo.Heading))
		p := hal.Vec2{X: f.x[0], Y: f.x[1]}.Sub(odo.Pos()).RotateSC(s, c)
		v := hal.Vec2{X: f.x[2], Y: f.x[3]}.RotateSC(s, c)
		f.x = [4]float64{p.X, p.Y, v.X, v.Y}
		var j [4][4]float64
		j[0][0], j[0][1], j[1][0], j[1][1] = c, -s, s, c
		j[2][2], j[2][3], j[3][2], j[3][3] = c, -s, s, c
		f.p = mul4T(mul4(j, f.p), j)
		d := odo.Pos().Len()
		r := p.Len()
		n := f.odoTrans*d + f.odoRot*math.Abs(float64(odo.Heading))*r
		f.p[0][0] += n * n
		f.p[1][1] += n * n
		if f.rejects > 0 {
			f.lastReject = f.lastReject.Sub(odo.Pos()).RotateSC(s, c)
		}
	}
	f.p[0][0] = math.Min(f.p[0][0], maxPosVar)
	f.p[1][1] = math.Min(f.p[1][1], maxPosVar)
}

// obsCov is the covariance of a ball observation at z.
func (f *ballFilter) obsCov(z hal.Vec2) [2][2]float64 {
	d := z.Len()
	sr := f.cfg.DistanceNoise*d + float64(f.cfg.MinNoise)
	st := float64(f.cfg.BearingNoise)*d + float64(f.cfg.MinNoise)
	return polarCov(z, sr, st)
}

// lost reports whether the ball has been unseen for longer than LostAfter.
func (f *ballFilter) lost(now time.Duration) bool {
	return !f.valid || now-f.lastSeen > f.cfg.LostAfter.D()
}

// update takes this tick's ball observations.
func (f *ballFilter) update(v *hal.Vision, now time.Duration) {
	best, bestM2, bestD := -1, math.Inf(1), math.Inf(1)
	closest := -1
	var bestCov [2][2]float64
	lost := f.lost(now)
	for i := range min(v.N, hal.MaxObservations) {
		o := &v.Obs[i]
		if o.Kind != hal.ObjBall || !finite(o.Pos.X, o.Pos.Y) {
			continue
		}
		d := o.Pos.Len()
		if f.cfg.MaxDistance > 0 && d > float64(f.cfg.MaxDistance) {
			continue
		}
		if d < bestD {
			bestD, closest = d, i
		}
		if lost {
			continue
		}
		r := f.obsCov(o.Pos)
		sinv, ok := inv2([2][2]float64{{f.p[0][0] + r[0][0], f.p[0][1] + r[0][1]}, {f.p[1][0] + r[1][0], f.p[1][1] + r[1][1]}})
		if !ok {
			continue
		}
		m2 := mahalanobis2(hal.Vec2{X: o.Pos.X - f.x[0], Y: o.Pos.Y - f.x[1]}, sinv)
		if m2 < bestM2 {
			best, bestM2, bestCov = i, m2, r
		}
	}
	if closest < 0 {
		return
	}
	if lost || best < 0 {
		f.reset(v.Obs[closest].Pos, now)
		return
	}
	z := v.Obs[best].Pos
	if bestM2 > f.cfg.Gate {
		if f.rejects > 0 && z.Dist(f.lastReject) <= float64(f.cfg.ReinitDistance) {
			f.rejects++
		} else {
			f.rejects = 1
		}
		f.lastReject = z
		if f.rejects >= f.cfg.ReinitAfter {
			f.reset(z, now)
		}
		return
	}
	f.rejects = 0
	// Kalman update with H = [I 0].
	s := [2][2]float64{{f.p[0][0] + bestCov[0][0], f.p[0][1] + bestCov[0][1]}, {f.p[1][0] + bestCov[1][0], f.p[1][1] + bestCov[1][1]}}
	sinv, ok := inv2(s)
	if !ok {
		return
	}
	var k [4][2]float64
	for i := range 4 {
		for j := range 2 {
			k[i][j] = f.p[i][0]*sinv[0][j] + f.p[i][1]*sinv[1][j]
		}
	}
	nu := [2]float64{z.X - f.x[0], z.Y - f.x[1]}
	for i := range 4 {
		f.x[i] += k[i][0]*nu[0] + k[i][1]*nu[1]
	}
	// P -= K·H·P, then symmetrised.
	var np [4][4]float64
	for i := range 4 {
		for j := range 4 {
			np[i][j] = f.p[i][j] - (k[i][0]*f.p[0][j] + k[i][1]*f.p[1][j])
		}
	}
	for i := range 4 {
		for j := i + 1; j < 4; j++ {
			m := (np[i][j] + np[j][i]) / 2
			np[i][j], np[j][i] = m, m
		}
	}
	f.p = np
	f.seen, f.lastSeen = true, now
}

// reset starts the filter at the observation z, at rest.
func (f *ballFilter) reset(z hal.Vec2, now time.Duration) {
	r := f.obsCov(z)
	f.x = [4]float64{z.X, z.Y, 0, 0}
	f.p = [4][4]float64{}
	f.p[0][0], f.p[0][1], f.p[1][0], f.p[1][1] = r[0][0], r[0][1], r[1][0], r[1][1]
	f.p[2][2], f.p[3][3] = velVar0, velVar0
	f.valid, f.seen, f.lastSeen, f.rejects = true, true, now, 0
}

// forget drops the ball: it is unknown from now on.
func (f *ballFilter) forget() {
	f.valid, f.seen, f.rejects = false, false, 0
}

// state returns the ball relative to the robot; start is the module's first
// tick time (for SinceSeen of a ball never seen).
func (f *ballFilter) state(now, start time.Duration) msg.Ball {
	b := msg.Ball{Valid: f.valid, Seen: f.seen, Lost: f.lost(now)}
	if !f.valid {
		b.SinceSeen = now - start
		return b
	}
	b.Source = msg.SourceFilter
	b.SinceSeen = now - f.lastSeen
	b.Pos = hal.Vec2{X: f.x[0], Y: f.x[1]}
	b.Vel = hal.Vec2{X: f.x[2], Y: f.x[3]}
	b.Cov = msg.Cov2{{f.p[0][0], f.p[0][1]}, {f.p[1][0], f.p[1][1]}}
	return b
}

func mul4(a, b [4][4]float64) [4][4]float64 {
	var out [4][4]float64
	for i := range 4 {
		for j := range 4 {
			out[i][j] = a[i][0]*b[0][j] + a[i][1]*b[1][j] + a[i][2]*b[2][j] + a[i][3]*b[3][j]
		}
	}
	return out
}

// mul4T returns a·bᵀ.
func mul4T(a, b [4][4]float64) [4][4]float64 {
	var out [4][4]float64
	for i := range 4 {
		for j := range 4 {
			out[i][j] = a[i][0]*b[j][0] + a[i][1]*b[j][1] + a[i][2]*b[j][2] + a[i][3]*b[j][3]
		}
	}
	return out
}
