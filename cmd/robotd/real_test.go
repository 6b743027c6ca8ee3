//go:build !sim

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The default build without robot hardware refuses to start, clearly.
func TestRealBuildWithoutHardware(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, cfg, want string
		code            int
	}{
		{"nothing found", `{"real": {"nao": {"socket": "` + filepath.Join(dir, "robocup") + `"}, "robotino": {"glob": "` + filepath.Join(dir, "tty*") + `"}}}`,
			"no robot hardware found", exitFailed},
		{"robotino configured, missing", `{"real": {"kind": "robotino", "robotino": {"device": "` + filepath.Join(dir, "ttyACM9") + `"}}}`,
			"robotino configured", exitFailed},
		{"GPIO chip missing", `{"real": {"kind": "robotino", "robotino": {"device": "/dev/null", "gpio": {"chip": "gpiochip-none", "estop_line": "5"}}}}`,
			"GPIO chip not found", exitFailed},
		// A bad setting is a configuration error, found before the backend starts.
		{"bad backend setting", `{"real": {"nao": {"battery_order": "upside-down"}}}`, "real.nao.battery_order", exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var errOut bytes.Buffer
			code := run(context.Background(), []string{"-config", writeFile(t, tc.cfg)}, &bytes.Buffer{}, &errOut)
			if code != tc.code || !strings.Contains(errOut.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, errOut.String(), tc.code, tc.want)
			}
		})
	}
}
