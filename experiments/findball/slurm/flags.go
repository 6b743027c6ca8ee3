package slurm

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/simserver/ode"
)

// Flags are a command's submit flags that say where and how the array
// runs, as findball submit and match submit declare them: AddFlags
// declares them, Config turns them into the array's Config.
type Flags struct {
	// Command is the command's name: the default -dir is Command-slurm
	// and the array's job name is Command.
	Command string
	// Array holds the flags' Config fields (Dir, Tasks, CPUsPerTask, Mem,
	// Time, Partition, Sbatch, Poll, Resubmit).
	Array Config
	// Binary is the command's path on the nodes ("": this executable);
	// the command declares its flag (-findball, -match), which the docs
	// and the tests name.
	Binary string
	// Script: print the sbatch script and exit.
	Script bool
}

// AddFlags declares the submit flags on fs for command (findball,
// match), whose campaigns consist of units (trials, games: a plural):
// all but the one naming the binary, which the command declares into
// Binary.
func AddFlags(fs *flag.FlagSet, command, units string) *Flags {
	f := &Flags{Command: command}
	a := &f.Array
	unit := strings.TrimSuffix(units, "s")
	fs.StringVar(&a.Dir, "dir", command+"-slurm", fmt.Sprintf("the output `directory`, shared by every node: %s, %s, shard-I.db, %s/, %s.db and report/",
		CampaignFile, ScriptFile, LogDir, command))
	fs.IntVar(&a.Tasks, "tasks", 4, "array tasks (shards) of the campaign")
	fs.IntVar(&a.CPUsPerTask, "cpus-per-task", 1, "CPUs per task (sbatch --cpus-per-task); a task runs one "+unit+" more than that at once")
	fs.StringVar(&a.Mem, "mem", "", "memory per task (sbatch --mem, e.g. 2G; default none asked)")
	fs.DurationVar(&a.Time, "time", 0, "time limit per task (sbatch --time; default none asked)")
	fs.StringVar(&a.Partition, "partition", "", "the Slurm partition (default the cluster's)")
	fs.Var((*listFlag)(&a.Sbatch), "sbatch", "another sbatch `option` for the script, e.g. --account=lab (repeatable)")
	fs.DurationVar(&a.Poll, "poll", 5*time.Second, "how often squeue and the shard databases are looked at")
	fs.IntVar(&a.Resubmit, "resubmit", 1, "how often a task that ended without its "+units+" is submitted again (-1 never)")
	fs.BoolVar(&f.Script, "script", false, "print the sbatch script and exit")
	return f
}

// Config is the array's Config as the flags say, its job name the
// command's; Command is nil (this executable) unless a binary was named.
func (f *Flags) Config() Config {
	c := f.Array
	c.JobName = f.Command
	c.Sbatch = append([]string(nil), f.Array.Sbatch...)
	c.Command = nil
	if f.Binary != "" {
		c.Command = []string{f.Binary}
	}
	return c
}

// CheckPhysics refuses a campaign in the physics mode (ODE) when the
// nodes would run this executable and it was built without ODE: every
// task would fail.
func (f *Flags) CheckPhysics(physics string) error {
	if f.Binary == "" && physics == simserver.PhysicsODE && !ode.Available {
		return fmt.Errorf("submit: the campaign's physics mode %q needs a %s built with -tags ode (or -%s PATH naming one, or -physics %s)",
			physics, f.Command, f.Command, simserver.PhysicsKinematic)
	}
	return nil
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// FreshDB removes the SQLite database at path with its -wal and -shm
// files, so that the shards are merged into a new one.
func FreshDB(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
