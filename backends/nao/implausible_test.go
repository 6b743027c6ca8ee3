package nao_test

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/nao/naotest"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/lola"
)

// TestRejectsImplausibleValues: sensor maps with NaN, infinite or huge
// values are left out whole and counted; the HAL values stay finite and
// are the next good map's.
func TestRejectsImplausibleValues(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name  string
		spoil func(s *lola.Sensors)
	}{
		{"NaN gyro", func(s *lola.Sensors) { s.Gyroscope[1] = nan }},
		{"Inf accelerometer", func(s *lola.Sensors) { s.Accelerometer[2] = -inf }},
		{"huge angle", func(s *lola.Sensors) { s.Angles[1] = 3e38 }},
		{"NaN joint", func(s *lola.Sensors) { s.Position[5] = nan }},
		{"huge FSR", func(s *lola.Sensors) { s.FSR[3] = 1e30 }},
		{"NaN battery", func(s *lola.Sensors) { s.Battery[0] = nan }},
	}
	const bad = 5 // maps 3..7
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			sock := sockPath(t)
			// LoLA sends a map every period whether answered or not; a
			// rejected map is not answered. Good maps carry their number
			// in HeadYaw.
			startServer(t, sock, naotest.Options{Period: 5 * time.Millisecond, Script: func(seq uint64, s *lola.Sensors) {
				s.Position[0] = float32(seq) / 1000
				if seq >= 3 && seq < 3+bad {
					tc.spoil(s)
				}
			}})
			cfg := testConfig(sock)
			cfg.ReadTimeout = config.Duration(30 * time.Millisecond)
			b := newBackend(t, cfg)
			ctx := ctxGuard(t)
			for after := 0; after < 3; {
				tk, err := b.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if tk.Connected {
					var imu hal.IMU
					var a hal.BodyAngles
					var j hal.JointSensors
					var f hal.FSR
					var bat hal.Battery
					b.ReadIMU(&imu)
					b.ReadBodyAngles(&a)
					b.ReadJoints(&j)
					b.ReadFSR(&f)
					b.ReadBattery(&bat)
					sum := imu.Gyro.X + imu.Gyro.Y + imu.Gyro.Z + imu.Accel.X + imu.Accel.Y + imu.Accel.Z +
						float64(a.Roll+a.Pitch) + float64(j.Angle[5]) + f.Left[3] + bat.Charge
					if math.IsNaN(sum) || math.IsInf(sum, 0) || math.Abs(sum) > 1e6 {
						t.Fatalf("tick %d: implausible HAL values: imu %+v angles %+v fsr %+v battery %+v", tk.Seq, imu, a, f, bat)
					}
					if float64(j.Angle[0]) >= float64(3+bad)/1000 {
						after++ // a good map after the bad ones
					}
				}
				if err := b.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// A map replaced by a newer one before a tick took it is
			// never looked at, so a loaded machine may reject fewer.
			if got := gauge(t, b, "robotd_nao_rejected_packets_total"); got < 1 || got > bad {
				t.Errorf("rejected %v, want 1..%d", got, bad)
			}
			if st := b.Stats(); st.Rejected < 1 || st.Rejected > bad {
				t.Errorf("stats %+v, want 1..%d rejected", st, bad)
			}
		})
	}
}
