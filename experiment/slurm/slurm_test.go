package slurm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/experiment"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Config
		err  string
	}{
		{"defaults", Config{Dir: "out"}, ""},
		{"no dir", Config{}, "no output directory"},
		{"too many tasks", Config{Dir: "d", Tasks: 13}, "13 tasks for 12 trials"},
		{"negative tasks", Config{Dir: "d", Tasks: -1}, "want 1 to 12"},
		{"cpus", Config{Dir: "d", CPUsPerTask: -2}, "CPUs per task"},
		{"time", Config{Dir: "d", Time: -time.Second}, "time limit"},
		{"line break", Config{Dir: "d", Sbatch: []string{"--account=a\nrm -rf /"}}, "line break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate(12)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				c := tc.c
				if !filepath.IsAbs(c.Dir) || c.Tasks != 4 || c.CPUsPerTask != 1 || c.JobName != "findball" || len(c.Command) != 1 ||
					c.Poll != 5*time.Second || c.Resubmit != 1 {
					t.Errorf("defaults: %+v", c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

// TestScript: the script's #SBATCH lines, and its command as bash runs it
// for a task (echo in place of findball).
func TestScript(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "it's here")
	c := Config{Dir: dir, Tasks: 3, CPUsPerTask: 2, Mem: "2G", Time: 90*time.Minute + time.Second, Partition: "short",
		Sbatch: []string{"--account=lab"}, Command: []string{"echo", "find ball"}}
	if err := c.Validate(10); err != nil {
		t.Fatal(err)
	}
	s := Script(&c)
	for _, want := range []string{"#!/bin/bash\n", "#SBATCH --job-name=findball\n", "#SBATCH --array=0-2\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --no-requeue\n",
		"#SBATCH --mem=2G\n", "#SBATCH --time=0-01:30:01\n", "#SBATCH --partition=short\n", "#SBATCH --account=lab\n",
		"#SBATCH --chdir=" + dir + "\n", "#SBATCH --output=" + dir + "/logs/task-%a.job-%j.log\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash runs the script on the nodes; it is not here")
	}
	cmd := exec.Command("bash", "-c", s)
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_PER_TASK=2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := "find ball run -config " + dir + "/campaign.json -db " + dir + "/shard-1.db -out " + dir + "/report-task -shard 1/3 -parallel 3\n"
	if string(out) != want {
		t.Errorf("the task runs\n%s\nwant\n%s", out, want)
	}
	// Without the array's environment the script refuses to run.
	cmd = exec.Command("bash", "-c", s)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "sbatch") {
		t.Errorf("without SLURM_ARRAY_TASK_ID: %v %s", err, out)
	}
}

func TestSlurmTime(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second: "0-00:00:01", 1500 * time.Millisecond: "0-00:00:02", 25*time.Hour + 61*time.Second: "1-01:01:01",
	} {
		if got := slurmTime(d); got != want {
			t.Errorf("%v: %s, want %s", d, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain/path-1.2", "", "with space", "it's", `"$HOME" $(x) ;`, "a\nb"} {
		out, err := exec.Command("bash", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("%q: bash read %q (%v)", s, out, err)
		}
	}
}

func TestParseJobID(t *testing.T) {
	for in, want := range map[string]string{"123\n": "123", "77;cluster\n": "77", " 9 ": "9"} {
		if got, err := ParseJobID([]byte(in)); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Submitted batch job 5", "x;y", "-1"} {
		if got, err := ParseJobID([]byte(in)); err == nil {
			t.Errorf("%q: %q accepted", in, got)
		}
	}
}

func TestParseSqueue(t *testing.T) {
	out := "12|0|COMPLETED\n12|1|RUNNING\n\n13|N/A|PENDING\n15|3|CANCELLED\n"
	got, err := ParseSqueue([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"12_0": "COMPLETED", "12_1": "RUNNING", "15_3": "CANCELLED"}
	if len(got) != len(want) {
		t.Errorf("%v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	for _, bad := range []string{"12|0", "x|0|RUNNING", "12|0|", "1|2|3|4"} {
		if _, err := ParseSqueue([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseSqueue(f *testing.F) {
	f.Add([]byte("12|0|COMPLETED\n12|1|RUNNING\n"))
	f.Add([]byte("13|N/A|PENDING\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		states, err := ParseSqueue(b)
		if err != nil {
			return
		}
		for k, v := range states {
			if v == "" || !strings.Contains(k, "_") {
				t.Fatalf("%q: task %q state %q", b, k, v)
			}
		}
	})
}

func FuzzParseJobID(f *testing.F) {
	f.Add([]byte("123\n"))
	f.Add([]byte("77;cluster"))
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := ParseJobID(b)
		if err == nil && (id == "" || strings.ContainsAny(id, "; \n")) {
			t.Fatalf("%q: id %q", b, id)
		}
	})
}

func TestEnded(t *testing.T) {
	for _, st := range []string{"COMPLETED", "FAILED", "CANCELLED", "CANCELLED by 0", "CANCELLED+", "TIMEOUT", "PREEMPTED", "NODE_FAIL", "OUT_OF_MEMORY", "GONE"} {
		if !Ended(st) {
			t.Errorf("%s: not ended", st)
		}
	}
	for _, st := range []string{"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "REQUEUED", "SUSPENDED", ""} {
		if Ended(st) {
			t.Errorf("%s: ended", st)
		}
	}
}

// TestPrepare: a directory takes its campaign once; the same campaign
// again is resumed, another one refused.
func TestPrepare(t *testing.T) {
	c := Config{Dir: t.TempDir(), Command: []string{"findball"}}
	cfg := experiment.DefaultConfig()
	if err := c.Validate(len(cfg.Plan())); err != nil {
		t.Fatal(err)
	}
	if err := prepare(&c, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := prepare(&c, &cfg); err != nil {
		t.Fatalf("the same campaign again: %v", err)
	}
	for _, f := range []string{CampaignFile, ScriptFile, LogDir} {
		if _, err := os.Stat(filepath.Join(c.Dir, f)); err != nil {
			t.Error(err)
		}
	}
	cfg.Trials = 3
	if err := prepare(&c, &cfg); !errors.Is(err, ErrOtherCampaign) || !strings.Contains(err.Error(), "another -dir") {
		t.Errorf("another campaign: %v", err)
	}
}

// TestSubmitStored: a directory whose shard databases hold every trial is
// done without asking Slurm (none is on the PATH here).
func TestSubmitStored(t *testing.T) {
	t.Setenv("PATH", "")
	ctx := context.Background()
	cfg := experiment.DefaultConfig()
	cfg.Balls = cfg.Balls[:1]
	cfg.Trials = 2
	c := Config{Dir: t.TempDir(), Tasks: 2, Command: []string{"findball"}}
	for i := range 2 {
		st, err := experiment.Open(ctx, ShardDB(c.Dir, i))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Begin(ctx, &cfg); err != nil {
			t.Fatal(err)
		}
		shard := experiment.Shard{I: i, N: 2}
		for _, tr := range cfg.Plan() {
			if shard.Has(tr) {
				if err := st.Save(ctx, &cfg, &experiment.Result{Trial: tr, Time: cfg.Limit.D()}, shard); err != nil {
					t.Fatal(err)
				}
			}
		}
		st.Close()
	}
	sum, err := Submit(ctx, c, &cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Jobs) != 0 || len(sum.Shards) != 2 || sum.Shards[1] != ShardDB(c.Dir, 1) {
		t.Errorf("%+v", sum)
	}
	// One trial missing: then it submits, and here that fails saying so.
	cfg2 := cfg
	cfg2.Trials = 3
	_, err = Submit(ctx, Config{Dir: t.TempDir(), Tasks: 2, Command: []string{"findball"}}, &cfg2, Options{})
	if err == nil || !strings.Contains(err.Error(), "sbatch") {
		t.Errorf("submitting without sbatch: %v", err)
	}
}
