package reconnect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/internal/leaktest"
)

func TestBackoffNext(t *testing.T) {
	b := Backoff{Min: 50 * time.Millisecond, Max: 2 * time.Second}
	for _, tc := range []struct{ cur, want time.Duration }{
		{50 * time.Millisecond, 100 * time.Millisecond},
		{time.Second, 2 * time.Second},
		{1500 * time.Millisecond, 2 * time.Second},
		{2 * time.Second, 2 * time.Second},
		{0, 50 * time.Millisecond},
		{10 * time.Millisecond, 50 * time.Millisecond},
	} {
		if got := b.Next(tc.cur); got != tc.want {
			t.Errorf("Next(%v) = %v, want %v", tc.cur, got, tc.want)
		}
	}
}

// attempt is what the test's peer does on one dial.
type attempt struct {
	fail    bool // Dial fails
	deliver int  // messages Serve delivers before the peer hangs up
	block   bool // the peer stays, Serve reads until the connection is closed
}

// TestLoop drives Loop against real TCP connections on loopback through a
// script of refused dials, connections that deliver and hang up, and one
// that stays until the context ends. It checks connection numbers, what
// Lost is told, the backoff between dials (lower bounds only: a timer
// never fires early), that an unreachable peer is reported once per
// outage, that every connection is closed, and that nothing leaks.
func TestLoop(t *testing.T) {
	defer leaktest.Check(t)()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	script := []attempt{{fail: true}, {fail: true}, {fail: true}, {deliver: 3}, {fail: true}, {deliver: 0}, {deliver: 2}, {block: true}}
	var peers sync.WaitGroup
	defer peers.Wait()
	peers.Go(func() {
		for _, a := range script {
			if a.fail {
				continue
			}
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if a.block {
				var b [1]byte
				_, _ = c.Read(b[:]) // until robotd closes its end
			} else {
				for range a.deliver {
					_, _ = c.Write([]byte{'m'})
				}
			}
			c.Close()
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		dials       []time.Time
		conns       []net.Conn
		unreachable int
		lost        []string
		served      = make(chan uint64, len(script))
	)
	refused := errors.New("refused")
	l := &Loop[net.Conn]{
		Backoff: Backoff{Min: 2 * time.Millisecond, Max: 8 * time.Millisecond},
		Dial: func(ctx context.Context) (net.Conn, error) {
			i := len(dials)
			dials = append(dials, time.Now())
			if i >= len(script) {
				t.Errorf("dial %d beyond the script", i)
				return nil, refused
			}
			if script[i].fail {
				return nil, fmt.Errorf("dial %d: %w", i, refused)
			}
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", ln.Addr().String())
			if err == nil {
				conns = append(conns, c)
			}
			return c, err
		},
		Serve: func(ctx context.Context, c net.Conn, gen uint64) (int, error) {
			served <- gen
			var b [1]byte
			for n := 0; ; n++ {
				if _, err := c.Read(b[:]); err != nil {
					return n, fmt.Errorf("connection %d: %w", gen, err)
				}
			}
		},
		Lost: func(ctx context.Context, gen uint64, err error) bool {
			lost = append(lost, err.Error())
			return true
		},
		Unreachable: func(error) { unreachable++ },
	}
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	for want := uint64(1); want <= 4; want++ {
		select {
		case gen := <-served:
			if gen != want {
				t.Fatalf("connection number %d, want %d", gen, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("connection %d never served", want)
		}
	}
	cancel() // connection 4 is blocked in Read: Loop must close it
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after cancel")
	}

	wantLost := []string{"connection 1: EOF", "connection 2: EOF", "connection 3: EOF"}
	if fmt.Sprint(lost) != fmt.Sprint(wantLost) {
		t.Errorf("Lost was told %q, want %q (nothing after cancel)", lost, wantLost)
	}
	// Outages: dials 0–2, then dial 4 after a connection that delivered;
	// dial 5's connection delivered nothing, so no new outage began.
	if unreachable != 2 {
		t.Errorf("Unreachable called %d times, want 2 (once per outage)", unreachable)
	}
	// Waits after dials 0..6: 2, 4, 8 (Max); 2 after connection 1
	// delivered, 4; 8 after connection 2, which delivered nothing; 2
	// after connection 3 delivered.
	wantGap := []time.Duration{2, 4, 8, 2, 4, 8, 2}
	if len(dials) != len(script) {
		t.Fatalf("%d dials, want %d", len(dials), len(script))
	}
	for i, g := range wantGap {
		if gap := dials[i+1].Sub(dials[i]); gap < g*time.Millisecond {
			t.Errorf("dial %d came %v after dial %d, want at least %v", i+1, gap, i, g*time.Millisecond)
		}
	}
	for i, c := range conns {
		if _, err := c.Write([]byte{0}); !errors.Is(err, net.ErrClosed) {
			t.Errorf("connection %d still open after Run: write gave %v", i+1, err)
		}
	}
}

// TestLoopStopsWhenLostCannotTell: a Lost that reports ctx done ends Run
// without another dial.
func TestLoopStopsWhenLostCannotTell(t *testing.T) {
	defer leaktest.Check(t)()
	a, b := net.Pipe()
	defer b.Close()
	dials := 0
	l := &Loop[net.Conn]{
		Backoff: Backoff{Min: time.Millisecond, Max: time.Millisecond},
		Dial: func(context.Context) (net.Conn, error) {
			dials++
			return a, nil
		},
		Serve: func(context.Context, net.Conn, uint64) (int, error) { return 1, errors.New("gone") },
		Lost:  func(context.Context, uint64, error) bool { return false },
	}
	l.Run(context.Background())
	if dials != 1 {
		t.Errorf("%d dials, want 1", dials)
	}
	if _, err := a.Write([]byte{0}); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("connection not closed after Serve returned: write gave %v", err)
	}
}

func TestSendAndReady(t *testing.T) {
	ch := make(chan int, 1)
	ctx, cancel := context.WithCancel(context.Background())
	if !Send(ctx, ch, 1) || <-ch != 1 {
		t.Fatal("Send to a free channel did not hand the value over")
	}
	if err := Ready(ctx, false, errClosedForTest); err != nil {
		t.Fatalf("Ready on a live backend: %v", err)
	}
	if err := Ready(ctx, true, errClosedForTest); err != errClosedForTest {
		t.Fatalf("Ready on a closed backend: %v, want its ErrClosed", err)
	}
	cancel()
	ch <- 2 // full: Send can only give up
	if Send(ctx, ch, 3) {
		t.Fatal("Send to a full channel reported success after the context ended")
	}
	if err := Ready(ctx, false, errClosedForTest); err != context.Canceled {
		t.Fatalf("Ready after cancel: %v, want context.Canceled", err)
	}
}

var errClosedForTest = errors.New("closed")

func TestStop(t *testing.T) {
	for _, started := range []bool{false, true} {
		closed := false
		_, cancel := context.WithCancel(context.Background())
		timer := time.NewTimer(time.Hour)
		done := make(chan struct{})
		ended := make(chan struct{})
		if started {
			go func() { defer close(done); <-ended }()
		}
		stopped := make(chan bool)
		go func() { stopped <- Stop(&closed, started, timer, cancel, done) }()
		if started {
			select {
			case <-stopped:
				t.Fatal("Stop returned before the connection goroutine ended")
			case <-time.After(50 * time.Millisecond):
			}
			close(ended)
		}
		if !<-stopped || !closed {
			t.Fatalf("started %v: first Stop did not close", started)
		}
		if timer.Stop() {
			t.Errorf("started %v: the timer still ran", started)
		}
		if Stop(&closed, started, timer, cancel, done) {
			t.Errorf("started %v: a second Stop reported closing again", started)
		}
	}
}
