package deploy

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// Logs follows the robot's service log (journalctl -fu UNIT) into w until ctx
// ends or the remote command exits. Control characters in the log other
// than newline and tab (terminal escape sequences, carriage returns) and
// bytes that are not UTF-8 are written escaped (see escapeWriter).
func Logs(ctx context.Context, c *Config, t *Target, w io.Writer) error {
	if err := checkUnitName("unit", t.Unit); err != nil {
		return fmt.Errorf("%s: %w", t.Name, err)
	}
	cn, err := dial(ctx, t, c.DialTimeout.D())
	if err != nil {
		return fmt.Errorf("%s: %w", t.Name, err)
	}
	defer cn.Close()
	s, err := cn.ssh.NewSession()
	if err != nil {
		return fmt.Errorf("%s: SSH session: %w", t.Name, err)
	}
	defer s.Close()
	lw := &syncWriter{w: w}
	stdout, stderr := &escapeWriter{w: lw}, &escapeWriter{w: lw}
	s.Stdout, s.Stderr = stdout, stderr
	cmd := shellQuote(t.Journalctl) + " -o short-precise -fu " + shellQuote(t.Unit)
	done := make(chan error, 1)
	go func() { done <- s.Run(cmd) }()
	select {
	case err = <-done:
		if err != nil {
			err = fmt.Errorf("%s: %s: %w", t.Name, cmd, err)
		}
	case <-ctx.Done():
		_ = s.Close()
		<-done
	}
	stdout.Flush()
	stderr.Flush()
	return err
}

// syncWriter serialises the writes of a session's stdout and stderr.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
