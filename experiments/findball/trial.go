package findball

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/experiments/simgate"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/teamcomm"
)

// Result is a trial's outcome.
type Result struct {
	Trial
	// ConfigHash names the strategy's resolved robot configuration.
	ConfigHash string
	// Found: a robot saw the ball within FoundDistance before Limit. Time
	// is when (since the start), else Limit; Finder the player who found
	// it (the lowest number when two did in the same tick).
	Found  bool
	Time   time.Duration
	Finder int
	// Falls counts the robots' falls during the trial, by the simulator's
	// ground truth (simrun.Posture).
	Falls int
	// Closest is the closest approach of two robots during the trial (m,
	// by the simulator's ground truth in the samples; ClosestApproach),
	// −1 with fewer than two robots.
	Closest float64
	// Team is the trial's team play: roles, switches, idling.
	Team TeamPlay
	// Start is the simulation time the trial started at (the robots
	// unpenalised, the ball placed).
	Start time.Duration
	// Samples are the robots' trajectories, every Config.Sample, from the
	// start to the end of the trial, robot after robot.
	Samples []Sample
	// Wall is how long the trial took, and Server the server it ran on
	// ("agent-host:port,trainer-host:port"; empty on the embedded
	// simulator): not part of the outcome, nor stored.
	Wall   time.Duration
	Server string
}

// errNondeterministic marks a trial on the embedded simulator in which a
// robot ticked without the simulator: its timing then depended on the
// wall clock, so it is run again.
var errNondeterministic = errors.New("experiment: a robot ticked without the simulator; the trial is not reproducible")

// errVoid marks a void trial: a robot ticked without the simulator, after
// the simulator had answered it, more than the campaign's stall limit
// (Options.StallTicks), so the trial's times mix simulation time with
// wall time. A void trial is never stored as a result (see voidError).
var errVoid = errors.New("experiment: the trial is void")

// voidError is a void trial's error; errors.Is(err, errVoid) holds.
type voidError struct {
	trial string
	// server names the attached server the trial ran on ("" on the
	// embedded simulator).
	server string
	// ticks is the most ticks one robot made without the simulator after
	// its first message; limit the stall limit it exceeded.
	ticks, limit int
}

func (e *voidError) Error() string {
	where := e.trial
	if e.server != "" {
		where += " on server " + e.server
	}
	return fmt.Sprintf("experiment: trial %s: a robot ticked %d times without the simulator (a stall; more than %d): the trial is void", where, e.ticks, e.limit)
}

func (e *voidError) Is(target error) bool { return target == errVoid }

// defaultStallTicks is Options.StallTicks' default.
const defaultStallTicks = 5

// ballZ is where the trainer puts the ball (its radius: on the ground).
const ballZ = simserver.BallRadius

// trialEnv is what every trial of a campaign shares.
type trialEnv struct {
	cfg     *Config
	log     *slog.Logger // the campaign's
	simLog  *slog.Logger // the simulator's and the robots'
	robots  map[string]RobotConfig
	hashes  map[string]string
	timeout time.Duration // wall-clock limit of one trial
	// stallTicks is the most ticks a robot may make without the simulator
	// (after its first message) in a trial that is not void (Options).
	stallTicks int
	// readTimeout and handshake, if positive, are the robots' read and
	// handshake timeouts on an attached server (Options.ReadTimeout,
	// Options.HandshakeTimeout).
	readTimeout, handshake time.Duration
}

// simSeed is the embedded simulator's seed in a trial of seed seed
// (Config.SimSeed).
func simSeed(seed, mix uint64) uint64 {
	s := subSeed(seed, 0)
	if mix != 0 {
		s = trialSeed(s^mix, 0, 0)
	}
	return s
}

// onGrid returns the first multiple of grid at or after t (t itself when
// grid is not positive). A trial starts on the grid of the robots' role
// allocation epochs (roles.Config.Period, on the team clock, which is
// their tick time when they share a server): so play starts at the same
// phase of them on every simulator, however long the robots took to
// join.
func onGrid(t, grid time.Duration) time.Duration {
	if grid <= 0 {
		return t
	}
	return (t + grid - 1) / grid * grid
}

// placeLead is how long before the start the trainer places the ball:
// a second, or half the penalised time if that is shorter. The robots are
// penalised then, and a penalised robot takes no ball (package
// perception), so every robot starts with the ball unknown and already at
// its place, on any simulator: a real server's trainer command lands in
// whichever cycle it reaches the server, and a ball placed at the start
// itself was still seen at the centre spot in the first cycle of play.
func placeLead(penalised time.Duration) time.Duration { return min(time.Second, penalised/2) }

