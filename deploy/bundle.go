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
func (b *bundle) Version() string {
	h := sha256.Sum256(b.manifest())
	return "v" + hex.EncodeToString(h[:6])
}

// manifest is "sha256 size mode name" per file, sorted by name.
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

// parseManifest reads a manifest into name → sha256.
func parseManifest(data []byte) map[string]string {
	m := map[string]string{}
	for line := range strings.Lines(string(data)) {
		fs := strings.Fields(line)
		if len(fs) == 4 {
			m[fs[3]] = fs[0]
		}
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
// and models/.
func makeBundle(c *Config, binary string) (*bundle, error) {
	b := &bundle{}
	add := func(name, local string, mode os.FileMode) error {
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
// path. It runs `go build` with CGO_ENABLED=0 and -trimpath in the current
// directory (the module's).
func Build(ctx context.Context, pkg, goarch, dir string) (string, error) {
	out := filepath.Join(dir, "robotd-linux-"+goarch)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("deploy: building %s for linux/%s: %w\n%s", pkg, goarch, err, msg)
	}
	return out, nil
}

// unitFile is the systemd unit that runs the current version once the
// robot's controller is up.
func unitFile(t *Target) string {
	dir := t.remote(t.Dir)
	wait := strconv.Quote(t.WaitFor)
	what := "LoLA's socket"
	if t.Kind == KindRobotino {
		what = "the base controller's serial device"
	}
	return fmt.Sprintf(`# Installed by robotd deploy.
[Unit]
Description=robotd robot daemon
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
WorkingDirectory=%[1]s/current
# Start once %[3]s exists.
ExecStartPre=/bin/sh -c 'while [ ! -e %[2]s ]; do sleep 0.2; done'
TimeoutStartSec=120
ExecStart=%[1]s/current/robotd -config %[1]s/current/robotd.json
KillSignal=SIGTERM
TimeoutStopSec=10
Restart=on-failure
RestartSec=2

[Install]
WantedBy=multi-user.target
`, dir, wait, what)
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
