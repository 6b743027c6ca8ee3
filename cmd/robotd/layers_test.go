package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robotd/robotd/hal"
)

// The IDs of two NAO v6 (the body and head IDs LoLA reports).
const (
	body21, head21 = "P0000073A03S83I00011", "P0000074A03S84F00006"
	body22, head22 = "P0000073A03S83I00099", "P0000074A03S84F00098"
)

// teamDir writes a configuration directory: a location and two robots;
// extra files override.
func teamDir(t *testing.T, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"location/lab.json": `{"robot": {"team_number": 5, "team_name": "lab"}, "safety": {"low_battery": 0.1}}`,
		"robots.json": `{"robots": [
			{"name": "nao21", "body_id": "` + body21 + `", "head_id": "` + head21 + `"},
			{"name": "nao22", "body_id": "` + body22 + `", "head_id": "` + head22 + `"}]}`,
		"robots/nao21.json": `{"robot": {"player": 2}, "motion": {"joint_offsets": {"LKneePitch": 0.02, "RHipRoll": -0.01}},
			"camera": {"top": {"pitch": 0.03, "focal_x": 560}, "bottom": {"roll": -0.01}}}`,
		"robots/nao22.json": `{"robot": {"player": 3}, "motion": {"joint_offsets": {"LAnkleRoll": 0.015}},
			"camera": {"top": {"pitch": -0.02, "yaw": 0.01}}}`,
	}
	for k, v := range extra {
		files[k] = v
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Two robots get their own joint offsets, camera calibration and player
// number over the location's team; defaults fill the rest; -config and
// flags still go over the layers.
func TestConfigLayersPerRobot(t *testing.T) {
	dir := teamDir(t, nil)
	load := func(ids string, more ...string) *Config {
		t.Helper()
		args := append([]string{"-config-dir", dir, "-location", "lab", "-robot-ids", ids}, more...)
		c, err := loadConfig(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c21, c22 := load(body21+","+head21), load(body22+","+head22)
	for _, tc := range []struct {
		name            string
		c               *Config
		player          int
		offsets         map[string]hal.Radians
		topPitch, focal float64
		robot           string
	}{
		{"nao21", c21, 2, map[string]hal.Radians{"LKneePitch": 0.02, "RHipRoll": -0.01}, 0.03, 560, "nao21"},
		{"nao22", c22, 3, map[string]hal.Radians{"LAnkleRoll": 0.015}, -0.02, 0, "nao22"},
	} {
		c := tc.c
		if c.Robot.TeamNumber != 5 || c.Robot.TeamName != "lab" || c.Safety.LowBattery != 0.1 {
			t.Errorf("%s: location layer not applied: %+v, low_battery %v", tc.name, c.Robot, c.Safety.LowBattery)
		}
		if c.Robot.Player != tc.player || c.robotName != tc.robot {
			t.Errorf("%s: player %d robot %q", tc.name, c.Robot.Player, c.robotName)
		}
		if len(c.Motion.JointOffsets) != len(tc.offsets) {
			t.Errorf("%s: joint offsets %v, want %v", tc.name, c.Motion.JointOffsets, tc.offsets)
		}
		for j, v := range tc.offsets {
			if c.Motion.JointOffsets[j] != v {
				t.Errorf("%s: joint offset %s %v, want %v", tc.name, j, c.Motion.JointOffsets[j], v)
			}
		}
		if float64(c.Camera.Top.Pitch) != tc.topPitch || c.Camera.Top.FocalX != tc.focal {
			t.Errorf("%s: camera %+v", tc.name, c.Camera)
		}
		if c.Motion.Stiffness != DefaultConfig().Motion.Stiffness {
			t.Errorf("%s: a default was lost: motion.stiffness %v", tc.name, c.Motion.Stiffness)
		}
		want := []string{filepath.Join(dir, "location", "lab.json"), filepath.Join(dir, "robots", tc.robot+".json")}
		if strings.Join(c.layers, " ") != strings.Join(want, " ") {
			t.Errorf("%s: layers %q, want %q", tc.name, c.layers, want)
		}
	}
	// -config and flags override the layers.
	over := writeFile(t, `{"robot": {"player": 4}}`)
	if c := load(body21+","+head21, "-config", over, "-team", "7"); c.Robot.Player != 4 || c.Robot.TeamNumber != 7 || c.Motion.JointOffsets["LKneePitch"] != 0.02 {
		t.Errorf("override: player %d team %d offsets %v", c.Robot.Player, c.Robot.TeamNumber, c.Motion.JointOffsets)
	}
}

// A wrong layer is an error that names the file and the key.
func TestConfigLayersErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra map[string]string
		ids   string
		want  []string
	}{
		{"unknown key", map[string]string{"robots/nao22.json": `{"motion": {"joint_ofsets": {"LKneePitch": 0.02}}}`},
			body22 + "," + head22, []string{filepath.Join("robots", "nao22.json"), `"joint_ofsets"`}},
		{"offset out of range", map[string]string{"robots/nao22.json": `{"motion": {"joint_offsets": {"LKneePitch": 0.5}}}`},
			body22 + "," + head22, []string{filepath.Join("robots", "nao22.json"), "motion.joint_offsets: \"LKneePitch\": 0.5 is outside"}},
		{"no such joint", map[string]string{"robots/nao21.json": `{"motion": {"joint_offsets": {"LKnee": 0.01}}}`},
			body21 + "," + head21, []string{filepath.Join("robots", "nao21.json"), "motion.joint_offsets.LKnee: no such joint"}},
		{"camera out of range", map[string]string{"robots/nao21.json": `{"camera": {"bottom": {"yaw": 1}}}`},
			body21 + "," + head21, []string{filepath.Join("robots", "nao21.json"), "camera.bottom.yaw: 1 is outside"}},
		{"bad player", map[string]string{"robots/nao21.json": `{"robot": {"player": 0}}`},
			body21 + "," + head21, []string{filepath.Join("robots", "nao21.json"), "robot.player: 0 is outside"}},
		{"bad location", map[string]string{"location/lab.json": `{"robot": {"team_number": 500}}`},
			body21 + "," + head21, []string{filepath.Join("location", "lab.json"), "robot.team_number: 500 is outside"}},
		{"type mismatch", map[string]string{"robots/nao21.json": `{"robot": {"player": "two"}}`},
			body21 + "," + head21, []string{filepath.Join("robots", "nao21.json"), "line 1", "Config.robot.player"}},
		{"unknown robot", nil, "P000BODY,P000HEAD", []string{"robots.json", `no robot with body_id "P000BODY"`}},
		{"head swapped", nil, body21 + "," + head22, []string{"robots.json", `robot "nao21" has head_id "` + head21 + `"`}},
		{"robots.json broken", map[string]string{"robots.json": `{"robots": [{"name": "../x", "body_id": "B"}]}`},
			body21 + "," + head21, []string{"robots.json: robots[0].name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := teamDir(t, tc.extra)
			_, err := loadConfig(context.Background(), []string{"-config-dir", dir, "-location", "lab", "-robot-ids", tc.ids}, &bytes.Buffer{}, &bytes.Buffer{})
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}
