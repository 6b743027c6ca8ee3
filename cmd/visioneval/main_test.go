package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealFolder runs the command on the repository's labelled set.
func TestRealFolder(t *testing.T) {
	var out bytes.Buffer
	dir := filepath.Join("..", "..", "internal", "testimages", "testdata", "realset")
	if err := run([]string{"-real", dir, "-all", "-pitch-sweep", "3"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"recall", "within 4 m", "per 100 frames", "position error", "time per frame", "pitch -3°", "pitch +3°"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestBadArguments: clear errors, no panic.
func TestBadArguments(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "vision.json")
	if err := os.WriteFile(cfg, []byte(`{"ball_score": 7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-real", t.TempDir()},                // no labels.json
		{"-real", ".", "-pitch-sweep", "-40"}, // no labels.json either
		{"-config", cfg, "-frames", "1"},      // ball_score out of range
		{"-config", "/nonexistent.json"},
		{"stray"},
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
