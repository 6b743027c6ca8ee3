// Package slurm runs a find-ball campaign as a Slurm job array: it writes
// the campaign and an sbatch script into a directory every node shares,
// submits the array (task i runs shard i/n into its own database), follows
// it with squeue while counting the trials the shard databases hold,
// submits a task again when it ended without all its trials (failed,
// preempted, cancelled, timed out: a campaign resumes, so a task's second
// run does only what its first left), and returns once every shard is
// complete, for the caller to merge the shards and report.
//
// Slurm's commands are the ones documented at https://slurm.schedmd.com
// (sbatch --parsable and --array, squeue --array --states=all with the
// %F/%K/%i/%T fields, sacct for jobs the controller has forgotten,
// scancel); it runs with Slurm 22.05 (Debian 12's slurm-wlm).
package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/robotd/robotd/experiments/findball"
)

// Config says where and how the array runs; it does not change the
// campaign's outcome.
type Config struct {
	// Dir is the output directory, shared by every node: the campaign
	// (campaign.json), the script (findball.sbatch), the shard databases
	// (shard-I.db), the tasks' logs (logs/). Made absolute.
	Dir string
	// Tasks is the number of array tasks, one shard each (default 4, at
	// most the campaign's number of trials).
	Tasks int
	// CPUsPerTask (default 1) is sbatch's --cpus-per-task; a task runs one
	// trial more than it has CPUs at once.
	CPUsPerTask int
	// Mem is sbatch's --mem per task ("" asks for none, e.g. "2G").
	Mem string
	// Time is sbatch's --time per task (0 asks for none).
	Time time.Duration
	// Partition is sbatch's --partition ("" the cluster's default).
	Partition string
	// JobName is sbatch's --job-name (default "findball").
	JobName string
	// Sbatch are more options for the script's #SBATCH lines, e.g.
	// "--account=lab".
	Sbatch []string
	// Command is how a node runs findball (default: this executable); the
	// tasks append `run -config ... -db ... -shard i/n -parallel k`.
	Command []string
	// Env is added to the environment of Slurm's commands, and so (sbatch
	// exports it) to the tasks'.
	Env []string
	// Poll is how often the array is looked at (default 5 s).
	Poll time.Duration
	// Resubmit is how often a task that ended without its trials is
	// submitted again (default 1; -1 never).
	Resubmit int
}

// Validate fills in the defaults and checks the ranges.
func (c *Config) Validate(trials int) error {
	if c.Dir == "" {
		return errors.New("slurm: no output directory")
	}
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return fmt.Errorf("slurm: output directory %s: %w", c.Dir, err)
	}
	c.Dir = abs
	if c.Tasks == 0 {
		c.Tasks = 4
	}
	if c.Tasks < 1 || c.Tasks > trials {
		return fmt.Errorf("slurm: %d tasks for %d trials: want 1 to %d", c.Tasks, trials, trials)
	}
	if c.CPUsPerTask == 0 {
		c.CPUsPerTask = 1
	}
	if c.CPUsPerTask < 1 || c.CPUsPerTask > 1024 {
		return fmt.Errorf("slurm: %d CPUs per task: want 1 to 1024", c.CPUsPerTask)
	}
	if c.Time < 0 {
		return fmt.Errorf("slurm: time limit %v: want a positive one, or 0 for none", c.Time)
	}
	if c.JobName == "" {
		c.JobName = "findball"
	}
	if len(c.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("slurm: finding this executable for the tasks: %w", err)
		}
		c.Command = []string{exe}
	}
	if c.Poll <= 0 {
		c.Poll = 5 * time.Second
	}
	if c.Resubmit == 0 {
		c.Resubmit = 1
	}
	if err := scriptText("output directory", c.Dir, true); err != nil {
		return err
	}
	if strings.ContainsRune(c.Dir, '\\') {
		// In a file name pattern a backslash turns off %a and %j: every
		// task would log to the one file.
		return fmt.Errorf("slurm: output directory %q has a backslash, which sbatch's --output file name pattern reads as \"do not expand %%a, %%j\"", c.Dir)
	}
	for _, o := range []struct{ what, s string }{{"--mem", c.Mem}, {"--partition", c.Partition}, {"--job-name", c.JobName}} {
		if err := scriptText("option "+o.what, o.s, true); err != nil {
			return err
		}
	}
	for _, s := range c.Sbatch {
		if err := scriptText("sbatch option", s, true); err != nil {
			return err
		}
	}
	for _, s := range c.Command {
		if err := scriptText("command", s, false); err != nil {
			return err
		}
	}
	return nil
}

