package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func splitHostPort(s string) (string, string, error) { return net.SplitHostPort(s) }

// conn is one robot's SSH connection and its SFTP session.
type conn struct {
	t       *Target
	ssh     *ssh.Client
	sftp    *sftp.Client
	session *ssh.Session // the SFTP subsystem's
	tap     *sftpTap
	stop    func() bool

	listMu sync.Mutex // one listing at a time: the tap records one
}

// dial connects to the robot with its key and checks its host key.
func dial(ctx context.Context, t *Target, timeout time.Duration) (*conn, error) {
	keyPEM, err := os.ReadFile(t.Key)
	if err != nil {
		return nil, fmt.Errorf("reading the SSH key: %w", err)
	}
	signer, err := ssh.ParsePrivateKey(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("SSH key %s: %w", t.Key, err)
	}
	hostKey := ssh.InsecureIgnoreHostKey()
	if !t.insecure() {
		if hostKey, err = knownhosts.New(t.KnownHosts); err != nil {
			return nil, fmt.Errorf("known_hosts (set insecure_ignore_host_key to skip the check): %w", err)
		}
	}
	cfg := &ssh.ClientConfig{
		User:            t.User,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: hostKey,
		Timeout:         timeout,
	}
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", t.addr())
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", t.addr(), err)
	}
	// The handshake has no context: a deadline bounds it.
	_ = nc.SetDeadline(time.Now().Add(timeout))
	sc, chans, reqs, err := ssh.NewClientConn(nc, t.addr(), cfg)
	if err != nil {
		nc.Close()
		var ke *knownhosts.KeyError
		switch {
		case errors.As(err, &ke) && len(ke.Want) == 0:
			return nil, fmt.Errorf("host key of %s is not in %s (add it with ssh-keyscan, or set insecure_ignore_host_key): %w", t.addr(), t.KnownHosts, err)
		case errors.As(err, &ke):
			return nil, fmt.Errorf("host key of %s does not match %s (robot re-flashed? a different machine?): %w", t.addr(), t.KnownHosts, err)
		case strings.Contains(err.Error(), "unable to authenticate"):
			return nil, fmt.Errorf("%s@%s refused the key %s: %w", t.User, t.addr(), t.Key, err)
		}
		return nil, fmt.Errorf("SSH handshake with %s: %w", t.addr(), err)
	}
	_ = nc.SetDeadline(time.Time{})
	client := ssh.NewClient(sc, chans, reqs)
	c := &conn{t: t, ssh: client, tap: newSFTPTap()}
	if err := c.startSFTP(); err != nil {
		client.Close()
		return nil, fmt.Errorf("starting SFTP on %s: %w", t.addr(), err)
	}
	// Close the connection when ctx ends, so nothing blocks past it.
	c.stop = context.AfterFunc(ctx, func() { c.ssh.Close() })
	return c, nil
}

// startSFTP opens the SFTP subsystem as pkg/sftp's NewClient does, with
// the tap (see sftpTap) between the client and the channel.
func (c *conn) startSFTP() error {
	s, err := c.ssh.NewSession()
	if err != nil {
		return err
	}
	w, err := s.StdinPipe()
	if err != nil {
		s.Close()
		return err
	}
	r, err := s.StdoutPipe()
	if err != nil {
		s.Close()
		return err
	}
	if err := s.RequestSubsystem("sftp"); err != nil {
		s.Close()
		return err
	}
	sf, err := sftp.NewClientPipe(c.tap.reader(r), c.tap.writer(w), sftp.UseConcurrentWrites(true))
	if err != nil {
		s.Close()
		return err
	}
	c.sftp, c.session = sf, s
	return nil
}

// readDir lists dir with at most budget entries (more cut the
// connection: see sftpTap) and returns the entries with the names the
// robot sent for them, in pkg/sftp's order.
func (c *conn) readDir(ctx context.Context, dir string, budget int) ([]os.FileInfo, []string, error) {
	c.listMu.Lock()
	defer c.listMu.Unlock()
	c.tap.startListing(budget)
	entries, err := c.sftp.ReadDirContext(ctx, dir)
	raw, malformed, cut := c.tap.endListing()
	switch {
	case cut != nil:
		return nil, nil, fmt.Errorf("listing %s: %w", dir, cut)
	case err != nil:
		return nil, nil, fmt.Errorf("listing %s: %w", dir, err)
	case malformed:
		return nil, nil, fmt.Errorf("listing %s: a malformed SSH_FXP_NAME packet", dir)
	}
	names, ok := listedNames(entries, raw)
	if !ok {
		return nil, nil, fmt.Errorf("listing %s: %d entries for %d names sent", dir, len(entries), len(names))
	}
	return entries, names, nil
}

func (c *conn) Close() error {
	c.stop()
	e1 := c.sftp.Close()
	c.session.Close()
	e2 := c.ssh.Close()
	if e1 != nil && !errors.Is(e1, net.ErrClosed) {
		return e1
	}
	if e2 != nil && !errors.Is(e2, net.ErrClosed) {
		return e2
	}
	return nil
}

// output runs a command on the robot and returns its standard output and
// its error output (at most 4 KiB of it kept). Standard output past limit
// bytes ends the session and is an error. err is the command's failure
// (an *ssh.ExitError for an exit status).
func (c *conn) output(cmd string, limit int64) (stdout, stderr []byte, err error) {
	s, err := c.ssh.NewSession()
	if err != nil {
		return nil, nil, fmt.Errorf("SSH session: %w", err)
	}
	defer s.Close()
	out := &limitBuffer{max: limit, full: func() { s.Close() }}
	eout := &limitBuffer{max: 4 << 10}
	s.Stdout, s.Stderr = out, eout
	err = s.Run(cmd)
	if out.over {
		return nil, eout.Bytes(), fmt.Errorf("running %q on the robot: more than %d bytes of output", cmd, limit)
	}
	return out.Bytes(), eout.Bytes(), err
}

// limitBuffer keeps the first max bytes written and drops the rest; the
// first write past max calls full.
type limitBuffer struct {
	bytes.Buffer
	max  int64
	over bool
	full func()
}

func (b *limitBuffer) Write(p []byte) (int, error) {
	room := b.max - int64(b.Len())
	if int64(len(p)) <= room {
		return b.Buffer.Write(p)
	}
	b.Buffer.Write(p[:max(room, 0)])
	if !b.over && b.full != nil {
		b.full()
	}
	b.over = true
	return len(p), nil
}

// run runs a command on the robot and returns its combined output.
func (c *conn) run(cmd string) (string, error) {
	s, err := c.ssh.NewSession()
	if err != nil {
		return "", fmt.Errorf("SSH session: %w", err)
	}
	defer s.Close()
	out, err := s.CombinedOutput(cmd)
	if err != nil {
		return string(out), fmt.Errorf("running %q on the robot: %w: %s", cmd, err, bytes.TrimSpace(out))
	}
	return string(out), nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
