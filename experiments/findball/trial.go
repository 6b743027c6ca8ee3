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
	// Falls counts the robots' falls during the trial.
	Falls int
	// Team is the trial's team play: roles, switches, idling.
	Team TeamPlay
	// Start is the simulation time the trial started at (the robots
	// unpenalised, the ball placed).
	Start time.Duration
	// Samples are the robots' trajectories, every Config.Sample, from the
	// start to the end of the trial, robot after robot.
	Samples []Sample
	// Wall is how long the trial took (not part of the outcome).
	Wall time.Duration
}

// errNondeterministic marks a trial on the embedded simulator in which a
// robot ticked without the simulator: its timing then depended on the
// wall clock, so it is run again.
var errNondeterministic = errors.New("experiment: a robot ticked without the simulator; the trial is not reproducible")

// ballZ is where the trainer puts the ball (its radius: on the ground).
const ballZ = simserver.BallRadius

// trialEnv is what every trial of a campaign shares.
type trialEnv struct {
	cfg     *Config
	target  *simrun.Target // nil: the embedded simulator, one per trial
	log     *slog.Logger   // the campaign's
	simLog  *slog.Logger   // the simulator's and the robots'
	robots  map[string]RobotConfig
	hashes  map[string]string
	timeout time.Duration // wall-clock limit of one trial
}

// cycle is the embedded simulator's step.
const cycle = 10 * time.Millisecond

// run runs one trial: a fresh simulator (or the attached server), the
// robots joined at their starts and penalised, the ball placed and the
// robots unpenalised, until a robot finds the ball or the limit.
func (e *trialEnv) run(ctx context.Context, t Trial) (res Result, err error) {
	wall := time.Now()
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	cfg := e.cfg
	res = Result{Trial: t, ConfigHash: e.hashes[t.Strategy]}
	base, ok := e.robots[t.Strategy]
	if !ok {
		return res, fmt.Errorf("experiment: trial %s: unknown strategy %q", t.ID(), t.Strategy)
	}

	var g *gate
	var srv *simserver.Server
	target := e.target
	if target == nil {
		g = newGate()
		g.hold(math.Inf(-1)) // every reply waits until the controller lets it through
		sc := simserver.DefaultConfig()
		sc.Sync, sc.Seed, sc.Cycle = true, subSeed(t.Seed, 0), cycle
		if cfg.Physics != "" {
			sc.Physics = cfg.Physics
		}
		sc.Logger = e.simLog.With("sim", "embedded")
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
		}
		mln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			ln.Close()
			return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
		}
		sc.AgentListener, sc.MonitorListener = g.listener(ln, true), g.listener(mln, false)
		if srv, err = simserver.New(sc); err != nil {
			ln.Close()
			mln.Close()
			return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
		}
		target = &simrun.Target{Agent: ln.Addr().String(), Trainer: mln.Addr().String()}
		// The simulator outlives the trial's context: it stops after the
		// robots, below.
		sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		done := make(chan error, 1)
		go func() { done <- srv.Run(sctx) }()
		defer func() {
			g.close()
			stop()
			if serr := <-done; serr != nil && err == nil {
				err = fmt.Errorf("experiment: trial %s: simulator: %w", t.ID(), serr)
			}
		}()
	}
	w, err := simrun.Start(ctx, simrun.Options{Target: target, Log: e.simLog, KeepPlayMode: true}) // set below, in a known cycle
	if err != nil {
		return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
	}
	defer func() {
		if cerr := w.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("experiment: trial %s: %w", t.ID(), cerr)
		}
	}()
	tr := w.Trainer()

	// Before kick-off, robots may beam to their starts (a real server
	// also keeps the ball at the centre then).
	if err := e.trainer(ctx, g, srv, tr, func() error { return tr.PlayMode("BeforeKickOff") }); err != nil {
		return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
	}

	bc := cfg.Network
	bc.Seed = subSeed(t.Seed, 1)
	bus, err := teamcomm.NewBus(bc)
	if err != nil {
		return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
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
		sc := simConfig(rc.Sim)
		view := &refereeView{ref: ref}
		pr := newProbe(st.Player, cfg.FoundDistance, cfg.Sample.D(), start, poke)
		probes[i] = pr
		ep := bus.Endpoint(uint8(st.Player))
		mc := rc.Config
		_, err := w.AddRobot(simrun.RobotConfig{Team: "robotd", Player: st.Player, Beam: sim.Beam{X: st.X, Y: st.Y, Deg: st.Deg},
			Robot: &mc, Sim: &sc, NoConnectWait: true, // join waits, holding the simulator
			Observe: func(b *blackboard.Board) error { view.board = b; return nil },
			Modules: func(c *robot.Config) []runner.Module {
				return append(append(robot.Modules(c), robot.TeamModules(c, ep, view, nil, nil)...), pr)
			}})
		if err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
		}
		if err := e.join(ctx, g, i, pr); err != nil {
			return res, fmt.Errorf("experiment: trial %s: robot %d: %w", t.ID(), st.Player, err)
		}
	}

	// Penalised at their starts for a while, then the ball is placed and
	// play starts in the step to t0, when the robots are unpenalised.
	var t0 time.Duration
	if g != nil {
		now := time.Duration(math.Round(g.lastTime(0)*1000)) * time.Millisecond
		t0 = now + cfg.Penalised.D()
		start.Store(int64(t0))
		g.hold((t0 - cycle/2).Seconds())
		if err := g.waitHeld(ctx); err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
		}
		n := g.monitorHandled()
		if err := e.placeBall(tr, t.Ball); err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
		}
		if err := g.waitMonitorHandled(ctx, n+2); err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
		}
		g.hold(math.Inf(1))
	} else {
		var now time.Duration
		for _, p := range probes {
			now = max(now, p.state().last)
		}
		t0 = now + cfg.Penalised.D()
		start.Store(int64(t0))
		if err := e.waitAll(ctx, probes, poke, func(s probeState) bool { return s.last >= t0-2*cycle }); err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
		}
		if err := e.placeBall(tr, t.Ball); err != nil {
			return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
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
		return res, fmt.Errorf("experiment: trial %s: %w", t.ID(), err)
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
	idle := 0
	var roles [][]RoleChange
	var switches [][]time.Duration
	for _, p := range probes {
		res.Samples = append(res.Samples, p.samplesUntil(end)...)
		res.Falls += p.fallsUntil(end)
		idle += p.state().idle
		r, s, i := p.teamUntil(end)
		roles, switches = append(roles, r), append(switches, s)
		res.Team.Idle = max(res.Team.Idle, i)
	}
	res.Team.summarise(roles, switches, end)
	res.Wall = time.Since(wall)
	if idle > 0 {
		if g != nil {
			return res, fmt.Errorf("experiment: trial %s: %d ticks without the simulator: %w", t.ID(), idle, errNondeterministic)
		}
		e.log.Warn("robots ticked without the simulator", "trial", t.ID(), "ticks", idle)
	}
	return res, nil
}

