//go:build !ode

// The kinematic world: perception and behaviour scenarios (the motion
// scenarios, motion_test.go, run in the physics mode, with -tags ode).

package scenarios

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
	"github.com/robotd/robotd/proto/gamecontroller/gamecontrollertest"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/teamcomm"
)

// teamProbe records, in a robot's goroutine, its role, whether it sees the
// ball and how far the ball truly is, every tick.
type teamProbe struct {
	role  *blackboard.Reader[msg.RoleState]
	ball  *blackboard.Reader[msg.Ball]
	truth *blackboard.Reader[hal.GroundTruth]
	body  *blackboard.Reader[msg.BodyState]
	game  *blackboard.Reader[hal.GameState]

	mu       sync.Mutex
	start    time.Duration // the robot's tick time at PlayOn; ticks before it are not kept
	started  bool
	roles    map[int64]msg.Role      // by game-clock cycle, which the robots share
	ticks    map[int64]time.Duration // tick time by game-clock cycle
	gameAt   int64                   // the game-clock cycle of the first tick after start
	found    time.Duration           // time since start when it first saw the ball within 300 mm
	hasFound bool
	falls    int
	fallen   bool
	state    msg.RoleState

	rs msg.RoleState
	b  msg.Ball
	gt hal.GroundTruth
	bs msg.BodyState
	gs hal.GameState
}

func newTeamProbe() *teamProbe {
	return &teamProbe{roles: map[int64]msg.Role{}, ticks: map[int64]time.Duration{}}
}

