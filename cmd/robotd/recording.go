package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/robotd/robotd/record/codec"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/backends/replay"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/record"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
)

// RecordConfig configures recording (the "record" section): every tick's
// blackboard to size-bounded segment files, for `robotd replay`.
type RecordConfig struct {
	// Enabled turns recording on.
	Enabled bool `json:"enabled"`
	record.Config
}

// DefaultRecordConfig returns the defaults: recording off; when on, into
// ./recordings, 16 MiB segments, at most 1 GiB.
func DefaultRecordConfig() RecordConfig {
	return RecordConfig{Config: record.DefaultConfig()}
}

// Validate checks the configuration if recording is enabled.
func (c *RecordConfig) Validate() error {
	if !c.Enabled {
		return nil
	}
	return c.Config.Validate()
}

// newModules builds the modules of a robot with body b from cfg, as
// robot.Assemble does for serve and replay (robot.ModulesFor).
func newModules(cfg *Config, b robot.Body) []runner.Module {
	return robot.ModulesFor(&cfg.Config, b)
}

// recordedBody is the body of the robot a recording was made on: an
// omnidirectional base if it has the base's sensor entry and no joints'.
func recordedBody(s *codec.Schema) robot.Body {
	if s.Index(msg.JointsKey.Name()) < 0 && s.Index(msg.BaseKey.Name()) >= 0 {
		return robot.OmniBase
	}
	return robot.Legs
}

// replayRobot assembles what a replay of dev's recording runs: the
// recorded robot (robot.Assemble with the recorded body and
// configuration), and, for the network's modules and the vision stage,
// whose input cannot be received again or was not recorded, feeds of
// what they wrote. Its runner is started.
func replayRobot(cfg *Config, dev *replay.Backend, log *slog.Logger) (*robot.Robot, error) {
	feeds, err := replayFeeds(dev)
	if err != nil {
		return nil, err
	}
	b := recordedBody(dev.Schema())
	rb, err := robot.Assemble(&cfg.Config, dev, robot.Options{Body: &b, Extra: feeds, Log: log})
	if err != nil {
		return nil, fmt.Errorf("wiring the modules: %w", err)
	}
	return rb, nil
}

// replayFeeds are the feeds of a replay of dev's recording: of the game
// state, the vision stage's observations and the team's messages, as far
// as the recording has them.
func replayFeeds(dev *replay.Backend) ([]runner.Module, error) {
	s := dev.Schema()
	var feeds []runner.Module
	if s.Index(msg.GameControlKey.Name()) >= 0 {
		f := replay.NewFeed(dev, "gamecontroller")
		if err := replay.AddFeed(f, msg.GameControlKey); err != nil {
			return nil, err
		}
		feeds = append(feeds, f)
	}
	// The vision stage's input, the cameras' pixels, is not recorded: its
	// observations are fed as recorded.
	if i := s.Index(msg.VisionKey.Name()); i >= 0 && s.Entries()[i].Writer == "vision" {
		f := replay.NewFeed(dev, "vision")
		if err := replay.AddFeed(f, msg.VisionKey); err != nil {
			return nil, err
		}
		feeds = append(feeds, f)
	}
	if s.Index(msg.TeammatesKey.Name()) >= 0 {
		f := replay.NewFeed(dev, "teamcomm")
		err := errors.Join(replay.AddFeed(f, msg.TeammatesKey), replay.AddFeed(f, msg.TeamBallReportsKey))
		if err != nil {
			return nil, err
		}
		feeds = append(feeds, f)
	}
	return feeds, nil
}

// runRecording runs the started runner r until ctx is done, recording every
// tick when rc.Enabled, with cfg (the whole configuration) in the
// recording's header. It registers the recorder's counters on reg (if not
// nil): robotd_record_written_total, robotd_record_dropped_total and
// robotd_record_bytes_total. Recording never stops the robot: if it cannot
// start, the robot runs unrecorded, and write errors are logged.
func runRecording(ctx context.Context, rc RecordConfig, cfg *Config, r *runner.Runner, reg prometheus.Registerer, log *slog.Logger) error {
	if !rc.Enabled {
		return r.Run(ctx)
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		log.Error("recording: encoding the configuration; running unrecorded", "err", err)
		return r.Run(ctx)
	}
	rec, err := record.Start(ctx, rc.Config, r.Board(), record.Info{Config: raw, Build: buildName}, log)
	if err != nil {
		log.Error("recording could not start; running unrecorded", "err", err)
		return r.Run(ctx)
	}
	if reg != nil {
		err := errors.Join(
			reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "robotd_record_written_total", Help: "Ticks recorded."},
				func() float64 { return float64(rec.Written()) })),
			reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "robotd_record_dropped_total", Help: "Ticks not recorded: the writer was behind, or writing failed."},
				func() float64 { return float64(rec.Dropped()) })),
			reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "robotd_record_bytes_total", Help: "Compressed bytes recorded."},
				func() float64 { return float64(rec.Bytes()) })),
		)
		if err != nil {
			log.Warn("recording: registering metrics", "err", err)
		}
	}
	runErr := r.RunRecorded(ctx, rec)
	if err := rec.Close(); err != nil {
		log.Warn("recording had write errors", "err", err)
	}
	log.Info("recording stopped", "records", rec.Written(), "dropped", rec.Dropped(), "bytes", rec.Bytes())
	return runErr
}
