//go:build !sim

// These tests build the sim daemon themselves (go build -tags sim), so
// they run once, in the default flavour's test run.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/robotd/robotd/msg"
)

// TestSimDaemonStartsServesAndStopsSafely builds the sim daemon (the README's
// run command), starts it with -wait, reads /metrics until it has ticked,
// checks that the robot stands at its beam pose, sends SIGTERM and checks
// that it exits after logging that it reached a safe state.
func TestSimDaemonStartsServesAndStopsSafely(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the daemon binary; skipped in -short mode")
	}
	bin := simBinary(t)
	// The README's command with no server listening: the embedded
	// simulator starts (here on free ports, not 3100/3200), and with -wait
	// the robot stands and waits for a GameController.
	cmd := exec.Command(bin, "-metrics-addr", "127.0.0.1:0", "-player", "7", "-wait",
		"-set", "sim.port="+strconv.Itoa(freePort(t)), "-set", "sim.embedded.monitor_port="+strconv.Itoa(freePort(t)))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var log strings.Builder
	urlRe := regexp.MustCompile(`msg="robotd running".* metrics=(http://\S+/metrics)`)
	var url string
	deadline := time.After(30 * time.Second)
	for url == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("robotd exited before serving metrics:\n%s", log.String())
			}
			log.WriteString(l + "\n")
			if m := urlRe.FindStringSubmatch(l); m != nil {
				url = m[1]
			}
		case <-deadline:
			t.Fatalf("no metrics address logged:\n%s", log.String())
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("metrics served on %s, want localhost", url)
	}

	ticks := 0.0
	for i := 0; i < 100 && ticks < 10; i++ {
		ticks = scrape(t, url, "robotd_ticks_total")
		time.Sleep(20 * time.Millisecond)
	}
	if ticks < 10 {
		t.Fatalf("robotd_ticks_total = %v after waiting, want ≥ 10", ticks)
	}
	for _, m := range []string{`robotd_module_tick_seconds_count{module="motion"}`, "robotd_tick_overruns_total", "robotd_backend_connected"} {
		scrape(t, url, m)
	}
	// It stands, upright, at its beam pose (-2, 0) in the embedded
	// simulator: the simulator's ground truth on its blackboard says so.
	snap := strings.TrimSuffix(url, "/metrics") + "/debug/blackboard"
	var st standState
	for i := 0; i < 200; i++ {
		st = readStand(t, snap)
		if st.ok() {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !st.ok() {
		t.Fatalf("robot not standing at its beam pose after 10 s: %+v\n%s", st, log.String())
	}
	if !strings.Contains(log.String(), "embedded simulator") {
		t.Errorf("no log line about the embedded simulator:\n%s", log.String())
	}

	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitErr := make(chan error, 1)
	go func() {
		for l := range lines {
			log.WriteString(l + "\n")
		}
		waitErr <- cmd.Wait()
	}()
	select {
	case err := <-waitErr:
		took := time.Since(sent)
		if err != nil {
			t.Fatalf("robotd exited with %v after SIGTERM:\n%s", err, log.String())
		}
		t.Logf("exited %v after SIGTERM", took)
	case <-time.After(30 * time.Second): // a hang guard: it exits at once, however loaded the machine
		t.Fatalf("robotd still running 30 s after SIGTERM:\n%s", log.String())
	}
	if !strings.Contains(log.String(), `msg="safe state reached"`) {
		t.Fatalf("no safe-state log line:\n%s", log.String())
	}
}

// simBinary builds the sim daemon (the README's run command) once per
// test binary.
func simBinary(t *testing.T) string {
	t.Helper()
	simBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "robotd-sim-")
		if err != nil {
			simBuild.err = err
			return
		}
		simBuild.path = filepath.Join(dir, "robotd")
		out, err := exec.Command("go", "build", "-tags", "sim", "-o", simBuild.path, ".").CombinedOutput()
		if err != nil {
			simBuild.err = fmt.Errorf("go build -tags sim: %w\n%s", err, out)
		}
	})
	if simBuild.err != nil {
		t.Fatal(simBuild.err)
	}
	return simBuild.path
}

