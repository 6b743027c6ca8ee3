package deploy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestValidateRefuses: what would reach a systemd unit, a shell, go build
// or a path unchecked is refused by Validate with a one-line error that
// names the key and quotes the value.
func TestValidateRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"robot name ../", func(c *Config) { c.Robots[0].Name = "../x" }, `robots[0].name: "../x" contains ".."`},
		{"robot name /", func(c *Config) { c.Robots[0].Name = "a/b" }, `robots[0].name: "a/b": a robot name is letters`},
		{"robot name ..", func(c *Config) { c.Robots[0].Name = ".." }, `robots[0].name: ".." contains ".."`},
		{"robot name .", func(c *Config) { c.Robots[0].Name = "." }, `robots[0].name: "."`},
		{"unit outside unit_dir", func(c *Config) { c.Robots[0].Unit = "x/../../ESCAPED.service" }, `robots[0].unit: "x/../../ESCAPED.service"`},
		{"unit not a service", func(c *Config) { c.Defaults.Unit = "robotd" }, `robots[0].unit: "robotd": want a plain unit file name ending in .service`},
		{"dir newline", func(c *Config) { c.Robots[0].Dir = "/home/nao/robotd\nExecStartPost=/bin/touch /tmp/pwned" }, `robots[0].dir: "/home/nao/robotd\nExecStartPost=/bin/touch /tmp/pwned" holds the control character U+000A`},
		{"dir relative", func(c *Config) { c.Robots[0].Dir = "robotd" }, `robots[0].dir: "robotd": want an absolute path`},
		{"dir unclean", func(c *Config) { c.Robots[0].Dir = "/home/nao/../robotd" }, `robots[0].dir: "/home/nao/../robotd": want a clean path`},
		{"dir backslash", func(c *Config) { c.Robots[0].Dir = `/home/nao\robotd` }, `robots[0].dir: "/home/nao\\robotd" contains a backslash`},
		{"prefix relative", func(c *Config) { c.Robots[0].Prefix = "tmp" }, `robots[0].prefix: "tmp": want an absolute path`},
		{"unit_dir", func(c *Config) { c.Robots[0].UnitDir = "/etc/systemd/system\r" }, `robots[0].unit_dir: "/etc/systemd/system\r" holds the control character U+000D`},
		{"wait_for newline", func(c *Config) { c.Robots[0].WaitFor = "/tmp/x\nExecStartPost=/x" }, `robots[0].wait_for: "/tmp/x\nExecStartPost=/x" holds the control character`},
		{"wait_for relative", func(c *Config) { c.Robots[0].WaitFor = "$(touch /tmp/pwned)" }, `robots[0].wait_for: "$(touch /tmp/pwned)": want an absolute path`},
		{"package flag", func(c *Config) { c.Package = "-toolexec=/path/evil.sh" }, `package: "-toolexec=/path/evil.sh" begins with '-'`},
		{"goarch", func(c *Config) { c.Robots[0].GOARCH = "../../x" }, `robots[0].goarch: "../../x": want a Go architecture`},
		{"systemctl", func(c *Config) { c.Robots[0].Systemctl = "systemctl\n" }, `robots[0].systemctl: "systemctl\n" holds the control character`},
		{"max_file_bytes", func(c *Config) { c.Pull.MaxFileBytes = 0 }, "pull.max_file_bytes: 0 outside 1024..1099511627776"},
		{"max_total_bytes", func(c *Config) { c.Pull.MaxTotalBytes = -1 }, "pull.max_total_bytes: -1 outside"},
		{"max_depth", func(c *Config) { c.Pull.MaxDepth = 65 }, "pull.max_depth: 65 outside 0..64"},
		{"max_entries", func(c *Config) { c.Pull.MaxEntries = 0 }, "pull.max_entries: 0 outside 1..10000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Config = "robotd.json"
			c.Robots = []Target{{Name: "nao21", Host: "10.0.5.21"}}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("a multi-line error: %q", err)
			}
		})
	}
}

// TestHostKeyOverrideFill: an explicit false on a robot wins over true in
// the defaults; absent, the default holds.
func TestHostKeyOverrideFill(t *testing.T) {
	yes, no := true, false
	c := DefaultConfig()
	c.Defaults.InsecureIgnoreHostKey = &yes
	c.Robots = []Target{{Name: "strict", InsecureIgnoreHostKey: &no}, {Name: "lax"}}
	ts, err := c.Targets()
	if err != nil {
		t.Fatal(err)
	}
	if ts[0].insecure() || !ts[1].insecure() {
		t.Errorf("strict insecure %v, lax insecure %v", ts[0].insecure(), ts[1].insecure())
	}
}

