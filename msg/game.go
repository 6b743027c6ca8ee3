package msg

import (
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
)

// GameControlKey is the referee's view of the game as this robot knows it:
// the GameController's packets, or the simulator's play modes when no
// GameController is present. Written by package gamecontroller's module;
// behaviour and team communication read it optionally.
var GameControlKey = blackboard.NewKey[GameControl]("gamecontroller.state")

// GameSource says where the game state comes from.
type GameSource uint8

// Game state sources.
const (
	// GameSourceNone: nothing is known (behaviour stands still unless
	// configured to play).
	GameSourceNone GameSource = iota
	// GameSourceGameController: RoboCupGameControlData packets.
	GameSourceGameController
	// GameSourceSimulator: the simulator's play modes (hal.GameState).
	GameSourceSimulator
)

// String names the source.
func (s GameSource) String() string {
	switch s {
	case GameSourceNone:
		return "none"
	case GameSourceGameController:
		return "gamecontroller"
	case GameSourceSimulator:
		return "simulator"
	}
	return "unknown"
}

// GameStateKind is the SPL game state (the GameController's numbering).
type GameStateKind uint8

// Game states.
const (
	StateInitial GameStateKind = iota
	StateReady
	StateSet
	StatePlaying
	StateFinished
	StateStandby
)

// String names the state.
func (s GameStateKind) String() string {
	switch s {
	case StateInitial:
		return "initial"
	case StateReady:
		return "ready"
	case StateSet:
		return "set"
	case StatePlaying:
		return "playing"
	case StateFinished:
		return "finished"
	case StateStandby:
		return "standby"
	}
	return "unknown"
}

// StateOf returns the SPL game state of a backend's game phase (the
// simulator's play modes, see backends/sim): each phase is the state of
// the same name, and a phase it does not know is play.
func StateOf(p hal.GamePhase) GameStateKind {
	switch p {
	case hal.PhaseInitial:
		return StateInitial
	case hal.PhaseReady:
		return StateReady
	case hal.PhaseSet:
		return StateSet
	case hal.PhaseFinished:
		return StateFinished
	}
	return StatePlaying
}

// ResolveGame returns the game state a module goes by: the game-control
// entry if there is one (package gamecontroller's module, which itself
// falls back to the backend's state), else the backend's game state (the
// simulator's play modes: a robot built without that module), else
// nothing (Source none).
func ResolveGame(gc *GameControl, gcOK bool, hs *hal.GameState, hsOK bool) GameControl {
	if gcOK {
		return *gc
	}
	if !hsOK {
		return GameControl{}
	}
	return GameControl{Source: GameSourceSimulator, State: StateOf(hs.Phase), Penalised: hs.Penalised, OurKickOff: hs.OurKickOff}
}

// MaxPlayerNumber is the largest player number (GameController 3).
const MaxPlayerNumber = 20

// GameControl is the game state.
type GameControl struct {
	Source GameSource
	State  GameStateKind
	// GamePhase is the GameController's (0 normal, 1 penalty shoot-out,
	// 2 overtime, 3 timeout); SetPlay its set play (0 none).
	GamePhase, SetPlay uint8
	FirstHalf          bool
	// OurKickOff is true when our team kicks off or takes the set play.
	OurKickOff bool
	// Remaining is the time left in the half; Secondary the secondary
	// clock (ready time, set-play time).
	Remaining, Secondary time.Duration
	// Penalty is this robot's penalty code (0 none); Penalised is true
	// while it has one; Unpenalised is the time until the penalty ends.
	Penalty     uint8
	Penalised   bool
	Unpenalised time.Duration
	// PenalisedMates has bit p set for every penalised player p of our
	// team (this robot included).
	PenalisedMates uint32
	// Goalkeeper is our goalkeeper's player number, 0 if not told.
	Goalkeeper uint8
	// ScoreOwn and ScoreOpp are the scores.
	ScoreOwn, ScoreOpp uint8
	// MessageBudget is our team's remaining team-message budget when
	// BudgetKnown.
	MessageBudget uint16
	BudgetKnown   bool
	// PlayersPerTeam is the GameController's, 0 if not told.
	PlayersPerTeam uint8
	// Stopped is true while the referee has stopped play (the HSL
	// GameController's flag): robots stand still, the game state kept.
	Stopped bool
	// TwoSources is true while packets arrive from more than one
	// GameController (a misconfigured network).
	TwoSources bool
	// Packets counts the GameController packets taken; LastPacket is the
	// tick time of the newest.
	Packets    uint64
	LastPacket time.Duration
}

// Playing reports whether the game is in PLAYING, not stopped, and the
// robot is not penalised.
func (g *GameControl) Playing() bool {
	return !g.Penalised && !g.Stopped && g.Source != GameSourceNone && g.State == StatePlaying
}