// ballPlaced is how far from its place the ball may lie at the start
// (the simulator's ground truth), m.
const ballPlaced = 0.05

// cycle is the embedded simulator's step.
const cycle = 10 * time.Millisecond

// run runs one trial: a fresh simulator (target nil) or the attached
// server target, the robots joined at their starts and penalised, the
// ball placed and the robots unpenalised, until a robot finds the ball or
// the limit. On a server the game starts from BeforeKickOff with its
// clock at 0 (simgate.BeforeKickOff), the robots beam to their starts and
// the trainer places the ball, so what ran there before does not carry
// over into the trial.
func (e *trialEnv) run(ctx context.Context, t Trial, target *simrun.Target) (res Result, err error) {
	wall := time.Now()
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	cfg := e.cfg
	res = Result{Trial: t, ConfigHash: e.hashes[t.Strategy]}
	// where names the trial in errors, with its server.
	where := t.ID()
	if target != nil {
		res.Server = serverName(*target)
		where += " on server " + res.Server
	}
	base, ok := e.robots[t.Strategy]
	if !ok {
		return res, fmt.Errorf("experiment: trial %s: unknown strategy %q", where, t.Strategy)
	}

	// stalled returns a stall that waitAll saw (a void trial) as the
	// trial's voidError, or else err.
	stalled := func(werr, err error) error {
		if ve := (*voidError)(nil); errors.As(werr, &ve) {
			ve.trial, ve.server = t.ID(), res.Server
			return ve
		}
		return err
	}

	var g *simgate.Gate
	var srv *simserver.Server
	if target == nil {
		sc := simserver.DefaultConfig()
		sc.Seed, sc.Cycle = simSeed(t.Seed, cfg.SimSeed), cycle
		sc.NoVisionNoise = cfg.Noise == NoiseRobot
		if cfg.Physics != "" {
			sc.Physics = cfg.Physics
		}
		sc.Logger = e.simLog.With("sim", "embedded")
		sg, err := simgate.Start(ctx, sc)
		if err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", where, err)
		}
		g, srv, target = sg.Gate, sg.Server, &sg.Target
		defer func() {
			if serr := sg.Stop(); serr != nil && err == nil {
				err = fmt.Errorf("experiment: trial %s: %w", where, serr)
			}
		}()
	}
	// The embedded simulator's clock starts with the trial: tick time is
	// its time, so that t0 below, taken from the gate, is a tick time.
	w, err := simrun.Start(ctx, simrun.Options{Target: target, Log: e.simLog, KeepPlayMode: true, ServerClock: g != nil}) // play mode set below, in a known cycle
	if err != nil {
		return res, fmt.Errorf("experiment: trial %s: %w", where, err)
	}
	defer func() {
		if cerr := w.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("experiment: trial %s: %w", where, cerr)
		}
	}()
	tr := w.Trainer()

	// Before kick-off, robots may beam to their starts (a real server
	// also keeps the ball at the centre then).
	if err := simgate.BeforeKickOff(ctx, srv, tr); err != nil {
		return res, fmt.Errorf("experiment: trial %s: %w", where, err)
	}

	bc := cfg.Network
	bc.Seed = subSeed(t.Seed, 1)
	bus, err := teamcomm.NewBus(bc)
	if err != nil {
		return res, fmt.Errorf("experiment: trial %s: %w", where, err)
	}
	start := new(atomic.Int64)
	start.Store(notYet)
	players := make([]int, len(cfg.Starts))
	for i, s := range cfg.Starts {
		players[i] = s.Player
	}
	ref := &referee{team: uint8(cfg.Team), players: players, start: start,
		from: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 3838}}
	poke := make(chan struct{}, 1)
	probes := make([]*probe, len(cfg.Starts))
	for i, st := range cfg.Starts {
		rc := base
		robot.Identify(&rc.Config, cfg.Team, st.Player)
		rc.Perception.Seed = subSeed(t.Seed, 10+st.Player)
		rc.Sim.Vision.Seed = subSeed(t.Seed, 100+st.Player)
		if cfg.Noise == NoiseRobot {
			rc.Sim.Vision.NoiseDistance, rc.Sim.Vision.NoiseAngleDeg = forkNoiseDistance, forkNoiseAngleDeg
		}
		sc := simgate.SyncConfig(rc.Sim, 100*time.Millisecond)
		if g == nil {
			sc = simgate.Attached(sc)
			if e.readTimeout > 0 {
				sc.ReadTimeout = config.Duration(e.readTimeout)
			}
			if e.handshake > 0 {
				sc.HandshakeTimeout = config.Duration(e.handshake)
			}
		}
		view := &refereeView{ref: ref}
		pr := newProbe(st.Player, cfg.FoundDistance, cfg.Sample.D(), start, poke)
		probes[i] = pr
		ep := bus.Endpoint(uint8(st.Player))
		mc := rc.Config
		_, err := w.AddRobot(simrun.RobotConfig{Team: "robotd", Player: st.Player, Beam: sim.Beam{X: st.X, Y: st.Y, Deg: st.Deg},
			Robot: &mc, Sim: &sc, NoConnectWait: true, // join waits, holding the simulator
			// The noise a robot adds (Config.Noise) is drawn from the
			// trial's start on, frame by frame: the same on every
			// simulator, whatever ran before the start.
			NoiseEpoch: func() (time.Duration, bool) { s := start.Load(); return time.Duration(s), s != notYet },
			Observe:    func(b *blackboard.Board) error { view.board = b; return nil },
			Modules: func(c *robot.Config) []runner.Module {
				return append(append(robot.Modules(c), robot.TeamModules(c, ep, view, nil, nil)...), pr)
			}})
		if err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", where, err)
		}
		if err := e.join(ctx, g, i, pr); err != nil {
			return res, stalled(err, fmt.Errorf("experiment: trial %s: robot %d: %w", where, st.Player, err))
		}
	}

	// Penalised at their starts for a while; the ball is placed while
	// they are (placeLead), and play starts in the step to t0, when the
	// robots are unpenalised.
	var t0 time.Duration
	lead := placeLead(cfg.Penalised.D())
	grid := base.Config.Behaviour.Roles.Period.D()
	if g != nil {
		now := time.Duration(math.Round(g.LastTime(0)*1000)) * time.Millisecond
		t0 = onGrid(now+cfg.Penalised.D(), grid)
		start.Store(int64(t0))
		g.Hold((t0 - lead - cycle/2).Seconds())
		if err := g.WaitHeld(ctx); err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", where, err)
		}
		n := g.MonitorHandled()
		if err := e.placeBall(tr, t.Ball); err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", where, err)
		}
		if err := g.WaitMonitorHandled(ctx, n+2); err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", where, err)
		}
		g.Hold(math.Inf(1))
	} else {
		var now time.Duration
		for _, p := range probes {
			now = max(now, p.state().last)
		}
		t0 = onGrid(now+cfg.Penalised.D(), grid)
		start.Store(int64(t0))
		if err := e.waitAll(ctx, probes, poke, func(s probeState) bool { return s.last >= t0-lead-2*cycle }); err != nil {
			return res, stalled(err, fmt.Errorf("experiment: trial %s: %w", where, err))
		}
		if err := e.placeBall(tr, t.Ball); err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", where, err)
		}
	}
	res.Start = t0

	// Until a robot has found the ball and every robot has run to that
	// tick (an earlier find by another robot would be known then), or
	// every robot has run to the limit.
	limit := cfg.Limit.D()
	first := func() (time.Duration, int, bool) {
		best, who := time.Duration(math.MaxInt64), 0
		for i, p := range probes {
			s := p.state()
			if s.hasFound && (s.foundAt < best || s.foundAt == best && cfg.Starts[i].Player < who) {
				best, who = s.foundAt, cfg.Starts[i].Player
			}
		}
		return best, who, who != 0 && best <= limit
	}
	err = e.waitAll(ctx, probes, poke, func(probeState) bool { return false }, func(minLast time.Duration) bool {
		if f, _, ok := first(); ok && minLast >= t0+f && !cfg.PlayOn {
			return true
		}
		return minLast >= t0+limit
	})
	if err != nil {
		return res, stalled(err, fmt.Errorf("experiment: trial %s: %w", where, err))
	}
	for i, p := range probes {
		if s := p.state(); s.startBallOK && s.startBall.Dist(hal.Vec2{X: t.Ball.X, Y: t.Ball.Y}) > ballPlaced {
			return res, fmt.Errorf("experiment: trial %s: robot %d: at the start the ball lay at (%.2f, %.2f), not at its place (%.2f, %.2f)",
				where, cfg.Starts[i].Player, s.startBall.X, s.startBall.Y, t.Ball.X, t.Ball.Y)
		}
	}
	end := limit
	if f, who, ok := first(); ok {
		res.Found, res.Time, res.Finder = true, f, who
		if !cfg.PlayOn {
			end = f
		}
	} else {
		res.Time = limit
	}
	idle, before, worst := 0, 0, 0
	var roles [][]RoleChange
	var switches [][]time.Duration
	for _, p := range probes {
		res.Samples = append(res.Samples, p.samplesUntil(end)...)
		res.Falls += p.fallsUntil(end)
		ps := p.state()
		idle, before, worst = idle+ps.idle, before+ps.idleBefore, max(worst, ps.idle)
		r, s, i := p.teamUntil(end)
		roles, switches = append(roles, r), append(switches, s)
		res.Team.Idle = max(res.Team.Idle, i)
	}
	res.Team.summarise(roles, switches, end)
	res.Closest = ClosestApproach(res.Samples)
	res.Wall = time.Since(wall)
	if worst > e.stallTicks {
		return res, &voidError{trial: t.ID(), server: res.Server, ticks: worst, limit: e.stallTicks}
	}
	if g != nil && idle+before > 0 {
		return res, fmt.Errorf("experiment: trial %s: %d ticks without the simulator: %w", where, idle+before, errNondeterministic)
	}
	if idle > 0 {
		e.log.Warn("robots ticked without the simulator", "trial", t.ID(), "ticks", idle)
	}
	if before > 0 {
		// An attached server answers a new robot after its handshake; the
		// robot ticks on its nominal period meanwhile.
		e.log.Debug("robots ticked before the simulator's first message", "trial", t.ID(), "ticks", before)
	}
	return res, nil
}

