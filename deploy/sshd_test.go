package deploy

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
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// sshdPath is Debian's openssh-server daemon (.ci/run installs it).
const sshdPath = "/usr/sbin/sshd"

// testSSHD is a real OpenSSH server on a free loopback port, with a
// throwaway host key, accepting one user key.
type testSSHD struct {
	Addr       string
	User       string
	Key        string // the accepted private key
	OtherKey   string // a private key the server refuses
	KnownHosts string
	stderr     *bytes.Buffer
}

func writeKey(t *testing.T, file string) ssh.PublicKey {
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

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startSSHD starts sshd -D in dir and stops it when the test ends.
func startSSHD(t *testing.T, dir string) *testSSHD {
	t.Helper()
	if _, err := os.Stat(sshdPath); err != nil {
		t.Fatalf("%s: %v (install Debian's openssh-server; .ci/run does)", sshdPath, err)
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
	hostPub := writeKey(t, filepath.Join(dir, "host_key"))
	userPub := writeKey(t, filepath.Join(dir, "user_key"))
	writeKey(t, filepath.Join(dir, "other_key"))
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(userPub), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
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
	s := &testSSHD{
		Addr: addr, User: u.Username,
		Key: filepath.Join(dir, "user_key"), OtherKey: filepath.Join(dir, "other_key"),
		KnownHosts: filepath.Join(dir, "known_hosts"), stderr: &bytes.Buffer{},
	}
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", cf)
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

// fakeMetrics serves a /metrics whose robotd_ticks_total grows with every
// scrape, as a ticking robotd's does.
func fakeMetrics(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var ticks atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		n := ticks.Add(42)
		fmt.Fprintf(w, "# HELP robotd_ticks_total Ticks.\n# TYPE robotd_ticks_total counter\nrobotd_ticks_total %d\nrobotd_backend_connected 1\n", n)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// recorder is a shell script standing in for systemctl or journalctl on
// the robot: it appends its arguments to log and prints out.
func recorder(t *testing.T, file, log, out string) string {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\necho \"$@\" >> %s\n%s\n", log, out)
	if err := os.WriteFile(file, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return file
}

func readLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
