// Package framepool moves large values, such as camera images, between
// goroutines without copying them for every reader and without a reader
// ever seeing one being overwritten.
//
// The blackboard copies its values whole (package blackboard), which is
// right for a few hundred bytes and wrong for a 600 kB image every tick.
// Large values therefore live in a Pool of preallocated frames, and the
// blackboard carries only a Ref (a slot and a generation, a plain value)
// next to the frame's small metadata.
//
// Life of a frame:
//
//  1. The producer takes a free frame (Get), fills Data and Meta, and
//     publishes it (Publish). Publishing gives the frame a new generation,
//     never used before in the pool, and one reference, the producer's.
//  2. Whoever holds a reference can hand out the frame's Ref; a reader
//     turns a Ref back into the frame with Acquire, which takes a
//     reference of its own, and gives it back with Release when done.
//  3. When the last reference is released the frame returns to the free
//     list; only then may Get hand it to the producer again.
//
// So a frame's bytes never change between Publish and the last Release,
// and a Ref whose frame was recycled cannot be acquired any more: Acquire
// compares the generation after taking the reference, so it either holds
// the frame the Ref named or fails. A Latest keeps the newest frame of a
// stream referenced, so that the newest frame can always be acquired.
//
// Nothing here allocates after New: the free list is a buffered channel of
// slot numbers, references are atomic counters, and Latest takes a mutex
// for a few instructions.
package framepool

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Ref names one published frame: its slot in the pool and its generation.
// The zero Ref names no frame. A Ref is a plain value, fit for the
// blackboard.
type Ref struct {
	Slot uint32
	Gen  uint64
}

// Valid reports whether r names a frame (it may still have been recycled).
func (r Ref) Valid() bool { return r.Gen != 0 }

// Frame is one buffer of a pool with its metadata.
type Frame[M any] struct {
	// Meta describes the contents; the producer sets it before Publish.
	Meta M
	// Data is the frame's contents: a prefix of its buffer, set by the
	// producer (SetLen) before Publish.
	Data []byte

	buf  []byte
	refs atomic.Int32
	gen  atomic.Uint64
	slot uint32
	pool *Pool[M]
}

// Buffer returns the frame's whole buffer, for the producer to fill.
func (f *Frame[M]) Buffer() []byte { return f.buf }

// SetLen sets Data to the first n bytes of the buffer (clamped to it).
func (f *Frame[M]) SetLen(n int) { f.Data = f.buf[:min(max(n, 0), len(f.buf))] }

// Ref returns the frame's Ref. Call it only while holding a reference.
func (f *Frame[M]) Ref() Ref { return Ref{Slot: f.slot, Gen: f.gen.Load()} }

// Release gives back one reference. After it the caller must not touch
// the frame. Releasing more often than acquiring panics.
func (f *Frame[M]) Release() {
	switch n := f.refs.Add(-1); {
	case n == 0:
		f.pool.free <- f.slot // never blocks: each slot is in the list at most once
	case n < 0:
		panic(fmt.Sprintf("framepool: frame %d released more often than acquired", f.slot))
	}
}

// Pool is a fixed set of frames.
type Pool[M any] struct {
	frames []Frame[M]
	free   chan uint32
	gen    atomic.Uint64
}

// New returns a pool of n frames of size bytes each, all free.
func New[M any](n, size int) *Pool[M] {
	if n <= 0 || size < 0 {
		panic(fmt.Sprintf("framepool: %d frames of %d bytes", n, size))
	}
	p := &Pool[M]{frames: make([]Frame[M], n), free: make(chan uint32, n)}
	for i := range p.frames {
		f := &p.frames[i]
		f.buf, f.slot, f.pool = make([]byte, size), uint32(i), p
		p.free <- uint32(i)
	}
	return p
}

// Len returns the number of frames.
func (p *Pool[M]) Len() int { return len(p.frames) }

// Free returns the number of free frames.
func (p *Pool[M]) Free() int { return len(p.free) }

// Get returns a free frame for the producer to fill, or false if every
// frame is referenced (then the producer drops what it had, or waits). The
// frame cannot be acquired until Publish.
func (p *Pool[M]) Get() (*Frame[M], bool) {
	select {
	case i := <-p.free:
		f := &p.frames[i]
		f.gen.Store(0)
		return f, true
	default:
		return nil, false
	}
}

// Publish makes a frame obtained from Get visible to Acquire under a new
// generation, and returns it holding one reference, the caller's.
func (p *Pool[M]) Publish(f *Frame[M]) Ref {
	if f.pool != p || f.refs.Load() != 0 || f.gen.Load() != 0 {
		panic(fmt.Sprintf("framepool: publishing frame %d, which is not the producer's", f.slot))
	}
	g := p.gen.Add(1)
	f.gen.Store(g)
	f.refs.Store(1)
	return Ref{Slot: f.slot, Gen: g}
}

// Discard returns a frame obtained from Get, unpublished, to the free list.
func (p *Pool[M]) Discard(f *Frame[M]) {
	if f.pool != p || f.refs.Load() != 0 || f.gen.Load() != 0 {
		panic(fmt.Sprintf("framepool: discarding frame %d, which is not the producer's", f.slot))
	}
	p.free <- f.slot
}

// Acquire returns the frame r names with a new reference, or false if r
// names no frame of this pool or its frame has been recycled since.
func (p *Pool[M]) Acquire(r Ref) (*Frame[M], bool) {
	if r.Gen == 0 || int(r.Slot) >= len(p.frames) {
		return nil, false
	}
	f := &p.frames[r.Slot]
	for {
		n := f.refs.Load()
		if n <= 0 || f.gen.Load() != r.Gen {
			return nil, false
		}
		if ok, retry := f.take(n, r.Gen); !retry {
			if !ok {
				return nil, false
			}
			return f, true
		}
	}
}

// take adds a reference if the frame still has n, and then keeps it if
// the frame is still of generation gen. retry is true if the count
// changed since it was read as n.
func (f *Frame[M]) take(n int32, gen uint64) (ok, retry bool) {
	if !f.refs.CompareAndSwap(n, n+1) {
		return false, true
	}
	// Between the caller's checks and the increment the frame may have
	// been released and published again: then the reference is on
	// another generation, which is not the one asked for.
	if f.gen.Load() != gen {
		f.Release()
		return false, false
	}
	return true, false
}

// Latest holds a reference to the newest frame of one stream. It is safe
// for concurrent use: typically a producer Sets and a consumer Acquires.
type Latest[M any] struct {
	mu sync.Mutex
	f  *Frame[M]
}

// Set makes f the newest frame, taking over the caller's reference to it,
// and releases the reference to the one before. A nil f just releases.
func (l *Latest[M]) Set(f *Frame[M]) {
	l.mu.Lock()
	old := l.f
	l.f = f
	l.mu.Unlock()
	if old != nil {
		old.Release()
	}
}

// Acquire returns the newest frame with a new reference, or false if
// there is none.
func (l *Latest[M]) Acquire() (*Frame[M], bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil, false
	}
	l.f.refs.Add(1) // l holds one, so the frame cannot be recycled meanwhile
	return l.f, true
}

// Ref returns the newest frame's Ref, or the zero Ref.
func (l *Latest[M]) Ref() Ref {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return Ref{}
	}
	return l.f.Ref()
}
