// Command embeddedsim runs robotd's embedded SimSpark-compatible simulator:
// agents connect to the agent port (default 127.0.0.1:3100) as they would
// to rcssserver3d, monitors and trainers to the monitor port (default
// 127.0.0.1:3200).
//
//	embeddedsim                      # real time, 10 ms cycles (the SPL fork)
//	embeddedsim -sync                # wait for (syn) from every agent each cycle
//	embeddedsim -cycle 20ms          # upstream rcssserver3d's cycle
//	embeddedsim -seed 7 -no-noise    # other noise, or none
//
// It stops cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/robotd/robotd/simserver"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "embeddedsim:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cfg := simserver.DefaultConfig()
	fs := flag.NewFlagSet("embeddedsim", flag.ContinueOnError)
	fs.StringVar(&cfg.AgentAddr, "agent-addr", cfg.AgentAddr, "agent port address")
	fs.StringVar(&cfg.MonitorAddr, "monitor-addr", cfg.MonitorAddr, "trainer/monitor port address (empty: none)")
	fs.BoolVar(&cfg.Sync, "sync", cfg.Sync, "sync mode: wait for (syn) from every agent each cycle")
	fs.DurationVar(&cfg.Cycle, "cycle", cfg.Cycle, "simulation cycle (10ms on the SPL fork, 20ms upstream)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed (vision noise)")
	fs.StringVar(&cfg.Physics, "physics", cfg.Physics, "world model: kinematic, or ode (rcssserver3d's dynamics on ODE; needs a build with -tags ode)")
	fs.IntVar(&cfg.PhysicsThreads, "physics-threads", cfg.PhysicsThreads, "with -physics ode: step robots that do not touch on this many threads (not deterministic: results can differ from one thread's)")
	fs.BoolVar(&cfg.NoVisionNoise, "no-noise", cfg.NoVisionNoise, "turn the vision noise off")
	fs.IntVar(&cfg.RestSteps, "rest-steps", cfg.RestSteps, "still cycles after which a joint start shows a cycle later (0: never)")
	fs.Float64Var(&cfg.FallMargin, "fall-margin", cfg.FallMargin, "how far (m) the centre of mass may leave the feet before the robot tips over")
	fs.DurationVar(&cfg.SyncTimeout, "sync-timeout", cfg.SyncTimeout, "disconnect an agent that withholds (syn) this long in sync mode (0: wait for ever)")
	level := fs.String("log-level", "info", "log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return fmt.Errorf("-log-level: %w", err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))
	srv, err := simserver.New(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return srv.Run(ctx)
}
