package adversarial

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/teamcomm"
)

// freeUDPPort returns a UDP port free on loopback a moment ago.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

func udpFrom(t *testing.T, ip byte) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, ip)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func counter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestNetworkFloods runs a robot with its network (GameController client
// and team UDP) and floods it: a second GameController penalising the
// robot and finishing the game, garbage GameController packets, team
// datagrams from outside the team's network, with impossible player
// numbers, with states off the field, and garbage. The robot keeps the
// first GameController's PLAYING, unpenalised; no spoofed or implausible
// teammate reaches the blackboard; the floods are counted; no NaN on the
// blackboard; the heap stays bounded.
func TestNetworkFloods(t *testing.T) {
	defer leaktest.Check(t)()
	heap0 := heapInUse()
	cfg := robot.DefaultConfig()
	robot.Identify(&cfg, 5, 2)
	gcPort, teamPort := freeUDPPort(t), freeUDPPort(t)
	cfg.GameController.Listen = fmt.Sprintf("127.0.0.1:%d", gcPort)
	cfg.GameController.ReturnEvery = 0
	cfg.TeamComm.UDP.Port = teamPort
	cfg.TeamComm.UDP.Broadcast = "127.0.0.1"
	cfg.TeamComm.UDP.Allow = []string{"127.0.0.1/32"}
	reg := prometheus.NewRegistry()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nw, err := robot.StartNetwork(ctx, &cfg, reg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Close()
	dev := loopback.New(loopback.NewWallClock(5 * time.Millisecond))
	d := startDaemon(t, dev, robot.Legs, nw.Modules()...)
	stopWatch := watchBoard(t, d.board)

	gcTo := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: gcPort}
	teamTo := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: teamPort}
	gc, rogue, mate, outsider := udpFrom(t, 1), udpFrom(t, 2), udpFrom(t, 1), udpFrom(t, 3)
	playing := gamecontroller.Data{State: gamecontroller.StatePlaying, PlayersPerTeam: 5,
		Teams: [2]gamecontroller.TeamInfo{{TeamNumber: 5, MessageBudget: 1200}, {TeamNumber: 9}}}
	if _, err := gc.WriteToUDP(gamecontroller.Append(nil, &playing), gcTo); err != nil {
		t.Fatal(err)
	}
	game := func() msg.GameControl {
		g, _ := d.board.Snapshot().Entries[msg.GameControlKey.Name()].Value.(msg.GameControl)
		return g
	}
	deadline := time.Now().Add(20 * time.Second)
	for game().State != msg.StatePlaying {
		if time.Now().After(deadline) {
			t.Fatalf("the GameController's PLAYING never arrived: %+v", game())
		}
		time.Sleep(5 * time.Millisecond)
	}

	// The floods, paced on what the robot has taken so that a loaded
	// machine's socket buffers do not decide the counts.
	finished := playing
	finished.State = gamecontroller.StateFinished
	finished.Teams[0].Players[1].Penalty = gamecontroller.PenaltyPlayerPushing
	good := msg.TeamMessage{Player: 3, PoseValid: true, Pose: hal.Pose2{X: 1}, PoseConfidence: 0.9,
		BallValid: true, Ball: hal.Vec2{X: 2, Y: 1}}
	offField := good
	offField.Player, offField.Ball = 4, hal.Vec2{X: 80, Y: -50}
	dgram := func(player uint8, m *msg.TeamMessage, seq uint16) []byte {
		return append([]byte{teamcomm.TypeState, player, byte(seq), byte(seq >> 8)}, teamcomm.AppendState(nil, m)...)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	junk := func() []byte {
		b := make([]byte, 1+rng.IntN(200))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	const rounds = 200
	for i := range rounds {
		seq := uint16(i)
		rogue.WriteToUDP(gamecontroller.Append(nil, &finished), gcTo)
		gc.WriteToUDP(junk(), gcTo)
		outsider.WriteToUDP(dgram(3, &good, seq), teamTo)
		mate.WriteToUDP(dgram(0, &good, seq), teamTo)
		mate.WriteToUDP(dgram(200, &good, seq), teamTo)
		mate.WriteToUDP(dgram(4, &offField, seq), teamTo)
		mate.WriteToUDP(junk(), teamTo)
		if i%20 == 19 {
			want := float64(i + 1)
			for counter(t, reg, "robotd_gamecontroller_other_sources_total") < want || counter(t, reg, "robotd_teamcomm_spoofed_total") < 3*want {
				if time.Now().After(deadline.Add(10 * time.Second)) {
					t.Fatalf("round %d: other sources %v, spoofed %v", i, counter(t, reg, "robotd_gamecontroller_other_sources_total"), counter(t, reg, "robotd_teamcomm_spoofed_total"))
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
	}
	// The implausible states are dropped by the tick: wait for them.
	for counter(t, reg, "robotd_teamcomm_implausible_total") < rounds/2 {
		if time.Now().After(deadline.Add(20 * time.Second)) {
			t.Fatalf("implausible %v", counter(t, reg, "robotd_teamcomm_implausible_total"))
		}
		time.Sleep(5 * time.Millisecond)
	}
	g := game()
	checks := stopWatch()
	d.stop(t)
	if g.State != msg.StatePlaying || g.Penalised {
		t.Errorf("game state %v, penalised %v: the second GameController took over", g.State, g.Penalised)
	}
	mates, _ := d.board.Snapshot().Entries[msg.TeammatesKey.Name()].Value.(msg.Teammates)
	for _, m := range mates.Mates[:mates.N] {
		t.Errorf("a spoofed or implausible teammate on the blackboard: player %d, ball %v", m.Msg.Player, m.Msg.Ball)
	}
	t.Logf("other sources %v, GC malformed %v, team spoofed %v, implausible %v, malformed %v, %d board checks",
		counter(t, reg, "robotd_gamecontroller_other_sources_total"), counter(t, reg, "robotd_gamecontroller_malformed_total"),
		counter(t, reg, "robotd_teamcomm_spoofed_total"), counter(t, reg, "robotd_teamcomm_implausible_total"),
		counter(t, reg, "robotd_teamcomm_malformed_total"), checks)
	checkHeap(t, heap0)
}
