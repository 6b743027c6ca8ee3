//go:build sim

package main

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"
)

// TestServeLeavesNoGoroutines runs the sim daemon in-process and checks that
// every goroutine it started has ended once it returns.
func TestServeLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	cfg := DefaultConfig()
	cfg.Metrics.Addr = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, &cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	var now int
	for range 100 {
		if now = runtime.NumGoroutine(); now <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Fatalf("%d goroutines before, %d after serve returned:\n%s", before, now, buf[:runtime.Stack(buf, true)])
}
