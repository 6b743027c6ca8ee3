package scenarios

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
)

// perceiver is a scripted behaviour for perception scenarios: it writes the
// motion request that request returns for the tick's time.
type perceiver struct {
	request func(t time.Duration) msg.MotionRequest
	w       *blackboard.Writer[msg.MotionRequest]
	clock   sinceConnected
}

// sinceConnected turns tick time into simulation time since the robot's
// first connected tick (negative before it), so that scripts and probes
// do not depend on how long the server took to answer.
type sinceConnected struct {
	at time.Duration
	ok bool
}

func (c *sinceConnected) el(t hal.Tick) time.Duration {
	if !c.ok && t.Connected {
		c.at, c.ok = t.Time, true
	}
	if !c.ok {
		return -time.Nanosecond
	}
	return t.Time - c.at
}

func (p *perceiver) Name() string { return "script" }
func (p *perceiver) Wire(b *blackboard.Board) (err error) {
	p.w, err = blackboard.Write(b, p.Name(), msg.MotionRequestKey)
	return err
}
func (p *perceiver) Tick(t hal.Tick) error { p.w.Set(p.request(p.clock.el(t))); return nil }

// scriptedRobot runs perception and motion with request as behaviour, and
// the probes.
func scriptedRobot(beam sim.Beam, request func(time.Duration) msg.MotionRequest, probes ...runner.Module) simrun.RobotConfig {
	return simrun.RobotConfig{
		Team: "robotd", Player: 1, Beam: beam,
		Modules: func(c *robot.Config) []runner.Module {
			return append([]runner.Module{perception.New(c.Perception), motion.New(c.Motion), &perceiver{request: request}}, probes...)
		},
	}
}

// startWorld starts a simulation (embedded, or ROBOTD_SIMSPARK's server);
// defer the returned stop, after the leak check's defer.
func startWorld(t *testing.T) (*simrun.World, func()) {
	t.Helper()
	return startWorldIn(t, simserver.PhysicsKinematic)
}

// startWorldIn is startWorld with the embedded simulator's world model
// (simserver.Config.Physics); an attached server is what it is.
func startWorldIn(t *testing.T, physics string) (*simrun.World, func()) {
	t.Helper()
	cfg := simserver.DefaultConfig()
	cfg.Sync = true
	cfg.Physics = physics
	w, err := simrun.Start(context.Background(), simrun.Options{Server: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	return w, func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}
}

// firstUnderRace is called first by a subtest of a table whose cases run
// the same goroutines (a server, robots, their connections) with other
// numbers: under the race detector (internal/racetest) only the table's
// first subtest runs, the others are skipped; without it (scripts/test
// runs the package both ways) every case runs and asserts its numbers.
func firstUnderRace(t *testing.T) {
	t.Helper()
	if !racetest.Enabled {
		return
	}
	i := strings.LastIndex(t.Name(), "/")
	if i < 0 {
		panic("firstUnderRace: " + t.Name() + " is not a subtest")
	}
	raceRuns.Lock()
	defer raceRuns.Unlock()
	if raceRuns.started == nil {
		raceRuns.started = map[string]bool{}
	}
	parent := t.Name()[:i]
	if raceRuns.started[parent] {
		t.Skip("under the race detector only the first case runs; this one's numbers are asserted without it")
	}
	raceRuns.started[parent] = true
}

var raceRuns struct {
	sync.Mutex
	started map[string]bool // by parent test: a subtest ran
}
