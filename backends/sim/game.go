package sim

import (
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/simspark"
)

// PlayMode is the server's play-mode code: the index into the play_modes
// list of the monitor protocol's first message (monitor.txt).
type PlayMode uint8

// The play modes of rcssserver3d, in the server's order.
const (
	BeforeKickOff PlayMode = iota
	KickOffLeft
	KickOffRight
	PlayOn
	KickInLeft
	KickInRight
	CornerKickLeft
	CornerKickRight
	GoalKickLeft
	GoalKickRight
	OffsideLeft
	OffsideRight
	GameOver
	GoalLeft
	GoalRight
	FreeKickLeft
	FreeKickRight
	DirectFreeKickLeft
	DirectFreeKickRight
	// UnknownPlayMode is any name the server's list does not have.
	UnknownPlayMode PlayMode = 255
)

var playModeNames = [...]string{
	"BeforeKickOff", "KickOff_Left", "KickOff_Right", "PlayOn", "KickIn_Left", "KickIn_Right",
	"corner_kick_left", "corner_kick_right", "goal_kick_left", "goal_kick_right",
	"offside_left", "offside_right", "GameOver", "Goal_Left", "Goal_Right",
	"free_kick_left", "free_kick_right", "direct_free_kick_left", "direct_free_kick_right",
}

// ParsePlayMode returns the play mode with the server's name b.
func ParsePlayMode(b []byte) PlayMode {
	for i, n := range playModeNames {
		if string(b) == n {
			return PlayMode(i)
		}
	}
	return UnknownPlayMode
}

// String returns the server's name of the play mode.
func (m PlayMode) String() string {
	if int(m) < len(playModeNames) {
		return playModeNames[m]
	}
	return "unknown"
}

// phase maps a play mode onto the SPL game phases: BeforeKickOff (robots
// placed, clock stopped) is SET, a goal sends both teams back to their
// positions (READY), GameOver is FINISHED and every other mode is play.
func (m PlayMode) phase() hal.GamePhase {
	switch m {
	case BeforeKickOff:
		return hal.PhaseSet
	case GoalLeft, GoalRight:
		return hal.PhaseReady
	case GameOver:
		return hal.PhaseFinished
	}
	return hal.PhasePlaying
}

// updateGame applies a GS perceptor. The side comes from the first GS after
// init, the only one that carries (team left|right); scores are turned
// into own/opponent; the game time is GS t.
func updateGame(p *simspark.Perception, gs *hal.GameState) {
	g := &p.GS
	if g.HasTeam {
		gs.LeftSide = !p.Is(g.Team, "right")
	}
	if g.HasScore {
		if gs.LeftSide {
			gs.ScoreOwn, gs.ScoreOpp = g.ScoreLeft, g.ScoreRight
		} else {
			gs.ScoreOwn, gs.ScoreOpp = g.ScoreRight, g.ScoreLeft
		}
	}
	if g.HasTime {
		gs.GameTime = time.Duration(g.Time * float64(time.Second))
	}
	if g.HasPlayMode {
		m := ParsePlayMode(p.Bytes(g.PlayMode))
		gs.PlayMode = uint8(m)
		gs.Phase = m.phase()
		gs.OurKickOff = m == KickOffLeft && gs.LeftSide || m == KickOffRight && !gs.LeftSide
	}
}
