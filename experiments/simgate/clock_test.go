package simgate_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/experiments/simgate"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
)

// TestServerClock: with simrun.Options.ServerClock a robot's tick time is
// the gated simulator's own time, so a time taken from the gate
// (LastTime, a Hold) is a tick time; without it the robot's clock runs
// ahead of the simulator's by most of a second (sim.TimeBase starts the
// first robot's clock at the next whole second). An experiment that held
// the simulator at a time read from the gate and compared it with tick
// times placed its ball that much after the trial's start.
func TestServerClock(t *testing.T) {
	for _, tc := range []struct {
		name        string
		serverClock bool
		// The robot's tick time less the server's time, in [lo, hi].
		lo, hi time.Duration
	}{
		{"server clock", true, -20 * time.Millisecond, 20 * time.Millisecond},
		{"robot clock", false, 500 * time.Millisecond, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			sg, err := simgate.Start(ctx, simserver.DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := sg.Stop(); err != nil {
					t.Error(err)
				}
			}()
			w, err := simrun.Start(ctx, simrun.Options{Target: &sg.Target, KeepPlayMode: true, ServerClock: tc.serverClock})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := simgate.BeforeKickOff(ctx, sg.Server, w.Trainer()); err != nil {
				t.Fatal(err)
			}
			sc := simgate.SyncConfig(sim.DefaultConfig(), 100*time.Millisecond)
			r, err := w.AddRobot(simrun.RobotConfig{Team: "robotd", Player: 2, Beam: sim.Beam{X: -1, Y: 0}, Sim: &sc, NoConnectWait: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := sg.Gate.Join(ctx, 0); err != nil {
				t.Fatal(err)
			}
			hold := sg.Gate.LastTime(0) + 1
			sg.Gate.Hold(hold)
			if err := sg.Gate.WaitHeld(ctx); err != nil {
				t.Fatal(err)
			}
			// Held: the robot has taken the message at hold and waits.
			deadline := time.Now().Add(10 * time.Second)
			for {
				gt, _ := r.Truth()
				if gt.ServerTime >= hold-0.011 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the robot's newest server time %.2f s never reached the hold at %.2f s", gt.ServerTime, hold)
				}
				time.Sleep(time.Millisecond)
			}
			gt, _ := r.Truth()
			server := time.Duration(math.Round(gt.ServerTime*1000)) * time.Millisecond
			if d := r.Time() - server; d < tc.lo || d > tc.hi {
				t.Errorf("tick time %v at server time %v: %v apart, want %v to %v", r.Time(), server, d, tc.lo, tc.hi)
			}
			sg.Gate.Hold(math.Inf(1))
		})
	}
}
