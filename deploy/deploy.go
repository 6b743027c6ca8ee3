package deploy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"time"
)

// Options are one deploy run's choices.
type Options struct {
	// DryRun shows what would change and changes nothing.
	DryRun bool
	// Out receives the per-robot progress lines ("nao21: ...").
	Out io.Writer
	// BuildDir holds the built binaries (default: a temporary directory).
	BuildDir string
}

// Result is what happened on one robot.
type Result struct {
	Robot    string
	Version  string // the version now current (or that would be)
	Previous string // the version kept for a rollback
	Changed  []string
	Health   Health
	Err      error
}

// printer serialises the robots' progress lines.
type printer struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *printer) say(robot, format string, args ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%-10s "+format+"\n", append([]any{robot + ":"}, args...)...)
}

// Deploy installs the configured version on every target, in parallel, and
// returns one result per target in their order. A failing robot does not
// stop the others.
func Deploy(ctx context.Context, c *Config, targets []Target, o Options) []Result {
	p := &printer{w: o.Out}
	// One bundle per architecture, built once.
	bundles := map[string]*bundle{}
	berr := map[string]error{}
	buildDir := o.BuildDir
	if buildDir == "" && c.Binary == "" {
		d, err := os.MkdirTemp("", "robotd-deploy-")
		if err != nil {
			return failAll(targets, fmt.Errorf("deploy: %w", err))
		}
		defer os.RemoveAll(d)
		buildDir = d
	}
	for _, t := range targets {
		if _, ok := bundles[t.GOARCH]; ok || berr[t.GOARCH] != nil {
			continue
		}
		bin := c.Binary
		if bin == "" {
			p.say("build", "go build %s for linux/%s (CGO_ENABLED=0)", c.Package, t.GOARCH)
			var err error
			if bin, err = Build(ctx, c.Package, t.GOARCH, buildDir); err != nil {
				berr[t.GOARCH] = err
				continue
			}
		}
		b, err := makeBundle(c, bin)
		if err != nil {
			berr[t.GOARCH] = err
			continue
		}
		bundles[t.GOARCH] = b
	}
	return each(ctx, c, targets, p, func(ctx context.Context, t *Target) Result {
		if err := berr[t.GOARCH]; err != nil {
			return Result{Robot: t.Name, Err: err}
		}
		return deployOne(ctx, c, t, bundles[t.GOARCH], o.DryRun, p)
	})
}

// Rollback makes each target's previous version current again (and the
// current one previous), restarts and checks health.
func Rollback(ctx context.Context, c *Config, targets []Target, o Options) []Result {
	p := &printer{w: o.Out}
	return each(ctx, c, targets, p, func(ctx context.Context, t *Target) Result {
		return rollbackOne(ctx, c, t, o.DryRun, p)
	})
}

func failAll(targets []Target, err error) []Result {
	rs := make([]Result, len(targets))
	for i, t := range targets {
		rs[i] = Result{Robot: t.Name, Err: err}
	}
	return rs
}

// each runs f for every target, at most c.Parallel at a time, and reports
// each robot's outcome.
func each(ctx context.Context, c *Config, targets []Target, p *printer, f func(context.Context, *Target) Result) []Result {
	rs := make([]Result, len(targets))
	n := c.Parallel
	if n <= 0 {
		n = len(targets)
	}
	sem := make(chan struct{}, max(n, 1))
	var wg sync.WaitGroup
	for i := range targets {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			t := &targets[i]
			rs[i] = f(ctx, t)
			if rs[i].Err != nil {
				rs[i].Err = fmt.Errorf("%s: %w", t.Name, rs[i].Err)
				p.say(t.Name, "FAILED: %v", rs[i].Err)
			}
		})
	}
	wg.Wait()
	return rs
}

// state is a robot's installed versions.
type state struct {
	current, previous string // version names, "" if none
	unit              string // the installed unit file, "" if none
}

func readState(c *conn, t *Target) (state, error) {
	var s state
	var err error
	if s.current, err = readVersionLink(c, t.remote(t.Dir, "current")); err != nil {
		return s, err
	}
	if s.previous, err = readVersionLink(c, t.remote(t.Dir, "previous")); err != nil {
		return s, err
	}
	u, err := readFile(c, t.remote(t.UnitDir, t.Unit))
	if err != nil {
		return s, err
	}
	s.unit = string(u)
	return s, nil
}

// readVersionLink returns the version a link (versions/vX) points at, "" if
// there is no link.
func readVersionLink(c *conn, p string) (string, error) {
	target, err := c.sftp.ReadLink(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the link %s: %w", p, err)
	}
	return path.Base(target), nil
}

