package findball

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/simserver/ode"
)

// Environment of the helper process testKillAndResume starts: the
// database and the campaign (JSON).
const (
	helperDB     = "EXPERIMENT_TEST_HELPER_DB"
	helperConfig = "EXPERIMENT_TEST_HELPER_CONFIG"
)

func TestMain(m *testing.M) {
	if db := os.Getenv(helperDB); db != "" {
		os.Exit(helperCampaign(db, os.Getenv(helperConfig)))
	}
	os.Exit(m.Run())
}

// helperCampaign runs a campaign in this process until it ends (or the
// test kills it).
func helperCampaign(db, cfgJSON string) int {
	var cfg Config
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx := context.Background()
	st, err := Open(ctx, db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer st.Close()
	if _, err := Run(ctx, &cfg, st, Options{Parallel: 1}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// quickConfig is a small campaign: the first robots of table 5.1; a ball
// 0.8 m in front of robot 2 (found within seconds) and, unless one is
// enough, one in the far corner (not found before the short limit).
func quickConfig(robots, positions int) Config {
	cfg := DefaultConfig()
	cfg.Physics = simserver.PhysicsKinematic // the plumbing, in every build
	cfg.Starts = append([]Start(nil), ThesisStarts[:robots]...)
	cfg.Balls = []Point{{-3.25, 2.2}, {4, -2.5}, {-3, 2.2}}[:positions]
	cfg.Trials = 1
	cfg.Limit = config.Duration(5 * time.Second)
	cfg.Penalised = config.Duration(500 * time.Millisecond)
	return cfg
}

// dump returns a database's trials (every column but the wall time, the
// shard and when it was stored) and samples, one line each, sorted.
func dump(t *testing.T, st *Store) (trials, samples []string) {
	t.Helper()
	rows, err := st.db.Query(`SELECT id, idx, strategy, position, ball_x, ball_y, rep, seed, config_hash, config,
		found, time_ms, finder, falls, start_ms, samples FROM trials ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	trials = scanAll(t, rows.Next, rows.Scan, rows.Err, 16)
	rows.Close()
	rows, err = st.db.Query(`SELECT trial, player, t_ms, x, y, heading, seen, fallen FROM samples ORDER BY trial, player, t_ms`)
	if err != nil {
		t.Fatal(err)
	}
	samples = scanAll(t, rows.Next, rows.Scan, rows.Err, 8)
	rows.Close()
	return trials, samples
}

func scanAll(t *testing.T, next func() bool, scan func(...any) error, errf func() error, n int) []string {
	t.Helper()
	var out []string
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for next() {
		if err := scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := errf(); err != nil {
		t.Fatal(err)
	}
	return out
}

// consistent checks that every stored trial has all its samples and no
// sample is without its trial.
func consistent(t *testing.T, st *Store) {
	t.Helper()
	var bad, orphans int
	if err := st.db.QueryRow(`SELECT count(*) FROM trials t WHERE t.samples != (SELECT count(*) FROM samples s WHERE s.trial = t.id)`).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRow(`SELECT count(*) FROM samples WHERE trial NOT IN (SELECT id FROM trials)`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	var check string
	if err := st.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil {
		t.Fatal(err)
	}
	if bad != 0 || orphans != 0 || check != "ok" {
		t.Errorf("%d trials with missing samples, %d samples without a trial, integrity %q", bad, orphans, check)
	}
}

// TestCampaigns runs the campaign tests side by side, and checks for
// leaked goroutines once both are done.
func TestCampaigns(t *testing.T) {
	defer leaktest.Check(t)()
	t.Run("group", func(t *testing.T) {
		t.Run("KillAndResume", testKillAndResume)
		t.Run("ShardsMerge", testShardsMerge)
		t.Run("RobotNoise", testRobotNoise)
	})
}

// testKillAndResume is done-when 3: a campaign runs in another process,
// which is killed (SIGKILL) once it has stored a trial, in the middle of
// the next; rerunning the campaign on the database runs only the trials
// that are missing, and the database ends with exactly the campaign's
// trials, each complete.
func testKillAndResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := quickConfig(1, 3)
	planned := len(cfg.Plan())
	db := filepath.Join(t.TempDir(), "killed.db")
	b, err := json.Marshal(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperDB+"="+db, helperConfig+"="+string(b))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Wait until the campaign has stored a trial, then kill it.
	var seen int
	tk := time.NewTicker(5 * time.Millisecond)
	for seen < 1 {
		select {
		case err := <-exited:
			tk.Stop()
			t.Fatalf("the campaign ended before it was killed (%v): %s", err, stderr.String())
		case <-tk.C:
		}
		if _, err := os.Stat(db); err != nil {
			continue
		}
		st, err := Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		done, err := st.Done(ctx)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		seen = len(done)
	}
	tk.Stop()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	err = <-exited
	if ws, ok := cmd.ProcessState.Sys().(interface{ Signaled() bool }); !ok || !ws.Signaled() {
		t.Fatalf("the campaign was not killed by a signal: %v (%s)", err, stderr.String())
	}

	st, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	done, err := st.Done(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept := len(done)
	if kept < seen || kept >= planned {
		t.Fatalf("after the kill the database holds %d trials (%d seen before it, %d planned)", kept, seen, planned)
	}
	consistent(t, st)
	t.Logf("killed with %d of %d trials stored", kept, planned)

	sum, err := Run(ctx, &cfg, st, Options{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Planned != planned || sum.Skipped != kept || sum.Ran != planned-kept {
		t.Errorf("resumed run: %+v; want %d planned, %d skipped, %d run", sum, planned, kept, planned-kept)
	}
	done, err = st.Done(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != planned {
		t.Errorf("the database holds %d trials, want exactly %d", len(done), planned)
	}
	for _, tr := range cfg.Plan() {
		if !done[tr.ID()] {
			t.Errorf("trial %s missing", tr.ID())
		}
	}
	consistent(t, st)
	// Another run finds nothing to do.
	sum, err = Run(ctx, &cfg, st, Options{Parallel: 2})
	if err != nil || sum.Ran != 0 || sum.Skipped != planned {
		t.Errorf("third run: %+v, %v", sum, err)
	}
	// A different campaign is refused.
	other := cfg
	other.Trials = 2
	if _, err := Run(ctx, &other, st, Options{}); err == nil || !strings.Contains(err.Error(), "another campaign") {
		t.Errorf("another campaign on the same database: %v", err)
	}
}

// testShardsMerge is done-when 5: shards 0/2 and 1/2, each in its own
// database, merged, equal the unsharded campaign with the same seeds:
// every trial's outcome and every trajectory sample. With two robots, a
// ball that is found and one that is not, both strategies.
func testShardsMerge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := quickConfig(2, 2)
	dir := t.TempDir()
	var stores []*Store
	defer func() {
		for _, st := range stores {
			st.Close()
		}
	}()
	run := func(name string, shard Shard) *Store {
		st, err := Open(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, st)
		sum, err := Run(ctx, &cfg, st, Options{Shard: shard, Parallel: 2, Log: testLog(t)})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Ran != sum.Planned || sum.Skipped != 0 {
			t.Fatalf("%s: %+v", name, sum)
		}
		return st
	}
	whole := run("whole.db", All)
	s0 := run("shard0.db", Shard{0, 2})
	s1 := run("shard1.db", Shard{1, 2})
	for i, st := range []*Store{s0, s1} {
		rs, err := st.Results(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 2 {
			t.Errorf("shard %d/2 holds %d trials, want 2", i, len(rs))
		}
		for _, r := range rs {
			if r.Index%2 != i {
				t.Errorf("shard %d/2 ran trial %s (index %d)", i, r.ID(), r.Index)
			}
		}
	}
	merged, err := Open(ctx, filepath.Join(dir, "merged.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer merged.Close()
	ms, err := merged.Merge(ctx, s0.Path(), s1.Path())
	if err != nil {
		t.Fatal(err)
	}
	if ms.Trials != 4 || ms.Duplicates != 0 {
		t.Errorf("merge: %+v", ms)
	}
	// Merging a shard again changes nothing.
	if ms, err := merged.Merge(ctx, s0.Path()); err != nil || ms.Trials != 0 || ms.Duplicates != 2 {
		t.Errorf("merging a shard twice: %+v, %v", ms, err)
	}
	wt, ws := dump(t, whole)
	mt, msm := dump(t, merged)
	if len(wt) != 4 || len(ws) == 0 {
		t.Fatalf("the unsharded campaign stored %d trials, %d samples", len(wt), len(ws))
	}
	if strings.Join(wt, "\n") != strings.Join(mt, "\n") {
		t.Errorf("trials differ:\nunsharded:\n%s\nmerged:\n%s", strings.Join(wt, "\n"), strings.Join(mt, "\n"))
	}
	if len(ws) != len(msm) {
		t.Errorf("%d samples unsharded, %d merged", len(ws), len(msm))
	} else {
		for i := range ws {
			if ws[i] != msm[i] {
				t.Errorf("sample %d differs:\n unsharded %s\n    merged %s", i, ws[i], msm[i])
				break
			}
		}
	}
	consistent(t, merged)
	rs, err := merged.Results(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, r := range rs {
		t.Logf("%s: found %v after %v by %d", r.ID(), r.Found, r.Time, r.Finder)
		if r.Found {
			found++
			if r.Position != 1 || r.Finder != 2 || r.Time <= 0 || r.Time > cfg.Limit.D() {
				t.Errorf("%s: found after %v by %d", r.ID(), r.Time, r.Finder)
			}
		} else if r.Time != cfg.Limit.D() {
			t.Errorf("%s: not found, time %v", r.ID(), r.Time)
		}
	}
	if found != 2 {
		t.Errorf("%d trials found the ball, want the 2 with the ball in front of robot 2", found)
	}

	// The merged campaign's outputs: the report, the CSV, and route
	// plots that show the field with the robots' routes.
	files, err := Outputs(ctx, merged, filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 6 {
		t.Errorf("outputs: %v", files)
	}
	report, err := os.ReadFile(filepath.Join(dir, "out", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Strategy 2016", "## 2017 against 2016", "| 1 | 1 | 1 | 0 |", "| 2 | 1 | 0 | 1 |"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	f, err := os.Open(filepath.Join(dir, "out", "routes-2017.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	w, h := RouteSize()
	if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		t.Fatalf("route plot %v, want %dx%d", img.Bounds(), w, h)
	}
	// Robot 2 walks from its start towards the ball 0.8 m ahead: the
	// carpet between is coloured.
	routed := 0
	// Pixels: x = 100·(x_m + 5.2), y = 100·(3.7 - y_m).
	for y := 75; y < 140; y++ {
		for x := 170; x < 220; x++ {
			if c := colourAt(img, x, y); c != carpet && c != lineWhite {
				routed++
			}
		}
	}
	if routed < 20 {
		t.Errorf("only %d route pixels between robot 2's start and the ball", routed)
	}
	trialsCSV, err := os.ReadFile(filepath.Join(dir, "out", "trials.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(trialsCSV), "\n"); n != 5 {
		t.Errorf("trials.csv has %d lines, want a header and 4 trials", n)
	}
}

func testLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestPhysicsNeedsODE: a campaign in the physics mode (the default) on the
// embedded simulator fails at once, saying how to build, when this build
// has no ODE.
func TestPhysicsNeedsODE(t *testing.T) {
	if ode.Available {
		t.Skip("this build has ODE: the campaign would run (the physics mode's campaigns are measured by hand, README)")
	}
	cfg := quickConfig(1, 1)
	cfg.Physics = simserver.PhysicsODE
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "ode.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = Run(context.Background(), &cfg, st, Options{Parallel: 1})
	if err == nil || !strings.Contains(err.Error(), "-tags ode") {
		t.Fatalf("error %v, want one that names -tags ode", err)
	}
	if DefaultConfig().Physics != simserver.PhysicsODE {
		t.Errorf("default physics %q, want %q", DefaultConfig().Physics, simserver.PhysicsODE)
	}
}

// testRobotNoise: with the robots drawing the vision noise (Config.Noise),
// the simulator's seed changes nothing a trial records; with the
// simulator drawing it, it does.
func testRobotNoise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	samples := func(noise string, simSeed uint64) []string {
		cfg := quickConfig(1, 1)
		cfg.Noise, cfg.SimSeed = noise, simSeed
		st, err := Open(ctx, filepath.Join(dir, fmt.Sprintf("%s-%d.db", noise, simSeed)))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := Run(ctx, &cfg, st, Options{Parallel: 2, Log: testLog(t)}); err != nil {
			t.Fatal(err)
		}
		_, s := dump(t, st)
		if len(s) == 0 {
			t.Fatalf("noise by the %s, simulator seed %d: no samples", noise, simSeed)
		}
		return s
	}
	if a, b := samples(NoiseRobot, 0), samples(NoiseRobot, 5); !slices.Equal(a, b) {
		t.Errorf("noise drawn by the robots: the simulator's seed changed the samples")
	}
	if a, b := samples(NoiseServer, 0), samples(NoiseServer, 5); slices.Equal(a, b) {
		t.Errorf("noise drawn by the simulator: its seed changed no sample")
	}
}
