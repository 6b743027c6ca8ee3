package deploy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
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
	fmt.Fprintf(p.w, "%-10s %s\n", robot+":", EscapeControl(fmt.Sprintf(format, args...)))
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
	u, err := readFile(c, t.remote(t.UnitDir, t.Unit), maxUnitBytes)
	if err != nil {
		return s, fmt.Errorf("the installed unit: %w", err)
	}
	s.unit = string(u)
	return s, nil
}

// readVersionLink returns the version a link (versions/vX) points at, "" if
// there is no link. A link elsewhere is an error.
func readVersionLink(c *conn, p string) (string, error) {
	target, err := c.sftp.ReadLink(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the link %s: %w", p, err)
	}
	v, ok := strings.CutPrefix(target, "versions/")
	if !ok || checkEntryName(v) != nil || strings.HasPrefix(v, ".") {
		return "", fmt.Errorf("the link %s points at %q, not at versions/<version>: robotd deploy did not make it", p, target)
	}
	return v, nil
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
	var gone []string
	for name := range old {
		if !b.has(name) {
			gone = append(gone, "- "+name)
		}
	}
	slices.Sort(gone)
	return append(out, gone...)
}

// onRobot is what the robot holds of the version being deployed.
type onRobot struct {
	have bool              // versions/<v> exists
	bad  map[string]string // its files that do not match, and why
}

// checkOnRobot verifies versions/<v> on the robot, if it is there,
// against b: its files by SHA-256 and its MANIFEST.
func checkOnRobot(c *conn, t *Target, b *bundle) (onRobot, error) {
	var o onRobot
	dst := t.remote(t.Dir, "versions", b.Version())
	var err error
	if o.have, err = exists(c, dst); err != nil || !o.have {
		return o, err
	}
	if o.bad, err = verifyFiles(c, dst, b.Files); err != nil {
		return o, err
	}
	ok, err := sameManifest(c, dst, b.manifest())
	if err != nil {
		return o, err
	}
	if !ok {
		o.bad[manifestName] = "differs"
	}
	return o, nil
}

