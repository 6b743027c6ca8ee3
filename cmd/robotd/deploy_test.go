package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/deploy"
	"github.com/robotd/robotd/deploy/deploytest"
)

// TestDeployCommand runs robotd deploy, logs and pull against a real sshd:
// a dry run, a deploy to two robots and one that refuses the key, a second
// version, a rollback, the log and the recordings.
func TestDeployCommand(t *testing.T) {
	// robotd deploy builds and ships the default (robot) build whichever
	// build runs it, and none of its code is build-tagged.
	onlyInRealBuild(t, "deploy always builds and ships the default build")
	// Mostly waiting on sshd and go build: beside the package's other
	// parallel tests.
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	sshd := deploytest.StartSSHD(t, dir)
	metrics := deploytest.FakeMetrics(t)
	src := filepath.Join(dir, "team")
	for _, d := range []string{"actions", "robots"} {
		if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(src, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("robotd.json", `{"robot": {"team_number": 5, "team_name": "lab"}}`)
	write("actions/kick_left.kf", "# kick\n")
	var robots []string
	for _, n := range []string{"nao21", "nao22", "nao23"} {
		key := sshd.Key
		if n == "nao23" {
			key = sshd.OtherKey
		}
		robots = append(robots, `{"name": "`+n+`", "prefix": "`+filepath.Join(dir, n)+`", "key": "`+key+`",
			"systemctl": "`+deploytest.Recorder(t, filepath.Join(dir, n+"-systemctl"), filepath.Join(dir, n+"-systemctl.log"), "")+`",
			"journalctl": "`+deploytest.Recorder(t, filepath.Join(dir, n+"-journalctl"), filepath.Join(dir, n+"-journalctl.log"),
			`echo "Nov 25 21:40:01.123456 nao robotd[812]: level=INFO msg=\"robotd running\" build=real"`)+`"}`)
	}
	write("deploy.json", `{
	"package": "github.com/robotd/robotd/cmd/robotd",
	"config": "robotd.json",
	"actions": "actions",
	"defaults": {"host": "`+sshd.Addr+`", "user": "`+sshd.User+`", "known_hosts": "`+sshd.KnownHosts+`",
		"metrics_port": `+strconv.Itoa(metrics)+`},
	"robots": [`+strings.Join(robots, ",\n")+`]
}`)
	deployFile := filepath.Join(src, "deploy.json")
	robotd := func(want int, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		start := time.Now()
		code := run(ctx, args, &out, &errOut)
		t.Logf("$ robotd %s   (%s)\n%s%s", strings.Join(args, " "), time.Since(start).Round(10*time.Millisecond), out.String(), errOut.String())
		if code != want {
			t.Fatalf("robotd %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out.String(), errOut.String())
		}
		return out.String()
	}

	out := robotd(exitOK, "deploy", "-f", deployFile, "-dry-run", "nao21")
	if !strings.Contains(out, "+ robotd\n") || !strings.Contains(out, "would install v") {
		t.Errorf("dry run:\n%s", out)
	}
	// The same binary from here on: built once (the dry run built its own).
	bin, err := deploy.Build(ctx, "github.com/robotd/robotd/cmd/robotd", "amd64", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out = robotd(exitFailed, "deploy", "-f", deployFile, "-binary", bin)
	for _, want := range []string{"nao21      ok      v", "nao22      ok      v", "nao23      FAILED  nao23: ", "refused the key"} {
		if !strings.Contains(out, want) {
			t.Errorf("deploy summary does not say %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nao22", "home/nao/robotd/current/robotd")); err != nil {
		t.Error(err)
	}
	write("robotd.json", `{"robot": {"team_number": 5, "team_name": "lab", "player": 3}}`)
	out = robotd(exitOK, "deploy", "-f", deployFile, "-binary", bin, "nao21")
	if !strings.Contains(out, "~ robotd.json") && !strings.Contains(out, "nao21      ok") {
		t.Errorf("second deploy:\n%s", out)
	}
	robotd(exitOK, "deploy", "-f", deployFile, "-rollback", "nao21")
	b, err := os.ReadFile(filepath.Join(dir, "nao21", "home/nao/robotd/current/robotd.json"))
	if err != nil || strings.Contains(string(b), `"player": 3`) {
		t.Errorf("after the rollback robotd.json is %q (%v)", b, err)
	}
	if out := robotd(exitOK, "logs", "-f", deployFile, "nao21"); !strings.Contains(out, "robotd running") {
		t.Errorf("logs: %q", out)
	}
	rec := filepath.Join(dir, "nao21", "home/nao/robotd/current/recordings")
	if err := os.MkdirAll(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rec, "robotd-000001.rec"), bytes.Repeat([]byte{1}, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	pulled := t.TempDir()
	if out := robotd(exitOK, "pull", "-f", deployFile, "-out", pulled, "nao21"); !strings.Contains(out, "nao21: 1 new files") {
		t.Errorf("pull: %q", out)
	}
	// A configuration robotd would refuse is not deployed.
	write("robotd.json", `{"robot": {"player": 42}}`)
	var errOut bytes.Buffer
	if code := run(ctx, []string{"deploy", "-f", deployFile, "-binary", bin, "nao21"}, &bytes.Buffer{}, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "player: 42 is outside 1..20") {
		t.Errorf("deploying a bad configuration: exit %d, %s", code, errOut.String())
	}
}

// TestDeployRefusesHostileDeployFile: a deploy file whose package is a
// go build flag (-toolexec runs any program) and one whose robot name
// climbs out of pull's -out are refused before anything runs, with one
// line that names the value.
func TestDeployRefusesHostileDeployFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	evil := filepath.Join(dir, "evil.sh")
	ran := filepath.Join(dir, "ran")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+ran+"\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "robotd.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, want string
		args             []string
	}{
		{"package", `{"package": "-toolexec=` + evil + `", "config": "robotd.json", "robots": [{"name": "nao21", "host": "127.0.0.1:1"}]}`,
			`package: "-toolexec=` + evil + `" begins with '-'`, []string{"deploy", "-dry-run"}},
		{"robot name", `{"config": "robotd.json", "robots": [{"name": "../../x", "host": "127.0.0.1:1"}]}`,
			`robots[0].name: "../../x" contains ".."`, []string{"pull", "-out", filepath.Join(dir, "out")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, tc.name+".json")
			if err := os.WriteFile(f, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			args := append(append(tc.args[:1:1], "-f", f), tc.args[1:]...)
			if tc.args[0] == "pull" {
				args = append(args, "../../x")
			}
			code := run(ctx, args, &out, &errOut)
			if code != exitUsage || !strings.Contains(errOut.String(), tc.want) || strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("robotd %s: exit %d, %q; want exit %d and one line saying %q", strings.Join(args, " "), code, errOut.String(), exitUsage, tc.want)
			}
		})
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Errorf("the -toolexec program ran: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("pull wrote outside -out: %v", err)
	}
}

// TestPullCommandRefusals: a robot lists "x/.." (pkg/sftp would make it
// "..") next to a recording: robotd pull fetches the recording, names the
// refused entry on a line of its own and exits 1.
func TestPullCommandRefusals(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	const rec = "/home/nao/robotd/current/recordings"
	h := deploytest.StartHostile(t, dir, deploytest.HostileFS{
		Stat: func(string) (os.FileInfo, error) { return deploytest.Entry{EntryName: "d", Dir: true}, nil },
		List: func(p string) ([]os.FileInfo, error) {
			return []os.FileInfo{
				deploytest.Entry{EntryName: "x/..", Dir: true},
				deploytest.Entry{EntryName: "robotd-000001.rec", EntrySize: 3},
			}, nil
		},
		Open: func(string) (io.ReaderAt, error) { return strings.NewReader("rec"), nil },
	})
	f := filepath.Join(dir, "deploy.json")
	if err := os.WriteFile(f, []byte(`{"config": "robotd.json", "robots": [{"name": "nao21", "host": "`+h.Addr+`", "user": "`+h.User+`",
		"key": "`+h.Key+`", "known_hosts": "`+h.KnownHosts+`"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"pull", "-f", f, "-out", out, "nao21"}, &stdout, &stderr)
	t.Logf("$ robotd pull -f deploy.json -out out nao21\n%s%s", stdout.String(), stderr.String())
	wantOut := filepath.Join(out, "nao21", "robotd-000001.rec") + "\nnao21: 1 new files\n"
	wantErr := `robotd pull: nao21: refused an entry of ` + rec + `: the name "x/.." contains '/'` + "\n"
	if code != exitFailed || stdout.String() != wantOut || stderr.String() != wantErr {
		t.Errorf("exit %d\n%q\n%q\nwant exit %d\n%q\n%q", code, stdout.String(), stderr.String(), exitFailed, wantOut, wantErr)
	}
}
