package gamecontroller_test

import (
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
)

// TestScriptKickOff: the simulated GameController, read by the module on
// the robot's tick time from a start at 5 s, says INITIAL for 2 s, READY
// for 15 s, SET for 3 s, then PLAYING to the end of the half, then
// FINISHED; our kick-off, no goalkeeper, nobody penalised.
func TestScriptKickOff(t *testing.T) {
	const start = 5 * time.Second
	half := 10 * time.Minute
	sc := gamecontroller.NewScript(gamecontroller.ScriptConfig{Enabled: true, Initial: config.Duration(2 * time.Second),
		Ready: config.Duration(15 * time.Second), Set: config.Duration(3 * time.Second), OurKickOff: true}, 17, half)
	if _, _, _, ok := sc.Latest(); ok {
		t.Fatal("a packet before the first tick")
	}
	r := newRig(t, sc, true)
	for _, tc := range []struct {
		at        time.Duration // since the start
		state     msg.GameStateKind
		remaining time.Duration
	}{
		{0, msg.StateInitial, half},
		{1999 * time.Millisecond, msg.StateInitial, half},
		{2 * time.Second, msg.StateReady, half},
		{16 * time.Second, msg.StateReady, half},
		{17 * time.Second, msg.StateSet, half},
		{20 * time.Second, msg.StatePlaying, half},
		{80 * time.Second, msg.StatePlaying, half - time.Minute},
		{20*time.Second + half, msg.StateFinished, 0},
	} {
		g := r.tick(start+tc.at, nil)
		if g.Source != msg.GameSourceGameController || g.State != tc.state || g.Remaining != tc.remaining {
			t.Errorf("at %v: %v from %v, %v left; want %v from the GameController, %v left", tc.at, g.State, g.Source, g.Remaining, tc.state, tc.remaining)
		}
		if !g.OurKickOff || g.Goalkeeper != 0 || g.Penalised || g.PenalisedMates != 0 {
			t.Errorf("at %v: %+v; want our kick-off, no goalkeeper, nobody penalised", tc.at, g)
		}
	}
}

func TestScriptConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*gamecontroller.ScriptConfig)
		err  string
	}{
		{"defaults", func(*gamecontroller.ScriptConfig) {}, ""},
		{"negative ready", func(c *gamecontroller.ScriptConfig) { c.Ready = config.Duration(-time.Second) }, "gamecontroller.simulated.ready"},
		{"an hour of set", func(c *gamecontroller.ScriptConfig) { c.Set = config.Duration(time.Hour) }, "gamecontroller.simulated.set"},
		{"goalkeeper 21", func(c *gamecontroller.ScriptConfig) { c.Goalkeeper = 21 }, "gamecontroller.simulated.goalkeeper"},
	} {
		c := gamecontroller.DefaultScriptConfig()
		tc.edit(&c)
		err := c.Validate()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.err)
		}
	}
}
