// Package haltest has fakes of hal capabilities for tests.
package haltest

import (
	"context"
	"io"
	"time"

	"github.com/robotd/robotd/hal"
)

// Clock is a fake hal.Clock: every Next returns at once with the time
// advanced by Period, so a test runs N ticks in no wall time. After Limit
// ticks (if Limit > 0) Next returns io.EOF, which ends runner.Run cleanly.
type Clock struct {
	Period time.Duration
	Limit  uint64
	// Disconnected makes ticks report Connected false.
	Disconnected bool
	seq          uint64
}

// NewClock returns a fake clock with the given period and tick limit.
func NewClock(period time.Duration, limit uint64) *Clock {
	return &Clock{Period: period, Limit: limit}
}

// Next implements hal.Clock.
func (c *Clock) Next(ctx context.Context) (hal.Tick, error) {
	if err := ctx.Err(); err != nil {
		return hal.Tick{}, err
	}
	if c.Limit > 0 && c.seq >= c.Limit {
		return hal.Tick{}, io.EOF
	}
	c.seq++
	return hal.Tick{Seq: c.seq, Time: time.Duration(c.seq) * c.Period, Period: c.Period, Connected: !c.Disconnected}, nil
}