func deployOne(ctx context.Context, cfg *Config, t *Target, b *bundle, dry bool, p *printer) (r Result) {
	r = Result{Robot: t.Name, Version: b.Version()}
	unit, err := unitFile(t)
	if err != nil {
		r.Err = err
		return r
	}
	if err := checkUnitName("unit", t.Unit); err != nil {
		r.Err = err
		return r
	}
	p.say(t.Name, "connecting to %s@%s", t.User, t.addr())
	c, release, err := dialLocked(ctx, cfg, t, dry, p)
	if err != nil {
		r.Err = err
		return r
	}
	defer func() {
		if err := release(); err != nil && r.Err == nil {
			r.Err = err
		}
	}()
	st, err := readState(c, t)
	if err != nil {
		r.Err = err
		return r
	}
	cur, err := readManifest(c, t, st.current)
	if err != nil {
		r.Err = err
		return r
	}
	if cur.distrust != "" {
		p.say(t.Name, "current %s is not trusted, nothing is reused from it: %s", st.current, cur.distrust)
	}
	r.Changed = changes(b, sums(cur.files))
	have, err := checkOnRobot(c, t, b)
	if err != nil {
		r.Err = err
		return r
	}
	for _, name := range slices.Sorted(maps.Keys(have.bad)) {
		r.Changed = append(r.Changed, fmt.Sprintf("! %s: %s on the robot", name, have.bad[name]))
	}
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
			p.say(t.Name, "  nothing would change (%d files verified by SHA-256)", len(b.Files))
		} else {
			p.say(t.Name, "  would restart %s", t.Unit)
		}
		return r
	}
	if len(r.Changed) == 0 {
		p.say(t.Name, "%s is already current (%d files verified by SHA-256), nothing to do", r.Version, len(b.Files))
		r.Health, r.Err = checkHealth(ctx, c, t, cfg.HealthTimeout.D(), p)
		return r
	}
	if err := install(c, t, b, cur, have, p); err != nil {
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
	if err := prune(ctx, c, t, p, r.Version, r.Previous); err != nil {
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

// install puts b into versions/<version> unless it is there complete: into
// a temporary directory first, renamed into place once complete (each file
// fsynced before), so a version directory is never partial. A version
// directory that is there but damaged is replaced. A file is hard-linked
// from a copy on the robot that was verified by SHA-256 (in the damaged
// version directory or in the current version), or else sent: a current
// file that differs from its MANIFEST (changed on the robot) is sent fresh
// rather than linked, so the change stays in the version it was made in.
func install(c *conn, t *Target, b *bundle, cur remoteVersion, have onRobot, p *printer) error {
	versions := t.remote(t.Dir, "versions")
	dst := path.Join(versions, b.Version())
	if have.have && len(have.bad) == 0 {
		p.say(t.Name, "%s is on the robot already (verified by SHA-256)", b.Version())
		return nil
	}
	if have.have {
		p.say(t.Name, "%s on the robot is damaged (%s): installing it again", b.Version(), describeBad(have.bad))
	}
	if err := c.sftp.MkdirAll(versions); err != nil {
		return fmt.Errorf("creating %s: %w", versions, err)
	}
	_, canLink := c.sftp.HasExtension("hardlink@openssh.com")
	// from maps a file to the version directory holding a verified copy.
	from := map[string]string{}
	if canLink && have.have {
		for _, f := range b.Files {
			if _, bad := have.bad[f.Name]; !bad {
				from[f.Name] = b.Version()
			}
		}
	}
	if canLink && cur.files != nil && cur.name != b.Version() {
		curSums := sums(cur.files)
		var check []file
		for _, f := range b.Files {
			if _, ok := from[f.Name]; !ok && curSums[f.Name] == f.SHA256 {
				check = append(check, f)
			}
		}
		bad, err := verifyFiles(c, path.Join(versions, cur.name), check)
		if err != nil {
			return err
		}
		for _, f := range check {
			if why, ok := bad[f.Name]; ok {
				p.say(t.Name, "%s in %s differs from its MANIFEST (%s; changed on the robot?): sending a fresh copy instead of linking it", f.Name, cur.name, why)
				continue
			}
			from[f.Name] = cur.name
		}
	}
	var total int64
	sent := 0
	for _, f := range b.Files {
		if _, ok := from[f.Name]; !ok {
			total += f.Size
			sent++
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
	_, canSync := c.sftp.HasExtension("fsync@openssh.com")
	var done int64
	start := time.Now()
	nextReport := total / 4
	linked := map[string]int{}
	for _, f := range b.Files {
		to := path.Join(tmp, f.Name)
		if v, ok := from[f.Name]; ok {
			if err := c.sftp.MkdirAll(path.Dir(to)); err != nil {
				return fail(fmt.Errorf("creating %s: %w", path.Dir(to), err))
			}
			if err := c.sftp.Link(path.Join(versions, v, f.Name), to); err != nil {
				return fail(fmt.Errorf("linking %s from %s: %w", f.Name, v, err))
			}
			linked[v]++
			continue
		}
		if err := upload(c, f, to, canSync, func(n int64) {
			done += n
			if done >= nextReport && done < total {
				p.say(t.Name, "uploading %3d%% (%s of %s)", 100*done/total, mib(done), mib(total))
				nextReport += total / 4
			}
		}); err != nil {
			return fail(err)
		}
	}
	if err := writeRemote(c, path.Join(tmp, manifestName), b.manifest(), 0o644, canSync); err != nil {
		return fail(err)
	}
	if have.have {
		// rename(2) does not replace a non-empty directory: the damaged
		// one goes aside first (and prune removes it if this fails).
		aside := path.Join(versions, fmt.Sprintf(".damaged-%s-%d", b.Version(), time.Now().UnixNano()))
		if err := c.sftp.PosixRename(dst, aside); err != nil {
			return fail(fmt.Errorf("moving the damaged %s aside: %w", dst, err))
		}
		if err := c.sftp.PosixRename(tmp, dst); err != nil {
			return fmt.Errorf("renaming %s to %s: %w", tmp, dst, err)
		}
		if err := c.sftp.RemoveAll(aside); err != nil {
			return fmt.Errorf("removing the damaged version %s: %w", aside, err)
		}
	} else if err := c.sftp.PosixRename(tmp, dst); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", tmp, dst, err)
	}
	secs := time.Since(start).Seconds()
	msg := fmt.Sprintf("uploaded %d files, %s in %.1f s", sent, mib(total), secs)
	if total >= 1<<20 {
		msg += fmt.Sprintf(" (%.0f MiB/s)", float64(total)/(1<<20)/max(secs, 1e-3))
	}
	for _, v := range slices.Sorted(maps.Keys(linked)) {
		msg += fmt.Sprintf(", %d unchanged from %s", linked[v], v)
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

// upload sends f to dst, fsynced (OpenSSH's fsync@openssh.com) when sync.
func upload(c *conn, f file, dst string, sync bool, progress func(int64)) error {
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
	if sync {
		if err := w.Sync(); err != nil {
			w.Close()
			return fmt.Errorf("fsync %s: %w", dst, err)
		}
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

// writeRemote writes data to dst, fsynced when sync.
func writeRemote(c *conn, dst string, data []byte, mode os.FileMode, sync ...bool) error {
	w, err := c.sftp.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return fmt.Errorf("creating %s: %w", dst, err)
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	if len(sync) > 0 && sync[0] {
		if err := w.Sync(); err != nil {
			w.Close()
			return fmt.Errorf("fsync %s: %w", dst, err)
		}
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
	if err := checkUnitName("unit", t.Unit); err != nil {
		return err
	}
	dir := t.remote(t.UnitDir)
	if err := c.sftp.MkdirAll(dir); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp := path.Join(dir, "."+t.Unit+".new")
	_, canSync := c.sftp.HasExtension("fsync@openssh.com")
	if err := writeRemote(c, tmp, []byte(unit), 0o644, canSync); err != nil {
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

// maxVersionsListed bounds the listing of versions/ (a handful is usual).
const maxVersionsListed = 10_000

// prune removes every version but keep, and what interrupted deploys left
// (.incoming-* and .damaged-* directories: the deploy lock is held, so no
// other deploy is writing them).
func prune(ctx context.Context, c *conn, t *Target, p *printer, keep ...string) error {
	versions := t.remote(t.Dir, "versions")
	entries, names, err := c.readDir(ctx, versions, maxVersionsListed)
	if err != nil {
		return err
	}
	for i := range entries {
		name := names[i]
		if checkEntryName(name) != nil || contains(keep, name) {
			continue
		}
		left := strings.HasPrefix(name, ".incoming-") || strings.HasPrefix(name, ".damaged-")
		if strings.HasPrefix(name, ".") && !left {
			continue
		}
		if err := c.sftp.RemoveAll(path.Join(versions, name)); err != nil {
			return fmt.Errorf("removing %s: %w", path.Join(versions, name), err)
		}
		if left {
			p.say(t.Name, "removed %s, left by an interrupted deploy", name)
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

// verifyVersion checks version v on the robot against its MANIFEST: the
// MANIFEST must hash to v's name and every file must match it.
func verifyVersion(c *conn, t *Target, v string) error {
	rv, err := readManifest(c, t, v)
	if err != nil {
		return err
	}
	if rv.distrust != "" {
		return fmt.Errorf("%s on the robot is not trusted: %s", v, rv.distrust)
	}
	bad, err := verifyFiles(c, t.remote(t.Dir, "versions", v), rv.files)
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s on the robot does not match its MANIFEST (%s): deploy instead", v, describeBad(bad))
	}
	return nil
}

// dialLocked connects to the robot and, unless dry, takes its deploy lock.
// release gives the lock back and closes the connection.
func dialLocked(ctx context.Context, cfg *Config, t *Target, dry bool, p *printer) (c *conn, release func() error, err error) {
	c, err = dial(ctx, t, cfg.DialTimeout.D())
	if err != nil {
		return nil, nil, err
	}
	if dry {
		return c, func() error { c.Close(); return nil }, nil
	}
	l, err := acquireLock(ctx, c, t, p)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, func() error {
		err := l.release()
		c.Close()
		return err
	}, nil
}

func rollbackOne(ctx context.Context, cfg *Config, t *Target, dry bool, p *printer) (r Result) {
	r = Result{Robot: t.Name}
	c, release, err := dialLocked(ctx, cfg, t, dry, p)
	if err != nil {
		r.Err = err
		return r
	}
	defer func() {
		if err := release(); err != nil && r.Err == nil {
			r.Err = err
		}
	}()
	st, err := readState(c, t)
	if err != nil {
		r.Err = err
		return r
	}
	if st.previous == "" {
		r.Err = fmt.Errorf("no previous version to roll back to (current %s)", orNone(st.current))
		return r
	}
	if err := verifyVersion(c, t, st.previous); err != nil {
		r.Err = fmt.Errorf("not rolling back: %w", err)
		return r
	}
	r.Version, r.Previous = st.previous, st.current
	if dry {
		p.say(t.Name, "dry run: would roll back from %s to %s (verified by SHA-256) and restart %s", orNone(st.current), st.previous, t.Unit)
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
