package deploy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// file is one file of a version: where it comes from and where it goes.
type file struct {
	Name   string // path inside the version directory
	Local  string // path on this machine
	Mode   os.FileMode
	Size   int64
	SHA256 string
}

// bundle is what one version holds.
type bundle struct {
	Files []file
}

// manifestName is the file in every version directory that lists its files.
const manifestName = "MANIFEST"

// Version is the version's name: a hash of its manifest, so the same files
// are the same version on every robot and a redeploy of them changes nothing.
func (b *bundle) Version() string { return versionOf(b.manifest()) }

// manifest is "sha256 size mode name" per file, sorted by name: the name
// is the rest of the line after the third space, so it may hold spaces
// (never a newline: checkFileName refuses control characters).
func (b *bundle) manifest() []byte {
	var buf bytes.Buffer
	for _, f := range b.Files {
		fmt.Fprintf(&buf, "%s %d %o %s\n", f.SHA256, f.Size, f.Mode.Perm(), f.Name)
	}
	return buf.Bytes()
}

// Size is the bytes the version takes.
func (b *bundle) Size() int64 {
	var n int64
	for _, f := range b.Files {
		n += f.Size
	}
	return n
}

// versionOf is the version name of a manifest.
func versionOf(manifest []byte) string {
	h := sha256.Sum256(manifest)
	return "v" + hex.EncodeToString(h[:6])
}

// parseManifest reads a manifest (see manifest) back. A line that is not
// "sha256 size mode name" with a name checkName accepts is an error that
// names the line.
func parseManifest(data []byte) ([]file, error) {
	var out []file
	seen := map[string]bool{}
	n := 0
	for line := range strings.Lines(string(data)) {
		n++
		l, ok := strings.CutSuffix(line, "\n")
		if !ok {
			return nil, fmt.Errorf("MANIFEST line %d: no newline at the end", n)
		}
		fs := strings.SplitN(l, " ", 4)
		if len(fs) != 4 {
			return nil, fmt.Errorf("MANIFEST line %d: %q: want \"sha256 size mode name\"", n, l)
		}
		if len(fs[0]) != sha256.Size*2 || strings.Trim(fs[0], "0123456789abcdef") != "" {
			return nil, fmt.Errorf("MANIFEST line %d: %q is not a SHA-256", n, fs[0])
		}
		size, err := strconv.ParseInt(fs[1], 10, 64)
		if err != nil || size < 0 || strconv.FormatInt(size, 10) != fs[1] {
			return nil, fmt.Errorf("MANIFEST line %d: size %q", n, fs[1])
		}
		mode, err := strconv.ParseUint(fs[2], 8, 32)
		if err != nil || mode > 0o777 || strconv.FormatUint(mode, 8) != fs[2] {
			return nil, fmt.Errorf("MANIFEST line %d: mode %q", n, fs[2])
		}
		if err := checkVersionPath(fs[3]); err != nil {
			return nil, fmt.Errorf("MANIFEST line %d: %w", n, err)
		}
		if seen[fs[3]] {
			return nil, fmt.Errorf("MANIFEST line %d: %q listed twice", n, fs[3])
		}
		seen[fs[3]] = true
		out = append(out, file{Name: fs[3], Mode: os.FileMode(mode), Size: size, SHA256: fs[0]})
	}
	return out, nil
}

// checkVersionPath accepts the path of a file in a version directory:
// "robotd", "robotd.json", "actions/NAME" or "models/NAME" with a NAME
// checkFileName accepts.
func checkVersionPath(p string) error {
	switch p {
	case "robotd", "robotd.json":
		return nil
	}
	dir, name, ok := strings.Cut(p, "/")
	if !ok || (dir != "actions" && dir != "models") {
		return fmt.Errorf("%q is not robotd, robotd.json, actions/NAME or models/NAME", p)
	}
	return checkFileName(name)
}

// sums maps each file's name to its SHA-256.
func sums(fs []file) map[string]string {
	m := make(map[string]string, len(fs))
	for _, f := range fs {
		m[f.Name] = f.SHA256
	}
	return m
}

func hashFile(p string) (string, int64, os.FileMode, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, 0, err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, 0, fmt.Errorf("reading %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, st.Mode().Perm(), nil
}

// makeBundle collects the version's files: the binary, robotd.json, actions/
// and models/. Two files that would get one name (two models with one base
// name) and names a version cannot hold are refused.
func makeBundle(c *Config, binary string) (*bundle, error) {
	b := &bundle{}
	from := map[string]string{}
	add := func(name, local string, mode os.FileMode) error {
		if err := checkVersionPath(name); err != nil {
			return fmt.Errorf("deploy: %q: %w", local, err)
		}
		if prev, ok := from[name]; ok {
			return fmt.Errorf("deploy: %s and %s would both be installed as %s: rename one", prev, local, name)
		}
		from[name] = local
		sum, size, m, err := hashFile(local)
		if err != nil {
			return fmt.Errorf("deploy: %w", err)
		}
		if mode == 0 {
			mode = m
		}
		b.Files = append(b.Files, file{Name: name, Local: local, Mode: mode, Size: size, SHA256: sum})
		return nil
	}
	if err := add("robotd", binary, 0o755); err != nil {
		return nil, err
	}
	if err := add("robotd.json", c.Config, 0o644); err != nil {
		return nil, err
	}
	if c.Actions != "" {
		kfs, err := filepath.Glob(filepath.Join(c.Actions, "*.kf"))
		if err != nil {
			return nil, fmt.Errorf("deploy: actions %s: %w", c.Actions, err)
		}
		if len(kfs) == 0 {
			return nil, fmt.Errorf("deploy: actions: no *.kf files in %s", c.Actions)
		}
		for _, k := range kfs {
			if err := add("actions/"+filepath.Base(k), k, 0o644); err != nil {
				return nil, err
			}
		}
	}
	for _, m := range c.Models {
		if err := add("models/"+filepath.Base(m), m, 0o644); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(b.Files, func(x, y file) int { return strings.Compare(x.Name, y.Name) })
	return b, nil
}

// Build builds pkg as a static linux/goarch binary into dir and returns its
// path. It runs `go build` with CGO_ENABLED=0 in the current directory (the
// module's); pkg follows "--", and one that begins with '-' is refused, so
// it is never read as a flag.
func Build(ctx context.Context, pkg, goarch, dir string) (string, error) {
	if err := checkPackage("package", pkg); err != nil {
		return "", fmt.Errorf("deploy: %w", err)
	}
	if err := checkGOARCH("goarch", goarch); err != nil {
		return "", fmt.Errorf("deploy: %w", err)
	}
	out := filepath.Join(dir, "robotd-linux-"+goarch)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "--", pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("deploy: building %s for linux/%s: %w\n%s", pkg, goarch, err, msg)
	}
	return out, nil
}

// has reports whether the version has a file called name.
func (b *bundle) has(name string) bool {
	for _, f := range b.Files {
		if f.Name == name {
			return true
		}
	}
	return false
}
