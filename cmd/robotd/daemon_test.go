//go:build !sim

// These tests build the sim daemon themselves (go build -tags sim), so
// they run once, in the default flavour's test run.

package main

import (
	"bufio"
	"errors"
	"fmt"
	"math"
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

	"github.com/robotd/robotd/record/codec"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/record"
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

// simBinary builds the sim daemon (the README's run command, with the
// physics mode: -tags sim,ode) once per test binary.
func simBinary(t *testing.T) string {
	t.Helper()
	simBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "robotd-sim-")
		if err != nil {
			simBuild.err = err
			return
		}
		simBuild.path = filepath.Join(dir, "robotd")
		// With the physics mode (cgo and libode, which scripts/test
		// installs): the kick-off is played in it.
		out, err := exec.Command("go", "build", "-tags", "sim,ode", "-o", simBuild.path, ".").CombinedOutput()
		if err != nil {
			simBuild.err = fmt.Errorf("go build -tags sim,ode: %w\n%s", err, out)
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

// TestMainJobPlaysAKickOff runs the README's run command on the embedded
// simulator's physics mode (ODE: the walk and the kick work or fail as on
// the real server) in sync mode (the same game as in real time, only
// faster) for 60 s of simulation time, recording every tick: its first
// line says where the debug page is; the simulated GameController takes
// the robot through READY, SET and PLAYING; and the robot kicks the ball
// towards the opponent goal (a kick, after which the ball, at the centre
// spot at kick-off, is at least 1 m further on within 45° of the goal's
// direction). The recording, not a sampling of the running daemon, is
// what is judged, so the machine's load cannot change the verdict.
func TestMainJobPlaysAKickOff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the daemon binary; skipped in -short mode")
	}
	// Judged by its recording, whatever the machine's load: beside the
	// package's other parallel tests.
	t.Parallel()
	bin := simBinary(t)
	rec := t.TempDir()
	cmd := exec.Command(bin, "-metrics-addr", "127.0.0.1:0", "-set", "sim.embedded.sync=true", "-set", "sim.embedded.physics=ode", "-set", "runner.stop_after=60s",
		"-set", "record.enabled=true", "-set", "record.dir="+rec, "-set", "record.queue=7000",
		"-set", "sim.port="+strconv.Itoa(freePort(t)), "-set", "sim.embedded.monitor_port="+strconv.Itoa(freePort(t)))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("robotd: %v\n%s", err, stderr.String())
		}
	case <-time.After(5 * time.Minute): // a hang guard; it takes seconds
		cmd.Process.Kill()
		<-done
		t.Fatalf("robotd still running after 5 min\n%s", stderr.String())
	}
	log := stderr.String()
	first, _, _ := strings.Cut(log, "\n")
	if !regexp.MustCompile(`debug_page=http://127\.0\.0\.1:\d+/`).MatchString(first) {
		t.Errorf("first line %q does not say where the debug page is", first)
	}
	for _, want := range []string{"a simulated GameController runs a kick-off", "ran for the configured tick time", "safe state reached"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, log)
		}
	}

	// The game, tick by tick, from the recording.
	var states []string
	var start time.Duration = -1
	kick, kicked := time.Duration(-1), time.Duration(-1)
	var last hal.GroundTruth
	eachTick(t, rec, func(tm time.Duration, gc *msg.GameControl, gt *hal.GroundTruth, ms *msg.MotionState) {
		if start < 0 {
			start = tm
		}
		if s := gc.State.String(); len(states) == 0 || states[len(states)-1] != s {
			states = append(states, s)
		}
		if kick < 0 && ms.Active == msg.MotionKick {
			kick = tm - start
		}
		// The goal is at (4.5, 0); the ball starts at (0, 0).
		b := gt.Ball
		if kick >= 0 && kicked < 0 && gt.BallValid && math.Hypot(float64(b.X), float64(b.Y)) >= 1 && math.Abs(math.Atan2(float64(b.Y), float64(b.X))) <= math.Pi/4 {
			kicked = tm - start
		}
		last = *gt
	})
	t.Logf("game states: %v; first kick at %v, the ball 1 m on towards the goal at %v; at the end the ball is at (%.2f, %.2f)",
		states, kick, kicked, last.Ball.X, last.Ball.Y)
	if i := slices.Index(states, "ready"); i < 0 || !slices.Contains(states[i:], "set") || !slices.Contains(states[slices.Index(states, "set"):], "playing") {
		t.Errorf("game states %v; want READY, then SET, then PLAYING", states)
	}
	if kick < 0 || kicked < 0 || kicked > 60*time.Second {
		t.Errorf("no kick that sent the ball 1 m towards the goal in the first 60 s (first kick at %v)", kick)
	}
}

// eachTick calls f with every recorded tick's time, game state, ground
// truth and motion state, in order.
func eachTick(t *testing.T, dir string, f func(time.Duration, *msg.GameControl, *hal.GroundTruth, *msg.MotionState)) {
	t.Helper()
	src, err := record.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sch := src.Schema()
	gcI, gtI, msI := sch.Index(msg.GameControlKey.Name()), sch.Index(msg.GroundTruthKey.Name()), sch.Index(msg.MotionStateKey.Name())
	gcC, err1 := codec.NewCodec[msg.GameControl]()
	gtC, err2 := codec.NewCodec[hal.GroundTruth]()
	msC, err3 := codec.NewCodec[msg.MotionState]()
	if err := errors.Join(err1, err2, err3); err != nil || gcI < 0 || gtI < 0 || msI < 0 {
		t.Fatalf("recording in %s: entries %d %d %d: %v", dir, gcI, gtI, msI, err)
	}
	var rec codec.Record
	n := 0
	for src.Next() {
		if err := sch.Split(src.Record().Data, &rec); err != nil {
			t.Fatal(err)
		}
		var gc msg.GameControl
		var gt hal.GroundTruth
		var ms msg.MotionState
		_, e1 := gcC.Decode(rec.Entries[gcI].Value, &gc)
		_, e2 := gtC.Decode(rec.Entries[gtI].Value, &gt)
		_, e3 := msC.Decode(rec.Entries[msI].Value, &ms)
		if err := errors.Join(e1, e2, e3); err != nil {
			t.Fatalf("tick %d: %v", rec.Tick, err)
		}
		f(rec.Time, &gc, &gt, &ms)
		n++
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 5000 {
		t.Fatalf("the recording has %d ticks, want the 6000 of 60 s", n)
	}
}
