package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	cmd := exec.Command(bin, "-metrics-addr", "127.0.0.1:0", "-player", "7")
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
