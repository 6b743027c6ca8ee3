//go:build sim

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer for a logger and a test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDaemonListenerGuards runs the sim daemon (loopback robot) and
// checks its HTTP listener: a foreign Host gets 421, live streams beyond
// metrics.max_streams get 503, and a listener configured off loopback is
// warned about.
func TestDaemonListenerGuards(t *testing.T) {
	for _, tc := range []struct {
		name, host string
		warn       bool
	}{
		{"loopback", "127.0.0.1", false},
		{"every interface", "0.0.0.0", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			port := freePort(t)
			cfg.Metrics.Addr = net.JoinHostPort(tc.host, fmt.Sprint(port))
			cfg.Metrics.MaxStreams = 1
			cfg.Sim.Mode = "loopback"
			cfg.GameController.Enabled, cfg.TeamComm.Enabled = false, false
			var logs syncBuffer
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- serve(ctx, &cfg, slog.New(slog.NewTextHandler(&logs, nil))) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("serve: %v", err)
				}
			}()
			base := fmt.Sprintf("http://127.0.0.1:%d", port)
			deadline := time.Now().Add(20 * time.Second)
			for {
				resp, err := http.Get(base + "/healthz")
				if err == nil {
					resp.Body.Close()
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the daemon does not answer: %v", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
			get := func(path, host string) (int, string) {
				req, _ := http.NewRequest(http.MethodGet, base+path, nil)
				req.Host = host
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			for _, p := range []string{"/metrics", "/debug/blackboard", "/debug/entries", "/", "/api/state"} {
				if code, body := get(p, "rebound.example:"+fmt.Sprint(port)); code != http.StatusMisdirectedRequest {
					t.Errorf("%s with a foreign Host: %d %q, want 421", p, code, body)
				}
				if code, _ := get(p, "localhost:"+fmt.Sprint(port)); code != http.StatusOK {
					t.Errorf("%s with Host localhost: %d", p, code)
				}
			}
			// One stream is open: the second is refused.
			sctx, scancel := context.WithCancel(ctx)
			defer scancel()
			req, _ := http.NewRequestWithContext(sctx, http.MethodGet, base+"/api/events", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if _, err := resp.Body.Read(make([]byte, 1)); err != nil || resp.StatusCode != 200 {
				t.Fatalf("first stream: %d %v", resp.StatusCode, err)
			}
			if code, body := get("/api/events", "127.0.0.1"); code != http.StatusServiceUnavailable || !strings.Contains(body, "too many live streams") {
				t.Errorf("second stream: %d %q, want 503", code, body)
			}
			scancel()
			if got := strings.Contains(logs.String(), "not on loopback"); got != tc.warn {
				t.Errorf("warning logged %v, want %v:\n%s", got, tc.warn, logs.String())
			}
		})
	}
}
