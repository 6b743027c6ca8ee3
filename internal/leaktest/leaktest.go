// Package leaktest checks that a test leaves no goroutines behind.
package leaktest

import (
	"runtime"
	"testing"
	"time"
)

// Check records the number of goroutines; call the returned function when
// everything the test started should have ended. It waits up to two seconds
// for them to finish, then fails the test with every goroutine's stack.
func Check(t testing.TB) func() {
	t.Helper()
	before := runtime.NumGoroutine()
	return func() {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if now := runtime.NumGoroutine(); now > before {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines leaked: %d before, %d after:\n%s", before, now, buf[:runtime.Stack(buf, true)])
		}
	}
}
