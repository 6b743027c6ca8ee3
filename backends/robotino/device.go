package robotino

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.bug.st/serial/enumerator"

	proto "github.com/robotd/robotd/proto/robotino"
)

// ErrNoDevice is returned by FindDevice when no base controller is found.
var ErrNoDevice = errors.New("no Robotino base controller found")

// listPorts lists the serial ports with their USB ids; a variable so that
// tests can stand in for sysfs.
var listPorts = func() ([]*enumerator.PortDetails, error) { return enumerator.GetDetailedPortsList() }

// FindDevice returns the base controller's serial device: cfg.Device if
// set (it must exist); else the serial port whose USB vendor and product
// are the Robotino's (1e29:040d, protocols.md §2.1); else, if cfg.Glob is
// set, its first match.
func FindDevice(cfg Config) (string, error) {
	if cfg.Device != "" {
		if _, err := os.Stat(cfg.Device); err != nil {
			return "", fmt.Errorf("robotino: serial device: %w", err)
		}
		return cfg.Device, nil
	}
	vid, pid := fmt.Sprintf("%04x", proto.USBVendorID), fmt.Sprintf("%04x", proto.USBProductID)
	ports, lerr := listPorts()
	for _, p := range ports {
		if p != nil && p.IsUSB && strings.EqualFold(p.VID, vid) && strings.EqualFold(p.PID, pid) {
			return p.Name, nil
		}
	}
	if cfg.Glob != "" {
		m, err := filepath.Glob(cfg.Glob)
		if err != nil {
			return "", fmt.Errorf("robotino: serial glob %q: %w", cfg.Glob, err)
		}
		if len(m) > 0 {
			return m[0], nil
		}
	}
	where := "no USB serial device " + vid + ":" + pid
	if lerr != nil {
		where += " (listing ports: " + lerr.Error() + ")"
	}
	if cfg.Glob != "" {
		where += " and nothing matches " + strconv.Quote(cfg.Glob)
	}
	return "", fmt.Errorf("robotino: %w: %s", ErrNoDevice, where)
}
