package nao_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tinylib/msgp/msgp"
	"go.uber.org/goleak"

	"github.com/robotd/robotd/backends/nao"
	"github.com/robotd/robotd/backends/nao/naotest"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/lola"
)

// guard bounds a test that waits for something; it is a hang guard, not a
// timed assertion.
const guard = 20 * time.Second

// leakCheck verifies, after every other cleanup, that the test left no
// goroutine behind.
func leakCheck(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// sockPath returns a short socket path (Unix socket paths are limited to
// 108 bytes, t.TempDir's can be longer).
func sockPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "nao")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "robocup")
}

func testConfig(sock string) nao.Config {
	c := nao.DefaultConfig()
	c.Socket = sock
	c.StiffnessRamp = 0
	c.ReadTimeout = config.Duration(time.Second) // no stall unless a test wants one
	c.BackoffMin = config.Duration(5 * time.Millisecond)
	c.BackoffMax = config.Duration(20 * time.Millisecond)
	return c
}

func startServer(t *testing.T, path string, o naotest.Options) *naotest.Server {
	t.Helper()
	s, err := naotest.Start(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newBackend(t *testing.T, cfg nao.Config) *nao.Backend {
	t.Helper()
	b, err := nao.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func ctxGuard(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	t.Cleanup(cancel)
	return ctx
}

// untilConnected ticks until a tick has Connected == want.
func untilConnected(t *testing.T, ctx context.Context, b *nao.Backend, want bool) hal.Tick {
	t.Helper()
	for {
		tk, err := b.Next(ctx)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if tk.Connected == want {
			return tk
		}
		if err := b.Commit(ctx); err != nil {
			t.Fatalf("Commit: %v", err)
		}
	}
}

// commitTicks commits and takes the next tick n times.
func commitTicks(t *testing.T, ctx context.Context, b *nao.Backend, n int) {
	t.Helper()
	for range n {
		if err := b.Commit(ctx); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		if _, err := b.Next(ctx); err != nil {
			t.Fatalf("Next: %v", err)
		}
	}
}

// stiffCommand is a joint command with every joint at a distinct angle
// within its limits and the given stiffness.
func stiffCommand(stiffness float64) *hal.JointCommand {
	var c hal.JointCommand
	for i := range c.Angle {
		info := hal.Joints[i]
		c.Angle[i] = info.Min + (info.Max-info.Min)*hal.Radians(i+1)/(hal.NumJoints+1)
		c.Stiffness[i] = stiffness
	}
	return &c
}

func TestSampleFileIsTheSharedOne(t *testing.T) {
	sum := sha256.Sum256(naotest.SampleJSON())
	if got := hex.EncodeToString(sum[:]); got != naotest.SampleSHA256 {
		t.Fatalf("embedded sample sha256 %s, want %s", got, naotest.SampleSHA256)
	}
	for _, p := range []string{"../../proto/lola/testdata/naoth_sensor_sample.json"} {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(raw) != string(naotest.SampleJSON()) {
			t.Errorf("%s differs from the embedded sample", p)
		}
	}
	s, err := naotest.Sample()
	if err != nil {
		t.Fatal(err)
	}
	pkt := lola.EncodeSensors(&s)
	golden, err := os.ReadFile("../../proto/lola/testdata/naoth_sensor_sample.msgpack")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkt) != lola.SensorPacketSize || string(pkt) != string(golden) {
		t.Fatalf("sample encodes to %d bytes, not the golden 896-byte packet", len(pkt))
	}
}

// TestSampleDecoded: the first tick carries the sample, in HAL units and
// frames. The expected values are the JSON file's numbers.
func TestSampleDecoded(t *testing.T) {
	leakCheck(t)
	sock := sockPath(t)
	startServer(t, sock, naotest.Options{LockStep: true})
	b := newBackend(t, testConfig(sock))
	tk := untilConnected(t, ctxGuard(t), b, true)
	if tk.Period != 12*time.Millisecond || tk.Seq == 0 {
		t.Errorf("tick %+v", tk)
	}
	f := func(v float64) float64 { return float64(float32(v)) }
	var j hal.JointSensors
	b.ReadJoints(&j)
	if j.Present != hal.AllJoints || j.Angle[hal.HeadPitch] != hal.Radians(f(0.54913)) || j.Angle[hal.RHand] != hal.Radians(f(0.036)) ||
		j.Angle[hal.LKneePitch] != hal.Radians(f(2.13375)) || j.Temperature[hal.HeadPitch] != 40 || j.Temperature[hal.LHipRoll] != 27 {
		t.Errorf("joints %+v", j)
	}
	var imu hal.IMU
	b.ReadIMU(&imu)
	if imu.Accel != (hal.Vec3{X: -f(8.66997), Y: -f(0.287402), Z: f(5.48939)}) || imu.Gyro != (hal.Vec3{X: f(0.00186421), Y: -f(0.00559264)}) {
		t.Errorf("imu %+v", imu)
	}
	var ang hal.BodyAngles
	b.ReadBodyAngles(&ang)
	if ang != (hal.BodyAngles{Roll: hal.Radians(-f(0.0239685)), Pitch: hal.Radians(f(0.990951))}) {
		t.Errorf("angles %+v", ang)
	}
	var fsr hal.FSR
	b.ReadFSR(&fsr)
	if fsr.Left != [4]float64{f(0.190524), f(1.52253), f(0.000270986), f(0.654938)} || fsr.Right != [4]float64{f(1.86128), f(0.130825), f(0.692107), f(0.000510382)} {
		t.Errorf("fsr %+v", fsr)
	}
	var sonar hal.Sonar
	b.ReadSonar(&sonar)
	if sonar != (hal.Sonar{Left: hal.Metres(f(0.2)), Right: hal.Metres(f(0.2)), LeftValid: true, RightValid: true}) {
		t.Errorf("sonar %+v", sonar)
	}
	var bat hal.Battery
	b.ReadBattery(&bat)
	if bat != (hal.Battery{Charge: f(0.99), Current: f(0.016), Temperature: f(3.6), Charging: true}) {
		t.Errorf("battery %+v", bat)
	}
	var btn hal.Buttons
	b.ReadButtons(&btn)
	if btn != 0 {
		t.Errorf("buttons %b", btn)
	}
}

// TestCommandsInLoLAOrder: each tick is answered by one full actuator map
// (786 bytes, §1.4 keys) whose joints are the command in LoLA order, and
// nothing is stiff before the first command.
func TestCommandsInLoLAOrder(t *testing.T) {
	leakCheck(t)
	sock := sockPath(t)
	srv := startServer(t, sock, naotest.Options{LockStep: true})
	b := newBackend(t, testConfig(sock))
	ctx := ctxGuard(t)
	untilConnected(t, ctx, b, true)
	if err := b.Commit(ctx); err != nil { // no command yet: limp
		t.Fatal(err)
	}
	cmd := stiffCommand(0.7)
	leds := hal.LEDs{Chest: hal.RGB{G: 1}}
	const ticks = 50
	for range ticks {
		if _, err := b.Next(ctx); err != nil {
			t.Fatal(err)
		}
		b.WriteJoints(cmd)
		b.WriteLEDs(&leds)
		if err := b.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(ctx); err != nil { // a second Commit sends nothing
			t.Fatal(err)
		}
	}
	if err := srv.WaitCommands(ctx, ticks+1); err != nil {
		t.Fatal(err)
	}
	if errs := srv.Errors(); len(errs) > 0 {
		t.Fatalf("server found: %v", errs)
	}
	cmds := srv.Commands()
	if len(cmds) != ticks+1 {
		t.Fatalf("%d commands, want %d (one per map)", len(cmds), ticks+1)
	}
	if cmds[0].MaxStiffness() != 0 {
		t.Errorf("first command (before any joint command) has stiffness %v", cmds[0].MaxStiffness())
	}
	for i, c := range cmds[1:] {
		if c.Size != lola.ActuatorPacketSize || c.Present != lola.AllActuators || c.Seq != uint64(i+2) {
			t.Fatalf("command %d: %d bytes, keys %v, answering map %d", i, c.Size, c.Keys, c.Seq)
		}
		for j := range hal.NumJoints {
			if c.Act.Position[j] != float32(cmd.Angle[j]) || c.Act.Stiffness[j] != 0.7 {
				t.Fatalf("command %d joint %v: %v/%v, want %v/0.7", i, hal.Joint(j), c.Act.Position[j], c.Act.Stiffness[j], float32(cmd.Angle[j]))
			}
		}
		if c.Act.Chest != [3]float32{0, 1, 0} || c.Act.Sonar != [2]bool{true, true} {
			t.Fatalf("command %d: chest %v sonar %v", i, c.Act.Chest, c.Act.Sonar)
		}
	}
}

// TestStiffnessRamp: after every (re)connection the first map has
// stiffness 0.
func TestStallAndRamp(t *testing.T) {
	leakCheck(t)
	sock := sockPath(t)
	srv := startServer(t, sock, naotest.Options{LockStep: true})
	cfg := testConfig(sock)
	cfg.StiffnessRamp = config.Duration(time.Nanosecond) // 0 on the first map of a connection, 1 after
	cfg.ReadTimeout = config.Duration(150 * time.Millisecond)
	b := newBackend(t, cfg)
	ctx := ctxGuard(t)
	b.WriteJoints(stiffCommand(1))
	untilConnected(t, ctx, b, true)
	commitTicks(t, ctx, b, 5)
	srv.Stall(true)
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	untilConnected(t, ctx, b, false)
	if err := srv.WaitCommands(ctx, 7); err != nil { // six answers and the stall's limp map
		t.Fatal(err)
	}
	srv.Stall(false)
	untilConnected(t, ctx, b, true)
	commitTicks(t, ctx, b, 3)
	if err := srv.WaitCommands(ctx, 10); err != nil {
		t.Fatal(err)
	}
	cmds := srv.Commands()
	var got []float32
	for _, c := range cmds {
		got = append(got, c.MaxStiffness())
	}
	// 0 (ramp start), 1 × 5, [stall: 0], 0 (ramp start again), 1, 1.
	want := []float32{0, 1, 1, 1, 1, 1, 0, 0, 1, 1}
	if len(got) != len(want) {
		t.Fatalf("stiffness per command %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("stiffness per command %v, want %v", got, want)
		}
	}
	if st := b.Stats(); st.Errors != 1 || st.Reconnects != 0 {
		t.Errorf("stats %+v, want one error (the stall)", st)
	}
}

// TestReconnect: a LoLA that goes away makes ticks disconnected; when it
// comes back the backend reconnects and commands resume, ramping from 0.
func TestReconnect(t *testing.T) {
	leakCheck(t)
	sock := sockPath(t)
	srv := startServer(t, sock, naotest.Options{LockStep: true})
	cfg := testConfig(sock)
	cfg.StiffnessRamp = config.Duration(time.Nanosecond)
	b := newBackend(t, cfg)
	ctx := ctxGuard(t)
	b.WriteJoints(stiffCommand(1))
	untilConnected(t, ctx, b, true)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	untilConnected(t, ctx, b, false)
	srv2 := startServer(t, sock, naotest.Options{LockStep: true})
	untilConnected(t, ctx, b, true)
	commitTicks(t, ctx, b, 3)
	if err := srv2.WaitCommands(ctx, 3); err != nil {
		t.Fatal(err)
	}
	cmds := srv2.Commands()
	if cmds[0].MaxStiffness() != 0 || cmds[1].MaxStiffness() != 1 {
		t.Errorf("after reconnecting: stiffness %v then %v, want 0 then 1", cmds[0].MaxStiffness(), cmds[1].MaxStiffness())
	}
	if st := b.Stats(); st.Reconnects != 1 || st.Errors < 1 {
		t.Errorf("stats %+v, want 1 reconnect and the lost connection counted", st)
	}
}

// TestChestButton: three presses make the robot limp; with ChestRelease
// three more make it stiff again.
func TestChestButton(t *testing.T) {
	press := func(maps ...uint64) func(uint64, *lola.Sensors) {
		return func(seq uint64, s *lola.Sensors) {
			for _, m := range maps {
				if seq == m {
					s.Touch[hal.ChestButton] = 1
				}
			}
		}
	}
	tests := []struct {
		name    string
		release bool
		presses []uint64
		// stiff[k] is the stiffness of the answer to map k+1.
		stiff []float32
	}{
		{"three presses", false, []uint64{3, 5, 7}, []float32{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"two presses", false, []uint64{3, 5}, []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"six presses without release", false, []uint64{3, 5, 7, 9, 11, 13}, []float32{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"six presses with release", true, []uint64{3, 5, 7, 9, 11, 13}, []float32{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			sock := sockPath(t)
			srv := startServer(t, sock, naotest.Options{LockStep: true, Script: press(tc.presses...)})
			cfg := testConfig(sock)
			cfg.ChestRelease = tc.release
			b := newBackend(t, cfg)
			ctx := ctxGuard(t)
			b.WriteJoints(stiffCommand(1))
			untilConnected(t, ctx, b, true)
			for i := range tc.stiff {
				if i > 0 {
					if _, err := b.Next(ctx); err != nil {
						t.Fatal(err)
					}
				}
				var btn hal.Buttons
				b.ReadButtons(&btn)
				if pressed := btn.Pressed(hal.ChestButton); pressed != contains(tc.presses, uint64(i+1)) {
					t.Fatalf("map %d: chest pressed %v", i+1, pressed)
				}
				if err := b.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := srv.WaitCommands(ctx, len(tc.stiff)); err != nil {
				t.Fatal(err)
			}
			for i, c := range srv.Commands() {
				if c.MaxStiffness() != tc.stiff[i] || c.Seq != uint64(i+1) {
					t.Fatalf("answer to map %d: stiffness %v, want %v", c.Seq, c.MaxStiffness(), tc.stiff[i])
				}
			}
			if limp := tc.stiff[len(tc.stiff)-1] == 0; b.Limp() != limp || gauge(t, b, "robotd_nao_limp") != b2f(limp) {
				t.Errorf("Limp() %v, want %v", b.Limp(), limp)
			}
		})
	}
}

func contains(s []uint64, v uint64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// gauge returns the value of the backend's metric called name.
func gauge(t *testing.T, b *nao.Backend, name string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := reg.Register(b); err != nil {
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
		m := mf.GetMetric()[0]
		if m.GetGauge() != nil {
			return m.GetGauge().GetValue()
		}
		return m.GetCounter().GetValue()
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestSafeState: SafeState sends stiffness 0 at once, waits for LoLA to
// report it, and nothing stiff is sent afterwards.
func TestSafeState(t *testing.T) {
	leakCheck(t)
	sock := sockPath(t)
	srv := startServer(t, sock, naotest.Options{LockStep: true, EchoStiffness: true})
	b := newBackend(t, testConfig(sock))
	ctx := ctxGuard(t)
	b.WriteJoints(stiffCommand(1))
	untilConnected(t, ctx, b, true)
	commitTicks(t, ctx, b, 5)
	var j hal.JointSensors
	b.ReadJoints(&j)
	if j.Stiffness[hal.HeadYaw] != 1 {
		t.Fatalf("the fake robot reports stiffness %v, want the commanded 1", j.Stiffness[hal.HeadYaw])
	}
	n := len(srv.Commands())
	if err := b.SafeState(ctx); err != nil {
		t.Fatal(err)
	}
	// Ticks after the safe state never stiffen again.
	for range 3 {
		b.WriteJoints(stiffCommand(1))
		if err := b.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	cmds := srv.Commands()
	if len(cmds) < n+2 {
		t.Fatalf("%d commands after SafeState, want at least the safe map and its confirmation", len(cmds)-n)
	}
	for _, c := range cmds[n:] {
		if c.MaxStiffness() != 0 {
			t.Fatalf("answer to map %d after SafeState has stiffness %v", c.Seq, c.MaxStiffness())
		}
	}
	if !b.Limp() || gauge(t, b, "robotd_nao_limp") != 1 {
		t.Error("not limp after SafeState")
	}
}

// TestSafeStateUnconnected: with no LoLA there is nothing to send.
func TestSafeStateUnconnected(t *testing.T) {
	leakCheck(t)
	b := newBackend(t, testConfig(sockPath(t)))
	if err := b.SafeState(ctxGuard(t)); err != nil {
		t.Fatal(err)
	}
}

// TestBadInput: a malformed map is skipped and counted; a stream that is
// not msgpack is dropped and dialled again; an emulator's float64 map is
// decoded.
func TestBadInput(t *testing.T) {
	sample, err := naotest.Sample()
	if err != nil {
		t.Fatal(err)
	}
	float64Map := func() []byte {
		s := sample
		s.Position[0] = 0.125
		// The map a Python emulator sends: float64 everywhere.
		b := lola.AppendSensors(nil, &s)
		var out []byte
		n, o, _ := msgp.ReadMapHeaderBytes(b)
		out = msgp.AppendMapHeader(out, n)
		for range n {
			var k []byte
			k, o, _ = msgp.ReadMapKeyZC(o)
			out = msgp.AppendStringFromBytes(out, k)
			var sz uint32
			sz, o, _ = msgp.ReadArrayHeaderBytes(o)
			out = msgp.AppendArrayHeader(out, sz)
			for range sz {
				switch msgp.NextType(o) {
				case msgp.Float32Type:
					var f float32
					f, o, _ = msgp.ReadFloat32Bytes(o)
					out = msgp.AppendFloat64(out, float64(f))
				default:
					rest, _ := msgp.Skip(o)
					out = append(out, o[:len(o)-len(rest)]...)
					o = rest
				}
			}
		}
		return out
	}()
	tests := []struct {
		name       string
		raw        []byte
		malformed  float64
		corrupt    float64
		reconnects uint64
		pos0       float32
	}{
		{"actuator map instead of sensors", lola.AppendActuators(nil, &lola.Actuators{}), 1, 0, 0, sample.Position[0]},
		{"not msgpack", []byte{0xc1, 0xc1}, 0, 1, 1, sample.Position[0]},
		{"float64 emulator map", float64Map, 0, 0, 0, 0.125},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			sock := sockPath(t)
			sent := 0
			srv := startServer(t, sock, naotest.Options{LockStep: true, Period: 5 * time.Millisecond, Raw: func(seq uint64) []byte {
				if seq == 3 && sent == 0 {
					sent++
					return tc.raw
				}
				return nil
			}})
			cfg := testConfig(sock)
			cfg.ReadTimeout = config.Duration(300 * time.Millisecond) // short, but no stall from a loaded machine
			b := newBackend(t, cfg)
			ctx := ctxGuard(t)
			var pos [4]float32
			for i := 0; i < 4; {
				tk, err := b.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if tk.Connected {
					var j hal.JointSensors
					b.ReadJoints(&j)
					pos[i] = float32(j.Angle[0])
					i++
				}
				if err := b.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if got := gauge(t, b, "robotd_nao_malformed_packets_total"); got != tc.malformed {
				t.Errorf("malformed %v, want %v", got, tc.malformed)
			}
			if got := gauge(t, b, "robotd_nao_corrupt_streams_total"); got != tc.corrupt {
				t.Errorf("corrupt %v, want %v", got, tc.corrupt)
			}
			if st := b.Stats(); st.Reconnects != tc.reconnects {
				t.Errorf("reconnects %d, want %d", st.Reconnects, tc.reconnects)
			}
			if tc.pos0 != sample.Position[0] && pos[2] != tc.pos0 {
				t.Errorf("third map: HeadYaw %v, want %v", pos[2], tc.pos0)
			}
			if errs := srv.Errors(); len(errs) > 0 {
				t.Errorf("server found: %v", errs)
			}
		})
	}
}

// TestCloseEndsEverything: Close ends the connection goroutine (leakCheck)
// and Next then fails.
func TestCloseEndsEverything(t *testing.T) {
	leakCheck(t)
	sock := sockPath(t)
	startServer(t, sock, naotest.Options{})
	b := newBackend(t, testConfig(sock))
	ctx := ctxGuard(t)
	untilConnected(t, ctx, b, true)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Next(ctx); !errors.Is(err, nao.ErrClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
}

// rawPeer is an allocation-free LoLA: it writes the sample and reads one
// 786-byte answer, forever.
func rawPeer(t testing.TB, path string) {
	t.Helper()
	s, err := naotest.Sample()
	if err != nil {
		t.Fatal(err)
	}
	pkt := lola.EncodeSensors(&s)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		ans := make([]byte, lola.ActuatorPacketSize)
		for {
			if _, err := c.Write(pkt); err != nil {
				return
			}
			if _, err := io.ReadFull(c, ans); err != nil {
				return
			}
		}
	}()
}

// TestTickAllocatesNothing: a whole tick (Next, every Read and Write,
// Commit), including the connection goroutine's reads, allocates nothing.
func TestTickAllocatesNothing(t *testing.T) {
	sock := sockPath(t)
	rawPeer(t, sock)
	b := newBackend(t, testConfig(sock))
	ctx := ctxGuard(t)
	untilConnected(t, ctx, b, true)
	cmd := stiffCommand(0.5)
	var (
		j    hal.JointSensors
		imu  hal.IMU
		ang  hal.BodyAngles
		son  hal.Sonar
		fsr  hal.FSR
		btn  hal.Buttons
		bat  hal.Battery
		leds hal.LEDs
	)
	tick := func() {
		if err := b.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Next(ctx); err != nil {
			t.Fatal(err)
		}
		b.ReadJoints(&j)
		b.ReadIMU(&imu)
		b.ReadBodyAngles(&ang)
		b.ReadSonar(&son)
		b.ReadFSR(&fsr)
		b.ReadButtons(&btn)
		b.ReadBattery(&bat)
		b.WriteJoints(cmd)
		b.WriteLEDs(&leds)
	}
	for range 20 {
		tick()
	}
	if a := testing.AllocsPerRun(200, tick); a != 0 {
		t.Fatalf("%v allocations per tick, want 0", a)
	}
	if math.IsNaN(float64(j.Angle[0])) {
		t.Fatal("no joints read")
	}
}

// BenchmarkTick measures one tick's round trip through a Unix socket.
func BenchmarkTick(b *testing.B) {
	dir, err := os.MkdirTemp("", "nao")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "robocup")
	rawPeer(b, sock)
	dev, err := nao.New(testConfig(sock), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	ctx := context.Background()
	dev.WriteJoints(stiffCommand(0.5))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dev.Next(ctx); err != nil {
			b.Fatal(err)
		}
		if err := dev.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSafeStateAfterLoLAWent: a LoLA that was reached and is gone cannot
// be made safe, and SafeState says so.
func TestSafeStateAfterLoLAWent(t *testing.T) {
	leakCheck(t)
	sock := sockPath(t)
	srv := startServer(t, sock, naotest.Options{LockStep: true})
	b := newBackend(t, testConfig(sock))
	ctx := ctxGuard(t)
	untilConnected(t, ctx, b, true)
	srv.Close()
	untilConnected(t, ctx, b, false)
	if err := b.SafeState(ctx); err == nil || !strings.Contains(err.Error(), "LoLA is not connected") {
		t.Fatalf("SafeState: %v", err)
	}
}
