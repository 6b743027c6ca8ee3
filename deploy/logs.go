package deploy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"
)

// Logs follows the robot's service log (journalctl -fu UNIT) into w until ctx
// ends or the remote command exits.
func Logs(ctx context.Context, c *Config, t *Target, w io.Writer) error {
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
	s.Stdout, s.Stderr = lw, lw
	cmd := shellQuote(t.Journalctl) + " -o short-precise -fu " + shellQuote(t.Unit)
	done := make(chan error, 1)
	go func() { done <- s.Run(cmd) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %s: %w", t.Name, cmd, err)
		}
		return nil
	case <-ctx.Done():
		_ = s.Close()
		<-done
		return nil
	}
}

// Pull copies the robot's recordings directory into dst/<robot name>/,
// skipping files already there with the same size, and returns the files
// it fetched.
func Pull(ctx context.Context, c *Config, t *Target, dst string) ([]string, error) {
	cn, err := dial(ctx, t, c.DialTimeout.D())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	defer cn.Close()
	src := t.Recordings
	if !path.IsAbs(src) {
		src = path.Join(t.Dir, "current", src)
	}
	src = t.remote(src)
	out := filepath.Join(dst, t.Name)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	var got []string
	walk := cn.sftp.Walk(src)
	for walk.Step() {
		if err := ctx.Err(); err != nil {
			return got, err
		}
		if err := walk.Err(); err != nil {
			if errors.Is(err, os.ErrNotExist) && walk.Path() == src {
				return nil, fmt.Errorf("%s: no recordings at %s", t.Name, src)
			}
			return got, fmt.Errorf("%s: listing %s: %w", t.Name, walk.Path(), err)
		}
		st := walk.Stat()
		if !st.Mode().IsRegular() {
			continue
		}
		rel, err := filepath.Rel(src, walk.Path())
		if err != nil {
			return got, err
		}
		local := filepath.Join(out, filepath.FromSlash(rel))
		if lst, err := os.Stat(local); err == nil && lst.Size() == st.Size() {
			continue
		}
		if err := fetchFile(cn, walk.Path(), local); err != nil {
			return got, fmt.Errorf("%s: %w", t.Name, err)
		}
		got = append(got, local)
	}
	return got, nil
}

func fetchFile(c *conn, src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	r, err := c.sftp.Open(src)
	if err != nil {
		return fmt.Errorf("opening %s: %w", src, err)
	}
	defer r.Close()
	tmp := dst + ".part"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := r.WriteTo(w); err != nil {
		w.Close()
		return fmt.Errorf("fetching %s: %w", src, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
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
