package loopback

import (
	"context"
	"time"

	"github.com/robotd/robotd/hal"
)

// WallClock paces ticks in real time with a fixed period, for demos.
type WallClock struct {
	period time.Duration
	start  time.Time
	seq    uint64
	timer  *time.Timer
}

// NewWallClock returns a clock ticking every period of wall time.
func NewWallClock(period time.Duration) *WallClock {
	return &WallClock{period: period}
}

// Next waits for the next period boundary. If the caller fell behind, it
// skips the missed ticks rather than bursting through them.
func (c *WallClock) Next(ctx context.Context) (hal.Tick, error) {
	now := time.Now()
	if c.start.IsZero() {
		c.start = now
		c.timer = time.NewTimer(0)
		<-c.timer.C
	}
	due := c.start.Add(time.Duration(c.seq+1) * c.period)
	if d := due.Sub(now); d > 0 {
		c.timer.Reset(d)
		select {
		case <-ctx.Done():
			c.timer.Stop()
			return hal.Tick{}, ctx.Err()
		case <-c.timer.C:
		}
	} else if ctx.Err() != nil {
		return hal.Tick{}, ctx.Err()
	}
	elapsed := time.Since(c.start)
	c.seq = max(c.seq+1, uint64(elapsed/c.period))
	return hal.Tick{Seq: c.seq, Time: time.Duration(c.seq) * c.period, Period: c.period, Connected: true}, nil
}
