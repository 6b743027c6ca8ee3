package pacing

import (
	"testing"
	"time"
)

// fixedClock is a clock that reads what the test set.
type fixedClock struct{ now time.Time }

func (c *fixedClock) Now() time.Time { return c.now }

var epoch = time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC)

// at is epoch plus n milliseconds.
func at(n int) time.Time { return epoch.Add(time.Duration(n) * time.Millisecond) }

// testLink: period 10 ms, read 60 ms, dead 1 s.
func testLink() Link {
	return Link{Period: ms(10), ReadTimeout: ms(60), DeadTimeout: ms(1000), BackoffMin: ms(10), BackoffMax: ms(100)}
}

// linkState is a pacer's link state as a test sets it up.
type linkState uint8

const (
	down linkState = iota
	opening
	live
	stalled
)

// newTestPacer returns a pacer started at epoch whose last tick was at
// lastTick ms, its link in state s, opened at 100 ms and heard at heard ms.
func newTestPacer(s linkState, lastTick, heard int) *Pacer {
	p := NewPacer(testLink(), 500*time.Millisecond, &fixedClock{epoch})
	p.Start(epoch)
	p.Ticked(time.Duration(lastTick)*time.Millisecond, at(lastTick))
	if s == down {
		return p
	}
	p.Opened(at(100))
	p.Hear(at(heard))
	if s >= live {
		p.Live()
	}
	if s == stalled {
		p.Stall()
	}
	return p
}

func TestPacerDeadline(t *testing.T) {
	for _, tc := range []struct {
		name     string
		state    linkState
		lastTick int
		heard    int
		readFrom int
		want     int
	}{
		{"down: the next idle tick", down, 200, 0, 0, 210},
		{"opening: the next idle tick", opening, 200, 100, 0, 210},
		{"opening: the first-message limit if earlier", opening, 595, 100, 0, 600},
		{"live: ReadTimeout after the wait began", live, 200, 200, 230, 290},
		{"live: from the last message", live, 200, 180, 180, 240},
		{"stalled: the next idle tick", stalled, 300, 200, 0, 310},
		{"stalled: death if earlier", stalled, 1195, 200, 0, 1200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPacer(tc.state, tc.lastTick, tc.heard)
			if got := p.Deadline(at(tc.readFrom)); !got.Equal(at(tc.want)) {
				t.Errorf("Deadline = %v ms, want %d ms", got.Sub(epoch).Milliseconds(), tc.want)
			}
		})
	}
}

func TestPacerExpire(t *testing.T) {
	for _, tc := range []struct {
		name        string
		state       linkState
		heard       int
		now         int
		want        Expiry
		wantStalled bool
		wantDue     bool
	}{
		{"down, before the pace", down, 0, 205, Nothing, false, false},
		{"down, at the pace", down, 0, 210, Nothing, false, true},
		{"opening, within the limit", opening, 100, 599, Nothing, false, true},
		{"opening, at the limit", opening, 100, 600, NoFirst, false, true},
		{"live: a stall, at once", live, 200, 205, Stalled, true, false},
		{"stalled, not yet dead", stalled, 200, 1199, Nothing, true, true},
		{"stalled, dead", stalled, 200, 1200, Dead, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPacer(tc.state, 200, tc.heard)
			if got := p.Expire(at(tc.now)); got != tc.want {
				t.Errorf("Expire = %d, want %d", got, tc.want)
			}
			if p.IsStalled() != tc.wantStalled {
				t.Errorf("IsStalled = %v, want %v", p.IsStalled(), tc.wantStalled)
			}
			if p.Due(at(tc.now)) != tc.wantDue {
				t.Errorf("Due = %v, want %v", p.Due(at(tc.now)), tc.wantDue)
			}
		})
	}
}

func TestPacerReplyDeadline(t *testing.T) {
	for _, tc := range []struct {
		name     string
		state    linkState
		awaiting bool
		sent     int
		want     int
	}{
		{"down: the next tick", down, false, 0, 210},
		{"reply arrived: the next tick", live, false, 150, 210},
		{"awaiting: when the reply is late", live, true, 205, 265},
		{"awaiting before the first reply", opening, true, 205, 265},
		{"stalled: the next idle tick if earlier", stalled, true, 205, 210},
		{"stalled: lateness if earlier", stalled, true, 145, 205},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPacer(tc.state, 200, 150)
			if got := p.ReplyDeadline(at(tc.sent), tc.awaiting); !got.Equal(at(tc.want)) {
				t.Errorf("ReplyDeadline = %v ms, want %d ms", got.Sub(epoch).Milliseconds(), tc.want)
			}
		})
	}
}