// scriptText checks a value that goes into the script: no control
// characters (a line break would end an #SBATCH line and start a command),
// and, in an #SBATCH line (sbatchLine), neither "hetjob" nor "packjob",
// which make sbatch start a heterogeneous job's next component at the line
// holding them.
func scriptText(what, s string, sbatchLine bool) error {
	for _, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("slurm: %s %q has a control character (%U), which the sbatch script cannot hold", what, s, r)
		}
	}
	low := strings.ToLower(s)
	for _, w := range []string{"hetjob", "packjob"} {
		if sbatchLine && strings.Contains(low, w) {
			return fmt.Errorf("slurm: %s %q holds %q, which sbatch reads as a heterogeneous job's separator in an #SBATCH line", what, s, w)
		}
	}
	return nil
}

// Files of the output directory.
const (
	CampaignFile = "campaign.json"
	ScriptFile   = "findball.sbatch"
	LogDir       = "logs"
)

// ShardDB is task i's database in dir.
func ShardDB(dir string, i int) string { return filepath.Join(dir, fmt.Sprintf("shard-%d.db", i)) }

// Script returns the sbatch script of an array of c.Tasks tasks.
func Script(c *Config) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "# A find-ball campaign as a Slurm job array (written by findball submit): array task i\n")
	fmt.Fprintf(&b, "# runs shard i/%d of %s into shard-i.db; running it again resumes.\n", c.Tasks, CampaignFile)
	opt := func(f string, a ...any) { fmt.Fprintf(&b, "#SBATCH "+f+"\n", a...) }
	opt("--job-name=%s", sbatchQuote(c.JobName))
	opt("--array=0-%d", c.Tasks-1)
	opt("--ntasks=1")
	// Slurm never requeues a task itself: a requeued task and its
	// resubmission would run one shard twice at once.
	opt("--no-requeue")
	opt("--cpus-per-task=%d", c.CPUsPerTask)
	if c.Mem != "" {
		opt("--mem=%s", sbatchQuote(c.Mem))
	}
	if c.Time > 0 {
		opt("--time=%s", slurmTime(c.Time))
	}
	if c.Partition != "" {
		opt("--partition=%s", sbatchQuote(c.Partition))
	}
	for _, s := range c.Sbatch {
		opt("%s", sbatchQuote(s))
	}
	opt("--chdir=%s", sbatchQuote(c.Dir))
	// --output is a file name pattern: a '%' of the directory is written
	// "%%" (sbatch(1), "filename pattern").
	opt("--output=%s", sbatchQuote(filepath.Join(strings.ReplaceAll(c.Dir, "%", "%%"), LogDir, "task-%a.job-%j.log")))
	b.WriteString("set -eu\n")
	b.WriteString("i=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch}\n")
	fmt.Fprintf(&b, "exec")
	for _, a := range c.Command {
		b.WriteString(" " + shellQuote(a))
	}
	fmt.Fprintf(&b, " run -config %s -db %s -out %s -shard \"$i/%d\" -parallel $(( ${SLURM_CPUS_PER_TASK:-1} + 1 ))\n",
		shellQuote(filepath.Join(c.Dir, CampaignFile)), shellQuote(c.Dir)+"/shard-\"$i\".db",
		shellQuote(filepath.Join(c.Dir, "report-task")), c.Tasks)
	return b.String()
}

// slurmTime writes a duration as sbatch's --time, days-hours:minutes:seconds.
func slurmTime(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return fmt.Sprintf("%d-%02d:%02d:%02d", s/86400, s/3600%24, s/60%60, s%60)
}

// shellQuote quotes s as one word for bash: in single quotes every
// character is literal, and each single quote of s is written as a closing
// quote, a backslash-escaped quote and an opening quote.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sbatchQuote writes s as one argument of an #SBATCH line. sbatch splits
// such a line at white space outside quotes, reads '…' and "…" as quotes
// and a backslash as escaping the next character, and ends the line at an
// unquoted '#' (get_argument in Slurm's src/sbatch/opt.c); a backslash
// does not keep white space in an argument, quotes do. So s is written as
// it is when it holds none of these, else in double quotes with '\' and
// '"' escaped.
func sbatchQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// Task is one array task's state.
type Task struct {
	// Index is the task's array index, which is its shard.
	Index int
	// Job is the task's Slurm name, "ARRAYJOB_INDEX" (scancel takes it).
	Job string
	// State is Slurm's (PENDING, RUNNING, COMPLETED, CANCELLED, ...;
	// GONE when neither squeue nor sacct knows the job).
	State string
	// Stored is the number of trials in the task's database, of Trials.
	Stored, Trials int
	// Submits is how often the task was submitted.
	Submits int
	// Done: the task ended and its database holds all its trials.
	Done bool
}