func readFile(c *conn, p string) ([]byte, error) {
	f, err := c.sftp.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", p, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	return b, nil
}

func exists(c *conn, p string) (bool, error) {
	_, err := c.sftp.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", p, err)
	}
	return true, nil
}

// changes lists what installing b changes against the current version's
// manifest old.
func changes(b *bundle, old map[string]string) []string {
	var out []string
	for _, f := range b.Files {
		switch sum, ok := old[f.Name]; {
		case !ok:
			out = append(out, "+ "+f.Name)
		case sum != f.SHA256:
			out = append(out, "~ "+f.Name)
		}
	}
	for name := range old {
		if !b.has(name) {
			out = append(out, "- "+name)
		}
	}
	return out
}

// installed reads the manifest of version v on the robot (empty if none).
func installed(c *conn, t *Target, v string) (map[string]string, error) {
	if v == "" {
		return map[string]string{}, nil
	}
	m, err := readFile(c, t.remote(t.Dir, "versions", v, manifestName))
	if err != nil {
		return nil, err
	}
	return parseManifest(m), nil
}

func deployOne(ctx context.Context, cfg *Config, t *Target, b *bundle, dry bool, p *printer) Result {
	r := Result{Robot: t.Name, Version: b.Version()}
	p.say(t.Name, "connecting to %s@%s", t.User, t.addr())
	c, err := dial(ctx, t, cfg.DialTimeout.D())
	if err != nil {
		r.Err = err
		return r
	}
	defer c.Close()
	st, err := readState(c, t)
	if err != nil {
		r.Err = err
		return r
	}
	cur, err := installed(c, t, st.current)
	if err != nil {
		r.Err = err
		return r
	}
	r.Changed = changes(b, cur)
	unit := unitFile(t)
	unitChanged := st.unit != unit
	switch {
	case st.unit == "":
		r.Changed = append(r.Changed, "+ unit "+t.remote(t.UnitDir, t.Unit))
	case unitChanged:
		r.Changed = append(r.Changed, "~ unit "+t.remote(t.UnitDir, t.Unit))
	}
	r.Previous = st.current
	if st.current == r.Version {
		r.Previous = st.previous
	}
	if dry {
		p.say(t.Name, "dry run: current %s, would install %s", orNone(st.current), r.Version)
		for _, ch := range r.Changed {
			p.say(t.Name, "  %s", ch)
		}
		if len(r.Changed) == 0 {
			p.say(t.Name, "  nothing would change")
		} else {
			p.say(t.Name, "  would restart %s", t.Unit)
		}
		return r
	}
	if len(r.Changed) == 0 {
		p.say(t.Name, "%s is already current, nothing to do", r.Version)
		r.Health, r.Err = checkHealth(ctx, c, t, cfg.HealthTimeout.D(), p)
		return r
	}
	if err := install(c, t, b, st.current, cur, p); err != nil {
		r.Err = err
		return r
	}
	if st.current != r.Version {
		if err := swap(c, t, r.Version, st.current); err != nil {
			r.Err = err
			return r
		}
		p.say(t.Name, "current -> %s (previous %s)", r.Version, orNone(st.current))
	}
	if unitChanged {
		if err := installUnit(c, t, unit); err != nil {
			r.Err = err
			return r
		}
		p.say(t.Name, "installed %s", t.remote(t.UnitDir, t.Unit))
	}
	if err := prune(c, t, r.Version, r.Previous); err != nil {
		r.Err = err
		return r
	}
	if err := restart(c, t, p); err != nil {
		r.Err = err
		return r
	}
	r.Health, r.Err = checkHealth(ctx, c, t, cfg.HealthTimeout.D(), p)
	return r
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// install uploads b into versions/<version> unless it is there: into a
// temporary directory first, renamed into place once complete, so a
// version directory is never partial.
func install(c *conn, t *Target, b *bundle, curV string, cur map[string]string, p *printer) error {
	versions := t.remote(t.Dir, "versions")
	dst := path.Join(versions, b.Version())
	if ok, err := exists(c, dst); err != nil || ok {
		if ok {
			p.say(t.Name, "%s is on the robot already", b.Version())
		}
		return err
	}
	if err := c.sftp.MkdirAll(versions); err != nil {
		return fmt.Errorf("creating %s: %w", versions, err)
	}
	// Files the current version has unchanged are hard-linked from it
	// (versions are never changed in place), the rest is sent.
	_, canLink := c.sftp.HasExtension("hardlink@openssh.com")
	var send []file
	var total int64
	for _, f := range b.Files {
		if !canLink || cur[f.Name] != f.SHA256 {
			send = append(send, f)
			total += f.Size
		}
	}
	if err := checkSpace(c, versions, total); err != nil {
		return err
	}
	tmp := path.Join(versions, ".incoming-"+b.Version())
	if err := c.sftp.RemoveAll(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the partial upload %s: %w", tmp, err)
	}
	fail := func(err error) error {
		_ = c.sftp.RemoveAll(tmp) // leave no partial version behind
		return addSpaceHint(c, versions, err)
	}
	var sent int64
	start := time.Now()
	nextReport := total / 4
	linked := 0
	for _, f := range b.Files {
		to := path.Join(tmp, f.Name)
		if canLink && cur[f.Name] == f.SHA256 {
			if err := c.sftp.MkdirAll(path.Dir(to)); err != nil {
				return fail(fmt.Errorf("creating %s: %w", path.Dir(to), err))
			}
			if err := c.sftp.Link(path.Join(versions, curV, f.Name), to); err != nil {
				return fail(fmt.Errorf("linking %s from %s: %w", f.Name, curV, err))
			}
			linked++
			continue
		}
		if err := upload(c, f, to, func(n int64) {
			sent += n
			if sent >= nextReport && sent < total {
				p.say(t.Name, "uploading %3d%% (%s of %s)", 100*sent/total, mib(sent), mib(total))
				nextReport += total / 4
			}
		}); err != nil {
			return fail(err)
		}
	}
	if err := writeRemote(c, path.Join(tmp, manifestName), b.manifest(), 0o644); err != nil {
		return fail(err)
	}
	if err := c.sftp.PosixRename(tmp, dst); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", tmp, dst, err)
	}
	secs := time.Since(start).Seconds()
	msg := fmt.Sprintf("uploaded %d files, %s in %.1f s", len(send), mib(total), secs)
	if total >= 1<<20 {
		msg += fmt.Sprintf(" (%.0f MiB/s)", float64(total)/(1<<20)/max(secs, 1e-3))
	}
	if linked > 0 {
		msg += fmt.Sprintf(", %d unchanged from %s", linked, curV)
	}
	p.say(t.Name, "%s to %s", msg, dst)
	return nil
}

