package behaviour

import (
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// TestKeepOff keeps a robot off the ball during the other team's
// kick-off (the GameController's secondary time in PLAYING) and set play,
// and only then; the striker's kick-off position is outside the centre
// circle when the other team kicks off.
func TestKeepOff(t *testing.T) {
	gc := func(ours bool, setPlay uint8, secondary time.Duration) msg.GameControl {
		return msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying, OurKickOff: ours, SetPlay: setPlay, Secondary: secondary}
	}
	for _, tc := range []struct {
		name string
		game msg.GameControl
		at   hal.Vec2
		want bool
	}{
		{"their kick-off, near", gc(false, 0, 8*time.Second), hal.Vec2{X: -0.5}, true},
		{"their kick-off, far", gc(false, 0, 8*time.Second), hal.Vec2{X: -1.2}, false},
		{"our kick-off", gc(true, 0, 8*time.Second), hal.Vec2{X: -0.5}, false},
		{"their kick-off over", gc(false, 0, 0), hal.Vec2{X: -0.5}, false},
		{"their corner kick", gc(false, 3, 20*time.Second), hal.Vec2{X: -0.2, Y: 0.3}, true},
		{"our kick-in", gc(true, 4, 20*time.Second), hal.Vec2{X: -0.2, Y: 0.3}, false},
		{"the simulator's play modes", msg.GameControl{Source: msg.GameSourceSimulator, State: msg.StatePlaying, Secondary: time.Second}, hal.Vec2{X: -0.5}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := world{game: tc.game, ballKnown: true}
			w.pose.Pose = hal.Pose2{X: hal.Metres(tc.at.X), Y: hal.Metres(tc.at.Y)}
			if got := w.keepOff(); got != tc.want {
				t.Errorf("keepOff = %v, want %v", got, tc.want)
			}
		})
	}
	if p := kickOffPosition(msg.RoleStriker, 2, false); p.X > -0.75 {
		t.Errorf("the striker waits for their kick-off at %v, inside the centre circle", p)
	}
	if p := kickOffPosition(msg.RoleStriker, 2, true); p.X < -0.75 {
		t.Errorf("the striker waits for our kick-off at %v, outside the centre circle", p)
	}
}
