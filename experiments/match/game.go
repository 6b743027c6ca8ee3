package match

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"sync"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/experiments/simgate"
	"github.com/robotd/robotd/proto/gamecontroller"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/teamcomm"
)

// ErrVoid marks a game that cannot count: the world stalled (the robots
// did not reach the referee's next look within the stall timeout) or a
// robot ticked without the simulator, so its course depended on the wall
// clock. A campaign plays it again.
var ErrVoid = errors.New("match: the game is void")

// Result is a game's outcome. Per-team pairs are team A's, then team B's.
type Result struct {
	Game
	// Hashes name the teams' resolved robot configurations.
	Hashes [2]string
	Score  [2]int
	Goals  []GoalRecord
	// Possession is the time a team's robot was nearest the ball, within
	// 0.5 m, while playing.
	Possession [2]time.Duration
	Shots      [2]int
	Falls      [2]int
	Penalties  [2]int
	// Switches counts the robots' role switches.
	Switches                    [2]int
	KickIns, GoalKicks, Corners [2]int
	Collisions                  int
	// Heard counts the robots whose game state came from the
	// GameController's packets at the end.
	Heard int
	// Start is the simulation time of the referee's first look; Length
	// the game's simulation time from there to the end.
	Start, Length time.Duration
	// Samples are the robots' and the ball's positions every
	// Config.Sample (the ball's with Team -1).
	Samples []Sample
	// Wall is how long the game took (not part of the outcome).
	Wall time.Duration `json:"-"`
}

// GoalRecord is a goal: by Team (0 = A, 1 = B), at T since the start, in
// Half.
type GoalRecord struct {
	T    time.Duration
	Team int
	Half int
}

// Sample is a robot's (or the ball's: Team -1) position at T since the
// start, in the world frame (SimSpark's left side's frame).
type Sample struct {
	T         time.Duration
	Team      int
	Player    int
	X, Y      float64
	Heading   float64
	Fallen    bool
	Penalised bool
}

// GoalDifference is team A's goals less team B's.
func (r *Result) GoalDifference() int { return r.Score[0] - r.Score[1] }

// cycle is the embedded simulator's step.
const cycle = 10 * time.Millisecond

// env is what every game of a campaign shares.
type env struct {
	cfg    *Config
	target *simrun.Target // nil: the embedded simulator, one per game
	log    *slog.Logger
	simLog *slog.Logger
	robots [2]findball.RobotConfig
	hashes [2]string
	// stall is how long (wall time) the robots may take to reach the
	// referee's next look; timeout bounds a game's wall time.
	stall, timeout time.Duration
	// hold, if set, is a test's stall: it runs in every robot's tick.
	hold func(attempt int, side, player int) func(now time.Duration)
	// view, if set, shows the game being played.
	view *View
	// limit, if positive, ends a game after this much simulation time
	// from the referee's first look (a short game for tests).
	limit time.Duration
	// attempts counts each game's attempts (for tests).
	mu       sync.Mutex
	attempts map[string]int
}

func newEnv(cfg *Config, target *simrun.Target, log, simLog *slog.Logger) (*env, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if simLog == nil {
		simLog = slog.New(slog.DiscardHandler)
	}
	e := &env{cfg: cfg, target: target, log: log, simLog: simLog, stall: 60 * time.Second, timeout: 3 * time.Hour, attempts: map[string]int{}}
	for i, t := range []Team{cfg.A, cfg.B} {
		rc, err := cfg.robot(t)
		if err != nil {
			return nil, err
		}
		h, _, err := rc.Hash()
		if err != nil {
			return nil, err
		}
		e.robots[i], e.hashes[i] = rc, h
	}
	return e, nil
}

// sideNames are SimSpark's sides and the robots' team names on them.
var sideNames = [2]string{"Left", "Right"}

