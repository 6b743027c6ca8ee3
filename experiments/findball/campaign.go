package findball

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/simserver/ode"
)

// Options say how a campaign runs; they do not change its outcome.
type Options struct {
	// Shard is the part of the campaign to run (All by default).
	Shard Shard
	// Parallel is how many trials run at once, each on its own embedded
	// simulator. With Targets it is not used: one trial runs at a time on
	// each server.
	Parallel int
	// Targets are running SimSpark servers (rcssserver3d in sync mode, or
	// robotd's cmd/embeddedsim -sync), each on its own ports, to run the
	// trials on instead of starting the embedded simulator for every
	// trial. Each server has a worker of its own that runs one trial at a
	// time there. A server on which a trial fails (after its retries) is
	// left out for the rest of the run, and the others go on: the trial is
	// not stored, Run's error names the server, and running the campaign
	// again runs the trials left.
	Targets []simrun.Target
	// TrialTimeout bounds one trial's wall time (10 minutes by default).
	TrialTimeout time.Duration
	// Retries is how often a trial that failed is run again (2 by
	// default; -1 never).
	Retries int
	// StallTicks is the most ticks a robot may make without the simulator
	// after the simulator first answered it (a stall) in a trial that
	// counts: a trial with more is void, logged, recorded as voided in the
	// store, never stored as a result, and run once more (5 by default;
	// -1 no limit). A robot ticks without the simulator once it has waited
	// its backend's read timeout for a message.
	StallTicks int
	// ReadTimeout, if positive, is how long a robot on an attached server
	// (Targets) waits for a message before it ticks without it (30 s by
	// default, simgate.SyncConfig's).
	ReadTimeout time.Duration
	// HandshakeTimeout, if positive, is how long a robot joining an
	// attached server waits for its first message before it connects
	// again (simrun.JoinHandshake by default).
	HandshakeTimeout time.Duration
	// Log receives the campaign's progress, SimLog the simulators' and
	// robots' logs; nil discards.
	Log, SimLog *slog.Logger
	// Progress, if set, is called after each trial is stored, with the
	// number stored in this run and the number the run set out to do.
	Progress func(r *Result, done, todo int)
}

// Summary says what a run did.
type Summary struct {
	// Planned is the shard's number of trials; Skipped were already in
	// the database; Ran were run and stored now.
	Planned, Skipped, Ran int
	// Voided counts the void runs of trials (recorded in the store, not
	// stored as results); VoidTwice the trials whose rerun was void too
	// (or whose one run was, with Retries -1): not stored, they stay to
	// be run.
	Voided, VoidTwice int
	Wall              time.Duration
	// Servers says what each of Options.Targets did, in their order
	// (empty on the embedded simulator).
	Servers []ServerSummary
}

// ServerSummary says what a run did on one server.
type ServerSummary struct {
	Target simrun.Target
	// Ran counts the trials run there and stored; Voided the void runs
	// there.
	Ran, Voided int
	// Err, if not nil, is why the server was left out: a trial failed
	// there after its retries.
	Err error
}

// serverName names a server as -server does: "agent-host:port,trainer-host:port".
func serverName(t simrun.Target) string { return t.Agent + "," + t.Trainer }

