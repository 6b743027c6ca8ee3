// Package pacing is what the link backends (nao over LoLA's socket, sim
// over SimSpark's TCP port, robotino over its serial port) share: the
// settings of their link to the robot or simulator (Link) and the pacer
// that paces their ticks while the link gives none, times the link's
// silences and keeps tick time increasing (Pacer).
package pacing

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/internal/reconnect"
)

// Link is a backend's link settings. A backend embeds it in its Config,
// so the keys sit in the backend's section of a configuration file. Period,
// ReadTimeout, DeadTimeout, BackoffMin and BackoffMax are every backend's;
// DialTimeout, WriteTimeout and HandshakeTimeout are only the backends'
// that Spec says have them, and are left out of the JSON while zero. The
// fields' order is the keys' order in the JSON: each backend's keys are a
// subsequence of it.
//
// The defaults are each backend's (its DefaultConfig); the ranges are
// Validate's.
type Link struct {
	// Period is the link's nominal cycle: it paces the ticks while the
	// link gives none.
	Period config.Duration `json:"period"`
	// DialTimeout bounds one connection attempt (sim).
	DialTimeout config.Duration `json:"dial_timeout,omitzero"`
	// ReadTimeout is how long the backend waits for a message (nao, sim)
	// or a reply (robotino) before it ticks on without it (Connected
	// false).
	ReadTimeout config.Duration `json:"read_timeout"`
	// DeadTimeout is how long the link may stay silent before it is closed
	// and opened anew.
	DeadTimeout config.Duration `json:"dead_timeout"`
	// WriteTimeout bounds one write (nao).
	WriteTimeout config.Duration `json:"write_timeout,omitzero"`
	// HandshakeTimeout bounds the start of a connection (sim: until the
	// first message; robotino: the version exchange).
	HandshakeTimeout config.Duration `json:"handshake_timeout,omitzero"`
	// BackoffMin and BackoffMax bound the wait between connection
	// attempts; it doubles after each failure.
	BackoffMin config.Duration `json:"backoff_min"`
	BackoffMax config.Duration `json:"backoff_max"`
}

// Spec says which of Link's settings a backend has and how it checks
// them.
type Spec struct {
	// Name prefixes Validate's errors ("nao").
	Name string
	// Dial, Write and Handshake say whether the backend has DialTimeout,
	// WriteTimeout and HandshakeTimeout.
	Dial, Write, Handshake bool
	// ReadCoversPeriod requires ReadTimeout ≥ Period: nao and sim wait
	// ReadTimeout for a message that comes about every period. Robotino
	// times ReadTimeout from its request and ends a tick only when the
	// period has passed as well, so it does not require it.
	ReadCoversPeriod bool
	// MaxHandshake, if not 0, is HandshakeTimeout's largest value instead
	// of MaxWait (robotino: MaxTimeout, for its short version exchange).
	MaxHandshake time.Duration
}

// The ranges Validate and Rules allow, both ends included. A zero or
// negative duration is refused as not positive.
const (
	MinDuration = time.Millisecond // every setting
	MaxPeriod   = time.Second      // period
	MaxTimeout  = time.Minute      // read_timeout, dial_timeout, write_timeout
	MaxWait     = time.Hour        // dead_timeout, handshake_timeout, backoff_min, backoff_max
)

// setting is one of Link's durations as Validate sees it.
type setting struct {
	key string
	v   config.Duration
	max time.Duration
	has bool
}

// settings returns l's durations in key order, each with its range and
// whether s's backend has it.
func (l Link) settings(s Spec) []setting {
	return []setting{
		{"period", l.Period, MaxPeriod, true},
		{"dial_timeout", l.DialTimeout, MaxTimeout, s.Dial},
		{"read_timeout", l.ReadTimeout, MaxTimeout, true},
		{"dead_timeout", l.DeadTimeout, MaxWait, true},
		{"write_timeout", l.WriteTimeout, MaxTimeout, s.Write},
		{"handshake_timeout", l.HandshakeTimeout, cmp.Or(s.MaxHandshake, MaxWait), s.Handshake},
		{"backoff_min", l.BackoffMin, MaxWait, true},
		{"backoff_max", l.BackoffMax, MaxWait, true},
	}
}

// meanings are the link settings' one-line documentation (Rules).
var meanings = map[string]string{
	"period":            "the link's nominal cycle: it paces the ticks while the link gives none",
	"dial_timeout":      "bounds one connection attempt",
	"read_timeout":      "how long a tick waits for the link's message before it goes on without it (Connected false)",
	"dead_timeout":      "how long the link may stay silent before it is closed and opened anew",
	"write_timeout":     "bounds one write to the link",
	"handshake_timeout": "bounds the start of a connection",
	"backoff_min":       "the first wait between connection attempts; it doubles after each failure",
	"backoff_max":       "the longest wait between connection attempts",
}

// Rules returns the rules of the link settings the backend s describes
// has, keyed within the backend's section: the ranges Validate allows,
// documented. Each backend's Rules includes them, and may say more
// precisely what a setting means for it (Rule.Doc).
func (l Link) Rules(s Spec) config.Rules {
	r := config.Rules{}
	for _, d := range l.settings(s) {
		if d.has {
			r[d.key] = config.Durations(MinDuration, d.max).Doc("", meanings[d.key])
		}
	}
	return r
}

// Validate reports every problem with l for the backend s describes, each
// naming its JSON key after s.Name: a duration of the backend's outside
// its range, a duration it does not have that is set, backoff_max below
// backoff_min, dead_timeout below read_timeout and, if s.ReadCoversPeriod,
// read_timeout below period.
func (l Link) Validate(s Spec) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(s.Name+": "+format, args...))
	}
	for _, d := range l.settings(s) {
		switch v := d.v.D(); {
		case !d.has:
			if v != 0 {
				bad("%s is not a %s setting", d.key, s.Name)
			}
		case v <= 0:
			bad("%s %v must be positive", d.key, v)
		case v < MinDuration || v > d.max:
			bad("%s %v is outside %v..%v", d.key, v, MinDuration, d.max)
		}
	}
	if l.BackoffMax.D() < l.BackoffMin.D() {
		bad("backoff_max %v is below backoff_min %v", l.BackoffMax.D(), l.BackoffMin.D())
	}
	if s.ReadCoversPeriod && l.ReadTimeout.D() < l.Period.D() {
		bad("read_timeout %v is shorter than one period %v", l.ReadTimeout.D(), l.Period.D())
	}
	if l.DeadTimeout.D() < l.ReadTimeout.D() {
		bad("dead_timeout %v is shorter than read_timeout %v", l.DeadTimeout.D(), l.ReadTimeout.D())
	}
	return errors.Join(errs...)
}

// Backoff returns the wait between connection attempts as
// reconnect.Loop takes it.
func (l Link) Backoff() reconnect.Backoff {
	return reconnect.Backoff{Min: l.BackoffMin.D(), Max: l.BackoffMax.D()}
}
