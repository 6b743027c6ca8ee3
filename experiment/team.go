package experiment

import (
	"slices"
	"time"

	"github.com/robotd/robotd/msg"
)

// TeamPlay is a trial's team play, from the robots' role entries (package
// behaviour's role allocation).
type TeamPlay struct {
	// FirstStriker is when (since the start) role allocation had, for the
	// first time, decided every robot's role with exactly one striker;
	// -1 if it never did.
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

// firstStriker returns the first time at which every robot's role was
// allocated and exactly one robot was the striker (-1: never).
func firstStriker(roles [][]RoleChange) time.Duration {
	var times []time.Duration
	for _, rs := range roles {
		for _, r := range rs {
			times = append(times, r.T)
		}
	}
	slices.Sort(times)
	for _, t := range times {
		strikers, all := 0, true
		for _, rs := range roles {
			var cur *RoleChange
			for i := range rs {
				if rs[i].T <= t {
					cur = &rs[i]
				}
			}
			if cur == nil || !cur.Allocated {
				all = false
				break
			}
			if cur.Role == msg.RoleStriker {
				strikers++
			}
		}
		if all && strikers == 1 && len(roles) > 0 {
			return t
		}
	}
	return -1
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
