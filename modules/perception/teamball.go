package perception

import (
	"math"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// maxFuse is the number of reports the fusion considers: this robot's own
// and every teammate's.
const maxFuse = msg.MaxTeamBallReports + 1

// fuseItem is one usable report, predicted to now.
type fuseItem struct {
	player   uint8
	pos, vel hal.Vec2
	cov      [2][2]float64
}

// FuseTeamBall fuses this robot's ball (own, used when hasOwn) with its
// teammates' reports into the team ball at time now. Reports older than
// cfg.MaxAge or from robots less confident of their pose than
// cfg.MinPoseConfidence are left out; the others are predicted to now with
// their velocity and rolling friction, and their covariance grows with
// age. The largest set of reports consistent (Mahalanobis gate cfg.Gate)
// with one of them is fused by inverse-covariance weighting; reports that
// disagree with the majority (a teammate that sees a false ball, or is
// mislocalised) are left out. It does not allocate.
func FuseTeamBall(own msg.TeamBallReport, hasOwn bool, reports *msg.TeamBallReports, now time.Duration, cfg TeamBallConfig) msg.TeamBall {
	var items [maxFuse]fuseItem
	n := 0
	add := func(r *msg.TeamBallReport) {
		age := r.Age
		if now > r.Received {
			age += now - r.Received
		}
		if age < 0 || age > cfg.MaxAge.D() || r.PoseConfidence < cfg.MinPoseConfidence ||
			!finite(r.Pos.X, r.Pos.Y, r.Vel.X, r.Vel.Y) {
			return
		}
		t := age.Seconds()
		decay, g := 1.0, t
		if k := cfg.Friction; k > 1e-9 {
			decay = math.Exp(-k * t)
			g = (1 - decay) / k
		}
		it := &items[n]
		it.player = r.Player
		it.pos = hal.Vec2{X: r.Pos.X + g*r.Vel.X, Y: r.Pos.Y + g*r.Vel.Y}
		it.vel = hal.Vec2{X: decay * r.Vel.X, Y: decay * r.Vel.Y}
		extra := float64(cfg.MinNoise)*float64(cfg.MinNoise) + (cfg.AgeNoise*t)*(cfg.AgeNoise*t)
		it.cov = [2][2]float64{{r.Cov[0][0] + extra, r.Cov[0][1]}, {r.Cov[1][0], r.Cov[1][1] + extra}}
		if !finite(it.cov[0][0], it.cov[0][1], it.cov[1][1]) {
			return
		}
		n++
	}
	if hasOwn {
		add(&own)
	}
	if reports != nil {
		for i := range min(max(reports.N, 0), msg.MaxTeamBallReports) {
			add(&reports.Reports[i])
		}
	}
	out := msg.TeamBall{Usable: n}
	if n == 0 {
		return out
	}
	// Consistency: for each report, the set of reports within the gate.
	var consistent [maxFuse][maxFuse]bool
	bestI, bestCount, bestTrace := -1, 0, math.Inf(1)
	for i := range n {
		count := 0
		for j := range n {
			ok := i == j
			if !ok {
				s := [2][2]float64{
					{items[i].cov[0][0] + items[j].cov[0][0], items[i].cov[0][1] + items[j].cov[0][1]},
					{items[i].cov[1][0] + items[j].cov[1][0], items[i].cov[1][1] + items[j].cov[1][1]},
				}
				if inv, invOK := inv2(s); invOK {
					d := hal.Vec2{X: items[j].pos.X - items[i].pos.X, Y: items[j].pos.Y - items[i].pos.Y}
					ok = mahalanobis2(d, inv) <= cfg.Gate
				}
			}
			consistent[i][j] = ok
			if ok {
				count++
			}
		}
		tr := items[i].cov[0][0] + items[i].cov[1][1]
		if count > bestCount || (count == bestCount && tr < bestTrace) {
			bestI, bestCount, bestTrace = i, count, tr
		}
	}
	// Information-weighted fusion of the best set.
	var info [2][2]float64
	var eta, vsum hal.Vec2
	var wsum float64
	for j := range n {
		if !consistent[bestI][j] {
			continue
		}
		inv, ok := inv2(items[j].cov)
		if !ok {
			continue
		}
		for a := range 2 {
			for b := range 2 {
				info[a][b] += inv[a][b]
			}
		}
		p := items[j].pos
		eta.X += inv[0][0]*p.X + inv[0][1]*p.Y
		eta.Y += inv[1][0]*p.X + inv[1][1]*p.Y
		w := 1 / (items[j].cov[0][0] + items[j].cov[1][1])
		vsum.X += w * items[j].vel.X
		vsum.Y += w * items[j].vel.Y
		wsum += w
		out.Count++
		if items[j].player < 32 {
			out.Contributors |= 1 << items[j].player
		}
	}
	cov, ok := inv2(info)
	if !ok || out.Count == 0 {
		return msg.TeamBall{Usable: n}
	}
	out.Valid = true
	out.Cov = cov
	out.Pos = hal.Vec2{X: cov[0][0]*eta.X + cov[0][1]*eta.Y, Y: cov[1][0]*eta.X + cov[1][1]*eta.Y}
	out.Vel = hal.Vec2{X: vsum.X / wsum, Y: vsum.Y / wsum}
	return out
}
