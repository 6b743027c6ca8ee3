// Package deploy puts robotd onto robots over SSH: it builds the static robot
// binary, copies it with its configuration, action and model files into a new
// version directory on each robot (SFTP), installs a systemd unit, swaps the
// `current` symlink atomically (rename(2) through OpenSSH's
// posix-rename@openssh.com extension), restarts the service and checks its
// health through /metrics over the same SSH connection. The previous version
// is kept for a rollback.
package deploy

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/robotd/robotd/config"
)

// Robot kinds: they choose the default architecture and what the service
// waits for before it starts.
const (
	KindNAO      = "nao"
	KindRobotino = "robotino"
)

// Config is a deploy file: the robots and what goes onto them.
type Config struct {
	// Robots are the targets. Fields left empty take the value in Defaults.
	Robots []Target `json:"robots"`
	// Defaults fills every robot's empty fields.
	Defaults Target `json:"defaults"`

	// Package is the Go package of the robot binary, built with
	// CGO_ENABLED=0 for each target's GOOS/GOARCH in the current directory.
	// The local files below are relative to the deploy file.
	Package string `json:"package"`
	// Binary, if set, is a prebuilt binary used instead of building (for
	// every target, whatever its architecture).
	Binary string `json:"binary"`
	// Config is robotd's configuration file, installed as robotd.json.
	Config string `json:"config"`
	// Actions is a directory of keyframe action files (*.kf), installed as
	// actions/.
	Actions string `json:"actions"`
	// Models are further files (networks, calibration) installed under
	// models/.
	Models []string `json:"models"`

	// Parallel bounds how many robots are deployed to at once (0: all).
	Parallel int `json:"parallel"`
	// HealthTimeout is how long the health check waits for /metrics after
	// the restart.
	HealthTimeout config.Duration `json:"health_timeout"`
	// DialTimeout bounds the SSH connection set-up.
	DialTimeout config.Duration `json:"dial_timeout"`

	// Pull bounds what `robotd pull` takes from one robot.
	Pull PullLimits `json:"pull"`
}

// PullLimits bound one pull: a robot's listing and files are not trusted
// to be finite.
type PullLimits struct {
	// MaxFileBytes is the largest file fetched; a larger one is refused
	// (and the pull goes on with the rest).
	MaxFileBytes int64 `json:"max_file_bytes"`
	// MaxTotalBytes ends the pull once the files fetched add up to it.
	MaxTotalBytes int64 `json:"max_total_bytes"`
	// MaxDepth is how many directory levels below the recordings
	// directory are walked; deeper directories are refused.
	MaxDepth int `json:"max_depth"`
	// MaxEntries ends the pull once the robot has listed this many
	// directory entries.
	MaxEntries int `json:"max_entries"`
}

// Ranges of the pull limits, checked by Validate.
const (
	minPullBytes   = 1 << 10
	maxFileBytes   = 1 << 40
	maxTotalBytes  = 16 << 40
	maxPullDepth   = 64
	maxPullEntries = 10_000_000
)

// DefaultPullLimits are generous for a robot's recordings (a NAO v6 has a
// 32 GB disk) and bound a robot that lists or sends without end.
func DefaultPullLimits() PullLimits {
	return PullLimits{
		MaxFileBytes:  16 << 30,
		MaxTotalBytes: 64 << 30,
		MaxDepth:      8,
		MaxEntries:    100_000,
	}
}

func (l PullLimits) validate() []error {
	var errs []error
	if l.MaxFileBytes < minPullBytes || l.MaxFileBytes > maxFileBytes {
		errs = append(errs, fmt.Errorf("pull.max_file_bytes: %d outside %d..%d", l.MaxFileBytes, minPullBytes, int64(maxFileBytes)))
	}
	if l.MaxTotalBytes < minPullBytes || l.MaxTotalBytes > maxTotalBytes {
		errs = append(errs, fmt.Errorf("pull.max_total_bytes: %d outside %d..%d", l.MaxTotalBytes, minPullBytes, int64(maxTotalBytes)))
	}
	if l.MaxDepth < 0 || l.MaxDepth > maxPullDepth {
		errs = append(errs, fmt.Errorf("pull.max_depth: %d outside 0..%d", l.MaxDepth, maxPullDepth))
	}
	if l.MaxEntries < 1 || l.MaxEntries > maxPullEntries {
		errs = append(errs, fmt.Errorf("pull.max_entries: %d outside 1..%d", l.MaxEntries, maxPullEntries))
	}
	return errs
}

