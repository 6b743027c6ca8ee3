package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/robotd/robotd/backends/replay"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/debugview"
	"github.com/robotd/robotd/record"
	"github.com/robotd/robotd/runner"
)

// setFlags collects repeated -set flags.
type setFlags []string

func (s *setFlags) String() string { return strings.Join(*s, ",") }

func (s *setFlags) Set(v string) error {
	if !strings.Contains(v, "=") {
		return fmt.Errorf("want section.key=value, got %q", v)
	}
	*s = append(*s, v)
	return nil
}

// runReplay is `robotd replay [flags] LOG`: it reruns the recorded
// configuration's modules on the recorded sensor values, compares every
// blackboard entry after every tick with the recording, and prints either
// "N ticks, M entries, bit-exact" (exit 0) or the first entry and tick
// that differ (exit 1).
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("robotd replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", "", "JSON configuration file applied over the recorded configuration")
	var sets setFlags
	fs.Var(&sets, "set", "change one setting of the recorded configuration, as section.key=value with a JSON or bare-string value (repeatable), e.g. -set motion.max_speed=1.0")
	level := fs.String("log-level", "warn", "log level: debug, info, warn, error")
	serveAddr := fs.String("serve", "", "instead of checking, serve the recording on the debug page at `ADDR` (e.g. 127.0.0.1:8080), with a time slider, until interrupted")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: robotd replay [flags] LOG\n\n"+
			"Reruns the modules of a recording (LOG: its directory, for the newest session, or a\n"+
			"segment file) on the recorded inputs and compares every blackboard entry after\n"+
			"every tick. Exit status 0: bit-exact; 1: a difference (printed) or a failure.\n"+
			"With -serve it shows the recording on the debug page instead.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	lvl, err := parseLevel(*level)
	if err != nil {
		fmt.Fprintf(stderr, "robotd replay: %v\n", err)
		return exitUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	if *serveAddr != "" {
		if err := serveRecording(ctx, fs.Arg(0), *cfgPath, sets, *serveAddr, stdout, log); err != nil {
			fmt.Fprintf(stderr, "robotd replay: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	res, err := replayLog(ctx, fs.Arg(0), *cfgPath, sets, log)
	if err != nil {
		fmt.Fprintf(stderr, "robotd replay: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(stdout, res)
	if res.First != nil {
		return exitFailed
	}
	return exitOK
}

// replayLog replays the recording at path with the recorded configuration,
// changed by the file at cfgPath (if any) and then by sets.
func replayLog(ctx context.Context, path, cfgPath string, sets []string, log *slog.Logger) (replay.Result, error) {
	src, err := record.Open(path)
	if err != nil {
		return replay.Result{}, err
	}
	h := src.Header()
	cfg, err := replayConfig(h.Config, cfgPath, sets)
	if err != nil {
		src.Close()
		return replay.Result{}, err
	}
	dev, err := replay.New(src)
	if err != nil {
		src.Close()
		return replay.Result{}, err
	}
	defer dev.Close()
	log.Info("replaying", "session", h.Session, "segments", len(src.Files()), "build", h.Build, "entries", src.Schema().Len())
	if h.Segment > 0 {
		log.Warn("the recording starts at a later segment (the first were deleted): the modules start without the state they had then, so the first ticks may differ", "segment", h.Segment)
	}
	rb, err := replayRobot(cfg, dev, log)
	if err != nil {
		return replay.Result{}, err
	}
	r := rb.Runner
	chk := replay.NewChecker(dev, rb.Board, append([]string{runner.HALName}, r.Order()...))
	start := time.Now()
	runErr := r.RunRecorded(ctx, chk)
	res, cmpErr := chk.Result()
	if err := errors.Join(runErr, cmpErr); err != nil {
		return res, err
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("interrupted after %d ticks: %w", res.Ticks, ctx.Err())
	}
	d := time.Since(start)
	log.Info("replayed", "ticks", res.Ticks, "seconds", d.Seconds(), "ticks_per_second", float64(res.Ticks)/d.Seconds())
	if len(res.Extra) > 0 {
		log.Info("entries only the replay has, not compared", "entries", res.Extra)
	}
	if res.Gaps > 0 {
		log.Warn("the recorder dropped records: the modules saw jumps the recorded run did not see", "gaps", res.Gaps)
	}
	for _, sk := range res.Skipped {
		log.Warn("left out a part of the recording that cannot be read", "segment", sk.Path, "records_before", sk.Records, "reason", sk.Reason)
	}
	if len(res.Truncated) > 0 {
		log.Info("the recording ends mid-stream (the recording process was killed); replayed what was flushed", "segments", res.Truncated)
	}
	return res, nil
}

// serveRecording serves the recording at path on the debug page at addr
// until ctx is done. The recorded configuration (changed by cfgPath and
// sets) names the robot and wires the modules on a board that is never
// ticked: its Go types decode the recorded values (enums by name).
func serveRecording(ctx context.Context, path, cfgPath string, sets []string, addr string, stdout io.Writer, log *slog.Logger) error {
	src, err := record.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	h := src.Header()
	cfg, err := replayConfig(h.Config, cfgPath, sets)
	if err != nil {
		return err
	}
	types, err := replayTypes(path, cfg, log)
	if err != nil {
		log.Warn("showing values by their recorded layouts, without names for enums", "err", err)
	}
	start := time.Now()
	rec, err := debugview.LoadRecording(ctx, src, debugview.RecordingOptions{Types: types})
	if err != nil {
		return err
	}
	first, last := rec.Ticks()
	log.Info("recording loaded", "session", h.Session, "records", rec.Len(), "stride", rec.Stride(),
		"ticks", fmt.Sprintf("%d..%d", first, last), "seconds", time.Since(start).Seconds())
	id := robotIdentity(cfg)
	id.Build = h.Build
	view, err := debugview.NewReplay(rec, debugview.Options{Robot: id, Log: log, Listen: addr, AllowHosts: cfg.Metrics.AllowHosts})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("debug page listener: %w", err)
	}
	srv := &http.Server{Handler: view, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "serving recording %s (ticks %d..%d, %v) at http://%s/\n", h.Session, first, last, rec.Duration(), ln.Addr())
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-done:
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		log.Warn("stopping the debug page listener", "err", err)
	}
	if serveErr == nil {
		serveErr = <-done
	}
	if !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("debug page listener: %w", serveErr)
	}
	return nil
}

// replayTypes wires cfg's modules, over a replay backend of the recording
// at path, on a board that is never ticked.
func replayTypes(path string, cfg *Config, log *slog.Logger) (*blackboard.Board, error) {
	src, err := record.Open(path)
	if err != nil {
		return nil, err
	}
	dev, err := replay.New(src)
	if err != nil {
		src.Close()
		return nil, err
	}
	defer dev.Close()
	rb, err := replayRobot(cfg, dev, log)
	if err != nil {
		return nil, err
	}
	return rb.Board, nil
}

// replayConfig is the recorded configuration (over the defaults), then the
// file at path, then sets.
func replayConfig(recorded json.RawMessage, path string, sets []string) (*Config, error) {
	cfg := DefaultConfig()
	if len(recorded) > 0 {
		if err := config.DecodeWritten(bytes.NewReader(recorded), &cfg); err != nil {
			return nil, fmt.Errorf("the recorded configuration: %w", err)
		}
	}
	if path != "" {
		if err := config.Load(path, &cfg); err != nil {
			return nil, err
		}
	}
	for _, s := range sets {
		if err := setValue(&cfg, s); err != nil {
			return nil, fmt.Errorf("-set %s: %w", s, err)
		}
	}
	cfg.identify()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// setValue sets one setting, "key=value" (config.Set over the defaults).
func setValue(cfg *Config, kv string) error { return config.Set(cfg, kv, DefaultConfig) }