// Play plays one game: the embedded simulator (or the attached server),
// both teams joined at their starts, the referee looking every
// Referee.Step until the end of the second half.
func (e *env) Play(ctx context.Context, gm Game) (res Result, err error) {
	wall := time.Now()
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	cfg := e.cfg
	e.mu.Lock()
	e.attempts[gm.ID()]++
	attempt := e.attempts[gm.ID()]
	e.mu.Unlock()
	res = Result{Game: gm, Hashes: e.hashes}
	fail := func(err error) (Result, error) { return res, fmt.Errorf("match: game %s: %w", gm.ID(), err) }
	// teamOf[side] is the team (0 = A, 1 = B) on that side; the left
	// side kicks off first.
	teamOf := [2]int{0, 1}
	if gm.BFirst {
		teamOf = [2]int{1, 0}
	}
	numbers := [2]uint8{uint8(cfg.teamBy(teamOf[0]).Number), uint8(cfg.teamBy(teamOf[1]).Number)}

	var g *simgate.Gate
	var srv *simserver.Server
	target := e.target
	if target == nil {
		sc := simserver.DefaultConfig()
		sc.Seed, sc.Cycle, sc.Physics = mix(gm.Seed, 1), cycle, cfg.Physics
		sc.Logger = e.simLog.With("sim", "embedded", "game", gm.ID())
		sg, err := simgate.Start(ctx, sc)
		if err != nil {
			return fail(err)
		}
		g, srv, target = sg.Gate, sg.Server, &sg.Target
		defer func() {
			if serr := sg.Stop(); serr != nil && err == nil {
				err = fmt.Errorf("match: game %s: %w", gm.ID(), serr)
			}
		}()
	}
	// The embedded simulator's clock starts with the game: tick time is
	// its time, the referee's (taken from the gate).
	w, err := simrun.Start(ctx, simrun.Options{Target: target, Log: e.simLog, KeepPlayMode: true, ServerClock: g != nil})
	if err != nil {
		return fail(err)
	}
	defer func() {
		if cerr := w.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("match: game %s: %w", gm.ID(), cerr)
		}
	}()
	tr := w.Trainer()
	if err := simgate.BeforeKickOff(ctx, srv, tr); err != nil {
		return fail(err)
	}

	layout, err := gamecontroller.ParseLayout(cfg.Layout)
	if err != nil {
		return fail(err)
	}
	gc, err := gamecontroller.NewSender("127.0.0.1:0", layout)
	if err != nil {
		return fail(err)
	}
	defer gc.Close()
	// The robots' GameController clients run until the game ends; they
	// stop before the robots do (w.Close), which keep the last packet.
	cctx, stopClients := context.WithCancel(ctx)
	var clientsWG sync.WaitGroup
	var clients []*gamecontroller.Client
	defer func() {
		stopClients()
		clientsWG.Wait()
		for _, c := range clients {
			c.Close()
		}
	}()

	var probes [2][]*probe
	joined := 0
	for side := range 2 {
		team := teamOf[side]
		bc := cfg.Network
		bc.Seed = mix(gm.Seed, uint64(10+team))
		bus, err := teamcomm.NewBus(bc)
		if err != nil {
			return fail(err)
		}
		for p := 1; p <= cfg.Players; p++ {
			rc := e.robots[team]
			robot.Identify(&rc.Config, int(numbers[side]), p)
			rc.Perception.Seed = mix(gm.Seed, uint64(100*(team+1)+p))
			rc.Sim.Vision.Seed = mix(gm.Seed, uint64(1000*(team+1)+p))
			sc := simgate.SyncConfig(rc.Sim, time.Second)
			if g == nil {
				sc = simgate.Attached(sc)
			}
			cl, err := gamecontroller.NewClient(gamecontroller.ClientConfig{Listen: "127.0.0.1:0", Team: numbers[side], Player: uint8(p),
				Layout: layout, Sources: []netip.Addr{netip.MustParseAddr("127.0.0.1")}}, nil, e.simLog)
			if err != nil {
				return fail(err)
			}
			clients = append(clients, cl)
			clientsWG.Go(func() { _ = cl.Run(cctx) })
			gc.AddDestination(cl.Addr())
			pr := &probe{side: side, player: p, touch: cfg.Referee.TouchRadius}
			if e.hold != nil {
				pr.hold = e.hold(attempt, side, p)
			}
			probes[side] = append(probes[side], pr)
			st := cfg.start(team, p)
			ep := bus.Endpoint(uint8(p))
			mc := rc.Config
			if _, err := w.AddRobot(simrun.RobotConfig{Team: "robotd" + sideNames[side], Player: p, Beam: sim.Beam{X: st.X, Y: st.Y, Deg: st.Deg},
				Robot: &mc, Sim: &sc, NoConnectWait: true,
				Modules: func(c *robot.Config) []runner.Module {
					return append(append(robot.Modules(c), robot.TeamModules(c, ep, cl, nil, nil)...), pr)
				}}); err != nil {
				return fail(err)
			}
			if err := e.join(ctx, g, joined, pr); err != nil {
				return fail(fmt.Errorf("robot %s %d: %w", sideNames[side], p, err))
			}
			joined++
		}
	}
	return e.referee(ctx, g, tr, gc, clients, probes, teamOf, numbers, &res, wall)
}

// teamBy returns team A (0) or B (1).
func (c *Config) teamBy(i int) Team {
	if i == 1 {
		return c.B
	}
	return c.A
}

