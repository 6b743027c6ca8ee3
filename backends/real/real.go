// Package real is robotd's real-hardware backend: it decides which robot
// this is — a NAO v6 through LoLA (package nao) or a Festo Robotino 3
// through its base controller's serial link (package robotino) — from the
// configuration or by probing, and constructs that robot's device.
package real

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/robotd/robotd/backends/nao"
	"github.com/robotd/robotd/backends/robotino"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
)

// Kind is a kind of robot.
type Kind string

// Robot kinds.
const (
	KindAuto     Kind = "auto"
	KindNAO      Kind = "nao"
	KindRobotino Kind = "robotino"
)

// Config configures the real backend: which robot, and each robot's
// backend (the "real" section of robotd's configuration).
type Config struct {
	// Kind selects the robot; "auto" probes for it (see Detect).
	Kind Kind `json:"kind"`
	// NAO configures the NAO backend (LoLA's socket: nao.socket).
	NAO nao.Config `json:"nao"`
	// Robotino configures the Robotino backend (its serial device:
	// robotino.device, else USB-id detection, else robotino.glob).
	Robotino robotino.Config `json:"robotino"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Kind: KindAuto, NAO: nao.DefaultConfig(), Robotino: robotino.DefaultConfig()}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the real section: the kind, and each robot's
// under its name.
func (c Config) Rules() config.Rules {
	r := config.Rules{
		"kind": config.OneOf(string(KindAuto), string(KindNAO), string(KindRobotino)).Doc("", "which robot this is; \"auto\" probes for LoLA's socket, then for a Robotino's serial device"),
	}
	r.Add("nao", c.NAO.Rules())
	return r.Add("robotino", c.Robotino.Rules())
}

// Validate checks the kind and both robots' sections.
func (c Config) Validate() error {
	var errs []error
	if err := config.CheckSection("real", c, config.Rules{"kind": c.Rules()["kind"]}); err != nil {
		errs = append(errs, err)
	}
	if err := c.NAO.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("real: %w", err))
	}
	if err := c.Robotino.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("real: %w", err))
	}
	return errors.Join(errs...)
}

// ErrNoHardware is returned when no robot hardware is found.
var ErrNoHardware = errors.New("no robot hardware found")

// Detect decides which robot this is. A configured kind is taken as it is
// (a NAO's LoLA may not be up yet; a Robotino's device must be found).
// With kind "auto" it probes: a Unix socket at nao.socket means a NAO;
// else a Robotino base controller (robotino.device, or the USB device with
// the Robotino's ids, or a match of robotino.glob) means a Robotino. It
// returns the kind and where it found it, or an error wrapping
// ErrNoHardware that says where it looked.
func Detect(cfg Config) (Kind, string, error) {
	switch cfg.Kind {
	case KindNAO:
		return KindNAO, cfg.NAO.Socket, nil
	case KindRobotino:
		dev, err := robotino.FindDevice(cfg.Robotino)
		if err != nil {
			return "", "", fmt.Errorf("real: robotino configured: %w", err)
		}
		return KindRobotino, dev, nil
	case KindAuto, "":
	default:
		return "", "", fmt.Errorf("real: unknown robot kind %q (want auto, nao or robotino)", cfg.Kind)
	}
	if fi, err := os.Stat(cfg.NAO.Socket); err == nil && fi.Mode().Type() == fs.ModeSocket {
		return KindNAO, cfg.NAO.Socket, nil
	}
	dev, err := robotino.FindDevice(cfg.Robotino)
	if err == nil {
		return KindRobotino, dev, nil
	}
	return "", "", fmt.Errorf("real: %w: no LoLA socket at %s, and %w (set real.kind, or build with -tags sim for the simulator)",
		ErrNoHardware, cfg.NAO.Socket, err)
}

// New detects the robot (see Detect) and returns its device, its kind
// and where it was found. The device connects on its first Next.
func New(cfg Config, log *slog.Logger) (hal.Device, Kind, string, error) {
	return NewWithOptions(cfg, log, Options{})
}

// Options are what the robots' backends take besides the configuration.
type Options struct {
	NAO      nao.Options
	Robotino robotino.Options
}

// NewWithOptions is New with each robot's options.
func NewWithOptions(cfg Config, log *slog.Logger, opts Options) (hal.Device, Kind, string, error) {
	if err := cfg.Validate(); err != nil {
		return nil, "", "", fmt.Errorf("config: %w", err)
	}
	kind, where, err := Detect(cfg)
	if err != nil {
		return nil, "", "", err
	}
	switch kind {
	case KindNAO:
		d, err := nao.NewWithOptions(cfg.NAO, log, opts.NAO)
		if err != nil {
			return nil, "", "", fmt.Errorf("real: %w", err)
		}
		return d, kind, where, nil
	default:
		d, err := robotino.New(cfg.Robotino, log, opts.Robotino)
		if err != nil {
			return nil, "", "", fmt.Errorf("real: %w", err)
		}
		return d, kind, where, nil
	}
}
