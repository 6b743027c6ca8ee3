package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func splitHostPort(s string) (string, string, error) { return net.SplitHostPort(s) }

// conn is one robot's SSH connection and its SFTP session.
type conn struct {
	t    *Target
	ssh  *ssh.Client
	sftp *sftp.Client
	stop func() bool
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
	if !t.InsecureIgnoreHostKey {
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
	sf, err := sftp.NewClient(client, sftp.UseConcurrentWrites(true))
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("starting SFTP on %s: %w", t.addr(), err)
	}
	c := &conn{t: t, ssh: client, sftp: sf}
	// Close the connection when ctx ends, so nothing blocks past it.
	c.stop = context.AfterFunc(ctx, func() { c.ssh.Close() })
	return c, nil
}

func (c *conn) Close() error {
	c.stop()
	e1 := c.sftp.Close()
	e2 := c.ssh.Close()
	if e1 != nil && !errors.Is(e1, net.ErrClosed) {
		return e1
	}
	if e2 != nil && !errors.Is(e2, net.ErrClosed) {
		return e2
	}
	return nil
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
