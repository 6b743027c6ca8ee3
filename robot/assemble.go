package robot

import (
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/runner"
)

// Options are what differs between the robots Assemble builds: the
// daemon's (cmd/robotd), a replay's, and an in-process simulation run's
// (simrun). The zero value assembles the daemon's modules without a
// vision stage, network or metrics.
type Options struct {
	// Body, if set, is the robot's body, and the configuration's
	// motion.body is left as it is: a replay's, whose backend is a
	// recording. Nil: both are the backend's (BodyOf, KindOf).
	Body *Body
	// Modules, if set, builds the robot's modules instead of ModulesFor
	// (a scripted behaviour, a probe): it is called with the
	// configuration once motion.body is the backend's.
	Modules func(*Config) []runner.Module
	// Vision, if set, gives the vision stage of a legged robot with
	// cameras (VisionModules), as the configuration, once motion.body
	// is the backend's, wants it (VisionOf, say). Nil: no vision stage (a
	// replay feeds the recorded observations instead).
	Vision func(*Config) Vision
	// Extra modules run after the robot's and the vision stage: the
	// network's (Network.Modules), a replay's feeds, test probes.
	Extra []runner.Module
	// Observe, if set, is called with the new board before anything is
	// wired to it, so that a caller can declare readers of its own.
	Observe func(*blackboard.Board) error
	// Registerer, if not nil, gets the runner's metrics, behaviour's role
	// switches and safety's actions (RegisterRoleMetrics,
	// RegisterSafetyMetrics).
	Registerer prometheus.Registerer
	// Log receives the runner's logs; nil discards them.
	Log *slog.Logger
}

// Robot is an assembled robot: its modules wired on a board, with a
// started runner over the backend, ready to Run.
type Robot struct {
	// Runner ticks the robot; it is started.
	Runner *runner.Runner
	// Board is the robot's blackboard.
	Board *blackboard.Board
	// Body is what the robot moves with.
	Body Body
	// Modules are the modules added to the runner, in the order added.
	Modules []runner.Module
}

// Assemble builds the robot configured by cfg on the backend dev, as
// opt says, and starts its runner (wires every module and derives the
// order). Unless opt.Body is set it sets cfg.Motion.Body to the backend's
// body (KindOf), so that cfg, recorded, says what ran. If anything fails
// after the runner exists, the backend is put into its safe state first.
// Assemble starts no goroutine: the caller runs the runner and closes dev.
func Assemble(cfg *Config, dev hal.Device, opt Options) (*Robot, error) {
	b := BodyOf(dev)
	if opt.Body != nil {
		b = *opt.Body
	} else {
		cfg.Motion.Body = KindOf(dev)
	}
	var met *runner.Metrics
	if opt.Registerer != nil {
		var err error
		if met, err = runner.NewMetrics(opt.Registerer, dev); err != nil {
			return nil, fmt.Errorf("robot: runner metrics: %w", err)
		}
	}
	board := blackboard.New()
	if opt.Observe != nil {
		if err := opt.Observe(board); err != nil {
			return nil, fmt.Errorf("robot: observing the board: %w", err)
		}
	}
	var mods []runner.Module
	if opt.Modules != nil {
		mods = opt.Modules(cfg)
	} else {
		mods = ModulesFor(cfg, b)
	}
	if b == Legs && opt.Vision != nil {
		// A Robotino's camera has no modelled mounting, so no camera
		// matrix: its frames reach the board, unprocessed.
		mods = append(mods, VisionModules(dev, opt.Vision(cfg))...)
	}
	mods = append(mods, opt.Extra...)
	r := runner.New(cfg.Runner, dev, board, opt.Log, met)
	r.Add(mods...)
	if err := assemble(r, board, mods, opt.Registerer); err != nil {
		// Never wired: still make sure the hardware is safe.
		_ = r.SafeState()
		return nil, err
	}
	return &Robot{Runner: r, Board: board, Body: b, Modules: mods}, nil
}

// assemble registers the robot's metrics on reg (if not nil) and starts
// r.
func assemble(r *runner.Runner, board *blackboard.Board, mods []runner.Module, reg prometheus.Registerer) error {
	if reg != nil {
		if err := RegisterRoleMetrics(reg, board); err != nil {
			return err
		}
		if err := RegisterSafetyMetrics(reg, mods); err != nil {
			return err
		}
	}
	return r.Start()
}
