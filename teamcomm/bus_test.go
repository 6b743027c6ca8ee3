package teamcomm

import (
	"bytes"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
)

func TestBusLossLatencyOrder(t *testing.T) {
	tests := []struct {
		name            string
		cfg             BusConfig
		wantMin, wantMx float64 // delivered fraction
	}{
		{"perfect", BusConfig{Latency: config.Duration(20 * time.Millisecond)}, 0.999, 1},
		{"10% loss", BusConfig{Loss: 0.1, Latency: config.Duration(20 * time.Millisecond), Jitter: config.Duration(30 * time.Millisecond), Seed: 3}, 0.87, 0.93},
		{"duplicates", BusConfig{Duplicate: 0.2, Latency: config.Duration(10 * time.Millisecond), Seed: 4}, 1.17, 1.23},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBus(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			a, r := b.Endpoint(1), b.Endpoint(2)
			const n = 5000
			got := 0
			for i := range n {
				now := time.Duration(i) * 10 * time.Millisecond
				if err := a.Send(now, []byte{byte(i), byte(i >> 8)}); err != nil {
					t.Fatal(err)
				}
				r.Receive(now, func(d []byte) {
					got++
					sent := time.Duration(int(d[0])|int(d[1])<<8) * 10 * time.Millisecond
					lat := now - sent
					if lat < tc.cfg.Latency.D() || lat > tc.cfg.Latency.D()+tc.cfg.Jitter.D()+10*time.Millisecond {
						t.Fatalf("latency %v", lat)
					}
				})
				// The sender hears nothing of its own.
				a.Receive(now, func([]byte) { t.Fatal("sender received its own datagram") })
			}
			if frac := float64(got) / n; frac < tc.wantMin || frac > tc.wantMx {
				t.Errorf("delivered %.3f of the datagrams, want %.2f..%.2f", frac, tc.wantMin, tc.wantMx)
			}
		})
	}
	if _, err := NewBus(BusConfig{Loss: 2}); err == nil {
		t.Error("loss 2 accepted")
	}
}

// TestBusDeterministic: the same sends give the same receptions,
// whatever else the other robots do in between.
func TestBusDeterministic(t *testing.T) {
	run := func(extra bool) []byte {
		b, _ := NewBus(BusConfig{Loss: 0.3, Jitter: config.Duration(50 * time.Millisecond), Latency: config.Duration(10 * time.Millisecond), Seed: 9})
		a, c, r := b.Endpoint(1), b.Endpoint(3), b.Endpoint(2)
		var log []byte
		for i := range 500 {
			now := time.Duration(i) * 10 * time.Millisecond
			a.Send(now, []byte{1, byte(i)})
			if extra {
				c.Send(now, []byte{3, byte(i)}) // another sender's draws do not disturb a's
			}
			r.Receive(now, func(d []byte) {
				if d[0] == 1 {
					log = append(log, d[1])
				}
			})
		}
		return log
	}
	if x, y := run(false), run(true); !bytes.Equal(x, y) || len(x) == 0 {
		t.Fatalf("receptions differ: %d and %d datagrams", len(x), len(y))
	}
}

func TestBusBoundedQueue(t *testing.T) {
	b, _ := NewBus(BusConfig{Latency: config.Duration(time.Hour), Queue: 8})
	a, r := b.Endpoint(1), b.Endpoint(2)
	for i := range 100 {
		a.Send(0, []byte{byte(i)})
	}
	if len(r.q) != 8 || b.Stats().Overflow != 92 {
		t.Fatalf("queue %d, overflow %d", len(r.q), b.Stats().Overflow)
	}
	var got []byte
	r.Receive(2*time.Hour, func(d []byte) { got = append(got, d[0]) })
	if !bytes.Equal(got, []byte{92, 93, 94, 95, 96, 97, 98, 99}) {
		t.Fatalf("kept %v, want the newest 8", got)
	}
	if err := a.Send(0, make([]byte, 200)); err == nil {
		t.Error("a 200-byte datagram was sent")
	}
}
