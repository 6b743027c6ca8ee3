package framepool

import "testing"

// TestAcquireRaceWithRecycling plays, step by step, the interleaving
// Acquire guards against after its checks: a reader has read a frame's
// count and generation, then the frame is released, recycled and
// published again with the same count, and only then does the reader's
// increment land. The reader must not keep the new generation.
func TestAcquireRaceWithRecycling(t *testing.T) {
	p := New[int](1, 4)
	f, _ := p.Get()
	old := p.Publish(f)
	n := f.refs.Load() // the reader's checks: count 1, generation old
	if n != 1 || f.gen.Load() != old.Gen {
		t.Fatalf("count %d generation %d", n, f.gen.Load())
	}
	f.Release() // the producer lets it go, and takes it again
	g, ok := p.Get()
	if !ok || g != f {
		t.Fatal("the frame was not recycled")
	}
	g.Meta = 7
	cur := p.Publish(g) // count 1 again, a new generation
	ok, retry := f.take(n, old.Gen)
	if ok || retry {
		t.Fatalf("take = %v, %v: the reader kept generation %d as %d", ok, retry, cur.Gen, old.Gen)
	}
	if c := f.refs.Load(); c != 1 {
		t.Fatalf("count %d after the refused take, want the producer's 1", c)
	}
	// A count that changed in between makes the reader look again.
	if ok, retry := f.take(5, cur.Gen); ok || !retry {
		t.Fatalf("take with a stale count = %v, %v", ok, retry)
	}
	if h, ok := p.Acquire(cur); !ok || h.Meta != 7 {
		t.Fatal("the current generation does not acquire")
	} else {
		h.Release()
	}
	g.Release()
}
