package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal/haltest"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
)

// recordShort records ticks ticks of the daemon's modules on the loopback
// robot, as serve does, and returns the recording's directory.
func recordShort(t *testing.T, ticks uint64) string {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Robot.Player = 3
	rc := DefaultRecordConfig()
	rc.Enabled = true
	rc.Dir = t.TempDir()
	rc.Queue = int(ticks)
	clock := &fallClock{c: haltest.NewClock(10*time.Millisecond, ticks)}
	dev := loopback.New(clock)
	clock.dev = dev
	r := runner.New(cfg.Runner, dev, blackboard.New(), nil, nil)
	r.Add(newModules(&cfg, robot.Legs)...)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	if err := runRecording(context.Background(), rc, &cfg, r, nil, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return rc.Dir
}

// startReplayServe runs `robotd replay -serve 127.0.0.1:0 dir` and returns
// the page's URL, the line it printed, and a function that interrupts it and
// checks its exit.
func startReplayServe(t *testing.T, dir string) (url, printed string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- runReplay(ctx, []string{"-serve", "127.0.0.1:0", dir}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	m := regexp.MustCompile(`^serving recording \S+ \(ticks \d+\.\.\d+, [^)]+\) at (http://127\.0\.0\.1:\d+/)\n$`).FindStringSubmatch(line)
	if err != nil || m == nil {
		cancel()
		<-done
		t.Fatalf("printed %q (%v), want the recording's ticks and address\n%s", line, err, stderr.String())
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck // drains until runReplay returns and closes pw
	return m[1], line, func() {
		t.Helper()
		cancel()
		select {
		case code := <-done:
			if code != exitOK {
				t.Errorf("robotd replay -serve: exit %d:\n%s", code, stderr.String())
			}
		case <-time.After(5 * time.Second):
			t.Fatal("robotd replay -serve still running 5 s after the interrupt")
		}
	}
}

// TestReplayServe serves a recording with `robotd replay -serve` and reads
// the page and a tick's state from it, then interrupts it.
func TestReplayServe(t *testing.T) {
	defer leaktest.Check(t)()
	dir := recordShort(t, 300)
	url, printed, stop := startReplayServe(t, dir)
	defer stop()
	if !strings.Contains(printed, "(ticks 1..300, 2.99s)") {
		t.Errorf("printed %q, want the ticks 1..300 and the duration 2.99s", printed)
	}

	get := func(path string) []byte {
		t.Helper()
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v %.200s", path, resp.StatusCode, err, body)
		}
		return body
	}
	if page := get(""); !strings.Contains(string(page), `id="rp-slider"`) {
		t.Errorf("the page has no time slider:\n%.300s", page)
	}
	var st struct {
		Mode   string
		Tick   uint64
		Robot  struct{ Player int }
		Replay struct {
			First, Last uint64
			Records     int
		}
		Entries map[string]struct {
			Tick  uint64
			Value json.RawMessage
		}
	}
	if err := json.Unmarshal(get("api/state?tick=150"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Mode != "replay" || st.Tick != 150 || st.Robot.Player != 3 || st.Replay.First != 1 || st.Replay.Last != 300 || st.Replay.Records != 300 {
		t.Errorf("state: mode %q tick %d player %d replay %+v; want replay, 150, the recorded player 3, 1..300", st.Mode, st.Tick, st.Robot.Player, st.Replay)
	}
	var ms struct{ Active any }
	if err := json.Unmarshal(st.Entries["motion.state"].Value, &ms); err != nil {
		t.Fatal(err)
	}
	if _, ok := ms.Active.(string); !ok || st.Entries["motion.state"].Tick != 150 {
		t.Errorf("motion.state at tick %d, Active %v: want tick 150 and the motion's name (decoded with the Go types)", st.Entries["motion.state"].Tick, ms.Active)
	}

}

func TestReplayServeErrors(t *testing.T) {
	dir := recordShort(t, 10)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no recording", []string{"-serve", "127.0.0.1:0", t.TempDir()}, exitFailed, "robotd replay:"},
		{"bad address", []string{"-serve", "127.0.0.1:99999", dir}, exitFailed, "listener"},
		{"no LOG", []string{"-serve", "127.0.0.1:0"}, exitUsage, "usage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := runReplay(context.Background(), tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tc.code, tc.msg)
			}
		})
	}
}
