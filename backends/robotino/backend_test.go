package robotino_test

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"github.com/robotd/robotd/backends/robotino"
	"github.com/robotd/robotd/backends/robotino/robotinotest"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	proto "github.com/robotd/robotd/proto/robotino"
)

// guard bounds a test that waits for something; it is a hang guard, not a
// timed assertion.
const guard = 20 * time.Second

func leakCheck(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

func ctxGuard(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

// rig is a backend on a fake controller at the other end of a pty.
type rig struct {
	t    *testing.T
	ctx  context.Context
	link string
	ctl  *robotinotest.Controller
	b    *robotino.Backend
	gpio *robotinotest.GPIO
}

func testConfig(link string) robotino.Config {
	c := robotino.DefaultConfig()
	c.Device = link
	c.Period = config.Duration(2 * time.Millisecond)
	c.BackoffMin = config.Duration(5 * time.Millisecond)
	c.BackoffMax = config.Duration(20 * time.Millisecond)
	c.DeadmanTime = config.Duration(time.Minute) // the longest allowed: off for the tests' length
	c.ReadTimeout = config.Duration(time.Second) // no late reply unless a test wants one
	return c
}

func newRig(t *testing.T, o robotinotest.Options, mod func(*robotino.Config)) *rig {
	t.Helper()
	r := &rig{t: t, ctx: ctxGuard(t), link: filepath.Join(t.TempDir(), "ttyRobotino"), gpio: &robotinotest.GPIO{}}
	r.ctl = r.startController(o)
	cfg := testConfig(r.link)
	if mod != nil {
		mod(&cfg)
	}
	b, err := robotino.New(cfg, slog.New(slog.DiscardHandler), robotino.Options{GPIO: r.gpio})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	r.b = b
	return r
}

func (r *rig) startController(o robotinotest.Options) *robotinotest.Controller {
	r.t.Helper()
	c, err := robotinotest.Start(context.Background(), r.link, o)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	return c
}

// tick writes the velocity v (if not nil), commits, and waits for the
// next tick, as the runner does. When a connected tick returns, the
// controller has answered the committed requests, so it has recorded the
// committed frames.
func (r *rig) tick(v *hal.BaseVelocity) hal.Tick {
	r.t.Helper()
	if v != nil {
		r.b.WriteBaseVelocity(v)
	}
	if err := r.b.Commit(r.ctx); err != nil {
		r.t.Fatalf("Commit: %v", err)
	}
	tk, err := r.b.Next(r.ctx)
	if err != nil {
		r.t.Fatalf("Next: %v", err)
	}
	return tk
}

// lastMotor returns the last motor frame the controller received.
func (r *rig) lastMotor() robotinotest.Frame {
	r.t.Helper()
	mf := r.ctl.MotorFrames()
	return mf[len(mf)-1]
}

// until ticks (with velocity v) until a tick has Connected == want.
// Failed commits are logged and ignored, as the runner does.
func (r *rig) until(want bool, v *hal.BaseVelocity) {
	r.t.Helper()
	for {
		if v != nil {
			r.b.WriteBaseVelocity(v)
		}
		if err := r.b.Commit(r.ctx); err != nil {
			r.t.Logf("commit: %v", err)
		}
		tk, err := r.b.Next(r.ctx)
		if err != nil {
			r.t.Fatalf("Next: %v", err)
		}
		if tk.Connected == want {
			return
		}
	}
}

func (r *rig) noControllerErrors() {
	r.t.Helper()
	if errs := r.ctl.Errors(); len(errs) > 0 {
		r.t.Fatalf("the controller found: %v", errs)
	}
}

// metric returns the backend's metric name{label=value}.
func metric(t *testing.T, c prometheus.Collector, name, label, value string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			ok := label == ""
			for _, l := range m.GetLabel() {
				ok = ok || l.GetName() == label && l.GetValue() == value
			}
			if !ok {
				continue
			}
			if m.GetGauge() != nil {
				return m.GetGauge().GetValue()
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s{%s=%q}", name, label, value)
	return 0
}

// The Robotino 3 of protocols.md §2.5, written out here from the text.
const (
	specRW   = 0.060
	specGear = 32.0
	specRB   = 0.175
)

var specK = 60 * specGear / (2 * math.Pi * specRW) // rpm per m/s, 5092.96

// specRPM is §2.5's forward model: m_i = k·(dx_i·vx + dy_i·vy + rb·ω) with
// the drive directions (−√3/2, ½), (0, −1), (√3/2, ½).
func specRPM(vx, vy, w float64) [3]float64 {
	dirs := [3][2]float64{{-math.Sqrt(3) / 2, 0.5}, {0, -1}, {math.Sqrt(3) / 2, 0.5}}
	var m [3]float64
	for i, d := range dirs {
		m[i] = specK * (d[0]*vx + d[1]*vy + specRB*w)
	}
	return m
}

// specBody is §2.5's inverse model.
func specBody(m [3]float64) (vx, vy, w float64) {
	vx = (m[2] - m[0]) / (math.Sqrt(3) * specK)
	vy = 2.0 / 3.0 * (m[0] + 0.5*(m[2]-m[0]) - m[1]) / specK
	w = (vy + m[1]/specK) / specRB
	return
}

// specFrame builds a frame by §2.2's rules: 0xAA, length (LE), payload,
// checksum (0x10000 − sum of length and payload bytes), every byte after
// the start byte equal to 0xAA or 0x55 sent as 0x55, byte ^ 0x20.
func specFrame(payload []byte) []byte {
	n := len(payload)
	body := append([]byte{byte(n), byte(n >> 8)}, payload...)
	sum := 0
	for _, c := range body {
		sum += int(c)
	}
	cs := (0x10000 - sum%0x10000) & 0xFFFF
	body = append(body, byte(cs), byte(cs>>8))
	out := []byte{0xAA}
	for _, c := range body {
		if c == 0xAA || c == 0x55 {
			out = append(out, 0x55, c^0x20)
		} else {
			out = append(out, c)
		}
	}
	return out
}

// specMotorFrame is the frame of three SET_MOTOR_SPEED (tag 9, len 3,
// motor, int16 rpm LE), §2.2's last worked example's layout.
func specMotorFrame(rpm [3]int16) []byte {
	var p []byte
	for i, v := range rpm {
		p = append(p, 9, 3, byte(i), byte(uint16(v)), byte(uint16(v)>>8))
	}
	return specFrame(p)
}

func hexBytes(t *testing.T, s string) []byte {
	t.Helper()
	var out []byte
	for _, f := range strings.Fields(s) {
		var b byte
		for _, c := range f {
			b = b<<4 | byte(strings.IndexRune("0123456789abcdef", c))
		}
		out = append(out, b)
	}
	return out
}

func TestSpecFrameMatchesTheWorkedExamples(t *testing.T) {
	for _, tc := range []struct {
		payload []byte
		wire    string
	}{
		{[]byte{52, 0}, "aa 02 00 34 00 ca ff"},
		{[]byte{9, 3, 0, 100, 0}, "aa 05 00 09 03 00 64 00 8b ff"},
		{[]byte{9, 3, 0, 85, 0}, "aa 05 00 09 03 00 55 75 00 9a ff"},
	} {
		if got := specFrame(tc.payload); string(got) != string(hexBytes(t, tc.wire)) {
			t.Errorf("% x, want %s", got, tc.wire)
		}
	}
	if got := specMotorFrame([3]int16{-100, 0, 100}); string(got) != string(hexBytes(t, "aa 0f 00 09 03 00 9c ff 09 03 01 00 00 09 03 02 64 00 cb fd")) {
		t.Errorf("% x", got)
	}
}

// TestMotorFramesByteExact: a commanded body velocity gives the motor
// frame computed from §2.5 and §2.2, byte for byte, within the limits.
func TestMotorFramesByteExact(t *testing.T) {
	leakCheck(t)
	round := func(m [3]float64, scale float64) [3]int16 {
		var r [3]int16
		for i, x := range m {
			r[i] = int16(math.Round(x * scale))
		}
		return r
	}
	within := func(m [3]float64) [3]int16 { // the 3000 rpm limit scales all three alike
		peak := math.Max(math.Abs(m[0]), math.Max(math.Abs(m[1]), math.Abs(m[2])))
		return round(m, math.Min(1, 3000/peak))
	}
	tests := []struct {
		name string
		v    hal.BaseVelocity
		want []byte
	}{
		{"§2.2 worked example: motors −100, 0, +100", hal.BaseVelocity{VX: hal.MetresPerSec(200 / (math.Sqrt(3) * specK))},
			hexBytes(t, "aa 0f 00 09 03 00 9c ff 09 03 01 00 00 09 03 02 64 00 cb fd")},
		{"turn left", hal.BaseVelocity{Omega: 0.5}, specMotorFrame(round(specRPM(0, 0, 0.5), 1))},
		{"sideways", hal.BaseVelocity{VY: 0.2}, specMotorFrame(round(specRPM(0, 0.2, 0), 1))},
		{"combined", hal.BaseVelocity{VX: 0.3, VY: -0.1, Omega: 0.4}, specMotorFrame(round(specRPM(0.3, -0.1, 0.4), 1))},
		{"escaped 0x55: 85 rpm each", hal.BaseVelocity{Omega: hal.RadPerSec(85 / (specK * specRB))}, specMotorFrame([3]int16{85, 85, 85})},
		{"max_speed 0.5 m/s", hal.BaseVelocity{VX: 2}, specMotorFrame(round(specRPM(0.5, 0, 0), 1))},
		{"max_omega 2 rad/s", hal.BaseVelocity{Omega: -5}, specMotorFrame(round(specRPM(0, 0, -2), 1))},
		{"3000 rpm keeps the direction", hal.BaseVelocity{VX: 0.5, Omega: 2}, specMotorFrame(within(specRPM(0.5, 0, 2)))},
		{"NaN stops", hal.BaseVelocity{VX: hal.MetresPerSec(math.NaN())}, specMotorFrame([3]int16{})},
		{"stop", hal.BaseVelocity{}, specMotorFrame([3]int16{})},
	}
	if got := specMotorFrame([3]int16{85, 85, 85}); !strings.Contains(string(got), "\x55\x75") {
		t.Fatalf("85 rpm frame % x is not escaped", got)
	}
	r := newRig(t, robotinotest.Options{EchoSpeeds: true}, nil)
	r.until(true, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v
			r.tick(&v)
			last := r.lastMotor()
			got := last.Raw
			if string(got) != string(tc.want) {
				t.Fatalf("motor frame\n got % x\nwant % x", got, tc.want)
			}
			// The measured speeds (echoed) come back as the velocity.
			var bs hal.BaseState
			r.b.ReadBase(&bs)
			rpm, _ := last.MotorSpeeds()
			vx, vy, w := specBody([3]float64{float64(rpm[0]), float64(rpm[1]), float64(rpm[2])})
			if math.Abs(float64(bs.Velocity.VX)-vx) > 1e-9 || math.Abs(float64(bs.Velocity.VY)-vy) > 1e-9 || math.Abs(float64(bs.Velocity.Omega)-w) > 1e-9 {
				t.Errorf("measured velocity %+v, want (%v, %v, %v)", bs.Velocity, vx, vy, w)
			}
		})
	}
	r.noControllerErrors()
}

// TestStartup: the start-up sequence of §2.4 reaches the base.
func TestStartup(t *testing.T) {
	leakCheck(t)
	r := newRig(t, robotinotest.Options{HWVersion: "3.0.0", SWVersion: "1.2.3"}, nil)
	r.until(true, nil)
	st := r.ctl.State()
	if !st.EmergencyBumper || st.OdometrySet != 1 || st.DigitalOutputs != 0 {
		t.Errorf("state after start-up %+v", st)
	}
	for m := range 3 {
		if st.AccelLimits[m] != [2]float32{-11500, 11500} {
			t.Errorf("motor %d acceleration limits %v", m, st.AccelLimits[m])
		}
	}
	if hw, sw := r.b.Versions(); hw != "3.0.0" || sw != "1.2.3" {
		t.Errorf("versions %q %q", hw, sw)
	}
	frames := r.ctl.Frames()
	if cmds, _ := frames[0].Commands(); len(cmds) != 2 || cmds[0].Tag != proto.TagGetHWVersion || cmds[1].Tag != proto.TagGetSWVersion {
		t.Errorf("first frame % x, want the version requests", frames[0].Raw)
	}
	if r.b.Device() != r.link {
		t.Errorf("device %q", r.b.Device())
	}
	r.noControllerErrors()
}

// TestEncoderOdometry: encoder replies give the odometry of §2.5's inverse
// model, integrated step by step.
func TestEncoderOdometry(t *testing.T) {
	const ticksPerRev = 2048
	type step struct {
		n     int
		delta [3]int32 // encoder ticks per reply
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"forward", []step{{30, [3]int32{-1000, 0, 1000}}}},
		{"left", []step{{20, [3]int32{500, -1000, 500}}}},
		{"turn", []step{{25, [3]int32{700, 700, 700}}}},
		{"turn, then forward", []step{{20, [3]int32{900, 900, 900}}, {20, [3]int32{-1000, 0, 1000}}}},
		{"backwards over the int32 wrap", []step{{10, [3]int32{1 << 20, 0, -(1 << 20)}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			// positions(n) for reply n: a start value, then the steps.
			start := [3]int32{12345, -777, math.MaxInt32 - 3<<20}
			var deltas [][3]int32
			for _, s := range tc.steps {
				for range s.n {
					deltas = append(deltas, s.delta)
				}
			}
			positions := func(n int) [3]int32 {
				p := start
				for i := 0; i < n-1 && i < len(deltas); i++ {
					for m := range 3 {
						p[m] += deltas[i][m]
					}
				}
				return p
			}
			r := newRig(t, robotinotest.Options{OnRequest: func(n int, st *robotinotest.State) {
				p := positions(n)
				copy(st.Positions[:3], p[:])
			}}, func(c *robotino.Config) {
				c.Odometry = robotino.OdometryEncoders
				c.EncoderTicksPerRev = ticksPerRev
			})
			r.until(true, nil)
			for r.ctl.Replies() < len(deltas)+3 {
				r.tick(nil)
			}
			// Expected: each step's displacement from §2.5 (a displacement of
			// rev revolutions is 60·rev rpm for one second), heading taken
			// halfway through the step.
			var x, y, th float64
			for _, d := range deltas {
				var m [3]float64
				for i := range 3 {
					m[i] = 60 * float64(d[i]) / ticksPerRev
				}
				dx, dy, dth := specBody(m)
				h := th + dth/2
				x += dx*math.Cos(h) - dy*math.Sin(h)
				y += dx*math.Sin(h) + dy*math.Cos(h)
				th += dth
			}
			th = math.Remainder(th, 2*math.Pi)
			var bs hal.BaseState
			r.b.ReadBase(&bs)
			if math.Abs(float64(bs.Odometry.X)-x) > 1e-9 || math.Abs(float64(bs.Odometry.Y)-y) > 1e-9 || math.Abs(float64(bs.Odometry.Heading)-th) > 1e-9 {
				t.Fatalf("odometry %+v, want (%.6f, %.6f, %.6f)", bs.Odometry, x, y, th)
			}
			if math.Hypot(x, y)+math.Abs(th) < 0.1 {
				t.Fatalf("the test moves too little: (%v, %v, %v)", x, y, th)
			}
			r.noControllerErrors()
		})
	}
}

// TestFirmwareOdometryAcrossReconnect: the base's own odometry is the
// pose; after the base comes back (and its odometry is zeroed again), the
// pose goes on from where it was. Killing the controller makes ticks
// disconnected.
func TestFirmwareOdometryAcrossReconnect(t *testing.T) {
	leakCheck(t)
	odo := func(n int, st *robotinotest.State) {
		st.Odometry = proto.Odometry{X: 0.01 * float32(n-1), Phi: 0}
	}
	r := newRig(t, robotinotest.Options{OnRequest: odo}, nil)
	r.until(true, nil)
	for r.ctl.Replies() < 11 {
		r.tick(nil)
	}
	var before hal.BaseState
	r.b.ReadBase(&before)
	if math.Abs(float64(before.Odometry.X)-0.01*float64(r.ctl.Replies()-1)) > 1e-6 {
		t.Fatalf("odometry %+v after %d replies", before.Odometry, r.ctl.Replies())
	}
	r.ctl.Close()
	r.until(false, nil)
	r.ctl = r.startController(robotinotest.Options{OnRequest: func(n int, st *robotinotest.State) {
		st.Odometry = proto.Odometry{X: 0, Y: 0.02 * float32(n-1), Phi: math.Pi / 2}
	}})
	r.until(true, nil)
	for r.ctl.Replies() < 6 {
		r.tick(nil)
	}
	var after hal.BaseState
	r.b.ReadBase(&after)
	// New baseline at the first reply (Y 0, Phi π/2): the pose moved by
	// the later replies' Y, rotated from the firmware's frame (heading π/2)
	// into ours (heading 0): along −x... relative to the baseline heading.
	n := float64(r.ctl.Replies() - 1)
	wantX := float64(before.Odometry.X) + 0.02*n // fw +y at fw heading π/2 is our +x at heading 0
	if math.Abs(float64(after.Odometry.X)-wantX) > 1e-6 || math.Abs(float64(after.Odometry.Y)) > 1e-6 || math.Abs(float64(after.Odometry.Heading)) > 1e-6 {
		t.Fatalf("odometry after reconnecting %+v, want (%v, 0, 0)", after.Odometry, wantX)
	}
	if st := r.b.Stats(); st.Reconnects != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestBumperStopsWithinOneTick: the first motor frame after the reply with
// BUMPER 1 has zero speeds; the motors stay stopped until the bumper is
// released and a zero velocity is commanded.
func TestBumperStopsWithinOneTick(t *testing.T) {
	leakCheck(t)
	const hit, release = 5, 9
	r := newRig(t, robotinotest.Options{OnRequest: func(n int, st *robotinotest.State) {
		st.Bumper = n >= hit && n < release
	}}, nil)
	fwd := &hal.BaseVelocity{VX: 0.2}
	r.until(true, fwd)
	for r.ctl.Replies() < release+2 {
		r.tick(fwd)
	}
	var bs hal.BaseState
	r.b.ReadBase(&bs)
	if bs.Bumper || !r.b.Stopped() {
		t.Fatalf("bumper %v stopped %v after the release, before a zero command", bs.Bumper, r.b.Stopped())
	}
	r.tick(&hal.BaseVelocity{})
	for range 3 {
		r.tick(fwd)
	}
	moving := specMotorFrame(func() [3]int16 {
		m := specRPM(0.2, 0, 0)
		return [3]int16{int16(math.Round(m[0])), int16(math.Round(m[1])), int16(math.Round(m[2]))}
	}())
	var sawStop bool
	zeroSince := -1
	for _, f := range r.ctl.MotorFrames() {
		rpm, _ := f.MotorSpeeds()
		zero := rpm == [4]int16{}
		switch {
		case f.Replies >= hit && !sawStop:
			if !zero {
				t.Fatalf("first motor frame after the bumper reply (reply %d) is % x, want zeros", f.Replies, f.Raw)
			}
			sawStop, zeroSince = true, f.Replies
		case f.Replies > hit && f.Replies <= release+1:
			if !zero {
				t.Fatalf("motor frame after reply %d is % x, want zeros (bumper held, then no zero command)", f.Replies, f.Raw)
			}
		case f.Replies > 1 && f.Replies < hit:
			if string(f.Raw) != string(moving) {
				t.Fatalf("motor frame after reply %d is % x, want % x", f.Replies, f.Raw, moving)
			}
		}
	}
	last := r.ctl.MotorFrames()
	if string(last[len(last)-1].Raw) != string(moving) || !sawStop || zeroSince != hit {
		t.Fatalf("after the release and a zero command the last frame is % x; stop seen %v", last[len(last)-1].Raw, sawStop)
	}
	if got := metric(t, r.b, "robotd_robotino_stops_total", "reason", "bumper"); got != 1 {
		t.Errorf("bumper stops %v", got)
	}
	var btn hal.Buttons
	r.b.ReadButtons(&btn)
	if btn.Pressed(hal.LFootBumperLeft) {
		t.Error("bumper still reported as pressed")
	}
	r.noControllerErrors()
}

// TestEmergencyStop: the GPIO input stops the motors before the modules
// run, and the LED shows it.
func TestEmergencyStop(t *testing.T) {
	leakCheck(t)
	gpio := &robotinotest.GPIO{}
	const press, release = 5, 8
	r := newRig(t, robotinotest.Options{OnRequest: func(n int, st *robotinotest.State) {
		switch n {
		case press:
			gpio.SetEStop(true, nil)
		case release:
			gpio.SetEStop(false, nil)
		}
	}}, nil)
	// Use this test's GPIO.
	r.b.Close()
	b, err := robotino.New(testConfig(r.link), nil, robotino.Options{GPIO: gpio})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	r.b = b
	fwd := &hal.BaseVelocity{VY: -0.1}
	r.until(true, fwd)
	r.tick(fwd)
	if on, _ := gpio.LED(); !on {
		t.Error("status LED off while connected and free")
	}
	for r.ctl.Replies() < press+1 {
		r.tick(fwd)
	}
	var bs hal.BaseState
	r.b.ReadBase(&bs)
	if on, _ := gpio.LED(); on || !bs.EmergencyStop {
		t.Errorf("LED %v, estop %v during the emergency stop", on, bs.EmergencyStop)
	}
	for r.ctl.Replies() < release+2 {
		r.tick(fwd)
	}
	if !r.b.Stopped() {
		t.Error("released emergency stop frees the motors before a zero command")
	}
	r.tick(&hal.BaseVelocity{})
	r.tick(fwd)
	r.tick(fwd)
	var stopSeen bool
	for _, f := range r.ctl.MotorFrames() {
		rpm, _ := f.MotorSpeeds()
		if f.Replies >= press && !stopSeen {
			stopSeen = true
			if rpm != [4]int16{} {
				t.Fatalf("first motor frame after the emergency stop is % x", f.Raw)
			}
		}
	}
	mf := r.ctl.MotorFrames()
	if rpm, _ := mf[len(mf)-1].MotorSpeeds(); rpm == [4]int16{} {
		t.Error("still stopped after release and a zero command")
	}
	if got := metric(t, r.b, "robotd_robotino_stops_total", "reason", "emergency_stop"); got != 1 {
		t.Errorf("emergency stops %v", got)
	}
	if on, _ := gpio.LED(); !on {
		t.Error("status LED off after the release")
	}
	if err := r.b.SafeState(r.ctx); err != nil {
		t.Fatal(err)
	}
	if on, _ := gpio.LED(); on {
		t.Error("status LED on after SafeState")
	}
}

// TestSafeStateAndDeadman: SafeState stops all four motors for good; a
// velocity not renewed for deadman_time stops the drive.
func TestSafeStateAndDeadman(t *testing.T) {
	leakCheck(t)
	r := newRig(t, robotinotest.Options{}, func(c *robotino.Config) { c.DeadmanTime = config.Duration(20 * time.Millisecond) })
	r.until(true, &hal.BaseVelocity{VX: 0.1})
	r.tick(&hal.BaseVelocity{VX: 0.1})
	if rpm, _ := r.lastMotor().MotorSpeeds(); rpm == [4]int16{} {
		t.Fatal("the velocity does not move the base")
	}
	for {
		rpm, _ := r.lastMotor().MotorSpeeds()
		if rpm == [4]int16{} {
			break
		}
		r.tick(nil) // no new velocity
	}
	if got := metric(t, r.b, "robotd_robotino_stops_total", "reason", "deadman"); got != 1 {
		t.Errorf("dead-man stops %v", got)
	}
	r.tick(&hal.BaseVelocity{VX: 0.1})
	if rpm, _ := r.lastMotor().MotorSpeeds(); rpm == [4]int16{} {
		t.Fatal("a new velocity does not move the base after the dead-man stop")
	}
	n := len(r.ctl.Frames())
	if err := r.b.SafeState(r.ctx); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r.tick(&hal.BaseVelocity{VX: 0.3})
	}
	frames := r.ctl.Frames()[n:]
	rpm, set := frames[0].MotorSpeeds()
	if set != 0b1111 || rpm != [4]int16{} {
		t.Fatalf("safe-state frame % x, want zero for all four motors", frames[0].Raw)
	}
	for _, f := range frames {
		if rpm, _ := f.MotorSpeeds(); rpm != [4]int16{} {
			t.Fatalf("motor frame % x after SafeState", f.Raw)
		}
	}
	if got := metric(t, r.b, "robotd_robotino_stopped", "", ""); got != 1 {
		t.Errorf("stopped gauge %v", got)
	}
}

// TestSensors: gyro, battery, power button and bumper as HAL values.
func TestSensors(t *testing.T) {
	leakCheck(t)
	r := newRig(t, robotinotest.Options{OnRequest: func(n int, st *robotinotest.State) {
		st.Gyro = proto.GyroZ{Angle: 1, Rate: 0.25}
		st.Power = proto.PowerSource{BatteryVoltage: 24, SystemCurrent: 1.5, ExternalPower: true}
		st.PowerButton = true
		st.Bumper = true
	}}, func(c *robotino.Config) { c.GyroScale = 2 })
	r.until(true, nil)
	var imu hal.IMU
	r.b.ReadIMU(&imu)
	if imu.Gyro != (hal.Vec3{Z: 0.5}) || imu.Accel != (hal.Vec3{Z: float64(hal.Gravity)}) {
		t.Errorf("imu %+v", imu)
	}
	var bat hal.Battery
	r.b.ReadBattery(&bat)
	if math.Abs(bat.Charge-0.8) > 1e-9 || bat.Current != -1.5 || !bat.Charging {
		t.Errorf("battery %+v", bat)
	}
	var btn hal.Buttons
	r.b.ReadButtons(&btn)
	if btn != 1<<hal.ChestButton|1<<hal.LFootBumperLeft {
		t.Errorf("buttons %b", btn)
	}
}

// TestGarbageAndChecksums: garbage and frames with bad checksums between
// the replies are counted exactly, skipped (a broken frame's BUMPER 1 is
// not believed), and the ticks go on connected.
func TestGarbageAndChecksums(t *testing.T) {
	leakCheck(t)
	r := newRig(t, robotinotest.Options{}, nil)
	fwd := &hal.BaseVelocity{VX: 0.1}
	r.until(true, fwd)
	var bump proto.Payload
	bump.ReplyFlag(proto.TagBumper, 1)
	bad := specFrame(bump.Bytes())
	bad[len(bad)-1] ^= 0x01 // checksum high byte: 0xff → 0xfe, no escape involved
	garbage := []byte("\x00\x01hello robotino\xff\x10")
	const rounds = 10
	for range rounds {
		r.ctl.Inject(garbage)
		r.ctl.Inject(bad)
		if !r.tick(fwd).Connected {
			t.Fatal("tick not connected after garbage")
		}
	}
	r.tick(fwd)
	st := r.b.FrameStats()
	if st.GarbageRuns != rounds || st.GarbageBytes != rounds*uint64(len(garbage)) || st.BadChecksum != rounds || st.Truncated != 0 {
		t.Fatalf("frame stats %+v, want %d garbage runs of %d bytes and %d checksum errors", st, rounds, len(garbage), rounds)
	}
	if got := metric(t, r.b, "robotd_robotino_frame_errors_total", "kind", "checksum"); got != rounds {
		t.Errorf("checksum metric %v", got)
	}
	if got := metric(t, r.b, "robotd_robotino_frame_errors_total", "kind", "garbage"); got != rounds {
		t.Errorf("garbage metric %v", got)
	}
	if got := metric(t, r.b, "robotd_robotino_garbage_bytes_total", "", ""); got != rounds*float64(len(garbage)) {
		t.Errorf("garbage bytes metric %v", got)
	}
	if r.b.Stopped() {
		t.Error("a frame with a bad checksum stopped the motors")
	}
	if s := r.b.Stats(); s.Errors != 2*rounds || s.Reconnects != 0 {
		t.Errorf("stats %+v", s)
	}
	r.noControllerErrors()
}

// TestRandomGarbageSurvived: random bytes (start and escape bytes
// included) before the replies are survived.
func TestRandomGarbageSurvived(t *testing.T) {
	leakCheck(t)
	r := newRig(t, robotinotest.Options{OnRequest: func(n int, st *robotinotest.State) {
		st.Odometry = proto.Odometry{X: float32(n)}
	}}, nil)
	r.until(true, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		g := make([]byte, 1+rng.IntN(64))
		for i := range g {
			g[i] = byte(rng.IntN(256))
		}
		r.ctl.Inject(g)
		if !r.tick(nil).Connected {
			t.Fatal("tick not connected after garbage")
		}
	}
	var bs hal.BaseState
	r.b.ReadBase(&bs)
	if want := float64(r.ctl.Replies() - 1); math.Abs(float64(bs.Odometry.X)-want) > 1e-3 {
		t.Errorf("odometry x %v, want %v: a reply was lost", bs.Odometry.X, want)
	}
	st := r.b.FrameStats()
	if st.Errors()+st.GarbageRuns == 0 || r.b.Stats().Errors == 0 {
		t.Errorf("no errors counted: %+v", st)
	}
	t.Logf("frame stats after random garbage: %+v", st)
	r.noControllerErrors()
}

// TestCriticalErrorsReopen: critical_errors framing errors in a row make
// the backend open the port anew.
func TestCriticalErrorsReopen(t *testing.T) {
	leakCheck(t)
	r := newRig(t, robotinotest.Options{}, func(c *robotino.Config) { c.CriticalErrors = 5 })
	r.until(true, nil)
	bad := specFrame([]byte{37, 1, 0})
	bad[len(bad)-1] ^= 1
	for range 6 {
		r.ctl.Inject(bad)
	}
	r.tick(nil)
	for r.b.Stats().Reconnects == 0 {
		r.tick(nil)
	}
	if got := metric(t, r.b, "robotd_robotino_ports_lost_total", "", ""); got != 1 {
		t.Errorf("ports lost %v", got)
	}
}

// TestSilentBase: a base that stops answering gets zero set-points and
// disconnected ticks; when it answers again the ticks are connected.
func TestSilentBase(t *testing.T) {
	leakCheck(t)
	r := newRig(t, robotinotest.Options{}, func(c *robotino.Config) { c.ReadTimeout = config.Duration(500 * time.Millisecond) })
	fwd := &hal.BaseVelocity{VX: 0.1}
	r.until(true, fwd)
	r.tick(fwd)
	r.ctl.Silence(true)
	n := len(r.ctl.Frames())
	r.until(false, fwd)
	err := r.ctl.Wait(r.ctx, func(v robotinotest.View) bool {
		for _, f := range v.Frames[n:] {
			if rpm, set := f.MotorSpeeds(); set == 0b111 && rpm == [4]int16{} {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no zero set-points sent to the silent base: %v", err)
	}
	r.ctl.Silence(false)
	r.until(true, fwd)
	// The silence timed out (a loaded machine may add one more).
	if got := metric(t, r.b, "robotd_robotino_reply_timeouts_total", "", ""); got < 1 || got > 2 {
		t.Errorf("timeouts %v, want the silence's (1, or 2 on a loaded machine)", got)
	}
	// A base that was reached and is gone cannot be stopped: SafeState
	// says so.
	r.ctl.Close()
	r.until(false, nil)
	if err := r.b.SafeState(r.ctx); err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Fatalf("SafeState with the base gone: %v", err)
	}
}

// TestGPIOConfig: without GPIO lines no chip is needed; with one, a
// missing chip is a clear start-up error.
func TestGPIOConfig(t *testing.T) {
	tests := []struct {
		name string
		gpio robotino.GPIOConfig
		err  string
	}{
		{"not configured", robotino.GPIOConfig{}, ""},
		{"chip without lines", robotino.GPIOConfig{Chip: "gpiochip0"}, ""},
		{"line without chip", robotino.GPIOConfig{EStopLine: "ESTOP"}, "gpio.chip is empty"},
		{"missing chip", robotino.GPIOConfig{Chip: "gpiochip-nonexistent", EStopLine: "ESTOP", LEDLine: "3"}, `GPIO chip not found: "gpiochip-nonexistent"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := robotino.DefaultConfig()
			cfg.GPIO = tc.gpio
			b, err := robotino.New(cfg, nil, robotino.Options{})
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				b.Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
			if strings.Contains(tc.err, "not found") && !errors.Is(err, robotino.ErrNoGPIOChip) {
				t.Fatalf("err %v does not wrap ErrNoGPIOChip", err)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*robotino.Config)
		err  string
	}{
		{"defaults", func(*robotino.Config) {}, ""},
		{"encoders need ticks", func(c *robotino.Config) { c.Odometry = robotino.OdometryEncoders }, "encoder_ticks_per_rev"},
		{"bad odometry", func(c *robotino.Config) { c.Odometry = "gps" }, `robotino.odometry: "gps": want one of`},
		{"rpm beyond int16", func(c *robotino.Config) { c.MaxMotorRPM = 40000 }, "robotino.max_motor_rpm: 40000 is outside"},
		{"no speed", func(c *robotino.Config) { c.MaxSpeed = 0 }, "robotino.max_speed: 0 is outside"},
		{"no dead-man", func(c *robotino.Config) { c.DeadmanTime = 0 }, "robotino.deadman_time"},
		{"battery", func(c *robotino.Config) { c.BatteryFull = 20 }, "battery_full"},
		{"zero period", func(c *robotino.Config) { c.Period = 0 }, "period 0s must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := robotino.DefaultConfig()
			tc.mod(&c)
			err := c.Validate()
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
}

func TestMain(m *testing.M) {
	if _, err := os.Stat("/dev/ptmx"); err != nil {
		// Every test here needs a pseudo-terminal.
		panic("robotino tests need /dev/ptmx: " + err.Error())
	}
	os.Exit(m.Run())
}
