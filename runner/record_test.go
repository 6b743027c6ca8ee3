package runner_test

import (
	"context"
	"testing"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/runner"
)

// commitChecker checks, at every RecordTick, that the tick's joint command
// has already been committed: the loopback robot's joints are where the
// command sent them.
type commitChecker struct {
	t      *testing.T
	dev    *loopback.Backend
	r      *runner.Runner
	seqs   []uint64
	cancel func()
	stopAt int
}

func (c *commitChecker) RecordTick(seq uint64) {
	c.seqs = append(c.seqs, seq)
	st, cmd, _, _ := c.dev.Snapshot()
	for j := range hal.NumJoints {
		if want := hal.Joint(j).Clamp(cmd.Angle[j]); st.Joints.Angle[j] != want {
			c.t.Errorf("tick %d: joint %d at %v, commanded %v: RecordTick before Commit", seq, j, st.Joints.Angle[j], want)
			return
		}
	}
	if seq != c.r.Board().Tick() {
		c.t.Errorf("RecordTick(%d) in board tick %d", seq, c.r.Board().Tick())
	}
	if len(c.seqs) == c.stopAt && c.cancel != nil {
		c.cancel()
	}
}

func TestRunRecorded(t *testing.T) {
	cases := []struct {
		name      string
		limit     uint64
		cancelAt  int
		wantTicks int
	}{
		{"until the clock ends", 200, 0, 200},
		{"until the context ends", 0, 50, 50},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, dev := newRunner(t, runner.DefaultConfig(), tc.limit,
				perception.New(perception.DefaultConfig()), behaviour.New(behaviour.DefaultConfig()), motion.New(motion.DefaultConfig()))
			if err := r.Start(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := &commitChecker{t: t, dev: dev, r: r, cancel: cancel, stopAt: tc.cancelAt}
			if err := r.RunRecorded(ctx, rec); err != nil {
				t.Fatal(err)
			}
			if len(rec.seqs) != tc.wantTicks {
				t.Fatalf("RecordTick called %d times, want %d", len(rec.seqs), tc.wantTicks)
			}
			for i, s := range rec.seqs {
				if s != uint64(i+1) {
					t.Fatalf("call %d for tick %d", i, s)
				}
			}
			if _, _, _, safe := dev.Snapshot(); safe != 1 {
				t.Fatalf("safe state reached %d times, want once", safe)
			}
		})
	}
}

func TestRunRecordedNil(t *testing.T) {
	r, _ := newRunner(t, runner.DefaultConfig(), 10)
	if err := r.RunRecorded(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}
