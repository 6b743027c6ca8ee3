//go:build !sim

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/nao/naotest"
)

// On a NAO the robot layer is chosen by the body and head IDs LoLA reports
// (here the fake LoLA's real-robot sample: nao21's IDs).
func TestConfigLayersFromLoLA(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sockDir, err := os.MkdirTemp("", "robotd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "robocup")
	srv, err := naotest.Start(ctx, sock, naotest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := teamDir(t, map[string]string{
		"location/lab.json": `{"robot": {"team_number": 5, "team_name": "lab"}, "real": {"nao": {"socket": "` + sock + `"}}}`,
	})
	c, err := loadConfig(ctx, []string{"-config-dir", dir, "-location", "lab"}, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.robotName != "nao21" || c.Robot.Player != 2 || c.Motion.JointOffsets["LKneePitch"] != 0.02 || c.Camera.Top.Pitch != 0.03 {
		t.Errorf("robot %q player %d offsets %v camera %+v; want nao21's", c.robotName, c.Robot.Player, c.Motion.JointOffsets, c.Camera.Top)
	}
	// A robot that robots.json does not know.
	dir2 := teamDir(t, map[string]string{
		"location/lab.json": `{"real": {"nao": {"socket": "` + sock + `"}}}`,
		"robots.json":       `{"robots": [{"name": "nao22", "body_id": "` + body22 + `"}]}`,
	})
	if _, err := loadConfig(ctx, []string{"-config-dir", dir2, "-location", "lab"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("an unknown robot was configured")
	} else {
		t.Log(err)
	}
}
