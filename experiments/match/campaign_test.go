package match

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
)

// tinyConfig is a campaign of one seed (two games) of one robot a side in
// the kinematic model with halves of 3 s: the machinery, not the play.
func tinyConfig() Config {
	cfg := DefaultConfig()
	cfg.Players, cfg.Seeds, cfg.Physics = 1, 1, simserver.PhysicsKinematic
	cfg.Half = config.Duration(3 * time.Second)
	cfg.Referee.Initial, cfg.Referee.Ready, cfg.Referee.Set, cfg.Referee.HalfTime = 0, config.Duration(2*time.Second), config.Duration(time.Second), config.Duration(time.Second)
	cfg.Starts = []findball.Start{{Player: 1, X: -1, Y: -3, Deg: 90}}
	return cfg
}

// TestCampaignVoidResumeReplay runs a campaign whose first game stalls in
// its first attempt (a robot's tick blocks for longer than the stall
// timeout): the game is void and played again, both games are stored,
// running the campaign again plays nothing, and the stalled game replays
// byte for byte as stored. Under the race detector it plays the first
// game only (stalled, void, played again) and does not replay it.
func TestCampaignVoidResumeReplay(t *testing.T) {
	defer leaktest.Check(t)()
	cfg := tinyConfig()
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := newEnv(&cfg, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.stall = 3 * time.Second
	plan := cfg.Plan()
	if racetest.Enabled {
		plan = plan[:1]
	}
	var stalled atomic.Bool
	release := make(chan struct{})
	defer close(release)
	e.hold = func(attempt, side, player int) func(time.Duration) {
		if attempt != 1 || side != 0 {
			return nil
		}
		return func(now time.Duration) {
			if now >= 5*time.Second && stalled.CompareAndSwap(false, true) {
				// A tick in the game: the world waits for this robot.
				select {
				case <-release:
				case <-time.After(5 * time.Second):
				}
			}
		}
	}
	if err := st.Begin(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	var voids int
	err = e.playAll(ctx, plan, Options{Parallel: 1, Retries: 4}, func(r *Result, void int) error {
		voids += void
		return st.Save(ctx, r, findball.All)
	})
	if err != nil {
		t.Fatal(err)
	}
	// A loaded machine may void a game more often (a step that takes
	// longer than the stall timeout).
	if voids < 1 || e.attempts["001-a"] < 2 || e.attempts["001-a"] != voids+1 && racetest.Enabled {
		t.Errorf("void games %d, attempts %v; want the first game void and played again", voids, e.attempts)
	}
	results, err := st.Results(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(plan) || results[0].ID() != "001-a" {
		t.Fatalf("stored %d games", len(results))
	}
	for _, r := range results {
		if r.Length < 10*time.Second || len(r.Samples) == 0 {
			t.Errorf("game %s: %v of simulation, %d samples; want the whole game", r.ID(), r.Length, len(r.Samples))
		}
	}
	if racetest.Enabled {
		return
	}
	// Resumed: nothing left to play.
	sum, err := Run(ctx, &cfg, st, Options{})
	if err != nil || sum.Ran != 0 || sum.Skipped != 2 {
		t.Errorf("resumed run: %+v %v; want both games stored", sum, err)
	}
	r, same, err := Replay(ctx, st, "001-a", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !same {
		stored, _ := st.Stored(ctx, "001-a")
		now, _ := json.Marshal(&r)
		t.Errorf("the replay of 001-a differs:\nstored %.300s\nnow    %.300s", stored, now)
	}
	if _, _, err := Replay(ctx, st, "009-a", nil, nil); err == nil || !strings.Contains(err.Error(), "009-a") {
		t.Errorf("replaying a game not stored: %v", err)
	}
}

// TestStoreRefusesAnotherCampaign keeps one campaign per database.
func TestStoreRefusesAnotherCampaign(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, b := tinyConfig(), tinyConfig()
	b.Seed = 7
	if err := st.Begin(ctx, &a); err != nil {
		t.Fatal(err)
	}
	if err := st.Begin(ctx, &a); err != nil {
		t.Errorf("the same campaign again: %v", err)
	}
	if err := st.Begin(ctx, &b); err == nil {
		t.Error("another campaign was taken")
	}
}

// TestMergeShards merges two shards' games, takes a game stored in both
// once, and refuses a game that differs or another campaign.
func TestMergeShards(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := tinyConfig()
	mk := func(name string, games ...Result) string {
		p := filepath.Join(dir, name)
		st, err := Open(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.Begin(ctx, &cfg); err != nil {
			t.Fatal(err)
		}
		for _, g := range games {
			if err := st.Save(ctx, &g, findball.All); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	plan := cfg.Plan()
	g0 := Result{Game: plan[0], Score: [2]int{1, 0}, Samples: []Sample{{T: time.Second, Team: -1, X: 1}}}
	g1 := Result{Game: plan[1], Score: [2]int{0, 2}}
	s0, s1 := mk("s0.db", g0), mk("s1.db", g1, g0)
	g0b := g0
	g0b.Score = [2]int{2, 0}
	bad := mk("bad.db", g0b)
	st, err := Open(ctx, filepath.Join(dir, "all.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, err := st.Merge(ctx, s0, s1)
	if err != nil || n != 2 {
		t.Fatalf("merged %d games: %v; want 2", n, err)
	}
	rs, err := st.Results(ctx)
	if err != nil || len(rs) != 2 || rs[0].Score != g0.Score || rs[1].Score != g1.Score || len(rs[0].Samples) != 1 {
		t.Fatalf("merged results %+v %v", rs, err)
	}
	if _, err := st.Merge(ctx, bad); err == nil || !strings.Contains(err.Error(), "different outcomes") {
		t.Errorf("merging a different game: %v", err)
	}
	other := tinyConfig()
	other.Half = config.Duration(time.Minute)
	cfg = other
	if _, err := st.Merge(ctx, mk("other.db")); err == nil {
		t.Error("merged another campaign")
	}
}

// TestConfigRules: every key of the campaign has a rule, the defaults
// pass, and bad values are refused naming the key.
func TestConfigRules(t *testing.T) {
	cfg := DefaultConfig()
	missing, err := config.Unruled(&cfg, cfg.Rules())
	if err != nil || len(missing) > 0 {
		t.Fatalf("keys without a rule: %v %v", missing, err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"layout", func(c *Config) { c.Layout = "x" }, "layout"},
		{"players", func(c *Config) { c.Players = 0 }, "players"},
		{"same team numbers", func(c *Config) { c.B.Number = c.A.Number }, "team number"},
		{"team setting", func(c *Config) { c.A.Set = []string{"behaviour.no_such=1"} }, "no_such"},
		{"ready", func(c *Config) { c.Referee.Ready = config.Duration(time.Minute) }, "ready"},
		{"every below step", func(c *Config) { c.Referee.Every = config.Duration(50 * time.Millisecond) }, "every"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.set(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// TestPlanPairs plays every seed twice, each team kicking off first once,
// with the same seed.
func TestPlanPairs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seeds = 3
	plan := cfg.Plan()
	if len(plan) != 6 {
		t.Fatalf("%d games", len(plan))
	}
	for i := 0; i < len(plan); i += 2 {
		a, b := plan[i], plan[i+1]
		if a.Seed != b.Seed || a.Pair != b.Pair || a.BFirst || !b.BFirst || a.Index != i || b.Index != i+1 {
			t.Errorf("games %+v %+v are not a pair", a, b)
		}
	}
	if plan[0].Seed == plan[2].Seed {
		t.Error("two seeds are equal")
	}
}

func TestParseTeam(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Team
		ok   bool
	}{
		{"base", Team{Name: "base", Number: 2, Set: []string{}}, true},
		{"slow: behaviour.walk.speed=0.125 ; motion.x=1", Team{Name: "slow", Number: 2, Set: []string{"behaviour.walk.speed=0.125", "motion.x=1"}}, true},
		{":a=1", Team{}, false},
		{"x:novalue", Team{}, false},
	} {
		got, err := ParseTeam(tc.in, 2)
		if (err == nil) != tc.ok || tc.ok && (got.Name != tc.want.Name || got.Number != 2 || strings.Join(got.Set, "|") != strings.Join(tc.want.Set, "|")) {
			t.Errorf("ParseTeam(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

func FuzzParseTeam(f *testing.F) {
	for _, s := range []string{"a", "b:behaviour.walk.speed=0.1", "x:a=1;b=2;", ":", "a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := ParseTeam(s, 1)
		if err != nil {
			return
		}
		if tm.Name == "" || strings.Contains(tm.Name, ":") {
			t.Fatalf("name %q from %q", tm.Name, s)
		}
		for _, kv := range tm.Set {
			if !strings.Contains(kv, "=") || strings.TrimSpace(kv) != kv || strings.Contains(kv, ";") {
				t.Fatalf("setting %q from %q", kv, s)
			}
		}
	})
}

// TestAttachedServer plays a tiny game on a running SimSpark server (the
// embedded simulator in sync mode started on its own, as cmd/embeddedsim
// -sync runs it), without the gate: the referee looks when every robot
// has ticked past its next step. The game's page shows its end: both
// robots, the ball, the phase and the score.
func TestAttachedServer(t *testing.T) {
	defer leaktest.Check(t)()
	sc := simserver.DefaultConfig()
	sc.Sync, sc.Physics = true, simserver.PhysicsKinematic
	sc.AgentAddr, sc.MonitorAddr = "127.0.0.1:0", "127.0.0.1:0"
	sc.Logger = slog.New(slog.DiscardHandler)
	srv, err := simserver.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	cfg := tinyConfig()
	e, err := newEnv(&cfg, &simrun.Target{Agent: srv.AgentAddr().String(), Trainer: srv.MonitorAddr().String()}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.view = new(View)
	r, _, err := e.playRetrying(context.Background(), cfg.Plan()[0], 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Length < 10*time.Second || r.Heard != 2 {
		t.Errorf("game of %v, %d robots heard the GameController; want the whole game and both", r.Length, r.Heard)
	}
	for _, tc := range []struct{ path, want string }{{"/", "<canvas"}, {"/game.json", `"phase":"over"`}} {
		rec := httptest.NewRecorder()
		e.view.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s: %d %.200s; want %q", tc.path, rec.Code, rec.Body.String(), tc.want)
		}
	}
	s, _ := e.view.Snapshot()
	if len(s.Robots) != 2 || s.Score != r.Score || s.Half != 2 || !s.BallValid {
		t.Errorf("the page's game %+v, want both robots, the ball and the score %v", s, r.Score)
	}
}
