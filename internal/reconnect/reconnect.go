// Package reconnect keeps a backend connected to a peer that comes and
// goes: LoLA's Unix socket, the simulator's TCP port, the Robotino base
// controller's serial port. It dials, hands each connection to the backend
// until it fails, tells the backend, waits with exponential backoff, and
// dials again, until its context is done.
package reconnect

import (
	"context"
	"io"
	"time"
)

// Backoff bounds the wait between attempts: it starts at Min, doubles
// after every attempt that delivered nothing, up to Max, and is back at
// Min after a connection that delivered.
type Backoff struct {
	Min, Max time.Duration
}

// Next returns the wait after one of cur: twice as long, within Min and
// Max.
func (b Backoff) Next(cur time.Duration) time.Duration {
	return max(min(2*cur, b.Max), b.Min)
}

// Loop is one backend's connection supervisor. Dial, Serve and Lost are
// required; Unreachable is optional.
type Loop[C io.Closer] struct {
	Backoff Backoff
	// Dial opens a connection to the peer. It should return soon after
	// ctx is done.
	Dial func(ctx context.Context) (C, error)
	// Serve uses connection number gen (1, 2, ...) until it fails, and
	// returns how many messages it delivered and why it ended. Loop
	// closes the connection when ctx is done (which ends a blocked read)
	// and after Serve returns.
	Serve func(ctx context.Context, c C, gen uint64) (delivered int, err error)
	// Lost is told that connection gen ended and why. It returns false
	// if ctx was done before it could tell the backend; Loop then ends.
	Lost func(ctx context.Context, gen uint64, err error) bool
	// Unreachable, if set, is told the first Dial error after a
	// connection that delivered (or after the start), so that a peer
	// that stays away is logged once, not every attempt.
	Unreachable func(err error)
}

// Run supervises until ctx is done. It returns only then, with every
// connection it opened closed.
func (l *Loop[C]) Run(ctx context.Context) {
	wait := l.Backoff.Min
	var gen uint64
	failures := 0
	for {
		c, err := l.Dial(ctx)
		if ctx.Err() != nil {
			if err == nil {
				c.Close()
			}
			return
		}
		if err == nil {
			gen++
			n, err := l.serve(ctx, c, gen)
			if ctx.Err() != nil {
				return
			}
			if n > 0 {
				wait, failures = l.Backoff.Min, 0
			}
			if !l.Lost(ctx, gen, err) {
				return
			}
		} else {
			if failures == 0 && l.Unreachable != nil {
				l.Unreachable(err)
			}
			failures++
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = l.Backoff.Next(wait)
	}
}

// serve runs Serve with c closed when ctx is done, and closed when Serve
// returns; it returns only after both.
func (l *Loop[C]) serve(ctx context.Context, c C, gen uint64) (int, error) {
	closed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { c.Close(); close(closed) })
	defer func() {
		if !stop() {
			<-closed
		}
		c.Close()
	}()
	return l.Serve(ctx, c, gen)
}

// Send hands v to ch, or gives up when ctx ends first; it reports whether v
// was handed over. A backend's reading goroutine passes its events to Next
// with it.
func Send[T any](ctx context.Context, ch chan<- T, v T) bool {
	select {
	case ch <- v:
		return true
	case <-ctx.Done():
		return false
	}
}

// Ready is the check at the start of a backend's Next: errClosed once the
// backend is closed, else ctx's error, if any.
func Ready(ctx context.Context, closed bool, errClosed error) error {
	if closed {
		return errClosed
	}
	return ctx.Err()
}

// Stop is the start of a backend's Close: false when *closed is already
// set (closed before); else it sets it, stops the backend's pacing timer,
// cancels its context and, when the connection goroutine was started,
// waits until done is closed.
func Stop(closed *bool, started bool, timer *time.Timer, cancel context.CancelFunc, done <-chan struct{}) bool {
	if *closed {
		return false
	}
	*closed = true
	timer.Stop()
	cancel()
	if started {
		<-done
	}
	return true
}
