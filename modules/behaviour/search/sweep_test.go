package search

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
)

func TestSweepLookAndRegrow(t *testing.T) {
	cfg := DefaultSweepConfig()
	if err := cfg.Validate(field.SPL()); err != nil {
		t.Fatal(err)
	}
	s := NewSweep(cfg, field.SPL())
	if s.Cols() != 18 || s.Rows() != 12 {
		t.Fatalf("grid %d × %d, want 18 × 12", s.Cols(), s.Rows())
	}
	pose := hal.Pose2{X: 0, Y: 0, Heading: 0}
	for range 300 { // 3 s of looking ahead
		s.Look(pose, 10*time.Millisecond, 1)
	}
	ahead, behind, far := s.Index(hal.Vec2{X: 1.2}), s.Index(hal.Vec2{X: -1.2}), s.Index(hal.Vec2{X: 3})
	if m := s.Mass(ahead); m > 0.2 {
		t.Errorf("1.2 m ahead: %.3f left after 3 s of looking", m)
	}
	if m := s.Mass(behind); m != 1 {
		t.Errorf("1.2 m behind (out of view): %.3f", m)
	}
	if m := s.Mass(far); m != 1 {
		t.Errorf("3 m ahead (out of reach): %.3f", m)
	}
	before := s.Mass(ahead)
	s.Regrow(cfg.Regrow.D())
	if want := 1 - (1-before)/math.E; math.Abs(s.Mass(ahead)-want) > 1e-9 {
		t.Errorf("regrowth over one time constant: %.4f, want %.4f", s.Mass(ahead), want)
	}
	// A teammate's walk along the left side line takes mass along it.
	s.Reset()
	s.LookAlong(hal.Pose2{X: -3, Y: 2.5}, hal.Pose2{X: -1, Y: 2.5}, 4*time.Second)
	if m := s.Mass(s.Index(hal.Vec2{X: -2, Y: 2.9})); m >= 1 {
		t.Errorf("the line beside a teammate's walk kept all its mass")
	}
	if m := s.Mass(s.Index(hal.Vec2{X: 3, Y: -2.5})); m != 1 {
		t.Errorf("the far corner lost mass: %.3f", m)
	}
	// A ball seen puts mass where it was.
	s.BallAt(hal.Vec2{X: 4.4, Y: -2.9})
	if m := s.Mass(s.Index(hal.Vec2{X: 4.5, Y: -3})); m != cfg.BallMass {
		t.Errorf("ball cell %.1f", m)
	}
}

func TestSweepChoose(t *testing.T) {
	cfg := DefaultSweepConfig()
	s := NewSweep(cfg, field.SPL())
	travel := TravelConfig{Speed: 0.2, TurnSpeed: 0.6, Search: config.Duration(12 * time.Second)}
	// Everything seen but the far corner: the robot goes into the corner,
	// to a viewpoint that reaches the corner itself.
	for i := range s.N() {
		s.mass[i] = 0.01
	}
	corner := hal.Vec2{X: 4.5, Y: 3}
	for i := range s.N() {
		q := s.centre(i)
		if math.Hypot(q.X-corner.X, q.Y-corner.Y) < 1.2 {
			s.mass[i] = 1
		}
	}
	// visit looks all round from each viewpoint chosen, up to n of them,
	// and returns how many it took until the cell at p was seen.
	visit := func(from hal.Pose2, claims *Claims, p hal.Vec2, n int) (int, hal.Vec2) {
		var first hal.Vec2
		for k := 1; k <= n; k++ {
			v := s.Choose(&travel, from, claims, hal.Vec2{}, false)
			if k == 1 {
				first = v
			}
			for h := 0.0; h < 2*math.Pi; h += 0.5 {
				s.Look(hal.Pose2{X: hal.Metres(v.X), Y: hal.Metres(v.Y), Heading: hal.Radians(h)}, time.Second, 1)
			}
			if s.Mass(s.Index(p)) < 0.2 {
				return k, first
			}
			from = hal.Pose2{X: hal.Metres(v.X), Y: hal.Metres(v.Y)}
		}
		return n + 1, first
	}
	if k, _ := visit(hal.Pose2{X: -2}, &Claims{}, corner, 3); k > 2 {
		t.Errorf("the corner was not seen from the first two viewpoints")
	}
	// A teammate already going to one corner: the robot goes to the other
	// one first.
	other := hal.Vec2{X: -4.5, Y: -3}
	for i := range s.N() {
		q := s.centre(i)
		if math.Hypot(q.X-corner.X, q.Y-corner.Y) < 1.2 || math.Hypot(q.X-other.X, q.Y-other.Y) < 1.2 {
			s.mass[i] = 1
		}
	}
	claims := Claims{N: 1}
	claims.Targets[0] = hal.Vec2{X: 4, Y: 2.5}
	_, first := visit(hal.Pose2{X: 0.5}, &claims, other, 3)
	if math.Hypot(first.X-other.X, first.Y-other.Y) > math.Hypot(first.X-corner.X, first.Y-corner.Y) {
		t.Errorf("with the corner claimed went to %v first, towards it", first)
	}
	// The robot looks towards what is left.
	s.Reset()
	for i := range s.N() {
		if q := s.centre(i); q.X < 4 || q.Y < 2.5 {
			s.mass[i] = 0
		}
	}
	h := s.Heading(hal.Vec2{X: 3.5, Y: 2})
	if want := math.Atan2(1, 1); math.Abs(h-want) > 0.5 {
		t.Errorf("looks at %.2f rad, want about %.2f", h, want)
	}
	// Every field point is within reach of a viewpoint.
	for x := -4.5; x <= 4.5; x += 0.25 {
		for y := -3.0; y <= 3; y += 0.25 {
			best := math.Inf(1)
			for k := range s.nvps {
				best = min(best, math.Hypot(s.vps[k].X-x, s.vps[k].Y-y))
			}
			if best > cfg.SeeDistance {
				t.Fatalf("(%.2f, %.2f) is %.2f m from every viewpoint", x, y, best)
			}
		}
	}
}

func TestSweepNoAllocs(t *testing.T) {
	s := NewSweep(DefaultSweepConfig(), field.SPL())
	travel := TravelConfig{Speed: 0.2, TurnSpeed: 0.6}
	var out [16]float32
	allocs := testing.AllocsPerRun(20, func() {
		s.Look(hal.Pose2{X: 1}, 10*time.Millisecond, 1)
		s.Regrow(10 * time.Millisecond)
		s.LookAlong(hal.Pose2{}, hal.Pose2{X: 1}, time.Second)
		_ = s.Choose(&travel, hal.Pose2{}, &Claims{}, hal.Vec2{}, false)
		_ = s.Heading(hal.Vec2{})
		s.Coarse(4, 4, out[:])
	})
	if allocs != 0 {
		t.Errorf("%v allocations", allocs)
	}
}

func TestSweepConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*SweepConfig)
	}{
		{"tiny cells", func(c *SweepConfig) { c.Cell = 0.1 }},
		{"no view", func(c *SweepConfig) { c.SeeDistance = 0 }},
		{"keep below 1", func(c *SweepConfig) { c.Keep = 0.5 }},
		{"dense viewpoints", func(c *SweepConfig) { c.Spacing = 0.1 }},
		{"inset beyond the field", func(c *SweepConfig) { c.Inset = 3 }},
	} {
		c := DefaultSweepConfig()
		tc.mod(&c)
		if c.Validate(field.SPL()) == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}
