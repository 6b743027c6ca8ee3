// Package runner drives robotd's tick: the backend paces it (hal.Clock), the
// runner publishes the backend's sensor values on the blackboard, runs the
// modules in the order their declarations imply, and hands the commands on
// the blackboard back to the backend. It is ros2_control's read → update →
// write loop with B-Human's declared requirements.
package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
)

// Module is one unit of robot code. Modules talk only through the blackboard.
type Module interface {
	// Name is the module's name, unique in a runner.
	Name() string
	// Wire declares what the module reads and writes by obtaining its
	// blackboard handles (blackboard.Read, Use, Write), passing Name() as
	// the module. It runs once, before the first tick.
	Wire(b *blackboard.Board) error
	// Tick runs the module once. It must use t.Time as the time.
	Tick(t hal.Tick) error
}

// HALName is the name under which the runner itself writes the sensor
// entries and reads the command entries.
const HALName = "hal"

// Config is the runner's configuration.
type Config struct {
	// Every runs a module only every Nth tick (by module name); 0 or 1 is
	// every tick.
	Every map[string]int `json:"every"`
	// Budget is the time one module may take per tick before it counts as
	// an overrun. 0 means the tick's period.
	Budget config.Duration `json:"budget"`
	// SafeStateTimeout bounds how long Run waits for the backend to reach
	// the safe state on shutdown.
	SafeStateTimeout config.Duration `json:"safe_state_timeout"`
	// StopAfter stops Run, as a cancel would, once this much tick time has
	// passed since the first tick (0: run until cancelled): a simulation
	// run of a fixed length, however fast the machine runs it.
	StopAfter config.Duration `json:"stop_after"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Every: map[string]int{}, SafeStateTimeout: config.Duration(time.Second)}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within robotd's runner section.
func (c Config) Rules() config.Rules {
	return config.Rules{
		"every":              config.Each(config.Int(0, 10_000)).Doc("", "runs a module only on every Nth tick, by module name (0 or 1: every tick)"),
		"budget":             config.Durations(0, 10*time.Second).Doc("", "the time one module may take per tick before it counts as an overrun (0: the tick's period)"),
		"safe_state_timeout": config.Durations(time.Millisecond, time.Minute).Doc("", "how long shutdown waits for the backend to reach its safe state"),
		"stop_after":         config.Durations(0, 24*time.Hour).Doc("", "ends the run after this much tick time (0: runs until stopped)"),
	}
}

type slot struct {
	m     Module
	every uint64
	obs   moduleObserver
	fails logLimit
}

// logLimit lets a warning that can repeat every tick through at most once
// per second of tick time, counting the occurrences since the last line.
type logLimit struct {
	count, logged uint64
	next          time.Duration
}

// hit counts one occurrence at tick time now and reports whether a line is
// due, and how many occurrences it stands for.
func (l *logLimit) hit(now time.Duration) (due bool, n uint64) {
	l.count++
	if l.logged > 0 && now < l.next {
		return false, 0
	}
	n = l.count - l.logged
	l.logged, l.next = l.count, now+time.Second
	return true, n
}

// failed counts a failing tick of the slot's module and logs it if a line
// is due: a module that fails every tick would otherwise write a line
// every tick.
func (s *slot) failed(log *slog.Logger, t hal.Tick, err error) {
	if due, n := s.fails.hit(t.Time); due {
		log.Warn("module tick failed (logged at most once a second)", "module", s.m.Name(), "tick", t.Seq, "err", err, "failures", n)
	}
}

// Runner runs modules against a backend.
type Runner struct {
	cfg     Config
	dev     hal.Device
	board   *blackboard.Board
	log     *slog.Logger
	met     *Metrics
	added   []*slot
	order   []*slot
	sensors []func()
	sinks   []func()
	tickW   *blackboard.Writer[hal.Tick]
	started bool
	ticks   uint64
	first   time.Duration // the first tick's time
	// reached is set by the first connected tick: before it the backend
	// has no sensor values to publish (its buffers hold zero values, not
	// readings: a battery at 0 %, joints at 0 °C).
	reached bool
	last    time.Duration // the last tick's time
	commits logLimit      // failed commits, logged at most once a second
}

// New returns a runner for dev. met may be nil (no metrics).
func New(cfg Config, dev hal.Device, board *blackboard.Board, log *slog.Logger, met *Metrics) *Runner {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runner{cfg: cfg, dev: dev, board: board, log: log, met: met}
}

// Add adds modules. Call before Start.
func (r *Runner) Add(ms ...Module) {
	for _, m := range ms {
		every := uint64(max(1, r.cfg.Every[m.Name()]))
		r.added = append(r.added, &slot{m: m, every: every})
	}
}

// Order returns the module names in the order they run. Valid after Start.
func (r *Runner) Order() []string {
	out := make([]string, len(r.order))
	for i, s := range r.order {
		out[i] = s.m.Name()
	}
	return out
}

// Board returns the runner's blackboard.
func (r *Runner) Board() *blackboard.Board { return r.board }

// Start wires the backend's capabilities and the modules to the board,
// checks that every entry read has exactly one producer, and derives the
// module order. It fails with a message naming the entry and the modules on
// a duplicate producer, a missing producer or a cycle.
func (r *Runner) Start() error {
	if r.started {
		return errors.New("runner: Start called twice")
	}
	seen := map[string]bool{HALName: true}
	for _, s := range r.added {
		name := s.m.Name()
		if seen[name] {
			return fmt.Errorf("runner: two modules are called %q", name)
		}
		seen[name] = true
	}
	if err := r.wireHAL(); err != nil {
		return err
	}
	for _, s := range r.added {
		if err := s.m.Wire(r.board); err != nil {
			return fmt.Errorf("runner: wiring module %s: %w", s.m.Name(), err)
		}
	}
	if err := r.board.Validate(); err != nil {
		return fmt.Errorf("runner: %w", err)
	}
	order, err := r.deriveOrder()
	if err != nil {
		return err
	}
	r.order = order
	for _, s := range r.order {
		s.obs = r.met.module(s.m.Name())
	}
	r.started = true
	r.log.Info("runner wired", "order", strings.Join(r.Order(), " → "), "sensors", len(r.sensors), "commands", len(r.sinks))
	return nil
}

// deriveOrder sorts the modules topologically by their declared reads and
// writes, keeping the order of Add among modules that do not depend on each
// other.
func (r *Runner) deriveOrder() ([]*slot, error) {
	decls := r.board.Declarations()
	writer := map[string]string{} // entry -> module
	for _, d := range decls {
		for _, e := range d.Writes {
			writer[e] = d.Module
		}
	}
	reads := map[string][]string{}
	for _, d := range decls {
		reads[d.Module] = d.Reads
	}
	// deps[m] = modules m must run after, with the entry that links them.
	type dep struct{ module, entry string }
	deps := map[string][]dep{}
	for _, s := range r.added {
		m := s.m.Name()
		for _, e := range reads[m] {
			w := writer[e]
			if w == "" || w == HALName || w == m {
				continue
			}
			deps[m] = append(deps[m], dep{w, e})
		}
	}
	var order []*slot
	done := map[string]bool{}
	for len(order) < len(r.added) {
		progressed := false
		for _, s := range r.added {
			m := s.m.Name()
			if done[m] {
				continue
			}
			ready := true
			for _, d := range deps[m] {
				if !done[d.module] {
					ready = false
					break
				}
			}
			if ready {
				done[m] = true
				order = append(order, s)
				progressed = true
				break // restart to keep Add order stable
			}
		}
		if !progressed {
			// Every remaining module waits on another: find one cycle.
			var start string
			for _, s := range r.added {
				if !done[s.m.Name()] {
					start = s.m.Name()
					break
				}
			}
			path := []string{start}
			var links []string
			at := map[string]int{start: 0}
			cur := start
			for {
				var next dep
				for _, d := range deps[cur] {
					if !done[d.module] {
						next = d
						break
					}
				}
				links = append(links, fmt.Sprintf("%s reads %q written by %s", cur, next.entry, next.module))
				if i, ok := at[next.module]; ok {
					cycle := append(slices.Clone(path[i:]), next.module)
					slices.Reverse(cycle)
					return nil, &CycleError{Modules: cycle, Links: links[i:]}
				}
				at[next.module] = len(path)
				path = append(path, next.module)
				cur = next.module
			}
		}
	}
	return order, nil
}

// CycleError is returned by Start when the modules' declarations form a
// cycle.
type CycleError struct {
	// Modules is the cycle, first module repeated at the end.
	Modules []string
	// Links says which entry links each pair.
	Links []string
}

func (e *CycleError) Error() string {
	return fmt.Sprintf("runner: cycle between modules %s: %s (declare one of these reads with blackboard.Use to break it)",
		strings.Join(e.Modules, " → "), strings.Join(e.Links, "; "))
}

// Step runs one tick: wait for the backend, publish sensors, run modules,
// hand commands to the backend.
func (r *Runner) Step(ctx context.Context) error {
	if !r.started {
		return errors.New("runner: Step before Start")
	}
	t, err := r.dev.Next(ctx)
	if err != nil {
		return fmt.Errorf("runner: waiting for the next tick: %w", err)
	}
	// A backend may return a tick that arrived as ctx was cancelled: once
	// shutdown has started, no module's command goes out, only the safe
	// state (Run).
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("runner: stopping before tick %d: %w", t.Seq, err)
	}
	r.ticks++
	if r.ticks == 1 {
		r.first = t.Time
	}
	r.last = t.Time
	r.board.BeginTick(t.Seq, t.Time)
	r.tickW.Set(t)
	// A disconnected tick keeps the last known sensor values (hal.Tick);
	// before the first connected one there are none, so the sensor
	// entries stay unwritten and their readers see no data.
	r.reached = r.reached || t.Connected
	if r.reached {
		for _, f := range r.sensors {
			f()
		}
	}
	budget := r.cfg.Budget.D()
	if budget <= 0 {
		budget = t.Period
	}
	start := time.Now()
	for _, s := range r.order {
		if s.every > 1 && r.ticks%s.every != 0 {
			continue
		}
		t0 := time.Now()
		err := s.m.Tick(t)
		d := time.Since(t0)
		s.obs.observe(d, budget, err != nil)
		if err != nil {
			s.failed(r.log, t, err)
		}
	}
	r.met.tick(time.Since(start), t.Period, t.Connected)
	for _, f := range r.sinks {
		f()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("runner: stopping before committing tick %d: %w", t.Seq, err)
	}
	if err := r.dev.Commit(ctx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("runner: committing tick %d: %w", t.Seq, err)
		}
		r.met.commitError()
		if due, n := r.commits.hit(t.Time); due {
			r.log.Warn("backend commit failed (logged at most once a second)", "tick", t.Seq, "err", err, "failures", n)
		}
	}
	return nil
}

// Run runs ticks until ctx is done, the clock reports io.EOF (no more ticks,
// e.g. a replay ended) or the backend fails, then puts the backend into its
// safe state. It returns nil on a clean shutdown. Config.StopAfter ends it
// after a fixed tick time.
func (r *Runner) Run(ctx context.Context) error { return r.RunRecorded(ctx, nil) }

// SafeState asks the backend for its safe state, bounded by the configured
// timeout, and logs the outcome.
func (r *Runner) SafeState() error {
	timeout := r.cfg.SafeStateTimeout.D()
	if timeout <= 0 {
		timeout = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := r.dev.SafeState(ctx); err != nil {
		r.log.Error("could not reach safe state", "err", err)
		return fmt.Errorf("runner: safe state: %w", err)
	}
	r.log.Info("safe state reached")
	return nil
}
