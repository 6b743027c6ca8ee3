package gamecontroller

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
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

	// A second GameController (another address: 127.0.0.2) is noticed,
	// counted and ignored: the client sticks to the first.
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
	if !ok || got.State != StateReady || !from.IP.Equal(net.IPv4(127, 0, 0, 1)) {
		t.Fatalf("latest %v from %v (%v): want the first source's READY", got.State, from, ok)
	}
	if st.Packets != 1 || st.Foreign != 1 || st.Malformed != 1 || st.OtherSources != 1 {
		t.Fatalf("stats %+v, want 1 packet, 1 foreign, 1 malformed, 1 other source", st)
	}
	// The first source still is the GameController.
	d.State = StatePlaying
	send(gc1, Append(nil, &d))
	deadline = time.Now().Add(5 * time.Second)
	for c.Stats().Packets < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got, _, _, _ := c.Latest(); got.State != StatePlaying {
		t.Fatalf("the first source's next packet: state %v", got.State)
	}
}

// countHandler counts log records at Warn and above.
type countHandler struct{ n *atomic.Int64 }

func (h countHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h countHandler) Handle(context.Context, slog.Record) error    { h.n.Add(1); return nil }
func (h countHandler) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h countHandler) WithGroup(string) slog.Handler                { return h }

// TestClientSources: a flood from a second source is dropped, counted and
// logged at most once a second; with configured sources, each of them is
// taken and nothing else.
func TestClientSources(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sources    []netip.Addr
		firstTaken bool // 127.0.0.3 is taken
		secondTake bool // then 127.0.0.2 is taken
	}{
		{"first heard", nil, true, false},
		{"configured", []netip.Addr{netip.MustParseAddr("127.0.0.2")}, false, true},
		{"both configured", []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3")}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warns atomic.Int64
			c, err := NewClient(ClientConfig{Listen: "127.0.0.1:0", Team: 17, Player: 3, Sources: tc.sources}, nil, slog.New(countHandler{&warns}))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() { _ = c.Run(ctx) })
			defer func() { cancel(); wg.Wait(); c.Close() }()
			conn := func(ip byte) *net.UDPConn {
				u, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, ip)})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { u.Close() })
				return u
			}
			first, second := conn(3), conn(2)
			start := time.Now()
			d := Data{State: StateReady, Teams: [2]TeamInfo{{TeamNumber: 17}, {TeamNumber: 4}}}
			if _, err := first.WriteToUDP(Append(nil, &d), c.Addr()); err != nil {
				t.Fatal(err)
			}
			waitStats(t, c, func(s ClientStats) bool { return s.Packets+s.OtherSources == 1 })
			const flood = 300
			d.State = StateFinished
			for i := range flood {
				if _, err := second.WriteToUDP(Append(nil, &d), c.Addr()); err != nil {
					t.Fatal(err)
				}
				if i%50 == 49 { // pace on the client, not on the socket buffer
					waitStats(t, c, func(s ClientStats) bool { return s.Packets+s.OtherSources == uint64(i+2) })
				}
			}
			waitStats(t, c, func(s ClientStats) bool { return s.Packets+s.OtherSources == flood+1 })
			st := c.Stats()
			want := ClientStats{}
			if tc.firstTaken {
				want.Packets++
			} else {
				want.OtherSources++
			}
			if tc.secondTake {
				want.Packets += flood
			} else {
				want.OtherSources += flood
			}
			if st != want {
				t.Fatalf("stats %+v, want %+v", st, want)
			}
			got, _, _, _ := c.Latest()
			if tc.secondTake != (got.State == StateFinished) {
				t.Errorf("state %v after the flood", got.State)
			}
			if most := int64(1 + time.Since(start)/time.Second); warns.Load() > most || (st.OtherSources > 0) != (warns.Load() > 0) {
				t.Errorf("%d warnings for %d dropped packets in %v", warns.Load(), st.OtherSources, time.Since(start))
			}
		})
	}
}

func waitStats(t *testing.T, c *Client, cond func(ClientStats) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond(c.Stats()) {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v", c.Stats())
		}
		time.Sleep(time.Millisecond)
	}
}
