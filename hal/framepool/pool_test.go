package framepool_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/robotd/robotd/hal/framepool"
)

type meta struct{ Seq uint64 }

// fill writes a pattern derived from seq into every byte of the frame.
func fill(f *framepool.Frame[meta], seq uint64) {
	b := f.Buffer()
	v := byte(seq*31 + 7)
	for i := range b {
		b[i] = v
	}
	f.SetLen(len(b))
	f.Meta = meta{Seq: seq}
}

// check reports whether f holds seq's pattern throughout.
func check(f *framepool.Frame[meta]) bool {
	v := byte(f.Meta.Seq*31 + 7)
	for _, c := range f.Data {
		if c != v {
			return false
		}
	}
	return len(f.Data) > 0
}

func TestLifecycle(t *testing.T) {
	p := framepool.New[meta](2, 16)
	if _, ok := p.Acquire(framepool.Ref{}); ok {
		t.Fatal("acquired the zero Ref")
	}
	f, ok := p.Get()
	if !ok {
		t.Fatal("no free frame in a new pool")
	}
	if _, ok := p.Acquire(framepool.Ref{Slot: 0, Gen: 1}); ok {
		t.Fatal("acquired a frame the producer is still filling")
	}
	fill(f, 1)
	r := p.Publish(f)
	if !r.Valid() || r != f.Ref() {
		t.Fatalf("Publish = %+v, frame's Ref %+v", r, f.Ref())
	}
	g, ok := p.Acquire(r)
	if !ok || g != f || !check(g) {
		t.Fatalf("Acquire(%+v) = %v %v", r, g, ok)
	}
	if _, ok := p.Acquire(framepool.Ref{Slot: 99, Gen: r.Gen}); ok {
		t.Fatal("acquired a slot beyond the pool")
	}
	if _, ok := p.Acquire(framepool.Ref{Slot: r.Slot, Gen: r.Gen + 1}); ok {
		t.Fatal("acquired a generation not yet published")
	}
	f.Release() // the producer's
	if p.Free() != 1 {
		t.Fatalf("free %d with one frame held by a reader", p.Free())
	}
	g.Release() // the reader's: now free
	if p.Free() != 2 {
		t.Fatalf("free %d after the last release", p.Free())
	}
	if _, ok := p.Acquire(r); ok {
		t.Fatal("acquired a released frame")
	}
	// Both frames out: Get fails, Discard gives one back.
	a, _ := p.Get()
	b, _ := p.Get()
	if _, ok := p.Get(); ok {
		t.Fatal("Get from an exhausted pool")
	}
	p.Discard(a)
	fill(b, 2)
	r2 := p.Publish(b)
	if r2.Gen <= r.Gen {
		t.Fatalf("generation %d after %d", r2.Gen, r.Gen)
	}
	if _, ok := p.Acquire(r); ok && r.Slot == r2.Slot {
		t.Fatal("the old Ref acquired the recycled slot's new frame")
	}
	b.Release()
	defer func() {
		if recover() == nil {
			t.Fatal("a second release of a free frame did not panic")
		}
	}()
	b.Release()
}

func TestLatest(t *testing.T) {
	p := framepool.New[meta](3, 8)
	var l framepool.Latest[meta]
	if _, ok := l.Acquire(); ok || l.Ref().Valid() {
		t.Fatal("an empty Latest gave a frame")
	}
	for seq := uint64(1); seq <= 10; seq++ {
		f, ok := p.Get()
		if !ok {
			t.Fatalf("seq %d: pool exhausted (free %d): Latest leaks references", seq, p.Free())
		}
		fill(f, seq)
		p.Publish(f)
		l.Set(f)
		g, ok := l.Acquire()
		if !ok || g.Meta.Seq != seq || g.Ref() != l.Ref() {
			t.Fatalf("seq %d: Latest gave %+v", seq, g)
		}
		g.Release()
	}
	if p.Free() != 2 {
		t.Fatalf("free %d, want 2 (Latest holds one)", p.Free())
	}
	l.Set(nil)
	if p.Free() != 3 {
		t.Fatalf("free %d after Set(nil)", p.Free())
	}
}

