// Command match plays games between two robotd teams, each with its own
// configuration (team A: a change, team B: the baseline), on robotd's
// embedded simulator (the physics mode with -tags ode; -physics kinematic
// for the quick kinematic model) or on a running rcssserver3d (-server),
// refereed by a simulated GameController that judges from the
// simulator's ground truth and sends real GameController packets over
// UDP (-layout spl or hsl) to the robots.
//
//	match [run] [flags]              play or resume a campaign, then report
//	match play [flags]               play one game (the campaign's first) and print it
//	match replay -db F -game ID      play a stored game again and compare it byte for byte
//	match merge -db OUT IN...        merge shard databases
//	match submit -dir D [flags]      a campaign as a Slurm job array, then merge and report
//	match report -db F -out D        report.md, goaldiff.png and ball.png of a database
//
// Every game is stored in an SQLite database as it ends; a killed run
// resumes where it stopped. -shard i/n plays every n-th game (by default
// from a Kubernetes indexed Job's or a Slurm job array's environment).
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
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/debugview"
	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/experiments/match"
	"github.com/robotd/robotd/simrun"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "match:", err)
		os.Exit(1)
	}
}

const usage = `match plays games between two robotd teams in the embedded simulator (or on a
SimSpark server), refereed by a simulated GameController over UDP, and stores
every game in an SQLite database as it ends.

Usage:
  match [run] [flags]           play or resume a campaign, then write its report
  match play [flags]            play one game (the campaign's first) and print it
  match replay -db F -game ID   play a stored game again; exit 1 unless it is byte-identical
  match merge -db OUT IN...     merge shard databases into one
  match submit -dir D [flags]   play a campaign as a Slurm job array, follow it, merge and report
  match report -db F -out D     report.md and plots of a database
  match help                    this text

'match COMMAND -h' lists a command's flags.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cmd := "run"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "run", "play":
		return runCampaign(ctx, args, stdout, stderr, getenv, cmd == "play")
	case "replay":
		return replay(ctx, args, stdout, stderr)
	case "merge":
		return merge(ctx, args, stdout, stderr)
	case "submit":
		return submit(ctx, args, stdout, stderr)
	case "report":
		return report(ctx, args, stdout, stderr)
	case "help":
		_, err := io.WriteString(stdout, usage)
		return err
	}
	return fmt.Errorf("unknown command %q (match help lists them)", cmd)
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// campaignFlags are the flags that make a campaign.
type campaignFlags struct {
	cfgPath, a, b, layout, physics *string
	players, seeds                 *int
	seed                           *uint64
	half, ready                    *time.Duration
	printCfg                       *bool
}

func addCampaignFlags(fs *flag.FlagSet) *campaignFlags {
	d := match.DefaultConfig()
	return &campaignFlags{
		cfgPath:  fs.String("config", "", "the campaign as a JSON `file` (match -print-config writes one); the flags below change it"),
		a:        fs.String("a", "", "team A (the change): `name[:key=value;key=value]`, robotd settings over the defaults"),
		b:        fs.String("b", "", "team B (the baseline): `name[:key=value;...]`"),
		layout:   fs.String("layout", "", "the GameController packets' layout: spl or hsl (default "+d.Layout+")"),
		physics:  fs.String("physics", "", "the embedded simulator's world model: ode or kinematic (default "+d.Physics+")"),
		players:  fs.Int("players", 0, fmt.Sprintf("robots per team (default %d)", d.Players)),
		seeds:    fs.Int("seeds", 0, fmt.Sprintf("seeds; each is played twice, each team kicking off first once (default %d)", d.Seeds)),
		seed:     fs.Uint64("seed", 0, "the campaign's seed (default 1)"),
		half:     fs.Duration("half", 0, fmt.Sprintf("a half's playing time (default %v)", d.Half.D())),
		ready:    fs.Duration("ready", 0, fmt.Sprintf("READY's length (default %v)", d.Referee.Ready.D())),
		printCfg: fs.Bool("print-config", false, "print the campaign as JSON and exit"),
	}
}

func (f *campaignFlags) config() (match.Config, error) {
	cfg := match.DefaultConfig()
	if *f.cfgPath != "" {
		if err := config.Load(*f.cfgPath, &cfg); err != nil {
			return cfg, err
		}
	}
	if *f.a != "" {
		t, err := match.ParseTeam(*f.a, cfg.A.Number)
		if err != nil {
			return cfg, err
		}
		cfg.A = t
	}
	if *f.b != "" {
		t, err := match.ParseTeam(*f.b, cfg.B.Number)
		if err != nil {
			return cfg, err
		}
		cfg.B = t
	}
	if *f.layout != "" {
		cfg.Layout = *f.layout
	}
	if *f.physics != "" {
		cfg.Physics = *f.physics
	}
	if *f.players > 0 {
		cfg.Players = *f.players
	}
	if *f.seeds > 0 {
		cfg.Seeds = *f.seeds
	}
	if *f.seed > 0 {
		cfg.Seed = *f.seed
	}
	if *f.half > 0 {
		cfg.Half = config.Duration(*f.half)
	}
	if *f.ready > 0 {
		cfg.Referee.Ready = config.Duration(*f.ready)
	}
	return cfg, cfg.Validate()
}

// runFlags are how games run.
type runFlags struct {
	server  *string
	verbose *bool
	stall   *time.Duration
	retries *int
	view    *string
}

func addRunFlags(fs *flag.FlagSet) *runFlags {
	return &runFlags{
		server:  fs.String("server", "", "play on a running SimSpark server: `agent-host:port,trainer-host:port` (default $"+simrun.EnvVar+"; unset: the embedded simulator)"),
		verbose: fs.Bool("v", false, "log the simulators' and the robots' warnings"),
		stall:   fs.Duration("stall", time.Minute, "a game whose world does not reach the referee's next look within this wall time is void and played again"),
		retries: fs.Int("retries", 2, "how often a void or failed game is played again before the run stops (-1 never); running again resumes"),
		view:    fs.String("view", "", "serve the game being played (both teams, the ball, the game state, the score) on this `host:port`, e.g. 127.0.0.1:10100"),
	}
}

func (f *runFlags) target(getenv func(string) string) (*simrun.Target, error) {
	s := *f.server
	if s == "" {
		s = getenv(simrun.EnvVar)
	}
	if s == "" {
		return nil, nil
	}
	t, err := simrun.ParseTarget(s)
	return &t, err
}

func (f *runFlags) simLog(stderr io.Writer) *slog.Logger {
	if *f.verbose {
		return newLogger(stderr, slog.LevelWarn)
	}
	return nil
}

// runCampaign plays a campaign (run), or its first game only (play:
// one), and reports.
func runCampaign(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string, one bool) error {
	name, dbDefault := "run", "match.db"
	if one {
		name, dbDefault = "play", "match-play.db"
	}
	fs := flag.NewFlagSet("match "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cf := addCampaignFlags(fs)
	rf := addRunFlags(fs)
	db := fs.String("db", dbDefault, "the SQLite `database` games are stored in (resumed if it exists)")
	var out, shardS *string
	var parallel *int
	if !one {
		out = fs.String("out", "match-report", "the report's `directory`")
		parallel = fs.Int("parallel", max(1, runtime.NumCPU()/2), "games played at once")
		shardS = fs.String("shard", "", "play every n-th game: `i/n` (default from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID)")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := cf.config()
	if err != nil {
		return err
	}
	if *cf.printCfg {
		b, err := cfg.Encode()
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	opt := match.Options{Shard: findball.All, Parallel: 1, Stall: *rf.stall, Retries: *rf.retries, Log: newLogger(stderr, slog.LevelInfo), SimLog: rf.simLog(stderr)}
	games := cfg.Plan()
	var res *match.Result
	if one {
		cfg.Seeds, games = 1, games[:1]
		opt.Progress = func(r *match.Result, _, _ int) { res = r }
	} else {
		opt.Parallel = *parallel
		if *shardS != "" {
			if opt.Shard, err = findball.ParseShard(*shardS); err != nil {
				return err
			}
		} else if s, ok, err := findball.ShardFromEnv(getenv); err != nil {
			return err
		} else if ok {
			opt.Shard = s
		}
	}
	if opt.Target, err = rf.target(getenv); err != nil {
		return err
	}
	if *rf.view != "" {
		opt.View = new(match.View)
		stop, err := serveView(*rf.view, opt.View, stdout)
		if err != nil {
			return err
		}
		defer stop()
	}
	st, err := match.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	sum, err := match.RunGames(ctx, &cfg, st, games, opt)
	if err != nil {
		return err
	}
	if one {
		if res == nil {
			_, err := fmt.Fprintf(stdout, "game %s is stored in %s already\n", games[0].ID(), *db)
			return err
		}
		fmt.Fprintf(stdout, "game %s: A %d : %d B in %v of simulation (wall %v); goals %v\n", res.ID(), res.Score[0], res.Score[1],
			res.Length, res.Wall.Round(time.Second), res.Goals)
		return match.Report(stdout, &cfg, []match.Result{*res})
	}
	fmt.Fprintf(stdout, "played %d games (%d stored before, %d void and played again) of shard %s in %v\n",
		sum.Ran, sum.Skipped, sum.Void, opt.Shard, sum.Wall.Round(time.Second))
	files, err := match.Outputs(ctx, st, *out)
	if err != nil {
		return err
	}
	return printFiles(stdout, files)
}

// serveView serves the game's page on addr until stop.
func serveView(addr string, v *match.View, stdout io.Writer) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("the game's page: %w", err)
	}
	srv := &http.Server{Handler: debugview.CheckHost(v, addr, nil), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	fmt.Fprintf(stdout, "the game: http://%s/\n", ln.Addr())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

func printFiles(w io.Writer, files []string) error {
	for _, f := range files {
		if _, err := fmt.Fprintln(w, "wrote", f); err != nil {
			return err
		}
	}
	return nil
}

// withStore parses a subcommand's flags (-db with what more flags
// declares) and runs do on the opened database.
func withStore(ctx context.Context, name, dbDefault string, args []string, stderr io.Writer, flags func(*flag.FlagSet), do func(*match.Store, *flag.FlagSet) error) error {
	fs := flag.NewFlagSet("match "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", dbDefault, "the campaign's SQLite `database`")
	flags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	st, err := match.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	return do(st, fs)
}

func replay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var game *string
	return withStore(ctx, "replay", "match.db", args, stderr, func(fs *flag.FlagSet) {
		game = fs.String("game", "", "the game's `id` (e.g. 001-a)")
	}, func(st *match.Store, _ *flag.FlagSet) error {
		r, same, err := match.Replay(ctx, st, *game, newLogger(stderr, slog.LevelInfo), nil)
		if err != nil {
			return err
		}
		if !same {
			return fmt.Errorf("game %s replayed differently: now A %d : %d B", *game, r.Score[0], r.Score[1])
		}
		_, err = fmt.Fprintf(stdout, "game %s replayed byte-identical: A %d : %d B, %d samples\n", *game, r.Score[0], r.Score[1], len(r.Samples))
		return err
	})
}

func merge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return withStore(ctx, "merge", "match.db", args, stderr, func(*flag.FlagSet) {}, func(st *match.Store, fs *flag.FlagSet) error {
		n, err := st.Merge(ctx, fs.Args()...)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "merged %d games from %d databases into %s\n", n, fs.NArg(), st.Path())
		return err
	})
}

func report(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var out *string
	return withStore(ctx, "report", "match.db", args, stderr, func(fs *flag.FlagSet) {
		out = fs.String("out", "match-report", "the report's `directory`")
	}, func(st *match.Store, _ *flag.FlagSet) error {
		files, err := match.Outputs(ctx, st, *out)
		if err != nil {
			return err
		}
		return printFiles(stdout, files)
	})
}
