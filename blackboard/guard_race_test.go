//go:build race

package blackboard

import (
	"strings"
	"testing"
)

// TestReaderSharedAtOnce: in a race-enabled build, a Read through a Reader
// that another goroutine is inside panics and names the entry; reads one
// after another are fine.
func TestReaderSharedAtOnce(t *testing.T) {
	b := New()
	k := NewKey[int]("twice.read")
	w, err := Write(b, "writer", k)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Read(b, "reader", k)
	if err != nil {
		t.Fatal(err)
	}
	w.Set(1)
	if v, _ := r.Get(); v != 1 {
		t.Fatalf("read %d", v)
	}
	r.g.enter(r.e.name) // another goroutine is inside Load
	defer r.g.leave()
	defer func() {
		p := recover()
		if s, _ := p.(string); !strings.Contains(s, "twice.read") || !strings.Contains(s, "two goroutines") {
			t.Fatalf("panic %v, want one naming the entry and two goroutines", p)
		}
	}()
	r.Get()
	t.Fatal("a Reader used by two goroutines at once did not panic")
}
