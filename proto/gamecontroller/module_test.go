package gamecontroller_test

import (
	"net"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
	"github.com/robotd/robotd/proto/gamecontroller/gamecontrollertest"
)

type rig struct {
	b    *blackboard.Board
	m    *gamecontroller.Module
	hgs  *blackboard.Writer[hal.GameState]
	pose *blackboard.Writer[msg.RobotPose]
	ball *blackboard.Writer[msg.Ball]
	body *blackboard.Writer[msg.BodyState]
	out  *blackboard.Reader[msg.GameControl]
	seq  uint64
}

func newRig(t *testing.T, src gamecontroller.Source, withHAL bool) *rig {
	t.Helper()
	cfg := gamecontroller.DefaultModuleConfig()
	cfg.Team, cfg.Player = 17, 3
	r := &rig{b: blackboard.New(), m: gamecontroller.NewModule(cfg, src, nil)}
	var err error
	if withHAL {
		r.hgs, _ = blackboard.Write(r.b, "hal", msg.GameStateKey)
	}
	r.pose, _ = blackboard.Write(r.b, "perception", msg.RobotPoseKey)
	r.ball, _ = blackboard.Write(r.b, "perception", msg.BallKey)
	r.body, _ = blackboard.Write(r.b, "perception", msg.BodyStateKey)
	if err = r.m.Wire(r.b); err != nil {
		t.Fatal(err)
	}
	r.out, _ = blackboard.Read(r.b, "probe", msg.GameControlKey)
	if err := r.b.Validate(); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) tick(now time.Duration, set func()) msg.GameControl {
	r.seq++
	r.b.BeginTick(r.seq, now)
	if set != nil {
		set()
	}
	if err := r.m.Tick(hal.Tick{Seq: r.seq, Time: now, Connected: true}); err != nil {
		panic(err)
	}
	g, _ := r.out.Get()
	return g
}

func packet(state gamecontroller.State, penalty gamecontroller.Penalty) gamecontroller.Data {
	d := gamecontroller.Data{Version: 18, State: state, Teams: [2]gamecontroller.TeamInfo{{TeamNumber: 17, MessageBudget: 900}, {TeamNumber: 4}}}
	d.Teams[0].Players[2].Penalty = penalty
	return d
}

// TestModuleSources: GameController packets win; when they stop, the
// simulator's play mode takes over; without either, nothing is known.
func TestModuleSources(t *testing.T) {
	src := &gamecontrollertest.Source{}
	r := newRig(t, src, true)
	gc := &net.UDPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 3838}
	simSet := func() { r.hgs.Set(hal.GameState{Phase: hal.PhaseSet}) }
	steps := []struct {
		name    string
		at      time.Duration
		deliver *gamecontroller.Data
		source  msg.GameSource
		state   msg.GameStateKind
		pen     bool
	}{
		{"simulator before any packet", 0, nil, msg.GameSourceSimulator, msg.StateSet, false},
		{"a GameController packet", time.Second, ptr(packet(gamecontroller.StatePlaying, 0)), msg.GameSourceGameController, msg.StatePlaying, false},
		{"penalised", 2 * time.Second, ptr(packet(gamecontroller.StatePlaying, gamecontroller.PenaltyPlayerPushing)), msg.GameSourceGameController, msg.StatePlaying, true},
		{"GameController still counts", 6 * time.Second, nil, msg.GameSourceGameController, msg.StatePlaying, true},
		{"GameController gone: the simulator", 8 * time.Second, nil, msg.GameSourceSimulator, msg.StateSet, false},
		{"back", 9 * time.Second, ptr(packet(gamecontroller.StateReady, 0)), msg.GameSourceGameController, msg.StateReady, false},
	}
	for _, s := range steps {
		if s.deliver != nil {
			src.Deliver(*s.deliver, gc)
		}
		g := r.tick(s.at, simSet)
		if g.Source != s.source || g.State != s.state || g.Penalised != s.pen || g.TwoSources {
			t.Errorf("%s: %v %v penalised %v (two sources %v), want %v %v %v", s.name, g.Source, g.State, g.Penalised, g.TwoSources, s.source, s.state, s.pen)
		}
		if g.Source == msg.GameSourceGameController && (!g.BudgetKnown || g.MessageBudget != 900) {
			t.Errorf("%s: budget %v %d", s.name, g.BudgetKnown, g.MessageBudget)
		}
	}
	// Without a GameController and without a backend game state: none.
	r2 := newRig(t, nil, false)
	if g := r2.tick(0, nil); g.Source != msg.GameSourceNone {
		t.Errorf("no source: %v", g.Source)
	}
}

// TestModuleTwoSources: packets from a second GameController raise the
// warning, which stays up while they keep coming and clears after the
// hold.
func TestModuleTwoSources(t *testing.T) {
	src := &gamecontrollertest.Source{}
	r := newRig(t, src, false)
	a := &net.UDPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 3838}
	b := &net.UDPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 3838}
	p := packet(gamecontroller.StatePlaying, 0)
	steps := []struct {
		at   time.Duration
		from *net.UDPAddr
		two  bool
	}{
		{0, a, false},
		{500 * time.Millisecond, a, false},
		{time.Second, b, true},
		{1500 * time.Millisecond, a, true},
		{2 * time.Second, a, true},
		{11 * time.Second, a, true},  // within 10 s of the last switch
		{12 * time.Second, a, false}, // cleared
	}
	for _, s := range steps {
		src.Deliver(p, s.from)
		if g := r.tick(s.at, nil); g.TwoSources != s.two {
			t.Errorf("at %v: two sources %v, want %v", s.at, g.TwoSources, s.two)
		}
	}
}

func TestModuleReturnAndNoAllocs(t *testing.T) {
	src := &gamecontrollertest.Source{}
	r := newRig(t, src, true)
	src.Deliver(packet(gamecontroller.StatePlaying, 0), &net.UDPAddr{IP: net.IPv4(10, 0, 0, 1)})
	r.tick(time.Second, func() {
		r.pose.Set(msg.RobotPose{Valid: true, Pose: hal.Pose2{X: 1.5, Y: -2, Heading: 0.5}})
		r.ball.Set(msg.Ball{Valid: true, Pos: hal.Vec2{X: 0.4, Y: 0.1}, SinceSeen: 1500 * time.Millisecond})
		r.body.Set(msg.BodyState{Fall: msg.FallenBack})
	})
	ret := r.m.Return()
	if !ret.Fallen || ret.Pose != [3]float32{1500, -2000, 0.5} || ret.BallAge != 1.5 || ret.Ball != [2]float32{400, 100} {
		t.Errorf("return %+v", ret)
	}
	if _, err := gamecontroller.AppendReturn(nil, &gamecontroller.Return{PlayerNum: 3, TeamNum: 17, Pose: ret.Pose, BallAge: ret.BallAge}); err != nil {
		t.Error(err)
	}
	now := time.Second
	allocs := testing.AllocsPerRun(200, func() {
		now += 10 * time.Millisecond
		r.tick(now, nil)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per tick", allocs)
	}
}

func ptr[T any](v T) *T { return &v }
