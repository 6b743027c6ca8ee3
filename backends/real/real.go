// Package real is robotd's real-hardware backend: a NAO v6 through LoLA, or a
// Festo Robotino through its base controller's serial link. This file holds
// the configuration and the detection of which robot this is.
package real

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Kind is a kind of robot.
type Kind string

// Robot kinds.
const (
	KindAuto     Kind = "auto"
	KindNAO      Kind = "nao"
	KindRobotino Kind = "robotino"
)

// Config configures the real backend.
type Config struct {
	// Kind selects the robot; "auto" probes for it (see Detect).
	Kind Kind `json:"kind"`
	// LoLASocket is the path of LoLA's Unix socket on a NAO.
	LoLASocket string `json:"lola_socket"`
	// SerialDevice is the Robotino base controller's serial device. Empty
	// means probing SerialGlob.
	SerialDevice string `json:"serial_device"`
	// SerialGlob is where to look for the serial device when probing.
	SerialGlob string `json:"serial_glob"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Kind: KindAuto, LoLASocket: "/tmp/robocup", SerialGlob: "/dev/ttyACM*"}
}

// ErrNoHardware is returned when no robot hardware is found.
var ErrNoHardware = errors.New("no robot hardware found")

// Detect decides which robot this is. With Kind "auto" it probes: a LoLA
// socket at LoLASocket means a NAO; else a serial device (SerialDevice, or
// the first match of SerialGlob) means a Robotino. It returns the kind and
// the path it found.
func Detect(cfg Config) (Kind, string, error) {
	switch cfg.Kind {
	case KindNAO:
		return KindNAO, cfg.LoLASocket, nil
	case KindRobotino:
		dev, err := serialDevice(cfg)
		if err != nil {
			return "", "", fmt.Errorf("real: robotino configured: %w", err)
		}
		return KindRobotino, dev, nil
	case KindAuto, "":
	default:
		return "", "", fmt.Errorf("real: unknown robot kind %q (want auto, nao or robotino)", cfg.Kind)
	}
	if fi, err := os.Stat(cfg.LoLASocket); err == nil && fi.Mode().Type() == fs.ModeSocket {
		return KindNAO, cfg.LoLASocket, nil
	}
	if dev, err := serialDevice(cfg); err == nil {
		return KindRobotino, dev, nil
	}
	where := cfg.SerialDevice
	if where == "" {
		where = cfg.SerialGlob
	}
	return "", "", fmt.Errorf("real: %w: no LoLA socket at %s and no serial device at %s (set real.kind, or build with -tags sim for the simulator)",
		ErrNoHardware, cfg.LoLASocket, where)
}

func serialDevice(cfg Config) (string, error) {
	if cfg.SerialDevice != "" {
		if _, err := os.Stat(cfg.SerialDevice); err != nil {
			return "", fmt.Errorf("serial device: %w", err)
		}
		return cfg.SerialDevice, nil
	}
	m, err := filepath.Glob(cfg.SerialGlob)
	if err != nil {
		return "", fmt.Errorf("serial glob %q: %w", cfg.SerialGlob, err)
	}
	if len(m) == 0 {
		return "", fmt.Errorf("no serial device matches %s", cfg.SerialGlob)
	}
	return m[0], nil
}
