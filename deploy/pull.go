package deploy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Pull copies the robot's recordings directory into dst/<robot name>/,
// skipping files already there with the same size, and returns the files
// it fetched. Nothing is written outside dst/<robot name>/: the walk takes
// the names the robot lists as they were sent, and refuses a name that is
// not a plain file name (empty, ".", "..", with '/' or a control
// character), a directory deeper than c.Pull.MaxDepth and a file larger
// than c.Pull.MaxFileBytes; each refusal is one line of the returned error
// and the pull goes on with the rest. The pull ends, with an error that
// says which, when the robot has listed c.Pull.MaxEntries entries or the
// files fetched would exceed c.Pull.MaxTotalBytes. A file is read up to
// the size the robot listed for it, into NAME.part, renamed into place
// when complete and removed when not.
func Pull(ctx context.Context, c *Config, t *Target, dst string) ([]string, error) {
	if err := checkRobotName("robot name", t.Name); err != nil {
		return nil, err
	}
	if errs := c.Pull.validate(); len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", t.Name, errors.Join(errs...))
	}
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
	if ok, err := exists(cn, src); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	} else if !ok {
		return nil, fmt.Errorf("%s: no recordings at %s", t.Name, src)
	}
	out := filepath.Join(dst, t.Name)
	got, refused, err := pullTree(ctx, cn, src, out, c.Pull)
	var errs []error
	for _, r := range refused {
		errs = append(errs, fmt.Errorf("%s: %w", t.Name, r))
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", t.Name, err))
	}
	return got, errors.Join(errs...)
}

// puller is one pull's walk.
type puller struct {
	c       *conn
	root    *os.Root // out: every local write goes through it
	out     string
	lim     PullLimits
	entries int   // listed so far
	total   int64 // bytes fetched so far
	buf     []byte
	got     []string
	refused []error
}

// pullTree copies the remote directory src into the local directory out
// (created if need be) within the limits lim. It returns the local files
// fetched, the entries refused (one error each), and the error that ended
// the pull early, if one did.
func pullTree(ctx context.Context, c *conn, src, out string, lim PullLimits) ([]string, []error, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, nil, err
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	p := &puller{c: c, root: root, out: filepath.Clean(out), lim: lim, buf: make([]byte, 1<<20)}
	err = p.dir(ctx, src, "", 0)
	return p.got, p.refused, err
}

func (p *puller) refuse(format string, args ...any) {
	p.refused = append(p.refused, fmt.Errorf(format, args...))
}

// dir fetches the remote directory remote, which is rel (slash-separated)
// below the pull's root and depth levels deep. It returns only the errors
// that end the pull.
func (p *puller) dir(ctx context.Context, remote, rel string, depth int) error {
	budget := p.lim.MaxEntries - p.entries
	if budget <= 0 {
		return fmt.Errorf("the robot listed %d entries, pull.max_entries: stopped before %s", p.entries, remote)
	}
	entries, names, err := p.c.readDir(ctx, remote, budget)
	if err != nil {
		if ctx.Err() != nil || p.c.tap.cut() != nil || depth == 0 {
			return err
		}
		p.refuse("%w", err) // an unreadable subdirectory
		return nil
	}
	p.entries += len(names)
	for i, fi := range entries {
		name := names[i]
		if err := checkEntryName(name); err != nil {
			p.refuse("refused an entry of %s: %w", remote, err)
			continue
		}
		lrel := path.Join(rel, name)
		local, ok := p.local(lrel)
		if !ok {
			p.refuse("refused %s: the local path %q is not under %s", path.Join(remote, name), local, p.out)
			continue
		}
		switch {
		case fi.IsDir():
			if depth+1 > p.lim.MaxDepth {
				p.refuse("refused the directory %s: deeper than pull.max_depth (%d)", path.Join(remote, name), p.lim.MaxDepth)
				continue
			}
			if err := p.dir(ctx, path.Join(remote, name), lrel, depth+1); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			if err := p.file(ctx, path.Join(remote, name), lrel, local, fi.Size()); err != nil {
				return err
			}
		}
	}
	return nil
}

