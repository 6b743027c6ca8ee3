package msg_test

import (
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func TestStateOf(t *testing.T) {
	for _, tc := range []struct {
		phase hal.GamePhase
		want  msg.GameStateKind
	}{
		{hal.PhaseInitial, msg.StateInitial},
		{hal.PhaseReady, msg.StateReady},
		{hal.PhaseSet, msg.StateSet},
		{hal.PhasePlaying, msg.StatePlaying},
		{hal.PhaseFinished, msg.StateFinished},
		{hal.PhaseFinished + 1, msg.StatePlaying},
		{255, msg.StatePlaying},
	} {
		if got := msg.StateOf(tc.phase); got != tc.want {
			t.Errorf("StateOf(%d) = %v, want %v", tc.phase, got, tc.want)
		}
	}
}
