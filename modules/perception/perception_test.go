package perception

import (
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func TestClassify(t *testing.T) {
	lim := hal.Deg(50)
	tests := []struct {
		pitch, roll float64
		want        msg.Fall
	}{
		{0, 0, msg.Upright},
		{40, -40, msg.Upright},
		{80, 10, msg.FallenFront},
		{-85, 20, msg.FallenBack},
		{10, 70, msg.FallenRight},
		{-5, -90, msg.FallenLeft},
	}
	for _, tc := range tests {
		got := Classify(hal.BodyAngles{Pitch: hal.Deg(tc.pitch), Roll: hal.Deg(tc.roll)}, lim)
		if got != tc.want {
			t.Errorf("pitch %v roll %v: %v, want %v", tc.pitch, tc.roll, got, tc.want)
		}
	}
}
