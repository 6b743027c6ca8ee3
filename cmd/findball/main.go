// Command findball runs the find-ball experiment of Collette's thesis (the rUNSWift
// thesis, §3.2.6 and chapter 5): robots start penalised at table 5.1's
// positions, the ball is placed at one of table 5.2's positions, the
// robots are unpenalised, and the time until one of them sees the ball
// from within 300 mm is measured, up to 180 s; ten trials per position,
// for each search strategy. The robots are in-process robotd instances
// (the daemon's modules) on robotd's embedded simulator in sync mode, one
// simulator per trial, in its physics mode (build with -tags ode; -physics
// kinematic for the quick kinematic model), or on a running rcssserver3d
// named with -server.
//
//	findball [run] [flags]          run or resume a campaign, then report
//	findball report -db F -out D    tables, comparison, plots and CSV of a database
//	                                (-with G: compare with another campaign over the same trials)
//	findball merge -db OUT IN...    merge shard databases
//	findball export -db F -out D    trials.csv and samples.csv only
//	findball submit -dir D [flags]  run a campaign as a Slurm job array, then merge and report
//	findball submit -k8s [flags]    print the campaign as a Kubernetes indexed Job
//	findball help                   the subcommands
//
// -positions spread runs robotd's own ten positions and starts instead of
// the thesis'; -loss loses team messages; -play-on plays every trial to
// the limit (the role scenario). The report adds each strategy's team
// play: the first striker, role switches per minute, idling.
//
// Every trial is stored in an SQLite database as it ends; a killed run
// resumes where it stopped. -shard i/n runs every n-th trial (by default
// from a Kubernetes indexed Job's or a Slurm job array's environment).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/simrun"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		// -h asked for the flags, which the flag set printed.
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "findball:", err)
		os.Exit(1)
	}
}

