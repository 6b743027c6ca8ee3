package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/robotd/robotd/experiments/findball/slurm"
	"github.com/robotd/robotd/experiments/match"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/simserver/ode"
)

// submit runs a campaign as a Slurm job array with find-ball's machinery
// (package slurm): campaign.json and the sbatch script in -dir, one task
// per shard running `match run -shard i/n` into shard-i.db, followed with
// squeue, failed tasks submitted again; then the shards are merged into
// match.db and reported into report/.
func submit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("match submit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "match-slurm", "the output `directory`, shared by every node")
	cf := addCampaignFlags(fs)
	tasks := fs.Int("tasks", 4, "array tasks (shards) of the campaign")
	cpus := fs.Int("cpus-per-task", 1, "CPUs per task (sbatch --cpus-per-task)")
	mem := fs.String("mem", "", "memory per task (sbatch --mem)")
	limit := fs.Duration("time", 0, "time limit per task (sbatch --time)")
	partition := fs.String("partition", "", "the Slurm partition")
	binary := fs.String("match", "", "the match `path` on the nodes (default this executable)")
	poll := fs.Duration("poll", 5*time.Second, "how often squeue and the shard databases are looked at")
	resubmit := fs.Int("resubmit", 1, "how often a task that ended without its games is submitted again (-1 never)")
	script := fs.Bool("script", false, "print the sbatch script and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := cf.config()
	if err != nil {
		return err
	}
	if *binary == "" && cfg.Physics == simserver.PhysicsODE && !ode.Available {
		return fmt.Errorf("submit: the physics mode needs a match built with -tags ode (or -match PATH naming one, or -physics %s)", simserver.PhysicsKinematic)
	}
	sc := slurm.Config{Dir: *dir, Tasks: *tasks, CPUsPerTask: *cpus, Mem: *mem, Time: *limit, Partition: *partition,
		Poll: *poll, Resubmit: *resubmit, JobName: "match"}
	if *binary != "" {
		sc.Command = []string{*binary}
	}
	games := len(cfg.Plan())
	if *script {
		return slurm.WriteScript(stdout, sc, games)
	}
	camp := slurm.Campaign{Config: &cfg, Total: games, Stored: storedGames, Units: func(i, n int) int {
		k := 0
		for _, g := range cfg.Plan() {
			if g.Index%n == i {
				k++
			}
		}
		return k
	}}
	fmt.Fprintf(stdout, "submitting %d games as a Slurm array of %d tasks, in %s\n", games, *tasks, *dir)
	sum, err := slurm.SubmitCampaign(ctx, sc, camp, slurm.Options{Log: newLogger(stderr, slog.LevelInfo), Progress: func(p slurm.Progress) {
		fmt.Fprintf(stdout, "%s  %s\n", time.Now().Format("15:04:05"), strings.ReplaceAll(p.String(), "trials", "games"))
	}})
	if err != nil {
		return err
	}
	db := filepath.Join(*dir, "match.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	st, err := match.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := st.Merge(ctx, sum.Shards...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d games from %d shards into %s\n", n, len(sum.Shards), db)
	files, err := match.Outputs(ctx, st, filepath.Join(*dir, "report"))
	if err != nil {
		return err
	}
	return printFiles(stdout, files)
}

// storedGames counts the games in a shard's database (0 when there is
// none yet).
func storedGames(ctx context.Context, path string) (int, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	st, err := match.Open(ctx, path)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	done, err := st.Done(ctx)
	return len(done), err
}