func TestPacerLateAndDead(t *testing.T) {
	for _, tc := range []struct {
		name           string
		sent, heard    int
		now            int
		late, wantDead bool
	}{
		{"in time", 100, 100, 159, false, false},
		{"late", 100, 100, 160, true, false},
		{"dead", 100, 100, 1100, true, true},
		{"heard since", 1050, 1050, 1100, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTestPacer(opening, 0, tc.heard)
			if got := p.Late(at(tc.sent), at(tc.now)); got != tc.late {
				t.Errorf("Late = %v, want %v", got, tc.late)
			}
			if got := p.Dead(at(tc.now)); got != tc.wantDead {
				t.Errorf("Dead = %v, want %v", got, tc.wantDead)
			}
		})
	}
}

func TestPacerMonotonic(t *testing.T) {
	us := time.Microsecond
	for _, tc := range []struct {
		name   string
		ticked bool
		last   time.Duration
		t      time.Duration
		want   time.Duration
	}{
		{"first tick at 0", false, 0, 0, 0},
		{"later", true, 10 * time.Millisecond, 12 * time.Millisecond, 12 * time.Millisecond},
		{"the same time", true, 10 * time.Millisecond, 10 * time.Millisecond, 10*time.Millisecond + us},
		{"backwards", true, 10 * time.Millisecond, 3 * time.Millisecond, 10*time.Millisecond + us},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPacer(testLink(), 0, &fixedClock{epoch})
			p.Start(epoch)
			if tc.ticked {
				p.Ticked(tc.last, epoch.Add(tc.last))
			}
			if got := p.Monotonic(tc.t); got != tc.want {
				t.Errorf("Monotonic(%v) = %v, want %v", tc.t, got, tc.want)
			}
		})
	}
}

// TestPacerLinkState walks a link through its states.
func TestPacerLinkState(t *testing.T) {
	p := NewPacer(testLink(), time.Second, &fixedClock{epoch})
	p.Start(epoch)
	type state struct{ up, live, stalled bool }
	get := func() state { return state{p.Up(), p.IsLive(), p.IsStalled()} }
	steps := []struct {
		name string
		do   func() bool // reports what the step reports, true if nothing
		ret  bool
		want state
	}{
		{"start", func() bool { return true }, true, state{}},
		{"opened", func() bool { p.Opened(at(5)); return true }, true, state{up: true}},
		{"first message", p.Live, true, state{up: true, live: true}},
		{"second message", p.Live, false, state{up: true, live: true}},
		{"stall", p.Stall, true, state{true, true, true}},
		{"stall again", p.Stall, false, state{true, true, true}},
		{"recover", p.Recover, true, state{up: true, live: true}},
		{"recover again", p.Recover, false, state{up: true, live: true}},
		{"stall before lost", p.Stall, true, state{true, true, true}},
		{"lost", func() bool { p.Lost(); return true }, true, state{}},
		{"reopened", func() bool { p.Opened(at(9)); return true }, true, state{up: true}},
	}
	for _, s := range steps {
		if got := s.do(); got != s.ret {
			t.Errorf("%s: reported %v, want %v", s.name, got, s.ret)
		}
		if got := get(); got != s.want {
			t.Errorf("%s: state %+v, want %+v", s.name, got, s.want)
		}
	}
	if !p.Heard().Equal(at(9)) {
		t.Errorf("Heard %v after Opened at 9 ms", p.Heard())
	}
}

// TestPacerWait: the timer fires at a deadline read on the pacer's clock,
// and Disarm stops it.
func TestPacerWait(t *testing.T) {
	clk := &fixedClock{epoch}
	p := NewPacer(testLink(), 0, clk)
	p.Start(epoch)
	select {
	case <-p.Wait(at(-1)):
	case <-time.After(10 * time.Second):
		t.Fatal("a past deadline did not fire")
	}
	c := p.Wait(at(60_000))
	p.Disarm()
	select {
	case <-c:
		t.Fatal("a disarmed timer fired")
	case <-time.After(20 * time.Millisecond):
	}
	if d := p.Since(); d != 0 {
		t.Errorf("Since = %v on a clock at the start", d)
	}
	clk.now = at(42)
	if d := p.Since(); d != 42*time.Millisecond {
		t.Errorf("Since = %v, want 42ms", d)
	}
}