// Progress is the array's state as last seen.
type Progress struct {
	// Stored trials of Trials, over all tasks.
	Stored, Trials int
	Tasks          []Task
}

func (p Progress) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d trials done;", p.Stored, p.Trials)
	for _, t := range p.Tasks {
		fmt.Fprintf(&b, " %s %s %d/%d", t.Job, t.State, t.Stored, t.Trials)
		if t.Submits > 1 {
			fmt.Fprintf(&b, " (submit %d)", t.Submits)
		}
		b.WriteString(",")
	}
	return strings.TrimSuffix(b.String(), ",")
}

// Options are the caller's hooks.
type Options struct {
	// Log receives what happens (submissions, resubmissions); nil
	// discards.
	Log *slog.Logger
	// Progress is called whenever the array's state changed.
	Progress func(Progress)
}

// Summary says what Submit did.
type Summary struct {
	// Shards are the tasks' databases, complete.
	Shards []string
	// Jobs are the array jobs submitted (the first, then one per
	// resubmission).
	Jobs []string
	// Resubmitted names the tasks submitted again, with the state and
	// stored trials they ended with ("ARRAYJOB_I CANCELLED 1/3").
	Resubmitted []string
	Wall        time.Duration
}

// ErrOtherCampaign: the directory holds another campaign.
var ErrOtherCampaign = errors.New("slurm: the output directory holds another campaign")

// Submit runs the campaign as a job array and returns when every shard
// database holds all its trials. A directory that already holds the
// campaign is resumed: only tasks with trials missing are submitted.
// Cancelling ctx cancels the array's jobs.
func Submit(ctx context.Context, c Config, campaign *findball.Config, opt Options) (Summary, error) {
	if err := campaign.Validate(); err != nil {
		return Summary{}, err
	}
	plan := campaign.Plan()
	return SubmitCampaign(ctx, c, Campaign{Config: campaign, Total: len(plan), Stored: stored,
		Units: func(i, n int) int {
			k := 0
			for _, t := range plan {
				if (findball.Shard{I: i, N: n}).Has(t) {
					k++
				}
			}
			return k
		}}, opt)
}

// Campaign is a campaign of any experiment whose command runs a shard
// as `run -config FILE -db FILE -out DIR -shard i/n -parallel N` (findball
// and match).
type Campaign struct {
	// Config is the campaign, written to CampaignFile as JSON.
	Config any
	// Total is the campaign's number of units (trials, games); Units(i, n)
	// the number of shard i of n.
	Total int
	Units func(i, n int) int
	// Stored counts the units in a shard's database (0 when there is
	// none yet).
	Stored func(ctx context.Context, path string) (int, error)
}

