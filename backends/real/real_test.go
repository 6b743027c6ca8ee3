package real_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robotd/robotd/backends/real"
)

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "robocup")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tty := filepath.Join(dir, "ttyACM0")
	if err := os.WriteFile(tty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "not-a-socket")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		cfg      real.Config
		kind     real.Kind
		path     string
		errIs    error
		errMatch string
	}{
		{"lola socket", real.Config{Kind: real.KindAuto, LoLASocket: sock, SerialGlob: filepath.Join(dir, "none*")}, real.KindNAO, sock, nil, ""},
		{"serial by glob", real.Config{Kind: real.KindAuto, LoLASocket: plain, SerialGlob: filepath.Join(dir, "ttyACM*")}, real.KindRobotino, tty, nil, ""},
		{"nothing", real.Config{Kind: real.KindAuto, LoLASocket: plain, SerialGlob: filepath.Join(dir, "none*")}, "", "", real.ErrNoHardware, "no LoLA socket at"},
		{"forced robotino missing", real.Config{Kind: real.KindRobotino, SerialDevice: filepath.Join(dir, "gone")}, "", "", nil, "robotino configured"},
		{"bad kind", real.Config{Kind: "pepper"}, "", "", nil, `unknown robot kind "pepper"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, p, err := real.Detect(tc.cfg)
			if tc.errIs != nil || tc.errMatch != "" {
				if err == nil || (tc.errIs != nil && !errors.Is(err, tc.errIs)) || !strings.Contains(err.Error(), tc.errMatch) {
					t.Fatalf("err = %v, want %v containing %q", err, tc.errIs, tc.errMatch)
				}
				return
			}
			if err != nil || k != tc.kind || p != tc.path {
				t.Fatalf("Detect = %q %q %v, want %q %q", k, p, err, tc.kind, tc.path)
			}
		})
	}
}
