package teamcomm

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
)

func datagrams(t testing.TB, typ, player uint8, seq uint16, payload []byte) [][]byte {
	t.Helper()
	var out [][]byte
	_, err := AppendDatagrams(nil, typ, player, seq, payload, func(d []byte) error {
		if len(d) > MaxDatagram {
			t.Fatalf("datagram of %d bytes", len(d))
		}
		out = append(out, bytes.Clone(d))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSingleDatagram(t *testing.T) {
	ds := datagrams(t, 5, 3, 777, []byte("hello"))
	if len(ds) != 1 || len(ds[0]) != 9 {
		t.Fatalf("got %d datagrams %x", len(ds), ds)
	}
	h, p, err := ParseHeader(ds[0])
	if err != nil || h != (Header{Type: 5, Player: 3, Seq: 777}) || string(p) != "hello" {
		t.Fatalf("%+v %q %v", h, p, err)
	}
	big := make([]byte, MaxMessage+1)
	if _, err := AppendDatagrams(nil, 5, 3, 1, big, func([]byte) error { return nil }); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized message: %v", err)
	}
	if _, err := AppendDatagrams(nil, 200, 3, 1, nil, func([]byte) error { return nil }); !errors.Is(err, ErrType) {
		t.Fatalf("type 200: %v", err)
	}
}

func TestParseHeaderErrors(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		err  error
	}{
		{"empty", nil, ErrShort},
		{"3 bytes", []byte{1, 2, 3}, ErrShort},
		{"fragment without its header", []byte{0x81, 2, 0, 0, 1}, ErrShort},
		{"fragment index past count", []byte{0x81, 2, 0, 0, 3, 3}, ErrFragment},
		{"one-fragment message", []byte{0x81, 2, 0, 0, 0, 1}, ErrFragment},
		{"too long", make([]byte, 129), ErrTooLarge},
	}
	for _, tc := range tests {
		if _, _, err := ParseHeader(tc.b); !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
}

// TestReassemblyUnderLossDuplicationReordering sends many fragmented
// messages from several senders through a lossy, duplicating, reordering
// channel; every message whose fragments all arrive is reassembled exactly,
// none is reassembled wrongly, and memory stays bounded.
func TestReassemblyUnderLossDuplicationReordering(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := NewReassembler(8, 500*time.Millisecond)
	want := map[[2]int][]byte{}
	var channel [][]byte
	for seq := range 200 {
		for player := 1; player <= 3; player++ {
			msg := make([]byte, 100+rng.IntN(1500))
			for i := range msg {
				msg[i] = byte(rng.Uint32())
			}
			want[[2]int{player, seq}] = msg
			for _, d := range datagrams(t, 9, uint8(player), uint16(seq), msg) {
				if rng.Float64() < 0.1 {
					continue // lost
				}
				channel = append(channel, d)
				if rng.Float64() < 0.1 {
					channel = append(channel, d) // duplicated
				}
			}
		}
	}
	// Reorder locally: swap neighbours within a window of 6.
	for i := range channel {
		j := min(len(channel)-1, i+rng.IntN(6))
		channel[i], channel[j] = channel[j], channel[i]
	}
	got := 0
	now := time.Duration(0)
	for _, d := range channel {
		now += time.Millisecond
		h, p, err := ParseHeader(d)
		if err != nil {
			t.Fatal(err)
		}
		if h.Frags == 0 {
			continue
		}
		msg, ok := r.Add(h, p, now)
		if !ok {
			continue
		}
		w := want[[2]int{int(h.Player), int(h.Seq)}]
		if !bytes.Equal(msg, w) {
			t.Fatalf("message %d/%d reassembled wrongly (%d bytes, want %d)", h.Player, h.Seq, len(msg), len(w))
		}
		delete(want, [2]int{int(h.Player), int(h.Seq)})
		got++
		if r.InFlight() > 8 {
			t.Fatalf("%d messages in flight, bound is 8", r.InFlight())
		}
	}
	if got < 150 || r.Duplicates == 0 || r.Dropped == 0 {
		t.Fatalf("reassembled %d of 600 (dropped %d, duplicates %d)", got, r.Dropped, r.Duplicates)
	}
	t.Logf("reassembled %d of 600 messages under 10%% loss; %d dropped, %d duplicate fragments", got, r.Dropped, r.Duplicates)
}

func TestBudget(t *testing.T) {
	b := Budget{Reserve: 100, MinInterval: 100 * time.Millisecond}
	// 1100 spendable messages over 600 s for 5 robots: one per 2.727 s each.
	sent := 0
	for now := time.Duration(0); now < 600*time.Second; now += 10 * time.Millisecond {
		if b.Allow(now, 1200-sent*5, 5, 600*time.Second-now) {
			sent++
		}
	}
	if sent*5 > 1100 || sent*5 < 1000 {
		t.Fatalf("robot sent %d messages (team %d), want the team to use ≤ 1100 and most of it", sent, sent*5)
	}
	var none Budget
	if none.Allow(0, 0, 5, time.Minute) {
		t.Fatal("sent with no budget")
	}
}

// TestHubThreeRobots runs a hub with 10% loss and jitter and three real
// UDP endpoints on loopback; each robot hears the others' states and never
// its own, and nothing leaks.
func TestHubThreeRobots(t *testing.T) {
	defer leaktest.Check(t)()
	ctx, cancel := context.WithCancel(context.Background())
	hub, err := NewHub(HubConfig{Addr: "127.0.0.1:0", Loss: 0.1, Jitter: 2_000_000, Seed: 7}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = hub.Run(ctx) })
	var comms []*Comm
	var eps []*Endpoint
	from := make([]map[uint8]int, 3)
	for p := 1; p <= 3; p++ {
		cfg := DefaultConfig()
		cfg.Team, cfg.Player, cfg.Hub, cfg.Queue = 5, p, hub.Addr(), 1024
		c, err := Listen(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		ep := NewEndpoint(c, uint8(p), 4, time.Second)
		heard := map[uint8]int{}
		from[p-1] = heard
		Handle(ep, TypeState, DecodeState, func(f uint8, _ time.Duration, s *msg.TeamMessage) {
			if s.Player != f {
				t.Errorf("state of player %d from %d", s.Player, f)
			}
			heard[f]++
		})
		comms, eps = append(comms, c), append(eps, ep)
		wg.Go(func() { _ = c.Run(ctx) })
	}
	// Each robot's hello reaches the hub before any state, so the hub
	// knows every robot when the states start.
	taken := func(want uint64) {
		for d := time.Now().Add(2 * time.Second); hub.Received() < want && time.Now().Before(d); {
			time.Sleep(100 * time.Microsecond)
		}
	}
	taken(3)
	const n = 200
	for i := range n {
		for p, ep := range eps {
			s := msg.TeamMessage{Player: uint8(p + 1), Pose: hal.Pose2{X: hal.Metres(i) / 100}}
			if _, err := ep.Send(0, TypeState, AppendState(nil, &s)); err != nil {
				t.Fatal(err)
			}
		}
		// Robots send a few messages a second, not 600 in a burst: pace
		// each round on the hub having taken the last, so that the loss
		// measured is the hub's 10 % and not a full socket buffer on a
		// loaded machine.
		taken(uint64(3 + 3*(i+1)))
		if i%10 == 9 {
			for _, ep := range eps {
				ep.Poll(0)
			}
		}
	}
	// Wait for delivery (the hub delays by up to the jitter, and a loaded
	// machine more): until every robot has heard enough of every other,
	// and then a little longer for stragglers; the deadline only guards
	// against a hang.
	enough := func() bool {
		for i := range eps {
			for p := 1; p <= 3; p++ {
				if p != i+1 && from[i][uint8(p)] < n*75/100 {
					return false
				}
			}
		}
		return true
	}
	deadline := time.Now().Add(20 * time.Second)
	for !enough() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		for _, ep := range eps {
			ep.Poll(0)
		}
	}
	time.Sleep(50 * time.Millisecond)
	for i, ep := range eps {
		ep.Poll(0)
		if from[i][uint8(i+1)] != 0 {
			t.Errorf("robot %d heard itself", i+1)
		}
		for p := 1; p <= 3; p++ {
			if p == i+1 {
				continue
			}
			if got := from[i][uint8(p)]; got < n*75/100 || got > n {
				t.Errorf("robot %d heard %d of %d states from %d under 10%% loss (hub took %d, forwarded %d, dropped %d; robot's socket %+v)",
					i+1, got, n, p, hub.Received(), hub.Forwarded(), hub.Dropped(), comms[i].Stats())
			}
		}
	}
	if hub.Dropped() == 0 {
		t.Error("hub dropped nothing at 10% loss")
	}
	cancel()
	for _, c := range comms {
		c.Close()
	}
	wg.Wait()
}
