package match

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/simserver/ode"
)

// shortConfig is a short game: two robots a side (goalkeeper and
// striker), team A's starting at their kick-off positions, team B's on
// the side line walking at a fifth of the speed and not kicking; READY
// 2 s, SET 1 s and 57 s of PLAYING: the first half is the 60 s of
// simulation time from the referee's first look.
func shortConfig() Config {
	cfg := DefaultConfig()
	cfg.Players, cfg.Seeds = 2, 1
	cfg.Half = config.Duration(57 * time.Second) // READY and SET take 3 s
	cfg.Referee.Initial, cfg.Referee.Ready, cfg.Referee.Set = 0, config.Duration(2*time.Second), config.Duration(time.Second)
	cfg.B.Set = []string{"behaviour.walk.speed=0.05", "behaviour.kick.enabled=false"}
	cfg.Starts = []findball.Start{{Player: 1, X: -4.2, Deg: 0}, {Player: 2, X: -0.6, Y: 0.1, Deg: 0}}
	cfg.B.Starts = []findball.Start{{Player: 1, X: -4.0, Y: 3, Deg: -90}, {Player: 2, X: -1.0, Y: 3, Deg: -90}}
	if !ode.Available {
		cfg.Physics = simserver.PhysicsKinematic
	}
	return cfg
}

// TestShortGameScores plays the short game: team A scores within 60 s of
// simulation time, every robot takes the game state from the
// GameController's UDP packets, and the game played again is the same
// byte for byte. Under the race detector it plays the first 4 s (the
// kick-off's READY and SET) and checks the packets only. A void game (a
// loaded machine) is played again, as in a campaign.
func TestShortGameScores(t *testing.T) {
	defer leaktest.Check(t)()
	cfg := shortConfig()
	limit := 60 * time.Second
	if racetest.Enabled {
		limit = 4 * time.Second
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	e, err := newEnv(&cfg, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.limit = limit
	r, _, err := e.playRetrying(context.Background(), cfg.Plan()[0], 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("score %v goals %+v possession %v shots %v falls %v pens %v sw %v kickins %v gk %v corners %v coll %d len %v wall %v samples %d",
		r.Score, r.Goals, r.Possession, r.Shots, r.Falls, r.Penalties, r.Switches, r.KickIns, r.GoalKicks, r.Corners, r.Collisions, r.Length, r.Wall, len(r.Samples))
	if r.Heard != 2*cfg.Players || r.Length != limit {
		t.Errorf("%d robots took the GameController's packets, the game lasted %v; want all %d, %v", r.Heard, r.Length, 2*cfg.Players, limit)
	}
	if racetest.Enabled {
		return
	}
	if r.Score[0] < 1 {
		t.Errorf("team A scored %d goals in 60 s, want at least 1", r.Score[0])
		for _, s := range r.Samples {
			if s.T%(2*time.Second) == 0 && (s.Team == -1 || s.Team == 0 && s.Player == 2) {
				t.Logf("%v: team %d player %d at (%.2f, %.2f) %.0f° fallen %v", s.T, s.Team, s.Player, s.X, s.Y, s.Heading*180/math.Pi, s.Fallen)
			}
		}
	}
	// The same game again (this build's world model: the physics mode
	// with -tags ode) is the same game, byte for byte.
	again, _, err := e.playRetrying(context.Background(), cfg.Plan()[0], 2)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(&r)
	b, _ := json.Marshal(&again)
	if !bytes.Equal(a, b) {
		t.Errorf("the game played again differs: %v, then %v", r.Goals, again.Goals)
	}
}