// TestUnitFileEscapes: directories with a space, '%', '$', quotes and ';'
// are written so that systemd reads them back as they are.
func TestUnitFileEscapes(t *testing.T) {
	for _, tg := range []Target{
		{Dir: "/home/nao/robotd", WaitFor: "/tmp/robocup"},
		{Dir: "/home/nao/my robotd", Prefix: "/tmp/100%h", WaitFor: "/dev/tty ACM0", Kind: KindRobotino},
		{Dir: `/home/nao/"q" 'r';$HOME;${X}`, WaitFor: `/tmp/x$(touch /tmp/pwned)"'`},
	} {
		u, err := unitFile(&tg)
		if err != nil {
			t.Fatal(err)
		}
		checkUnit(t, &tg, u)
	}
	tg := Target{Dir: "/home/nao/robotd\nExecStartPost=/bin/touch /tmp/pwned", WaitFor: "/tmp/robocup"}
	if u, err := unitFile(&tg); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("a newline in dir: %v\n%s", err, u)
	}
}

// TestUnitWaitForIsNotShellCode runs the unit's ExecStartPre as systemd
// would (read back from the unit, then exec'd) with a wait_for that is
// shell code in a file name that exists: the script sees the path, and the
// code does not run.
func TestUnitWaitForIsNotShellCode(t *testing.T) {
	dir := t.TempDir()
	waitFor := filepath.Join(dir, "x$(touch pwned)`touch pwned2`")
	if err := os.WriteFile(waitFor, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tg := Target{Dir: "/home/nao/robotd", WaitFor: waitFor}
	u, err := unitFile(&tg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseUnit(u)
	if err != nil {
		t.Fatal(err)
	}
	argv, err := execWords(m["Service.ExecStartPre"][0])
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%q: %v: %s", argv, err, out)
	}
	for _, f := range []string{"pwned", "pwned2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("wait_for ran as shell code: %s exists (%v); ExecStartPre %q", f, err, argv)
		}
	}
}

// TestBuildRefusesFlagPackage: a package that begins with '-' never
// reaches go build.
func TestBuildRefusesFlagPackage(t *testing.T) {
	dir := t.TempDir()
	evil := filepath.Join(dir, "evil.sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+filepath.Join(dir, "ran")+"\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Build(context.Background(), "-toolexec="+evil, "amd64", dir)
	if err == nil || !strings.Contains(err.Error(), `package: "-toolexec=`+evil+`" begins with '-'`) {
		t.Errorf("Build: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !os.IsNotExist(err) {
		t.Errorf("the -toolexec program ran: %v", err)
	}
	if _, err := Build(context.Background(), "./cmd/robotd", "../x", dir); err == nil || !strings.Contains(err.Error(), `goarch: "../x"`) {
		t.Errorf("Build with goarch ../x: %v", err)
	}
}

// TestBundleNames: file names with spaces survive the MANIFEST; two files
// with one name in the version, and names with control characters, are
// refused with an error naming both files.
func TestBundleNames(t *testing.T) {
	dir := t.TempDir()
	write := func(p string) string {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c := DefaultConfig()
	c.Config = write("robotd.json")
	c.Actions = filepath.Dir(write("actions/kick left.kf"))
	c.Models = []string{write("nets/ball net.onnx")}
	b, err := makeBundle(&c, write("robotd"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := parseManifest(b.manifest())
	if err != nil || len(fs) != 4 || fs[0].Name != "actions/kick left.kf" || fs[1].Name != "models/ball net.onnx" {
		t.Fatalf("manifest %q: %+v, %v", b.manifest(), fs, err)
	}
	c.Models = append(c.Models, write("other/ball net.onnx"))
	if _, err := makeBundle(&c, write("robotd")); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "nets/ball net.onnx")+" and "+filepath.Join(dir, "other/ball net.onnx")+" would both be installed as models/ball net.onnx") {
		t.Errorf("two models with one name: %v", err)
	}
	c.Models = []string{write("nets/ball\nnet")}
	if _, err := makeBundle(&c, write("robotd")); err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), `the name "ball\nnet" contains the control character`) {
		t.Errorf("a model name with a newline: %v", err)
	}
}

func TestEscapeWriter(t *testing.T) {
	var out strings.Builder
	w := &escapeWriter{w: &out}
	for _, p := range []string{"a\x1b[31mred\x1b[0m\n", "\xe2\x82", "\xac tab\t\r\x7f", "\xc2\x9b\u2066x\xe2"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	w.Flush()
	if want := `a\x1b[31mred\x1b[0m` + "\n€ tab\t" + `\x0d\x7f\u009b\u2066x\xe2`; out.String() != want {
		t.Errorf("escaped %q, want %q", out.String(), want)
	}
}
