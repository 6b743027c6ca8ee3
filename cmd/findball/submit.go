package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/experiments/findball/kube"
	"github.com/robotd/robotd/experiments/findball/slurm"
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
	sf := slurm.AddFlags(fs, "findball", "trials")
	fs.StringVar(&sf.Binary, "findball", "", "the findball `path` on the nodes (default this executable)")
	cf := addCampaignFlags(fs)
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
		m, err := kube.Manifest(kube.Config{Image: *image, Shards: sf.Array.Tasks, CPU: sf.Array.CPUsPerTask, Memory: kubeMemory(sf.Array.Mem), Claim: *claim}, &cfg)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, m)
		return err
	}
	if err := sf.CheckPhysics(cfg.Physics); err != nil {
		return err
	}
	sc := sf.Config()
	if sc.Command == nil {
		sc.Command = hooks.command
	}
	sc.Env = hooks.env
	if sf.Script {
		return slurm.WriteScript(stdout, sc, len(cfg.Plan()))
	}
	// Refused before anything is said or written: what goes into the
	// sbatch script (slurm.Config.Validate).
	if err := sc.Validate(len(cfg.Plan())); err != nil {
		return err
	}
	log := newLogger(stderr, slog.LevelInfo)
	fmt.Fprintf(stdout, "submitting %d trials as a Slurm array of %d tasks, in %s\n", len(cfg.Plan()), sf.Array.Tasks, sf.Array.Dir)
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
	db := filepath.Join(sf.Array.Dir, "findball.db")
	out := filepath.Join(sf.Array.Dir, "report")
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
	if err := slurm.FreshDB(db); err != nil {
		return err
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
