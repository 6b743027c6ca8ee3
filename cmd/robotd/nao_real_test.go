//go:build !sim

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/robotd/robotd/backends/nao/naotest"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/lola"
)

// lockedBuffer is a bytes.Buffer for a logger in another goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// realDaemon is robotd's default build, run in-process by run().
type realDaemon struct {
	t      *testing.T
	addr   string
	client *http.Client
	stderr *lockedBuffer
	cancel context.CancelFunc
	done   chan int
}

func startRealDaemon(t *testing.T, configJSON string) *realDaemon {
	t.Helper()
	return startRealDaemonWith(t, configJSON, hooks{})
}

// startRealDaemonWith is startRealDaemon with parts replaced.
func startRealDaemonWith(t *testing.T, configJSON string, h hooks) *realDaemon {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	d := &realDaemon{t: t, addr: addr, stderr: &lockedBuffer{}, done: make(chan int, 1),
		client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	args := []string{"-config", writeFile(t, configJSON), "-metrics-addr", addr}
	go func() { d.done <- runWith(ctx, args, io.Discard, d.stderr, h) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-d.done:
		case <-time.After(20 * time.Second):
			t.Error("robotd did not stop")
		}
	})
	return d
}

func (d *realDaemon) get(path string) ([]byte, error) {
	resp, err := d.client.Get("http://" + d.addr + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// metric returns a metric's value, and false while it cannot be read.
func (d *realDaemon) metric(name string) (float64, bool) {
	body, err := d.get("/metrics")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f, err == nil
		}
	}
	return 0, false
}

