// Package slurmtest starts a real single-node Slurm cluster for tests:
// munged with a throwaway key, slurmctld and slurmd on loopback, with a
// slurm.conf written for this machine into a temporary directory, and
// stops all of it (and every job process it started) when the test ends.
//
// It runs Debian's slurm-wlm and munge packages (Slurm 22.05) as root, with
// no cgroups (proctrack/linuxproc, task/none) and no accounting: the
// controller keeps ended jobs for MinJobAge (300 s), which is where squeue
// finds their states.
package slurmtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binaries are the programs a cluster needs.
var Binaries = []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"}

// Marker is the environment variable every process of a cluster carries
// (its directory): Stop kills the processes that have it.
const Marker = "ROBOTD_SLURMTEST_DIR"

// Config is a cluster's shape.
type Config struct {
	// CPUs is the node's number of CPUs (default: this machine's).
	CPUs int
	// Ready bounds the wait for the node to become idle (60 s by default).
	Ready time.Duration
}

// Cluster is a running single-node cluster.
type Cluster struct {
	// Dir holds the configuration, the key, the state, the spool and the
	// daemons' logs; Conf is its slurm.conf; Node is the node's name.
	Dir, Conf, Node string
	CPUs            int
	t               testing.TB
	munged, ctld    *proc
	slurmd          *proc
	stopped         bool
}

// proc is a started daemon; done closes when it has exited.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Require makes sure the cluster's programs are installed. When one is
// missing the test is skipped with the reason, except under CI (CI=true),
// where it fails: CI installs the packages (.ci/run).
func Require(t testing.TB) {
	t.Helper()
	var missing []string
	for _, b := range Binaries {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) == 0 {
		if os.Geteuid() != 0 {
			skipOrFail(t, "a test Slurm cluster runs its daemons as root; this test runs as uid "+strconv.Itoa(os.Geteuid()))
		}
		return
	}
	skipOrFail(t, fmt.Sprintf("%s not installed: apt-get install slurm-wlm munge (Debian)", strings.Join(missing, ", ")))
}

func skipOrFail(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("no Slurm cluster for this test under CI: %s", why)
	}
	t.Skip("no Slurm cluster for this test: " + why)
}

// Start starts a cluster and waits until its node is idle; the test's
// cleanup stops it.
func Start(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	Require(t)
	if cfg.CPUs <= 0 {
		cfg.CPUs = runtime.NumCPU()
	}
	if cfg.Ready <= 0 {
		cfg.Ready = 60 * time.Second
	}
	dir := t.TempDir()
	// munged wants its socket's directory searchable by every user.
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	node, _, _ := strings.Cut(host, ".")
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf"), Node: node, CPUs: cfg.CPUs, t: t}
	t.Cleanup(c.Stop)
	for _, d := range []string{"state", "spool"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o400); err != nil {
		t.Fatal(err)
	}
	ports, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Conf, []byte(Conf(dir, node, cfg.CPUs, ports[0], ports[1])), 0o644); err != nil {
		t.Fatal(err)
	}
	c.munged = c.start("munged", "munged", "-F", "-f", "--key-file="+filepath.Join(dir, "munge.key"),
		"--socket="+c.mungeSocket(), "--pid-file="+filepath.Join(dir, "munged.pid"),
		"--log-file="+filepath.Join(dir, "munged.log"), "--seed-file="+filepath.Join(dir, "munged.seed"))
	c.waitFor(cfg.Ready, "munged's socket", func() bool {
		_, err := os.Stat(c.mungeSocket())
		return err == nil
	})
	c.ctld = c.start("slurmctld", "slurmctld", "-D", "-i", "-f", c.Conf)
	c.slurmd = c.start("slurmd", "slurmd", "-D", "-f", c.Conf, "-N", node)
	c.waitFor(cfg.Ready, "node "+node+" idle", func() bool {
		out, err := c.Command(context.Background(), "sinfo", "-h", "-n", node, "-o", "%T").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	})
	return c
}

