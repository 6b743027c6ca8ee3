package behaviour

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func TestPathBlocker(t *testing.T) {
	target := hal.Vec2{X: 3}
	tests := []struct {
		name    string
		pts     []hal.Vec2
		want    int
		wantLat float64
	}{
		{"nobody", nil, -1, 0},
		{"on the path", []hal.Vec2{{X: 1, Y: 0.1}}, 0, 0.1},
		{"right of the path", []hal.Vec2{{X: 1.5, Y: -0.3}}, 0, -0.3},
		{"behind the robot", []hal.Vec2{{X: -0.3}}, -1, 0},
		{"beside the path, beyond the radius", []hal.Vec2{{X: 1, Y: 0.55}}, -1, 0},
		{"beyond the lookahead", []hal.Vec2{{X: 2.2}}, -1, 0},
		{"within avoid_near of the target (a ball beside a robot)", []hal.Vec2{{X: 2.6, Y: 0.2}}, -1, 0},
		{"beyond the target", []hal.Vec2{{X: 3.5}}, -1, 0},
		{"the nearer along the path of two", []hal.Vec2{{X: 1.8, Y: 0}, {X: 0.9, Y: -0.2}}, 1, -0.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i, m, lat := pathBlocker(target, target.Len(), 0.5, 0.5, tc.pts)
			if i != tc.want {
				t.Fatalf("blocker %d, want %d", i, tc.want)
			}
			if i >= 0 && (m != tc.pts[i] || math.Abs(lat-tc.wantLat) > 1e-9) {
				t.Fatalf("blocker at %v, lateral %v; want %v, %v", m, lat, tc.pts[i], tc.wantLat)
			}
		})
	}
}

func TestPassSide(t *testing.T) {
	tests := []struct {
		name           string
		lat, prev, hys float64
		want           float64
	}{
		{"left of the path: pass right", 0.1, 0, 0.15, -1},
		{"right of the path: pass left", -0.1, 0, 0.15, 1},
		{"on the path: pass right", 0, 0, 0.15, -1},
		{"keeps left with the blocker slightly left", 0.1, 1, 0.15, 1},
		{"keeps right with the blocker slightly right", -0.14, -1, 0.15, -1},
		{"flips when the blocker is well left", 0.2, 1, 0.15, -1},
		{"flips when the blocker is well right", -0.2, -1, 0.15, 1},
		{"keeps the side away from it", -0.4, 1, 0.15, 1},
	}
	for _, tc := range tests {
		if got := passSide(tc.lat, tc.prev, tc.hys); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// avoidWorld is a robot at the field origin facing +x.
func avoidWorld() *world {
	cfg := DefaultConfig()
	return &world{cfg: &cfg, pose: msg.RobotPose{Valid: true}}
}

func setObstacles(w *world, pts ...hal.Vec2) {
	w.obstacles.N = 0
	for _, p := range pts {
		w.obstacles.Add(msg.Obstacle{Pos: p, Team: 1})
	}
}

// TestAvoidHysteresis: a blocker whose position jitters across the path
// is passed on one side all along; once it lies well off the path on that
// side, the robot passes on the other.
func TestAvoidHysteresis(t *testing.T) {
	w := avoidWorld()
	target := hal.Vec2{X: 3}
	var sides []float64
	for k := range 50 {
		w.now = time.Duration(k) * 10 * time.Millisecond
		jitter := 0.08
		if k%2 == 1 {
			jitter = -jitter
		}
		setObstacles(w, hal.Vec2{X: 1.2, Y: jitter})
		wp := w.avoid(target, target.Len())
		side := math.Copysign(1, wp.Y)
		sides = append(sides, side)
		if math.Abs(wp.Y-jitter) < 0.55 {
			t.Fatalf("tick %d: waypoint %v passes the blocker at %.2f too close", k, wp, jitter)
		}
	}
	for k, s := range sides {
		if s != sides[0] {
			t.Fatalf("the side flipped at tick %d: %v", k, sides)
		}
	}
	// The blocker moves well to the chosen side: pass on the other.
	off := sides[0] * 0.3
	setObstacles(w, hal.Vec2{X: 1.2, Y: off})
	w.now += 10 * time.Millisecond
	if wp := w.avoid(target, target.Len()); math.Copysign(1, wp.Y) == sides[0] {
		t.Fatalf("blocker %.2f off the path on the chosen side; waypoint %v still passes there", off, wp)
	}
}

func TestAvoid(t *testing.T) {
	tests := []struct {
		name   string
		target hal.Vec2
		obst   []hal.Vec2
		mate   *hal.Vec2 // a teammate's reported field position
		cfg    func(*Config)
		want   func(wp hal.Vec2) bool
	}{
		{"clear path: the target", hal.Vec2{X: 3}, []hal.Vec2{{X: 1, Y: 1}}, nil, nil,
			func(wp hal.Vec2) bool { return wp == hal.Vec2{X: 3} }},
		{"opponent seen in the way: passed at the radius", hal.Vec2{X: 3}, []hal.Vec2{{X: 1, Y: 0.2}}, nil, nil,
			func(wp hal.Vec2) bool { return math.Abs(wp.X-1) < 1e-9 && math.Abs(wp.Y-(0.2-0.6)) < 1e-9 }},
		{"obstacles off: the target", hal.Vec2{X: 3}, []hal.Vec2{{X: 1, Y: 0.2}}, nil, func(c *Config) { c.Walk.AvoidObstacles = false },
			func(wp hal.Vec2) bool { return wp == hal.Vec2{X: 3} }},
		{"teammate's reported pose in the way", hal.Vec2{X: 3}, nil, &hal.Vec2{X: 1, Y: -0.1}, nil,
			func(wp hal.Vec2) bool { return math.Abs(wp.X-1) < 1e-9 && math.Abs(wp.Y-0.5) < 1e-9 }},
		{"ball beside a robot: not avoided near the target", hal.Vec2{X: 1.5}, []hal.Vec2{{X: 1.3, Y: 0.15}}, nil, nil,
			func(wp hal.Vec2) bool { return wp == hal.Vec2{X: 1.5} }},
		{"target within avoid_near", hal.Vec2{X: 0.4}, []hal.Vec2{{X: 0.2}}, nil, nil,
			func(wp hal.Vec2) bool { return wp == hal.Vec2{X: 0.4} }},
		{"the natural side crowded: the other side", hal.Vec2{X: 3}, []hal.Vec2{{X: 1, Y: 0.1}, {X: 1, Y: -0.8}}, nil, nil,
			func(wp hal.Vec2) bool { return math.Abs(wp.Y-0.7) < 1e-9 }},
		{"no radius: the target", hal.Vec2{X: 3}, []hal.Vec2{{X: 1}}, nil, func(c *Config) { c.Walk.AvoidRadius = 0 },
			func(wp hal.Vec2) bool { return wp == hal.Vec2{X: 3} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := avoidWorld()
			if tc.cfg != nil {
				tc.cfg(w.cfg)
			}
			w.now = time.Second
			setObstacles(w, tc.obst...)
			if tc.mate != nil {
				w.mates.N = 1
				w.mates.Mates[0] = msg.Teammate{Received: w.now, Msg: msg.TeamMessage{Player: 3, PoseValid: true,
					Pose: hal.Pose2{X: hal.Metres(tc.mate.X), Y: hal.Metres(tc.mate.Y)}}}
			}
			if wp := w.avoid(tc.target, tc.target.Len()); !tc.want(wp) {
				t.Fatalf("waypoint %v", wp)
			}
		})
	}
}
