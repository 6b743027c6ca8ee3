package slurm

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/simserver/ode"
)

// TestFlags: the submit flags fill the array's Config, its job name the
// command's, the binary the command's own flag.
func TestFlags(t *testing.T) {
	fs := flag.NewFlagSet("match submit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := AddFlags(fs, "match", "games")
	fs.StringVar(&f.Binary, "match", "", "")
	if err := fs.Parse([]string{"-tasks", "3", "-cpus-per-task", "2", "-mem", "2G", "-time", "1h", "-partition", "p",
		"-sbatch", "--account=lab", "-sbatch", "--qos=low", "-poll", "1s", "-resubmit", "-1", "-match", "/opt/match"}); err != nil {
		t.Fatal(err)
	}
	c := f.Config()
	want := Config{Dir: "match-slurm", Tasks: 3, CPUsPerTask: 2, Mem: "2G", Time: time.Hour, Partition: "p", JobName: "match",
		Sbatch: []string{"--account=lab", "--qos=low"}, Command: []string{"/opt/match"}, Poll: time.Second, Resubmit: -1}
	if c.Dir != want.Dir || c.Tasks != want.Tasks || c.CPUsPerTask != want.CPUsPerTask || c.Mem != want.Mem || c.Time != want.Time ||
		c.Partition != want.Partition || c.JobName != want.JobName || !slices.Equal(c.Sbatch, want.Sbatch) ||
		!slices.Equal(c.Command, want.Command) || c.Poll != want.Poll || c.Resubmit != want.Resubmit || f.Script {
		t.Errorf("Config() = %+v, script %v; want %+v", c, f.Script, want)
	}
	if err := f.CheckPhysics(simserver.PhysicsODE); err != nil {
		t.Errorf("a named binary: %v", err)
	}
	f.Binary = ""
	if c := f.Config(); c.Command != nil {
		t.Errorf("no binary: command %q; want none (this executable)", c.Command)
	}
	err := f.CheckPhysics(simserver.PhysicsODE)
	if ode.Available != (err == nil) || (err != nil && !strings.Contains(err.Error(), "-match PATH")) {
		t.Errorf("the physics mode, this executable (ODE %v): %v", ode.Available, err)
	}
	if err := f.CheckPhysics(simserver.PhysicsKinematic); err != nil {
		t.Errorf("the kinematic world: %v", err)
	}
}
