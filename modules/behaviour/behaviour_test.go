package behaviour_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/modules/behaviour/behaviourtest"
	"github.com/robotd/robotd/modules/behaviour/search"
	"github.com/robotd/robotd/msg"
)

const tick = 10 * time.Millisecond

func harness(t *testing.T, cfg behaviour.Config) *behaviourtest.Harness {
	t.Helper()
	h, err := behaviourtest.New(behaviour.New(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// world is a playing robot that sees landmarks: a valid pose at p.
func world(p hal.Pose2, g msg.GameControl) behaviourtest.Inputs {
	v := hal.Vision{N: 1, Fresh: true}
	return behaviourtest.Inputs{
		Body:   &msg.BodyState{Connected: true},
		Motion: &msg.MotionState{Active: msg.MotionStand, Settled: true, Interruptible: true},
		Pose:   &msg.RobotPose{Valid: true, Pose: p, Confidence: 0.9},
		Ball:   &msg.Ball{Lost: true},
		Game:   &g,
		Vision: &v,
	}
}

func playing() msg.GameControl {
	return msg.GameControl{Source: msg.GameSourceSimulator, State: msg.StatePlaying}
}

func ballAt(rel hal.Vec2, p hal.Pose2) *msg.Ball {
	f := p.Global(rel)
	return &msg.Ball{Valid: true, Seen: true, Pos: rel, FieldValid: true, FieldPos: f, Source: msg.SourceFilter}
}

func path(o *behaviourtest.Outputs) string { return strings.Join(o.Path.Nodes[:o.Path.N], "/") }

// TestDecisions checks what a robot does in each situation: the motion it
// asks for, its head, and the active path.
func TestDecisions(t *testing.T) {
	at := hal.Pose2{X: -1, Y: 0}
	tests := []struct {
		name   string
		player int
		cfg    func(*behaviour.Config)
		in     func(*behaviourtest.Inputs)
		kind   msg.MotionKind
		head   msg.HeadMode
		path   string // the path starts with it
	}{
		{"disconnected: relax", 2, nil, func(in *behaviourtest.Inputs) { in.Disconnected = true },
			msg.MotionRelax, msg.HeadHold, "behaviour/disconnected/relax"},
		{"fallen: get up", 2, nil, func(in *behaviourtest.Inputs) { in.Body.Fall = msg.FallenBack },
			msg.MotionGetUp, msg.HeadHold, "behaviour/fallen/get up"},
		{"fallen without get-up: relax", 2, func(c *behaviour.Config) { c.GetUp = false }, func(in *behaviourtest.Inputs) { in.Body.Fall = msg.FallenLeft },
			msg.MotionRelax, msg.HeadHold, "behaviour/fallen/get up"},
		{"penalised: stand still", 2, nil, func(in *behaviourtest.Inputs) {
			in.Game.Penalised = true
			in.Ball = ballAt(hal.Vec2{X: 1}, at)
		}, msg.MotionStand, msg.HeadHold, "behaviour/penalised/stand still"},
		{"stopped by the referee (HSL): stand, watch the ball", 2, nil, func(in *behaviourtest.Inputs) {
			in.Game.Stopped = true
			in.Ball = ballAt(hal.Vec2{X: 1}, at)
		}, msg.MotionStand, msg.HeadLookAt, "behaviour/stopped/stand"},
		{"no game state: stand still", 2, nil, func(in *behaviourtest.Inputs) { in.Game = &msg.GameControl{} },
			msg.MotionStand, msg.HeadHold, "behaviour/no game state/stand still"},
		{"no game state, configured to play: search", 2, func(c *behaviour.Config) { c.PlayWithoutGameState = true },
			func(in *behaviourtest.Inputs) { in.Game = &msg.GameControl{} },
			msg.MotionWalk, msg.HeadScan, "behaviour/play/striker/attack/find ball/walk there"},
		{"set: stand, watch the ball", 2, nil, func(in *behaviourtest.Inputs) {
			in.Game.State = msg.StateSet
			in.Ball = ballAt(hal.Vec2{X: 1, Y: 1}, at)
		}, msg.MotionStand, msg.HeadLookAt, "behaviour/waiting/stand"},
		{"ready: walk to the kick-off position", 3, nil, func(in *behaviourtest.Inputs) { in.Game.State = msg.StateReady },
			msg.MotionWalk, msg.HeadScan, "behaviour/ready/walk to kick-off position"},
		{"striker, ball far: approach", 2, nil, func(in *behaviourtest.Inputs) { in.Ball = ballAt(hal.Vec2{X: 2, Y: 0.5}, at) },
			msg.MotionWalk, msg.HeadLookAt, "behaviour/play/striker/attack/go to ball/approach"},
		{"striker, ball in reach: kick", 2, nil, func(in *behaviourtest.Inputs) { in.Ball = ballAt(hal.Vec2{X: 0.16, Y: 0.05}, at) },
			msg.MotionKick, msg.HeadLookAt, "behaviour/play/striker/attack/kick ball/kick"},
		{"striker, kicking disabled: approach", 2, func(c *behaviour.Config) { c.Kick.Enabled = false },
			func(in *behaviourtest.Inputs) { in.Ball = ballAt(hal.Vec2{X: 0.16, Y: 0.05}, at) },
			msg.MotionWalk, msg.HeadLookAt, "behaviour/play/striker/attack/go to ball/approach"},
		{"striker, ball unknown: find it", 2, nil, nil,
			msg.MotionWalk, msg.HeadScan, "behaviour/play/striker/attack/find ball/walk there"},
		{"defender, ball known: block", 3, nil, func(in *behaviourtest.Inputs) { in.Ball = ballAt(hal.Vec2{X: 2}, at) },
			msg.MotionWalk, msg.HeadLookAt, "behaviour/play/defender/defend/block/between ball and goal"},
		{"supporter, ball known: beside it", 4, nil, func(in *behaviourtest.Inputs) { in.Ball = ballAt(hal.Vec2{X: 2}, at) },
			msg.MotionWalk, msg.HeadLookAt, "behaviour/play/supporter/support/support/beside the ball"},
		{"goalie, ball far: guard the goal", 1, nil, func(in *behaviourtest.Inputs) { in.Ball = ballAt(hal.Vec2{X: 2}, at) },
			msg.MotionWalk, msg.HeadLookAt, "behaviour/play/goalie/keep goal/guard/guard goal"},
		{"no pose: stand and look around", 2, nil, func(in *behaviourtest.Inputs) { in.Pose = &msg.RobotPose{} },
			msg.MotionStand, msg.HeadScan, "behaviour/play/striker/attack/find ball/walk there"},
		{"camera never saw anything: stand still", 2, nil, func(in *behaviourtest.Inputs) { in.Vision = &hal.Vision{} },
			msg.MotionStand, msg.HeadHold, "behaviour/blind/stand still"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := behaviour.DefaultConfig()
			cfg.Player = tc.player
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			h := harness(t, cfg)
			in := world(at, playing())
			if tc.in != nil {
				tc.in(&in)
			}
			out := h.Tick(tick, in)
			if out.Request.Kind != tc.kind || out.Request.Head.Mode != tc.head || !strings.HasPrefix(path(out), tc.path) {
				t.Errorf("%v with head %v at %q; want %v with head %v at %q", out.Request.Kind, out.Request.Head.Mode, path(out), tc.kind, tc.head, tc.path)
			}
		})
	}
}

// TestPenalisedStandsStill: whatever the ball does, a penalised robot asks
// for the stand with its head still, every tick, and plays again when the
// penalty ends.
func TestPenalisedStandsStill(t *testing.T) {
	cfg := behaviour.DefaultConfig()
	cfg.Player = 2
	h := harness(t, cfg)
	at := hal.Pose2{X: -1}
	g := playing()
	g.Penalised = true
	for i := range 300 {
		in := world(at, g)
		in.Ball = ballAt(hal.Vec2{X: 0.2 + float64(i)/100, Y: math.Sin(float64(i) / 30)}, at)
		out := h.Tick(tick, in)
		if out.Request.Kind != msg.MotionStand || out.Request.Head.Mode != msg.HeadHold {
			t.Fatalf("tick %d: %v / head %v while penalised", i, out.Request.Kind, out.Request.Head.Mode)
		}
	}
	in := world(at, playing())
	in.Ball = ballAt(hal.Vec2{X: 2}, at)
	if out := h.Tick(tick, in); out.Request.Kind != msg.MotionWalk {
		t.Fatalf("after the penalty: %v", out.Request.Kind)
	}
}

// TestSearchStrategies: the search entry and the search targets follow
// the configured strategy.
func TestSearchStrategies(t *testing.T) {
	tests := []struct {
		strategy string
		at       hal.Pose2
		lastBall *hal.Vec2
		want     hal.Vec2
	}{
		// 2017: uniform distribution, the best P/time is the nearest segment
		// centre (the thesis' 3 × 3 grid).
		{"2017", hal.Pose2{X: -3.25, Y: 3, Heading: -math.Pi / 2}, nil, hal.Vec2{X: -3, Y: 2}},
		// 2016: the point nearest to the last ball position first.
		{"2016", hal.Pose2{X: -3.25, Y: 3}, &hal.Vec2{X: 2.5, Y: -2.2}, hal.Vec2{X: 2, Y: -2}},
		// 2016 without a ball ever seen: the point nearest to the centre
		// spot, the same for the whole team.
		{"2016", hal.Pose2{X: -3.25, Y: 3}, nil, hal.Vec2{X: 0, Y: 1}},
		{"2016", hal.Pose2{X: 2, Y: -3}, nil, hal.Vec2{X: 0, Y: 1}},
		// The sweep: nothing seen yet, the viewpoint nearest the robot.
		{"sweep", hal.Pose2{X: -3.25, Y: 3, Heading: -math.Pi / 2}, nil, hal.Vec2{X: -3, Y: 2.5}},
	}
	for _, tc := range tests {
		cfg := behaviour.DefaultConfig()
		cfg.Player = 2
		cfg.Search.Strategy = tc.strategy
		h := harness(t, cfg)
		if tc.lastBall != nil {
			in := world(tc.at, playing())
			in.Ball = &msg.Ball{Valid: true, Seen: true, FieldValid: true, FieldPos: *tc.lastBall}
			h.Tick(tick, in)
		}
		out := h.Tick(tick, world(tc.at, playing()))
		s := out.Search
		if int(s.Strategy) != map[string]int{"2016": 2016, "2017": 2017, "sweep": 2026}[tc.strategy] || !s.Active || s.NTargets < 1 {
			t.Fatalf("%s: search %+v", tc.strategy, s)
		}
		if got := s.Targets[0].Pos; math.Hypot(got.X-tc.want.X, got.Y-tc.want.Y) > 1e-9 {
			t.Errorf("%s from %v (last ball %v): target %v, want %v", tc.strategy, tc.at, tc.lastBall, got, tc.want)
		}
		cols, rows, cx, cy := 3, 3, 3.0, 2.0
		if tc.strategy == "sweep" {
			cols, rows, cx, cy = 4, 4, 2.25, 1.5
		}
		if s.Cols != cols || s.Rows != rows || s.CellX != cx || s.CellY != cy || s.Origin != (hal.Vec2{X: -4.5, Y: -3}) {
			t.Errorf("%s: grid %d × %d of %.1f × %.1f m from %v", tc.strategy, s.Cols, s.Rows, s.CellX, s.CellY, s.Origin)
		}
		var sum float32
		for _, p := range s.Probabilities[:cols*rows] {
			sum += p
		}
		if math.Abs(float64(sum)-1) > 1e-5 {
			t.Errorf("%s: probabilities sum to %v", tc.strategy, sum)
		}
	}
}

// TestFindBallCycle: walk there, scan, spin, next target; the robot's own
// segment loses probability meanwhile.
func TestFindBallCycle(t *testing.T) {
	cfg := behaviour.DefaultConfig()
	cfg.Player = 2
	h := harness(t, cfg)
	var phases []msg.SearchPhase
	var targets []hal.Vec2
	for i := range 3000 {
		at := hal.Pose2{X: -3.6, Y: 2.6}
		if i >= 100 {
			at = hal.Pose2{X: -3, Y: 2} // arrived at the first target
		}
		in := world(at, playing())
		// While spinning, motion reports turning odometry.
		in.Motion = &msg.MotionState{Active: msg.MotionWalk, Odometry: hal.Pose2{Heading: 0.006}}
		out := h.Tick(tick, in)
		if len(phases) == 0 || phases[len(phases)-1] != out.Search.Phase {
			phases = append(phases, out.Search.Phase)
			targets = append(targets, out.Search.Targets[0].Pos)
		}
	}
	want := []msg.SearchPhase{msg.SearchWalk, msg.SearchScan, msg.SearchSpin, msg.SearchWalk}
	if len(phases) < 4 || !slices.Equal(phases[:4], want) {
		t.Fatalf("phases %v, want %v first", phases, want)
	}
	if targets[3] == targets[0] {
		t.Errorf("the next location is the one just searched: %v", targets[3])
	}
	out := h.Tick(tick, world(hal.Pose2{X: -3, Y: 2}, playing()))
	if mine := out.Search.Local[0+2*0+6]; mine > 0.05 { // segment (-3, 2): row 2, column 0
		t.Errorf("the searched segment keeps %.3f", mine)
	}
}

// TestTeamMessage: once per epoch, at its slot, behaviour writes a team
// message with its state, its local distribution and its role records.
func TestTeamMessage(t *testing.T) {
	cfg := behaviour.DefaultConfig()
	cfg.Player = 3
	cfg.Roles.Period = config.Duration(2 * time.Second)
	h := harness(t, cfg)
	at := hal.Pose2{X: 1, Y: -1, Heading: 0.5}
	var sends []time.Duration
	var last msg.TeamOut
	for range 1000 {
		in := world(at, playing())
		in.Ball = ballAt(hal.Vec2{X: 1}, at)
		out := h.Tick(tick, in)
		if out.TeamOutFresh {
			sends = append(sends, h.Now())
			last = out.TeamOut
		}
	}
	// Alone, it is the striker once it allocates (epoch 4).
	if len(sends) != 5 {
		t.Fatalf("sent at %v, want once per 2 s epoch in 10 s", sends)
	}
	for i := 1; i < len(sends); i++ {
		if d := sends[i] - sends[i-1]; d != 2*time.Second {
			t.Errorf("sends %v apart", d)
		}
	}
	m := last.Msg
	if last.Seq != 5 || m.Player != 3 || !m.PoseValid || m.Pose != at || !m.BallValid || m.NSegments != 9 || m.NRecords != 2 ||
		m.Role != msg.RoleStriker || m.Records[0].Player != 3 || m.Records[0].Epoch != 4 || m.Records[1].Epoch != 3 {
		t.Errorf("team message %+v", last)
	}
	var mx float32
	for _, p := range m.Distribution[:9] {
		mx = max(mx, p)
	}
	if mx != 1 {
		t.Errorf("distribution relative to its largest cell: max %v", mx)
	}
}

// TestTeammatesTargets: a teammate's search target is shown and counted;
// its distribution joins the team's.
func TestTeammatesTargets(t *testing.T) {
	cfg := behaviour.DefaultConfig()
	cfg.Player = 2
	h := harness(t, cfg)
	at := hal.Pose2{X: -3.25, Y: 3, Heading: -math.Pi / 2}
	mates := msg.Teammates{N: 1}
	mm := &mates.Mates[0]
	mm.Count = 1
	mm.Msg = msg.TeamMessage{Player: 4, PoseValid: true, Pose: hal.Pose2{X: -3, Y: 1.5}, Searching: true, TargetValid: true,
		Target: hal.Vec2{X: -3, Y: 2}, NSegments: 9}
	for i := range 9 {
		mm.Msg.Distribution[i] = 1
	}
	mm.Msg.Distribution[6] = 0 // it has searched (-3, 2)
	in := world(at, playing())
	in.Mates = &mates
	out := h.Tick(tick, in)
	s := out.Search
	if s.NTargets != 2 || s.Targets[1].Player != 4 || s.Targets[1].Pos != (hal.Vec2{X: -3, Y: 2}) {
		t.Fatalf("targets %+v", s.Targets[:s.NTargets])
	}
	// Its segment is the nearest, but the teammate goes there and has
	// searched it: this robot goes elsewhere.
	if s.Targets[0].Pos == (hal.Vec2{X: -3, Y: 2}) {
		t.Errorf("went for the teammate's target")
	}
	if s.Probabilities[6] > 0.06 {
		t.Errorf("team probability of the segment the teammate searched: %v", s.Probabilities[6])
	}
}

func TestConfig(t *testing.T) {
	bad := []func(*behaviour.Config){
		func(c *behaviour.Config) { c.Search.Strategy = "2018" },
		func(c *behaviour.Config) { c.Search.ReliableDistance = 0.5 },
		func(c *behaviour.Config) { c.Player = 30 },
		func(c *behaviour.Config) { c.Walk.Speed = 0 },
		func(c *behaviour.Config) { c.Roles.Priority = []string{"keeper"} },
	}
	for i, f := range bad {
		c := behaviour.DefaultConfig()
		f(&c)
		if _, err := behaviourtest.New(behaviour.New(c)); err == nil {
			t.Errorf("bad config %d wired", i)
		}
	}
	g, _ := search.NewGrid(fieldSPL(), behaviour.DefaultConfig().Search.ReliableDistance-behaviour.DefaultConfig().Search.Margin)
	if g.N() != 9 {
		t.Errorf("default grid %d segments, want the thesis' 9", g.N())
	}
}

// TestNoAllocs: a tick in steady state allocates nothing (searching,
// with teammates, while sending team messages).
func TestNoAllocs(t *testing.T) {
	cfg := behaviour.DefaultConfig()
	cfg.Player = 2
	cfg.Roles.Period = config.Duration(time.Second)
	h := harness(t, cfg)
	at := hal.Pose2{X: -2, Y: 1}
	mates := msg.Teammates{N: 2}
	for i := range 2 {
		mates.Mates[i].Msg = msg.TeamMessage{Player: uint8(3 + i), PoseValid: true, NSegments: 9, Searching: true, TargetValid: true, NRecords: 2}
	}
	in := world(at, playing())
	in.Mates = &mates
	k := uint32(0)
	seen, lost := ballAt(hal.Vec2{X: 1.5, Y: 0.3}, at), &msg.Ball{Lost: true}
	step := func() {
		k++
		for i := range 2 {
			mates.Mates[i].Count = k / 50
			mates.Mates[i].Received = h.Now()
			mates.Mates[i].Msg.Records[0] = msg.RoleRecord{Player: uint8(3 + i), Epoch: uint32(h.Now() / time.Second)}
		}
		if k%200 < 100 {
			in.Ball = seen
		} else {
			in.Ball = lost
		}
		h.Tick(tick, in)
	}
	for range 500 {
		step()
	}
	if a := testing.AllocsPerRun(1000, step); a != 0 {
		t.Errorf("%v allocations per tick", a)
	}

}

// TestKickOffRoleFromGameController: in the tick the GameController lets
// the team play, the robot takes its kick-off role among the players it
// lets play (no team message heard), allocated.
func TestKickOffRoleFromGameController(t *testing.T) {
	gc := func(pen uint32, self uint8, ppt uint8) msg.GameControl {
		return msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying, Goalkeeper: 1,
			PenalisedMates: pen, Penalised: pen&(1<<self) != 0, PlayersPerTeam: ppt}
	}
	set := func(ps ...uint8) uint32 {
		var b uint32
		for _, p := range ps {
			b |= 1 << p
		}
		return b
	}
	tests := []struct {
		name        string
		self        uint8
		before      msg.GameControl
		after       msg.GameControl
		want        msg.Role
		beforeState msg.GameStateKind
	}{
		{"players 2-4 released together, player 3", 3, gc(set(2, 3, 4), 3, 3), gc(0, 3, 3), msg.RoleDefender, msg.StatePlaying},
		{"players 3 and 4 released, 2 still penalised: player 3 strikes", 3, gc(set(2, 3, 4), 3, 3), gc(set(2), 3, 3), msg.RoleStriker, msg.StatePlaying},
		{"SET to PLAYING, 5 players, 2 penalised: player 4 defends", 4, gc(set(2), 4, 5), gc(set(2), 4, 5), msg.RoleDefender, msg.StateSet},
		{"SET to PLAYING, 5 players: player 2 strikes", 2, gc(0, 2, 5), gc(0, 2, 5), msg.RoleStriker, msg.StateSet},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := behaviour.DefaultConfig()
			cfg.Player = int(tc.self)
			h := harness(t, cfg)
			at := hal.Pose2{X: -2}
			before := tc.before
			before.State = tc.beforeState
			for range 50 {
				out := h.Tick(tick, world(at, before))
				if out.Role.Allocated {
					t.Fatalf("allocated before play: %+v", out.Role)
				}
			}
			out := h.Tick(tick, world(at, tc.after))
			if out.Role.Role != tc.want || !out.Role.Allocated {
				t.Errorf("first tick of play: %v allocated %v, want %v allocated", out.Role.Role, out.Role.Allocated, tc.want)
			}
		})
	}
}
