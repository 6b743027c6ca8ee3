package runner

import (
	"context"
	"errors"
	"io"
)

// Recorder is told about every tick once the tick's commands were handed to
// the backend (after Commit), from the tick goroutine. The blackboard then
// holds the whole tick: the sensor values the runner published and
// everything the modules wrote. A recorder (package record) copies it to
// disk; a replay's checker compares it with a recording. RecordTick must
// not block.
type Recorder interface {
	RecordTick(seq uint64)
}

// RunRecorded is Run, calling rec after every tick that completed (the
// backend's Next, the modules and Commit). A nil rec is Run. Start the
// runner before the recorder, so that the recorder sees every entry.
func (r *Runner) RunRecorded(ctx context.Context, rec Recorder) error {
	if !r.started {
		if err := r.Start(); err != nil {
			return err
		}
	}
	var runErr error
	for ctx.Err() == nil {
		if err := r.Step(ctx); err != nil {
			if ctx.Err() == nil && !errors.Is(err, io.EOF) {
				runErr = err
			}
			break
		}
		if rec != nil {
			rec.RecordTick(r.board.Tick())
		}
		if d := r.cfg.StopAfter.D(); d > 0 && r.last-r.first >= d {
			r.log.Info("ran for the configured tick time; stopping", "stop_after", d, "ticks", r.ticks)
			break
		}
	}
	if err := r.SafeState(); err != nil {
		return errors.Join(runErr, err)
	}
	return runErr
}
