package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/robotd/robotd/hal"
)

// landing is what a robot's accelerometer and gyro read (NAO frame, m/s²
// and rad/s) in the cycles after rcssserver3d (the UNSW SPL fork, sync
// mode, 10 ms cycles) created it at its spawn slot and beamed it to its
// start, standing: the same in every robot of a find-ball campaign. The
// 1 g reading sideways, 30 ms after the beam, is a bounce, not a tilt.
var landing = []hal.IMU{
	{Accel: hal.Vec3{X: 0.01, Y: -0.00, Z: 0.01}},
	{Accel: hal.Vec3{X: -0.01, Y: -0.00, Z: 0.01}},
	{Accel: hal.Vec3{X: 0.00, Y: -0.01, Z: 39.22}},
	{Gyro: hal.Vec3{Y: 1.42}},
	{Gyro: hal.Vec3{Y: -1.25}, Accel: hal.Vec3{X: -11.92, Z: 8.11}},
	{Gyro: hal.Vec3{Y: -1.24}, Accel: hal.Vec3{X: 11.41, Z: -0.92}},
	{Gyro: hal.Vec3{Y: -0.29}, Accel: hal.Vec3{X: -0.04, Z: 0.13}},
	{Gyro: hal.Vec3{Y: -0.39}, Accel: hal.Vec3{X: -1.46, Z: -2.43}},
	{Gyro: hal.Vec3{Y: 0.40}, Accel: hal.Vec3{X: -0.10, Z: 2.66}},
	{Gyro: hal.Vec3{Y: 0.43}, Accel: hal.Vec3{X: 14.24, Z: 60.38}},
	{Gyro: hal.Vec3{Y: 0.48}, Accel: hal.Vec3{X: 3.10, Z: 10.12}},
}

// still returns n readings of a robot at rest whose "up" is up (body
// frame), with the accelerometer's direction swaying by up to sway rad.
func still(up hal.Vec3, n int, sway float64, rng *rand.Rand) []hal.IMU {
	out := make([]hal.IMU, n)
	for i := range out {
		d := hal.Vec3{X: up.X + sway*(2*rng.Float64()-1), Y: up.Y + sway*(2*rng.Float64()-1), Z: up.Z + sway*(2*rng.Float64()-1)}
		out[i] = hal.IMU{Accel: d.Unit().Scale(float64(hal.Gravity))}
	}
	return out
}

// tiltOf is the angle between the estimate's up and the body's z axis.
func tiltOf(a hal.BodyAngles) float64 {
	return math.Acos(math.Cos(float64(a.Roll)) * math.Cos(float64(a.Pitch)))
}

// TestAngleFilterStartsFromSettledAccelerometer: the filter starts from a
// steady 1 g, so the bounce of a robot landing after its beam does not
// make it lie on its back (with Settle 0, from the first reading near
// 1 g, it does: that is how robots started find-ball trials with a get-up
// from standing), and a robot that lies or stands still is known to do so
// after Settle.
func TestAngleFilterStartsFromSettledAccelerometer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	upright := hal.Vec3{Z: 1}
	onBack := hal.Vec3{X: 1} // lying on the back: the torso's forward axis points up
	const dt = 0.01
	tests := []struct {
		name     string
		settle   float64
		readings []hal.IMU
		// The most tilt the estimate shows at any reading lies in
		// [worstMin, worstMax]; final is the tilt it must show (within 0.1
		// rad) at the end, -1 for any; initBy the reading by which it must
		// have started.
		worstMin, worstMax, final float64
		initBy                    int
	}{
		{"landing after the beam", 0.1, append(append([]hal.IMU(nil), landing...), still(upright, 30, 0.02, rng)...), 0, 0.2, 0, len(landing) + 12},
		{"landing after the beam, from the first 1 g reading", 0, append(append([]hal.IMU(nil), landing...), still(upright, 30, 0.02, rng)...), 1.4, math.Pi, -1, 6},
		{"standing, swaying", 0.1, still(upright, 20, 0.05, rng), 0, 0.2, 0, 12},
		{"lying on its back", 0.1, still(onBack, 20, 0.02, rng), 1.4, 1.7, math.Pi / 2, 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := AngleFilter{Tau: 0.5, Settle: tc.settle}
			worst, started := 0.0, -1
			var a hal.BodyAngles
			for i, r := range tc.readings {
				a = f.Update(r, dt)
				if f.init && started < 0 {
					started = i
				}
				worst = max(worst, tiltOf(a))
			}
			if worst < tc.worstMin || worst > tc.worstMax {
				t.Errorf("tilt reached %.2f rad, want %.2f to %.2f", worst, tc.worstMin, tc.worstMax)
			}
			if got := tiltOf(a); tc.final >= 0 && math.Abs(got-tc.final) > 0.1 {
				t.Errorf("final tilt %.2f rad, want %.2f", got, tc.final)
			}
			if started < 0 || started > tc.initBy {
				t.Errorf("started at reading %d, want by %d", started, tc.initBy)
			}
		})
	}
}
