package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/modules/vision"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "robotd.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name  string
		file  string // "" = no -config
		args  []string
		check func(t *testing.T, c *Config)
		err   string
	}{
		{name: "defaults", check: func(t *testing.T, c *Config) {
			if c.MetricsAddr() != "127.0.0.1:10101" || c.Robot.Player != 1 || c.Log.Level != "info" {
				t.Errorf("defaults: %+v, metrics %s", c.Robot, c.MetricsAddr())
			}
		}},
		{name: "port derived from team and player", args: []string{"-team", "5", "-player", "3"}, check: func(t *testing.T, c *Config) {
			if c.MetricsAddr() != "127.0.0.1:10503" {
				t.Errorf("metrics addr %s, want 127.0.0.1:10503", c.MetricsAddr())
			}
		}},
		{name: "file then flags", file: `{"robot": {"player": 4, "team_number": 2}, "metrics": {"addr": "127.0.0.1:9999"}}`,
			args: []string{"-player", "2"}, check: func(t *testing.T, c *Config) {
				if c.Robot.Player != 2 || c.Robot.TeamNumber != 2 || c.MetricsAddr() != "127.0.0.1:9999" {
					t.Errorf("got %+v %s", c.Robot, c.MetricsAddr())
				}
			}},
		{name: "module section", file: `{"runner": {"budget": "2ms", "every": {"behaviour": 2}}, "perception": {"fall_angle": 0.5}}`,
			check: func(t *testing.T, c *Config) {
				if c.Runner.Budget.D().String() != "2ms" || c.Runner.Every["behaviour"] != 2 || c.Perception.FallAngle != 0.5 {
					t.Errorf("got %+v %+v", c.Runner, c.Perception)
				}
			}},
		{name: "rendered vision", file: `{"sim": {"vision": {"source": "rendered", "render": {"bottom_width": 640, "every": 2}}}}`,
			check: func(t *testing.T, c *Config) {
				v := c.SimBackend().Vision
				if v.Source != sim.SourceRendered || v.Render.BottomWidth != 640 || v.Render.Every != 2 || v.Render.Options.Brightness != 1 {
					t.Errorf("got %+v", v)
				}
			}},
		{name: "vision section", file: `{"vision": {"min_white_contrast": 30, "max_width": 1280, "max_height": 720}}`,
			check: func(t *testing.T, c *Config) {
				v := c.Vision
				if v.MinWhiteContrast != 30 || v.MaxWidth != 1280 || v.MaxHeight != 720 || v.FieldGreenRatio != vision.DefaultConfig().FieldGreenRatio || v.Field.BallRadius == 0 {
					t.Errorf("got %+v", v)
				}
			}},
		{name: "bad vision", file: `{"vision": {"field_green_ratio": 1.5}}`, err: "vision.field_green_ratio: 1.5 is outside"},
		{name: "odd vision width", file: `{"vision": {"max_width": 641}}`, err: "max_width 641 not even"},
		{name: "bad vision source", file: `{"sim": {"vision": {"source": "camera"}}}`, err: "camera"},
		{name: "bad bottom width", file: `{"sim": {"vision": {"source": "rendered", "render": {"bottom_width": 400}}}}`, err: "bottom_width"},
		{name: "unknown key", file: `{"robot": {"playr": 4}}`, err: `unknown field "playr"`},
		{name: "bad player", args: []string{"-player", "0"}, err: "robot.player: 0 is outside 1..20"},
		{name: "bad level", args: []string{"-log-level", "loud"}, err: `log.level: "loud"`},
		{name: "stray argument", args: []string{"now"}, err: "unexpected arguments"},
		{name: "missing file", args: []string{"-config", "/nonexistent/robotd.json"}, err: "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.file != "" {
				args = append([]string{"-config", writeFile(t, tc.file)}, args...)
			}
			var out, errOut bytes.Buffer
			c, err := loadConfig(context.Background(), args, &out, &errOut)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestPrintConfigRoundTrips(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"-print-config", "-player", "3"}, &out, &out); code != exitOK {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	// The printed configuration is itself a valid configuration file.
	p := writeFile(t, out.String())
	c, err := loadConfig(context.Background(), []string{"-config", p}, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatalf("printed config does not load: %v\n%s", err, out.String())
	}
	want := DefaultConfig()
	want.Robot.Player = 3
	want.identify() // the modules get the robot's player number
	if c.Behaviour.Player != 3 || c.TeamComm.UDP.Player != 3 || c.GameController.Player != 3 {
		t.Errorf("the modules' player numbers are %d, %d, %d; want the robot's, 3", c.Behaviour.Player, c.TeamComm.UDP.Player, c.GameController.Player)
	}
	a, _ := json.Marshal(c)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) {
		t.Fatalf("round trip changed the config:\n%s\n%s", a, b)
	}
}

func TestBadConfigExitsWithUsage(t *testing.T) {
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"-config", writeFile(t, `{"robot": 1}`)}, &bytes.Buffer{}, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "robotd: ") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}
