//go:build !sim

package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/robotd/robotd/backends/robotino/robotinotest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
)

// TestRealDaemonOnFakeRobotino runs robotd's default build on the fake
// Robotino controller (a pseudo-terminal) with the real modules:
// perception, behaviour and the omni base's motion (modules/omnibase), and the
// GameController client on a real UDP port. The base stands before the
// game. A GameController packet saying PLAYING reaches behaviour; the
// Robotino has no camera, so behaviour plays blind and holds the base
// still (the motor set-points stay zero). A bumper contact and shutdown
// leave the motors stopped. (The base's driving, and a bumper stopping it
// within a tick, are tested in modules/omnibase and backends/robotino.)
func TestRealDaemonOnFakeRobotino(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ctl, err := robotinotest.Start(ctx, "", robotinotest.Options{EchoSpeeds: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	gcPort := freePort(t)
	d := startRealDaemon(t, fmt.Sprintf(`{"real": {"kind": "robotino", "robotino": {"device": %q}},
		"robot": {"team_number": 7, "player": 2},
		"gamecontroller": {"listen": "127.0.0.1:%d", "return_port": %d},
		"teamcomm": {"enabled": false}}`, ctl.Path(), gcPort, freePort(t)))

	// The modules run on the base.
	ticks := d.waitMetric(ctx, "robotd_ticks_total", func(v float64) bool { return v >= 200 })
	if !strings.Contains(d.stderr.String(), `body="omnidirectional base"`) {
		t.Errorf("robotd did not say it drives an omnidirectional base:\n%s", d.stderr.String())
	}
	var st msg.MotionState
	d.entry("motion.state", &st)
	if st.Active != msg.MotionStand || !st.Settled {
		t.Errorf("before the game: motion state %+v, want a settled stand", st)
	}
	if moving(ctl) || len(ctl.MotorFrames()) == 0 {
		t.Fatalf("before the game: %d motor frames, moving %v; want zero set-points sent", len(ctl.MotorFrames()), moving(ctl))
	}

	// PLAYING, from GameController packets on the real UDP port.
	conn, err := net.Dial("udp4", fmt.Sprintf("127.0.0.1:%d", gcPort))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	data := gamecontroller.Data{Version: 18, PlayersPerTeam: 5, State: gamecontroller.StatePlaying, FirstHalf: true, SecsRemaining: 600}
	data.Teams[0].TeamNumber, data.Teams[1].TeamNumber = 7, 8
	var gc struct {
		Source, State int
		Packets       int
	}
	for gc.Packets < 3 {
		data.PacketNumber++
		if _, err := conn.Write(gamecontroller.Append(nil, &data)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the GameController packets did not arrive: %+v", gc)
		case <-time.After(50 * time.Millisecond):
		}
		d.entry("gamecontroller.state", &gc)
	}
	if gc.Source != int(msg.GameSourceGameController) || gc.State != int(msg.StatePlaying) {
		t.Fatalf("game state %+v, want PLAYING from the GameController", gc)
	}
	d.waitMetric(ctx, "robotd_ticks_total", func(v float64) bool { return v >= ticks+100 })
	var path struct {
		N     int
		Nodes []string
	}
	d.entry("behaviour.path", &path)
	t.Logf("playing: behaviour path %v", path.Nodes[:path.N])
	if path.N < 2 || path.Nodes[1] != "blind" {
		t.Errorf("behaviour path %v; want it to play blind (no camera)", path.Nodes[:path.N])
	}
	if moving(ctl) {
		t.Fatal("the base drives blind")
	}

	// A bumper contact, then shutdown: the motors stay stopped.
	ctl.Update(func(s *robotinotest.State) { s.Bumper = true })
	d.waitMetric(ctx, "robotd_ticks_total", func(v float64) bool { return v >= ticks+150 })
	d.cancel()
	select {
	case code := <-d.done:
		d.done <- code
		if code != exitOK {
			t.Fatalf("exit %d\n%s", code, d.stderr.String())
		}
	case <-ctx.Done():
		t.Fatal("robotd did not stop")
	}
	if moving(ctl) {
		t.Fatal("a motor set-point was not zero")
	}
	if errs := ctl.Errors(); len(errs) > 0 {
		t.Fatalf("the fake controller found: %v", errs)
	}
	t.Logf("%d motor frames, all zero", len(ctl.MotorFrames()))
}

// moving reports whether any motor frame sent had a non-zero set-point.
func moving(ctl *robotinotest.Controller) bool {
	for _, f := range ctl.MotorFrames() {
		if rpm, _ := f.MotorSpeeds(); rpm != [len(rpm)]int16{} {
			return true
		}
	}
	return false
}
