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
)

// submit runs a campaign as a Slurm job array with find-ball's machinery
// (package slurm): campaign.json and the sbatch script in -dir, one task
// per shard running `match run -shard i/n` into shard-i.db, followed with
// squeue, failed tasks submitted again; then the shards are merged into
// match.db and reported into report/.
func submit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("match submit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := slurm.AddFlags(fs, "match", "games")
	fs.StringVar(&sf.Binary, "match", "", "the match `path` on the nodes (default this executable)")
	cf := addCampaignFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := cf.config()
	if err != nil {
		return err
	}
	if err := sf.CheckPhysics(cfg.Physics); err != nil {
		return err
	}
	sc := sf.Config()
	games := len(cfg.Plan())
	if sf.Script {
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
	fmt.Fprintf(stdout, "submitting %d games as a Slurm array of %d tasks, in %s\n", games, sf.Array.Tasks, sf.Array.Dir)
	sum, err := slurm.SubmitCampaign(ctx, sc, camp, slurm.Options{Log: newLogger(stderr, slog.LevelInfo), Progress: func(p slurm.Progress) {
		fmt.Fprintf(stdout, "%s  %s\n", time.Now().Format("15:04:05"), strings.ReplaceAll(p.String(), "trials", "games"))
	}})
	if err != nil {
		return err
	}
	db := filepath.Join(sf.Array.Dir, "match.db")
	if err := slurm.FreshDB(db); err != nil {
		return err
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
	files, err := match.Outputs(ctx, st, filepath.Join(sf.Array.Dir, "report"))
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