// simConfig is the backend's configuration for a trial: the strategy's,
// with a long nominal period and long timeouts. A robot waiting for a
// sync-mode server waits for the other robots and for the controller; if
// it ticked on without the server meanwhile (every nominal period of wall
// time), its ticks would depend on the machine's speed.
func simConfig(c sim.Config) sim.Config {
	c.Sync = true
	c.Period = config.Duration(max(c.Period.D(), 100*time.Millisecond))
	c.ReadTimeout = config.Duration(max(c.ReadTimeout.D(), 30*time.Second))
	c.DeadTimeout = config.Duration(max(c.DeadTimeout.D(), 60*time.Second))
	c.HandshakeTimeout = config.Duration(max(c.HandshakeTimeout.D(), 60*time.Second))
	return c
}

// trainer sends a trainer command before any robot is there. On the
// embedded simulator it waits until the command was carried out, by the
// simulator's counters: with no robot connected a command is a step of its
// own, so the robots then join in a known cycle. A server gets a moment
// to take it (a sync-mode server without agents may not step, nor send
// monitor messages).
func (e *trialEnv) trainer(ctx context.Context, g *gate, srv *simserver.Server, tr *simrun.Trainer, send func() error) error {
	before := int64(0)
	if srv != nil {
		before = srv.Stats().TrainerCommands
	}
	if err := send(); err != nil {
		return err
	}
	if srv == nil {
		if err := tr.WaitUpdate(ctx, 200*time.Millisecond); err != nil && ctx.Err() != nil {
			return err
		}
		return nil
	}
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	for srv.Stats().TrainerCommands <= before {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the simulator to take a trainer command: %w", ctx.Err())
		case <-tk.C:
		}
	}
	return nil
}

// placeBall starts play and puts the ball at b (in this order: a real
// server keeps the ball at the centre before kick-off).
func (e *trialEnv) placeBall(tr *simrun.Trainer, b Point) error {
	if err := tr.PlayMode("PlayOn"); err != nil {
		return err
	}
	return tr.MoveBall(b.X, b.Y, ballZ, 0, 0, 0)
}

// join waits until robot i is in the world. On the embedded simulator the
// robots join one per cycle while the others wait: robot i's scene is
// filed, the robots already there answer one message, the world steps
// with robot i in it, and every robot waits again.
func (e *trialEnv) join(ctx context.Context, g *gate, i int, p *probe) error {
	if g == nil {
		return e.waitAll(ctx, []*probe{p}, nil, func(s probeState) bool { return s.connected })
	}
	if err := g.waitScene(ctx, i); err != nil {
		return err
	}
	if i > 0 {
		g.hold(g.lastTime(0) + 1e-6)
	}
	return g.waitHeld(ctx)
}

// stallTimeout is how long the robots may go without ticking (wall time)
// before a trial is given up.
const stallTimeout = 30 * time.Second

// waitAll waits until each probe's state satisfies each (or, if given,
// done says so of the slowest probe's last tick time).
func (e *trialEnv) waitAll(ctx context.Context, probes []*probe, poke chan struct{}, each func(probeState) bool, done ...func(minLast time.Duration) bool) error {
	tk := time.NewTicker(20 * time.Millisecond)
	defer tk.Stop()
	var lastMin time.Duration = -1
	progress := time.Now()
	for {
		all := true
		minLast := time.Duration(math.MaxInt64)
		for _, p := range probes {
			s := p.state()
			minLast = min(minLast, s.last)
			if !each(s) {
				all = false
			}
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
func newTrialEnv(cfg *Config, target *simrun.Target, log, simLog *slog.Logger, timeout time.Duration) (*trialEnv, error) {
	e := &trialEnv{cfg: cfg, target: target, log: log, simLog: simLog, timeout: timeout,
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
