package blackboard_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/robotd/robotd/blackboard"
)

func benchRead[T any](b *testing.B, v T) {
	bb := blackboard.New()
	k := blackboard.NewKey[T]("bench")
	w, _ := blackboard.Write(bb, "w", k)
	r, _ := blackboard.Read(bb, "r", k)
	w.Set(v)
	var dst T
	b.ReportAllocs()
	for b.Loop() {
		r.Load(&dst)
	}
}

func benchWrite[T any](b *testing.B, v T) {
	bb := blackboard.New()
	k := blackboard.NewKey[T]("bench")
	w, _ := blackboard.Write(bb, "w", k)
	_, _ = blackboard.Read(bb, "r", k)
	w.Set(v)
	b.ReportAllocs()
	for b.Loop() {
		w.Set(v)
	}
}

func BenchmarkReadSmall(b *testing.B)     { benchRead(b, small{1, 2, 3}) }
func BenchmarkWriteSmall(b *testing.B)    { benchWrite(b, small{1, 2, 3}) }
func BenchmarkReadJoints25(b *testing.B)  { benchRead(b, joints25{}) }
func BenchmarkWriteJoints25(b *testing.B) { benchWrite(b, joints25{}) }

// BenchmarkConcurrentRead runs 1, 2, 4 and 8 reader goroutines, each with
// its own Reader, against one entry that a writer keeps updating. ns/op is
// per read in each goroutine: flat across sub-benchmarks means reads do not
// slow down as readers are added (on a machine with at least that many
// cores; with fewer, the goroutines share cores and ns/op grows by
// readers/cores for scheduling reasons alone).
func BenchmarkConcurrentRead(b *testing.B) {
	for _, n := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("readers=%d", n), func(b *testing.B) {
			bb := blackboard.New()
			k := blackboard.NewKey[joints25]("bench")
			w, _ := blackboard.Write(bb, "w", k)
			rs := make([]*blackboard.Reader[joints25], n)
			for i := range rs {
				rs[i], _ = blackboard.Read(bb, "r", k)
			}
			w.Set(joints25{})
			b.ReportAllocs()
			var wg sync.WaitGroup
			b.ResetTimer()
			for _, r := range rs {
				wg.Go(func() {
					var dst joints25
					for range b.N {
						r.Load(&dst)
					}
				})
			}
			wg.Wait()
			// Wall time per read, scaled by how many readers could truly run
			// at once: flat across n when reads do not contend.
			par := min(n, runtime.GOMAXPROCS(0))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())*float64(par)/float64(n)/float64(b.N), "ns/read/core")
		})
	}
}
