// Command robotd is the robot daemon. Built normally it drives real hardware
// (a NAO v6 through LoLA or a Robotino through its serial link); built with
// -tags sim it drives a simulated NAO. Which backend is built is decided in
// backend_real.go and backend_sim.go, and nowhere else.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/debugview"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// run is robotd's main, minus the process: it returns an exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, args, stdout, stderr, hooks{})
}

// runWith is run with parts replaced (tests).
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, h hooks) int {
	if len(args) > 0 && args[0] == "replay" {
		return runReplay(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && (args[0] == "deploy" || args[0] == "logs" || args[0] == "pull") {
		return runDeploy(ctx, args[0], args[1:], stdout, stderr)
	}
	cfg, err := loadConfig(ctx, args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errPrinted) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "robotd: %v\n", err)
		return exitUsage
	}
	cfg.hooks = h
	log := newLogger(cfg.Log, stderr)
	if err := serve(ctx, cfg, log); err != nil {
		log.Error("robotd failed", "err", err)
		return exitFailed
	}
	return exitOK
}

var errPrinted = errors.New("configuration printed")

// loadConfig builds the configuration: defaults, then the file named by
// -config, then the other flags.
func loadConfig(ctx context.Context, args []string, stdout, stderr io.Writer) (*Config, error) {
	cfg := DefaultConfig()
	var err error
	fs := flag.NewFlagSet("robotd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", "", "JSON configuration file (keys as in -print-config; unknown keys are errors)")
	dir := fs.String("config-dir", "", "a team's configuration directory: location/<location>.json, robots.json, robots/<name>.json, applied before -config")
	location := fs.String("location", "", "the location layer in -config-dir (location/<name>.json: field, team)")
	ids := fs.String("robot-ids", "", "BODY,HEAD: the robot's IDs that choose its layer in -config-dir (default: asked from LoLA)")
	team := fs.Int("team", 0, "SPL team number (overrides robot.team_number)")
	teamName := fs.String("team-name", "", "team name (overrides robot.team_name)")
	player := fs.Int("player", 0, "player number (overrides robot.player)")
	metrics := fs.String("metrics-addr", "", "listen address for /metrics (overrides metrics.addr; default 127.0.0.1:<10000+100·team+player>)")
	level := fs.String("log-level", "", "log level: debug, info, warn, error (overrides log.level)")
	printCfg := fs.Bool("print-config", false, "print the effective configuration as JSON and exit")
	wait := fs.Bool("wait", false, "stand and wait for a real GameController (turns the simulated game, gamecontroller.simulated, off)")
	var sets []string
	fs.Func("set", "set one configuration value, `key=value` with a dotted key as in -print-config (e.g. sim.embedded.sync=true); repeatable, applied after -config", func(s string) error {
		sets = append(sets, s)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: robotd [flags]\n       robotd replay [flags] LOG\n       robotd deploy|logs|pull [flags] [ROBOT...]\n\nrobotd is the robot daemon (%s build).\n\n", buildName)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *dir != "" {
		if cfg.layers, cfg.robotName, err = applyLayers(ctx, &cfg, config.Layers{Dir: *dir, Location: *location}, *ids); err != nil {
			return nil, err
		}
	}
	if *path != "" {
		cfg.layers = append(cfg.layers, *path)
		if err := config.Load(*path, &cfg); err != nil {
			return nil, err
		}
	}
	for _, kv := range sets {
		if err := setValue(&cfg, kv); err != nil {
			return nil, fmt.Errorf("-set %s: %w", kv, err)
		}
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "team":
			cfg.Robot.TeamNumber = *team
		case "team-name":
			cfg.Robot.TeamName = *teamName
		case "player":
			cfg.Robot.Player = *player
		case "metrics-addr":
			cfg.Metrics.Addr = *metrics
		case "log-level":
			cfg.Log.Level = *level
		case "wait":
			if *wait {
				cfg.GameController.Simulated.Enabled = false
			}
		}
	})
	cfg.identify()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if *printCfg {
		enc := jsonIndent(stdout)
		if err := enc.Encode(cfg); err != nil {
			return nil, err
		}
		return nil, errPrinted
	}
	return &cfg, nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("config: log.level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

func newLogger(c LogConfig, w io.Writer) *slog.Logger {
	level, _ := parseLevel(c.Level) // validated
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// serve runs the daemon until ctx is done.
func serve(ctx context.Context, cfg *Config, log *slog.Logger) error {
	log = log.With("team", cfg.Robot.TeamNumber, "player", cfg.Robot.Player)
	// The listener first, so that the first lines say where to look.
	ln, err := net.Listen("tcp", cfg.MetricsAddr())
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	defer ln.Close()
	base := "http://" + ln.Addr().String()
	log.Info("robotd starting", "build", buildName, "debug_page", base+"/", "metrics", base+"/metrics")
	if s := cfg.GameController.Simulated; s.Enabled {
		log.Info("a simulated GameController runs a kick-off: the robot walks to its position in READY, stands in SET, "+
			"then plays: it walks to the ball and kicks it towards the goal (-wait: wait for a real GameController instead)",
			"initial", s.Initial.D(), "ready", s.Ready.D(), "set", s.Set.D())
	} else if cfg.GameController.Enabled {
		log.Info("waiting for a GameController on the network; the robot stands until it says PLAYING", "listen", cfg.GameController.Listen)
	}
	if len(cfg.layers) > 0 {
		log.Info("configuration", "robot", cfg.robotName, "layers", cfg.layers)
	}
	dev, err := newBackend(ctx, cfg, log)
	if err != nil {
		return fmt.Errorf("starting the %s backend: %w", buildName, err)
	}
	defer func() {
		if err := dev.Close(); err != nil {
			log.Warn("closing the backend", "err", err)
		}
	}()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if c, ok := dev.(prometheus.Collector); ok { // the backend's own metrics
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("registering the backend's metrics: %w", err)
		}
	}
	var network []runner.Module
	if nw := startNetwork(ctx, cfg, reg, log); nw != nil {
		defer func() {
			if err := nw.Close(); err != nil {
				log.Warn("closing the network", "err", err)
			}
		}()
		network = nw.Modules()
	}
	rb, err := robot.Assemble(&cfg.Config, dev, robot.Options{
		Vision:     func(*robot.Config) robot.Vision { return cfg.vision() },
		Extra:      network,
		Registerer: reg,
		Log:        log,
	})
	if err != nil {
		return err
	}
	r, board := rb.Runner, rb.Board

	if !cfg.MetricsOnLoopback() {
		log.Warn("the metrics and debug listener is not on loopback: anyone who reaches this address can read the robot's state", "addr", cfg.MetricsAddr())
	}
	srv := &http.Server{Handler: debugMux(reg, board, cfg, log), ReadHeaderTimeout: 5 * time.Second}
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Serve(ln) }()
	log.Info("robotd running", "build", buildName, "body", rb.Body.String(), "debug_page", base+"/", "metrics", base+"/metrics")

	runErr := runRecording(ctx, cfg.Record, cfg, r, reg, log)

	shutCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		log.Warn("stopping the metrics listener", "err", err)
	}
	if err := <-srvDone; err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("metrics listener", "err", err)
	}
	if runErr != nil {
		return runErr
	}
	log.Info("robotd stopped")
	return nil
}

