package main

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/haltest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
	"github.com/robotd/robotd/proto/gamecontroller/gamecontrollertest"
	"github.com/robotd/robotd/record"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/teamcomm"
)

// netClock is fallClock with a network: a GameController that says READY
// at tick 200 and PLAYING at tick 400, and a teammate (player 2) that
// sends its state every 50 ticks.
type netClock struct {
	fallClock
	gc   *gamecontrollertest.Source
	mate *teamcomm.Endpoint
}

func (c *netClock) Next(ctx context.Context) (hal.Tick, error) {
	n := c.seq + 1
	now := time.Duration(n) * 10 * time.Millisecond
	from := &net.UDPAddr{IP: net.IPv4(10, 0, 0, 1), Port: gamecontroller.ControlPort}
	d := gamecontroller.Data{Version: 18, PlayersPerTeam: 5, FirstHalf: true, SecsRemaining: 600}
	d.Teams[0].TeamNumber, d.Teams[1].TeamNumber = 1, 2
	switch {
	case n == 200:
		d.State = gamecontroller.StateReady
		c.gc.Deliver(d, from)
	case n == 400:
		d.State = gamecontroller.StatePlaying
		c.gc.Deliver(d, from)
	}
	if n%50 == 0 {
		m := msg.TeamMessage{Player: 2, TeamTime: now, Role: msg.RoleStriker, PoseValid: true,
			Pose: hal.Pose2{X: -1, Y: 1}, PoseConfidence: 0.8, BallValid: true, Ball: hal.Vec2{X: 1, Y: 0.5}}
		if _, err := c.mate.Send(now, teamcomm.TypeState, teamcomm.AppendState(nil, &m)); err != nil {
			return hal.Tick{}, err
		}
	}
	return c.fallClock.Next(ctx)
}

// TestReplayNetworkedRun records a robot with the network's modules (a
// GameController and a teammate, whose packets a replay cannot receive
// again) and replays it as `robotd replay` does: the network modules'
// entries are fed from the recording, everything else is rerun, and the
// replay is bit-exact.
func TestReplayNetworkedRun(t *testing.T) {
	// The loopback robot with a fake GameController and teammate: the
	// same code in both builds (see TestReplayCommand).
	onlyInRealBuild(t, "the sim build's replay is TestReplaySimRun's")
	t.Parallel()
	const ticks = 1500
	cfg := DefaultConfig()
	rc := DefaultRecordConfig()
	rc.Enabled, rc.Dir, rc.Queue = true, t.TempDir(), ticks
	bus, err := teamcomm.NewBus(teamcomm.DefaultBusConfig())
	if err != nil {
		t.Fatal(err)
	}
	clock := &netClock{fallClock: fallClock{c: haltest.NewClock(10*time.Millisecond, ticks)},
		gc: &gamecontrollertest.Source{}, mate: teamcomm.NewEndpoint(bus.Endpoint(2), 2, 4, time.Second)}
	dev := loopback.New(clock)
	clock.dev = dev
	r := runner.New(cfg.Runner, dev, blackboard.New(), nil, nil)
	r.Add(newModules(&cfg, robot.Legs)...)
	r.Add(robot.TeamModules(&cfg.Config, bus.Endpoint(1), clock.gc, nil, nil)...)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	if err := runRecording(context.Background(), rc, &cfg, r, nil, log); err != nil {
		t.Fatal(err)
	}

	// The network mattered: the recorded game state went to PLAYING and
	// the teammate was heard.
	playing := firstTick(t, rc.Dir, msg.GameControlKey, func(g *msg.GameControl) bool {
		return g.Source == msg.GameSourceGameController && g.State == msg.StatePlaying
	})
	heard := firstTick(t, rc.Dir, msg.TeammatesKey, func(m *msg.Teammates) bool { return m.N == 1 && m.Mates[0].Msg.Player == 2 })
	if playing < 400 || playing > 410 || heard < 50 || heard > 100 {
		t.Fatalf("recorded: PLAYING from tick %d, teammate heard from tick %d", playing, heard)
	}

	res, err := replayLog(context.Background(), rc.Dir, "", nil, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replay: %s", res)
	src, err := record.Open(rc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if res.First != nil || res.Ticks != ticks || res.Entries != src.Schema().Len() {
		t.Fatalf("replay: %s; compared %d of %d entries", res, res.Entries, src.Schema().Len())
	}
	for _, e := range []string{msg.GameControlKey.Name(), msg.TeammatesKey.Name(), msg.TeamBallReportsKey.Name()} {
		if slices.Contains(res.Extra, e) || src.Schema().Index(e) < 0 {
			t.Errorf("entry %s not recorded and compared", e)
		}
	}
}