// Target is one robot.
type Target struct {
	// Name is how the robot is called on the command line and in the
	// output.
	Name string `json:"name"`
	// Host is the robot's address, "host" or "host:port" (port 22).
	Host string `json:"host"`
	// User is the SSH user.
	User string `json:"user"`
	// Key is the private key file for public-key authentication.
	Key string `json:"key"`
	// KnownHosts is the known_hosts file the robot's host key is checked
	// against (default ~/.ssh/known_hosts). InsecureIgnoreHostKey turns
	// the check off, for robots re-flashed with fresh host keys on a
	// private network only; absent on a robot, the default's value holds,
	// and an explicit false on a robot turns the check back on.
	KnownHosts            string `json:"known_hosts"`
	InsecureIgnoreHostKey *bool  `json:"insecure_ignore_host_key"`

	// Kind is "nao" or "robotino".
	Kind string `json:"kind"`
	// GOARCH is the robot's architecture: amd64 on a NAO v6 (Intel Atom
	// E3845); a Robotino's depends on its controller (amd64 on Robotino 3,
	// arm64 on newer ones).
	GOARCH string `json:"goarch"`

	// Prefix is prepended to every path on the robot ("" on a real robot;
	// tests install into a temporary directory).
	Prefix string `json:"prefix"`
	// Dir is the installation directory: versions/, current, previous.
	Dir string `json:"dir"`
	// UnitDir is where the systemd unit goes.
	UnitDir string `json:"unit_dir"`
	// Unit is the systemd unit's name.
	Unit string `json:"unit"`
	// WaitFor is the path the service waits for before it starts robotd:
	// LoLA's socket on a NAO, the base controller's serial device on a
	// Robotino.
	WaitFor string `json:"wait_for"`
	// Systemctl and Journalctl are the commands run on the robot.
	Systemctl  string `json:"systemctl"`
	Journalctl string `json:"journalctl"`
	// MetricsPort is the port robotd's /metrics listens on, on the robot's
	// loopback (10000 + 100·team + player by default in robotd).
	MetricsPort int `json:"metrics_port"`
	// Recordings is the directory `robotd pull` fetches, relative to the
	// current version's directory unless absolute.
	Recordings string `json:"recordings"`
}

// DefaultConfig is the deploy defaults: NAO v6 robots reached as user nao.
func DefaultConfig() Config {
	home, _ := os.UserHomeDir()
	return Config{
		Package: "./cmd/robotd",
		Defaults: Target{
			User:        "nao",
			Key:         filepath.Join(home, ".ssh", "id_ed25519"),
			KnownHosts:  filepath.Join(home, ".ssh", "known_hosts"),
			Kind:        KindNAO,
			Dir:         "/home/nao/robotd",
			UnitDir:     "/etc/systemd/system",
			Unit:        "robotd.service",
			Systemctl:   "systemctl",
			Journalctl:  "journalctl",
			MetricsPort: 10101,
			Recordings:  "recordings",
		},
		HealthTimeout: config.Duration(30 * time.Second),
		DialTimeout:   config.Duration(10 * time.Second),
		Pull:          DefaultPullLimits(),
	}
}

// Load reads a deploy file over the defaults and validates it.
func Load(file string) (Config, error) {
	c := DefaultConfig()
	if err := config.Load(file, &c); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: %w", file, err)
	}
	// Local files are relative to the deploy file.
	dir := filepath.Dir(file)
	rel := func(p *string) {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	rel(&c.Binary)
	rel(&c.Config)
	rel(&c.Actions)
	for i := range c.Models {
		rel(&c.Models[i])
	}
	for _, t := range append([]*Target{&c.Defaults}, ptrs(c.Robots)...) {
		rel(&t.Key)
		rel(&t.KnownHosts)
	}
	return c, nil
}

func ptrs(ts []Target) []*Target {
	out := make([]*Target, len(ts))
	for i := range ts {
		out[i] = &ts[i]
	}
	return out
}

// Targets returns the robots with the defaults filled in, those named only
// (all when names is empty).
func (c *Config) Targets(names ...string) ([]Target, error) {
	var out []Target
	for _, n := range names {
		found := false
		for _, r := range c.Robots {
			if r.Name == n {
				out, found = append(out, c.fill(r)), true
			}
		}
		if !found {
			return nil, fmt.Errorf("deploy: no robot %q in the deploy file", n)
		}
	}
	if len(names) == 0 {
		for _, r := range c.Robots {
			out = append(out, c.fill(r))
		}
	}
	return out, nil
}

