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

// mate is a teammate's message: player p at pos, searching for target
// when it is not nil.
func mate(p uint8, pos hal.Vec2, target *hal.Vec2) msg.Teammate {
	m := msg.TeamMessage{Player: p, PoseValid: true, Pose: hal.Pose2{X: hal.Metres(pos.X), Y: hal.Metres(pos.Y)}}
	if target != nil {
		m.Searching, m.TargetValid, m.Target = true, true, *target
	}
	return msg.Teammate{Received: time.Second, Msg: m}
}

// TestKeepClear: a search viewpoint keeps keep_clear (0.6 m) from where a
// teammate stands and from the target of a teammate with the better
// claim; the robot (player 2) is at the origin.
func TestKeepClear(t *testing.T) {
	at := func(x, y float64) *hal.Vec2 { return &hal.Vec2{X: x, Y: y} }
	tests := []struct {
		name   string
		target hal.Vec2
		mates  []msg.Teammate
		cfg    func(*Config)
		want   hal.Vec2
	}{
		{"nobody near: the target", hal.Vec2{X: 2}, []msg.Teammate{mate(3, hal.Vec2{X: -2}, at(-2, 1))}, nil, hal.Vec2{X: 2}},
		{"a teammate stands on it: moved towards the robot", hal.Vec2{X: 2}, []msg.Teammate{mate(3, hal.Vec2{X: 2}, nil)}, nil, hal.Vec2{X: 1.4}},
		{"a teammate stands beside it: moved away from it", hal.Vec2{X: 2}, []msg.Teammate{mate(3, hal.Vec2{X: 2, Y: 0.3}, nil)}, nil, hal.Vec2{X: 2, Y: -0.3}},
		{"a nearer teammate heads there: moved", hal.Vec2{X: 2}, []msg.Teammate{mate(3, hal.Vec2{X: 2, Y: 1}, at(2, 0))}, nil, hal.Vec2{X: 1.4}},
		{"a farther teammate heads there: kept", hal.Vec2{X: 2}, []msg.Teammate{mate(3, hal.Vec2{X: 2, Y: 3}, at(2, 0))}, nil, hal.Vec2{X: 2}},
		{"as near, a lower player number: moved", hal.Vec2{X: 2}, []msg.Teammate{mate(1, hal.Vec2{X: 4}, at(2, 0))}, nil, hal.Vec2{X: 1.4}},
		{"as near, a higher player number: kept", hal.Vec2{X: 2}, []msg.Teammate{mate(4, hal.Vec2{X: 4}, at(2, 0))}, nil, hal.Vec2{X: 2}},
		{"an old message: kept", hal.Vec2{X: 2}, []msg.Teammate{func() msg.Teammate {
			m := mate(3, hal.Vec2{X: 2}, nil)
			m.Received = -time.Minute
			return m
		}()}, nil, hal.Vec2{X: 2}},
		{"keep_clear 0: kept", hal.Vec2{X: 2}, []msg.Teammate{mate(3, hal.Vec2{X: 2}, nil)}, func(c *Config) { c.Walk.KeepClear = 0 }, hal.Vec2{X: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := avoidWorld()
			w.cfg.Player = 2
			if tc.cfg != nil {
				tc.cfg(w.cfg)
			}
			w.now = time.Second
			w.mates.N = copy(w.mates.Mates[:], tc.mates)
			got := w.keepClear(tc.target)
			if got.Dist(tc.want) > 1e-9 {
				t.Fatalf("viewpoint %v, want %v", got, tc.want)
			}
		})
	}
}

// TestKeepClearOfTwo: a viewpoint between two teammates standing 0.8 m
// apart ends at least keep_clear from both.
func TestKeepClearOfTwo(t *testing.T) {
	w := avoidWorld()
	w.cfg.Player = 2
	w.now = time.Second
	a, b := hal.Vec2{X: 2, Y: 0.4}, hal.Vec2{X: 2, Y: -0.4}
	w.mates.N = copy(w.mates.Mates[:], []msg.Teammate{mate(3, a, nil), mate(4, b, nil)})
	got := w.keepClear(hal.Vec2{X: 2})
	if got.Dist(a) < 0.6-1e-9 || got.Dist(b) < 0.6-1e-9 {
		t.Fatalf("viewpoint %v: %.2f m from one teammate, %.2f m from the other; want at least 0.6", got, got.Dist(a), got.Dist(b))
	}
}

// TestGiveWay: a walk towards a teammate nearer than walk.personal loses
// the part towards it and keeps the rest; one beyond it, or a walk away,
// is unchanged.
func TestGiveWay(t *testing.T) {
	tests := []struct {
		name        string
		mate        hal.Vec2
		fwd, left   float64
		wantFwd     float64
		wantLeftMin float64 // the sideways speed kept, at least
	}{
		{"teammate ahead, walking ahead: stops", hal.Vec2{X: 0.3}, 0.25, 0, 0, 0},
		{"teammate ahead, walking ahead and left: only left", hal.Vec2{X: 0.3}, 0.2, 0.05, 0, 0.05},
		{"teammate behind, walking ahead: unchanged", hal.Vec2{X: -0.3}, 0.25, 0, 0.25, 0},
		{"teammate ahead beyond personal: unchanged", hal.Vec2{X: 0.6}, 0.25, 0, 0.25, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := avoidWorld()
			w.now = time.Second
			w.mates.N = 1
			w.mates.Mates[0] = mate(3, tc.mate, nil)
			w.req = msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: hal.MetresPerSec(tc.fwd), Left: hal.MetresPerSec(tc.left), Turn: 0.3}}
			w.giveWay()
			v := w.req.Walk
			if math.Abs(float64(v.Forward)-tc.wantFwd) > 1e-9 || float64(v.Left) < tc.wantLeftMin-1e-9 || v.Turn != 0.3 {
				t.Fatalf("walk %+v, want forward %v, left at least %v, the turn kept", v, tc.wantFwd, tc.wantLeftMin)
			}
		})
	}
}

// TestMatePos: a searching teammate is taken to have walked on towards
// its target at walk.speed (0.25 m/s) for its message's age, never past
// the target; one that does not search stays where it said.
func TestMatePos(t *testing.T) {
	target := hal.Vec2{X: 2}
	tests := []struct {
		name   string
		target *hal.Vec2
		age    time.Duration
		want   hal.Vec2
	}{
		{"fresh", &target, 0, hal.Vec2{}},
		{"2 s old", &target, 2 * time.Second, hal.Vec2{X: 0.5}},
		{"10 s old: at its target", &target, 10 * time.Second, target},
		{"not searching", nil, 2 * time.Second, hal.Vec2{}},
	}
	for _, tc := range tests {
		w := avoidWorld()
		w.now = 20 * time.Second
		m := mate(3, hal.Vec2{}, tc.target)
		m.Received = w.now - tc.age
		if got := w.matePos(&m); got.Dist(tc.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestGiveWayToSeenRobots: while searching, a robot perception sees
// 0.3 m ahead is not walked into; while not searching (a ball to
// contest) it is left to the path's avoidance.
func TestGiveWayToSeenRobots(t *testing.T) {
	for _, searching := range []bool{true, false} {
		w := avoidWorld()
		w.now = time.Second
		w.searching = searching
		setObstacles(w, hal.Vec2{X: 0.3})
		w.req = msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: 0.25}}
		w.giveWay()
		want := 0.25
		if searching {
			want = 0
		}
		if got := float64(w.req.Walk.Forward); math.Abs(got-want) > 1e-9 {
			t.Errorf("searching %v: forward %v, want %v", searching, got, want)
		}
	}
}