func (p *teamProbe) Name() string { return "probe" }
func (p *teamProbe) Wire(b *blackboard.Board) (err error) {
	if p.role, err = blackboard.Read(b, p.Name(), msg.RoleKey); err != nil {
		return err
	}
	if p.ball, err = blackboard.Read(b, p.Name(), msg.BallKey); err != nil {
		return err
	}
	if p.body, err = blackboard.Read(b, p.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	if p.truth, err = blackboard.Read(b, p.Name(), msg.GroundTruthKey); err != nil {
		return err
	}
	p.game, err = blackboard.Read(b, p.Name(), msg.GameStateKey)
	return err
}

// debugRoles prints every role change (with -v).
var debugRoles = false

// foundBall is the thesis' criterion: the robot sees the ball and is
// within 300 mm of it.
const foundBall = 0.3

func (p *teamProbe) Tick(t hal.Tick) error {
	p.role.Load(&p.rs)
	p.ball.Load(&p.b)
	p.truth.Load(&p.gt)
	p.body.Load(&p.bs)
	p.game.Load(&p.gs)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rs.Role != p.state.Role && testing.Verbose() && p.started && debugRoles {
		fmt.Printf("t=%6.2f role %v -> %v at (%.2f,%.2f) ball (%.2f,%.2f) cost %.1f epoch %d active %d\n", (t.Time - p.start).Seconds(), p.state.Role, p.rs.Role, p.gt.Pose.X, p.gt.Pose.Y, p.gt.Ball.X, p.gt.Ball.Y, p.rs.Cost, p.rs.Epoch, p.rs.Active)
	}
	p.state = p.rs
	if p.started && t.Time >= p.start {
		// The game clock is the server's, the same for all robots (a real
		// server's runs from its start, not from kick-off).
		k := int64(math.Round(float64(p.gs.GameTime) / float64(10*time.Millisecond)))
		if len(p.roles) == 0 {
			p.gameAt = k
		}
		p.roles[k] = p.rs.Role
		p.ticks[k] = t.Time
	}
	if p.bs.Fall != msg.Upright && !p.fallen {
		p.falls++
	}
	p.fallen = p.bs.Fall != msg.Upright
	if p.gt.Valid && p.gt.BallValid && p.b.Seen && !p.hasFound && p.started && t.Time >= p.start {
		if d := math.Hypot(p.gt.Ball.X-float64(p.gt.Pose.X), p.gt.Ball.Y-float64(p.gt.Pose.Y)); d <= foundBall {
			p.found, p.hasFound = t.Time-p.start, true
		}
	}
	return nil
}

// checkClock fails unless the robots ticked every game-clock cycle in
// [from, to) that they all ticked at the same tick time: the role epochs,
// team messages and allocation's switches are on that clock.
func (tr *teamRun) checkClock(t *testing.T, from, to int64) {
	t.Helper()
	bad, n := 0, 0
	for k := from; k < to; k++ {
		var first time.Duration
		all, apart := true, false
		for i, p := range tr.probes {
			p.mu.Lock()
			tk, ok := p.ticks[k]
			p.mu.Unlock()
			if !ok {
				all = false
				break
			}
			if i == 0 {
				first = tk
			} else if tk != first {
				if bad < 3 {
					t.Errorf("game-clock cycle %d: robot %d ticked at %v, robot 0 at %v", k, i, tk, first)
				}
				apart = true
			}
		}
		if all {
			n++
		}
		if apart {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cycles with the robots on different clocks", bad, n)
	}
}

// teamRun is three robots of one team on the embedded simulator (or
// ROBOTD_SIMSPARK's server), talking over an in-process bus.
type teamRun struct {
	w      *simrun.World
	bus    *teamcomm.Bus
	robots []*simrun.Robot
	probes []*teamProbe
	ball   hal.Vec2 // where play places the ball
}

type teamOptions struct {
	strategy string
	loss     float64
	seed     uint64
	players  []int
	beams    []sim.Beam
	ball     hal.Vec2
}

// thesisStart is the thesis' table 5.1: robots 2, 3, 4 start on the side
// lines (facing into the field).
var thesisStart = []sim.Beam{{X: -3.25, Y: 3, Deg: -90}, {X: -2, Y: -3, Deg: 90}, {X: -1.75, Y: 3, Deg: -90}}

func startTeam(t *testing.T, o teamOptions) (*teamRun, func()) {
	t.Helper()
	sc := simserver.DefaultConfig()
	sc.Sync, sc.Seed = true, o.seed
	// Where a real server's ball is before kick-off is its own business;
	// play places it (PlaceBall) on either server.
	sc.BallStart = [2]float64{o.ball.X, o.ball.Y}
	w, err := simrun.Start(context.Background(), simrun.Options{Server: &sc})
	if err != nil {
		t.Fatal(err)
	}
	bc := teamcomm.DefaultBusConfig()
	bc.Loss, bc.Seed = o.loss, o.seed
	bc.Jitter = config.Duration(20 * time.Millisecond)
	bus, err := teamcomm.NewBus(bc)
	if err != nil {
		t.Fatal(err)
	}
	tr := &teamRun{w: w, bus: bus, ball: o.ball}
	stop := func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}
	for i, p := range o.players {
		cfg := robot.DefaultConfig()
		robot.Identify(&cfg, 1, p)
		cfg.Perception.Seed = o.seed*10 + uint64(p)
		cfg.Behaviour.Search.Strategy = o.strategy
		// Three robots share the SPL's 1200 messages per game: one message
		// each every 3.5 s (1030 in 20 minutes).
		cfg.Behaviour.Roles.Period = config.Duration(3500 * time.Millisecond)
		probe := newTeamProbe()
		ep := bus.Endpoint(uint8(p))
		r, err := w.AddRobot(simrun.RobotConfig{Team: "robotd", Player: p, Beam: o.beams[i], Robot: &cfg,
			Modules: func(c *robot.Config) []runner.Module {
				return append(append(robot.Modules(c), robot.TeamModules(c, ep, nil, nil, nil)...), probe)
			}})
		if err != nil {
			stop()
			t.Fatal(err)
		}
		tr.robots, tr.probes = append(tr.robots, r), append(tr.probes, probe)
	}
	return tr, stop
}

// waitAll waits until d of simulation time has passed for every robot
// since it connected, or since play once that was called.
func (tr *teamRun) waitAll(ctx context.Context, t *testing.T, d time.Duration) {
	t.Helper()
	for i, r := range tr.robots {
		p := tr.probes[i]
		p.mu.Lock()
		from := r.ConnectedAt()
		if p.started {
			from = p.start
		}
		p.mu.Unlock()
		if _, err := r.WaitFor(ctx, max(from+d-r.Time(), 0)+10*time.Second, func() bool { return r.Time() >= from+d }); err != nil {
			t.Fatal(err)
		}
	}
}

// play sets PlayOn with the ball at tr.ball and marks the start of the
// measurement on every probe (at its own robot's tick time: each robot's
// clock starts when it connected).
func (tr *teamRun) play(t *testing.T) {
	t.Helper()
	for i, p := range tr.probes {
		p.mu.Lock()
		p.start, p.started = tr.robots[i].Time(), true
		p.mu.Unlock()
	}
	if err := tr.w.Trainer().PlaceBall(tr.ball.X, tr.ball.Y, 0, 0); err != nil {
		t.Fatal(err)
	}
}

// thesisBalls is the thesis' table 5.2: the ten ball positions (m).
var thesisBalls = []hal.Vec2{
	{X: 2.25, Y: 0}, {X: 4, Y: -2.5}, {X: 4, Y: 2.5}, {X: 4.5, Y: 3}, {X: 2.25, Y: 3},
	{X: -4.5, Y: 3}, {X: 4.5, Y: 0}, {X: -3.5, Y: 0}, {X: 4.5, Y: -3}, {X: -4.5, Y: -1},
}

// findBallPositions are the thesis positions (1-based) the scenario test
// runs: the own half's corner (6), its penalty area (8) and its goal line
// (10), the quick ones. The find-ball campaign (cmd/findball) runs all
// ten, ten times each, for both strategies.
var findBallPositions = []int{6, 8, 10}

// TestFindBall2017: three robots start at the thesis' start positions
// (table 5.1) with the ball at one of table 5.2's positions, out of their
// view; with the 2017 search a robot sees the ball and is within 300 mm
// of it within 180 s (one trial per position, fixed seeds; the positions
// run in parallel).
//
// Under the race detector one position runs (the quickest, 8): the same
// three robots, team bus and server as every position.
func TestFindBall2017(t *testing.T) {
	defer leaktest.Check(t)()
	positions := findBallPositions
	if racetest.Enabled {
		positions = []int{8}
	}
	findBall(t, "2017", 1, positions)
}

func findBall(t *testing.T, strategy string, seed uint64, positions []int) {
	const limit = 180 * time.Second
	var mu sync.Mutex
	times := make([]time.Duration, len(thesisBalls))
	t.Run("positions", func(t *testing.T) {
		for _, pos := range positions {
			i, ball := pos-1, thesisBalls[pos-1]
			t.Run(fmt.Sprintf("%d", pos), func(t *testing.T) {
				if _, real, _ := simrun.TargetFromEnv(); !real {
					// Each on its own embedded simulator; a real server
					// takes one game at a time.
					t.Parallel()
				}
				ctx := context.Background()
				tr, stop := startTeam(t, teamOptions{strategy: strategy, seed: seed + uint64(i), players: []int{2, 3, 4}, beams: thesisStart, ball: ball})
				defer stop()
				tr.waitAll(ctx, t, 2*time.Second) // standing and localising in SET (BeforeKickOff)
				tr.play(t)
				found := func() (time.Duration, int, bool) {
					best, who := time.Duration(math.MaxInt64), 0
					for k, p := range tr.probes {
						p.mu.Lock()
						if p.hasFound && p.found < best {
							best, who = p.found, k
						}
						p.mu.Unlock()
					}
					return best, who, best != math.MaxInt64
				}
				_, err := tr.robots[0].WaitFor(ctx, limit, func() bool { _, _, ok := found(); return ok })
				took, who, ok := found()
				falls := 0
				for _, p := range tr.probes {
					p.mu.Lock()
					falls += p.falls
					p.mu.Unlock()
				}
				if !ok {
					t.Errorf("ball %d at (%.2f, %.2f) not found within %v (%d falls): %v", i+1, ball.X, ball.Y, limit, falls, err)
					return
				}
				mu.Lock()
				times[i] = took
				mu.Unlock()
				t.Logf("ball %d at (%.2f, %.2f): found by robot %d after %.1f s (%d falls)", i+1, ball.X, ball.Y, tr.robots[who].Player(), took.Seconds(), falls)
			})
		}
	})
	var sum time.Duration
	n := 0
	for _, d := range times {
		if d > 0 {
			sum += d
			n++
		}
	}
	if n > 0 {
		t.Logf("%s search: %d of %d balls found, mean %.1f s (thesis table 5.4, all ten positions: 96/100, 71.1 s)", strategy, n, len(positions), (sum / time.Duration(n)).Seconds())
	}
}

// TestRoleAllocation: three robots play for 120 s with the ball moving
// (put before the robot farthest from the striker at 30 s and 90 s,
// rolled at 60 s, and kicked by the striker)
// under 10 % packet loss: after the first second there is exactly one
// striker at every tick, and each robot switches role at most twice per
// minute.
//
// Under the race detector the robots play for 30 s, with the ball put
// before the farthest robot at 15 s (no roll): the same goroutines, team
// messages and trainer commands, and the same checks but the handover,
// which the full form (without the race detector) asserts.
func TestRoleAllocation(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	run := 120 * time.Second // two placements: the trainer's commands land in cycles the test does not choose
	every := 30 * time.Second
	if racetest.Enabled {
		// One placement in front of the robot farthest from the striker.
		run, every = 30*time.Second, 15*time.Second
	}
	tr, stop := startTeam(t, teamOptions{strategy: "2017", loss: 0.1, seed: 7, players: []int{2, 3, 4},
		beams: []sim.Beam{{X: -1, Y: 1.5, Deg: 0}, {X: -3, Y: 0, Deg: 0}, {X: -1, Y: -1.5, Deg: 0}}, ball: hal.Vec2{X: 0.5}})
	defer stop()
	tr.waitAll(ctx, t, 2*time.Second) // beamed, standing in SET (BeforeKickOff)
	tr.play(t)
	rng := rand.New(rand.NewPCG(7, 7))
	// decisive counts the placements 0.6 m in front of a robot at least
	// decisiveDistance from the striker: the striker's role should then
	// pass on (closer ones may rightly keep it, by the allocation's
	// hysteresis).
	const decisiveDistance = 2.5
	decisive := 0
	// Every 30 s (15 s in the short form) the ball moves: every other time it is rolled from where
	// it is (2 m/s in a random direction, towards the inside of the
	// field); in between it is put 0.6 m in front of the robot that is
	// farthest from the striker, so that the striker has reason to change
	// now and then, but not all the time.
	for k := time.Duration(0); k < run; k += every {
		if k > 0 {
			var x, y, vx, vy float64
			if (k/every)%2 == 1 || racetest.Enabled {
				striker := -1
				for i, p := range tr.probes {
					p.mu.Lock()
					if p.state.Role == msg.RoleStriker {
						striker = i
					}
					p.mu.Unlock()
				}
				if striker < 0 {
					t.Fatal("no striker")
				}
				sp, _ := tr.robots[striker].Truth()
				far, farD := 0, -1.0
				for i, r := range tr.robots {
					gt, _ := r.Truth()
					if d := math.Hypot(float64(gt.Pose.X-sp.Pose.X), float64(gt.Pose.Y-sp.Pose.Y)); i != striker && d > farD {
						far, farD = i, d
					}
				}
				gt, _ := tr.robots[far].Truth()
				s, c := math.Sincos(float64(gt.Pose.Heading))
				x, y = float64(gt.Pose.X)+0.6*c, float64(gt.Pose.Y)+0.6*s
				t.Logf("%v: the ball put 0.6 m in front of robot %d (striker: robot %d, %.1f m away)", k, far, striker, farD)
				if farD >= decisiveDistance {
					decisive++
				}
			} else {
				gt, _ := tr.robots[0].Truth()
				a := rng.Float64() * 2 * math.Pi
				x, y, vx, vy = gt.Ball.X, gt.Ball.Y, 2*math.Cos(a), 2*math.Sin(a)
				if x*vx > 0 && math.Abs(x) > 2.5 {
					vx = -vx
				}
				if y*vy > 0 && math.Abs(y) > 1.5 {
					vy = -vy
				}
			}
			x, y = min(max(x, -4.2), 4.2), min(max(y, -2.7), 2.7)
			if err := tr.w.Trainer().MoveBall(x, y, 0.05, vx, vy, 0); err != nil {
				t.Fatal(err)
			}
		}
		tr.waitAll(ctx, t, k+every)
	}
	// Every game-clock cycle that all three robots ran, from the first
	// second of play on.
	tr.probes[0].mu.Lock()
	at := tr.probes[0].gameAt
	tr.probes[0].mu.Unlock()
	from := at + int64(time.Second/(10*time.Millisecond))
	to := at + int64(run/(10*time.Millisecond))
	bad, ticks, handovers := 0, 0, 0
	var badAt []time.Duration
	lastStriker := -1
	for k := from; k < to; k++ {
		strikers, all, who := 0, true, -1
		for i, p := range tr.probes {
			p.mu.Lock()
			r, ok := p.roles[k]
			p.mu.Unlock()
			if !ok {
				all = false
				break
			}
			if r == msg.RoleStriker {
				strikers++
				who = i
			}
		}
		if !all {
			continue
		}
		if strikers == 1 && who != lastStriker {
			if lastStriker >= 0 {
				handovers++
			}
			lastStriker = who
		}
		ticks++
		if strikers != 1 {
			bad++
			if len(badAt) < 5 {
				badAt = append(badAt, time.Duration(k-at)*10*time.Millisecond)
			}
		}
	}
	if ticks < int(run/(10*time.Millisecond))*9/10 {
		t.Fatalf("only %d ticks with all three robots", ticks)
	}
	tr.checkClock(t, from, to)
	if bad > 0 {
		t.Errorf("%d of %d ticks without exactly one striker, first at %v", bad, ticks, badAt)
	}
	// At most twice in any minute: a run shorter than a minute (the
	// short form's 30 s) lies within one, so it allows two switches.
	minutes := max(run.Minutes(), 1)
	for _, p := range tr.probes {
		p.mu.Lock()
		st, falls := p.state, p.falls
		p.mu.Unlock()
		per := float64(st.Switches) / minutes
		t.Logf("robot: %d role switches in %v (%.2f per minute), now %v; %d falls", st.Switches, run, per, st.Role, falls)
		if per > 2 {
			t.Errorf("%.2f role switches per minute", per)
		}
	}
	t.Logf("%d ticks checked, every one with exactly one striker: %v; %d striker handovers; bus: %+v", ticks, bad == 0, handovers, tr.bus.Stats())
	switch {
	case racetest.Enabled:
		// Too short for the allocation's 7–14 s from a placement to its
		// handover; the full form asserts it.
	case decisive == 0:
		t.Errorf("no ball placement in front of a robot %g m or more from the striker: the allocation was not exercised", decisiveDistance)
	case handovers == 0:
		t.Errorf("the striker never changed after %d ball placements in front of a robot %g m or more from it", decisive, decisiveDistance)
	}
}

// TestGameStateInTheSim: without a GameController the simulator's play
// mode drives the robot (BeforeKickOff: it stands; PlayOn: it searches);
// GameController packets take over when they come, and a robot they
// penalise stands still until the penalty ends.
func TestGameStateInTheSim(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	w, stop := startWorld(t)
	defer stop()
	bus, err := teamcomm.NewBus(teamcomm.DefaultBusConfig())
	if err != nil {
		t.Fatal(err)
	}
	src := &gamecontrollertest.Source{}
	cfg := robot.DefaultConfig()
	robot.Identify(&cfg, 17, 2)
	cfg.GameController.Timeout = config.Duration(time.Hour)
	r, err := w.AddRobot(simrun.RobotConfig{Team: "robotd", Player: 2, Beam: sim.Beam{X: -3, Y: 0, Deg: 0}, Robot: &cfg,
		Modules: func(c *robot.Config) []runner.Module {
			return append(robot.Modules(c), robot.TeamModules(c, bus.Endpoint(2), src, nil, nil)...)
		}})
	if err != nil {
		t.Fatal(err)
	}
	// moved is how much the robot moved in d of simulation time: the
	// distance its feet travelled plus the angle it turned (rad), from the
	// ground truth.
	moved := func(d time.Duration) float64 {
		t.Helper()
		prev, pm := r.Truth()
		var sum float64
		if _, err := r.WaitFor(ctx, d, func() bool {
			// Every half second of simulation time, so that the sum does
			// not depend on how often this runs.
			cur, cm := r.Truth()
			if cm.Time-pm.Time < 500*time.Millisecond {
				return false
			}
			sum += math.Hypot(float64(cur.Pose.X-prev.Pose.X), float64(cur.Pose.Y-prev.Pose.Y)) +
				math.Abs(math.Remainder(float64(cur.Pose.Heading-prev.Pose.Heading), 2*math.Pi))
			prev, pm = cur, cm
			return false
		}); err == nil {
			t.Fatal("WaitFor returned early")
		}
		t.Logf("moved %.2f (m + rad) in %v", sum, d)
		return sum
	}
	settle := func() { r.WaitFor(ctx, 2*time.Second, func() bool { return false }) }
	// Each phase's length; under the race detector on the embedded
	// simulator half of it (at least 2 s): the same robot, GameController
	// source and play modes, with the robot walking about 0.5 (m + rad)
	// per second when it may. On a real server (ROBOTD_SIMSPARK) the
	// robot starts slower (0.58 in the first 7.5 s of PlayOn, once), so
	// every phase keeps its full length there.
	phase := func(d time.Duration) time.Duration {
		if racetest.Enabled && w.Embedded() != nil {
			return max(d/2, 2*time.Second)
		}
		return d
	}

	settle()
	if d := moved(phase(5 * time.Second)); d > 0.05 {
		t.Errorf("BeforeKickOff (SET): moved %.2f (m + rad)", d)
	}
	if err := w.Trainer().PlayMode("PlayOn"); err != nil {
		t.Fatal(err)
	}
	settle()
	if d := moved(phase(15 * time.Second)); d < 1 {
		t.Errorf("PlayOn without a GameController: moved only %.2f (m + rad) in %v", d, phase(15*time.Second))
	}
	gc := &net.UDPAddr{IP: net.IPv4(10, 0, 0, 1), Port: gamecontroller.ControlPort}
	p := gamecontroller.Data{Version: 18, State: gamecontroller.StatePlaying,
		Teams: [2]gamecontroller.TeamInfo{{TeamNumber: 17}, {TeamNumber: 3}}}
	p.Teams[0].Players[1].Penalty = gamecontroller.PenaltyPlayerPushing
	src.Deliver(p, gc)
	settle()
	if d := moved(phase(10 * time.Second)); d > 0.05 {
		b, _ := r.Body()
		req, _ := behaviourRequest(r)
		ms, _ := r.Motion()
		t.Errorf("penalised by the GameController: moved %.2f (m + rad) in %v (fall %v, request %v, motion %v)", d, phase(10*time.Second), b.Fall, req.Kind, ms.Active)
	}
	if req, ok := behaviourRequest(r); !ok || req.Kind != msg.MotionStand || req.Head.Mode != msg.HeadHold {
		t.Errorf("penalised: behaviour asks for %+v", req)
	}
	p.Teams[0].Players[1].Penalty = gamecontroller.PenaltyNone
	src.Deliver(p, gc)
	settle()
	if d := moved(phase(15 * time.Second)); d < 1 {
		t.Errorf("unpenalised: moved only %.2f (m + rad) in %v", d, phase(15*time.Second))
	}
}

// behaviourRequest reads the robot's latest motion request.
func behaviourRequest(r *simrun.Robot) (msg.MotionRequest, bool) {
	s := r.Board().Snapshot()
	v, ok := s.Entries[msg.MotionRequestKey.Name()]
	if !ok {
		return msg.MotionRequest{}, false
	}
	req, ok := v.Value.(msg.MotionRequest)
	return req, ok
}
