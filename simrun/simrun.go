// Package simrun runs robots against a SimSpark server: robotd's embedded
// simulator (package simserver), started in-process on free ports, or a real
// rcssserver3d named by the ROBOTD_SIMSPARK environment variable
// ("agent-host:port,trainer-host:port"). Each robot is an in-process robotd:
// the SimSpark backend over a real TCP connection, a blackboard, the runner
// and the daemon's modules (robot.Assemble). A trainer client moves the ball
// and the robots and sets the play mode over the trainer/monitor port.
//
// Integration tests, scenario tests and the find-ball experiment use it, so
// that every one of them runs against the real server just by setting the
// environment variable: nothing is silently skipped, and without the
// variable the embedded simulator is used.
package simrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/simserver"
)

// EnvVar names the environment variable that points runs at a real server.
const EnvVar = "ROBOTD_SIMSPARK"

// Target is where a SimSpark server listens.
type Target struct {
	// Agent is the agent port's host:port (3100 by default on a server).
	Agent string
	// Trainer is the trainer/monitor port's host:port (3200).
	Trainer string
}

// ParseTarget parses "agent-host:port,trainer-host:port".
func ParseTarget(s string) (Target, error) {
	agent, trainer, ok := strings.Cut(strings.TrimSpace(s), ",")
	if !ok {
		return Target{}, fmt.Errorf("simrun: %q: want agent-host:port,trainer-host:port", s)
	}
	t := Target{Agent: strings.TrimSpace(agent), Trainer: strings.TrimSpace(trainer)}
	for _, a := range []string{t.Agent, t.Trainer} {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return Target{}, fmt.Errorf("simrun: %q: %w", s, err)
		}
	}
	return t, nil
}

// TargetFromEnv reads EnvVar. ok is false when it is unset or empty.
func TargetFromEnv() (t Target, ok bool, err error) {
	v := os.Getenv(EnvVar)
	if v == "" {
		return Target{}, false, nil
	}
	t, err = ParseTarget(v)
	if err != nil {
		return Target{}, false, fmt.Errorf("%s: %w", EnvVar, err)
	}
	return t, true, nil
}

// Options configure a World.
type Options struct {
	// Server configures the embedded simulator; its addresses are
	// replaced by free loopback ports. Zero means simserver.DefaultConfig
	// in sync mode.
	Server *simserver.Config
	// Target, if set, attaches to that server instead of starting one.
	// If nil, EnvVar decides; if it is unset, the embedded simulator runs.
	Target *Target
	// Log receives the simulator's and the robots' logs; nil discards.
	Log *slog.Logger
	// KeepPlayMode leaves an attached server's play mode and game clock
	// as they are, for a caller that sets them itself in a cycle of its
	// choosing (Start otherwise sets BeforeKickOff and the clock to 0,
	// see there; Trainer.PlayModeFromZero does both).
	KeepPlayMode bool
	// ServerClock makes the robots' tick time the attached server's own
	// time, for a server whose clock started with this run (an embedded
	// simulator the caller started itself, as simgate.Start does): then a
	// time the caller reads from the server (simgate.Gate.LastTime) is a
	// tick time. Without it, the first robot's tick time goes on at the
	// next whole second after its handshake (sim.TimeBase), up to 1 s
	// ahead of the server. The embedded simulator Start starts itself
	// always runs so.
	ServerClock bool
}

// World is a running simulation: a server (embedded or attached) and the
// robots added to it.
type World struct {
	target   Target
	embedded *simserver.Server
	sync     bool
	log      *slog.Logger

	cancel  context.CancelFunc
	srvDone chan error

	trainer *Trainer
	clock   sim.TimeBase // the robots' common tick time

	mu     sync.Mutex
	robots []*Robot
	closed bool
}

