package deploy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Health is what robotd's /metrics said after the restart.
type Health struct {
	OK bool
	// Ticks is robotd_ticks_total at the last scrape; TickRate is its
	// increase per second between two scrapes.
	Ticks     float64
	TickRate  float64
	Connected bool // robotd_backend_connected == 1
}

func (h Health) String() string {
	if !h.OK {
		return "not healthy"
	}
	conn := "backend connected"
	if !h.Connected {
		conn = "backend NOT connected"
	}
	return fmt.Sprintf("healthy: ticking at %.0f Hz, %s", h.TickRate, conn)
}

// healthInterval is the time between the two scrapes a tick rate is
// measured over.
const healthInterval = 500 * time.Millisecond

// checkHealth scrapes http://127.0.0.1:<metrics port>/metrics on the robot
// through the SSH connection (a direct-tcpip channel, so the listener can
// stay bound to the robot's loopback) until robotd ticks, or timeout.
func checkHealth(ctx context.Context, c *conn, t *Target, timeout time.Duration, p *printer) (Health, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			return c.ssh.DialContext(ctx, "tcp", addr)
		},
		DisableKeepAlives: true,
	}}
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", t.MetricsPort)
	var last Health
	var lastAt time.Time
	var lastErr error
	for {
		h, err := scrape(ctx, hc, url)
		now := time.Now()
		switch {
		case err != nil:
			lastErr = err
			lastAt = time.Time{}
		case !lastAt.IsZero() && h.Ticks > last.Ticks:
			h.TickRate = (h.Ticks - last.Ticks) / now.Sub(lastAt).Seconds()
			h.OK = true
			p.say(t.Name, "%s (robotd_ticks_total %.0f)", h, h.Ticks)
			return h, nil
		default:
			last, lastAt = h, now
			lastErr = fmt.Errorf("robotd_ticks_total is %.0f and not increasing", h.Ticks)
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("health check on %s through SSH failed after %s: %w", url, timeout, lastErr)
		case <-time.After(healthInterval):
		}
	}
}

func scrape(ctx context.Context, hc *http.Client, url string) (Health, error) {
	var h Health
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return h, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	found := false
	h, found, err = parseMetrics(resp.Body)
	if err != nil {
		return h, fmt.Errorf("reading %s: %w", url, err)
	}
	if !found {
		return h, fmt.Errorf("%s has no robotd_ticks_total", url)
	}
	return h, nil
}

// parseMetrics reads robotd_ticks_total and robotd_backend_connected from a
// Prometheus text exposition.
func parseMetrics(r io.Reader) (Health, bool, error) {
	var h Health
	found := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, val, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		switch name {
		case "robotd_ticks_total", "robotd_backend_connected":
		default:
			continue
		}
		fs := strings.Fields(val)
		if len(fs) == 0 {
			return h, found, fmt.Errorf("%s: no value", name)
		}
		v, err := strconv.ParseFloat(fs[0], 64)
		if err != nil {
			return h, found, fmt.Errorf("%s: %w", name, err)
		}
		if name == "robotd_ticks_total" {
			h.Ticks, found = v, true
		} else {
			h.Connected = v == 1
		}
	}
	return h, found, sc.Err()
}
