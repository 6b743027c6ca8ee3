package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/experiments/match"
	"github.com/robotd/robotd/internal/leaktest"
)

// TestPlayReportReplay plays one short game of one robot a side from the
// command line (the kinematic model), writes its report and replays it
// byte for byte.
func TestPlayReportReplay(t *testing.T) {
	defer leaktest.Check(t)()
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	env := func(string) string { return "" }
	// Short phases: the command, not the play.
	cfg := match.DefaultConfig()
	cfg.Referee.Initial, cfg.Referee.Set, cfg.Referee.HalfTime = 0, config.Duration(time.Second), config.Duration(time.Second)
	b, err := cfg.Encode()
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "c.json")
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if err := run(ctx, []string{"play", "-config", cp, "-physics", "kinematic", "-players", "1", "-half", "2s", "-ready", "2s", "-layout", "hsl", "-db", db}, &out, &errw, env); err != nil {
		t.Fatalf("play: %v\n%s", err, errw.String())
	}
	if !strings.Contains(out.String(), "game 001-a: A ") || !strings.Contains(out.String(), "Goal difference") {
		t.Errorf("play printed %q", out.String())
	}
	out.Reset()
	rep := filepath.Join(dir, "report")
	if err := run(ctx, []string{"report", "-db", db, "-out", rep}, &out, &errw, env); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.md", "goaldiff.png", "ball.png"} {
		if st, err := os.Stat(filepath.Join(rep, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	out.Reset()
	if err := run(ctx, []string{"replay", "-db", db, "-game", "001-a"}, &out, &errw, env); err != nil {
		t.Fatalf("replay: %v", err)
	}
	if !strings.Contains(out.String(), "byte-identical") {
		t.Errorf("replay printed %q", out.String())
	}
}

// TestPrintConfigRoundTrip prints a campaign and reads it back.
func TestPrintConfigRoundTrip(t *testing.T) {
	ctx := context.Background()
	env := func(string) string { return "" }
	var a, b, errw bytes.Buffer
	if err := run(ctx, []string{"-print-config", "-a", "slow:behaviour.walk.speed=0.125", "-seeds", "3", "-half", "1m"}, &a, &errw, env); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(p, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"run", "-config", p, "-print-config"}, &b, &errw, env); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || !strings.Contains(a.String(), "behaviour.walk.speed=0.125") {
		t.Errorf("printed %s\nread back %s", a.String(), b.String())
	}
	if err := run(ctx, []string{"run", "-layout", "x", "-print-config"}, &b, &errw, env); err == nil {
		t.Error("a bad layout was taken")
	}
}

// TestSubmitScript prints the Slurm array's script: each task plays its
// shard with match run into its own database.
func TestSubmitScript(t *testing.T) {
	var out, errw bytes.Buffer
	dir := t.TempDir()
	err := run(context.Background(), []string{"submit", "-script", "-dir", dir, "-tasks", "3", "-seeds", "3", "-physics", "kinematic", "-match", "/opt/match"},
		&out, &errw, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --job-name=match", "#SBATCH --array=0-2", "exec '/opt/match' run -config '" + dir + "/campaign.json' -db '" + dir + "'/shard-\"$i\".db", "-shard \"$i/3\""} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("script lacks %q:\n%s", want, out.String())
		}
	}
}
