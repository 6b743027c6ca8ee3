package match

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/simserver/ode"
)

// Options say how a campaign runs; they do not change its outcome.
type Options struct {
	// Shard is the part of the campaign to run (findball.All by default).
	Shard findball.Shard
	// Parallel is how many games run at once (1 on an attached server).
	Parallel int
	// Target attaches to a running SimSpark server instead of starting
	// the embedded simulator for every game.
	Target *simrun.Target
	// Retries is how often a void or failed game is played again (2 by
	// default; -1 never).
	Retries int
	// Stall is how long the world may take to reach the referee's next
	// look (wall time) before the game is void (60 s by default).
	Stall time.Duration
	// Log receives the campaign's progress, SimLog the simulators' and
	// robots' logs; nil discards.
	Log, SimLog *slog.Logger
	// View, if set, shows the games as they are played (the last to look
	// when several run at once).
	View *View
	// Progress, if set, is called after each game is stored.
	Progress func(r *Result, done, todo int)
}

// Summary says what a run did.
type Summary struct {
	Planned, Skipped, Ran int
	// Void counts the games played again because they were void.
	Void int
	Wall time.Duration
}

// Run plays the campaign's games of opt.Shard that the database does not
// hold yet, storing each as it ends; running it again continues.
func Run(ctx context.Context, cfg *Config, st *Store, opt Options) (Summary, error) {
	return RunGames(ctx, cfg, st, cfg.Plan(), opt)
}

// RunGames is Run for the games given (of the campaign's plan).
func RunGames(ctx context.Context, cfg *Config, st *Store, games []Game, opt Options) (Summary, error) {
	start := time.Now()
	var sum Summary
	if err := cfg.Validate(); err != nil {
		return sum, err
	}
	if opt.Target == nil && cfg.Physics == simserver.PhysicsODE && !ode.Available {
		return sum, fmt.Errorf("match: the physics mode %q needs a build with -tags ode (and libode); -physics %s runs without it", cfg.Physics, simserver.PhysicsKinematic)
	}
	if opt.Shard.N == 0 {
		opt.Shard = findball.All
	}
	opt.Parallel = max(opt.Parallel, 1)
	if opt.Target != nil {
		opt.Parallel = 1
	}
	if opt.Retries == 0 {
		opt.Retries = 2
	}
	if err := st.Begin(ctx, cfg); err != nil {
		return sum, err
	}
	done, err := st.Done(ctx)
	if err != nil {
		return sum, err
	}
	var todo []Game
	for _, g := range games {
		if opt.Shard.N > 1 && g.Index%opt.Shard.N != opt.Shard.I {
			continue
		}
		sum.Planned++
		if done[g.ID()] {
			sum.Skipped++
		} else {
			todo = append(todo, g)
		}
	}
	e, err := newEnv(cfg, opt.Target, opt.Log, opt.SimLog)
	if err != nil {
		return sum, err
	}
	if opt.Stall > 0 {
		e.stall = opt.Stall
	}
	e.view = opt.View
	e.log.Info("campaign", "db", st.Path(), "shard", opt.Shard.String(), "games", sum.Planned, "stored", sum.Skipped, "to_play", len(todo), "parallel", opt.Parallel)
	err = e.playAll(ctx, todo, opt, func(r *Result, void int) error {
		if err := st.Save(context.WithoutCancel(ctx), r, opt.Shard); err != nil {
			return err
		}
		sum.Ran++
		sum.Void += void
		e.log.Info("game", "id", r.ID(), "score", fmt.Sprintf("%d:%d", r.Score[0], r.Score[1]), "wall", r.Wall.Round(time.Second), "done", sum.Ran, "of", len(todo))
		if opt.Progress != nil {
			opt.Progress(r, sum.Ran, len(todo))
		}
		return nil
	})
	sum.Wall = time.Since(start)
	return sum, err
}

// playAll plays the games, opt.Parallel at a time, handing each result
// to store in the caller's goroutine; the first error stops the rest.
func (e *env) playAll(ctx context.Context, games []Game, opt Options, store func(r *Result, void int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		r    Result
		void int
		err  error
	}
	jobs := make(chan Game)
	out := make(chan outcome)
	var wg sync.WaitGroup
	for range opt.Parallel {
		wg.Go(func() {
			for g := range jobs {
				r, void, err := e.playRetrying(ctx, g, opt.Retries)
				select {
				case out <- outcome{r, void, err}:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		defer close(jobs)
		for _, g := range games {
			select {
			case jobs <- g:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()
	var first error
	for o := range out {
		err := o.err
		if err == nil {
			err = store(&o.r, o.void)
		}
		if err != nil && first == nil {
			first = err
			cancel()
		}
	}
	if first != nil {
		return first
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("match: campaign stopped: %w", err)
	}
	return nil
}

// playRetrying plays a game, again when it was void or failed, at most
// retries more times; void counts the void attempts.
func (e *env) playRetrying(ctx context.Context, g Game, retries int) (r Result, void int, err error) {
	for attempt := 0; ; attempt++ {
		r, err = e.Play(ctx, g)
		if err == nil || ctx.Err() != nil || retries < 0 || attempt >= retries {
			return r, void, err
		}
		level := slog.LevelError
		if errors.Is(err, ErrVoid) {
			level = slog.LevelWarn
			void++
		}
		e.log.Log(ctx, level, "game void or failed; playing it again", "game", g.ID(), "attempt", attempt+1, "err", err)
	}
}
