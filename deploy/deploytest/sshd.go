// Package deploytest runs a real OpenSSH server for deploy tests: Debian's
// openssh-server on a free loopback port with a throwaway host key and user
// key, a /metrics that ticks, and recording stand-ins for systemctl and
// journalctl. It also runs a hostile robot in-process (Hostile): an SSH
// server whose SFTP listings, files and command output the test writes.
package deploytest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHDPath is Debian's openssh-server daemon (.ci/run installs it).
const SSHDPath = "/usr/sbin/sshd"

// SSHD is a real OpenSSH server on a free loopback port, with a
// throwaway host key, accepting one user key.
type SSHD struct {
	Addr       string
	User       string
	Key        string // the accepted private key
	OtherKey   string // a private key the server refuses
	KnownHosts string
	stderr     *bytes.Buffer
}

// WriteKey writes a new ed25519 private key in OpenSSH format to file and
// returns its public key.
func WriteKey(t testing.TB, file string) ssh.PublicKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// StartSSHD starts sshd -D in dir and stops it when the test ends.
func StartSSHD(t testing.TB, dir string) *SSHD {
	t.Helper()
	if _, err := os.Stat(SSHDPath); err != nil {
		t.Fatalf("%s: %v (install Debian's openssh-server; .ci/run does)", SSHDPath, err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if u.Uid == "0" {
		// sshd refuses to start as root without its privilege-separation
		// directory (Debian creates it in the service's RuntimeDirectory).
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hostPub := WriteKey(t, filepath.Join(dir, "host_key"))
	userPub := WriteKey(t, filepath.Join(dir, "user_key"))
	WriteKey(t, filepath.Join(dir, "other_key"))
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(userPub), 0o600); err != nil {
		t.Fatal(err)
	}
	port := FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	kh := knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostPub)
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(kh+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile none
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowTcpForwarding yes
Subsystem sftp internal-sftp
MaxStartups 100
MaxSessions 100
LogLevel ERROR
`, port, filepath.Join(dir, "host_key"), filepath.Join(dir, "authorized_keys"))
	cf := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &SSHD{
		Addr: addr, User: u.Username,
		Key: filepath.Join(dir, "user_key"), OtherKey: filepath.Join(dir, "other_key"),
		KnownHosts: filepath.Join(dir, "known_hosts"), stderr: &bytes.Buffer{},
	}
	cmd := exec.Command(SSHDPath, "-D", "-e", "-f", cf)
	cmd.Stderr = s.stderr // read only after Wait
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("sshd's log:\n%s", s.stderr.String())
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return s
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("sshd exited: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd does not listen on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FakeMetrics serves a /metrics on loopback whose robotd_ticks_total grows
// as a robotd on LoLA's 12 ms cycle ticks (from the first scrape on), and
// returns its port.
func FakeMetrics(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var start time.Time
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		if start.IsZero() {
			start = time.Now()
		}
		n := int64(time.Since(start)/(12*time.Millisecond)) + 1
		mu.Unlock()
		fmt.Fprintf(w, "# HELP robotd_ticks_total Ticks.\n# TYPE robotd_ticks_total counter\nrobotd_ticks_total %d\nrobotd_backend_connected 1\n", n)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// Recorder is a shell script standing in for systemctl or journalctl on
// the robot: it appends its arguments to log and prints out.
func Recorder(t testing.TB, file, log, out string) string {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\necho \"$@\" >> %s\n%s\n", log, out)
	if err := os.WriteFile(file, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return file
}

// ReadLines returns file's lines (none if it does not exist).
func ReadLines(t testing.TB, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
