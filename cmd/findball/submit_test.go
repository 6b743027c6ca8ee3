package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/experiments/findball/slurm"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/internal/slurmtest"
	"github.com/robotd/robotd/simserver/ode"
)

// asFindball makes the test binary run findball's main: the Slurm tasks
// of TestSubmitSlurm run it so.
const asFindball = "FINDBALL_TEST_AS_FINDBALL"

func TestMain(m *testing.M) {
	if os.Getenv(asFindball) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// slurmCampaign is the done-when campaign: 2 strategies × 3 positions × 2
// trials, robot 2 alone, with the ball far away at positions 1 and 3 (not
// found: a trial runs the whole limit) and 0.8 m in front of it at
// position 2 (found within seconds). Shard i of 4 holds trials i, i+4 and
// i+8: a long, a short and a long one.
func slurmCampaign(t *testing.T, dir string) []string {
	balls := filepath.Join(dir, "balls.txt")
	if err := os.WriteFile(balls, []byte("4 -2.5\n-3.25 2.2\n4.5 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"-robots", "1", "-balls", balls, "-trials", "2", "-limit", "8s", "-penalised", "500ms",
		"-strategy", "2016", "-strategy", "2017", "-physics", "kinematic"}
}

// outcomes reads a database's trials and trajectories, one line per trial
// (everything but the wall time, the shard and when it was stored).
func outcomes(t *testing.T, db string) []string {
	t.Helper()
	ctx := context.Background()
	st, err := findball.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := st.Results(ctx)
	if err != nil {
		t.Fatal(err)
	}
	samples := map[string]string{}
	if err := st.Samples(ctx, func(id string, ss []findball.Sample) error {
		samples[id] = fmt.Sprint(ss)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s index %d seed %d config %s found %v time %v finder %d falls %d start %v samples %d %x",
			r.ID(), r.Index, r.Seed, r.ConfigHash, r.Found, r.Time, r.Finder, r.Falls, r.Start, len(samples[r.ID()]),
			hash(samples[r.ID()])))
	}
	return out
}

func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// TestSubmitSlurm is the Slurm done-when: the campaign runs as an array of
// 4 tasks on a real single-node cluster; the first task seen running with
// one or two of its three trials stored is cancelled with scancel, is
// submitted again, and the campaign ends with exactly its 12 trials, equal trial by
// trial (seeds, outcomes, trajectories) to the unsharded local run.
// ROBOTD_SLURM_CPUS sets the node's CPUs (default: this machine's).
func TestSubmitSlurm(t *testing.T) {
	if simBuild {
		t.Skip("the sim build's findball is the default build's code, whose test run covers this one")
	}
	defer leaktest.Check(t)()
	cpus := 0
	if v := os.Getenv("ROBOTD_SLURM_CPUS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("ROBOTD_SLURM_CPUS=%q: %v", v, err)
		}
		cpus = n
	}
	cluster := slurmtest.Start(t, slurmtest.Config{CPUs: cpus})
	defer cluster.Stop()
	ctx := context.Background()
	dir := t.TempDir()
	campaign := slurmCampaign(t, dir)

	// The unsharded local run runs beside the cluster's work (on a loaded
	// machine that gets the test more of it; otherwise it changes little).
	local := filepath.Join(dir, "local.db")
	localDone := make(chan error, 1)
	go func() {
		start := time.Now()
		var out, errb bytes.Buffer
		err := run(ctx, append([]string{"run", "-db", local, "-out", filepath.Join(dir, "local-out")}, campaign...), &out, &errb, env(nil))
		if err != nil {
			err = fmt.Errorf("the local run: %w\n%s", err, errb.String())
		}
		t.Logf("the local run took %v", time.Since(start).Round(time.Millisecond))
		localDone <- err
	}()
	defer func() {
		if localDone != nil {
			<-localDone
		}
	}()

	// Tasks that always fail are submitted once more, then the campaign
	// stops, naming a task's state and log.
	var out, errb bytes.Buffer
	failing := filepath.Join(dir, "failing")
	err := submitWith(ctx, append([]string{"-dir", failing, "-tasks", "2", "-poll", "100ms", "-findball", "/bin/false"}, campaign...),
		&out, &errb, submitHooks{env: cluster.Env()})
	if err == nil || !strings.Contains(err.Error(), "ended FAILED with 0 of its 6 trials, after 2 submissions; its log is "+failing) {
		t.Errorf("tasks that fail: %v\n%s%s", err, out.String(), errb.String())
	}
	if n := strings.Count(errb.String(), "submitted it again"); n < 1 || n > 2 {
		t.Errorf("%d resubmissions of 2 failing tasks:\n%s", n, errb.String())
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var killed, killErr string
	var late []string
	var killedAt slurm.Task
	hooks := submitHooks{
		command: []string{exe},
		env:     append(cluster.Env(), asFindball+"=1"),
		// The first task seen running with some but not all of its trials
		// stored is cancelled (each has a window of a whole long trial).
		progress: func(p slurm.Progress) {
			for _, tk := range p.Tasks {
				// A cancel that came after the task's last trial (the task
				// ended with all of them) is tried on another task.
				if tk.Job == killed && tk.Done {
					late = append(late, killed)
					killed = ""
				}
			}
			if killed != "" {
				return
			}
			for _, tk := range p.Tasks {
				if tk.Submits != 1 || tk.State != "RUNNING" || tk.Stored < 1 || tk.Stored >= tk.Trials || slices.Contains(late, tk.Job) {
					continue
				}
				killed, killedAt = tk.Job, tk
				if b, err := cluster.Command(ctx, "scancel", tk.Job).CombinedOutput(); err != nil {
					killErr = fmt.Sprintf("scancel %s: %v: %s", tk.Job, err, b)
				}
				return
			}
		},
	}
	out.Reset()
	errb.Reset()
	start := time.Now()
	slurmDir := filepath.Join(dir, "slurm")
	err = submitWith(ctx, append([]string{"-dir", slurmDir, "-tasks", "4", "-poll", "100ms"}, campaign...), &out, &errb, hooks)
	wall := time.Since(start)
	t.Logf("findball submit took %v on %d CPUs:\n%s", wall.Round(time.Millisecond), cluster.CPUs, out.String())
	if err != nil {
		t.Fatalf("submit: %v\n%s\n%s", err, errb.String(), taskLogs(slurmDir))
	}
	if killErr != "" {
		t.Fatal(killErr)
	}
	if killed == "" {
		t.Fatalf("no task was seen running with some but not all of its trials stored:\n%s", out.String())
	}
	t.Logf("cancelled %s with %d of its %d trials stored (cancels too late: %v)", killed, killedAt.Stored, killedAt.Trials, late)
	if want := "resubmitted " + killed + " CANCELLED"; !strings.Contains(out.String(), want) {
		t.Errorf("the output lacks %q:\n%s", want, out.String())
	}
	if n := strings.Count(out.String(), "resubmitted "); n != 1 {
		t.Errorf("%d tasks resubmitted, want the cancelled one only:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "12/12 trials done") || !strings.Contains(out.String(), "12 of 12 trials stored") {
		t.Errorf("the output lacks the progress or the report:\n%s", out.String())
	}
	err = <-localDone
	localDone = nil
	if err != nil {
		t.Fatal(err)
	}
	want := outcomes(t, local)
	got := outcomes(t, filepath.Join(slurmDir, "findball.db"))
	if len(want) != 12 {
		t.Fatalf("the local run stored %d trials, want 12", len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("the merged campaign holds %d trials, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	found := 0
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("trial %d differs:\n  local  %s\n  merged %s", i, want[i], got[i])
		}
		if strings.Contains(want[i], "found true") {
			found++
		}
	}
	if found != 4 {
		t.Errorf("%d trials found the ball, want the 4 of position 2:\n%s", found, strings.Join(want, "\n"))
	}
	// The cancelled task's second job did only what its first left.
	var runs []string
	logs, _ := filepath.Glob(filepath.Join(slurmDir, slurm.LogDir, fmt.Sprintf("task-%d.job-*.log", killedAt.Index)))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if i := strings.Index(string(b), "msg=campaign "); i >= 0 {
			runs = append(runs, strings.SplitN(string(b[i:]), "\n", 2)[0])
		}
	}
	resumed := false
	for k := killedAt.Stored; k < 3; k++ {
		resumed = resumed || strings.Contains(strings.Join(runs, "\n"), fmt.Sprintf("stored=%d to_run=%d", k, 3-k))
	}
	if len(runs) != 2 || !strings.Contains(strings.Join(runs, "\n"), "stored=0 to_run=3") || !resumed {
		t.Errorf("task %d's two runs, want one of 3 trials and one of those the first left:\n%s", killedAt.Index, strings.Join(runs, "\n"))
	}
	for _, f := range []string{"report/report.md", "report/trials.csv", "findball.sbatch", "campaign.json"} {
		if st, err := os.Stat(filepath.Join(slurmDir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func taskLogs(dir string) string {
	var b strings.Builder
	logs, _ := filepath.Glob(filepath.Join(dir, slurm.LogDir, "*.log"))
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		if len(data) > 2000 {
			data = data[len(data)-2000:]
		}
		fmt.Fprintf(&b, "--- %s\n%s", l, data)
	}
	return b.String()
}

// TestSubmitNeedsODE: a Slurm submission of a physics-mode campaign (the
// default) from a findball built without ODE is refused before anything is
// written, since every task would fail.
func TestSubmitNeedsODE(t *testing.T) {
	if ode.Available {
		t.Skip("this findball has ODE: the submission would go ahead")
	}
	dir := filepath.Join(t.TempDir(), "campaign")
	err := run(context.Background(), []string{"submit", "-dir", dir, "-trials", "1"}, &bytes.Buffer{}, &bytes.Buffer{}, env(nil))
	if err == nil || !strings.Contains(err.Error(), "-tags ode") {
		t.Fatalf("error %v, want one that names -tags ode", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s was written (%v)", dir, err)
	}
}

// TestSubmitScriptHostileDir: findball submit -script with a -dir that
// holds a line break and a command is refused in one line, writing
// nothing; with '%' patterns, spaces, quotes, '#' or $(…) it prints a
// script that bash reads and that, run as array task 1, runs findball with
// exactly its arguments in that directory and nothing else.
func TestSubmitScriptHostileDir(t *testing.T) {
	ctx := context.Background()
	args := func(dir string) []string {
		return []string{"submit", "-script", "-dir", dir, "-physics", "kinematic", "-trials", "1", "-tasks", "2", "-findball", "/bin/echo"}
	}
	for _, name := range []string{"x\ntouch pwned", "x\r\n#SBATCH --wrap=id", "x\x00y", `x\y`} {
		root := t.TempDir()
		var out, errb bytes.Buffer
		err := run(ctx, args(filepath.Join(root, name)), &out, &errb, env(nil))
		if err == nil || strings.Contains(err.Error(), "\n") || out.Len() > 0 {
			t.Errorf("-dir %q: error %v, output %q; want a one-line refusal and no script", name, err, out.String())
		}
		if ents, _ := os.ReadDir(root); len(ents) > 0 {
			t.Errorf("-dir %q: wrote %v", name, ents)
		}
	}
	for _, name := range []string{"%j", "a%a%%", "with space", "it's", `"q"`, "#c", "$(touch pwned)", "`touch pwned`", "a;touch pwned", "${IFS}x"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, name)
			var out, errb bytes.Buffer
			if err := run(ctx, args(dir), &out, &errb, env(nil)); err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			script := out.String()
			if b, err := exec.Command("bash", "-n", "-c", script).CombinedOutput(); err != nil {
				t.Fatalf("bash -n: %v: %s\n%s", err, b, script)
			}
			work := t.TempDir()
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_PER_TASK=1")
			got, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, got)
			}
			want := "run -config " + filepath.Join(dir, "campaign.json") + " -db " + filepath.Join(dir, "shard-1.db") +
				" -out " + filepath.Join(dir, "report-task") + " -shard 1/2 -parallel 2\n"
			if string(got) != want {
				t.Errorf("array task 1 runs\n%s\nwant\n%s", got, want)
			}
			for _, d := range []string{root, work} {
				if ents, _ := os.ReadDir(d); len(ents) > 0 {
					t.Errorf("the script wrote %v in %s", ents, d)
				}
			}
			// One #SBATCH line each names the directory, and the logs in
			// it with its '%' written "%%" (sbatch's file name pattern).
			for _, opt := range []string{"--chdir=", "--output="} {
				if n := strings.Count(script, "#SBATCH "+opt); n != 1 {
					t.Errorf("%d #SBATCH %s lines:\n%s", n, opt, script)
				}
			}
			if logs := strings.ReplaceAll(name, "%", "%%") + "/logs/task-%a.job-%j.log"; strings.Contains(name, "%") && !strings.Contains(script, logs) {
				t.Errorf("the script lacks %q:\n%s", logs, script)
			}
		})
	}
}
