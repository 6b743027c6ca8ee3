package search

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func TestNewGrid(t *testing.T) {
	tests := []struct {
		name       string
		reach      float64
		cols, rows int
	}{
		// 2500 mm less a 650 mm margin: the thesis' nine segments (table 4.1).
		{"thesis", 1.85, 3, 3},
		{"2500 mm, 500 mm margin", 2.0, 4, 2},
		{"generous", 5.5, 1, 1},
		{"short", 1.4, 5, 3},
	}
	for _, tc := range tests {
		g, err := NewGrid(field.SPL(), tc.reach)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if g.Cols != tc.cols || g.Rows != tc.rows {
			t.Errorf("%s: %d × %d segments, want %d × %d", tc.name, g.Cols, g.Rows, tc.cols, tc.rows)
		}
		if hd := math.Hypot(g.CellX/2, g.CellY/2); hd > tc.reach+1e-9 {
			t.Errorf("%s: half diagonal %.2f m beyond reach %.2f m", tc.name, hd, tc.reach)
		}
		for i := range g.N() {
			if got := g.Index(g.Centre(i)); got != i {
				t.Errorf("%s: centre of %d is in %d", tc.name, i, got)
			}
		}
	}
	if _, err := NewGrid(field.SPL(), 0.5); err == nil {
		t.Error("a 0.5 m reach fits in 16 segments")
	}
	// Table 4.1's centres, in its order (row 0 at +y there).
	g, _ := NewGrid(field.SPL(), 1.85)
	want := []hal.Vec2{{X: -3, Y: 2}, {X: 0, Y: 2}, {X: 3, Y: 2}, {X: -3, Y: 0}, {X: 0, Y: 0}, {X: 3, Y: 0}, {X: -3, Y: -2}, {X: 0, Y: -2}, {X: 3, Y: -2}}
	for k, w := range want {
		c := g.Centre(g.Index(w))
		if math.Abs(c.X-w.X) > 1e-9 || math.Abs(c.Y-w.Y) > 1e-9 {
			t.Errorf("segment %d: centre %v, want %v", k+1, c, w)
		}
	}
	// Off the field counts for the nearest segment.
	if g.Index(hal.Vec2{X: 9, Y: -9}) != 2 {
		t.Errorf("far corner in segment %d", g.Index(hal.Vec2{X: 9, Y: -9}))
	}
}

func sum(d *Dist) float64 {
	var s float64
	for i := range d.N {
		s += d.P[i]
	}
	return s
}