// Run runs the campaign's trials of opt.Shard that the database does not
// hold yet, storing each as it ends. Cancelling ctx stops it; the trials
// that had ended are kept, and running it again continues.
func Run(ctx context.Context, cfg *Config, st *Store, opt Options) (Summary, error) {
	wall := time.Now()
	var sum Summary
	if err := cfg.Validate(); err != nil {
		return sum, err
	}
	if opt.Shard.N == 0 {
		opt.Shard = All
	}
	if opt.Parallel <= 0 {
		opt.Parallel = 1
	}
	servers := len(opt.Targets)
	if servers > 0 {
		opt.Parallel = servers
		seen := map[simrun.Target]bool{}
		for _, t := range opt.Targets {
			if seen[t] {
				return sum, fmt.Errorf("experiment: server %s is named twice", serverName(t))
			}
			seen[t] = true
			sum.Servers = append(sum.Servers, ServerSummary{Target: t})
		}
	}
	if servers == 0 && cfg.Physics == simserver.PhysicsODE && !ode.Available {
		return sum, fmt.Errorf("experiment: the campaign's physics mode %q needs a build with -tags ode (and libode); physics %q runs without it but judges no strategy", cfg.Physics, simserver.PhysicsKinematic)
	}
	if opt.TrialTimeout <= 0 {
		opt.TrialTimeout = 10 * time.Minute
	}
	if opt.Retries == 0 {
		opt.Retries = 2
	}
	switch {
	case opt.StallTicks == 0:
		opt.StallTicks = defaultStallTicks
	case opt.StallTicks < 0:
		opt.StallTicks = math.MaxInt
	}
	log, simLog := opt.Log, opt.SimLog
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if simLog == nil {
		simLog = slog.New(slog.DiscardHandler)
	}
	if err := st.Begin(ctx, cfg); err != nil {
		return sum, err
	}
	done, err := st.Done(ctx)
	if err != nil {
		return sum, err
	}
	var todo []Trial
	for _, t := range cfg.Plan() {
		if !opt.Shard.Has(t) {
			continue
		}
		sum.Planned++
		if done[t.ID()] {
			sum.Skipped++
			continue
		}
		todo = append(todo, t)
	}
	log.Info("campaign", "db", st.Path(), "shard", opt.Shard.String(), "trials", sum.Planned, "stored", sum.Skipped, "to_run", len(todo), "parallel", opt.Parallel)
	if len(todo) == 0 {
		sum.Wall = time.Since(wall)
		return sum, nil
	}
	env, err := newTrialEnv(cfg, log, simLog, opt.TrialTimeout)
	if err != nil {
		return sum, err
	}
	env.stallTicks, env.readTimeout, env.handshake = opt.StallTicks, opt.ReadTimeout, opt.HandshakeTimeout

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		r      Result
		voids  []Void
		err    error
		server int // index into opt.Targets; -1 on the embedded simulator
	}
	jobs := make(chan Trial)
	results := make(chan outcome)
	// feed ends when every worker has: workers leave early when their
	// server is left out.
	feed, stopFeed := context.WithCancel(ctx)
	defer stopFeed()
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		for _, t := range todo {
			select {
			case jobs <- t:
			case <-feed.Done():
				return
			}
		}
	})
	var workers sync.WaitGroup
	for w := range opt.Parallel {
		server := -1
		var target *simrun.Target
		if servers > 0 {
			server, target = w, &opt.Targets[w]
		}
		workers.Go(func() {
			for t := range jobs {
				r, voids, err := env.runRetrying(ctx, t, opt.Retries, target)
				select {
				case results <- outcome{r, voids, err, server}:
				case <-ctx.Done():
					return
				}
				if err != nil && target != nil && !errors.Is(err, errVoid) {
					return // the server is left out
				}
			}
		})
	}
	wg.Go(func() {
		workers.Wait()
		stopFeed()
		close(results)
	})

	var firstErr error
	var serverErrs []error
	for o := range results {
		var ss *ServerSummary
		if o.server >= 0 {
			ss = &sum.Servers[o.server]
		}
		for i := range o.voids {
			// A void run is recorded even while the run stops.
			if err := st.SaveVoid(context.WithoutCancel(ctx), &o.voids[i], opt.Shard); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				cancel()
			}
			sum.Voided++
			if ss != nil {
				ss.Voided++
			}
		}
		if errors.Is(o.err, errVoid) && ctx.Err() == nil {
			// Void twice: not stored; the campaign goes on, and running it
			// again runs the trial again.
			sum.VoidTwice++
			log.Error("trial void twice; not stored", "trial", o.r.ID(), "server", o.r.Server, "err", o.err)
			continue
		}
		if o.err != nil && ss != nil {
			if ctx.Err() == nil {
				ss.Err = fmt.Errorf("experiment: server %s left out after a failed trial: %w", serverName(ss.Target), o.err)
				serverErrs = append(serverErrs, ss.Err)
				log.Error("trial failed; leaving its server out, the other servers go on", "trial", o.r.ID(), "server", serverName(ss.Target),
					"servers_left", servers-len(serverErrs), "err", o.err)
			}
			continue
		}
		if o.err != nil {
			if firstErr == nil && ctx.Err() == nil {
				firstErr = o.err
				log.Error("trial failed; stopping the campaign", "err", o.err)
			}
			cancel()
			continue
		}
		// A trial that ended is stored even while the run stops.
		if err := st.Save(context.WithoutCancel(ctx), cfg, &o.r, opt.Shard); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			cancel()
			continue
		}
		sum.Ran++
		if ss != nil {
			ss.Ran++
		}
		args := []any{"id", o.r.ID(), "found", o.r.Found, "time", o.r.Time.Seconds(), "finder", o.r.Finder,
			"falls", o.r.Falls, "wall", o.r.Wall.Round(time.Millisecond), "done", sum.Ran, "of", len(todo)}
		if ss != nil {
			args = append(args, "server", o.r.Server)
		}
		log.Info("trial", args...)
		if opt.Progress != nil {
			opt.Progress(&o.r, sum.Ran, len(todo))
		}
	}
	wg.Wait()
	sum.Wall = time.Since(wall)
	if firstErr != nil {
		return sum, firstErr
	}
	if len(serverErrs) > 0 {
		return sum, fmt.Errorf("experiment: %d of %d servers left out, %d of %d trials stored (run the campaign again to run the rest): %w",
			len(serverErrs), servers, sum.Ran, len(todo), errors.Join(serverErrs...))
	}
	if sum.VoidTwice > 0 {
		return sum, fmt.Errorf("experiment: %d trials were void in both runs and are not stored (%d void runs in all): run the campaign again to run them", sum.VoidTwice, sum.Voided)
	}
	if err := ctx.Err(); err != nil && sum.Ran < len(todo) {
		return sum, fmt.Errorf("experiment: campaign stopped after %d of %d trials: %w", sum.Ran, len(todo), err)
	}
	return sum, nil
}

