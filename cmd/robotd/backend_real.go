//go:build !sim

package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/robotd/robotd/backends/nao"
	"github.com/robotd/robotd/backends/real"
	"github.com/robotd/robotd/backends/robotino"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
)

const buildName = "real"

// buildDefaults sets the robot build's own defaults: none (a real robot
// waits for a real GameController).
func buildDefaults(*Config) {}

// newBackend constructs the real-hardware backend: a NAO v6 through LoLA or
// a Robotino through its serial link, as configured or detected (package
// real).
func newBackend(_ context.Context, cfg *Config, log *slog.Logger) (hal.Device, error) {
	opts := real.Options{
		NAO:      nao.Options{OpenCamera: cfg.hooks.openCamera, Cameras: cfg.Camera.cameraInfos()},
		Robotino: robotino.Options{OpenCamera: cfg.hooks.openCamera, Camera: cfg.Camera.usbCameraInfo(cfg.Real.Robotino.Camera)},
	}
	dev, kind, where, err := real.NewWithOptions(cfg.Real, log, opts)
	if err != nil {
		return nil, err
	}
	log.Info("robot detected", "kind", kind, "at", where)
	return dev, nil
}

// robotIDs asks the robot for the IDs that choose its configuration layer:
// LoLA's RobotConfig on a NAO.
func robotIDs(ctx context.Context, cfg *Config) (config.RobotIDs, error) {
	body, head, err := nao.Identify(ctx, cfg.Real.NAO.Socket, 10*time.Second)
	return config.RobotIDs{Body: body, Head: head}, err
}
