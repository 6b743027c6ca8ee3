package gamecontroller

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"
)

// TestClientTwoSourcesAndReturns sends control packets from two real UDP
// sockets (two "GameControllers") and checks the client keeps the newest,
// counts the second source, ignores other games and garbage, and sends
// return packets to the source.
func TestClientTwoSourcesAndReturns(t *testing.T) {
	gc1, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer gc1.Close()
	cfg := ClientConfig{Listen: "127.0.0.1:0", Team: 17, Player: 3, ReturnEvery: 20 * time.Millisecond,
		ReturnPort: gc1.LocalAddr().(*net.UDPAddr).Port}
	c, err := NewClient(cfg, func() Return { return Return{Fallen: true, BallAge: -1} }, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = c.Run(ctx) })
	defer func() { cancel(); wg.Wait(); c.Close() }()

	send := func(conn *net.UDPConn, b []byte) {
		t.Helper()
		if _, err := conn.WriteToUDP(b, c.Addr()); err != nil {
			t.Fatal(err)
		}
	}
	d := Data{State: StateReady, Teams: [2]TeamInfo{{TeamNumber: 17}, {TeamNumber: 4}}}
	send(gc1, Append(nil, &d))
	other := Data{State: StatePlaying, Teams: [2]TeamInfo{{TeamNumber: 1}, {TeamNumber: 2}}}
	send(gc1, Append(nil, &other))
	send(gc1, []byte("garbage"))

	// A return packet arrives at gc1.
	gc1.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	n, _, err := gc1.ReadFromUDP(buf)
	if err != nil {
		t.Fatalf("no return packet: %v", err)
	}
	var r Return
	if err := DecodeReturn(buf[:n], &r); err != nil || r.PlayerNum != 3 || r.TeamNum != 17 || !r.Fallen {
		t.Fatalf("return packet %+v %v", r, err)
	}

	// A second GameController (another address: 127.0.0.2) is noticed.
	gc2, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 2)})
	if err != nil {
		t.Fatal(err)
	}
	defer gc2.Close()
	d.State = StateSet
	send(gc2, Append(nil, &d))
	deadline := time.Now().Add(5 * time.Second)
	for c.Stats().OtherSources == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	st := c.Stats()
	got, _, from, ok := c.Latest()
	if !ok || got.State != StateSet || !from.IP.Equal(net.IPv4(127, 0, 0, 2)) {
		t.Fatalf("latest %v from %v (%v)", got.State, from, ok)
	}
	if st.Packets != 2 || st.Foreign != 1 || st.Malformed != 1 || st.OtherSources != 1 {
		t.Fatalf("stats %+v, want 2 packets, 1 foreign, 1 malformed, 1 other source", st)
	}
}
