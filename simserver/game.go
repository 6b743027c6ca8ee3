package simserver

// The game state. As in the rUNSWift fork, whose SoccerRuleAspect has its
// automatic rules commented out, play modes change only by trainer command
// (a GameController drives the game); the game time runs except before
// kick-off, after a goal and when the game is over.

var playModes = [...]string{"BeforeKickOff", "KickOff_Left", "KickOff_Right", "PlayOn",
	"KickIn_Left", "KickIn_Right", "corner_kick_left", "corner_kick_right",
	"goal_kick_left", "goal_kick_right", "offside_left", "offside_right", "GameOver",
	"Goal_Left", "Goal_Right", "free_kick_left", "free_kick_right",
	"direct_free_kick_left", "direct_free_kick_right"}

const (
	pmBeforeKickOff = 0
	pmKickOffLeft   = 1
	pmKickOffRight  = 2
	pmPlayOn        = 3
	pmGameOver      = 12
	pmGoalLeft      = 13
	pmGoalRight     = 14
)

// Bits of game.changed: what a monitor update must carry.
const (
	changedMode = 1 << iota
	changedScore
	changedTeams
	changedTime
)

type game struct {
	mode           int
	t              float64 // game time (s)
	scoreL, scoreR int
	changed        uint8
}

func (g *game) init() { g.mode = pmBeforeKickOff }

func playModeIndex(name string) int {
	for i, m := range playModes {
		if m == name {
			return i
		}
	}
	return -1
}

func (g *game) setMode(m int) {
	if m != g.mode {
		g.mode = m
		g.changed |= changedMode
	}
}

func (g *game) running() bool {
	switch g.mode {
	case pmBeforeKickOff, pmGameOver, pmGoalLeft, pmGoalRight:
		return false
	}
	return true
}

// beamAllowed: agents may beam only before kick-off and after a goal.
func (g *game) beamAllowed() bool {
	switch g.mode {
	case pmBeforeKickOff, pmGoalLeft, pmGoalRight:
		return true
	}
	return false
}

func (g *game) step(dt float64) {
	if g.running() {
		g.t += dt
	}
}