// waitMetric polls until cond holds for the metric (a hang guard bounds
// it; no timing is asserted).
func (d *realDaemon) waitMetric(ctx context.Context, name string, cond func(float64) bool) float64 {
	d.t.Helper()
	for {
		if v, ok := d.metric(name); ok && cond(v) {
			return v
		}
		select {
		case <-ctx.Done():
			v, _ := d.metric(name)
			d.t.Fatalf("waiting for %s (now %v): %v\n%s", name, v, ctx.Err(), d.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// entry decodes one blackboard entry of /debug/blackboard into v.
func (d *realDaemon) entry(name string, v any) {
	d.t.Helper()
	body, err := d.get("/debug/blackboard")
	if err != nil {
		d.t.Fatal(err)
	}
	var snap struct {
		Entries map[string]struct {
			Tick  uint64          `json:"tick"`
			Value json.RawMessage `json:"value"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(body, &snap); err != nil {
		d.t.Fatalf("/debug/blackboard: %v", err)
	}
	e, ok := snap.Entries[name]
	if !ok || e.Tick == 0 {
		d.t.Fatalf("blackboard entry %s missing or never written", name)
	}
	if err := json.Unmarshal(e.Value, v); err != nil {
		d.t.Fatalf("blackboard entry %s: %v", name, err)
	}
}

// TestRealDaemonOnFakeLoLA: robotd's default
// build runs against the fake LoLA (a real Unix socket) for at least 500
// ticks with the real modules; the decoded values are the sample's; every
// command is a full actuator map in LoLA order and size; killing LoLA
// makes the robot unavailable and a new LoLA makes it resume; and once
// shutdown has started, no command has stiffness.
func TestRealDaemonOnFakeLoLA(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "robotd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "robocup")
	sample, err := naotest.Sample()
	if err != nil {
		t.Fatal(err)
	}

	srv, err := naotest.Start(ctx, sock, naotest.Options{LockStep: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d := startRealDaemon(t, fmt.Sprintf(`{"real": {"kind": "auto", "nao": {"socket": %q, "stiffness_ramp": "1ns", "backoff_min": "5ms", "backoff_max": "20ms"}}}`, sock))

	// 1. At least 500 ticks against the fake LoLA.
	if err := srv.WaitCommands(ctx, 500); err != nil {
		t.Fatalf("%v\n%s", err, d.stderr.String())
	}
	ticks := d.waitMetric(ctx, "robotd_ticks_total", func(v float64) bool { return v >= 500 })
	packets := d.waitMetric(ctx, "robotd_nao_sensor_packets_total", func(v float64) bool { return v >= 500 })
	t.Logf("%v ticks, %v sensor maps decoded, %d commands received", ticks, packets, len(srv.Commands()))
	if v, _ := d.metric("robotd_backend_connected"); v != 1 {
		t.Errorf("robotd_backend_connected %v", v)
	}

	// 2. The decoded values are the sample's, in HAL units and frames.
	var joints hal.JointSensors
	d.entry("hal.joints", &joints)
	for i := range hal.NumJoints {
		if joints.Angle[i] != hal.Radians(sample.Position[i]) || joints.Temperature[i] != float64(sample.Temperature[i]) ||
			joints.Current[i] != float64(sample.Current[i]) || joints.Stiffness[i] != float64(sample.Stiffness[i]) {
			t.Errorf("joint %v: %v %v %v %v", hal.Joint(i), joints.Angle[i], joints.Temperature[i], joints.Current[i], joints.Stiffness[i])
		}
	}
	var imu hal.IMU
	d.entry("hal.imu", &imu)
	a, g := sample.Accelerometer, sample.Gyroscope
	if imu.Accel != (hal.Vec3{X: -float64(a[0]), Y: -float64(a[1]), Z: -float64(a[2])}) || imu.Gyro != (hal.Vec3{X: float64(g[0]), Y: float64(g[1]), Z: float64(g[2])}) {
		t.Errorf("imu %+v", imu)
	}
	var angles hal.BodyAngles
	d.entry("hal.body_angles", &angles)
	if angles.Roll != hal.Radians(sample.Angles[0]) || angles.Pitch != hal.Radians(sample.Angles[1]) {
		t.Errorf("angles %+v", angles)
	}
	var fsr hal.FSR
	d.entry("hal.fsr", &fsr)
	for i := range 4 {
		if fsr.Left[i] != float64(sample.FSR[i]) || fsr.Right[i] != float64(sample.FSR[4+i]) {
			t.Errorf("fsr %+v", fsr)
		}
	}
	var sonar hal.Sonar
	d.entry("hal.sonar", &sonar)
	if sonar.Left != hal.Metres(sample.Sonar[0]) || sonar.Right != hal.Metres(sample.Sonar[1]) || !sonar.LeftValid || !sonar.RightValid {
		t.Errorf("sonar %+v", sonar)
	}
	var bat hal.Battery
	d.entry("hal.battery", &bat)
	if bat.Charge != float64(sample.Battery[0]) || bat.Current != float64(sample.Battery[2]) || bat.Temperature != float64(sample.Battery[3]) {
		t.Errorf("battery %+v", bat)
	}
	var buttons hal.Buttons
	d.entry("hal.buttons", &buttons)
	if buttons != 0 {
		t.Errorf("buttons %b", buttons)
	}

	// 3. Every command is a full actuator map: 786 bytes, the 11 keys of
	// §1.4 in order, 25 joints in LoLA order (each target within that
	// joint's range), stiffness 0..1.
	if errs := srv.Errors(); len(errs) > 0 {
		t.Fatalf("the fake LoLA found: %v", errs)
	}
	stiff := false
	for _, c := range srv.Commands() {
		if c.Size != lola.ActuatorPacketSize || c.Present != lola.AllActuators || strings.Join(c.Keys, ",") != strings.Join(naotest.ActuatorKeys, ",") {
			t.Fatalf("command answering map %d: %d bytes, keys %v", c.Seq, c.Size, c.Keys)
		}
		for i := range hal.NumJoints {
			info := hal.Joints[i]
			if p, s := float64(c.Act.Position[i]), c.Act.Stiffness[i]; p < float64(info.Min)-1e-6 || p > float64(info.Max)+1e-6 || s < 0 || s > 1 {
				t.Fatalf("command answering map %d: %s target %v stiffness %v", c.Seq, info.Name, p, s)
			}
		}
		stiff = stiff || c.MaxStiffness() > 0
	}
	if !stiff {
		t.Error("the modules never commanded stiffness; the shutdown check below would prove nothing")
	}

	// 4. Killing LoLA makes the robot unavailable; a new LoLA, resumes.
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	d.waitMetric(ctx, "robotd_backend_connected", func(v float64) bool { return v == 0 })
	var tick hal.Tick
	d.entry("hal.tick", &tick)
	if tick.Connected {
		t.Errorf("hal.tick %+v after LoLA died", tick)
	}
	var armed atomic.Bool
	var cut atomic.Int64
	cut.Store(-1)
	srv2, err := naotest.Start(ctx, sock, naotest.Options{LockStep: true, OnCommand: func(c *naotest.Command) {
		if armed.Load() && cut.Load() < 0 {
			// Shutdown starts here: nothing more is sent to robotd until
			// this returns (lock step).
			cut.Store(int64(c.Seq))
			d.cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv2.Close()
	if err := srv2.WaitCommands(ctx, 100); err != nil {
		t.Fatal(err)
	}
	d.waitMetric(ctx, "robotd_backend_connected", func(v float64) bool { return v == 1 })
	d.waitMetric(ctx, "robotd_backend_reconnects_total", func(v float64) bool { return v >= 1 })
	total, _ := d.metric("robotd_ticks_total")
	t.Logf("before shutdown: %v ticks in all, %d commands on the second LoLA", total, len(srv2.Commands()))

	// 5. Shutdown: from the command during which it started, every later
	// command has stiffness 0, and there is one (the safe state).
	armed.Store(true)
	var code int
	select {
	case code = <-d.done:
	case <-ctx.Done():
		t.Fatalf("robotd did not stop: %v", ctx.Err())
	}
	d.done <- code // for the cleanup
	if code != exitOK || !strings.Contains(d.stderr.String(), "safe state reached") {
		t.Fatalf("exit %d\n%s", code, d.stderr.String())
	}
	if err := srv2.WaitEnded(ctx, 1); err != nil { // robotd closed the socket; all it sent is recorded
		t.Fatal(err)
	}
	var after []naotest.Command
	for _, c := range srv2.Commands() {
		if int64(c.Seq) > cut.Load() {
			after = append(after, c)
		}
	}
	if len(after) == 0 {
		t.Fatal("no command after shutdown started: the safe state was never sent")
	}
	for _, c := range after {
		if c.MaxStiffness() != 0 {
			t.Fatalf("command answering map %d, after shutdown started at map %d, has stiffness %v", c.Seq, cut.Load(), c.MaxStiffness())
		}
	}
	if errs := srv2.Errors(); len(errs) > 0 {
		t.Fatalf("the second fake LoLA found: %v", errs)
	}
	t.Logf("reconnected; %d commands after shutdown started, all limp", len(after))
}
