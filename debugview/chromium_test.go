package debugview

import (
	"context"
	"os"
	"testing"

	"github.com/robotd/robotd/internal/chromiumtest"
)

// chromiumPath finds headless Chromium (chromiumtest.Find: ROBOTD_CHROMIUM,
// else chromium or the like on PATH). Without one the test is skipped, or
// fails under CI=true.
func chromiumPath(t *testing.T) string {
	t.Helper()
	p, err := chromiumtest.Find()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return p
}

// startChromium starts Chromium and opens url in a 1400×900 tab; the
// test's cleanup closes it.
func startChromium(ctx context.Context, t *testing.T, path, url string) (*chromiumtest.Browser, *chromiumtest.Page) {
	t.Helper()
	b, err := chromiumtest.Launch(path, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	p, err := b.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	return b, p
}