func (c *Cluster) mungeSocket() string { return filepath.Join(c.Dir, "munge.socket") }

// Conf returns a slurm.conf for one node of cpus CPUs on loopback, with
// every file under dir.
func Conf(dir, node string, cpus, ctldPort, slurmdPort int) string {
	return fmt.Sprintf(`# A single-node test cluster on loopback (written by robotd's slurmtest).
ClusterName=robotdtest
SlurmctldHost=%[2]s(127.0.0.1)
SlurmctldPort=%[4]d
SlurmdPort=%[5]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[1]s/munge.socket
CredType=cred/munge
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd.pid
SlurmctldLogFile=%[1]s/slurmctld.log
SlurmdLogFile=%[1]s/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=5
NodeName=%[2]s NodeAddr=127.0.0.1 CPUs=%[3]d State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, dir, node, cpus, ctldPort, slurmdPort)
}

// Env is the environment for Slurm's commands (and, through sbatch, the
// jobs) on this cluster: SLURM_CONF and the cluster's marker.
func (c *Cluster) Env() []string {
	return []string{"SLURM_CONF=" + c.Conf, Marker + "=" + c.Dir}
}

// Command returns a Slurm command on this cluster.
func (c *Cluster) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), c.Env()...)
	return cmd
}

func (c *Cluster) start(name string, args ...string) *proc {
	c.t.Helper()
	out, err := os.Create(filepath.Join(c.Dir, name+".out"))
	if err != nil {
		c.t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), c.Env()...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("starting %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p
}

// waitFor polls ready until it holds, failing the test with the daemons'
// logs after d or when a daemon has exited.
func (c *Cluster) waitFor(d time.Duration, what string, ready func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for !ready() {
		for _, p := range []*proc{c.munged, c.ctld, c.slurmd} {
			if p != nil && p.exited() {
				c.t.Fatalf("waiting for %s: %s exited:\n%s", what, p.name, c.Logs())
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("waiting for %s: not after %v:\n%s", what, d, c.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Logs returns the tails of the daemons' output.
func (c *Cluster) Logs() string {
	var b bytes.Buffer
	for _, n := range []string{"munged.out", "slurmctld.out", "slurmd.out"} {
		data, _ := os.ReadFile(filepath.Join(c.Dir, n))
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "--- %s\n%s", n, data)
	}
	return b.String()
}

// Stop cancels the cluster's jobs, stops its daemons and kills any process
// left that carries the cluster's marker (job steps, their children). It
// is idempotent, and the test's cleanup calls it.
func (c *Cluster) Stop() {
	if c.stopped {
		return
	}
	c.stopped = true
	if c.ctld != nil && !c.ctld.exited() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = c.Command(ctx, "scancel", "--full", "--user=root").Run()
		cancel()
	}
	for _, p := range []*proc{c.slurmd, c.ctld} {
		stop(p, 10*time.Second)
	}
	c.killMarked()
	stop(c.munged, 10*time.Second)
	if left := c.marked(); len(left) > 0 {
		c.t.Errorf("slurmtest: processes of the cluster still running after it stopped: %v", left)
	}
}

// stop sends SIGTERM to a daemon's process group, then SIGKILL after d,
// and reaps it.
func stop(p *proc, d time.Duration) {
	if p == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(d):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// killMarked kills every process whose environment carries this cluster's
// marker, and waits (up to 10 s) until they are gone.
func (c *Cluster) killMarked() {
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := c.marked()
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// marked lists the live processes whose environment holds Marker=c.Dir.
func (c *Cluster) marked() []int {
	want := []byte(Marker + "=" + c.Dir + "\x00")
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && zombie(st) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// zombie reports whether /proc/PID/stat says the process has exited and
// waits to be reaped.
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// freePorts returns n TCP ports that were free on loopback a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("slurmtest: finding a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
