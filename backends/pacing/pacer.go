package pacing

import (
	"time"
)

// Clock is where a Pacer reads wall time. It must be safe for concurrent
// use: a backend's reading goroutine stamps arrivals with it.
type Clock interface {
	Now() time.Time
}

// WallClock is the system clock.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// Expiry is what Expire found due when the pacer's deadline passed.
type Expiry uint8

// Expiries.
const (
	// Nothing is due but, perhaps, an idle tick (Due).
	Nothing Expiry = iota
	// Stalled: the live link was silent for ReadTimeout. The pacer now
	// counts it as stalled; the backend ticks at once, without it.
	Stalled
	// Dead: the link was silent for DeadTimeout since its last message.
	// The backend closes it (and calls Lost).
	Dead
	// NoFirst: a new connection sent no first message within the pacer's
	// first-message limit. The backend closes it (and calls Lost).
	NoFirst
)

// Pacer paces a link backend's ticks and times its link's silences. It is
// for the goroutine that calls the backend's Next; Now, and Since once
// Start has returned, may be called from any goroutine (a backend's
// reading goroutine stamps arrivals with them).
//
// What the three backends share, and Pacer does:
//   - While the link gives no tick, a tick is due one Period after the
//     previous one's wall time (Pace, Due).
//   - The link is down, connected but not yet live, live, or live but
//     stalled (silent for ReadTimeout); a link silent for DeadTimeout is
//     given up (Opened, Live, Stall, Recover, Lost, Dead).
//   - Next waits on one reusable timer for the earliest deadline (Wait).
//   - Tick time since Start increases by at least a microsecond a tick
//     (Monotonic); sim keeps its own tick time (the server's clock) and
//     only records ticks (Ticked).
//
// Where they differ, and why:
//   - nao and sim tick when a message arrives; Deadline and Expire are
//     their wait. ReadTimeout counts from when the wait began: for nao the
//     last message (it reads as fast as LoLA sends), for sim the call to
//     Next (a slow tick must not make the server look silent; nao drains
//     what has arrived before it waits instead). A stall ticks at once.
//     The first message of a connection must come within the first-message
//     limit: nao's DeadTimeout, sim's HandshakeTimeout (a sync-mode server
//     takes seconds).
//   - robotino polls: a tick ends when the reply to its request has
//     arrived and the period has passed, and ReadTimeout counts from the
//     request. It checks DeadTimeout only when a reply is late, asks again
//     then, and waits for the period before an idle tick (ReplyDeadline,
//     Late). Its handshake runs in its port goroutine before the port
//     counts as opened.
type Pacer struct {
	clock    Clock
	period   time.Duration
	read     time.Duration
	dead     time.Duration
	firstMsg time.Duration
	timer    *time.Timer
	t0       time.Time     // Start
	wall     time.Time     // wall time of the last tick
	last     time.Duration // tick time of the last tick
	ticked   bool
	up       bool      // the link is open
	live     bool      // a message arrived on the open link
	stalled  bool      // ReadTimeout passed without one
	opened   time.Time // when the link was opened
	heard    time.Time // when the link was last heard
}

// NewPacer returns a pacer for l's Period, ReadTimeout and DeadTimeout.
// firstMsg is how long a new connection may stay silent before its first
// message (Deadline, Expire); clock nil means WallClock.
func NewPacer(l Link, firstMsg time.Duration, clock Clock) *Pacer {
	if clock == nil {
		clock = WallClock{}
	}
	p := &Pacer{
		clock: clock, period: l.Period.D(), read: l.ReadTimeout.D(), dead: l.DeadTimeout.D(), firstMsg: firstMsg,
		timer: time.NewTimer(time.Hour),
	}
	p.timer.Stop()
	return p
}

// Now reads the pacer's clock.
func (p *Pacer) Now() time.Time { return p.clock.Now() }

// Start sets tick time 0 and the pacing's start to now.
func (p *Pacer) Start(now time.Time) { p.t0, p.wall = now, now }

// Since returns the clock's time since Start.
func (p *Pacer) Since() time.Duration { return p.At(p.clock.Now()) }

// At returns the time from Start to now.
func (p *Pacer) At(now time.Time) time.Duration { return now.Sub(p.t0) }

// Period returns the nominal cycle.
func (p *Pacer) Period() time.Duration { return p.period }

// Last returns the tick time of the last tick (0 before the first).
func (p *Pacer) Last() time.Duration { return p.last }

// Pace returns when the next idle tick is due: one period after the last
// tick was returned.
func (p *Pacer) Pace() time.Time { return p.wall.Add(p.period) }

// Due reports whether an idle tick is due at now.
func (p *Pacer) Due(now time.Time) bool { return !now.Before(p.Pace()) }

