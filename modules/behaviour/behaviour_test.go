package behaviour

import (
	"testing"

	"github.com/robotd/robotd/msg"
)

func TestDecide(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		body msg.BodyState
		want msg.MotionKind
	}{
		{"upright stands", DefaultConfig(), msg.BodyState{Connected: true}, msg.MotionStand},
		{"fallen gets up", DefaultConfig(), msg.BodyState{Connected: true, Fall: msg.FallenBack}, msg.MotionGetUp},
		{"fallen relaxes without get-up", Config{}, msg.BodyState{Connected: true, Fall: msg.FallenLeft}, msg.MotionRelax},
		{"disconnected relaxes", DefaultConfig(), msg.BodyState{}, msg.MotionRelax},
	}
	for _, tc := range tests {
		if got := Decide(tc.cfg, tc.body, msg.MotionState{}).Kind; got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
