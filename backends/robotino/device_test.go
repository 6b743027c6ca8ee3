package robotino

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.bug.st/serial/enumerator"
)

// TestFindDevice: a configured device, then the USB ids of §2.1, then the
// glob.
func TestFindDevice(t *testing.T) {
	dir := t.TempDir()
	acm := filepath.Join(dir, "ttyACM3")
	if err := os.WriteFile(acm, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	robotino := &enumerator.PortDetails{Name: "/dev/ttyACM1", IsUSB: true, VID: "1E29", PID: "040D"}
	other := &enumerator.PortDetails{Name: "/dev/ttyACM0", IsUSB: true, VID: "2341", PID: "0043"}
	serial := &enumerator.PortDetails{Name: "/dev/ttyS0"}
	tests := []struct {
		name   string
		cfg    Config
		ports  []*enumerator.PortDetails
		lerr   error
		want   string
		errHas string
	}{
		{"configured device", Config{Device: acm}, []*enumerator.PortDetails{robotino}, nil, acm, ""},
		{"configured device missing", Config{Device: filepath.Join(dir, "gone")}, []*enumerator.PortDetails{robotino}, nil, "", "serial device"},
		{"by USB ids", Config{Glob: filepath.Join(dir, "tty*")}, []*enumerator.PortDetails{serial, other, robotino}, nil, "/dev/ttyACM1", ""},
		{"lower-case ids", Config{}, []*enumerator.PortDetails{{Name: "/dev/ttyACM7", IsUSB: true, VID: "1e29", PID: "040d"}}, nil, "/dev/ttyACM7", ""},
		{"other USB device, glob off", Config{}, []*enumerator.PortDetails{other}, nil, "", "no USB serial device 1e29:040d"},
		{"glob fallback", Config{Glob: filepath.Join(dir, "ttyACM*")}, []*enumerator.PortDetails{other}, nil, acm, ""},
		{"listing fails", Config{}, nil, errors.New("no sysfs"), "", "listing ports: no sysfs"},
	}
	defer func(f func() ([]*enumerator.PortDetails, error)) { listPorts = f }(listPorts)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			listPorts = func() ([]*enumerator.PortDetails, error) { return tc.ports, tc.lerr }
			got, err := FindDevice(tc.cfg)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err %v, want %q", err, tc.errHas)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("FindDevice = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