// Start starts the embedded simulator (or attaches to a real server, see
// Options.Target) and connects a trainer. Close ends it.
func Start(ctx context.Context, opt Options) (*World, error) {
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &World{log: log, sync: true}
	target := opt.Target
	if target == nil {
		t, ok, err := TargetFromEnv()
		if err != nil {
			return nil, err
		}
		if ok {
			target = &t
		}
	}
	if target != nil {
		w.target = *target
		if opt.ServerClock {
			w.clock.Fix(0)
		}
		log.Info("simrun: attaching to a SimSpark server", "agent", target.Agent, "trainer", target.Trainer)
	} else {
		cfg := simserver.DefaultConfig()
		cfg.Sync = true
		if opt.Server != nil {
			cfg = *opt.Server
		}
		cfg.AgentAddr, cfg.MonitorAddr = "127.0.0.1:0", "127.0.0.1:0"
		cfg.AgentListener, cfg.MonitorListener = nil, nil
		if cfg.Logger == nil {
			cfg.Logger = log.With("sim", "embedded")
		}
		srv, err := simserver.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("simrun: starting the embedded simulator: %w", err)
		}
		w.embedded = srv
		w.sync = cfg.Sync
		// The embedded simulator's clock starts with the world: the
		// robots' tick time is its time, whenever a robot joins, so that
		// a run does not depend on how long a robot waited to join.
		w.clock.Fix(0)
		w.target = Target{Agent: srv.AgentAddr().String(), Trainer: srv.MonitorAddr().String()}
		sctx, cancel := context.WithCancel(context.Background())
		w.cancel = cancel
		w.srvDone = make(chan error, 1)
		go func() { w.srvDone <- srv.Run(sctx) }()
	}
	tr, err := DialTrainer(ctx, w.target.Trainer)
	if err != nil {
		w.stopServer()
		return nil, err
	}
	w.trainer = tr
	// Robots beam only before kick-off, and an earlier run may have left
	// a real server in PlayOn. The embedded simulator starts in
	// BeforeKickOff; a command to it now would land in whichever cycle
	// it is taken, which a reproducible run must not depend on.
	//
	// An attached server's game clock goes on from earlier runs (in
	// PlayOn it runs freely while no agent is connected), and the
	// server's rules end the first half at 300 s of it (BeforeKickOff:
	// the clock stops, the robots stand in SET) and the game at 600 s
	// (GameOver, to which every later PlayOn returns a cycle on); (time 0)
	// starts it again, so that every run has at least 300 s of play.
	//
	// The server takes the command in a cycle of its own, and a robot
	// that inits before then, in another play mode, cannot beam: it stays
	// at its spawn slot (off the field on a server that has had 70 or
	// more agents). So Start returns once the monitor reports the mode.
	if w.embedded == nil && !opt.KeepPlayMode {
		err := tr.PlayModeFromZero("BeforeKickOff")
		if err == nil {
			err = tr.WaitPlayMode(ctx, "BeforeKickOff", 10*time.Second)
		}
		if err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// Target returns the server's addresses.
func (w *World) Target() Target { return w.target }

// Embedded returns the embedded simulator, or nil when attached to a real
// server.
func (w *World) Embedded() *simserver.Server { return w.embedded }

// Sync reports whether the server runs in sync mode (robots answer every
// cycle with (syn)). An attached server is assumed to (SPARK_FAST_TIME).
func (w *World) Sync() bool { return w.sync }

// Trainer returns the trainer client.
func (w *World) Trainer() *Trainer { return w.trainer }

// Robots returns the robots added so far.
func (w *World) Robots() []*Robot {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*Robot(nil), w.robots...)
}

// Close stops every robot (safe state first), the trainer, and the
// embedded simulator. It returns the first error a robot's run ended
// with, other than its being stopped.
func (w *World) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	robots := w.robots
	w.mu.Unlock()
	var errs []error
	for _, r := range robots {
		if err := r.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := w.trainer.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := w.stopServer(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (w *World) stopServer() error {
	if w.embedded == nil {
		return nil
	}
	w.cancel()
	select {
	case err := <-w.srvDone:
		if err != nil {
			return fmt.Errorf("simrun: embedded simulator: %w", err)
		}
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("simrun: the embedded simulator did not stop within 10 s")
	}
}
