//go:build sim

package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/record"
)

// TestReplaySimRun records 10 s of a sim-build robotd playing in the
// embedded simulator (sync mode, as fast as the robot answers) with the
// network's GameController module, and replays the recording as
// `robotd replay` does: every blackboard entry is reproduced bit-exactly.
// Replayed with a changed module parameter, the replay reports the first
// entry and tick that differ.
func TestReplaySimRun(t *testing.T) {
	defer leaktest.Check(t)()
	const ticks = 1000 // 10 s
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := DefaultConfig()
	cfg.Metrics.Addr = "127.0.0.1:0"
	cfg.Sim.Mode = "embedded"
	cfg.Sim.Embedded.Physics = testPhysics()
	cfg.Sim.Port, cfg.Sim.Embedded.MonitorPort = freePort(t), freePort(t)
	cfg.Sim.Embedded.Sync = true
	cfg.GameController.Listen = "127.0.0.1:0"
	cfg.TeamComm.Enabled = false
	cfg.Record.Enabled, cfg.Record.Dir, cfg.Record.Queue = true, t.TempDir(), ticks
	p := startRobot(ctx, t, &cfg, log)
	// The robot plays: the ball 1.5 m ahead of its beam pose.
	playOn(ctx, t, cfg.Sim.Embedded.MonitorPort, 1, [3]float64{-0.5, 0.3, 0.05})
	for {
		var tick struct{ Seq uint64 }
		if err := getEntry(ctx, p.addr, msg.TickKey.Name(), &tick); err != nil {
			t.Fatal(err)
		}
		if tick.Seq >= ticks {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the robot ran %d ticks: %v", tick.Seq, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	p.stop(t)

	// The run did something: the robot saw the ball and walked.
	walked := firstTick(t, cfg.Record.Dir, msg.MotionStateKey, func(s *msg.MotionState) bool { return s.Active == msg.MotionWalk })
	seen := firstTick(t, cfg.Record.Dir, msg.BallKey, func(b *msg.Ball) bool { return b.Seen })
	t.Logf("recorded: ball first seen at tick %d, first walk at tick %d", seen, walked)

	src, err := record.Open(cfg.Record.Dir)
	if err != nil {
		t.Fatal(err)
	}
	entries := src.Schema().Len()
	src.Close()
	start := time.Now()
	res, err := replayLog(ctx, cfg.Record.Dir, "", nil, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replay: %s in %v", res, time.Since(start).Round(time.Millisecond))
	// The tick under way when the robot stopped is not finished, so not
	// recorded: the recording holds the ticks up to the one the test saw,
	// or that one less. The replay compares every recorded tick.
	recorded := recordedTicks(t, cfg.Record.Dir)
	if recorded < ticks-1 {
		t.Fatalf("recorded %d ticks; want at least %d", recorded, ticks-1)
	}
	if res.First != nil || res.Ticks != recorded || res.Entries != entries || len(res.Extra) != 0 || res.Gaps != 0 {
		t.Fatalf("replay: %s; %d of %d recorded ticks, %d of %d entries compared, extra %v, %d gaps", res, res.Ticks, recorded, res.Entries, entries, res.Extra, res.Gaps)
	}

	// A changed stiffness first changes the first joint command that used
	// it.
	res, err = replayLog(ctx, cfg.Record.Dir, "", []string{"motion.stiffness=0.75"}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with motion.stiffness=0.75: %s", res)
	stiff := cfg.Motion.Stiffness
	used := firstTick(t, cfg.Record.Dir, msg.JointCommandKey, func(c *hal.JointCommand) bool {
		return slices.Contains(c.Stiffness[:], stiff)
	})
	if d := res.First; d == nil || d.Entry != msg.JointCommandKey.Name() || !strings.HasPrefix(d.Field, "Stiffness") || d.Tick != used || res.Ticks != used {
		t.Fatalf("first difference %v after %d ticks; want %s Stiffness at tick %d (the first command with stiffness %v)", d, res.Ticks, msg.JointCommandKey.Name(), used, stiff)
	}

	// A slower walk first changes something behaviour writes (its striker
	// cost, which counts the walk speed, or its walk request), by the
	// first walk request faster than the new speed.
	res, err = replayLog(ctx, cfg.Record.Dir, "", []string{"behaviour.walk.speed=0.1"}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with behaviour.walk.speed=0.1: %s", res)
	faster := firstTick(t, cfg.Record.Dir, msg.MotionRequestKey, func(r *msg.MotionRequest) bool {
		return r.Kind == msg.MotionWalk && !r.Walk.ToTarget && r.Walk.Forward > 0.1
	})
	if d := res.First; d == nil || d.Writer != "behaviour" || d.Tick > faster {
		t.Fatalf("first difference %v; want one written by behaviour by tick %d", d, faster)
	}
}
