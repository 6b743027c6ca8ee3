package findball

import (
	"slices"
	"time"

	"github.com/robotd/robotd/msg"
)

// TeamPlay is a trial's team play, from the robots' role entries (package
// behaviour's role allocation).
type TeamPlay struct {
	// FirstStriker is when (since the start) role allocation had decided
	// every robot's role with exactly one striker, and so it stayed to the
	// trial's end; -1 if it did not end so.
	FirstStriker time.Duration
	// Switches counts the robots' role switches; MaxPerMinute is the
	// largest number of switches one robot made in any 60 s of the trial.
	Switches, MaxPerMinute int
	// Idle is the longest time a robot saw the ball, was not the striker
	// and stood.
	Idle time.Duration
}

// summarise fills the team play from every robot's role changes and switch
// times up to end.
func (tp *TeamPlay) summarise(roles [][]RoleChange, switches [][]time.Duration, end time.Duration) {
	tp.FirstStriker = firstStriker(roles)
	tp.Switches, tp.MaxPerMinute = 0, 0
	for _, s := range switches {
		tp.Switches += len(s)
		tp.MaxPerMinute = max(tp.MaxPerMinute, maxInWindow(s, time.Minute))
	}
}

// firstStriker returns the time from which on every robot's role was
// allocated and exactly one robot was the striker, to the end of what
// roles hold (-1: not at the end). A moment of one striker that two
// strikers or none follow later does not count: the time is the start of
// the last stretch of exactly one striker.
func firstStriker(roles [][]RoleChange) time.Duration {
	if len(roles) == 0 {
		return -1
	}
	var times []time.Duration
	for _, rs := range roles {
		for _, r := range rs {
			times = append(times, r.T)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	first := time.Duration(-1)
	for i := len(times) - 1; i >= 0; i-- {
		if !oneStriker(roles, times[i]) {
			break
		}
		first = times[i]
	}
	return first
}

// oneStriker reports whether at time t every robot's role was allocated
// and exactly one was the striker.
func oneStriker(roles [][]RoleChange, t time.Duration) bool {
	strikers := 0
	for _, rs := range roles {
		var cur *RoleChange
		for i := range rs {
			if rs[i].T <= t {
				cur = &rs[i]
			}
		}
		if cur == nil || !cur.Allocated {
			return false
		}
		if cur.Role == msg.RoleStriker {
			strikers++
		}
	}
	return strikers == 1
}

// maxInWindow returns the largest number of the sorted times ts in any
// window [t, t+w).
func maxInWindow(ts []time.Duration, w time.Duration) int {
	best, j := 0, 0
	for i := range ts {
		for ts[i]-ts[j] >= w {
			j++
		}
		best = max(best, i-j+1)
	}
	return best
}
