package perception

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func robotObs(x, y float64, team, id uint8) hal.Observation {
	return hal.Observation{Kind: hal.ObjRobot, Pos: hal.Vec2{X: x, Y: y}, Team: team, ID: id}
}

func TestObstacleTracker(t *testing.T) {
	type frame struct {
		at  time.Duration
		odo hal.Pose2 // the robot's motion before this frame
		obs []hal.Observation
	}
	type want struct {
		pos       hal.Vec2
		team, id  uint8
		hits      uint16
		seen      bool
		sinceSeen time.Duration
		tolerance float64
	}
	cfg := DefaultObstacleConfig()
	cfg.MinHits = 1
	tests := []struct {
		name   string
		cfg    func(*ObstacleConfig)
		frames []frame
		now    time.Duration // of the last publish (the last frame's if 0)
		want   []want
	}{
		{name: "one robot, merged and smoothed",
			frames: []frame{
				{at: 0, obs: []hal.Observation{robotObs(1, 0, 1, 0)}},
				{at: 30 * time.Millisecond, obs: []hal.Observation{robotObs(1.2, 0, hal.TeamUnknown, 0)}},
			},
			want: []want{{pos: hal.Vec2{X: 1.1}, team: 1, hits: 2, seen: true}}},
		{name: "beyond merge distance: two obstacles, nearest first",
			frames: []frame{{at: 0, obs: []hal.Observation{robotObs(2, 0, 0, 3), robotObs(1, 0.6, 1, 0)}}},
			want:   []want{{pos: hal.Vec2{X: 1, Y: 0.6}, team: 1, hits: 1, seen: true}, {pos: hal.Vec2{X: 2}, team: 0, id: 3, hits: 1, seen: true}}},
		{name: "walking forward 0.5 m moves it nearer",
			frames: []frame{
				{at: 0, obs: []hal.Observation{robotObs(2, 0.5, 1, 0)}},
				{at: time.Second, odo: hal.Pose2{X: 0.5}},
			},
			want: []want{{pos: hal.Vec2{X: 1.5, Y: 0.5}, team: 1, hits: 1, sinceSeen: time.Second}}},
		{name: "turning left 90° puts it on the right",
			frames: []frame{
				{at: 0, obs: []hal.Observation{robotObs(1, 0, 1, 0)}},
				{at: 100 * time.Millisecond, odo: hal.Pose2{Heading: math.Pi / 2}},
			},
			want: []want{{pos: hal.Vec2{Y: -1}, team: 1, hits: 1, sinceSeen: 100 * time.Millisecond}}},
		{name: "dropped after keep_for unseen",
			frames: []frame{
				{at: 0, obs: []hal.Observation{robotObs(1, 0, 1, 0)}},
				{at: 3*time.Second + time.Millisecond},
			}},
		{name: "kept until keep_for",
			frames: []frame{
				{at: 0, obs: []hal.Observation{robotObs(1, 0, 1, 0)}},
				{at: 3 * time.Second},
			},
			want: []want{{pos: hal.Vec2{X: 1}, team: 1, hits: 1, sinceSeen: 3 * time.Second}}},
		{name: "farther than max_distance, NaN, other kinds: ignored",
			frames: []frame{{at: 0, obs: []hal.Observation{robotObs(3.5, 0, 1, 0), robotObs(math.NaN(), 0, 1, 0),
				robotObs(math.Inf(1), 0, 1, 0), {Kind: hal.ObjBall, Pos: hal.Vec2{X: 1}}}}}},
		{name: "published after min_hits",
			cfg: func(c *ObstacleConfig) { c.MinHits = 3 },
			frames: []frame{
				{at: 0, obs: []hal.Observation{robotObs(1, 1, 1, 0), robotObs(2, -1, 1, 0)}},
				{at: 30 * time.Millisecond, obs: []hal.Observation{robotObs(1, 1, 1, 0), robotObs(2, -1, 1, 0)}},
				{at: 60 * time.Millisecond, obs: []hal.Observation{robotObs(1, 1, 1, 0)}},
			},
			want: []want{{pos: hal.Vec2{X: 1, Y: 1}, team: 1, hits: 3, seen: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			if tc.cfg != nil {
				tc.cfg(&c)
			}
			o := obstacleTracker{cfg: c}
			var out msg.Obstacles
			for _, f := range tc.frames {
				o.predict(f.odo)
				var v hal.Vision
				for _, ob := range f.obs {
					v.Add(ob)
				}
				o.update(&v, f.at)
				o.age(f.at)
				o.publish(f.at, &out)
			}
			if out.N != len(tc.want) {
				t.Fatalf("%d obstacles %v, want %d", out.N, out.Obs[:out.N], len(tc.want))
			}
			for i, w := range tc.want {
				g := out.Obs[i]
				tol := max(w.tolerance, 1e-9)
				if g.Pos.Dist(w.pos) > tol || g.Team != w.team || g.ID != w.id || g.Hits != w.hits || g.Seen != w.seen || g.SinceSeen != w.sinceSeen {
					t.Errorf("obstacle %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestObstacleTrackerFull: with every track taken, a new robot replaces
// the one unseen longest.
func TestObstacleTrackerFull(t *testing.T) {
	c := DefaultObstacleConfig()
	c.MinHits = 1
	o := obstacleTracker{cfg: c}
	for i := range msg.MaxObstacles {
		var v hal.Vision
		s, c := math.Sincos(float64(i) * math.Pi / 4)
		v.Add(robotObs(2*c, 2*s, 1, uint8(i+1)))
		o.update(&v, time.Duration(i)*time.Millisecond)
	}
	var v hal.Vision
	v.Add(robotObs(0.5, 0, 1, 99))
	o.update(&v, time.Second)
	var out msg.Obstacles
	o.publish(time.Second, &out)
	if out.N != msg.MaxObstacles {
		t.Fatalf("%d obstacles, want %d", out.N, msg.MaxObstacles)
	}
	ids := map[uint8]bool{}
	for _, ob := range out.Obs[:out.N] {
		ids[ob.ID] = true
	}
	if ids[1] || !ids[99] || !ids[2] {
		t.Fatalf("ids %v: want 1 (the oldest) replaced by 99", ids)
	}
}

// TestObstaclesInTheWorld walks the synthetic world's circle past two
// standing robots: every published obstacle is within 0.35 m of where a
// robot is relative to the walker, both are published at some time, and
// once they are gone they are dropped after keep_for.
func TestObstaclesInTheWorld(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Localisation.Particles = 10 // the obstacles do not need a pose
	h := newHarness(t, cfg)
	w := newWorld(5, onCircle())
	w.robots = []hal.Vec2{{X: 0, Y: 2.1}, {X: 1.3, Y: -1.3}}
	var in input
	published := map[int]bool{}
	for range 3000 { // 30 s
		w.step(&in)
		h.step(t, &in)
		for _, ob := range h.obst.Obs[:h.obst.N] {
			best, bestD := -1, math.Inf(1)
			for i, r := range w.robots {
				if d := w.pose.Local(r).Dist(ob.Pos); d < bestD {
					best, bestD = i, d
				}
			}
			if bestD > 0.35 {
				t.Fatalf("at %v an obstacle at %v, %.2f m from the nearest robot", h.now(), ob.Pos, bestD)
			}
			if ob.Team != 1 {
				t.Fatalf("obstacle team %d, want 1", ob.Team)
			}
			published[best] = true
		}
	}
	if !published[0] || !published[1] {
		t.Fatalf("published robots %v, want both", published)
	}
	w.robots = nil
	for range 310 {
		w.step(&in)
		h.step(t, &in)
	}
	if h.obst.N != 0 {
		t.Fatalf("%d obstacles 3.1 s after the robots left", h.obst.N)
	}
}
