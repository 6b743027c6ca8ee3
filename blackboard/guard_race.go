//go:build race

package blackboard

import "sync/atomic"

// useGuard catches two goroutines inside one Reader's Load at once, which
// would share its hazard slot; it is compiled in race-enabled builds only,
// where the tests run.
type useGuard struct{ busy atomic.Bool }

func (g *useGuard) enter(what string) {
	if !g.busy.CompareAndSwap(false, true) {
		panic("blackboard: the Reader of " + what + " used from two goroutines at once")
	}
}

func (g *useGuard) leave() { g.busy.Store(false) }
