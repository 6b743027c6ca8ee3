package sim

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestStallLogOncePerMinute: a simulator that stalls every second is
// logged once per minute, each line with the number of stalls since the
// previous one and the longest silence.
func TestStallLogOncePerMinute(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var s stallLog
	t0 := time.Unix(1000, 0)
	for i := range 150 { // 150 stalls, one a second, for 2.5 minutes
		silent := 100 * time.Millisecond
		if i == 30 {
			silent = 700 * time.Millisecond
		}
		s.stalled(log, "127.0.0.1:3100", t0.Add(time.Duration(i)*time.Second), silent)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d log lines for 150 stalls over 2.5 min, want 3 (at 0, 60 and 120 s):\n%s", len(lines), buf.String())
	}
	for i, want := range []string{"stalls=1 longest=100ms", "stalls=60 longest=700ms", "stalls=60 longest=100ms"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want it to contain %q", i, lines[i], want)
		}
	}
	if s.n != 150 {
		t.Errorf("counted %d stalls, want 150", s.n)
	}
}
