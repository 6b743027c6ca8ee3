// Package robot assembles one robot's backend-independent part: its
// modules and their configuration. The daemon (cmd/robotd), replay and the
// in-process simulation runs (simrun) all build robots here, so that every
// one of them runs the same code.
package robot

import (
	"fmt"

	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/runner"
)

// Config configures the runner and the modules. In robotd's configuration
// file its sections sit at the top level (runner, perception, behaviour,
// motion, teamcomm, gamecontroller).
type Config struct {
	Runner     runner.Config     `json:"runner"`
	Perception perception.Config `json:"perception"`
	Behaviour  behaviour.Config  `json:"behaviour"`
	Motion     motion.Config     `json:"motion"`
	// TeamComm and GameController configure the network modules
	// (StartNetwork, TeamModules).
	TeamComm       TeamCommConfig       `json:"teamcomm"`
	GameController GameControllerConfig `json:"gamecontroller"`
}

// DefaultConfig returns every module's defaults.
func DefaultConfig() Config {
	return Config{
		Runner:     runner.DefaultConfig(),
		Perception: perception.DefaultConfig(),
		Behaviour:  behaviour.DefaultConfig(),
		Motion:     motion.DefaultConfig(),

		TeamComm:       DefaultTeamCommConfig(),
		GameController: DefaultGameControllerConfig(),
	}
}

// Validate checks the modules' configurations.
func (c *Config) Validate() error {
	if err := c.Perception.Validate(); err != nil {
		return fmt.Errorf("perception: %w", err)
	}
	if err := c.Behaviour.Validate(); err != nil {
		return err
	}
	return nil
}

// Modules builds the robot's modules from cfg: the ones without I/O of
// their own, which a replay reruns. The network's modules come from
// StartNetwork (or TeamModules). The runner orders them by what they read
// and write; the slice order is only the tie-break.
func Modules(cfg *Config) []runner.Module {
	return []runner.Module{
		perception.New(cfg.Perception),
		behaviour.New(cfg.Behaviour),
		motion.New(cfg.Motion),
	}
}
