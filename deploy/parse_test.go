package deploy

import (
	"slices"
	"strings"
	"testing"
)

func TestParseMetrics(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		h         Health
		found, ok bool
	}{
		{"robotd", "# HELP robotd_ticks_total x\n# TYPE robotd_ticks_total counter\nrobotd_ticks_total 1234\nrobotd_backend_connected 1\ngo_goroutines 12\n", Health{Ticks: 1234, Connected: true}, true, true},
		{"disconnected", "robotd_ticks_total 5e+06\nrobotd_backend_connected 0\n", Health{Ticks: 5e6}, true, true},
		{"with timestamp", "robotd_ticks_total 7 1700000000000\n", Health{Ticks: 7}, true, true},
		{"no ticks", "go_goroutines 12\n", Health{}, false, true},
		{"garbage value", "robotd_ticks_total many\n", Health{}, false, false},
		{"no value", "robotd_ticks_total \n", Health{}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, found, err := parseMetrics(strings.NewReader(tc.in))
			if (err == nil) != tc.ok || found != tc.found || (tc.ok && h != tc.h) {
				t.Fatalf("got %+v %v %v, want %+v %v ok=%v", h, found, err, tc.h, tc.found, tc.ok)
			}
		})
	}
}

func FuzzParseMetrics(f *testing.F) {
	f.Add("robotd_ticks_total 1234\nrobotd_backend_connected 1\n")
	f.Add("robotd_ticks_total \n")
	f.Add("# x\nrobotd_backend_connected NaN\n")
	f.Fuzz(func(t *testing.T, s string) {
		h, found, err := parseMetrics(strings.NewReader(s))
		if err == nil && !found && h.Ticks != 0 {
			t.Fatalf("ticks %v without robotd_ticks_total", h.Ticks)
		}
	})
}

func TestManifestRoundTrip(t *testing.T) {
	b := &bundle{Files: []file{
		{Name: "actions/kick left.kf", Mode: 0o644, Size: 10, SHA256: strings.Repeat("a", 64)},
		{Name: "robotd", Mode: 0o755, Size: 17 << 20, SHA256: strings.Repeat("b", 64)},
	}}
	fs, err := parseManifest(b.manifest())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fs, b.Files) {
		t.Fatalf("manifest %+v, want %+v", fs, b.Files)
	}
	v := b.Version()
	b.Files[0].SHA256 = strings.Repeat("c", 64)
	if b.Version() == v {
		t.Error("a changed file kept the version")
	}
	for _, bad := range []string{
		"x\n",
		strings.Repeat("a", 64) + " 10 644 robotd",                                                  // no newline
		strings.Repeat("a", 64) + " 10 644 ../robotd\n",                                             // not a version path
		strings.Repeat("a", 64) + " -1 644 robotd\n",                                                // size
		strings.Repeat("a", 64) + " 10 9644 robotd\n",                                               // mode
		strings.Repeat("A", 64) + " 10 644 robotd\n",                                                // not lower-case hex
		strings.Repeat("a", 64) + " 10 644 models/a/b\n",                                            // a '/' in a name
		strings.Repeat("a", 64) + " 10 644 robotd\n" + strings.Repeat("a", 64) + " 10 644 robotd\n", // twice
	} {
		if fs, err := parseManifest([]byte(bad)); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("parseManifest(%q) = %v, %v: want a one-line error", bad, fs, err)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add(strings.Repeat("a", 64) + " 10 644 robotd\n" + strings.Repeat("b", 64) + " 1 644 actions/x y.kf\n")
	f.Add("x\n\n  \t")
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := parseManifest([]byte(s))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error for %q: %v", s, err)
			}
			return
		}
		for _, f := range fs {
			if checkVersionPath(f.Name) != nil || len(f.SHA256) != 64 || f.Size < 0 {
				t.Fatalf("entry %+v from %q", f, s)
			}
		}
		// What parses is what manifest writes.
		if got := (&bundle{Files: fs}).manifest(); string(got) != s {
			t.Fatalf("%q parses to %+v, which writes %q", s, fs, got)
		}
	})
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"systemctl":      "systemctl",
		"/usr/bin/x":     "/usr/bin/x",
		"a b":            "'a b'",
		"it's":           `'it'\''s'`,
		"":               "''",
		"$(rm -rf /)":    "'$(rm -rf /)'",
		"robotd.service": "robotd.service",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	c := DefaultConfig()
	c.Robots = []Target{{Name: "a", Host: "h"}, {Name: "a"}, {Name: "b", Host: "h", Kind: "aibo", Dir: "rel"}}
	err := c.Validate()
	for _, want := range []string{`robots[1].name: "a" given twice`, "robots[1].host: empty", `robots[2].kind: "aibo"`, "robots[2].dir", "config: no robotd configuration file"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	c = DefaultConfig()
	c.Config = "robotd.json"
	c.Robots = []Target{{Name: "nao21", Host: "10.0.5.21"}, {Name: "robotino", Host: "10.0.5.50:2222", Kind: KindRobotino, GOARCH: "arm64"}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	ts, err := c.Targets("robotino")
	if err != nil || len(ts) != 1 || ts[0].WaitFor != "/dev/ttyACM0" || ts[0].GOARCH != "arm64" || ts[0].addr() != "10.0.5.50:2222" {
		t.Fatalf("robotino target %+v %v", ts, err)
	}
	ts, _ = c.Targets()
	if ts[0].WaitFor != "/tmp/robocup" || ts[0].GOARCH != "amd64" || ts[0].addr() != "10.0.5.21:22" || ts[0].User != "nao" {
		t.Errorf("nao target %+v", ts[0])
	}
	if _, err := c.Targets("nao99"); err == nil {
		t.Error("an unknown robot was found")
	}
}