// SubmitCampaign is Submit for any experiment's campaign.
func SubmitCampaign(ctx context.Context, c Config, campaign Campaign, opt Options) (Summary, error) {
	start := time.Now()
	var sum Summary
	if err := c.Validate(campaign.Total); err != nil {
		return sum, err
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := prepare(&c, campaign.Config); err != nil {
		return sum, err
	}
	tasks := make([]*Task, c.Tasks)
	for i := range tasks {
		tasks[i] = &Task{Index: i, Trials: campaign.Units(i, c.Tasks)}
		sum.Shards = append(sum.Shards, ShardDB(c.Dir, i))
	}
	// Tasks whose databases are complete (an earlier submit) are done.
	var todo []int
	for _, t := range tasks {
		n, err := campaign.Stored(ctx, ShardDB(c.Dir, t.Index))
		if err != nil {
			return sum, err
		}
		t.Stored = n
		if n >= t.Trials {
			t.Done, t.State, t.Job = true, "STORED", "-"
			continue
		}
		todo = append(todo, t.Index)
	}
	if len(todo) == 0 {
		log.Info("every shard is stored already", "dir", c.Dir)
		sum.Wall = time.Since(start)
		return sum, nil
	}
	s := &submitter{c: c, log: log}
	job, err := s.sbatch(ctx, arrayList(todo))
	if err != nil {
		return sum, err
	}
	sum.Jobs = append(sum.Jobs, job)
	for _, i := range todo {
		tasks[i].Job, tasks[i].State, tasks[i].Submits = job+"_"+strconv.Itoa(i), "PENDING", 1
	}
	log.Info("submitted", "job", job, "tasks", arrayList(todo), "script", filepath.Join(c.Dir, ScriptFile))

	err = s.follow(ctx, tasks, &sum, opt)
	sum.Wall = time.Since(start)
	if err != nil {
		// Tasks left running would race a later submit's on their shards.
		s.cancel(tasks)
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return sum, fmt.Errorf("slurm: stopped following the array, and cancelled its jobs (%s); running findball submit again continues: %w",
			strings.Join(sum.Jobs, ", "), err)
	}
	return sum, nil
}

// prepare makes the directory and writes the campaign and the script; a
// directory holding another campaign is an error.
func prepare(c *Config, campaign any) error {
	if err := os.MkdirAll(filepath.Join(c.Dir, LogDir), 0o755); err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	want, err := json.MarshalIndent(campaign, "", "  ")
	if err != nil {
		return fmt.Errorf("slurm: encoding the campaign: %w", err)
	}
	want = append(want, '\n')
	path := filepath.Join(c.Dir, CampaignFile)
	have, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.WriteFile(path, want, 0o644); err != nil {
			return fmt.Errorf("slurm: %w", err)
		}
	case err != nil:
		return fmt.Errorf("slurm: %w", err)
	case !bytes.Equal(have, want):
		return fmt.Errorf("%w (%s): use another -dir for this campaign, or remove that one to start over", ErrOtherCampaign, c.Dir)
	}
	if err := os.WriteFile(filepath.Join(c.Dir, ScriptFile), []byte(Script(c)), 0o755); err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	return nil
}

// arrayList writes array indices for sbatch --array ("0,2,3").
func arrayList(is []int) string {
	s := make([]string, len(is))
	for k, i := range is {
		s[k] = strconv.Itoa(i)
	}
	return strings.Join(s, ",")
}

// stored counts the trials in a shard's database (0 when there is none
// yet).
func stored(ctx context.Context, path string) (int, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	st, err := findball.Open(ctx, path)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	done, err := st.Done(ctx)
	if err != nil {
		return 0, err
	}
	return len(done), nil
}

type submitter struct {
	c   Config
	log *slog.Logger
}

// command runs one of Slurm's commands, bounded by a minute.
func (s *submitter) command(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), s.c.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("slurm: %s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// sbatch submits the script for the array indices and returns the array's
// job id.
func (s *submitter) sbatch(ctx context.Context, indices string) (string, error) {
	out, err := s.command(ctx, "sbatch", "--parsable", "--array="+indices, filepath.Join(s.c.Dir, ScriptFile))
	if err != nil {
		return "", err
	}
	return ParseJobID(out)
}

// ParseJobID reads sbatch --parsable's answer: "JOBID" or
// "JOBID;CLUSTER".
func ParseJobID(out []byte) (string, error) {
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("slurm: sbatch answered %q, not a job id", out)
	}
	return id, nil
}

// squeueFormat is what follow asks squeue for: the array's job id, the
// task's index, and its state.
const squeueFormat = "%F|%K|%T"

// ParseSqueue reads squeue -h -r -o '%F|%K|%T' output into the states of
// array tasks by "ARRAYJOB_INDEX"; lines of jobs that are not array tasks
// (an index of N/A) are left out.
func ParseSqueue(out []byte) (map[string]string, error) {
	states := map[string]string{}
	for l := range strings.SplitSeq(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		f := strings.Split(l, "|")
		if len(f) != 3 || f[2] == "" {
			return nil, fmt.Errorf("slurm: squeue line %q: want JOB|INDEX|STATE", l)
		}
		if _, err := strconv.ParseUint(f[0], 10, 64); err != nil {
			return nil, fmt.Errorf("slurm: squeue line %q: job %q", l, f[0])
		}
		if _, err := strconv.ParseUint(f[1], 10, 32); err != nil {
			continue
		}
		states[f[0]+"_"+f[1]] = f[2]
	}
	return states, nil
}

// Ended reports whether a job in Slurm state st has ended and let go of
// its processes (COMPLETING has not).
func Ended(st string) bool {
	st, _, _ = strings.Cut(st, " ") // sacct: "CANCELLED by 0"
	switch strings.TrimSuffix(st, "+") {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PREEMPTED", "NODE_FAIL", "OUT_OF_MEMORY",
		"BOOT_FAIL", "DEADLINE", "REVOKED", "GONE":
		return true
	}
	return false
}