func (c *Config) fill(t Target) Target {
	d := c.Defaults
	str := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	str(&t.Host, d.Host)
	str(&t.User, d.User)
	str(&t.Key, d.Key)
	str(&t.KnownHosts, d.KnownHosts)
	if t.InsecureIgnoreHostKey == nil {
		t.InsecureIgnoreHostKey = d.InsecureIgnoreHostKey
	}
	str(&t.Kind, d.Kind)
	str(&t.Prefix, d.Prefix)
	str(&t.Dir, d.Dir)
	str(&t.UnitDir, d.UnitDir)
	str(&t.Unit, d.Unit)
	str(&t.WaitFor, d.WaitFor)
	str(&t.Systemctl, d.Systemctl)
	str(&t.Journalctl, d.Journalctl)
	str(&t.Recordings, d.Recordings)
	str(&t.GOARCH, d.GOARCH)
	if t.MetricsPort == 0 {
		t.MetricsPort = d.MetricsPort
	}
	if t.GOARCH == "" {
		t.GOARCH = "amd64" // NAO v6 and Robotino 3: x86-64
	}
	if t.WaitFor == "" {
		switch t.Kind {
		case KindRobotino:
			t.WaitFor = "/dev/ttyACM0"
		default:
			t.WaitFor = "/tmp/robocup" // LoLA's socket
		}
	}
	return t
}

// Validate checks the deploy file; errors name the key.
func (c *Config) Validate() error {
	var errs []error
	if len(c.Robots) == 0 {
		errs = append(errs, errors.New("robots: none given"))
	}
	seen := map[string]bool{}
	for i, r := range c.Robots {
		t := c.fill(r)
		at := fmt.Sprintf("robots[%d]", i)
		switch err := checkRobotName(at+".name", t.Name); {
		case err != nil:
			errs = append(errs, err)
		case seen[t.Name]:
			errs = append(errs, fmt.Errorf("%s.name: %q given twice", at, t.Name))
		}
		seen[t.Name] = true
		errs = append(errs, t.validate(at)...)
	}
	if c.Binary == "" && c.Package == "" {
		errs = append(errs, errors.New("package: empty and no binary given"))
	}
	if c.Binary == "" && c.Package != "" {
		if err := checkPackage("package", c.Package); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, c.Pull.validate()...)
	if c.Config == "" {
		errs = append(errs, errors.New("config: no robotd configuration file given"))
	}
	if c.Parallel < 0 {
		errs = append(errs, fmt.Errorf("parallel: %d is negative", c.Parallel))
	}
	return errors.Join(errs...)
}

// validate checks one robot with the defaults filled in; at names it
// ("robots[3]").
func (t *Target) validate(at string) []error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if t.Host == "" {
		add(fmt.Errorf("%s.host: empty", at))
	}
	add(checkText(at+".host", t.Host))
	add(checkText(at+".user", t.User))
	if t.Kind != KindNAO && t.Kind != KindRobotino {
		add(fmt.Errorf("%s.kind: %q, want nao or robotino", at, t.Kind))
	}
	add(checkGOARCH(at+".goarch", t.GOARCH))
	add(checkPrefix(at+".prefix", t.Prefix))
	add(checkAbsPath(at+".dir", t.Dir))
	add(checkAbsPath(at+".unit_dir", t.UnitDir))
	add(checkUnitName(at+".unit", t.Unit))
	add(checkAbsPath(at+".wait_for", t.WaitFor))
	add(checkText(at+".systemctl", t.Systemctl))
	add(checkText(at+".journalctl", t.Journalctl))
	add(checkText(at+".recordings", t.Recordings))
	if t.Systemctl == "" || t.Journalctl == "" {
		add(fmt.Errorf("%s.systemctl, journalctl: empty", at))
	}
	if t.Recordings == "" {
		add(fmt.Errorf("%s.recordings: empty", at))
	}
	if t.MetricsPort <= 0 || t.MetricsPort > 65535 {
		add(fmt.Errorf("%s.metrics_port: %d outside 1..65535", at, t.MetricsPort))
	}
	return errs
}

// insecure reports whether the host key check is off.
func (t *Target) insecure() bool {
	return t.InsecureIgnoreHostKey != nil && *t.InsecureIgnoreHostKey
}

// remote returns the path p (absolute on the robot) under the target's prefix.
func (t *Target) remote(p ...string) string {
	return path.Join(append([]string{t.Prefix}, p...)...)
}

// addr is host:port.
func (t *Target) addr() string {
	if _, _, err := splitHostPort(t.Host); err == nil {
		return t.Host
	}
	return t.Host + ":22"
}
