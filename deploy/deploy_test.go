package deploy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/robotd/robotd/deploy/deploytest"
)

// The robot binary, built once for every test in the package.
var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

func robotBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "robotd-deploy-test-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin, buildErr = Build(context.Background(), "github.com/robotd/robotd/cmd/robotd", "amd64", dir)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	if code == 0 {
		// Every SSH connection, SFTP session and health-check client is
		// closed once the deploys return.
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// rig is one sshd and the robots it stands for: each robot is an install
// prefix (its "root") with its own systemctl and journalctl recorders.
type rig struct {
	t    *testing.T
	dir  string
	sshd *deploytest.SSHD
	cfg  Config
}

func newRig(t *testing.T) *rig {
	t.Helper()
	return newRigWith(t, robotBinary(t))
}

// tinyBinary is a stand-in for the robot binary: the robots' systemctl is
// a recorder, so nothing runs it, and a small one uploads at once.
func tinyBinary(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "robotd")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n# robotd stand-in\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// newRigWith is newRig installing bin as the robot binary.
func newRigWith(t *testing.T, bin string) *rig {
	t.Helper()
	dir := t.TempDir()
	r := &rig{t: t, dir: dir, sshd: deploytest.StartSSHD(t, dir)}
	src := filepath.Join(dir, "src")
	for _, d := range []string{src, filepath.Join(src, "actions")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(src, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("robotd.json", `{"robot": {"player": 2}}`+"\n")
	write("actions/kick_left.kf", "# test action\n")
	write("actions/getup_back.kf", "# test action\n")
	write("ball.net", "model bytes\n")
	r.cfg = DefaultConfig()
	r.cfg.Binary = bin
	r.cfg.Config = filepath.Join(src, "robotd.json")
	r.cfg.Actions = filepath.Join(src, "actions")
	r.cfg.Models = []string{filepath.Join(src, "ball.net")}
	r.cfg.HealthTimeout.UnmarshalJSON([]byte(`"20s"`))
	r.cfg.Defaults.Host = r.sshd.Addr
	r.cfg.Defaults.User = r.sshd.User
	r.cfg.Defaults.Key = r.sshd.Key
	r.cfg.Defaults.KnownHosts = r.sshd.KnownHosts
	r.cfg.Defaults.Dir = "/home/nao/robotd"
	r.cfg.Defaults.MetricsPort = deploytest.FakeMetrics(t)
	return r
}

// robot adds a robot installed under prefix dir/name.
func (r *rig) robot(name string) Target {
	root := filepath.Join(r.dir, name)
	if err := os.MkdirAll(root, 0o755); err != nil {
		r.t.Fatal(err)
	}
	t := Target{
		Name:       name,
		Prefix:     root,
		Systemctl:  deploytest.Recorder(r.t, filepath.Join(r.dir, name+"-systemctl"), filepath.Join(r.dir, name+"-systemctl.log"), ""),
		Journalctl: deploytest.Recorder(r.t, filepath.Join(r.dir, name+"-journalctl"), filepath.Join(r.dir, name+"-journalctl.log"), "echo 'robotd[1]: robotd running'"),
	}
	r.cfg.Robots = append(r.cfg.Robots, t)
	return t
}

func (r *rig) targets(names ...string) []Target {
	r.t.Helper()
	if err := r.cfg.Validate(); err != nil {
		r.t.Fatal(err)
	}
	ts, err := r.cfg.Targets(names...)
	if err != nil {
		r.t.Fatal(err)
	}
	return ts
}

func (r *rig) installed(name string, p ...string) string {
	return filepath.Join(append([]string{r.dir, name, "home/nao/robotd"}, p...)...)
}

func (r *rig) link(name, link string) string {
	r.t.Helper()
	v, err := os.Readlink(r.installed(name, link))
	if err != nil {
		r.t.Fatal(err)
	}
	return v
}

func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s differs from %s", b, a)
	}
}

