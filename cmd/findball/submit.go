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

	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/experiments/findball/kube"
	"github.com/robotd/robotd/experiments/findball/slurm"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/simserver/ode"
)

// submitHooks are what a test changes in submit: how the nodes run
// findball, the Slurm commands' environment, and a look at the progress.
type submitHooks struct {
	command  []string
	env      []string
	progress func(slurm.Progress)
}

func submit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return submitWith(ctx, args, stdout, stderr, submitHooks{})
}

func submitWith(ctx context.Context, args []string, stdout, stderr io.Writer, hooks submitHooks) error {
	fs := flag.NewFlagSet("findball submit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "findball-slurm", "the output `directory`, shared by every node: campaign.json, findball.sbatch, shard-I.db, logs/, findball.db and report/")
	cf := addCampaignFlags(fs)
	tasks := fs.Int("tasks", 4, "array tasks (shards) of the campaign")
	cpus := fs.Int("cpus-per-task", 1, "CPUs per task (sbatch --cpus-per-task); a task runs one trial more than that at once")
	mem := fs.String("mem", "", "memory per task (sbatch --mem, e.g. 2G; default none asked)")
	limit := fs.Duration("time", 0, "time limit per task (sbatch --time; default none asked)")
	partition := fs.String("partition", "", "the Slurm partition (default the cluster's)")
	var sbatchArgs listFlag
	fs.Var(&sbatchArgs, "sbatch", "another sbatch `option` for the script, e.g. --account=lab (repeatable)")
	binary := fs.String("findball", "", "the findball `path` on the nodes (default this executable)")
	poll := fs.Duration("poll", 5*time.Second, "how often squeue and the shard databases are looked at")
	resubmit := fs.Int("resubmit", 1, "how often a task that ended without its trials is submitted again (-1 never)")
	script := fs.Bool("script", false, "print the sbatch script and exit")
	k8s := fs.Bool("k8s", false, "print a Kubernetes indexed Job (and a ConfigMap with the campaign) for -tasks shards and exit")
	image := fs.String("image", "", "-k8s: the container image with findball on its PATH")
	claim := fs.String("claim", "", "-k8s: the PersistentVolumeClaim for the shard databases (default findball-data)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("submit: unexpected argument %q", fs.Arg(0))
	}
	cfg, err := cf.config()
	if err != nil {
		return err
	}
	if *cf.printCfg {
		return printConfig(stdout, &cfg)
	}
	if *k8s {
		m, err := kube.Manifest(kube.Config{Image: *image, Shards: *tasks, CPU: *cpus, Memory: kubeMemory(*mem), Claim: *claim}, &cfg)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, m)
		return err
	}
	if *binary == "" && cfg.Physics == simserver.PhysicsODE && !ode.Available {
		// The nodes run this executable: its tasks would all fail.
		return fmt.Errorf("submit: the campaign's physics mode %q needs a findball built with -tags ode (or -findball PATH naming one, or -physics %s)", cfg.Physics, simserver.PhysicsKinematic)
	}
	sc := slurm.Config{Dir: *dir, Tasks: *tasks, CPUsPerTask: *cpus, Mem: *mem, Time: *limit, Partition: *partition,
		Sbatch: sbatchArgs, Poll: *poll, Resubmit: *resubmit, Command: hooks.command, Env: hooks.env}
	if *binary != "" {
		sc.Command = []string{*binary}
	}
	if *script {
		return slurm.WriteScript(stdout, sc, len(cfg.Plan()))
	}
	// Refused before anything is said or written: what goes into the
	// sbatch script (slurm.Config.Validate).
	if err := sc.Validate(len(cfg.Plan())); err != nil {
		return err
	}
	log := newLogger(stderr, slog.LevelInfo)
	fmt.Fprintf(stdout, "submitting %d trials as a Slurm array of %d tasks, in %s\n", len(cfg.Plan()), *tasks, *dir)
	sum, err := slurm.Submit(ctx, sc, &cfg, slurm.Options{Log: log, Progress: func(p slurm.Progress) {
		fmt.Fprintf(stdout, "%s  %s\n", time.Now().Format("15:04:05"), p)
		if hooks.progress != nil {
			hooks.progress(p)
		}
	}})
	if err != nil {
		return err
	}
	for _, r := range sum.Resubmitted {
		fmt.Fprintf(stdout, "resubmitted %s\n", r)
	}
	db := filepath.Join(*dir, "findball.db")
	out := filepath.Join(*dir, "report")
	if err := mergeShards(ctx, db, sum.Shards, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "array done in %v (jobs %s)\n", sum.Wall.Round(time.Second), strings.Join(sum.Jobs, ", "))
	st, err := findball.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	files, err := findball.Outputs(ctx, st, out)
	if err != nil {
		return err
	}
	return printOutputs(stdout, files)
}

// kubeMemory turns sbatch's memory (2G, 512M) into Kubernetes' (2Gi,
// 512Mi); empty stays empty.
func kubeMemory(m string) string {
	if m != "" && strings.ContainsAny(m[len(m)-1:], "KMGTkmgt") {
		return m[:len(m)-1] + strings.ToUpper(m[len(m)-1:]) + "i"
	}
	return m
}

// mergeShards merges complete shard databases into db, anew.
func mergeShards(ctx context.Context, db string, shards []string, stdout io.Writer) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	st, err := findball.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	ms, err := st.Merge(ctx, shards...)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "merged %d trials from %d shards into %s\n", ms.Trials, len(shards), db)
	return err
}
