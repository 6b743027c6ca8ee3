package findball

import (
	"bytes"
	"encoding/json"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sync/atomic"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  bool
	}{
		{"0/1", Shard{0, 1}, false},
		{"1/2", Shard{1, 2}, false},
		{" 3/4 ", Shard{3, 4}, false},
		{"2/2", Shard{}, true},
		{"-1/2", Shard{}, true},
		{"1/0", Shard{}, true},
		{"1", Shard{}, true},
		{"a/b", Shard{}, true},
	} {
		got, err := ParseShard(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want Shard
		ok   bool
		err  bool
	}{
		{"none", nil, Shard{}, false, false},
		{"kubernetes", map[string]string{"JOB_COMPLETION_INDEX": "3", "JOB_COMPLETIONS": "5"}, Shard{3, 5}, true, false},
		{"kubernetes parallelism", map[string]string{"JOB_COMPLETION_INDEX": "0", "JOB_PARALLELISM": "2"}, Shard{0, 2}, true, false},
		{"kubernetes without a count", map[string]string{"JOB_COMPLETION_INDEX": "1"}, Shard{}, false, true},
		{"kubernetes out of range", map[string]string{"JOB_COMPLETION_INDEX": "5", "JOB_COMPLETIONS": "5"}, Shard{}, false, true},
		{"slurm", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, Shard{1, 4}, true, false},
		{"slurm from 1", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, Shard{3, 4}, true, false},
		{"slurm garbage", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"}, Shard{}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := ShardFromEnv(func(k string) string { return tc.env[k] })
			if (err != nil) != tc.err || ok != tc.ok || got != tc.want {
				t.Errorf("got %v, %v, %v; want %v, %v, error %v", got, ok, err, tc.want, tc.ok, tc.err)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	cfg := DefaultConfig()
	plan := cfg.Plan()
	if len(plan) != 10*10*2 {
		t.Fatalf("%d trials, want 200", len(plan))
	}
	ids := map[string]bool{}
	seeds := map[[2]int]uint64{}
	distinct := map[uint64]bool{}
	for i, tr := range plan {
		if tr.Index != i || ids[tr.ID()] {
			t.Fatalf("trial %d: index %d, id %s (repeated: %v)", i, tr.Index, tr.ID(), ids[tr.ID()])
		}
		ids[tr.ID()] = true
		k := [2]int{tr.Position, tr.Rep}
		if s, ok := seeds[k]; ok && s != tr.Seed {
			t.Errorf("%s: seed %d, the other strategy's %d: the strategies must face the same trials", tr.ID(), tr.Seed, s)
		}
		seeds[k] = tr.Seed
		distinct[tr.Seed] = true
		if tr.Ball != ThesisBalls[tr.Position-1] {
			t.Errorf("%s: ball %v", tr.ID(), tr.Ball)
		}
	}
	if len(distinct) != 100 {
		t.Errorf("%d distinct seeds, want 100", len(distinct))
	}
	for _, n := range []int{2, 3, 7} {
		seen := map[int]int{}
		for i := range n {
			for _, tr := range plan {
				if (Shard{i, n}).Has(tr) {
					seen[tr.Index]++
				}
			}
		}
		for _, tr := range plan {
			if seen[tr.Index] != 1 {
				t.Fatalf("%d shards: trial %s is in %d shards", n, tr.ID(), seen[tr.Index])
			}
		}
	}
}

func TestSimSeed(t *testing.T) {
	// The mix changes the simulator's seed and nothing else; without it
	// the seed, and a stored campaign's configuration, are as before.
	cfg := DefaultConfig()
	b, err := json.Marshal(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("sim_seed")) {
		t.Errorf("a campaign without a simulator seed mix writes %s", b)
	}
	seen := map[uint64]uint64{}
	for _, tr := range cfg.Plan() {
		if got := simSeed(tr.Seed, 0); got != subSeed(tr.Seed, 0) {
			t.Fatalf("%s: simulator seed %d without a mix, want %d", tr.ID(), got, subSeed(tr.Seed, 0))
		}
		for mix := uint64(1); mix <= 3; mix++ {
			s := simSeed(tr.Seed, mix)
			if o, ok := seen[s]; ok && o != tr.Seed {
				t.Fatalf("%s, mix %d: simulator seed %d also another trial's", tr.ID(), mix, s)
			}
			if s == subSeed(tr.Seed, 0) || s == simSeed(tr.Seed, mix%3+1) {
				t.Fatalf("%s, mix %d: simulator seed %d not changed by the mix", tr.ID(), mix, s)
			}
			seen[s] = tr.Seed
		}
	}
}

func TestRobotConfig(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      func(*Config)
		strategy Strategy
		check    func(t *testing.T, rc RobotConfig)
		err      string
	}{
		{name: "name is the search", strategy: Strategy{Name: "2016"}, check: func(t *testing.T, rc RobotConfig) {
			if rc.Behaviour.Search.Strategy != "2016" || rc.Behaviour.Search.ReliableDistance != 2.5 || rc.Sim.Vision.ReliableBallDistance != 2.5 {
				t.Errorf("search %q, reliable %v/%v", rc.Behaviour.Search.Strategy, rc.Behaviour.Search.ReliableDistance, rc.Sim.Vision.ReliableBallDistance)
			}
			if rc.Behaviour.Roles.Period.D() != 3500*time.Millisecond {
				t.Errorf("roles period %v: the campaign's settings are not applied", rc.Behaviour.Roles.Period.D())
			}
		}},
		{name: "reliable distance", cfg: func(c *Config) { c.ReliableDistance = 3 }, strategy: Strategy{Name: "2017"}, check: func(t *testing.T, rc RobotConfig) {
			if rc.Behaviour.Search.ReliableDistance != 3 || rc.Sim.Vision.ReliableBallDistance != 3 {
				t.Errorf("reliable %v/%v, want 3", rc.Behaviour.Search.ReliableDistance, rc.Sim.Vision.ReliableBallDistance)
			}
		}},
		{name: "robot setting wins", cfg: func(c *Config) { c.ReliableDistance = 3; c.Robot.Sim.Vision.ReliableBallDistance = 9 }, strategy: Strategy{Name: "2017"},
			check: func(t *testing.T, rc RobotConfig) {
				if rc.Behaviour.Search.ReliableDistance != 3 || rc.Sim.Vision.ReliableBallDistance != 9 {
					t.Errorf("reliable %v/%v, want 3 (the campaign's) and 9 (the robot section's)", rc.Behaviour.Search.ReliableDistance, rc.Sim.Vision.ReliableBallDistance)
				}
			}},
		{name: "strategy setting wins", cfg: func(c *Config) { c.ReliableDistance = 3 },
			strategy: Strategy{Name: "far", Robot: json.RawMessage(`{"behaviour":{"search":{"strategy":"2017","reliable_distance":4}}}`)},
			check: func(t *testing.T, rc RobotConfig) {
				if rc.Behaviour.Search.ReliableDistance != 4 || rc.Sim.Vision.ReliableBallDistance != 3 {
					t.Errorf("reliable %v/%v, want 4 (the strategy's) and 3 (the campaign's)", rc.Behaviour.Search.ReliableDistance, rc.Sim.Vision.ReliableBallDistance)
				}
			}},
		{name: "settings", strategy: Strategy{Name: "fast", Robot: json.RawMessage(`{"behaviour":{"search":{"strategy":"2017"},"walk":{"speed":0.3}},"sim":{"vision":{"fov_deg":90}}}`)},
			check: func(t *testing.T, rc RobotConfig) {
				if rc.Behaviour.Search.Strategy != "2017" || rc.Behaviour.Walk.Speed != 0.3 || rc.Sim.Vision.FOVDeg != 90 {
					t.Errorf("got %q, %v, %v", rc.Behaviour.Search.Strategy, rc.Behaviour.Walk.Speed, rc.Sim.Vision.FOVDeg)
				}
			}},
		{name: "duration setting", strategy: Strategy{Name: "x", Robot: json.RawMessage(`{"behaviour":{"search":{"strategy":"2016","scan_time":"2s"}}}`)},
			check: func(t *testing.T, rc RobotConfig) {
				if rc.Behaviour.Search.ScanTime.D() != 2*time.Second {
					t.Errorf("scan time %v", rc.Behaviour.Search.ScanTime.D())
				}
			}},
		{name: "unknown strategy", strategy: Strategy{Name: "2018"}, err: "search.strategy"},
		{name: "unknown key", strategy: Strategy{Name: "x", Robot: json.RawMessage(`{"behaviour":{"nope":1}}`)}, err: "nope"},
		{name: "wrong type", strategy: Strategy{Name: "x", Robot: json.RawMessage(`{"behaviour":{"walk":{"speed":"fast"}}}`)}, err: "walk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			rc, err := cfg.robotConfig(tc.strategy)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, rc)
		})
	}
}

func TestParseStrategy(t *testing.T) {
	for _, tc := range []struct {
		in    string
		name  string
		layer string
		err   string
	}{
		{in: "2016", name: "2016"},
		{in: "fast:behaviour.search.strategy=2017;behaviour.walk.speed=0.3", name: "fast", layer: `{"behaviour":{"search":{"strategy":"2017"},"walk":{"speed":0.3}}}`},
		{in: "wide: sim.vision.fov_deg=90 ;", name: "wide", layer: `{"sim":{"vision":{"fov_deg":90}}}`},
		{in: ":a=1", err: "no name"},
		{in: "x:novalue", err: "want key=value"},
		{in: "x:behaviour.nope=1", err: `no setting "behaviour.nope"`},
		{in: "x:behaviour.walk.speed=fast", err: "walk"},
	} {
		cfg := DefaultConfig()
		got, err := cfg.ParseStrategy(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseStrategy(%q): error %v, want one with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.Name != tc.name || string(got.Robot) != tc.layer {
			t.Errorf("ParseStrategy(%q) = %q %s, %v; want %q %s", tc.in, got.Name, got.Robot, err, tc.name, tc.layer)
			continue
		}
		if tc.layer != "" {
			rc, err := cfg.robotConfig(got)
			if err != nil || rc.Behaviour.Roles.Period.D() != 3500*time.Millisecond {
				t.Errorf("%q resolves to %v, %v: the campaign's settings are lost", tc.in, rc.Behaviour.Roles.Period.D(), err)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		err  string
	}{
		{"defaults", func(*Config) {}, ""},
		{"no strategies", func(c *Config) { c.Strategies = nil }, "no strategies"},
		{"twice", func(c *Config) { c.Strategies = []Strategy{{Name: "2016"}, {Name: "2016"}} }, "twice"},
		{"bad name", func(c *Config) { c.Strategies = []Strategy{{Name: "a/b"}} }, "strategy name"},
		{"ball off the carpet", func(c *Config) { c.Balls = []Point{{9, 0}} }, "off the field"},
		{"player twice", func(c *Config) { c.Starts = []Start{{Player: 2}, {Player: 2}} }, "twice"},
		{"no trials", func(c *Config) { c.Trials = 0 }, "trials"},
		{"no limit", func(c *Config) { c.Limit = 0 }, "limit"},
		{"network", func(c *Config) { c.Network.Loss = 2 }, "network"},
		{"physics ode", func(c *Config) { c.Physics = "ode" }, ""},
		{"unknown physics", func(c *Config) { c.Physics = "bullet" }, "physics"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mod(&c)
			err := c.Validate()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("Validate: %v, want %q", err, tc.err)
			}
		})
	}
}

func TestLoadBalls(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		want       []Point
		err        bool
	}{
		{"millimetres", "# thesis\n2250 0\n4000,-2500\n\n", []Point{{2.25, 0}, {4, -2.5}}, false},
		{"metres", "2.25 0\n-4.5\t-1\n", []Point{{2.25, 0}, {-4.5, -1}}, false},
		{"one number", "2250\n", nil, true},
		{"empty", "# nothing\n", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := LoadBalls(p)
			if (err != nil) != tc.err || len(got) != len(tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
			for i := range got {
				if math.Abs(got[i].X-tc.want[i].X) > 1e-12 || math.Abs(got[i].Y-tc.want[i].Y) > 1e-12 {
					t.Errorf("point %d: %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestIntervals(t *testing.T) {
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol }
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		// Student t quantiles (tables).
		{"t(0.975, 1)", studentQuantile(0.975, 1), 12.7062},
		{"t(0.975, 9)", studentQuantile(0.975, 9), 2.2622},
		{"t(0.975, 30)", studentQuantile(0.975, 30), 2.0423},
		{"t(0.975, 1000)", studentQuantile(0.975, 1000), 1.9623},
		// Wilson score interval for 8/10 and 96/100 (Newcombe 1998).
		{"wilson 8/10 lo", wilson(8, 10).Lo, 0.4902},
		{"wilson 8/10 hi", wilson(8, 10).Hi, 0.9433},
		{"wilson 0/10 lo", wilson(0, 10).Lo, 0},
		{"wilson 0/10 hi", wilson(0, 10).Hi, 0.2775},
		// Newcombe's hybrid interval, his example: 56/70 against 48/80,
		// difference 0.2 [0.0524, 0.3339].
		{"newcombe est", newcombe(48, 80, 56, 70).Est, 0.2},
		{"newcombe lo", newcombe(48, 80, 56, 70).Lo, 0.0524},
		{"newcombe hi", newcombe(48, 80, 56, 70).Hi, 0.3339},
		// Mean of 1..10 is 5.5, SD 3.0277, half width 2.2622·3.0277/√10.
		{"t interval lo", tInterval([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}).Lo, 5.5 - 2.1659},
	} {
		if !near(tc.got, tc.want, 5e-4) {
			t.Errorf("%s = %.5f, want %.4f", tc.name, tc.got, tc.want)
		}
	}
	w := welch([]float64{1, 2, 3, 4}, []float64{3, 4, 5, 6})
	if w.Est != 2 || !(w.Lo < 2 && w.Hi > 2) || !near(w.Hi-w.Est, studentQuantile(0.975, 6)*math.Sqrt(2*(5.0/3)/4), 1e-9) {
		t.Errorf("welch: %+v", w)
	}
}

// results makes stored-looking results: for each position, the given find
// times (seconds; negative: not found).
func results(strategy string, times [][]float64) []Result {
	var rs []Result
	for p, ts := range times {
		for i, s := range ts {
			r := Result{Trial: Trial{Strategy: strategy, Position: p + 1, Rep: i + 1}}
			if s >= 0 {
				r.Found, r.Time = true, time.Duration(s*float64(time.Second))
			} else {
				r.Time = 180 * time.Second
			}
			rs = append(rs, r)
		}
	}
	return rs
}

func TestTables(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Balls = cfg.Balls[:4]
	rs := append(results("2016", [][]float64{{10, 20, 30}, {40, -1, -1}, {-1, -1, -1}, {50, 70, 60}}),
		results("2017", [][]float64{{5, 5, 5}, {6, 8, 10}, {100, -1, 150}, {1, 2, 3}})...)
	tables := Tables(&cfg, rs)
	if len(tables) != 2 {
		t.Fatalf("%d tables", len(tables))
	}
	a := tables[0]
	for _, tc := range []struct {
		name string
		got  Row
		want Row
	}{
		{"2016 position 1", a.Rows[0], Row{Label: "1", Tests: 3, Found: 3, NotFound: 0, Total: 60, Mean: 20, SD: 10}},
		{"2016 position 2", a.Rows[1], Row{Label: "2", Tests: 3, Found: 1, NotFound: 2, Total: 40, Mean: 40, SD: 0}},
		{"2016 position 3", a.Rows[2], Row{Label: "3", Tests: 3, Found: 0, NotFound: 3}},
		{"2016 grand total", a.Grand.Total, Row{Label: "total all", Tests: 12, Found: 7, NotFound: 5, Total: 280}},
		// The thesis' grand average: the mean of the positions' means and
		// of their SDs, over the positions with a find.
		{"2016 grand average", a.Grand.Average, Row{Label: "average all", Total: 70, Mean: (20 + 40 + 60) / 3.0, SD: (10 + 0 + 10) / 3.0}},
		{"2016 first half", a.Halves[0].Total, Row{Label: "total 1-2", Tests: 6, Found: 4, NotFound: 2, Total: 100}},
		{"2017 position 3", tables[1].Rows[2], Row{Label: "3", Tests: 3, Found: 2, NotFound: 1, Total: 250, Mean: 125, SD: math.Sqrt(1250)}},
	} {
		g, w := tc.got, tc.want
		if g.Label != w.Label || g.Tests != w.Tests || g.Found != w.Found || g.NotFound != w.NotFound ||
			math.Abs(g.Total-w.Total) > 1e-9 || math.Abs(g.Mean-w.Mean) > 1e-9 || math.Abs(g.SD-w.SD) > 1e-9 {
			t.Errorf("%s: %+v, want %+v", tc.name, g, w)
		}
	}
	if m, _ := meanSD([]float64{10, 20, 30, 40, 50, 70, 60}); math.Abs(a.Pooled.Mean-m) > 1e-9 {
		t.Errorf("pooled mean %v, want %v", a.Pooled.Mean, m)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, &a, len(cfg.Balls)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 1 | 3 | 3 | 0 | 60.00 | 20.00 | 10.00 |", "**Grand Total** | 12 | 7 | 5 |", "**Sub-Total** (1-2)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	c := Compare(rs, "2016", "2017")
	if c.A.Rate.Est != 7.0/12 || c.B.Rate.Est != 11.0/12 || math.Abs(c.RateDiff.Est-4.0/12) > 1e-12 {
		t.Errorf("rates %v, %v, difference %v", c.A.Rate, c.B.Rate, c.RateDiff)
	}
	if !(c.A.Rate.Lo < c.A.Rate.Est && c.A.Rate.Est < c.A.Rate.Hi) || !(c.MeanDiff.Lo < c.MeanDiff.Est && c.MeanDiff.Est < c.MeanDiff.Hi) {
		t.Errorf("intervals do not contain their estimates: %+v", c)
	}
}

func TestReferee(t *testing.T) {
	b := blackboard.New()
	start := new(atomic.Int64)
	start.Store(int64(3 * time.Second))
	v := &refereeView{ref: &referee{team: 17, players: []int{2, 3}, start: start}, board: b}
	for _, tc := range []struct {
		at        time.Duration
		penalised bool
		remaining int16
	}{
		{time.Second, true, 600},
		{3*time.Second - 10*time.Millisecond, true, 600},
		{3 * time.Second, false, 600},
		{65 * time.Second, false, 538},
	} {
		b.BeginTick(uint64(tc.at/(10*time.Millisecond)), tc.at)
		d, _, _, ok := v.Latest()
		team, _ := d.Team(17)
		for _, p := range []int{2, 3} {
			if got := team.Players[p-1].Penalty != gamecontroller.PenaltyNone; !ok || got != tc.penalised {
				t.Errorf("at %v: player %d penalised %v, want %v", tc.at, p, got, tc.penalised)
			}
		}
		if d.State != gamecontroller.StatePlaying || d.SecsRemaining != tc.remaining || team.Goalkeeper != 1 {
			t.Errorf("at %v: state %v, remaining %d, goalkeeper %d", tc.at, d.State, d.SecsRemaining, team.Goalkeeper)
		}
		if a, c := v.Stats().Packets, v.Stats().Packets; a != c || a == 0 {
			t.Errorf("at %v: packets %d then %d", tc.at, a, c)
		}
	}
	b.BeginTick(1000, 10*time.Second)
	p1 := v.Stats().Packets
	b.BeginTick(1001, 10*time.Second+10*time.Millisecond)
	if p2 := v.Stats().Packets; p2 == p1 {
		t.Error("no new packet in the next tick: the game-state module would keep the old one")
	}
}

func TestPlots(t *testing.T) {
	cfg := DefaultConfig()
	samples := func(player int, x0, y0, x1, y1 float64) []Sample {
		var s []Sample
		for i := 0; i <= 20; i++ {
			f := float64(i) / 20
			s = append(s, Sample{Player: player, T: time.Duration(i) * 500 * time.Millisecond, X: x0 + f*(x1-x0), Y: y0 + f*(y1-y0)})
		}
		return s
	}
	trial := append(samples(2, -3.25, 3, 0, 1), samples(3, -2, -3, -2, 0)...)
	render := func(trials [][]Sample) []byte {
		var b bytes.Buffer
		err := RoutePlot(&b, &cfg, "test", func(fn func([]Sample) error) error {
			for _, s := range trials {
				if err := fn(s); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	empty, routes := render(nil), render([][]Sample{trial, trial, trial})
	ie, err := png.Decode(bytes.NewReader(empty))
	if err != nil {
		t.Fatal(err)
	}
	ir, err := png.Decode(bytes.NewReader(routes))
	if err != nil {
		t.Fatal(err)
	}
	w, h := RouteSize()
	if ir.Bounds().Dx() != w || ir.Bounds().Dy() != h || w != 1040 || h != 740 {
		t.Fatalf("route plot %v, want %dx%d (1040x740)", ir.Bounds(), w, h)
	}
	// The field itself: carpet, white lines and a coloured border.
	if colourAt(ie, 300, 200) != carpet || colourAt(ie, 520, 100) != lineWhite {
		t.Errorf("empty field: carpet %v, halfway line %v", colourAt(ie, 300, 200), colourAt(ie, 520, 100))
	}
	changed := 0
	for y := range h {
		for x := range w {
			if colourAt(ie, x, y) != colourAt(ir, x, y) {
				changed++
			}
		}
	}
	if changed < 500 {
		t.Errorf("only %d pixels show routes", changed)
	}
	// Halfway along robot 2's route, (-1.625, 2): reddened carpet.
	c := colourAt(ir, 357, 170)
	if !(c.R > carpet.R+20 && c.G < carpet.G) {
		t.Errorf("robot 2's route at (-1.6, 2) is %v, carpet %v", c, carpet)
	}
	// Robot 3's route is blue.
	c = colourAt(ir, 320, 520)
	if !(c.B > carpet.B+20) {
		t.Errorf("robot 3's route at (-2, -1.5) is %v", c)
	}

	var b bytes.Buffer
	rs := append(results("2016", [][]float64{{10, 20, -1}, {40, 55, 170}}), results("2017", [][]float64{{5, 12, 30}, {-1, -1, 100}})...)
	if err := TimePlot(&b, &cfg, rs); err != nil {
		t.Fatal(err)
	}
	it, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if it.Bounds().Dx() != TimePlotW || it.Bounds().Dy() != TimePlotH {
		t.Fatalf("find-time plot %v", it.Bounds())
	}
	coloured := 0
	for y := range TimePlotH {
		for x := range TimePlotW {
			if c := colourAt(it, x, y); c.R != c.G || c.G != c.B {
				coloured++
			}
		}
	}
	if coloured < 1000 {
		t.Errorf("only %d coloured pixels in the find-time plot", coloured)
	}
}

func colourAt(img interface {
	At(x, y int) color.Color
}, x, y int) color.RGBA {
	return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
}

// TestCampaignDiff: a clash names the settings that differ, in one line,
// each value cut short, at most four.
func TestCampaignDiff(t *testing.T) {
	for _, tc := range []struct {
		name       string
		have, want string
		out        string
	}{
		{"one", `{"trials":10,"seed":1}`, `{"trials":2,"seed":1}`, "db has trials=10; this run trials=2"},
		{"missing", `{"trials":10}`, `{"trials":10,"set":["a=1"]}`, `db has set=none; this run set=["a=1"]`},
		{"long", `{"balls":[` + strings.Repeat(`{"x":1,"y":2},`, 20) + `{"x":0,"y":0}]}`, `{"balls":[]}`,
			`db has balls=[{"x":1,"y":2},{"x":1,"y":2},{"x":1,"y"…; this run balls=[]`},
		{"many", `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1}`, `{"a":2,"b":2,"c":2,"d":2,"e":2,"f":2}`, "db has a=1 b=1 c=1 d=1; this run a=2 b=2 c=2 d=2 and 2 more"},
		{"same", `{"a": 1}`, `{"a":1}`, "db holds the same settings in another form"},
		{"unreadable", `[1]`, `{"a":1}`, "db holds a campaign this version cannot read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := campaignDiff("db", []byte(tc.have), []byte(tc.want)); got != tc.out {
				t.Errorf("got  %s\nwant %s", got, tc.out)
			}
		})
	}
}

func TestTeamPlay(t *testing.T) {
	S, D, P := msg.RoleStriker, msg.RoleDefender, msg.RoleSupporter
	s := time.Second
	tests := []struct {
		name     string
		roles    [][]RoleChange
		switches [][]time.Duration
		first    time.Duration
		most     int
	}{
		{"allocated at once", [][]RoleChange{{{T: 0, Role: S, Allocated: true}}, {{T: 0, Role: D, Allocated: true}}}, nil, 0, 0},
		{"the kick-off roles first, then an allocation with two strikers, then one",
			[][]RoleChange{
				{{T: 0, Role: S}, {T: 2 * s, Role: S, Allocated: true}},
				{{T: 0, Role: D}, {T: 2 * s, Role: S, Allocated: true}, {T: 9 * s, Role: P, Allocated: true}},
			},
			[][]time.Duration{{}, {9 * s}}, 9 * s, 1},
		{"never", [][]RoleChange{{{T: 0, Role: S}}, {{T: 0, Role: D, Allocated: true}}}, nil, -1, 0},
		{"one striker at once, two for a while later: from the last stretch of one on",
			[][]RoleChange{
				{{T: 0, Role: S, Allocated: true}},
				{{T: 0, Role: D, Allocated: true}, {T: 11 * s, Role: S, Allocated: true}, {T: 22 * s, Role: D, Allocated: true}},
			},
			[][]time.Duration{{}, {11 * s, 22 * s}}, 22 * s, 2},
		{"a simultaneous swap keeps one striker",
			[][]RoleChange{
				{{T: 0, Role: S, Allocated: true}, {T: 11 * s, Role: D, Allocated: true}},
				{{T: 0, Role: D, Allocated: true}, {T: 11 * s, Role: S, Allocated: true}},
			},
			[][]time.Duration{{11 * s}, {11 * s}}, 0, 1},
		{"none at the end", [][]RoleChange{{{T: 0, Role: S, Allocated: true}, {T: 5 * s, Role: D, Allocated: true}}}, nil, -1, 0},
		{"three switches, two within a minute",
			[][]RoleChange{{{T: 0, Role: S, Allocated: true}}},
			[][]time.Duration{{5 * s, 64 * s, 70 * s, 140 * s}}, 0, 2},
	}
	for _, tc := range tests {
		var tp TeamPlay
		tp.summarise(tc.roles, tc.switches, 3*time.Minute)
		if tp.FirstStriker != tc.first || tp.MaxPerMinute != tc.most {
			t.Errorf("%s: first striker %v, most per minute %d; want %v, %d", tc.name, tp.FirstStriker, tp.MaxPerMinute, tc.first, tc.most)
		}
	}
}

func TestPositionSets(t *testing.T) {
	for _, name := range []string{"thesis", "spread"} {
		ps, err := LookupPositions(name)
		if err != nil {
			t.Fatal(err)
		}
		c := DefaultConfig()
		c.Balls, c.Starts = ps.Balls, ps.Starts
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if len(ps.Balls) != 10 || len(ps.Starts) != 3 {
			t.Errorf("%s: %d balls, %d starts", name, len(ps.Balls), len(ps.Starts))
		}
	}
	for _, b := range SpreadBalls {
		if slices.Contains(ThesisBalls, b) {
			t.Errorf("spread ball %v is a thesis position", b)
		}
	}
	if _, err := LookupPositions("nowhere"); err == nil {
		t.Error("an unknown set was found")
	}
}

func TestPairedComparison(t *testing.T) {
	var rs []Result
	for p := 1; p <= 3; p++ {
		for rep := 1; rep <= 4; rep++ {
			a := Result{Trial: Trial{Strategy: "a", Position: p, Rep: rep}, Found: true, Time: time.Duration(40+p+rep) * time.Second}
			b := Result{Trial: Trial{Strategy: "b", Position: p, Rep: rep}, Found: true, Time: a.Time - time.Duration(10+rep%2)*time.Second}
			rs = append(rs, a, b)
		}
	}
	rs[1].Found, rs[1].Time = false, 180*time.Second // b did not find one: the limit counts
	c := Compare(rs, "a", "b")
	if c.Paired.N != 12 || c.PairsBothFound != 11 {
		t.Fatalf("%d pairs, %d both found", c.Paired.N, c.PairsBothFound)
	}
	want := (-10.5*12 + 11 + (180 - 42)) / 12 // rs[1] was 11 s faster
	if math.Abs(c.Paired.Est-want) > 1e-9 || !(c.Paired.Lo < want && want < c.Paired.Hi) {
		t.Errorf("paired %v, want %.3f", c.Paired, want)
	}
}

// TestProbeTeamPlay: the probe books role changes, switches and idling
// (seeing the ball, not the striker, standing) tick by tick.
func TestProbeTeamPlay(t *testing.T) {
	p := newProbe(3, 0.3, time.Second, new(atomic.Int64), nil)
	ms := time.Millisecond
	type tick struct {
		at       time.Duration
		role     msg.Role
		alloc    bool
		switches uint32
		seen     bool
		kind     msg.MotionKind
	}
	for _, tk := range []tick{
		{0, msg.RoleDefender, false, 0, false, msg.MotionWalk},
		{1730 * ms, msg.RoleDefender, true, 0, true, msg.MotionStand}, // idle from here
		{4000 * ms, msg.RoleDefender, true, 0, true, msg.MotionStand},
		{5000 * ms, msg.RoleDefender, true, 0, true, msg.MotionWalk}, // idle 1.73-4.00 s
		{6000 * ms, msg.RoleStriker, true, 1, true, msg.MotionStand}, // the striker stands: not idle
		{9000 * ms, msg.RoleStriker, true, 1, true, msg.MotionStand},
	} {
		p.rs = msg.RoleState{Role: tk.role, Allocated: tk.alloc, Switches: tk.switches}
		p.b = msg.Ball{Seen: tk.seen}
		p.mr = msg.MotionRequest{Kind: tk.kind}
		p.teamPlay(tk.at, true)
	}
	roles, switches, idle := p.teamUntil(time.Minute)
	if len(roles) != 3 || roles[1].T != 1730*ms || !roles[1].Allocated || roles[2].Role != msg.RoleStriker {
		t.Errorf("roles %+v", roles)
	}
	if len(switches) != 1 || switches[0] != 6*time.Second {
		t.Errorf("switches %v", switches)
	}
	if idle != 2270*ms {
		t.Errorf("idle %v, want 2.27s", idle)
	}
}

// TestProbeFalls: the probe counts falls by the simulator's ground truth
// (the head's height), from the trial's start on: a robot lying at the
// start is one fall, a get-up's sway is not another, and robotd's own
// fall state does not count.
func TestProbeFalls(t *testing.T) {
	start := new(atomic.Int64)
	start.Store(int64(time.Second))
	p := newProbe(2, 0.3, 500*time.Millisecond, start, nil)
	b := blackboard.New()
	gtW, err := blackboard.Write(b, "test", msg.GroundTruthKey)
	if err != nil {
		t.Fatal(err)
	}
	bodyW, err := blackboard.Write(b, "test", msg.BodyStateKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blackboard.Write(b, "test", msg.BallKey); err != nil {
		t.Fatal(err)
	}
	if err := p.Wire(b); err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	for i, tk := range []struct {
		at   time.Duration
		head float64
		own  msg.Fall // robotd's own estimate
	}{
		{500 * ms, 0.1, msg.FallenBack},    // lying before the start
		{1000 * ms, 0.1, msg.FallenBack},   // the start: one fall
		{1500 * ms, 0.35, msg.Upright},     // getting up
		{2000 * ms, 0.25, msg.Upright},     // sways back: the same fall
		{2500 * ms, 0.52, msg.Upright},     // up
		{3000 * ms, 0.47, msg.FallenFront}, // leaning on a robot: robotd says fallen, it is not
		{3500 * ms, 0.52, msg.Upright},
		{4000 * ms, 0.08, msg.FallenFront}, // the second fall
	} {
		b.BeginTick(uint64(i+1), tk.at)
		gtW.Set(hal.GroundTruth{Valid: true, HeadHeight: hal.Metres(tk.head)})
		bodyW.Set(msg.BodyState{Fall: tk.own})
		if err := p.Tick(hal.Tick{Seq: uint64(i + 1), Time: tk.at, Connected: true}); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.fallsUntil(time.Minute); got != 2 {
		t.Errorf("%d falls, want 2 (lying at the start, and at 4 s)", got)
	}
	var fallen []bool
	for _, s := range p.samplesUntil(time.Minute) {
		fallen = append(fallen, s.Fallen)
	}
	if want := []bool{true, true, true, false, false, false, true}; !slices.Equal(fallen, want) {
		t.Errorf("samples' fallen %v, want %v", fallen, want)
	}
}

func TestOnGrid(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct{ t, grid, want time.Duration }{
		{3040 * ms, 5500 * ms, 5500 * ms},
		{4270 * ms, 5500 * ms, 5500 * ms},
		{5500 * ms, 5500 * ms, 5500 * ms},
		{5501 * ms, 5500 * ms, 11000 * ms},
		{0, 5500 * ms, 0},
		{3040 * ms, 0, 3040 * ms},
	} {
		if got := onGrid(tc.t, tc.grid); got != tc.want {
			t.Errorf("onGrid(%v, %v) = %v, want %v", tc.t, tc.grid, got, tc.want)
		}
	}
}
