package teamcomm

import "time"

// Budget spreads a team's message budget (SPL: 1200 per game, counted in
// READY, SET and PLAYING) over the time left, shared by the team's players.
type Budget struct {
	// Reserve is kept back for the end of the game.
	Reserve int
	// MinInterval is never undercut, whatever the budget.
	MinInterval time.Duration
	// Slack lets a message go this fraction of the interval early, so that
	// messages due every interval are not skipped for a tick's jitter.
	Slack float64
	last  time.Duration
	sent  bool
}

// Allow reports whether a robot may send now: teamLeft is the team's
// remaining budget (the GameController's messageBudget), players the number
// of robots sharing it, timeLeft the playing time left. On true it records
// the send.
func (b *Budget) Allow(now time.Duration, teamLeft, players int, timeLeft time.Duration) bool {
	players = max(players, 1)
	mine := (teamLeft - b.Reserve) / players
	if mine <= 0 {
		return false
	}
	interval := max(b.MinInterval, timeLeft/time.Duration(mine))
	interval -= time.Duration(float64(interval) * min(max(b.Slack, 0), 0.5))
	if b.sent && now-b.last < interval {
		return false
	}
	b.last, b.sent = now, true
	return true
}
