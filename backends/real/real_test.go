package real_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/robotd/robotd/backends/nao"
	"github.com/robotd/robotd/backends/nao/naotest"
	"github.com/robotd/robotd/backends/real"
	"github.com/robotd/robotd/backends/robotino"
	"github.com/robotd/robotd/backends/robotino/robotinotest"
	"github.com/robotd/robotd/hal"
)

func cfgWith(kind real.Kind, sock, dev, glob string) real.Config {
	c := real.DefaultConfig()
	c.Kind = kind
	c.NAO.Socket = sock
	c.Robotino.Device = dev
	c.Robotino.Glob = glob
	return c
}

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
	none := filepath.Join(dir, "none*")
	tests := []struct {
		name     string
		cfg      real.Config
		kind     real.Kind
		path     string
		errIs    error
		errMatch string
	}{
		{"lola socket", cfgWith(real.KindAuto, sock, "", none), real.KindNAO, sock, nil, ""},
		{"socket wins over serial", cfgWith(real.KindAuto, sock, tty, ""), real.KindNAO, sock, nil, ""},
		{"serial by glob", cfgWith(real.KindAuto, plain, "", filepath.Join(dir, "ttyACM*")), real.KindRobotino, tty, nil, ""},
		{"serial device", cfgWith(real.KindAuto, plain, tty, ""), real.KindRobotino, tty, nil, ""},
		{"nothing", cfgWith(real.KindAuto, plain, "", none), "", "", real.ErrNoHardware, "no LoLA socket at"},
		{"nothing, glob off", cfgWith(real.KindAuto, plain, "", ""), "", "", robotino.ErrNoDevice, "no USB serial device 1e29:040d"},
		{"forced nao without LoLA yet", cfgWith(real.KindNAO, plain, "", ""), real.KindNAO, plain, nil, ""},
		{"forced robotino missing", cfgWith(real.KindRobotino, sock, filepath.Join(dir, "gone"), ""), "", "", nil, "robotino configured"},
		{"bad kind", cfgWith("pepper", sock, "", ""), "", "", nil, `unknown robot kind "pepper"`},
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

// TestNew: the detected robot's device is constructed and reaches its
// (fake) hardware.
func TestNew(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	defer goleak.VerifyNone(t, opt)
	dir, err := os.MkdirTemp("", "real")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "robocup")
	link := filepath.Join(dir, "ttyRobotino")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	tests := []struct {
		name  string
		start func(t *testing.T) func()
		cfg   real.Config
		kind  real.Kind
		check func(hal.Device) bool
	}{
		{"nao", func(t *testing.T) func() {
			s, err := naotest.Start(ctx, sock, naotest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return func() { s.Close() }
		}, cfgWith(real.KindAuto, sock, "", ""), real.KindNAO, func(d hal.Device) bool { _, ok := d.(*nao.Backend); return ok }},
		{"robotino", func(t *testing.T) func() {
			c, err := robotinotest.Start(ctx, link, robotinotest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return func() { c.Close() }
		}, cfgWith(real.KindAuto, sock, link, ""), real.KindRobotino, func(d hal.Device) bool { _, ok := d.(*robotino.Backend); return ok }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stop := tc.start(t)
			defer stop()
			d, kind, _, err := real.New(tc.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if kind != tc.kind || !tc.check(d) {
				t.Fatalf("kind %q, device %T", kind, d)
			}
			for {
				tk, err := d.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if tk.Connected {
					break
				}
			}
			if err := d.SafeState(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	bad := cfgWith(real.KindNAO, filepath.Join(dir, "robocup"), "", "")
	bad.NAO.BatteryOrder = "sideways"
	if _, _, _, err := real.New(bad, nil); err == nil || !strings.Contains(err.Error(), `battery_order: "sideways"`) {
		t.Fatalf("err %v", err)
	}
	gpio := cfgWith(real.KindRobotino, filepath.Join(dir, "robocup"), os.DevNull, "")
	gpio.Robotino.GPIO = robotino.GPIOConfig{Chip: "gpiochip-nonexistent", LEDLine: "1"}
	if _, _, _, err := real.New(gpio, nil); !errors.Is(err, robotino.ErrNoGPIOChip) {
		t.Fatalf("err %v, want a missing GPIO chip", err)
	}
	if _, _, _, err := real.New(cfgWith(real.KindAuto, filepath.Join(dir, "x"), "", ""), nil); !errors.Is(err, real.ErrNoHardware) {
		t.Fatalf("err %v", err)
	}
}
