//go:build !sim

package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/robotd/robotd/backends/real"
	"github.com/robotd/robotd/hal"
)

const buildName = "real"

// newBackend constructs the real-hardware backend.
func newBackend(_ context.Context, cfg *Config, log *slog.Logger) (hal.Device, error) {
	kind, path, err := real.Detect(cfg.Real)
	if err != nil {
		return nil, err
	}
	log.Info("robot detected", "kind", kind, "at", path)
	return nil, fmt.Errorf("found a %s at %s, but this build has no %s driver yet (robotd issue 9)", kind, path, kind)
}
