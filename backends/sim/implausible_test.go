package sim

import (
	"context"
	"log/slog"
	"math"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
)

// The values of a SimSpark message that left the old angle filter NaN for
// good.
const hugeIMU = "(time (now 4.2))(GYR (n torso) (rt 1e308 -1e308 0))(ACC (n torso) (a 1e308 0 0))"

func finiteAngles(a hal.BodyAngles) bool {
	return !math.IsNaN(float64(a.Roll)) && !math.IsNaN(float64(a.Pitch)) && !math.IsInf(float64(a.Roll), 0) && !math.IsInf(float64(a.Pitch), 0)
}

// TestAngleFilterIgnoresNonFinite: one reading with huge, infinite or NaN
// values leaves the estimate finite and where it was, and the filter
// follows the next good readings.
func TestAngleFilterIgnoresNonFinite(t *testing.T) {
	upright := hal.IMU{Accel: hal.Vec3{Z: float64(hal.Gravity)}}
	for _, bad := range []hal.IMU{
		{Gyro: hal.Vec3{X: 1e308, Y: -1e308}, Accel: hal.Vec3{X: 1e308}},
		{Gyro: hal.Vec3{X: math.Inf(1)}, Accel: upright.Accel},
		{Gyro: hal.Vec3{Y: math.NaN()}, Accel: upright.Accel},
		{Accel: hal.Vec3{X: math.NaN(), Z: float64(hal.Gravity)}},
	} {
		f := AngleFilter{Tau: 0.5}
		for range 10 {
			f.Update(upright, 0.01)
		}
		if a := f.Update(bad, 0.01); !finiteAngles(a) || math.Abs(float64(a.Roll)) > 0.01 || math.Abs(float64(a.Pitch)) > 0.01 {
			t.Fatalf("after %+v: angles %+v, want the upright estimate kept", bad, a)
		}
		var a hal.BodyAngles
		for range 10 {
			a = f.Update(upright, 0.01)
		}
		if !finiteAngles(a) || math.Abs(float64(a.Roll)) > 0.01 || math.Abs(float64(a.Pitch)) > 0.01 {
			t.Fatalf("after %+v and good readings: angles %+v, want upright", bad, a)
		}
		// From an uninitialised filter too.
		g := AngleFilter{Tau: 0.5}
		if a := g.Update(bad, 0.01); !finiteAngles(a) {
			t.Fatalf("first reading %+v: angles %+v", bad, a)
		}
		if a := g.Update(upright, 0.01); !finiteAngles(a) || math.Abs(float64(a.Pitch)) > 0.01 {
			t.Fatalf("first good reading after %+v: angles %+v", bad, a)
		}
	}
}

// countHandler counts log records at Warn and above.
type countHandler struct{ n *atomic.Int64 }

func (h countHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h countHandler) Handle(context.Context, slog.Record) error    { h.n.Add(1); return nil }
func (h countHandler) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h countHandler) WithGroup(string) slog.Handler                { return h }

// TestClientRejectsImplausibleValues: messages with huge values (NaN and
// Inf do not parse: see TestClientSkipsMalformedMessages) are left out whole, counted as rejected, and logged at most once a
// second; the connection stays up, the sensor values stay finite and are
// those of the next good message.
func TestClientRejectsImplausibleValues(t *testing.T) {
	for _, tc := range []struct{ name, msg string }{
		{"huge IMU", hugeIMU},
		{"huge joint", "(time (now 4.2))(HJ (n hj1) (ax 1e300))"},
		{"huge gyro", "(time (now 4.2))(GYR (n torso) (rt 1e6 0 0))"},
		{"huge see", "(time (now 4.2))(See (B (pol 1e300 0 0)))"},
		{"huge force", "(time (now 4.2))(FRP (n lf) (c 0 0 0) (f 0 0 1e300))"},
		{"huge time", "(time (now 1e300))"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer leaktest.Check(t)()
			msgs := connectMessages(t)
			srv := newFakeServer(t, "127.0.0.1:0", msgs, 0)
			const bad = 30
			srv.bad, srv.badIdx, srv.badN = []byte(tc.msg), 20, bad
			srv.start()
			defer srv.kill()
			var warns atomic.Int64
			b, err := New(testConfig(srv.ln.Addr().(*net.TCPAddr).Port, true), slog.New(countHandler{&warns}))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			s := &stepper{t: t, b: b}
			start := time.Now()
			s.until("Connected", 5*time.Second, connected)
			for range 40 {
				if tk := s.step(); !tk.Connected {
					t.Fatalf("disconnected by implausible messages: %+v, stats %+v", tk, b.Stats())
				}
				var a hal.BodyAngles
				var imu hal.IMU
				var js hal.JointSensors
				b.ReadBodyAngles(&a)
				b.ReadIMU(&imu)
				b.ReadJoints(&js)
				if !finiteAngles(a) || math.IsNaN(imu.Gyro.X+imu.Accel.X) || math.Abs(imu.Gyro.X) > 1e4 || math.IsNaN(float64(js.Angle[0])) {
					t.Fatalf("state after an implausible message: angles %+v, imu %+v", a, imu)
				}
				if math.Abs(float64(a.Pitch)) > 0.5 || math.Abs(float64(a.Roll)) > 0.5 {
					t.Fatalf("the robot stands but its angles read %+v", a)
				}
			}
			elapsed := time.Since(start)
			st := b.Stats()
			if st.Rejected != bad || st.Errors != 0 || st.Reconnects != 0 {
				t.Errorf("stats %+v, want %d rejected and no error", st, bad)
			}
			if n, most := warns.Load(), int64(1+elapsed/time.Second); n < 1 || n > most {
				t.Errorf("%d warnings in %v for %d rejected messages, want 1..%d", n, elapsed, bad, most)
			}
		})
	}
}
