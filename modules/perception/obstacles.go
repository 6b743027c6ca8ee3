package perception

import (
	"math"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// ObstacleConfig configures the obstacle model: the robots seen lately
// (hal.ObjRobot observations, from either camera or a simulator's
// perceptor), tracked in the robot's frame through its odometry.
type ObstacleConfig struct {
	// MaxDistance ignores robots seen farther away.
	MaxDistance hal.Metres `json:"max_distance"`
	// MergeDistance: an observation within this of a tracked obstacle
	// updates it; farther ones start a new obstacle.
	MergeDistance hal.Metres `json:"merge_distance"`
	// Smoothing is the weight of a new observation in an obstacle's
	// position (1: the latest observation alone).
	Smoothing float64 `json:"smoothing"`
	// MinHits is how many observations an obstacle needs before it is
	// published.
	MinHits int `json:"min_hits"`
	// KeepFor is how long an obstacle stays unseen before it is dropped.
	KeepFor config.Duration `json:"keep_for"`
}

// DefaultObstacleConfig returns the obstacle model's defaults.
func DefaultObstacleConfig() ObstacleConfig {
	return ObstacleConfig{MaxDistance: 3, MergeDistance: 0.5, Smoothing: 0.5, MinHits: 2,
		KeepFor: config.Duration(3 * time.Second)}
}

// obstacleRules are the obstacle model's rules, keyed within the
// perception section.
func obstacleRules() config.Rules {
	return config.Rules{
		"obstacles.max_distance":   config.Between(0, 100, true, false).Doc("m", "ignores robots seen farther away than this"),
		"obstacles.merge_distance": config.Between(0, 10, true, false).Doc("m", "an observed robot within this of a tracked obstacle updates it; a farther one starts a new obstacle"),
		"obstacles.smoothing":      config.Between(0, 1, true, true).Doc("fraction", "the weight of a new observation in an obstacle's position (1: the latest observation alone)"),
		"obstacles.min_hits":       config.Int(1, 1000).Doc("", "how many observations an obstacle needs before it is published"),
		"obstacles.keep_for":       config.Durations(time.Millisecond, time.Minute).Doc("", "how long an obstacle may stay unseen before it is dropped"),
	}
}

// obstacleTrack is one tracked obstacle.
type obstacleTrack struct {
	pos      hal.Vec2
	team, id uint8
	lastSeen time.Duration
	hits     uint16
	seen     bool
}

// obstacleTracker is the obstacle model: at most msg.MaxObstacles tracks,
// fixed storage, no allocation.
type obstacleTracker struct {
	cfg ObstacleConfig
	n   int
	tr  [msg.MaxObstacles]obstacleTrack
}

// predict moves every obstacle into the robot's new frame after its motion
// odo (in the previous frame); seen flags are cleared for the new tick.
func (o *obstacleTracker) predict(odo hal.Pose2) {
	s, c := math.Sincos(-float64(odo.Heading))
	for i := range o.n {
		t := &o.tr[i]
		t.seen = false
		if odo != (hal.Pose2{}) {
			t.pos = t.pos.Sub(odo.Pos()).RotateSC(s, c)
		}
	}
}

// forget drops every obstacle.
func (o *obstacleTracker) forget() { o.n = 0 }

// update merges this frame's robot observations: each into the nearest
// track within MergeDistance, or a new track; when every track is taken,
// the one unseen longest gives way.
func (o *obstacleTracker) update(v *hal.Vision, now time.Duration) {
	n := min(max(v.N, 0), len(v.Obs))
	for k := range n {
		ob := &v.Obs[k]
		if ob.Kind != hal.ObjRobot || !finite(ob.Pos.X, ob.Pos.Y) {
			continue
		}
		if ob.Pos.Len() > float64(o.cfg.MaxDistance) {
			continue
		}
		best, bestD := -1, float64(o.cfg.MergeDistance)
		for i := range o.n {
			if d := o.tr[i].pos.Dist(ob.Pos); d <= bestD {
				best, bestD = i, d
			}
		}
		if best < 0 {
			best = o.slot()
			o.tr[best] = obstacleTrack{pos: ob.Pos, team: hal.TeamUnknown}
		} else {
			t := &o.tr[best]
			a := o.cfg.Smoothing
			t.pos = t.pos.Add(ob.Pos.Sub(t.pos).Scale(a))
		}
		t := &o.tr[best]
		if ob.Team != hal.TeamUnknown {
			t.team = ob.Team
		}
		if ob.ID != 0 {
			t.id = ob.ID
		}
		t.lastSeen, t.seen = now, true
		if t.hits < math.MaxUint16 {
			t.hits++
		}
	}
}

// slot returns the index of a free track, or of the one unseen longest.
func (o *obstacleTracker) slot() int {
	if o.n < len(o.tr) {
		o.n++
		return o.n - 1
	}
	old := 0
	for i := range o.n {
		if o.tr[i].lastSeen < o.tr[old].lastSeen {
			old = i
		}
	}
	return old
}

// age drops the obstacles unseen for longer than KeepFor.
func (o *obstacleTracker) age(now time.Duration) {
	keep := o.cfg.KeepFor.D()
	j := 0
	for i := range o.n {
		if now-o.tr[i].lastSeen > keep {
			continue
		}
		o.tr[j] = o.tr[i]
		j++
	}
	o.n = j
}

// publish writes the obstacles seen MinHits times or more, nearest first.
func (o *obstacleTracker) publish(now time.Duration, out *msg.Obstacles) {
	out.N = 0
	for i := range o.n {
		t := &o.tr[i]
		if int(t.hits) < o.cfg.MinHits {
			continue
		}
		ob := msg.Obstacle{Pos: t.pos, Team: t.team, ID: t.id, Seen: t.seen, SinceSeen: now - t.lastSeen, Hits: t.hits}
		// Insertion by distance.
		j := out.N
		d := ob.Pos.Len()
		for j > 0 && out.Obs[j-1].Pos.Len() > d {
			out.Obs[j] = out.Obs[j-1]
			j--
		}
		out.Obs[j] = ob
		out.N++
	}
}
