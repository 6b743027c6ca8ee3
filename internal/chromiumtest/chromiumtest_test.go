package chromiumtest

import (
	"strings"
	"testing"
)

// TestFindTakesTheEnvironment: ROBOTD_CHROMIUM names the browser, found or
// not on PATH.
func TestFindTakesTheEnvironment(t *testing.T) {
	t.Setenv("ROBOTD_CHROMIUM", "/opt/some/chromium")
	if p, err := Find(); err != nil || p != "/opt/some/chromium" {
		t.Errorf("Find() = %q, %v; want ROBOTD_CHROMIUM's path", p, err)
	}
	t.Setenv("ROBOTD_CHROMIUM", "")
	t.Setenv("PATH", t.TempDir())
	if p, err := Find(); err != ErrNotFound {
		t.Errorf("with an empty PATH Find() = %q, %v; want ErrNotFound", p, err)
	}
}

// TestTailBuffer keeps the last tailSize bytes, marked when cut.
func TestTailBuffer(t *testing.T) {
	var b tailBuffer
	b.Write([]byte("short"))
	if got := b.String(); got != "short" {
		t.Errorf("%q, want short", got)
	}
	for i := range 5 * tailSize / 10 {
		b.Write([]byte(strings.Repeat(string(rune('a'+i%26)), 9) + "\n"))
	}
	got := b.String()
	if !strings.HasPrefix(got, "…") || len(got) != len("…")+tailSize || !strings.HasSuffix(got, strings.Repeat(string(rune('a'+(5*tailSize/10-1)%26)), 9)+"\n") {
		t.Errorf("after %d bytes: %d bytes %q…; want the last %d after an ellipsis", 5*tailSize, len(got), got[:20], tailSize)
	}
}