// runRetrying runs a trial on target (nil: an embedded simulator of its
// own), again after a failure (a robot that ticked
// without the simulator, a robot that stopped, a stall), at most retries
// more times; a void trial (errVoid) is run once more, whatever retries
// says (unless it is negative), and its void runs are returned.
func (e *trialEnv) runRetrying(ctx context.Context, t Trial, retries int, target *simrun.Target) (Result, []Void, error) {
	var voids []Void
	for attempt := 0; ; attempt++ {
		r, err := e.run(ctx, t, target)
		if ve := (*voidError)(nil); errors.As(err, &ve) && ctx.Err() == nil {
			voids = append(voids, Void{Trial: t.ID(), Ticks: ve.ticks, Reason: err.Error()})
			if len(voids) > 1 || retries < 0 {
				return r, voids, err
			}
			e.log.Warn("trial void: a robot ticked without the simulator; running it again", "trial", t.ID(), "server", r.Server, "ticks", ve.ticks, "limit", ve.limit)
			attempt-- // a void run is not a failure
			continue
		}
		if err == nil || ctx.Err() != nil || retries < 0 || attempt >= retries {
			return r, voids, err
		}
		level := slog.LevelWarn
		if !errors.Is(err, errNondeterministic) {
			level = slog.LevelError
		}
		e.log.Log(ctx, level, "trial failed; running it again", "trial", t.ID(), "server", r.Server, "attempt", attempt+1, "err", err)
	}
}