var simBuild struct {
	once sync.Once
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if simBuild.path != "" {
		os.RemoveAll(filepath.Dir(simBuild.path))
	}
	os.Exit(code)
}

// TestMainJobPlaysAKickOff runs the README's run command as it is, on the
// embedded simulator in sync mode (the same game as in real time, only
// faster): its first line says where the debug page is, the simulated
// GameController takes the robot through READY, SET and PLAYING, and in
// the first 60 s of simulation time the robot kicks the ball towards the
// opponent goal (the ball, at the centre spot at kick-off, ends at least
// 1 m further on, within 45° of the goal's direction).
func TestMainJobPlaysAKickOff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the daemon binary; skipped in -short mode")
	}
	bin := simBinary(t)
	cmd := exec.Command(bin, "-metrics-addr", "127.0.0.1:0", "-set", "sim.embedded.sync=true",
		"-set", "sim.port="+strconv.Itoa(freePort(t)), "-set", "sim.embedded.monitor_port="+strconv.Itoa(freePort(t)))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	var mu sync.Mutex
	var log []string
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			if len(log) == 0 {
				first <- sc.Text()
			}
			log = append(log, sc.Text())
			mu.Unlock()
		}
	}()
	logged := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(log, "\n")
	}
	var line string
	select {
	case line = <-first:
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("robotd printed nothing")
	}
	m := regexp.MustCompile(`debug_page=(http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q does not say where the debug page is", line)
	}
	snap := m[1] + "debug/blackboard"

	// Follow the game on the blackboard, by simulation time.
	type sample struct {
		t     float64
		state string
		ball  [2]float64
	}
	var got []sample
	deadline := time.Now().Add(3 * time.Minute) // a hang guard; it takes seconds
	for time.Now().Before(deadline) {
		var b struct {
			TimeNs  int64 `json:"time_ns"`
			Entries map[string]struct {
				Value json.RawMessage `json:"value"`
			} `json:"entries"`
		}
		if err := getJSON(snap, &b); err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		var gc struct{ State msg.GameStateKind }
		var gt struct {
			BallValid bool
			Ball      struct{ X, Y float64 }
		}
		_ = json.Unmarshal(b.Entries[msg.GameControlKey.Name()].Value, &gc)
		_ = json.Unmarshal(b.Entries[msg.GroundTruthKey.Name()].Value, &gt)
		got = append(got, sample{float64(b.TimeNs) / 1e9, gc.State.String(), [2]float64{gt.Ball.X, gt.Ball.Y}})
		if b.TimeNs > 60e9 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(got) == 0 || got[len(got)-1].t < 60 {
		t.Fatalf("the simulation did not reach 60 s (%d samples)\n%s", len(got), logged())
	}
	var states []string
	kicked := -1.0
	for _, s := range got {
		if len(states) == 0 || states[len(states)-1] != s.state {
			states = append(states, s.state)
		}
		// The goal is at (4.5, 0); the ball starts at (0, 0).
		if d := math.Hypot(s.ball[0], s.ball[1]); kicked < 0 && s.t <= 60 && d >= 1 && math.Abs(math.Atan2(s.ball[1], s.ball[0])) <= math.Pi/4 {
			kicked = s.t
		}
	}
	t.Logf("game states on the blackboard: %v; the ball was kicked ≥ 1 m towards the goal by %.1f s (last sample at %.1f s: ball at (%.2f, %.2f))",
		states, kicked, got[len(got)-1].t, got[len(got)-1].ball[0], got[len(got)-1].ball[1])
	if i := slices.Index(states, "ready"); i < 0 || !slices.Contains(states[i:], "set") || !slices.Contains(states[slices.Index(states, "set"):], "playing") {
		t.Errorf("game states %v; want READY, then SET, then PLAYING", states)
	}
	if kicked < 0 {
		t.Errorf("the ball was not kicked 1 m towards the goal in the first 60 s\n%s", logged())
	}
	for _, want := range []string{"a simulated GameController runs a kick-off", "state=playing source=gamecontroller"} {
		if !strings.Contains(logged(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logged())
		}
	}
}

// getJSON decodes the JSON at url.
func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
