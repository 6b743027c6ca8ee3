// Package robot assembles one robot's backend-independent part: its
// modules and their configuration. The daemon (cmd/robotd), replay and the
// in-process simulation runs (simrun) all build robots here, with
// Assemble, so that every one of them runs the same code.
package robot

import (
	"fmt"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/omnibase"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/modules/safety"
	"github.com/robotd/robotd/modules/vision"
	"github.com/robotd/robotd/runner"
)

// Config configures the runner and the modules. In robotd's configuration
// file its sections sit at the top level (runner, perception, vision,
// behaviour, motion, base, safety, teamcomm, gamecontroller).
type Config struct {
	Runner     runner.Config     `json:"runner"`
	Perception perception.Config `json:"perception"`
	// Vision is the image processing of camera frames (package
	// modules/vision), on a robot with cameras and in a simulator that
	// renders camera images.
	Vision    vision.Config    `json:"vision"`
	Behaviour behaviour.Config `json:"behaviour"`
	Motion    motion.Config    `json:"motion"`
	// Base is the omnidirectional base's motion (a Robotino), which
	// stands in for Motion on a robot without legs.
	Base omnibase.Config `json:"base"`
	// Safety protects a legged robot's joints and battery (package safety).
	Safety safety.Config `json:"safety"`
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
		Vision:     vision.DefaultConfig(),
		Behaviour:  behaviour.DefaultConfig(),
		Motion:     motion.DefaultConfig(),
		Base:       omnibase.DefaultConfig(),
		Safety:     safety.DefaultConfig(),

		TeamComm:       DefaultTeamCommConfig(),
		GameController: DefaultGameControllerConfig(),
	}
}

// Validate checks the modules' configurations.
func (c *Config) Validate() error {
	if err := c.Perception.Validate(); err != nil {
		return fmt.Errorf("perception: %w", err)
	}
	if err := c.Vision.Validate(); err != nil {
		return err
	}
	if err := c.Behaviour.Validate(); err != nil {
		return err
	}
	if err := c.Base.Validate(); err != nil {
		return err
	}
	if err := c.GameController.Simulated.Validate(); err != nil {
		return err
	}
	if err := c.Motion.Validate(); err != nil {
		return err
	}
	return c.Safety.Validate()
}

// Body is what a robot moves with, which decides its motion module.
type Body uint8

// Bodies.
const (
	// Legs: a NAO (or the simulated one); package motion drives the
	// joints.
	Legs Body = iota
	// OmniBase: a Robotino; package base drives the wheels.
	OmniBase
)

func (b Body) String() string {
	if b == OmniBase {
		return "omnidirectional base"
	}
	return "legs"
}

// BodyOf returns the body of a backend: OmniBase if it drives an
// omnidirectional base and no joints, else Legs.
func BodyOf(dev hal.Device) Body {
	_, joints := dev.(hal.JointActuator)
	if _, omni := dev.(hal.OmniBase); omni && !joints {
		return OmniBase
	}
	return Legs
}

// bodyReporter is a backend that says which body it drives (package body).
type bodyReporter interface{ BodyKind() body.Kind }

// KindOf returns the body table a backend's robot has: what the backend
// says, or the NAO v6 for a backend that does not say.
func KindOf(dev hal.Device) body.Kind {
	if b, ok := dev.(bodyReporter); ok {
		return b.BodyKind()
	}
	return body.NAOv6
}

// Modules builds a legged robot's modules from cfg (ModulesFor with Legs).
func Modules(cfg *Config) []runner.Module { return ModulesFor(cfg, Legs) }

// ModulesFor builds the modules of a robot with body b from cfg: the ones
// without I/O of their own, which a replay reruns. The network's modules
// come from StartNetwork (or TeamModules). The runner orders them by what
// they read and write; the slice order is only the tie-break.
//
// With the simulated GameController on, its goalkeeper is the team's, as a
// real GameController's packets say who keeps goal (0: none).
func ModulesFor(cfg *Config, b Body) []runner.Module {
	bc := cfg.Behaviour
	if s := cfg.GameController.Simulated; s.Enabled {
		bc.Roles.Goalkeeper = s.Goalkeeper
	}
	mods := []runner.Module{
		perception.New(cfg.Perception),
		behaviour.New(bc),
	}
	if b == OmniBase {
		return append(mods, omnibase.New(cfg.Base))
	}
	return append(mods, safety.New(cfg.Safety, nil), motion.New(cfg.Motion))
}

// ScriptedModules builds a legged robot's modules without behaviour:
// perception, safety and motion, for a robot whose motion requests come
// from elsewhere (a measurement script in the simulator).
func ScriptedModules(cfg *Config) []runner.Module {
	return []runner.Module{perception.New(cfg.Perception), safety.New(cfg.Safety, nil), motion.New(cfg.Motion)}
}
