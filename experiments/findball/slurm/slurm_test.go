package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/internal/slurmtest"
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
		{"line break", Config{Dir: "d", Sbatch: []string{"--account=a\nrm -rf /"}}, `sbatch option "--account=a\nrm -rf /" has a control character (U+000A)`},
		{"line break in the directory", Config{Dir: "d\nrm -rf ~"}, `d\nrm -rf ~" has a control character (U+000A)`},
		{"carriage return in the memory", Config{Dir: "d", Mem: "2G\r"}, `option --mem "2G\r" has a control character`},
		{"tab in the job name", Config{Dir: "d", JobName: "a\tb"}, "option --job-name"},
		{"line break in the command", Config{Dir: "d", Command: []string{"/bin/find\nball"}}, "command"},
		{"hetjob in the command", Config{Dir: "d", Command: []string{"/opt/hetjob/findball"}}, ""},
		{"backslash in the directory", Config{Dir: `d\x`}, "has a backslash"},
		{"hetjob", Config{Dir: "d", Partition: "a-HetJob"}, `holds "hetjob"`},
		{"packjob", Config{Dir: "packjob"}, `holds "packjob"`},
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
		"#SBATCH --chdir=\"" + dir + "\"\n", "#SBATCH --output=\"" + dir + "/logs/task-%a.job-%j.log\"\n"} {
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
	for _, s := range []string{"plain/path-1.2", "", "with space", "it's", `"$HOME" $(x) ;`, "a\nb", "'", `\`, "`x`", "~", "*", "-e", "!x"} {
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
	cfg := findball.DefaultConfig()
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
	cfg := findball.DefaultConfig()
	cfg.Balls = cfg.Balls[:1]
	cfg.Trials = 2
	c := Config{Dir: t.TempDir(), Tasks: 2, Command: []string{"findball"}}
	for i := range 2 {
		st, err := findball.Open(ctx, ShardDB(c.Dir, i))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Begin(ctx, &cfg); err != nil {
			t.Fatal(err)
		}
		shard := findball.Shard{I: i, N: 2}
		for _, tr := range cfg.Plan() {
			if shard.Has(tr) {
				if err := st.Save(ctx, &cfg, &findball.Result{Trial: tr, Time: cfg.Limit.D()}, shard); err != nil {
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

// sbatchArgs splits the text of an #SBATCH line after the magic word as
// sbatch does (get_argument in Slurm's src/sbatch/opt.c): arguments part
// at white space outside quotes; '…' and "…" quote; a backslash makes the
// next character literal but does not keep white space in an argument; an
// unquoted '#' ends the line.
func sbatchArgs(t *testing.T, line string) []string {
	t.Helper()
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
	var args []string
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return args
		}
		var arg []byte
		quoted, escaped, q := false, false, byte(0)
	scan:
		for i < len(line) && (quoted || !isSpace(line[i])) {
			c := line[i]
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
				i++
				continue
			case quoted:
				if c == q {
					quoted = false
					i++
					continue
				}
			case c == '"' || c == '\'':
				quoted, q = true, c
				i++
				continue
			case c == '#':
				break scan
			}
			arg = append(arg, c)
			i++
		}
		if quoted {
			t.Fatalf("sbatch: unmatched %c in [%s]", q, line)
		}
		if len(arg) > 0 {
			args = append(args, string(arg))
		}
		if i < len(line) && line[i] == '#' {
			return args
		}
	}
}

// expandPattern expands an sbatch file name pattern for array task a of
// job j (sbatch(1), "filename pattern": %% is '%', %a the array index, %j
// the job id).
func expandPattern(p string, a, j int) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+1 == len(p) {
			b.WriteByte(p[i])
			continue
		}
		i++
		switch p[i] {
		case '%':
			b.WriteByte('%')
		case 'a':
			fmt.Fprint(&b, a)
		case 'j':
			fmt.Fprint(&b, j)
		default:
			b.WriteString("<%" + string(p[i]) + ">")
		}
	}
	return b.String()
}

// TestScriptHostileDirs: an output directory with a line break and a
// command, or other control characters, is refused; one with '%', spaces,
// quotes, '#', $(…), `…`, globs and the like gets a script whose #SBATCH
// lines, read as sbatch reads them, name that directory and its logs (the
// pattern expanding to that directory), and whose command, run by bash,
// runs the task with exactly its arguments and nothing else.
func TestScriptHostileDirs(t *testing.T) {
	for _, name := range []string{"x\nrm -rf ~", "x\r\n#SBATCH --wrap=id", "a\tb", "a\x00b", "a\x7fb", `a\b`, "a-hetjob"} {
		c := Config{Dir: filepath.Join(t.TempDir(), name), Tasks: 2}
		if err := c.Validate(4); err == nil {
			t.Errorf("directory %q accepted:\n%s", name, Script(&c))
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("directory %q: the refusal is not one line: %v", name, err)
		}
	}
	for _, name := range []string{"%j", "100%%", "a%ab%Ac%%j", "with space", "it's", `say "hi"`, "a #comment", "$(touch pwned)", "`touch pwned`",
		"${HOME}", "a;touch pwned;b", "a|b&c", "*", "~", "-x", "'$(touch pwned)'", `"$(touch pwned)"`, "ü –", ":x", "=a=b="} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, name)
			c := Config{Dir: dir, Tasks: 2, Command: []string{"printf", `%s\n`}, Sbatch: []string{"--comment=" + name}, JobName: name}
			if err := c.Validate(4); err != nil {
				t.Fatal(err)
			}
			s := Script(&c)
			opts := map[string][]string{}
			for _, line := range strings.Split(s, "\n") {
				rest, ok := strings.CutPrefix(line, "#SBATCH")
				if !ok {
					continue
				}
				args := sbatchArgs(t, rest)
				if len(args) != 1 {
					t.Fatalf("sbatch reads %q as %q, not one option", line, args)
				}
				k, v, _ := strings.Cut(args[0], "=")
				opts[k] = append(opts[k], v)
			}
			for k, want := range map[string]string{"--chdir": dir, "--job-name": name, "--comment": name} {
				if got := opts[k]; len(got) != 1 || got[0] != want {
					t.Errorf("sbatch reads %s as %q, want %q", k, got, want)
				}
			}
			if got, want := expandPattern(opts["--output"][0], 1, 77), filepath.Join(dir, LogDir, "task-1.job-77.log"); got != want {
				t.Errorf("task 1 of job 77 logs to %q, want %q", got, want)
			}
			if out, err := exec.Command("bash", "-n", "-c", s).CombinedOutput(); err != nil {
				t.Fatalf("bash -n: %v: %s", err, out)
			}
			work := t.TempDir()
			cmd := exec.Command("bash", "-c", s)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_PER_TASK=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			want := strings.Join([]string{"run", "-config", filepath.Join(dir, CampaignFile), "-db", ShardDB(dir, 1),
				"-out", filepath.Join(dir, "report-task"), "-shard", "1/2", "-parallel", "2"}, "\n") + "\n"
			if string(out) != want {
				t.Errorf("the task runs with\n%s\nwant\n%s", out, want)
			}
			for _, d := range []string{root, work} {
				if ents, _ := os.ReadDir(d); len(ents) > 0 {
					t.Errorf("the script wrote %v in %s", ents, d)
				}
			}
		})
	}
}

// TestSubmitHostileDirOnSlurm: on a real Slurm cluster, an array in a
// directory whose name holds spaces, quotes, '#', '%' patterns and $(…)
// runs in that directory and logs to its logs/, and nothing runs that
// the name spells.
func TestSubmitHostileDirOnSlurm(t *testing.T) {
	cluster := slurmtest.Start(t, slurmtest.Config{CPUs: 1})
	defer cluster.Stop()
	root := t.TempDir()
	dir := filepath.Join(root, `a b'c "d" #e %j 100%% $(touch pwned) `+"`touch pwned`")
	cfg := findball.DefaultConfig()
	cfg.Balls = cfg.Balls[:1]
	cfg.Trials = 1
	// The task prints its working directory and fails.
	c := Config{Dir: dir, Tasks: 1, Poll: 100 * time.Millisecond, Resubmit: -1, Env: cluster.Env(),
		Command: []string{"/bin/sh", "-c", `printf '%s\n' "$PWD"; exit 3`, "task"}}
	_, err := Submit(context.Background(), c, &cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "ended FAILED") || !strings.Contains(err.Error(), "its log is "+filepath.Join(dir, LogDir)) {
		t.Fatalf("error %v, want the failed task and its log", err)
	}
	logs, _ := filepath.Glob(filepath.Join(globEscape(dir), LogDir, "task-0.job-*.log"))
	if len(logs) != 1 {
		ents, _ := os.ReadDir(filepath.Join(dir, LogDir))
		t.Fatalf("logs %q; in logs/: %v", logs, ents)
	}
	out, err := os.ReadFile(logs[0])
	if err != nil || string(out) != dir+"\n" {
		t.Errorf("the task ran in %q (%v), want %q", out, err, dir)
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("the directory's name ran a command")
	}
	if ents, _ := os.ReadDir(root); len(ents) != 1 {
		t.Errorf("beside the directory: %v", ents)
	}
}

// globEscape escapes filepath.Match's special characters in p.
func globEscape(p string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(p)
}