func mib(n int64) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d B", n)
	}
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// checkSpace fails when the file system holding dir has less than need
// bytes free (statvfs@openssh.com; skipped where the server lacks it).
func checkSpace(c *conn, dir string, need int64) error {
	if _, ok := c.sftp.HasExtension("statvfs@openssh.com"); !ok {
		return nil
	}
	vfs, err := c.sftp.StatVFS(dir)
	if err != nil {
		return fmt.Errorf("statvfs %s: %w", dir, err)
	}
	if free := int64(vfs.FreeSpace()); free < need {
		return fmt.Errorf("not enough space on the robot: %s free in %s, the version needs %s", mib(free), dir, mib(need))
	}
	return nil
}

// addSpaceHint says so when a failed write met a full file system (SFTP v3
// reports ENOSPC only as a generic failure).
func addSpaceHint(c *conn, dir string, err error) error {
	if vfs, serr := c.sftp.StatVFS(dir); serr == nil && vfs.FreeSpace() < 64<<10 {
		return fmt.Errorf("the robot's disk is full (%s free in %s): %w", mib(int64(vfs.FreeSpace())), dir, err)
	}
	return err
}

func upload(c *conn, f file, dst string, progress func(int64)) error {
	if err := c.sftp.MkdirAll(path.Dir(dst)); err != nil {
		return fmt.Errorf("creating %s: %w", path.Dir(dst), err)
	}
	src, err := os.Open(f.Local)
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	defer src.Close()
	w, err := c.sftp.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return fmt.Errorf("creating %s: %w", dst, err)
	}
	// Concurrent SFTP writes (UseConcurrentWrites) need the size up front.
	if _, err := w.ReadFrom(&progressReader{r: src, size: f.Size, progress: progress}); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", dst, err)
	}
	if st, err := c.sftp.Stat(dst); err != nil {
		return fmt.Errorf("stat %s: %w", dst, err)
	} else if st.Size() != f.Size {
		return fmt.Errorf("%s has %d bytes after the upload, want %d (changed while deploying?)", dst, st.Size(), f.Size)
	}
	if err := c.sftp.Chmod(dst, f.Mode); err != nil {
		return fmt.Errorf("chmod %s: %w", dst, err)
	}
	return nil
}