// states asks squeue for every array task of the script's job name
// (ended ones too, while the controller keeps them).
func (s *submitter) states(ctx context.Context) (map[string]string, error) {
	out, err := s.command(ctx, "squeue", "-h", "-r", "--states=all", "--name="+s.c.JobName, "-o", squeueFormat)
	if err != nil {
		return nil, err
	}
	return ParseSqueue(out)
}

// gone asks sacct for a task the controller no longer knows ("GONE" when
// sacct cannot say: accounting is optional).
func (s *submitter) gone(ctx context.Context, job string) string {
	out, err := s.command(ctx, "sacct", "-n", "-P", "-X", "-j", job, "-o", "State")
	if st := strings.TrimSpace(string(out)); err == nil && st != "" && !strings.Contains(st, "\n") {
		return st
	}
	return "GONE"
}

// follow polls the array until every task is done, submitting tasks that
// ended without their trials again.
func (s *submitter) follow(ctx context.Context, tasks []*Task, sum *Summary, opt Options) error {
	var last string
	var failingSince time.Time
	for {
		states, err := s.states(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			// The controller may be busy or restarting: keep asking for a while.
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			if time.Since(failingSince) > 5*time.Minute {
				return err
			}
			s.log.Warn("squeue failed; asking again", "err", err)
		} else {
			failingSince = time.Time{}
			if err := s.update(ctx, tasks, states, sum); err != nil {
				return err
			}
		}
		p := Progress{}
		all := true
		for _, t := range tasks {
			p.Stored += t.Stored
			p.Trials += t.Trials
			p.Tasks = append(p.Tasks, *t)
			all = all && t.Done
		}
		if str := p.String(); str != last {
			last = str
			if opt.Progress != nil {
				opt.Progress(p)
			}
		}
		if all {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(s.c.Poll):
		}
	}
}

// update takes the tasks' new states and stored trials, and resubmits the
// tasks that ended without their trials.
func (s *submitter) update(ctx context.Context, tasks []*Task, states map[string]string, sum *Summary) error {
	for _, t := range tasks {
		if t.Done {
			continue
		}
		st, ok := states[t.Job]
		if !ok {
			st = s.gone(ctx, t.Job)
		}
		t.State = st
		// The count follows the state: a task seen ended has stored all it
		// will.
		n, err := stored(ctx, ShardDB(s.c.Dir, t.Index))
		if err != nil {
			return err
		}
		t.Stored = n
		if !Ended(st) {
			continue
		}
		if t.Stored >= t.Trials {
			t.Done = true
			if !strings.HasPrefix(st, "COMPLETED") {
				s.log.Warn("task ended with all its trials stored, but not as completed", "task", t.Job, "state", st)
			}
			continue
		}
		log := filepath.Join(s.c.Dir, LogDir, fmt.Sprintf("task-%d.job-*.log", t.Index))
		if s.c.Resubmit < 0 || t.Submits > s.c.Resubmit {
			return fmt.Errorf("slurm: task %s ended %s with %d of its %d trials, after %d submissions; its log is %s",
				t.Job, st, t.Stored, t.Trials, t.Submits, log)
		}
		job, err := s.sbatch(ctx, strconv.Itoa(t.Index))
		if err != nil {
			return err
		}
		s.log.Warn("task ended without its trials; submitted it again", "task", t.Job, "state", st,
			"stored", t.Stored, "of", t.Trials, "job", job+"_"+strconv.Itoa(t.Index), "log", log)
		sum.Jobs = append(sum.Jobs, job)
		sum.Resubmitted = append(sum.Resubmitted, fmt.Sprintf("%s %s %d/%d", t.Job, st, t.Stored, t.Trials))
		t.Job, t.State = job+"_"+strconv.Itoa(t.Index), "PENDING"
		t.Submits++
	}
	return nil
}

// cancel cancels the tasks that have not ended (the caller stops).
func (s *submitter) cancel(tasks []*Task) {
	var jobs []string
	for _, t := range tasks {
		if !t.Done && !Ended(t.State) {
			jobs = append(jobs, t.Job)
		}
	}
	if len(jobs) == 0 {
		return
	}
	if _, err := s.command(context.Background(), "scancel", jobs...); err != nil {
		s.log.Error("cancelling the array's jobs", "jobs", jobs, "err", err)
	}
}

// WriteScript writes the script for c (its defaults filled in for a
// campaign of trials trials) to w, as Submit would.
func WriteScript(w io.Writer, c Config, trials int) error {
	if err := c.Validate(trials); err != nil {
		return err
	}
	_, err := io.WriteString(w, Script(&c))
	return err
}