// placeBall starts play and puts the ball at b (in this order: a real
// server keeps the ball at the centre before kick-off).
func (e *trialEnv) placeBall(tr *simrun.Trainer, b Point) error {
	if err := tr.PlayMode("PlayOn"); err != nil {
		return err
	}
	return tr.MoveBall(b.X, b.Y, ballZ, 0, 0, 0)
}

// join waits until robot i is in the world (on the embedded simulator:
// Gate.Join).
func (e *trialEnv) join(ctx context.Context, g *simgate.Gate, i int, p *probe) error {
	if g == nil {
		return e.waitAll(ctx, []*probe{p}, nil, func(s probeState) bool { return s.connected })
	}
	return g.Join(ctx, i)
}

// stallTimeout is how long the robots may go without ticking (wall time)
// before a trial is given up.
const stallTimeout = 30 * time.Second

// waitAll waits until each probe's state satisfies each (or, if given,
// done says so of the slowest probe's last tick time). A robot that made
// more than the stall limit of ticks without the simulator makes the
// trial void at once: waitAll returns a *voidError (without the trial's
// name), so that a server that died or went silent costs no more wall
// time than the stall.
func (e *trialEnv) waitAll(ctx context.Context, probes []*probe, poke chan struct{}, each func(probeState) bool, done ...func(minLast time.Duration) bool) error {
	tk := time.NewTicker(20 * time.Millisecond)
	defer tk.Stop()
	var lastMin time.Duration = -1
	progress := time.Now()
	for {
		all := true
		minLast := time.Duration(math.MaxInt64)
		worst := 0
		for _, p := range probes {
			s := p.state()
			minLast = min(minLast, s.last)
			worst = max(worst, s.idle)
			if !each(s) {
				all = false
			}
		}
		if worst > e.stallTicks {
			return &voidError{ticks: worst, limit: e.stallTicks}
		}
		if all || len(done) > 0 && done[0](minLast) {
			return nil
		}
		if minLast != lastMin {
			lastMin, progress = minLast, time.Now()
		} else if time.Since(progress) > stallTimeout {
			return fmt.Errorf("experiment: the robots did not tick for %v", stallTimeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("experiment: %w", ctx.Err())
		case <-poke:
		case <-tk.C:
		}
	}
}

// newTrialEnv resolves every strategy's robot configuration.
func newTrialEnv(cfg *Config, log, simLog *slog.Logger, timeout time.Duration) (*trialEnv, error) {
	e := &trialEnv{cfg: cfg, log: log, simLog: simLog, timeout: timeout,
		robots: map[string]RobotConfig{}, hashes: map[string]string{}}
	for _, s := range cfg.Strategies {
		rc, err := cfg.robotConfig(s)
		if err != nil {
			return nil, err
		}
		h, _, err := rc.Hash()
		if err != nil {
			return nil, err
		}
		e.robots[s.Name], e.hashes[s.Name] = rc, h
	}
	return e, nil
}