// progressReader reports what is read, and its size to SFTP.
type progressReader struct {
	r        io.Reader
	size     int64
	progress func(int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.progress(int64(n))
	}
	return n, err
}

// Size is the number of bytes the reader yields.
func (p *progressReader) Size() int64 { return p.size }

func writeRemote(c *conn, dst string, data []byte, mode os.FileMode) error {
	w, err := c.sftp.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return fmt.Errorf("creating %s: %w", dst, err)
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", dst, err)
	}
	return c.sftp.Chmod(dst, mode)
}

// setLink points dir/name at versions/version atomically: a new symlink
// renamed over the old one (rename(2) replaces atomically).
func setLink(c *conn, t *Target, name, version string) error {
	dir := t.remote(t.Dir)
	final := path.Join(dir, name)
	if version == "" {
		if err := c.sftp.Remove(final); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", final, err)
		}
		return nil
	}
	tmp := path.Join(dir, "."+name+".new")
	if err := c.sftp.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", tmp, err)
	}
	if err := c.sftp.Symlink(path.Join("versions", version), tmp); err != nil {
		return fmt.Errorf("symlink %s: %w", tmp, err)
	}
	if err := c.sftp.PosixRename(tmp, final); err != nil {
		return fmt.Errorf("renaming %s over %s: %w", tmp, final, err)
	}
	return nil
}

// swap makes version current and prev previous.
func swap(c *conn, t *Target, version, prev string) error {
	if err := setLink(c, t, "previous", prev); err != nil {
		return err
	}
	return setLink(c, t, "current", version)
}

func installUnit(c *conn, t *Target, unit string) error {
	dir := t.remote(t.UnitDir)
	if err := c.sftp.MkdirAll(dir); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp := path.Join(dir, "."+t.Unit+".new")
	if err := writeRemote(c, tmp, []byte(unit), 0o644); err != nil {
		return addSpaceHint(c, dir, err)
	}
	if err := c.sftp.PosixRename(tmp, path.Join(dir, t.Unit)); err != nil {
		return fmt.Errorf("installing the unit: %w", err)
	}
	for _, args := range [][]string{{"daemon-reload"}, {"enable", t.Unit}} {
		if _, err := c.run(systemctl(t, args...)); err != nil {
			return err
		}
	}
	return nil
}

func systemctl(t *Target, args ...string) string {
	q := []string{shellQuote(t.Systemctl)}
	for _, a := range args {
		q = append(q, shellQuote(a))
	}
	return strings.Join(q, " ")
}

func restart(c *conn, t *Target, p *printer) error {
	if _, err := c.run(systemctl(t, "restart", t.Unit)); err != nil {
		return err
	}
	p.say(t.Name, "restarted %s", t.Unit)
	return nil
}

// prune removes every version but keep.
func prune(c *conn, t *Target, keep ...string) error {
	versions := t.remote(t.Dir, "versions")
	entries, err := c.sftp.ReadDir(versions)
	if err != nil {
		return fmt.Errorf("listing %s: %w", versions, err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || contains(keep, e.Name()) {
			continue
		}
		if err := c.sftp.RemoveAll(path.Join(versions, e.Name())); err != nil {
			return fmt.Errorf("removing the old version %s: %w", e.Name(), err)
		}
	}
	return nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v && v != "" {
			return true
		}
	}
	return false
}

func rollbackOne(ctx context.Context, cfg *Config, t *Target, dry bool, p *printer) Result {
	r := Result{Robot: t.Name}
	c, err := dial(ctx, t, cfg.DialTimeout.D())
	if err != nil {
		r.Err = err
		return r
	}
	defer c.Close()
	st, err := readState(c, t)
	if err != nil {
		r.Err = err
		return r
	}
	if st.previous == "" {
		r.Err = fmt.Errorf("no previous version to roll back to (current %s)", orNone(st.current))
		return r
	}
	r.Version, r.Previous = st.previous, st.current
	if dry {
		p.say(t.Name, "dry run: would roll back from %s to %s and restart %s", orNone(st.current), st.previous, t.Unit)
		return r
	}
	if err := swap(c, t, st.previous, st.current); err != nil {
		r.Err = err
		return r
	}
	p.say(t.Name, "rolled back: current -> %s (previous %s)", st.previous, orNone(st.current))
	if err := restart(c, t, p); err != nil {
		r.Err = err
		return r
	}
	r.Health, r.Err = checkHealth(ctx, c, t, cfg.HealthTimeout.D(), p)
	return r
}
