package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/robotd/robotd/deploy"
)

// runDeploy is `robotd deploy [flags] [ROBOT...]`, `robotd logs ROBOT` and
// `robotd pull ROBOT`: see package deploy.
func runDeploy(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("robotd "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("f", "deploy.json", "the deploy file: robots and what goes onto them (see package deploy)")
	dry := fs.Bool("dry-run", false, "deploy: show what would change, change nothing")
	rollback := fs.Bool("rollback", false, "deploy: make the previous version current again")
	binary := fs.String("binary", "", "deploy: install this binary instead of building one")
	out := fs.String("out", ".", "pull: the directory the recordings go to (one subdirectory per robot)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: robotd deploy [-f deploy.json] [-dry-run] [-rollback] [-binary FILE] [ROBOT...]\n       robotd logs [-f deploy.json] ROBOT\n       robotd pull [-f deploy.json] [-out DIR] ROBOT\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	cfg, err := deploy.Load(*file)
	if err != nil {
		fmt.Fprintf(stderr, "robotd %s: %v\n", verb, err)
		return exitUsage
	}
	if *binary != "" {
		cfg.Binary = *binary
	}
	if verb != "deploy" && fs.NArg() != 1 {
		fmt.Fprintf(stderr, "robotd %s: name one robot\n", verb)
		return exitUsage
	}
	targets, err := cfg.Targets(fs.Args()...)
	if err != nil {
		fmt.Fprintf(stderr, "robotd %s: %v\n", verb, err)
		return exitUsage
	}
	switch verb {
	case "logs":
		if err := deploy.Logs(ctx, &cfg, &targets[0], stdout); err != nil {
			fmt.Fprintf(stderr, "robotd logs: %s\n", deploy.EscapeControl(err.Error()))
			return exitFailed
		}
		return exitOK
	case "pull":
		got, err := deploy.Pull(ctx, &cfg, &targets[0], *out)
		for _, f := range got {
			fmt.Fprintln(stdout, f)
		}
		fmt.Fprintf(stdout, "%s: %d new files\n", targets[0].Name, len(got))
		if err != nil {
			// One line per refused entry, and the error that ended the
			// pull, if one did.
			for line := range strings.Lines(deploy.EscapeControl(err.Error())) {
				fmt.Fprintf(stderr, "robotd pull: %s", line)
				if !strings.HasSuffix(line, "\n") {
					fmt.Fprintln(stderr)
				}
			}
			return exitFailed
		}
		return exitOK
	}
	if !*rollback {
		// The configuration to install must load here, or robotd would
		// refuse to start on the robot.
		if _, err := loadConfig(ctx, []string{"-config", cfg.Config}, io.Discard, io.Discard); err != nil {
			fmt.Fprintf(stderr, "robotd deploy: the configuration to install: %v\n", err)
			return exitUsage
		}
	}
	o := deploy.Options{DryRun: *dry, Out: stdout}
	var rs []deploy.Result
	if *rollback {
		rs = deploy.Rollback(ctx, &cfg, targets, o)
	} else {
		rs = deploy.Deploy(ctx, &cfg, targets, o)
	}
	failed := 0
	fmt.Fprintln(stdout, "summary:")
	for _, r := range rs {
		switch {
		case r.Err != nil:
			failed++
			fmt.Fprintf(stdout, "  %-10s FAILED  %s\n", r.Robot, deploy.EscapeControl(r.Err.Error()))
		case *dry:
			fmt.Fprintf(stdout, "  %-10s would install %s (%d changes)\n", r.Robot, r.Version, len(r.Changed))
		default:
			fmt.Fprintf(stdout, "  %-10s ok      %s, %s\n", r.Robot, r.Version, r.Health)
		}
	}
	if failed > 0 {
		return exitFailed
	}
	return exitOK
}
