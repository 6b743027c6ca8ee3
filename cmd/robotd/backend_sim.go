//go:build sim

package main

import (
	"context"
	"log/slog"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/hal"
)

const buildName = "sim"

// newBackend constructs the simulation backend.
func newBackend(_ context.Context, cfg *Config, log *slog.Logger) (hal.Device, error) {
	log.Info("simulation backend: loopback robot", "period", cfg.Sim.Period.D())
	return loopback.New(loopback.NewWallClock(cfg.Sim.Period.D())), nil
}