func mustSucceed(t *testing.T, rs []Result) {
	t.Helper()
	for _, res := range rs {
		if res.Err != nil {
			t.Errorf("%s: %v", res.Robot, res.Err)
		} else if !res.Health.OK || res.Health.TickRate <= 0 || !res.Health.Connected {
			t.Errorf("%s: health %+v", res.Robot, res.Health)
		}
	}
}

// TestDeploySSHD deploys onto five robots in parallel through a real sshd,
// with a sixth that refuses the key and a seventh whose disk is full; then
// redeploys one robot, rolls it back, follows its log and pulls its
// recordings.
func TestDeploySSHD(t *testing.T) {
	// Mostly waiting on sshd and health checks: alongside the others.
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := newRig(t)
	good := []string{"nao1", "nao2", "nao3", "nao4", "nao5"}
	for _, n := range good {
		r.robot(n)
	}
	r.robot("refuses")
	r.cfg.Robots[len(r.cfg.Robots)-1].Key = r.sshd.OtherKey
	r.robot("full")
	fullFS := mountTiny(t, filepath.Join(r.dir, "full"))

	// A dry run changes nothing and lists everything.
	var out bytes.Buffer
	rs := Deploy(ctx, &r.cfg, r.targets("nao1"), Options{DryRun: true, Out: &out})
	if rs[0].Err != nil {
		t.Fatal(rs[0].Err)
	}
	for _, want := range []string{"+ robotd", "+ robotd.json", "+ actions/kick_left.kf", "+ models/ball.net", "+ unit "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry run does not say %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Lstat(r.installed("nao1", "current")); !os.IsNotExist(err) {
		t.Fatalf("dry run installed something: %v", err)
	}

	// All seven at once: five succeed, two fail with a clear message.
	out.Reset()
	start := time.Now()
	rs = Deploy(ctx, &r.cfg, r.targets(), Options{Out: &out})
	t.Logf("deploy to %d robots in parallel: %s\n%s", len(rs), time.Since(start).Round(time.Millisecond), out.String())
	mustSucceed(t, rs[:5])
	v1 := rs[0].Version
	for i, n := range good {
		if rs[i].Version != v1 {
			t.Errorf("%s got version %s, nao1 %s", n, rs[i].Version, v1)
		}
		sameFile(t, r.cfg.Binary, r.installed(n, "current", "robotd"))
		sameFile(t, r.cfg.Config, r.installed(n, "current", "robotd.json"))
		sameFile(t, filepath.Join(r.cfg.Actions, "kick_left.kf"), r.installed(n, "current", "actions", "kick_left.kf"))
		sameFile(t, filepath.Join(r.cfg.Actions, "getup_back.kf"), r.installed(n, "current", "actions", "getup_back.kf"))
		sameFile(t, r.cfg.Models[0], r.installed(n, "current", "models", "ball.net"))
		if st, err := os.Stat(r.installed(n, "current", "robotd")); err != nil || st.Mode().Perm() != 0o755 {
			t.Errorf("%s: robotd is not executable: %v %v", n, st.Mode(), err)
		}
		unit, err := os.ReadFile(filepath.Join(r.dir, n, "etc/systemd/system/robotd.service"))
		if err != nil {
			t.Fatalf("%s: no unit: %v", n, err)
		}
		wantExec := "ExecStart=" + r.installed(n, "current", "robotd") + " -config " + r.installed(n, "current", "robotd.json")
		if !strings.Contains(string(unit), wantExec) {
			t.Errorf("%s: unit does not start robotd:\n%s", n, unit)
		}
		// It waits for LoLA's socket, and systemd reads it back as written.
		checkUnit(t, &r.targets(n)[0], string(unit))
		calls := deploytest.ReadLines(t, filepath.Join(r.dir, n+"-systemctl.log"))
		if want := []string{"daemon-reload", "enable robotd.service", "restart robotd.service"}; !slices.Equal(calls, want) {
			t.Errorf("%s: systemctl calls %q, want %q", n, calls, want)
		}
	}
	if err := rs[5].Err; err == nil || !strings.Contains(err.Error(), "refuses: ") || !strings.Contains(err.Error(), "refused the key "+r.sshd.OtherKey) {
		t.Errorf("a robot that refuses the key: %v", err)
	}
	if err := rs[6].Err; err == nil || !strings.Contains(err.Error(), "full: not enough space on the robot") {
		t.Errorf("a robot with a full disk: %v", err)
	} else {
		t.Logf("full disk (%s): %v", fullFS, err)
	}
	for _, n := range []string{"refuses", "full"} {
		if _, err := os.Lstat(r.installed(n, "current")); !os.IsNotExist(err) {
			t.Errorf("%s: a current version after a failed deploy: %v", n, err)
		}
		if _, err := os.Stat(r.installed(n, "versions", ".incoming-"+v1)); !os.IsNotExist(err) {
			t.Errorf("%s: a partial upload is left behind: %v", n, err)
		}
	}
	if !strings.Contains(out.String(), "nao3:      uploading") || !strings.Contains(out.String(), "nao5:      healthy: ticking at") {
		t.Errorf("no per-robot progress:\n%s", out.String())
	}

	// A second version on nao1: current is swapped atomically (it always
	// resolves, to v1 or v2), v1 is kept as previous.
	if err := os.WriteFile(r.cfg.Config, []byte(`{"robot": {"player": 3}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen sync.Map
	var broken atomic.Value
	watchCtx, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for watchCtx.Err() == nil {
			v, err := os.Readlink(r.installed("nao1", "current"))
			if err != nil {
				broken.Store(err)
				continue
			}
			seen.Store(filepath.Base(v), true)
			if _, err := os.Stat(r.installed("nao1", "current", "robotd.json")); err != nil {
				broken.Store(err)
			}
		}
	}()
	out.Reset()
	rs = Deploy(ctx, &r.cfg, r.targets("nao1"), Options{Out: &out})
	stopWatch()
	<-watched
	t.Logf("second deploy:\n%s", out.String())
	mustSucceed(t, rs)
	v2 := rs[0].Version
	if v2 == v1 || rs[0].Previous != v1 {
		t.Fatalf("second deploy: version %s previous %s, first was %s", v2, rs[0].Previous, v1)
	}
	if err := broken.Load(); err != nil {
		t.Errorf("current did not resolve during the swap: %v", err)
	}
	if _, ok := seen.Load(v1); !ok {
		t.Errorf("the watcher never saw %s", v1)
	}
	if got := r.link("nao1", "current"); got != "versions/"+v2 {
		t.Errorf("current -> %s, want versions/%s", got, v2)
	}
	if got := r.link("nao1", "previous"); got != "versions/"+v1 {
		t.Errorf("previous -> %s, want versions/%s", got, v1)
	}
	sameFile(t, r.cfg.Config, r.installed("nao1", "current", "robotd.json"))
	// Only the changed file was sent: the rest are links to v1's.
	if !strings.Contains(out.String(), "uploaded 1 files") || !strings.Contains(out.String(), "4 unchanged from "+v1) {
		t.Errorf("the second deploy sent more than robotd.json:\n%s", out.String())
	}
	st1, err1 := os.Stat(r.installed("nao1", "versions", v1, "robotd"))
	st2, err2 := os.Stat(r.installed("nao1", "versions", v2, "robotd"))
	if err1 != nil || err2 != nil || !os.SameFile(st1, st2) {
		t.Errorf("v2's robotd is not v1's (%v, %v)", err1, err2)
	}
	if !strings.Contains(out.String(), "~ robotd.json") && rs[0].Changed[0] != "~ robotd.json" {
		t.Errorf("changes %q, want robotd.json changed", rs[0].Changed)
	}

	// Rollback restores v1 (and keeps v2 as previous).
	out.Reset()
	rs = Rollback(ctx, &r.cfg, r.targets("nao1"), Options{Out: &out})
	t.Logf("rollback:\n%s", out.String())
	mustSucceed(t, rs)
	if got := r.link("nao1", "current"); got != "versions/"+v1 {
		t.Errorf("after rollback current -> %s, want versions/%s", got, v1)
	}
	if got := r.link("nao1", "previous"); got != "versions/"+v2 {
		t.Errorf("after rollback previous -> %s, want versions/%s", got, v2)
	}
	b, err := os.ReadFile(r.installed("nao1", "current", "robotd.json"))
	if err != nil || !strings.Contains(string(b), `"player": 2`) {
		t.Errorf("after rollback robotd.json is %q (%v), want the first version's", b, err)
	}
	calls := deploytest.ReadLines(t, filepath.Join(r.dir, "nao1-systemctl.log"))
	if n := len(calls); n < 2 || calls[n-1] != "restart robotd.service" || calls[n-2] != "restart robotd.service" {
		t.Errorf("nao1 systemctl calls %q: want restarts after the redeploy and the rollback", calls)
	}

	// A robot without a previous version cannot roll back.
	rs = Rollback(ctx, &r.cfg, r.targets("nao3"), Options{})
	if err := rs[0].Err; err == nil || !strings.Contains(err.Error(), "nao3: no previous version to roll back to") {
		t.Errorf("rollback on a robot with one version: %v", err)
	}

	// logs and pull.
	var logs bytes.Buffer
	ts := r.targets("nao2")
	if err := Logs(ctx, &r.cfg, &ts[0], &logs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "robotd running") {
		t.Errorf("logs: %q", logs.String())
	}
	if got := deploytest.ReadLines(t, filepath.Join(r.dir, "nao2-journalctl.log")); !slices.Equal(got, []string{"-o short-precise -fu robotd.service"}) {
		t.Errorf("journalctl called with %q", got)
	}
	rec := r.installed("nao2", "current", "recordings")
	if err := os.MkdirAll(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"robotd-000001.rec", "robotd-000002.rec"} {
		if err := os.WriteFile(filepath.Join(rec, f), bytes.Repeat([]byte(f), 1000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := t.TempDir()
	got, err := Pull(ctx, &r.cfg, &ts[0], dst)
	if err != nil || len(got) != 2 {
		t.Fatalf("pull: %q, %v", got, err)
	}
	sameFile(t, filepath.Join(rec, "robotd-000002.rec"), filepath.Join(dst, "nao2", "robotd-000002.rec"))
	if again, err := Pull(ctx, &r.cfg, &ts[0], dst); err != nil || len(again) != 0 {
		t.Errorf("second pull fetched %q (%v), want nothing new", again, err)
	}
}

// mountTiny mounts a 1 MiB tmpfs at root's install directory, so that the
// robot runs out of disk, and unmounts it when the test ends.
func mountTiny(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, "home/nao/robotd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mounting a 1 MiB tmpfs at %s for the full-disk robot: %v: %s (the test needs root, or CAP_SYS_ADMIN)", dir, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return "tmpfs size=1m at " + dir
}

// TestDeployVerifiesRobot: what is on the robot is checked by SHA-256
// before it is trusted. A version whose binary a power cut left empty is
// installed again; a configuration edited on the robot is not carried into
// the next version by a hard link (a fresh copy goes instead) and makes
// the version it was edited in refuse a rollback; what killed deploys left
// in versions/ is removed. A second robot is installed under a directory
// whose name has a space, '%', '$', quotes and ';': its unit reads back
// as written.
func TestDeployVerifiesRobot(t *testing.T) {
	// Mostly waiting on sshd and health checks: alongside the others.
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := newRigWith(t, tinyBinary(t))
	r.robot("nao1")
	r.robot("odd")
	// A name with a space survives the MANIFEST (see the dry run below).
	if err := os.WriteFile(filepath.Join(r.cfg.Actions, "stand up.kf"), []byte("# stand up\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(r.dir, `odd dir 100%h $HOME 'q' "r";x`)
	r.cfg.Robots[1].Prefix = odd
	var out bytes.Buffer
	rs := Deploy(ctx, &r.cfg, r.targets(), Options{Out: &out})
	t.Logf("first deploy:\n%s", out.String())
	mustSucceed(t, rs)
	v1 := rs[0].Version
	unit, err := os.ReadFile(filepath.Join(odd, "etc/systemd/system/robotd.service"))
	if err != nil {
		t.Fatal(err)
	}
	checkUnit(t, &r.targets("odd")[0], string(unit))
	sameFile(t, r.cfg.Binary, filepath.Join(odd, "home/nao/robotd/current/robotd"))

	// The binary is empty on the robot: the same version again repairs it.
	size := int64(len("#!/bin/sh\n# robotd stand-in\n"))
	if err := os.Truncate(r.installed("nao1", "versions", v1, "robotd"), 0); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	rs = Deploy(ctx, &r.cfg, r.targets("nao1"), Options{Out: &out})
	t.Logf("deploy over a damaged version:\n%s", out.String())
	mustSucceed(t, rs)
	for _, want := range []string{
		fmt.Sprintf("%s on the robot is damaged (robotd: 0 bytes, want %d): installing it again", v1, size),
		"uploaded 1 files", "5 unchanged from " + v1,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the deploy does not say %q", want)
		}
	}
	if rs[0].Version != v1 || r.link("nao1", "current") != "versions/"+v1 {
		t.Errorf("version %s, current -> %s, want %s", rs[0].Version, r.link("nao1", "current"), v1)
	}
	sameFile(t, r.cfg.Binary, r.installed("nao1", "current", "robotd"))

	// robotd.json edited on the robot in place; a partial upload and a
	// damaged version left by killed deploys; a new action.
	edited := r.installed("nao1", "current", "robotd.json")
	if err := os.WriteFile(edited, []byte(`{"robot": {"player": 5}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".incoming-v000000000000", ".damaged-v000000000000-1"} {
		if err := os.MkdirAll(r.installed("nao1", "versions", d, "actions"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(r.cfg.Actions, "wave.kf"), []byte("# wave\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	rs = Deploy(ctx, &r.cfg, r.targets("nao1"), Options{Out: &out})
	t.Logf("deploy after an edit on the robot:\n%s", out.String())
	mustSucceed(t, rs)
	v2 := rs[0].Version
	for _, want := range []string{
		"robotd.json in " + v1 + " differs from its MANIFEST (SHA-256 differs from the MANIFEST; changed on the robot?): sending a fresh copy instead of linking it",
		"uploaded 2 files",
		"removed .incoming-v000000000000, left by an interrupted deploy",
		"removed .damaged-v000000000000-1, left by an interrupted deploy",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the deploy does not say %q", want)
		}
	}
	sameFile(t, r.cfg.Config, r.installed("nao1", "versions", v2, "robotd.json"))
	st1, err1 := os.Stat(r.installed("nao1", "versions", v1, "robotd.json"))
	st2, err2 := os.Stat(r.installed("nao1", "versions", v2, "robotd.json"))
	if err1 != nil || err2 != nil || os.SameFile(st1, st2) {
		t.Errorf("%s's robotd.json is the edited one of %s (%v, %v)", v2, v1, err1, err2)
	}
	for _, d := range []string{".incoming-v000000000000", ".damaged-v000000000000-1"} {
		if _, err := os.Stat(r.installed("nao1", "versions", d)); !os.IsNotExist(err) {
			t.Errorf("%s is left: %v", d, err)
		}
	}

	if _, err := os.Stat(r.installed("nao1", lockName)); !os.IsNotExist(err) {
		t.Errorf("the deploy left its lock: %v", err)
	}
	// Nothing changed since: the installed MANIFEST (with "stand up.kf")
	// reads back, the files verify.
	out.Reset()
	rs = Deploy(ctx, &r.cfg, r.targets("nao1"), Options{DryRun: true, Out: &out})
	if rs[0].Err != nil || len(rs[0].Changed) != 0 || !strings.Contains(out.String(), "nothing would change (7 files verified by SHA-256)") {
		t.Errorf("a dry run after the deploy: %v, changes %q:\n%s", rs[0].Err, rs[0].Changed, out.String())
	}

	// The rollback would make the edited version current: refused.
	rs = Rollback(ctx, &r.cfg, r.targets("nao1"), Options{})
	want := "nao1: not rolling back: " + v1 + " on the robot does not match its MANIFEST (robotd.json: SHA-256 differs from the MANIFEST): deploy instead"
	if err := rs[0].Err; err == nil || err.Error() != want {
		t.Errorf("rollback: %v, want %q", err, want)
	}
	if got := r.link("nao1", "current"); got != "versions/"+v2 {
		t.Errorf("current -> %s after a refused rollback", got)
	}
}

// TestDeployLock: one deploy at a time per robot. A lock held by another
// deploy refuses a deploy and a rollback before they change anything; a
// lock whose heartbeat stopped a minute ago is removed; of two deploys
// taking the lock at once, one gets it.
func TestDeployLock(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := newRigWith(t, tinyBinary(t))
	r.robot("nao1")
	ts := r.targets("nao1")
	lockDir := r.installed("nao1", lockName)
	connect := func() *conn {
		t.Helper()
		c, err := dial(ctx, &ts[0], 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	l, err := acquireLock(ctx, connect(), &ts[0], &printer{})
	if err != nil {
		t.Fatal(err)
	}
	want := "nao1: another deploy holds the lock " + lockDir + ` ("robotd deploy on `
	for name, f := range map[string]func(context.Context, *Config, []Target, Options) []Result{"deploy": Deploy, "rollback": Rollback} {
		rs := f(ctx, &r.cfg, r.targets("nao1"), Options{})
		if err := rs[0].Err; err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s while the lock is held: %v, want %q…", name, err, want)
		}
	}
	if _, err := os.Lstat(r.installed("nao1", "versions")); !os.IsNotExist(err) {
		t.Errorf("a deploy went ahead without the lock: %v", err)
	}
	if err := l.release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lockDir); !os.IsNotExist(err) {
		t.Fatalf("the lock is left after its release: %v", err)
	}

	// A killed deploy's lock.
	if err := os.MkdirAll(lockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	owner := filepath.Join(lockDir, lockOwner)
	if err := os.WriteFile(owner, []byte("robotd deploy on elsewhere, pid 1, token 00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * lockStale)
	if err := os.Chtimes(owner, old, old); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	l, err = acquireLock(ctx, connect(), &ts[0], &printer{w: &out})
	if err != nil {
		t.Fatal(err)
	}
	if want := "removed a stale lock " + lockDir + ` ("robotd deploy on elsewhere, pid 1, token 00", no heartbeat for 2m`; !strings.Contains(out.String(), want) {
		t.Errorf("taking a stale lock does not say %q:\n%s", want, out.String())
	}
	if err := l.release(); err != nil {
		t.Fatal(err)
	}

	// Two at once: one gets the lock.
	cs := []*conn{connect(), connect()}
	var locks [2]*robotLock
	var errs [2]error
	var wg sync.WaitGroup
	for i := range cs {
		wg.Go(func() { locks[i], errs[i] = acquireLock(ctx, cs[i], &ts[0], &printer{}) })
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two deploys at once: %v, %v; want one lock", errs[0], errs[1])
	}
	for i := range locks {
		if locks[i] != nil {
			if err := locks[i].release(); err != nil {
				t.Error(err)
			}
		} else if !strings.HasPrefix(errs[i].Error(), "another deploy holds the lock ") {
			t.Errorf("the second deploy: %v", errs[i])
		}
	}
}
