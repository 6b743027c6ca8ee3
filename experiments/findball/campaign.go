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
	// simulator (1 on an attached server, which runs one trial at a time).
	Parallel int
	// Target attaches to a running SimSpark server (rcssserver3d in sync
	// mode, or robotd's cmd/embeddedsim) instead of starting the embedded
	// simulator for every trial.
	Target *simrun.Target
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
	// (Target) waits for a message before it ticks without it (30 s by
	// default, simgate.SyncConfig's).
	ReadTimeout time.Duration
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
}

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
	if opt.Target != nil {
		opt.Parallel = 1
	}
	if opt.Target == nil && cfg.Physics == simserver.PhysicsODE && !ode.Available {
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
	env, err := newTrialEnv(cfg, opt.Target, log, simLog, opt.TrialTimeout)
	if err != nil {
		return sum, err
	}
	env.stallTicks, env.readTimeout = opt.StallTicks, opt.ReadTimeout

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		r     Result
		voids []Void
		err   error
	}
	jobs := make(chan Trial)
	results := make(chan outcome)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		for _, t := range todo {
			select {
			case jobs <- t:
			case <-ctx.Done():
				return
			}
		}
	})
	var workers sync.WaitGroup
	for range opt.Parallel {
		workers.Go(func() {
			for t := range jobs {
				r, voids, err := env.runRetrying(ctx, t, opt.Retries)
				select {
				case results <- outcome{r, voids, err}:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	wg.Go(func() {
		workers.Wait()
		close(results)
	})

	var firstErr error
	for o := range results {
		for i := range o.voids {
			// A void run is recorded even while the run stops.
			if err := st.SaveVoid(context.WithoutCancel(ctx), &o.voids[i], opt.Shard); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				cancel()
			}
			sum.Voided++
		}
		if errors.Is(o.err, errVoid) && ctx.Err() == nil {
			// Void twice: not stored; the campaign goes on, and running it
			// again runs the trial again.
			sum.VoidTwice++
			log.Error("trial void twice; not stored", "trial", o.r.ID(), "err", o.err)
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
		log.Info("trial", "id", o.r.ID(), "found", o.r.Found, "time", o.r.Time.Seconds(), "finder", o.r.Finder,
			"falls", o.r.Falls, "wall", o.r.Wall.Round(time.Millisecond), "done", sum.Ran, "of", len(todo))
		if opt.Progress != nil {
			opt.Progress(&o.r, sum.Ran, len(todo))
		}
	}
	wg.Wait()
	sum.Wall = time.Since(wall)
	if firstErr != nil {
		return sum, firstErr
	}
	if sum.VoidTwice > 0 {
		return sum, fmt.Errorf("experiment: %d trials were void in both runs and are not stored (%d void runs in all): run the campaign again to run them", sum.VoidTwice, sum.Voided)
	}
	if err := ctx.Err(); err != nil && sum.Ran < len(todo) {
		return sum, fmt.Errorf("experiment: campaign stopped after %d of %d trials: %w", sum.Ran, len(todo), err)
	}
	return sum, nil
}

// runRetrying runs a trial, again after a failure (a robot that ticked
// without the simulator, a robot that stopped, a stall), at most retries
// more times; a void trial (errVoid) is run once more, whatever retries
// says (unless it is negative), and its void runs are returned.
func (e *trialEnv) runRetrying(ctx context.Context, t Trial, retries int) (Result, []Void, error) {
	var voids []Void
	for attempt := 0; ; attempt++ {
		r, err := e.run(ctx, t)
		if ve := (*voidError)(nil); errors.As(err, &ve) && ctx.Err() == nil {
			voids = append(voids, Void{Trial: t.ID(), Ticks: ve.ticks, Reason: err.Error()})
			if len(voids) > 1 || retries < 0 {
				return r, voids, err
			}
			e.log.Warn("trial void: a robot ticked without the simulator; running it again", "trial", t.ID(), "ticks", ve.ticks, "limit", ve.limit)
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
		e.log.Log(ctx, level, "trial failed; running it again", "trial", t.ID(), "attempt", attempt+1, "err", err)
	}
}
