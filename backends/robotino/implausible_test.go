package robotino_test

import (
	"math"
	"sync/atomic"
	"testing"

	"github.com/robotd/robotd/backends/robotino"
	"github.com/robotd/robotd/backends/robotino/robotinotest"
	"github.com/robotd/robotd/hal"
	proto "github.com/robotd/robotd/proto/robotino"
)

// TestRejectsImplausibleValues: replies with NaN, infinite or huge values
// are left out whole and counted; the HAL values stay finite and follow
// the next plausible reply.
func TestRejectsImplausibleValues(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name  string
		spoil func(st *robotinotest.State)
	}{
		{"NaN gyro", func(st *robotinotest.State) { st.Gyro.Rate = nan }},
		{"Inf odometry", func(st *robotinotest.State) { st.Odometry.X = inf }},
		{"huge battery", func(st *robotinotest.State) { st.Power.BatteryVoltage = 1e30 }},
		{"NaN current", func(st *robotinotest.State) { st.Power.SystemCurrent = nan }},
		{"huge motor current", func(st *robotinotest.State) { st.Currents[1] = -3e38 }},
	}
	const from, to = 5, 15 // requests answered with the spoilt value
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			var last atomic.Int64
			r := newRig(t, robotinotest.Options{OnRequest: func(n int, st *robotinotest.State) {
				st.Gyro = proto.GyroZ{Angle: 1, Rate: 0.25}
				st.Odometry = proto.Odometry{X: 0.5, Y: -0.25, Phi: 0.125}
				st.Power = proto.PowerSource{BatteryVoltage: 24, SystemCurrent: 1.5}
				st.Currents = [proto.NumMotors]float32{0.1, 0.2, 0.3}
				if n >= from && n < to {
					tc.spoil(st)
				}
				last.Store(int64(n))
			}}, func(c *robotino.Config) { c.GyroScale = 2 })
			r.until(true, nil)
			for i := 0; i < 1000 && (last.Load() < to+3); i++ {
				r.tick(nil)
				var imu hal.IMU
				var bat hal.Battery
				var base hal.BaseState
				r.b.ReadIMU(&imu)
				r.b.ReadBattery(&bat)
				r.b.ReadBase(&base)
				sum := imu.Gyro.Z + bat.Charge + bat.Current + float64(base.Odometry.X+base.Odometry.Y) + float64(base.Odometry.Heading)
				if math.IsNaN(sum) || math.IsInf(sum, 0) || math.Abs(sum) > 100 {
					t.Fatalf("request %d: implausible HAL values: imu %+v battery %+v base %+v", last.Load(), imu, bat, base)
				}
			}
			r.tick(nil)
			var imu hal.IMU
			r.b.ReadIMU(&imu)
			if imu.Gyro.Z != 0.5 {
				t.Errorf("after the spoilt replies: gyro %v, want 0.5", imu.Gyro.Z)
			}
			if st := r.b.Stats(); st.Rejected < 1 || st.Rejected > to-from+1 {
				t.Errorf("stats %+v, want 1..%d rejected", st, to-from+1)
			}
			r.noControllerErrors()
		})
	}
}
