//go:build sim

package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/robotd/robotd/internal/leaktest"
)

// TestServeLeavesNoGoroutines runs the sim daemon in-process and checks that
// every goroutine it started has ended once it returns.
func TestServeLeavesNoGoroutines(t *testing.T) {
	defer leaktest.Check(t)()
	cfg := DefaultConfig()
	cfg.Metrics.Addr = "127.0.0.1:0"
	cfg.Sim.Mode = "embedded"
	cfg.Sim.Embedded.Physics = testPhysics()
	cfg.Sim.Port, cfg.Sim.Embedded.MonitorPort = freePort(t), freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, &cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