// local returns the local path of rel (slash-separated, below the pull's
// root), and whether it stays under the root after cleaning.
func (p *puller) local(rel string) (string, bool) {
	l := filepath.Join(p.out, filepath.FromSlash(rel))
	return l, filepath.IsLocal(filepath.FromSlash(rel)) && strings.HasPrefix(l, p.out+string(filepath.Separator))
}

// file fetches the remote file remote, listed with size bytes, to rel
// below the pull's root. It returns only the errors that end the pull.
func (p *puller) file(ctx context.Context, remote, rel, local string, size int64) error {
	if size > p.lim.MaxFileBytes {
		p.refuse("refused %s: %d bytes, more than pull.max_file_bytes (%d)", remote, size, p.lim.MaxFileBytes)
		return nil
	}
	lrel := filepath.FromSlash(rel)
	if st, err := p.root.Stat(lrel); err == nil && st.Mode().IsRegular() && st.Size() == size {
		return nil
	}
	if p.total+size > p.lim.MaxTotalBytes {
		return fmt.Errorf("%s (%d bytes) would take the pull past pull.max_total_bytes (%d bytes fetched of %d): stopped", remote, size, p.total, p.lim.MaxTotalBytes)
	}
	fatal, err := p.fetch(ctx, remote, lrel, size)
	switch {
	case fatal:
		return err
	case err != nil:
		p.refuse("%w", err)
		return nil
	}
	p.total += size
	p.got = append(p.got, local)
	return nil
}

// fetch copies the first size bytes of remote into lrel.part below the
// root and renames it to lrel; the .part goes on any failure. fatal says
// the error ends the pull (the connection or the local disk failed).
func (p *puller) fetch(ctx context.Context, remote, lrel string, size int64) (fatal bool, err error) {
	if err := p.root.MkdirAll(filepath.Dir(lrel), 0o755); err != nil {
		return true, fmt.Errorf("creating %s: %w", filepath.Join(p.out, filepath.Dir(lrel)), err)
	}
	r, err := p.c.sftp.Open(remote)
	if err != nil {
		if cut := p.c.tap.cut(); cut != nil {
			return true, fmt.Errorf("opening %s: %w", remote, cut)
		}
		return ctx.Err() != nil, fmt.Errorf("opening %s: %w", remote, err)
	}
	defer r.Close()
	tmp := lrel + ".part"
	w, err := p.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return true, fmt.Errorf("creating %s: %w", filepath.Join(p.out, tmp), err)
	}
	done := false
	defer func() {
		if !done {
			w.Close()
			_ = p.root.Remove(tmp)
		}
	}()
	// The writer hides os.File's ReadFrom, so that the copy reads in
	// p.buf's large chunks (pkg/sftp reads a large buffer with concurrent
	// requests).
	lw := &errWriter{w: w}
	n, err := io.CopyBuffer(lw, io.LimitReader(r, size), p.buf)
	switch {
	case lw.err != nil:
		return true, fmt.Errorf("writing %s: %w", filepath.Join(p.out, tmp), lw.err)
	case err != nil:
		if cut := p.c.tap.cut(); cut != nil {
			err = cut // what the connection died of
		}
		return ctx.Err() != nil || p.c.tap.cut() != nil, fmt.Errorf("fetching %s: %w", remote, err)
	case n < size:
		return false, fmt.Errorf("refused %s: the robot sent %d of the %d bytes it listed", remote, n, size)
	}
	if err := w.Close(); err != nil {
		return true, fmt.Errorf("closing %s: %w", filepath.Join(p.out, tmp), err)
	}
	if err := p.root.Rename(tmp, lrel); err != nil {
		_ = p.root.Remove(tmp)
		done = true
		return false, fmt.Errorf("refused %s: %w", remote, err)
	}
	done = true
	return false, nil
}

// errWriter records the error of its writer.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}