// start returns player p's pose in INITIAL: its start, or a place on the
// side line for a player without one.
func (c *Config) start(team, p int) findball.Start {
	starts := c.Starts
	if t := c.teamBy(team); len(t.Starts) > 0 {
		starts = t.Starts
	}
	for _, s := range starts {
		if s.Player == p {
			return s
		}
	}
	y, deg := -3.0, 90.0
	if p%2 == 1 {
		y, deg = 3, -90
	}
	return findball.Start{Player: p, X: -0.5 - 0.5*float64(p), Y: y, Deg: deg}
}

// join waits until a robot is in the world: on the embedded simulator
// one per cycle (simgate's Join), on a server until its probe ticks.
func (e *env) join(ctx context.Context, g *simgate.Gate, i int, p *probe) error {
	if g != nil {
		return g.Join(ctx, i)
	}
	return e.waitProbes(ctx, [2][]*probe{{p}}, func(s probeState) bool { return s.connected })
}

// waitProbes waits until every probe's state satisfies ok, at most the
// stall timeout without progress.
func (e *env) waitProbes(ctx context.Context, probes [2][]*probe, ok func(probeState) bool) error {
	tk := time.NewTicker(2 * time.Millisecond)
	defer tk.Stop()
	progress, last := time.Now(), time.Duration(-1)
	for {
		all, minLast := true, time.Duration(math.MaxInt64)
		for _, ps := range probes {
			for _, p := range ps {
				s := p.state()
				minLast = min(minLast, s.last)
				all = all && ok(s)
			}
		}
		if all {
			return nil
		}
		if minLast != last {
			progress, last = time.Now(), minLast
		} else if time.Since(progress) > e.stall {
			return fmt.Errorf("the robots did not tick for %v: %w", e.stall, ErrVoid)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("match: %w", ctx.Err())
		case <-tk.C:
		}
	}
}

// referee runs the game from the robots' joining to its end: every
// Referee.Step the world waits (on the embedded simulator the gate holds
// it: every robot has ticked at that time and waits), the referee looks
// at the robots' ground truth, the trainer carries out what it decides
// (ball placements, robots taken out and brought back), and the
// GameController's packet goes out over UDP and is in every robot's
// client before the world steps on. So the robots take each packet and
// each placement in the same tick in every run of the game.
func (e *env) referee(ctx context.Context, g *simgate.Gate, tr *simrun.Trainer, gc *gamecontroller.Sender, clients []*gamecontroller.Client,
	probes [2][]*probe, teamOf [2]int, numbers [2]uint8, res *Result, wall time.Time) (Result, error) {
	cfg := e.cfg
	fail := func(err error) (Result, error) { return *res, fmt.Errorf("match: game %s: %w", res.ID(), err) }
	step := cfg.Referee.Step.D()
	var t0 time.Duration
	if g != nil {
		t0 = time.Duration(math.Round(g.LastTime(0)*100))*cycle + step
	} else {
		for _, ps := range probes {
			for _, p := range ps {
				t0 = max(t0, p.state().last)
			}
		}
		t0 += step
	}
	res.Start = t0
	ref := NewReferee(cfg.Referee, cfg.Half.D(), cfg.Players, 0)
	var sent uint64
	nextSend, nextSample := t0, t0
	first := true
	for t := t0; ; t += step {
		if err := e.reach(ctx, g, probes, t); err != nil {
			return fail(err)
		}
		truth := collect(probes, t)
		act := ref.Step(&truth)
		e.view.update(res.ID(), t-t0, &truth, ref, teamOf)
		var cmds []func() error
		if first {
			// Play starts: SimSpark's game clock runs, beaming ends.
			cmds = append(cmds, func() error { return tr.PlayMode("PlayOn") })
			first = false
		}
		if act.PlaceBall {
			b := act.Ball
			cmds = append(cmds, func() error { return tr.MoveBall(b[0], b[1], simserver.BallRadius, 0, 0, 0) })
		}
		for _, m := range act.Moves {
			cmds = append(cmds, func() error { return tr.MoveAgent(sideNames[m.Side], m.Player, m.X, m.Y, m.Deg) })
		}
		if err := e.command(ctx, g, cmds); err != nil {
			return fail(err)
		}
		if ref.Changed() || t >= nextSend {
			d := ref.Packet(t, numbers, uint8(sent))
			if err := gc.Send(&d); err != nil {
				return fail(err)
			}
			sent++
			nextSend = t + cfg.Referee.Every.D()
			if err := e.delivered(ctx, clients, sent); err != nil {
				return fail(err)
			}
		}
		if t >= nextSample {
			res.Samples = appendSamples(res.Samples, &truth, ref, teamOf, t-t0)
			nextSample += cfg.Sample.D()
		}
		if ref.Phase() == PhaseOver || e.limit > 0 && t-t0 >= e.limit {
			res.Length = t - t0
			break
		}
	}
	score, st := ref.Score(), ref.Stats()
	for side := range 2 {
		team := teamOf[side]
		res.Score[team] = score[side]
		res.Possession[team], res.Shots[team], res.Penalties[team] = st.Possession[side], st.Shots[side], st.Penalties[side]
		res.KickIns[team], res.GoalKicks[team], res.Corners[team] = st.KickIns[side], st.GoalKicks[side], st.Corners[side]
		for _, p := range probes[side] {
			s := p.state()
			res.Falls[team] += s.falls
			res.Switches[team] += s.switches
			if s.heard {
				res.Heard++
			}
			if s.idle > 0 && g != nil {
				return fail(fmt.Errorf("robot %s %d ticked %d times without the simulator: %w", sideNames[side], p.player, s.idle, ErrVoid))
			}
		}
	}
	res.Collisions = st.Collisions
	for _, gl := range ref.Goals() {
		res.Goals = append(res.Goals, GoalRecord{T: gl.T - t0, Team: teamOf[gl.Side], Half: gl.Half})
	}
	res.Wall = time.Since(wall)
	return *res, nil
}