// Monotonic returns t, or a microsecond after the last tick if t is not
// after it: tick time never runs backwards or stands still.
func (p *Pacer) Monotonic(t time.Duration) time.Duration {
	if p.ticked && t <= p.last {
		t = p.last + time.Microsecond
	}
	return t
}

// Ticked records a tick at tick time t, returned at wall time wall.
func (p *Pacer) Ticked(t time.Duration, wall time.Time) {
	p.last, p.wall, p.ticked = t, wall, true
}

// Up reports whether the link is open.
func (p *Pacer) Up() bool { return p.up }

// IsLive reports whether a message arrived on the open link.
func (p *Pacer) IsLive() bool { return p.live }

// IsStalled reports whether the link is stalled: silent for ReadTimeout
// and not yet heard again.
func (p *Pacer) IsStalled() bool { return p.stalled }

// Heard returns when the link was last heard (Opened, Hear).
func (p *Pacer) Heard() time.Time { return p.heard }

// Opened records a link opened at now: not yet live, not stalled, heard
// at now.
func (p *Pacer) Opened(now time.Time) {
	p.up, p.live, p.stalled = true, false, false
	p.opened, p.heard = now, now
}

// Hear records that the link was heard at now.
func (p *Pacer) Hear(now time.Time) { p.heard = now }

// Live marks the link live and reports whether it was not before (its
// first message).
func (p *Pacer) Live() bool {
	first := !p.live
	p.live = true
	return first
}

// Stall marks the link stalled and reports whether it was not before.
func (p *Pacer) Stall() bool {
	first := !p.stalled
	p.stalled = true
	return first
}

// Recover ends a stall and reports whether there was one.
func (p *Pacer) Recover() bool {
	was := p.stalled
	p.stalled = false
	return was
}

// Lost records that the link was closed.
func (p *Pacer) Lost() { p.up, p.live, p.stalled = false, false, false }

// Dead reports whether the link, silent since Heard, has been for
// DeadTimeout at now.
func (p *Pacer) Dead(now time.Time) bool { return now.Sub(p.heard) >= p.dead }

// Late reports whether a reply to a request sent at sent is late at now:
// ReadTimeout has passed.
func (p *Pacer) Late(sent, now time.Time) bool { return now.Sub(sent) >= p.read }

// Deadline returns when a backend that ticks on messages (nao, sim) stops
// waiting for the next one, readFrom being when its wait began: ReadTimeout
// after it while the link is live; the earlier of the next idle tick and
// the link's death while it is stalled or not yet live (its first message
// due within the first-message limit of its opening); the next idle tick
// while it is down.
func (p *Pacer) Deadline(readFrom time.Time) time.Time {
	pace := p.Pace()
	switch {
	case p.live && !p.stalled:
		return readFrom.Add(p.read)
	case p.live:
		return earlier(pace, p.heard.Add(p.dead))
	case p.up:
		return earlier(pace, p.opened.Add(p.firstMsg))
	default:
		return pace
	}
}

// Expire says what is due at now, when Deadline has passed: a live link
// becomes stalled (Stalled); a stalled one silent for DeadTimeout, or a
// new one silent for the first-message limit, is to be closed (Dead,
// NoFirst). An idle tick may be due as well (Due).
func (p *Pacer) Expire(now time.Time) Expiry {
	switch {
	case p.live && !p.stalled:
		p.stalled = true
		return Stalled
	case p.live && p.Dead(now):
		return Dead
	case !p.live && p.up && now.Sub(p.opened) >= p.firstMsg:
		return NoFirst
	}
	return Nothing
}

// ReplyDeadline returns when a polling backend (robotino), whose request
// went out at sent, stops waiting: while it awaits the reply on an open
// link, when the reply is late (or at the next idle tick, if earlier,
// while the link is stalled); else at the next tick.
func (p *Pacer) ReplyDeadline(sent time.Time, awaiting bool) time.Time {
	pace := p.Pace()
	if !awaiting {
		return pace
	}
	late := sent.Add(p.read)
	if p.stalled {
		return earlier(pace, late)
	}
	return late
}

// Wait arms the pacer's timer for deadline and returns its channel.
// Call Disarm when the wait ends otherwise.
func (p *Pacer) Wait(deadline time.Time) <-chan time.Time {
	p.timer.Reset(deadline.Sub(p.clock.Now()))
	return p.timer.C
}

// Disarm stops the timer Wait armed.
func (p *Pacer) Disarm() { p.timer.Stop() }

// Timer returns the pacer's timer, for reconnect.Stop.
func (p *Pacer) Timer() *time.Timer { return p.timer }

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