// TestNoReaderSeesAnOverwrite runs a producer that publishes as fast as it
// can into a small pool while readers acquire frames both ways (the newest
// through Latest, and by a Ref handed over as the blackboard would) and
// check every byte against the frame's metadata before and after a
// pause: a frame recycled while referenced would fail. Run with -race.
func TestNoReaderSeesAnOverwrite(t *testing.T) {
	const frames, size, readers = 8, 4096, 4
	published := uint64(4000)
	if testing.Short() {
		published = 1000
	}
	p := framepool.New[meta](frames, size)
	var l framepool.Latest[meta]
	// recent are the last Refs published, packed: slot<<48 | gen. Readers
	// try old ones too, whose frames are mostly free or recycled.
	var recent [8]atomic.Uint64
	var stop atomic.Bool
	var acquired, stale, bad atomic.Int64
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			for !stop.Load() {
				var f *framepool.Frame[meta]
				var ok bool
				if i%2 == 0 {
					f, ok = l.Acquire()
				} else {
					v := recent[(i*7+int(acquired.Load()+stale.Load()))%len(recent)].Load()
					f, ok = p.Acquire(framepool.Ref{Slot: uint32(v >> 48), Gen: v & (1<<48 - 1)})
					if !ok && v != 0 {
						stale.Add(1)
					}
				}
				if !ok {
					continue
				}
				acquired.Add(1)
				if !check(f) {
					bad.Add(1)
				}
				for range 3 { // hold it while the producer goes on
					if !check(f) {
						bad.Add(1)
					}
				}
				f.Release()
			}
		})
	}
	var dropped int
	for seq := uint64(1); seq <= published; seq++ {
		f, ok := p.Get()
		if !ok {
			dropped++ // every frame held by readers: drop this one, as a camera would
			continue
		}
		fill(f, seq)
		r := p.Publish(f)
		recent[seq%uint64(len(recent))].Store(uint64(r.Slot)<<48 | r.Gen)
		l.Set(f)
	}
	stop.Store(true)
	wg.Wait()
	l.Set(nil)
	t.Logf("%d published, %d dropped (pool exhausted), %d acquired, %d stale Refs refused", published, dropped, acquired.Load(), stale.Load())
	if bad.Load() != 0 {
		t.Fatalf("%d reads saw a frame being overwritten", bad.Load())
	}
	if acquired.Load() == 0 {
		t.Fatal("no reader ever acquired a frame")
	}
	if p.Free() != frames {
		t.Fatalf("%d of %d frames free at the end: references leaked", p.Free(), frames)
	}
}

// steady is one camera frame's way in steady state: the producer fills and
// publishes, Latest takes it, a reader acquires by Ref and releases.
func steady(p *framepool.Pool[meta], l *framepool.Latest[meta], seq uint64) bool {
	f, ok := p.Get()
	if !ok {
		return false
	}
	f.Meta.Seq = seq
	f.SetLen(len(f.Buffer()))
	r := p.Publish(f)
	l.Set(f)
	g, ok := p.Acquire(r)
	if !ok {
		return false
	}
	g.Release()
	return true
}

func TestSteadyStateAllocatesNothing(t *testing.T) {
	p := framepool.New[meta](4, 640*480*2)
	var l framepool.Latest[meta]
	seq := uint64(0)
	allocs := testing.AllocsPerRun(1000, func() {
		seq++
		if !steady(p, &l, seq) {
			t.Fatal("steady state failed")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per frame", allocs)
	}
}

func BenchmarkSteadyState(b *testing.B) {
	p := framepool.New[meta](4, 640*480*2)
	var l framepool.Latest[meta]
	b.ReportAllocs()
	seq := uint64(0)
	for b.Loop() {
		seq++
		if !steady(p, &l, seq) {
			b.Fatal("steady state failed")
		}
	}
}
