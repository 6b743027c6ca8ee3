package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/simserver"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestPrintConfig: the defaults are the thesis' experiment, and flags
// change the campaign.
func TestPrintConfig(t *testing.T) {
	dir := t.TempDir()
	balls := filepath.Join(dir, "balls.txt")
	if err := os.WriteFile(balls, []byte("1000 500\n-2000 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, c findball.Config)
		err   string
	}{
		{name: "defaults", check: func(t *testing.T, c findball.Config) {
			if len(c.Balls) != 10 || len(c.Starts) != 3 || c.Trials != 10 || c.Limit.D().Seconds() != 180 || c.FoundDistance != 0.3 ||
				c.ReliableDistance != 2.5 || len(c.Strategies) != 2 || c.Strategies[0].Name != "2016" || c.Strategies[1].Name != "2017" ||
				c.Physics != simserver.PhysicsODE {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{name: "flags", args: []string{"-trials", "3", "-limit", "60s", "-reliable-distance", "3", "-found-distance", "0.25", "-seed", "9",
			"-strategy", "2017", "-strategy", "wide:behaviour.search.strategy=2017;sim.vision.fov_deg=90", "-balls", balls, "-set", "behaviour.walk.speed=0.2"},
			check: func(t *testing.T, c findball.Config) {
				if c.Trials != 3 || c.Limit.D().Seconds() != 60 || c.ReliableDistance != 3 || c.FoundDistance != 0.25 || c.Seed != 9 {
					t.Errorf("flags: %+v", c)
				}
				if len(c.Strategies) != 2 || c.Strategies[1].Name != "wide" || compact(c.Strategies[1].Robot) != `{"behaviour":{"search":{"strategy":"2017"}},"sim":{"vision":{"fov_deg":90}}}` {
					t.Errorf("strategies: %+v", c.Strategies)
				}
				if len(c.Balls) != 2 || c.Balls[0] != (findball.Point{X: 1, Y: 0.5}) {
					t.Errorf("balls: %+v", c.Balls)
				}
				if c.Robot.Behaviour.Walk.Speed != 0.2 || c.Robot.Behaviour.Roles.Period.D().Seconds() != 3.5 {
					t.Errorf("robot: walk speed %v, roles period %v", c.Robot.Behaviour.Walk.Speed, c.Robot.Behaviour.Roles.Period.D())
				}
			}},
		{name: "the spread set at 10% loss, played on", args: []string{"-positions", "spread", "-loss", "0.1", "-play-on", "-strategy", "sweep", "-robots", "2"},
			check: func(t *testing.T, c findball.Config) {
				if len(c.Balls) != 10 || c.Balls[0] != findball.SpreadBalls[0] || len(c.Starts) != 2 || c.Starts[1] != findball.SpreadStarts[1] {
					t.Errorf("positions: %+v %+v", c.Balls, c.Starts)
				}
				if c.Network.Loss != 0.1 || !c.PlayOn || len(c.Strategies) != 1 || c.Strategies[0].Name != "sweep" {
					t.Errorf("loss %v, play on %v, strategies %+v", c.Network.Loss, c.PlayOn, c.Strategies)
				}
			}},
		{name: "physics", args: []string{"-physics", "ode"}, check: func(t *testing.T, c findball.Config) {
			if c.Physics != "ode" {
				t.Errorf("physics %q, want ode", c.Physics)
			}
		}},
		{name: "unknown physics", args: []string{"-physics", "bullet"}, err: "physics"},
		{name: "noise drawn by the robots", args: []string{"-noise", "robot"}, check: func(t *testing.T, c findball.Config) {
			if c.Noise != findball.NoiseRobot {
				t.Errorf("noise %q, want %q", c.Noise, findball.NoiseRobot)
			}
		}},
		{name: "unknown noise", args: []string{"-noise", "loud"}, err: "noise"},
		{name: "simulator seed", args: []string{"-sim-seed", "7"}, check: func(t *testing.T, c findball.Config) {
			if c.SimSeed != 7 || c.Seed != findball.DefaultConfig().Seed {
				t.Errorf("simulator seed %d, seed %d; want 7 and the default", c.SimSeed, c.Seed)
			}
		}},
		{name: "vision in the loop", args: []string{"-vision", "rendered"},
			check: func(t *testing.T, c findball.Config) {
				if c.Robot.Sim.Vision.Source != sim.SourceRendered {
					t.Errorf("vision source %q, want rendered", c.Robot.Sim.Vision.Source)
				}
			}},
		{name: "unknown vision", args: []string{"-vision", "telepathy"}, err: "telepathy"},
		{name: "unknown position set", args: []string{"-positions", "moon"}, err: "spread"},
		{name: "unknown setting", args: []string{"-set", "behaviour.nope=1"}, err: "behaviour.nope"},
		{name: "bad strategy", args: []string{"-strategy", "2019"}, err: "search.strategy"},
		{name: "bad shard", args: []string{"-shard", "2/2"}, err: "shard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"run", "-print-config"}, tc.args...)
			if tc.name == "bad shard" {
				args = append([]string{"run", "-db", filepath.Join(dir, "x.db")}, tc.args...)
			}
			err := run(context.Background(), args, &out, &errb, env(nil))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err, errb.String())
			}
			var c findball.Config
			if err := json.Unmarshal(out.Bytes(), &c); err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
	if err := run(context.Background(), []string{"frobnicate"}, &bytes.Buffer{}, &bytes.Buffer{}, env(nil)); err == nil {
		t.Error("an unknown command was accepted")
	}
}

// TestShardedRun runs a two-trial campaign as two shards of a Kubernetes
// indexed Job would (the shard from the environment), merges their
// databases and reports.
func TestShardedRun(t *testing.T) {
	if simBuild {
		t.Skip("the sharding is the default build's code (kinematic physics in both), whose test run covers this one")
	}
	defer leaktest.Check(t)()
	dir := t.TempDir()
	cfg := findball.DefaultConfig()
	cfg.Physics = simserver.PhysicsKinematic // the plumbing, in every build
	cfg.Starts = cfg.Starts[:1]
	cfg.Balls = []findball.Point{{X: -3.25, Y: 2.2}}
	cfg.Strategies = cfg.Strategies[1:]
	cfg.Trials = 2
	cfg.Limit = config.Duration(5 * time.Second)
	b, err := json.Marshal(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "campaign.json")
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, idx := range []string{"0", "1"} {
		var out, errb bytes.Buffer
		db := filepath.Join(dir, "shard"+idx+".db")
		err := run(ctx, []string{"-config", cfgPath, "-db", db, "-parallel", "1"}, &out, &errb,
			env(map[string]string{"JOB_COMPLETION_INDEX": idx, "JOB_COMPLETIONS": "2"}))
		if err != nil {
			t.Fatal(err, errb.String())
		}
		if want := "holds 1 of the campaign's 2 trials (shard " + idx + "/2 done)"; !strings.Contains(out.String(), want) {
			t.Errorf("shard %d: %q, want %q", i, out.String(), want)
		}
	}
	var out bytes.Buffer
	merged := filepath.Join(dir, "all.db")
	if err := run(ctx, []string{"merge", "-db", merged, filepath.Join(dir, "shard0.db"), filepath.Join(dir, "shard1.db")}, &out, &bytes.Buffer{}, env(nil)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "merged 2 trials (0 already there)") {
		t.Errorf("merge: %q", out.String())
	}
	out.Reset()
	outDir := filepath.Join(dir, "out")
	if err := run(ctx, []string{"report", "-db", merged, "-out", outDir}, &out, &bytes.Buffer{}, env(nil)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| 1 | 2 | 2 | 0 |") || !strings.Contains(out.String(), "2 of 2 trials stored") {
		t.Errorf("report:\n%s", out.String())
	}
	for _, f := range []string{"report.md", "routes-2017.png", "find-times.png", "trials.csv", "samples.csv"} {
		if st, err := os.Stat(filepath.Join(outDir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// The same trials with the sweep, at 10 % loss, in a database of its
	// own, compared with the merged one trial by trial.
	sweepDB := filepath.Join(dir, "sweep.db")
	if err := run(ctx, []string{"-config", cfgPath, "-strategy", "sweep", "-loss", "0.1", "-db", sweepDB, "-out", filepath.Join(dir, "sweep-out"), "-parallel", "1"},
		&bytes.Buffer{}, &bytes.Buffer{}, env(nil)); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(ctx, []string{"report", "-db", merged, "-with", sweepDB, "-out", filepath.Join(dir, "with")}, &out, &bytes.Buffer{}, env(nil)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## sweep against 2017", "(2 pairs,", "team-message loss 0.1", "physics kinematic", "### sweep"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report -with: no %q in\n%s", want, out.String())
		}
	}
	// A strategy name already taken gets its database's name.
	out.Reset()
	if err := run(ctx, []string{"report", "-db", merged, "-with", filepath.Join(dir, "shard0.db"), "-out", filepath.Join(dir, "with2")}, &out, &bytes.Buffer{}, env(nil)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "## 2017@shard0 against 2017") {
		t.Errorf("report -with the same campaign:\n%s", out.String())
	}
	// Other trials do not pair up.
	other := cfg
	other.Trials = 3
	b, _ = json.Marshal(&other)
	otherCfg := filepath.Join(dir, "other.json")
	if err := os.WriteFile(otherCfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	otherDB := filepath.Join(dir, "other.db")
	st, err := findball.Open(ctx, otherDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Begin(ctx, &other); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := run(ctx, []string{"report", "-db", merged, "-with", otherDB, "-out", filepath.Join(dir, "with3")}, &out, &bytes.Buffer{}, env(nil)); err == nil || !strings.Contains(err.Error(), "another set of trials") {
		t.Errorf("other trials: %v", err)
	}
}

// TestHelp: -h, --help and help print the subcommands, one line each, and
// exit 0, as does a subcommand's -h (checked on the real exit status, with
// this test binary as findball).
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, &out, &errb, env(nil)); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		lines := map[string]string{}
		for l := range strings.SplitSeq(out.String(), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "findball" {
				lines[strings.Trim(f[1], "[]")] = l
			}
		}
		for _, cmd := range []string{"run", "submit", "merge", "report", "export"} {
			if lines[cmd] == "" {
				t.Errorf("%v: no line for %s:\n%s", args, cmd, out.String())
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string // in stdout or stderr
	}{
		{[]string{"-h"}, "findball submit -dir D"},
		{[]string{"help"}, "findball merge -db OUT IN..."},
		{[]string{"run", "-h"}, "-trials"},
		{[]string{"submit", "-h"}, "-cpus-per-task"},
		{[]string{"merge", "-h"}, "-db"},
	} {
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), asFindball+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("findball %s: %v\n%s", strings.Join(tc.args, " "), err, out)
		} else if !strings.Contains(string(out), tc.want) {
			t.Errorf("findball %s: no %q in\n%s", strings.Join(tc.args, " "), tc.want, out)
		}
	}
	cmd := exec.Command(os.Args[0], "frobnicate")
	cmd.Env = append(os.Environ(), asFindball+"=1")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "unknown command") {
		t.Errorf("findball frobnicate: %v\n%s", err, out)
	}
}

// TestDatabaseClash: running a campaign on a database of another one
// fails in one short line that says what differs and names the way out.
func TestDatabaseClash(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "findball.db")
	ctx := context.Background()
	st, err := findball.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	cfg := findball.DefaultConfig()
	cfg.Physics = simserver.PhysicsKinematic
	if err := st.Begin(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	st.Close()
	var out, errb bytes.Buffer
	err = run(ctx, []string{"-db", db, "-trials", "2", "-limit", "5s", "-physics", "kinematic"}, &out, &errb, env(nil))
	if !errors.Is(err, findball.ErrOtherCampaign) {
		t.Fatalf("error %v, want the other campaign's", err)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"limit=\"3m0s\" trials=10", "limit=\"5s\" trials=2", "-db other.db", "remove " + db} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") || len(msg) > 150+len(db)*2 {
		t.Errorf("%d characters on %d lines, want one short line: %s", len(msg), strings.Count(msg, "\n")+1, msg)
	}
	// The database is untouched: the old campaign still opens it.
	if err := run(ctx, []string{"-db", db, "-print-config"}, &bytes.Buffer{}, &bytes.Buffer{}, env(nil)); err != nil {
		t.Fatal(err)
	}
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return err.Error()
	}
	return b.String()
}
