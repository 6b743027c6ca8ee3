package teamcomm

import (
	"context"
	"math"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// TestCommDropsSpoofed: datagrams from outside the allowed networks, or
// with a player number no robot has, are dropped and counted; teammates'
// are queued.
func TestCommDropsSpoofed(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Team, cfg.Player = 7, 1
	cfg.Broadcast = "127.255.255.255"
	cfg.Allow = []string{"127.0.0.1/32"}
	probe, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Port = probe.LocalAddr().(*net.UDPAddr).Port // a free port
	probe.Close()
	c, err := Listen(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = c.Run(ctx) })
	defer func() { cancel(); c.Close(); wg.Wait() }()
	to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: cfg.Port}
	sender := func(ip byte) *net.UDPConn {
		u, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, ip)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { u.Close() })
		return u
	}
	mate, outsider := sender(1), sender(2)
	state := AppendState(nil, &msg.TeamMessage{Player: 3})
	dgram := func(player uint8) []byte {
		return append([]byte{TypeState, player, 1, 0}, state...)
	}
	send := func(u *net.UDPConn, d []byte) {
		if _, err := u.WriteToUDP(d, to); err != nil {
			t.Fatal(err)
		}
	}
	send(outsider, dgram(3)) // outside the network
	send(mate, dgram(0))     // no such player
	send(mate, dgram(200))   // no such player
	send(mate, dgram(3))     // a teammate
	deadline := time.Now().Add(10 * time.Second)
	for st := c.Stats(); st.Spoofed+st.Received < 4; st = c.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v", st)
		}
		time.Sleep(time.Millisecond)
	}
	if st := c.Stats(); st.Spoofed != 3 || st.Received != 1 {
		t.Fatalf("stats %+v, want 3 spoofed, 1 received", st)
	}
	var got [][]byte
	c.Receive(0, func(d []byte) { got = append(got, append([]byte(nil), d...)) })
	if len(got) != 1 || got[0][1] != 3 {
		t.Fatalf("queued %v, want the teammate's datagram", got)
	}
}

// TestDefaultAllowHasLoopbackAndLocalNetworks: without configured
// networks, loopback and this machine's interfaces' networks are allowed.
func TestDefaultAllowHasLoopbackAndLocalNetworks(t *testing.T) {
	ps, err := allowed(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	addrs, _ := net.InterfaceAddrs()
	if len(ps) < 2 || !ps[0].Contains(netip.MustParseAddr("127.0.0.1")) || len(ps) != 2+countIPNets(addrs) {
		t.Fatalf("allowed %v for interface addresses %v", ps, addrs)
	}
	if _, err := allowed(Config{Allow: []string{"nonsense"}}); err == nil {
		t.Fatal("a bad network is accepted")
	}
}

func countIPNets(as []net.Addr) int {
	n := 0
	for _, a := range as {
		if _, ok := a.(*net.IPNet); ok {
			n++
		}
	}
	return n
}

// TestModuleDropsImplausibleStates: teammates' states that cannot be true
// do not reach the blackboard and are counted; plausible ones do.
func TestModuleDropsImplausibleStates(t *testing.T) {
	good := msg.TeamMessage{Player: 3, PoseValid: true, Pose: hal.Pose2{X: 1, Y: -2}, PoseConfidence: 0.8,
		BallValid: true, Ball: hal.Vec2{X: 2, Y: 1}, BallAge: time.Second}
	for _, tc := range []struct {
		name  string
		spoil func(m *msg.TeamMessage)
	}{
		{"pose far off the field", func(m *msg.TeamMessage) { m.Pose.X = 40 }},
		{"ball far off the field", func(m *msg.TeamMessage) { m.Ball.Y = -30 }},
		{"search target off the field", func(m *msg.TeamMessage) { m.TargetValid, m.Target = true, hal.Vec2{X: 100} }},
		{"role record off the field", func(m *msg.TeamMessage) {
			m.NRecords = 1
			m.Records[0] = msg.RoleRecord{Player: 3, Pos: hal.Vec2{X: -50}}
		}},
		{"NaN heading", func(m *msg.TeamMessage) { m.Pose.Heading = hal.Radians(math.NaN()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := good
			tc.spoil(&m)
			if why := plausible(&m); why == "" {
				t.Fatalf("%+v passes", m)
			}
		})
	}
	if why := plausible(&good); why != "" {
		t.Fatalf("a plausible state is refused: %s", why)
	}
	// Through the wire and the module.
	r := newRig(t, DefaultModuleConfig(), DefaultBusConfig(), 1)
	peer := NewEndpoint(r.bus.Endpoint(3), 3, 2, time.Second)
	bad := good
	bad.Ball.X = 60
	now := time.Duration(0)
	for _, m := range []msg.TeamMessage{bad, good} {
		if _, err := peer.Send(now, TypeState, AppendState(nil, &m)); err != nil {
			t.Fatal(err)
		}
		for range 20 { // past the bus's latency
			now += 10 * time.Millisecond
			r.begin(now)
			r.tick(now)
		}
	}
	mods := r.mods[0]
	mates, _ := r.mates[0].Get()
	if mods.Implausible() != 1 || mates.N != 1 || mates.Mates[0].Msg.Ball.X != 2 {
		t.Fatalf("implausible %d, mates %d (ball %v)", mods.Implausible(), mates.N, mates.Mates[0].Msg.Ball)
	}
}
