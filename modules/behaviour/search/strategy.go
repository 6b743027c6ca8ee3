package search

import (
	"math"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// TravelConfig estimates how long a robot takes to reach a point.
type TravelConfig struct {
	// Speed is the walking speed, m/s; TurnSpeed the turning speed, rad/s.
	Speed     float64 `json:"speed"`
	TurnSpeed float64 `json:"turn_speed"`
	// Search is the time spent at a search location (scan and spin),
	// added to every visit so that a segment under the robot's feet does
	// not get an unbounded utility.
	Search config.Duration `json:"search"`
}

// Time returns the estimated time for a robot at pose to go to p and
// search there (the thesis' Time(pos, center(S_j))).
func (t *TravelConfig) Time(pose hal.Pose2, p hal.Vec2) float64 {
	v := p.Sub(pose.Pos())
	d := v.Len()
	turn := 0.0
	if d > 0.3 {
		turn = math.Abs(math.Remainder(v.Angle()-float64(pose.Heading), 2*math.Pi))
	}
	return d/max(t.Speed, 1e-3) + turn/max(t.TurnSpeed, 1e-3) + t.Search.D().Seconds()
}

// Utility is a UtilityCalculator: the utility of searching segment j.
type Utility interface {
	Utility(d *Dist, g *Grid, pose hal.Pose2, j int) float64
}

// SimpleUtility is the SimpleUtilityCalculator (the thesis §4.2.2.1): the
// benefit-cost ratio P(S_j) / Time(pos, center(S_j)) (Sarmiento et al.).
type SimpleUtility struct{ Travel TravelConfig }

// Utility implements Utility.
func (u *SimpleUtility) Utility(d *Dist, g *Grid, pose hal.Pose2, j int) float64 {
	return d.P[j] / u.Travel.Time(pose, g.Centre(j))
}

// DistributedUtility is the DistributedUtilityCalculator (the thesis
// §4.2.2.2): the local utility divided by the number of robots already
// visiting the segment (1 + the teammates whose search target is in it).
type DistributedUtility struct {
	Local Utility
	// Visiting[j] is the number of teammates visiting segment j.
	Visiting [msg.MaxSegments]int
}

// Count sets Visiting from the teammates' search targets.
func (u *DistributedUtility) Count(g *Grid, mates []Mate, maxAge float64) {
	u.Visiting = [msg.MaxSegments]int{}
	for k := range mates {
		m := &mates[k]
		if !m.Searching || !m.TargetValid || m.Age.Seconds() > maxAge {
			continue
		}
		u.Visiting[g.Index(m.Target)]++
	}
}

// Utility implements Utility.
func (u *DistributedUtility) Utility(d *Dist, g *Grid, pose hal.Pose2, j int) float64 {
	return u.Local.Utility(d, g, pose, j) / float64(1+u.Visiting[j])
}

// Simple is the SimpleStrategy (the thesis §4.2.2): the segment with the
// highest utility; ties go to the lower index. It returns -1 for an empty
// grid.
func Simple(u Utility, d *Dist, g *Grid, pose hal.Pose2) int {
	best, bestU := -1, math.Inf(-1)
	for j := range d.N {
		if v := u.Utility(d, g, pose, j); v > bestU {
			best, bestU = j, v
		}
	}
	return best
}

// Points2016 are the 2016 FindBall behaviour's search points (the thesis
// table 2.1), in metres, in the order they are visited.
var Points2016 = [8]hal.Vec2{
	{X: -3, Y: 0}, {X: -2, Y: 2}, {X: 0, Y: 1}, {X: 2, Y: 2},
	{X: 3, Y: 0}, {X: 2, Y: -2}, {X: 0, Y: -1}, {X: -2, Y: -2},
}

// Nearest2016 returns the index of the 2016 point nearest to p: where the
// 2016 search starts (p is the last known ball position).
func Nearest2016(p hal.Vec2) int {
	best, bestD := 0, math.Inf(1)
	for i, q := range Points2016 {
		if d := q.Dist(p); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// Next2016 returns the point after i: the points are visited in order,
// over and over.
func Next2016(i int) int { return (i + 1) % len(Points2016) }
