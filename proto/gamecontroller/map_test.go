package gamecontroller

import (
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// TestMapHandBuilt maps the hand-built v18 packet (every field distinct)
// for each team and checks every field of the game state.
func TestMapHandBuilt(t *testing.T) {
	var d Data
	if err := Decode(handBuilt(), &d); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		team, player uint8
		want         msg.GameControl
	}{
		{"team 17 player 3", 17, 3, msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying,
			GamePhase: 2, SetPlay: 4, FirstHalf: true, OurKickOff: true, Remaining: 722 * time.Second, Secondary: -10 * time.Second,
			Penalty: 2, Penalised: true, Unpenalised: 20 * time.Second, Goalkeeper: 1, ScoreOwn: 3, ScoreOpp: 2,
			MessageBudget: 1150, BudgetKnown: true, PlayersPerTeam: 7, PenalisedMates: penalisedBits(0)}},
		{"team 24 player 16", 24, 16, msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying,
			GamePhase: 2, SetPlay: 4, FirstHalf: true, OurKickOff: false, Remaining: 722 * time.Second, Secondary: -10 * time.Second,
			Penalty: 0, Penalised: false, Unpenalised: 151 * time.Second, Goalkeeper: 2, ScoreOwn: 2, ScoreOpp: 3,
			MessageBudget: 1149, BudgetKnown: true, PlayersPerTeam: 7, PenalisedMates: penalisedBits(1)}},
		{"a player beyond 20", 17, 21, msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying,
			GamePhase: 2, SetPlay: 4, FirstHalf: true, OurKickOff: true, Remaining: 722 * time.Second, Secondary: -10 * time.Second,
			Goalkeeper: 1, ScoreOwn: 3, ScoreOpp: 2, MessageBudget: 1150, BudgetKnown: true, PlayersPerTeam: 7, PenalisedMates: penalisedBits(0)}},
	}
	for _, tc := range tests {
		var g msg.GameControl
		Map(&d, tc.team, tc.player, &g)
		if g != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, g, tc.want)
		}
	}
	// An unknown state is mapped to the safest, INITIAL.
	d.State = 9
	var g msg.GameControl
	Map(&d, 17, 3, &g)
	if g.State != msg.StateInitial {
		t.Errorf("state 9 mapped to %v", g.State)
	}
}

// penalisedBits is PenalisedMates for handBuilt's team (penalty (p+team)%16
// for player p+1).
func penalisedBits(team int) uint32 {
	var b uint32
	for p := range MaxPlayers {
		if (p+team)%16 != 0 {
			b |= 1 << (p + 1)
		}
	}
	return b
}

func TestMapSim(t *testing.T) {
	tests := []struct {
		hs   hal.GameState
		want msg.GameControl
	}{
		{hal.GameState{Phase: hal.PhaseSet}, msg.GameControl{Source: msg.GameSourceSimulator, State: msg.StateSet, FirstHalf: true, Remaining: 600 * time.Second}},
		{hal.GameState{Phase: hal.PhasePlaying, GameTime: 700 * time.Second, ScoreOwn: 2, ScoreOpp: 1, OurKickOff: true},
			msg.GameControl{Source: msg.GameSourceSimulator, State: msg.StatePlaying, Remaining: 500 * time.Second, ScoreOwn: 2, ScoreOpp: 1, OurKickOff: true}},
		{hal.GameState{Phase: hal.PhaseReady, Penalised: true}, msg.GameControl{Source: msg.GameSourceSimulator, State: msg.StateReady, Penalised: true, FirstHalf: true, Remaining: 600 * time.Second}},
		{hal.GameState{Phase: hal.PhaseFinished}, msg.GameControl{Source: msg.GameSourceSimulator, State: msg.StateFinished, FirstHalf: true, Remaining: 600 * time.Second}},
		{hal.GameState{Phase: hal.PhaseInitial}, msg.GameControl{Source: msg.GameSourceSimulator, State: msg.StateInitial, FirstHalf: true, Remaining: 600 * time.Second}},
	}
	for _, tc := range tests {
		var g msg.GameControl
		MapSim(&tc.hs, 10*time.Minute, &g)
		if g != tc.want {
			t.Errorf("%+v:\n got %+v\nwant %+v", tc.hs, g, tc.want)
		}
	}
}
