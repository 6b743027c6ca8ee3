package robot

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/runner"
)

// probe is a module that reads the ball estimate, to see where it runs.
type probe struct{ name string }

func (p *probe) Name() string { return p.name }
func (p *probe) Wire(b *blackboard.Board) error {
	_, err := blackboard.Read(b, p.name, msg.BallKey)
	return err
}
func (*probe) Tick(hal.Tick) error { return nil }

// TestAssembleTheDaemonsRobot: without options the robot is the
// backend's body with the daemon's modules; motion.body becomes the
// backend's, the observer sees the board first, the extra modules come
// last, and the registerer gets the runner's, roles' and safety's metrics.
func TestAssembleTheDaemonsRobot(t *testing.T) {
	dev := loopback.New(loopback.NewWallClock(10 * time.Millisecond))
	cfg := DefaultConfig()
	cfg.Motion.Body = body.SimSparkNAO
	reg := prometheus.NewRegistry()
	var observed *blackboard.Board
	extra := &probe{name: "probe"}
	rb, err := Assemble(&cfg, dev, Options{
		Extra:      []runner.Module{extra},
		Registerer: reg,
		Observe: func(b *blackboard.Board) error {
			observed = b
			if len(b.Entries()) != 0 {
				t.Errorf("the observer sees entries %v; want an empty board", b.Entries())
			}
			return nil
		},
		Vision: VisionOf,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rb.Body != Legs || cfg.Motion.Body != body.NAOv6 {
		t.Errorf("body %v, motion.body %v; want legs, the loopback's NAO v6", rb.Body, cfg.Motion.Body)
	}
	if observed != rb.Board || rb.Runner.Board() != rb.Board {
		t.Error("the observer, the runner and the robot do not share one board")
	}
	if got := rb.Modules[len(rb.Modules)-1]; got != extra {
		t.Errorf("last module %s; want the extra one", got.Name())
	}
	order := rb.Runner.Order()
	for _, m := range []string{"perception", "behaviour", "safety", "motion", "probe"} {
		if !slices.Contains(order, m) {
			t.Errorf("order %v lacks %s", order, m)
		}
	}
	if slices.Contains(order, "vision") {
		t.Errorf("order %v: a vision stage on a backend without cameras", order)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fams {
		names = append(names, f.GetName())
	}
	for _, want := range []string{"robotd_behaviour_role_switches_total", "robotd_safety_actions_total"} {
		if !slices.Contains(names, want) {
			t.Errorf("metrics %v lack %s", names, want)
		}
	}
	if !slices.ContainsFunc(names, func(n string) bool {
		return strings.HasPrefix(n, "robotd_runner_") || strings.HasPrefix(n, "robotd_tick")
	}) {
		t.Errorf("metrics %v lack the runner's", names)
	}
}

// TestAssembleARecordedRobot: with the body given (a replay's), motion.body
// stays as configured and the modules are that body's; Modules replaces
// the daemon's.
func TestAssembleARecordedRobot(t *testing.T) {
	dev := loopback.New(loopback.NewWallClock(10 * time.Millisecond))
	cfg := DefaultConfig()
	cfg.Motion.Body = body.SimSparkNAO
	omni := OmniBase
	rb, err := Assemble(&cfg, dev, Options{Body: &omni})
	if err != nil {
		t.Fatal(err)
	}
	if rb.Body != OmniBase || cfg.Motion.Body != body.SimSparkNAO {
		t.Errorf("body %v, motion.body %v; want the given base and the configured body", rb.Body, cfg.Motion.Body)
	}
	if order := rb.Runner.Order(); slices.Contains(order, "motion") || slices.Contains(order, "safety") {
		t.Errorf("order %v: a base's robot runs no legs' modules", order)
	}

	var called *Config
	rb, err = Assemble(&cfg, dev, Options{Modules: func(c *Config) []runner.Module {
		called = c
		return ModulesFor(c, OmniBase)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if called != &cfg || slices.Contains(rb.Runner.Order(), "motion") {
		t.Errorf("Modules called with %p (want %p), order %v: want the given modules", called, &cfg, rb.Runner.Order())
	}
}

// TestAssembleFailsSafe: a robot that cannot be wired is put into its
// safe state, and the error says why; an observer's error is returned.
func TestAssembleFailsSafe(t *testing.T) {
	dev := loopback.New(loopback.NewWallClock(10 * time.Millisecond))
	cfg := DefaultConfig()
	_, err := Assemble(&cfg, dev, Options{Extra: []runner.Module{&probe{name: "motion"}}})
	if err == nil || !strings.Contains(err.Error(), "motion") {
		t.Fatalf("two modules called motion: err %v", err)
	}
	if _, _, _, safe := dev.Snapshot(); safe != 1 {
		t.Errorf("%d safe states; want 1", safe)
	}
	boom := errors.New("boom")
	if _, err := Assemble(&cfg, dev, Options{Observe: func(*blackboard.Board) error { return boom }}); !errors.Is(err, boom) {
		t.Errorf("observer's error: got %v", err)
	}
}
