package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robotd/robotd/msg"
)

// TestSimDaemonStartsServesAndStopsSafely builds the sim daemon (the README's
// run command), starts it, reads /metrics until it has ticked, sends SIGTERM
// and checks it exits within 2 s after logging that it reached a safe state.
func TestSimDaemonStartsServesAndStopsSafely(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the daemon binary; skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "robotd")
	build := exec.Command("go", "build", "-tags", "sim", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags sim: %v\n%s", err, out)
	}
	// The README's command with no server listening: the embedded
	// simulator starts (here on free ports, not 3100/3200).
	cmd := exec.Command(bin, "-metrics-addr", "127.0.0.1:0", "-player", "7",
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
	urlRe := regexp.MustCompile(`metrics=(http://\S+/metrics)`)
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
		if took > 2*time.Second {
			t.Fatalf("robotd took %v to exit after SIGTERM, want ≤ 2 s", took)
		}
		t.Logf("exited %v after SIGTERM", took)
	case <-time.After(2 * time.Second):
		t.Fatalf("robotd still running 2 s after SIGTERM:\n%s", log.String())
	}
	if !strings.Contains(log.String(), `msg="safe state reached"`) {
		t.Fatalf("no safe-state log line:\n%s", log.String())
	}
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// standState is what the daemon's blackboard says about standing.
type standState struct {
	Connected, Truth, Upright, Stand bool
	X, Y                             float64
}

func (s standState) ok() bool {
	return s.Connected && s.Truth && s.Upright && s.Stand && math.Hypot(s.X+2, s.Y) < 0.05
}

// readStand reads the daemon's blackboard snapshot.
func readStand(t *testing.T, url string) standState {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	var snap struct {
		Entries map[string]struct {
			Value json.RawMessage
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&snap); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	var gt struct {
		Valid bool
		Pose  struct{ X, Y float64 }
	}
	var body struct {
		Fall      int
		Connected bool
	}
	var ms struct {
		Active  int
		Settled bool
	}
	_ = json.Unmarshal(snap.Entries["hal.ground_truth"].Value, &gt)
	_ = json.Unmarshal(snap.Entries["perception.body"].Value, &body)
	_ = json.Unmarshal(snap.Entries["motion.state"].Value, &ms)
	return standState{
		Connected: body.Connected, Truth: gt.Valid, Upright: body.Fall == int(msg.Upright),
		Stand: ms.Active == int(msg.MotionStand) && ms.Settled, X: gt.Pose.X, Y: gt.Pose.Y,
	}
}

// scrape returns the value of the metric line starting with name.
func scrape(t *testing.T, url, name string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, name+" ") {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(l, name)), 64)
			if err != nil {
				t.Fatalf("metric line %q: %v", l, err)
			}
			return v
		}
	}
	t.Fatalf("metric %s not in /metrics:\n%.2000s", name, body)
	return 0
}