// reach waits until every robot has ticked at time t and, on the
// embedded simulator, holds the world there.
func (e *env) reach(ctx context.Context, g *simgate.Gate, probes [2][]*probe, t time.Duration) error {
	if g == nil {
		return e.waitProbes(ctx, probes, func(s probeState) bool { return s.last >= t })
	}
	g.Hold((t - cycle/2).Seconds())
	wctx, cancel := context.WithTimeout(ctx, e.stall)
	defer cancel()
	if err := g.WaitHeld(wctx); err != nil {
		if ctx.Err() == nil {
			return fmt.Errorf("the robots did not reach %v within %v: %w", t, e.stall, ErrVoid)
		}
		return err
	}
	return nil
}

// command sends trainer commands; on the embedded simulator it waits
// until the simulator has filed them, so they take effect in the next
// step.
func (e *env) command(ctx context.Context, g *simgate.Gate, cmds []func() error) error {
	if len(cmds) == 0 {
		return nil
	}
	n := 0
	if g != nil {
		n = g.MonitorHandled()
	}
	for _, c := range cmds {
		if err := c(); err != nil {
			return err
		}
	}
	if g == nil {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, e.stall)
	defer cancel()
	if err := g.WaitMonitorHandled(wctx, n+len(cmds)); err != nil {
		if ctx.Err() == nil {
			return fmt.Errorf("the simulator did not take the trainer commands within %v: %w", e.stall, ErrVoid)
		}
		return err
	}
	return nil
}

// delivered waits until every client has taken n packets.
func (e *env) delivered(ctx context.Context, clients []*gamecontroller.Client, n uint64) error {
	deadline := time.Now().Add(e.stall)
	for _, c := range clients {
		for c.Stats().Packets < n {
			if time.Now().After(deadline) {
				return fmt.Errorf("a GameController packet did not reach a robot within %v: %w", e.stall, ErrVoid)
			}
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("match: %w", err)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
	return nil
}

// collect assembles the referee's truth at t from the probes: the left
// side's robots first, the ball as the first robot with it sees it, the
// last touch (the nearer robot on a tie, then side and player).
func collect(probes [2][]*probe, t time.Duration) Truth {
	tr := Truth{T: t}
	var best probeState
	for side, ps := range probes {
		tr.Robots[side] = make([]RobotTruth, len(ps))
		for i, p := range ps {
			s := p.state()
			tr.Robots[side][i] = s.truth
			if s.ballValid && !tr.BallValid {
				tr.Ball, tr.BallValid = s.ball, true
			}
			if s.touched && (!tr.Touch.Valid || s.touchT > tr.Touch.T || s.touchT == tr.Touch.T && s.touchD < best.touchD) {
				tr.Touch, best = Touch{T: s.touchT, Side: side, Player: p.player, Valid: true}, s
			}
		}
	}
	return tr
}

// appendSamples adds the robots' and the ball's positions at since.
func appendSamples(out []Sample, tr *Truth, ref *Referee, teamOf [2]int, since time.Duration) []Sample {
	for side, rs := range tr.Robots {
		for i, r := range rs {
			if r.Valid {
				out = append(out, Sample{T: since, Team: teamOf[side], Player: i + 1, X: r.X, Y: r.Y, Heading: r.Heading,
					Fallen: r.Fallen, Penalised: ref.Penalised(side, i+1)})
			}
		}
	}
	if tr.BallValid {
		out = append(out, Sample{T: since, Team: -1, X: tr.Ball[0], Y: tr.Ball[1]})
	}
	return out
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