// startNetwork opens the network the configuration enables: the
// GameController client and team communication (robot.StartNetwork). If
// that fails (a port taken by another robotd on this machine, no network),
// the robot still runs, on the backend's game state and without
// teammates, and the error is logged. It returns nil only if not even the
// game-state module could be made.
func startNetwork(ctx context.Context, cfg *Config, reg prometheus.Registerer, log *slog.Logger) *robot.Network {
	nw, err := robot.StartNetwork(ctx, &cfg.Config, reg, log)
	if err == nil {
		return nw
	}
	log.Error("the network could not be opened: running without the GameController and teammates", "err", err)
	off := cfg.Config
	off.GameController.Enabled, off.TeamComm.Enabled = false, false
	if nw, err = robot.StartNetwork(ctx, &off, nil, log); err != nil { // nothing to open
		log.Error("no game-state module", "err", err)
		return nil
	}
	return nw
}

// debugMux serves /metrics, the blackboard's entries, a JSON snapshot, and
// at / the debug page (package debugview) with its live state, to requests
// addressed to this robot (debugview.CheckHost: others get 421).
func debugMux(reg *prometheus.Registry, board *blackboard.Board, cfg *Config, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	guarded := debugview.CheckHost(mux, cfg.MetricsAddr(), cfg.Metrics.AllowHosts)
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("GET /debug/blackboard", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if err := board.Snapshot().WriteJSON(w); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("GET /debug/entries", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = jsonIndent(w).Encode(board.Entries())
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	view, err := debugview.New(board, reg, debugview.Options{Robot: robotIdentity(cfg), Log: log,
		MaxStreams: cfg.Metrics.MaxStreams, Listen: cfg.MetricsAddr(), AllowHosts: cfg.Metrics.AllowHosts})
	if err != nil {
		log.Error("no debug page", "err", err)
		return guarded
	}
	mux.Handle("/", view)
	return guarded
}

// robotIdentity is who the debug page says the robot is.
func robotIdentity(cfg *Config) debugview.Robot {
	return debugview.Robot{Team: cfg.Robot.TeamNumber, TeamName: cfg.Robot.TeamName, Player: cfg.Robot.Player, Build: buildName}
}

// backendFunc constructs the build's backend.
type backendFunc func(ctx context.Context, cfg *Config, log *slog.Logger) (hal.Device, error)

var _ backendFunc = newBackend