func TestCompositeComponents(t *testing.T) {
	g, _ := NewGrid(field.SPL(), 1.85)
	cfg := DefaultComponentConfig()
	centre := g.Index(hal.Vec2{}) // 4
	corner := g.Index(hal.Vec2{X: 4, Y: 2.5})
	tests := []struct {
		name  string
		setup func(c *Composite)
		in    Inputs
		ticks int
		check func(t *testing.T, d *Dist)
	}{
		{"ball seen takes over its segment", nil,
			Inputs{Dt: 10 * time.Millisecond, BallSeen: true, Ball: hal.Vec2{X: 4, Y: 2.5}, PoseValid: true, Pose: hal.Pose2{X: 3, Y: 2}}, 100,
			func(t *testing.T, d *Dist) {
				if d.P[corner] < 0.9 {
					t.Errorf("ball segment %.3f after 1 s of seeing it", d.P[corner])
				}
			}},
		{"robot's own segment loses probability", nil,
			Inputs{Dt: 10 * time.Millisecond, PoseValid: true}, 500,
			func(t *testing.T, d *Dist) {
				if d.P[centre] > 0.03 {
					t.Errorf("own segment %.3f after 5 s", d.P[centre])
				}
				if d.P[0] <= 1.0/9 {
					t.Errorf("other segments did not gain: %.3f", d.P[0])
				}
			}},
		{"entropy converges to uniform", func(c *Composite) { c.d.P = [msg.MaxSegments]float64{1}; c.d.N = 9 },
			Inputs{Dt: 100 * time.Millisecond}, 6000,
			func(t *testing.T, d *Dist) {
				for i := range d.N {
					if math.Abs(d.P[i]-1.0/9) > 2e-3 {
						t.Errorf("segment %d %.4f after 600 s", i, d.P[i])
					}
				}
			}},
		{"mislocalisation resets", func(c *Composite) { c.d.P = [msg.MaxSegments]float64{1}; c.d.N = 9 },
			Inputs{Dt: 10 * time.Millisecond, Mislocalised: true}, 1,
			func(t *testing.T, d *Dist) {
				if d.P[0] != 1.0/9 {
					t.Errorf("segment 0 %.3f after a reset", d.P[0])
				}
			}},
		{"penalised resets", func(c *Composite) { c.d.P = [msg.MaxSegments]float64{0, 1}; c.d.N = 9 },
			Inputs{Dt: 10 * time.Millisecond, Penalised: true, BallSeen: true}, 1,
			func(t *testing.T, d *Dist) {
				if d.P[1] != 1.0/9 {
					t.Errorf("segment 1 %.3f after a reset", d.P[1])
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewComposite(cfg, g)
			if tc.setup != nil {
				tc.setup(c)
			}
			for range tc.ticks {
				c.Update(&tc.in)
			}
			if s := sum(c.Dist()); math.Abs(s-1) > 1e-9 {
				t.Errorf("distribution sums to %v", s)
			}
			tc.check(t, c.Dist())
		})
	}
}

func TestTeamDistribution(t *testing.T) {
	local := Dist{N: 3, P: [msg.MaxSegments]float64{0.5, 0.3, 0.2}}
	// Teammates send values relative to their largest cell.
	a := [msg.MaxSegments]float32{1, 1, 0}
	b := [msg.MaxSegments]float32{0, 1, 1}
	stale := [msg.MaxSegments]float32{1, 0, 0}
	other := [msg.MaxSegments]float32{1, 0, 0, 0}
	mates := []Mate{
		{Player: 2, NSegments: 3, Dist: &a, Age: time.Second},
		{Player: 3, NSegments: 3, Dist: &b},
		{Player: 4, NSegments: 3, Dist: &stale, Age: time.Minute},
		{Player: 5, NSegments: 4, Dist: &other},
	}
	var out Dist
	Team(TeamConfig{MaxAge: config.Duration(10 * time.Second)}, &local, mates, &out)
	// P(D_j) = P(S_j) · Σ_n P(R_nj): sums 1.0, 1.3, 0.7.
	raw := []float64{0.5 * 1.0, 0.3 * 1.3, 0.2 * 0.7}
	tot := raw[0] + raw[1] + raw[2]
	for i, r := range raw {
		if math.Abs(out.P[i]-r/tot) > 1e-12 {
			t.Errorf("segment %d: %.4f, want %.4f", i, out.P[i], r/tot)
		}
	}
	// Alone, the team distribution is the local one squared, normalised.
	Team(TeamConfig{MaxAge: config.Duration(time.Second)}, &local, nil, &out)
	if math.Abs(out.P[0]-0.25/0.38) > 1e-12 {
		t.Errorf("alone: %.4f", out.P[0])
	}
}

func TestSimpleStrategy(t *testing.T) {
	g, _ := NewGrid(field.SPL(), 1.85)
	travel := TravelConfig{Speed: 0.2, TurnSpeed: 0.5, Search: config.Duration(10 * time.Second)}
	var d Dist
	d.Uniform(9)
	pose := hal.Pose2{X: -3.25, Y: 3, Heading: -math.Pi / 2}
	simple := &SimpleUtility{Travel: travel}
	// Uniform: the nearest segment wins.
	if j := Simple(simple, &d, &g, pose); j != g.Index(hal.Vec2{X: -3, Y: 2}) {
		t.Errorf("uniform: segment %d", j)
	}
	// A likelier segment far away wins over a near one when P/time says so.
	d.P[g.Index(hal.Vec2{X: 3, Y: -2})] = 0.9
	d.Normalise()
	if j := Simple(simple, &d, &g, pose); j != g.Index(hal.Vec2{X: 3, Y: -2}) {
		t.Errorf("likely far segment: chose %d", j)
	}
	// Two teammates already visiting it: the distributed utility sends
	// this robot elsewhere if that pays.
	d.Uniform(9)
	dist := &DistributedUtility{Local: simple}
	near := g.Index(hal.Vec2{X: -3, Y: 2})
	dist.Count(&g, []Mate{
		{Searching: true, TargetValid: true, Target: g.Centre(near)},
		{Searching: true, TargetValid: true, Target: g.Centre(near)},
		{Searching: false, TargetValid: true, Target: g.Centre(near + 1)},
	}, 10)
	if dist.Visiting[near] != 2 || dist.Visiting[near+1] != 0 {
		t.Fatalf("visiting %v", dist.Visiting[:9])
	}
	j := Simple(dist, &d, &g, pose)
	if j == near {
		t.Error("chose the segment two teammates visit")
	}
	want := dist.Utility(&d, &g, pose, j)
	if got := simple.Utility(&d, &g, pose, j) / float64(1+dist.Visiting[j]); got != want {
		t.Errorf("distributed utility %v, want %v", want, got)
	}
}

func Test2016Points(t *testing.T) {
	tests := []struct {
		ball  hal.Vec2
		start int
	}{
		{hal.Vec2{X: -4, Y: 0.5}, 0},
		{hal.Vec2{X: 2.5, Y: 2.5}, 3},
		{hal.Vec2{X: 0, Y: -0.5}, 6},
		{hal.Vec2{X: -2.2, Y: -1.5}, 7},
	}
	for _, tc := range tests {
		if got := Nearest2016(tc.ball); got != tc.start {
			t.Errorf("ball %v: starts at %d, want %d", tc.ball, got, tc.start)
		}
	}
	// Visits every point in order, then starts over.
	seen := map[int]bool{}
	i := 5
	for range 8 {
		seen[i] = true
		i = Next2016(i)
	}
	if len(seen) != 8 || i != 5 {
		t.Errorf("visited %v, back at %d", seen, i)
	}
	if Points2016[3] != (hal.Vec2{X: 2, Y: 2}) {
		t.Error("table 2.1 point 4")
	}
}

func TestNoAllocs(t *testing.T) {
	g, _ := NewGrid(field.SPL(), 1.85)
	c := NewComposite(DefaultComponentConfig(), g)
	in := Inputs{Dt: 10 * time.Millisecond, PoseValid: true, BallSeen: true, Ball: hal.Vec2{X: 1}}
	var rel [msg.MaxSegments]float32
	mates := []Mate{{NSegments: 9, Dist: &rel, Searching: true, TargetValid: true}}
	var out Dist
	dist := &DistributedUtility{Local: &SimpleUtility{Travel: TravelConfig{Speed: 0.2, TurnSpeed: 1}}}
	allocs := testing.AllocsPerRun(100, func() {
		c.Update(&in)
		Team(TeamConfig{MaxAge: config.Duration(time.Second)}, c.Dist(), mates, &out)
		dist.Count(&g, mates, 5)
		_ = Simple(dist, &out, &g, hal.Pose2{})
	})
	if allocs != 0 {
		t.Errorf("%v allocations per update", allocs)
	}
}