const usage = `findball runs the find-ball experiment: robots on the embedded simulator (or a
SimSpark server) search for a ball, trial by trial, for each search strategy,
and every trial is stored in an SQLite database as it ends.

Usage:
  findball [run] [flags]          run or resume a campaign, then write its report
  findball submit -dir D [flags]  run a campaign as a Slurm job array, follow it, merge and report (-k8s: print a Kubernetes indexed Job)
  findball merge -db OUT IN...    merge shard databases into one
  findball report -db F -out D    tables, comparison, plots and CSV of a database
  findball export -db F -out D    trials.csv and samples.csv of a database
  findball help                   this text

'findball COMMAND -h' lists a command's flags.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cmd := "run"
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			_, err := io.WriteString(stdout, usage)
			return err
		}
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "run":
		return runCampaign(ctx, args, stdout, stderr, getenv)
	case "submit":
		return submit(ctx, args, stdout, stderr)
	case "report", "export":
		return report(ctx, cmd, args, stdout, stderr)
	case "merge":
		return merge(ctx, args, stdout, stderr)
	}
	return fmt.Errorf("unknown command %q: want run, submit, report, merge, export or help", cmd)
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// flagSet reports whether the flag name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseServers parses SimSpark servers, "agent-host:port,trainer-host:port"
// each, separated by ';' in a value (empty entries are skipped); from says
// where the values came from, for the errors. Every server needs ports of
// its own: a port that two entries name (or one names twice) on the same
// host is refused.
func parseServers(from string, values []string) ([]simrun.Target, error) {
	type use struct {
		server int
		role   string
	}
	used := map[string]use{}
	var targets []simrun.Target
	for _, v := range values {
		for entry := range strings.SplitSeq(v, ";") {
			if strings.TrimSpace(entry) == "" {
				continue
			}
			n := len(targets) + 1
			t, err := simrun.ParseTarget(entry)
			if err != nil {
				return nil, fmt.Errorf("%s: server %d (%q): %w", from, n, entry, err)
			}
			for _, a := range []struct{ role, addr string }{{"agent", t.Agent}, {"trainer", t.Trainer}} {
				host, port, err := net.SplitHostPort(a.addr)
				if err != nil {
					return nil, fmt.Errorf("%s: server %d (%q): %s address: %w", from, n, entry, a.role, err)
				}
				if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
					return nil, fmt.Errorf("%s: server %d (%q): %s port %q is not a port number (1 to 65535)", from, n, entry, a.role, port)
				}
				key := net.JoinHostPort(hostKey(host), port)
				if u, ok := used[key]; ok {
					return nil, fmt.Errorf("%s: server %d (%q): its %s port %s is server %d's %s port too; every server needs ports of its own",
						from, n, entry, a.role, a.addr, u.server, u.role)
				}
				used[key] = use{n, a.role}
			}
			targets = append(targets, t)
		}
	}
	return targets, nil
}

// hostKey is the host by which parseServers compares ports: every name
// of this machine's loopback is one.
func hostKey(host string) string {
	h := strings.ToLower(host)
	if h == "" || h == "localhost" {
		return "loopback"
	}
	if ip := net.ParseIP(h); ip != nil {
		if ip.IsLoopback() {
			return "loopback"
		}
		return ip.String()
	}
	return h
}

// lockedWriter serialises the writes of several loggers to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// campaignFlags are the flags that make a campaign, shared by run and
// submit.
type campaignFlags struct {
	fs                       *flag.FlagSet
	cfgPath, balls, posSet   *string
	loss                     *float64
	playOn                   *bool
	printCfg                 *bool
	strategies, sets         listFlag
	robots, trials           *int
	limit, penalised, sample *time.Duration
	found, reliable          *float64
	seed, simSeed            *uint64
	physics, noise           *string
	vision                   *string
}

func addCampaignFlags(fs *flag.FlagSet) *campaignFlags {
	f := &campaignFlags{fs: fs}
	f.cfgPath = fs.String("config", "", "a campaign configuration file (JSON, as -print-config writes), over the defaults")
	f.printCfg = fs.Bool("print-config", false, "print the campaign configuration (defaults, file and flags) and exit")
	fs.Var(&f.strategies, "strategy", "a strategy, `name[:key=value;...]` (repeatable; replaces the default 2016 and 2017); without settings the name is behaviour.search.strategy")
	fs.Var(&f.sets, "set", "change every robot's configuration, `key=value` with robotd's dotted keys (repeatable, over the campaign's robot section)")
	f.posSet = fs.String("positions", "", "a named set of ball positions and robot starts: thesis (tables 5.2 and 5.1, the default) or spread (robotd's ten, over the whole field)")
	f.loss = fs.Float64("loss", 0, "team-message loss, the probability that a message is lost per receiver (default 0)")
	f.playOn = fs.Bool("play-on", false, "run every trial to the limit, the robots playing on after the find (the role scenario)")
	f.robots = fs.Int("robots", 0, "use the first `n` robots of the position set's starts (default 3; 1: robot 2 alone, as the thesis' single-robot runs)")
	f.balls = fs.String("balls", "", "a file of ball positions, one `x y` per line (mm, or m), instead of thesis table 5.2")
	f.trials = fs.Int("trials", 0, "trials per ball position and strategy (default 10)")
	f.limit = fs.Duration("limit", 0, "time limit of a trial, simulation time (default 3m0s)")
	f.found = fs.Float64("found-distance", 0, "found when a robot sees the ball within this distance, m (default 0.3)")
	f.reliable = fs.Float64("reliable-distance", 0, "the reliable ball detection distance, m (default 2.5)")
	f.penalised = fs.Duration("penalised", 0, "how long, at least, the robots stand penalised before each trial, simulation time (default 3s; play starts at the next multiple of the role allocation period)")
	f.sample = fs.Duration("sample", 0, "trajectory sampling interval (default 500ms)")
	f.seed = fs.Uint64("seed", 0, "the campaign's seed (default 1)")
	f.simSeed = fs.Uint64("sim-seed", 0, "mixed into each trial's embedded simulator seed (its vision noise) and nothing else: a campaign that differs from another only in it measures the noise floor of a paired comparison (default 0: none)")
	f.noise = fs.String("noise", "", "who draws the vision noise: server (the simulator, the default) or robot (each robot, seeded by the trial: the same noise on two simulators, so a paired comparison shows their own differences; the embedded simulator then adds none, and an attached server must run with its vision noise off)")
	f.physics = fs.String("physics", "", "the embedded simulator's world model: ode (the default: rcssserver3d's dynamics; a build with -tags ode) or kinematic (quick, but its find rates and times differ from the physics mode's: it judges no strategy)")
	f.vision = fs.String("vision", "", "where the robots' vision comes from: server (the simulator's detected observations, the default) or rendered (camera images rendered from the scene, seen through robotd's own vision pipeline); the same as -set sim.vision.source=…")
	return f
}

// config builds the campaign from the defaults, the -config file and the
// flags given (after Parse).
func (f *campaignFlags) config() (findball.Config, error) {
	cfg := findball.DefaultConfig()
	if *f.cfgPath != "" {
		if err := config.Load(*f.cfgPath, &cfg); err != nil {
			return cfg, err
		}
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for _, kv := range f.sets {
		if err := config.Set(&cfg.Robot, kv, findball.DefaultRobotConfig); err != nil {
			return cfg, fmt.Errorf("-set %s: %w", kv, err)
		}
	}
	if len(f.strategies) > 0 {
		cfg.Strategies = nil
		for _, s := range f.strategies {
			st, err := cfg.ParseStrategy(s)
			if err != nil {
				return cfg, err
			}
			cfg.Strategies = append(cfg.Strategies, st)
		}
	}
	if set["vision"] {
		switch *f.vision {
		case "server", "rendered":
			if err := config.Set(&cfg.Robot, "sim.vision.source="+*f.vision, findball.DefaultRobotConfig); err != nil {
				return cfg, fmt.Errorf("-vision %s: %w", *f.vision, err)
			}
		default:
			return cfg, fmt.Errorf("-vision %q: want server or rendered", *f.vision)
		}
	}
	if set["positions"] {
		ps, err := findball.LookupPositions(*f.posSet)
		if err != nil {
			return cfg, err
		}
		cfg.Balls = append([]findball.Point(nil), ps.Balls...)
		cfg.Starts = append([]findball.Start(nil), ps.Starts...)
	}
	if set["loss"] {
		cfg.Network.Loss = *f.loss
	}
	if set["play-on"] {
		cfg.PlayOn = *f.playOn
	}
	if *f.balls != "" {
		pts, err := findball.LoadBalls(*f.balls)
		if err != nil {
			return cfg, err
		}
		cfg.Balls = pts
	}
	if set["robots"] {
		if *f.robots < 1 || *f.robots > len(cfg.Starts) {
			return cfg, fmt.Errorf("-robots %d: want 1 to %d", *f.robots, len(cfg.Starts))
		}
		cfg.Starts = cfg.Starts[:*f.robots]
	}
	if set["trials"] {
		cfg.Trials = *f.trials
	}
	if set["limit"] {
		cfg.Limit = config.Duration(*f.limit)
	}
	if set["found-distance"] {
		cfg.FoundDistance = *f.found
	}
	if set["reliable-distance"] {
		cfg.ReliableDistance = *f.reliable
	}
	if set["penalised"] {
		cfg.Penalised = config.Duration(*f.penalised)
	}
	if set["sample"] {
		cfg.Sample = config.Duration(*f.sample)
	}
	if set["seed"] {
		cfg.Seed = *f.seed
	}
	if set["physics"] {
		cfg.Physics = *f.physics
	}
	if set["noise"] {
		cfg.Noise = *f.noise
	}
	if set["sim-seed"] {
		cfg.SimSeed = *f.simSeed
	}
	return cfg, cfg.Validate()
}

// printConfig writes the campaign as -print-config shows it.
func printConfig(stdout io.Writer, cfg *findball.Config) error {
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

func runCampaign(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("findball run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "findball.db", "the campaign's SQLite database (created, or resumed)")
	out := fs.String("out", "findball-out", "where the report, plots and CSV go once the whole campaign is stored")
	cf := addCampaignFlags(fs)
	shardFlag := fs.String("shard", "", "run shard `i/n` of the campaign (default: JOB_COMPLETION_INDEX with JOB_COMPLETIONS, or SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT; else all)")
	// A trial's simulator and robots wait on each other every cycle, so one
	// trial more than there are cores keeps the cores busy.
	parallel := fs.Int("parallel", runtime.NumCPU()+1, "trials at once, each on its own embedded simulator (with -server: one on each server)")
	var servers listFlag
	fs.Var(&servers, "server", "run the trials on running SimSpark servers in sync mode, one trial at a time on each: `agent-host:port,trainer-host:port[;...]`, servers separated by ';' (repeatable; default $"+simrun.EnvVar+", read alike; empty: the embedded simulator)")
	verbose := fs.Bool("v", false, "log the simulators' and robots' information messages too")
	stallTicks := fs.Int("stall-ticks", 0, "the most ticks a robot may make without the simulator after it first answered (a stall) in a trial that counts; a trial with more is void, run once more and never stored as a result (default 5; -1 no limit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("run: unexpected argument %q", fs.Arg(0))
	}
	cfg, err := cf.config()
	if err != nil {
		return err
	}
	if *cf.printCfg {
		return printConfig(stdout, &cfg)
	}
	shard := findball.All
	if *shardFlag != "" {
		s, err := findball.ParseShard(*shardFlag)
		if err != nil {
			return err
		}
		shard = s
	} else if s, ok, err := findball.ShardFromEnv(getenv); err != nil {
		return err
	} else if ok {
		shard = s
	}
	from, values := "-server", []string(servers)
	if !flagSet(fs, "server") {
		from, values = "$"+simrun.EnvVar, []string{getenv(simrun.EnvVar)}
	}
	targets, err := parseServers(from, values)
	if err != nil {
		return err
	}
	// The campaign's and the simulators' loggers write from several
	// goroutines: one lock for the writer they share.
	stderr = &lockedWriter{w: stderr}
	log := newLogger(stderr, slog.LevelInfo)
	simLevel := slog.LevelWarn
	if *verbose {
		simLevel = slog.LevelInfo
	}
	st, err := findball.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	where, par := "the embedded simulator", *parallel
	if len(targets) > 0 {
		var names []string
		for _, t := range targets {
			names = append(names, t.Agent+","+t.Trainer)
		}
		where, par = fmt.Sprintf("%d servers: %s", len(targets), strings.Join(names, "; ")), len(targets)
	}
	log.Info("findball", "db", *db, "shard", shard.String(), "parallel", par, "simulator", where)
	sum, err := findball.Run(ctx, &cfg, st, findball.Options{Shard: shard, Parallel: *parallel, Targets: targets,
		StallTicks: *stallTicks, Log: log, SimLog: newLogger(stderr, simLevel)})
	for _, ss := range sum.Servers {
		args := []any{"server", ss.Target.Agent + "," + ss.Target.Trainer, "ran", ss.Ran, "voided", ss.Voided}
		if ss.Err != nil {
			args = append(args, "left_out", ss.Err)
		}
		log.Info("server", args...)
	}
	log.Info("run ended", "planned", sum.Planned, "already_stored", sum.Skipped, "ran", sum.Ran, "voided", sum.Voided, "wall", sum.Wall.Round(time.Millisecond))
	if errors.Is(err, findball.ErrOtherCampaign) {
		return fmt.Errorf("%w; use -db other.db, or remove %s to start over", err, *db)
	}
	if err != nil {
		return err
	}
	done, err := st.Done(ctx)
	if err != nil {
		return err
	}
	if total := len(cfg.Plan()); len(done) < total {
		fmt.Fprintf(stdout, "%s holds %d of the campaign's %d trials (shard %s done); merge the shards' databases with `findball merge`, then `findball report`.\n",
			*db, len(done), total, shard)
		return nil
	}
	files, err := findball.Outputs(ctx, st, *out)
	if err != nil {
		return err
	}
	return printOutputs(stdout, files)
}

func printOutputs(stdout io.Writer, files []string) error {
	for _, f := range files {
		if strings.HasSuffix(f, "report.md") {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if _, err := stdout.Write(b); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintf(stdout, "\nwrote %s\n", strings.Join(files, ", "))
	return err
}

func report(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("findball "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "findball.db", "the campaign's database")
	out := fs.String("out", "findball-out", "where the files go")
	var with listFlag
	if cmd == "report" {
		fs.Var(&with, "with", "also compare the strategies of another campaign's `database` with the same positions, starts, trials and seed (repeatable; report.md only)")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(*db); err != nil {
		return err
	}
	st, err := findball.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if len(with) > 0 {
		return reportWith(ctx, st, with, *out, stdout)
	}
	if cmd == "export" {
		if err := findball.ExportCSV(ctx, st, *out); err != nil {
			return err
		}
		_, err := fmt.Fprintf(stdout, "wrote %s/trials.csv, %s/samples.csv\n", *out, *out)
		return err
	}
	files, err := findball.Outputs(ctx, st, *out)
	if err != nil {
		return err
	}
	return printOutputs(stdout, files)
}

// reportWith writes one report.md over the campaign in st and the
// campaigns in the databases with: the same positions, starts, trials and
// seed (so the trials pair up), each strategy named as in its campaign
// (a name already taken gets "@" and its database's file name).
func reportWith(ctx context.Context, st *findball.Store, with []string, out string, stdout io.Writer) error {
	cfg, ok, err := st.Campaign(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s holds no campaign", st.Path())
	}
	results, err := st.Results(ctx)
	if err != nil {
		return err
	}
	voided, err := st.Voided(ctx)
	if err != nil {
		return err
	}
	var notes []string
	note := func(path string, c *findball.Config) {
		physics := c.Physics
		if physics == "" {
			physics = "kinematic"
		}
		robot, _, err := c.Robot.Hash()
		if err != nil {
			robot = err.Error()
		}
		noise := c.Noise
		if noise == "" {
			noise = findball.NoiseServer
		}
		notes = append(notes, fmt.Sprintf("%s: strategies %v, team-message loss %g, play on %v, robot configuration %s, physics %s, vision noise drawn by the %s", path, names(c.Strategies), c.Network.Loss, c.PlayOn, robot, physics, noise))
	}
	note(st.Path(), &cfg)
	for _, path := range with {
		o, err := findball.Open(ctx, path)
		if err != nil {
			return err
		}
		oc, ok, err := o.Campaign(ctx)
		if err == nil && !ok {
			err = fmt.Errorf("%s holds no campaign", path)
		}
		var rs []findball.Result
		if err == nil {
			rs, err = o.Results(ctx)
		}
		if err == nil {
			var v int
			v, err = o.Voided(ctx)
			voided += v
		}
		o.Close()
		if err != nil {
			return err
		}
		if !slices.Equal(oc.Balls, cfg.Balls) || !slices.Equal(oc.Starts, cfg.Starts) || oc.Trials != cfg.Trials || oc.Seed != cfg.Seed || oc.Limit != cfg.Limit {
			return fmt.Errorf("%s: another set of trials (positions, starts, trials, seed or limit differ from %s's)", path, st.Path())
		}
		note(path, &oc)
		rename := map[string]string{}
		for _, s := range oc.Strategies {
			n := s.Name
			if _, taken := cfg.Strategy(n); taken {
				n += "@" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
			}
			rename[s.Name] = n
			s.Name = n
			cfg.Strategies = append(cfg.Strategies, s)
		}
		for _, r := range rs {
			r.Strategy = rename[r.Strategy]
			results = append(results, r)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("Campaigns compared:\n\n")
	for _, n := range notes {
		b.WriteString("- " + n + "\n")
	}
	b.WriteString("\n")
	if err := findball.ReportStored(&b, &cfg, results, voided); err != nil {
		return err
	}
	path := filepath.Join(out, "report.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\nwrote %s\n", b.String(), path)
	return err
}

func names(ss []findball.Strategy) []string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	return n
}

func merge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("findball merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "findball.db", "the database to merge into (created if missing)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("merge: name the shard databases to merge")
	}
	st, err := findball.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	ms, err := st.Merge(ctx, fs.Args()...)
	if err != nil {
		return err
	}
	done, err := st.Done(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "merged %d trials (%d already there) into %s, which holds %d trials\n", ms.Trials, ms.Duplicates, *db, len(done))
	return err
}
