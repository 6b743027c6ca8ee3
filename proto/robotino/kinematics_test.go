package robotino

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestConversionFactor(t *testing.T) {
	k := MustKinematics(Robotino3())
	// §2.5: k = 60·32 / (2π·0.06) = 5092.96 rpm per m/s.
	if !near(k.RPMPerMPS(), 5092.958, 0.001) {
		t.Errorf("k = %v, want 5092.958", k.RPMPerMPS())
	}
	if k.Params() != Robotino3() {
		t.Error("Params")
	}
}

// TestForwardTable: hand-checked motor speeds (rpm) for pure motions, from
// m_i = k·(dx_i·vx + dy_i·vy + rb·ω) with directions (−√3/2, ½), (0, −1),
// (√3/2, ½), k = 5092.958, rb = 0.175.
func TestForwardTable(t *testing.T) {
	k := MustKinematics(Robotino3())
	tests := []struct {
		name string
		v    Velocity
		want [3]float64
	}{
		{"stand still", Velocity{}, [3]float64{0, 0, 0}},
		// k·(√3/2)·0.5 = 2205.32
		{"forward 0.5 m/s", Velocity{VX: 0.5}, [3]float64{-2205.32, 0, 2205.32}},
		{"backward 0.5 m/s", Velocity{VX: -0.5}, [3]float64{2205.32, 0, -2205.32}},
		// k·½·0.5 = 1273.24, k·0.5 = 2546.48
		{"left 0.5 m/s", Velocity{VY: 0.5}, [3]float64{1273.24, -2546.48, 1273.24}},
		// k·0.175·1 = 891.27, the same for all wheels
		{"rotate 1 rad/s ccw", Velocity{Omega: 1}, [3]float64{891.27, 891.27, 891.27}},
		{"rotate 1 rad/s cw", Velocity{Omega: -1}, [3]float64{-891.27, -891.27, -891.27}},
		// sum of the two pure motions
		{"forward 0.5 and rotate 1", Velocity{VX: 0.5, Omega: 1}, [3]float64{-1314.05, 891.27, 3096.58}},
	}
	for _, tc := range tests {
		got := k.MotorSpeeds(tc.v)
		for i := range got {
			if !near(got[i], tc.want[i], 0.01) {
				t.Errorf("%s: motors %.2f, want %.2f", tc.name, got, tc.want)
				break
			}
		}
		back := k.BodyVelocity(got)
		if !near(back.VX, tc.v.VX, 1e-12) || !near(back.VY, tc.v.VY, 1e-12) || !near(back.Omega, tc.v.Omega, 1e-12) {
			t.Errorf("%s: inverse gives %+v", tc.name, back)
		}
	}
}

// TestInverseMatchesDoc compares BodyVelocity with the §2.5 formulas.
func TestInverseMatchesDoc(t *testing.T) {
	k := MustKinematics(Robotino3())
	kk, rb := k.RPMPerMPS(), 0.175
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		m := [3]float64{rng.Float64()*6000 - 3000, rng.Float64()*6000 - 3000, rng.Float64()*6000 - 3000}
		vx := (m[2] - m[0]) / (math.Sqrt(3) * kk)
		vy := (2.0 / 3.0) * (m[0] + 0.5*(m[2]-m[0]) - m[1]) / kk
		w := (vy + m[1]/kk) / rb
		got := k.BodyVelocity(m)
		if !near(got.VX, vx, 1e-9) || !near(got.VY, vy, 1e-9) || !near(got.Omega, w, 1e-9) {
			t.Fatalf("m %v: got %+v, doc (%v, %v, %v)", m, got, vx, vy, w)
		}
	}
}

// TestRoundTrip: forward then inverse gives the input back, for Robotino 3
// and for other geometries.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	other := Robotino3()
	other.WheelRadius, other.GearRatio, other.BaseRadius = 0.04, 16, 0.132 // Robotino 1/2 (§2.5)
	other.WheelAngles = [3]float64{0.1, 2.3, 4.4}
	for _, p := range []DriveParams{Robotino3(), other} {
		k := MustKinematics(p)
		for range 1000 {
			v := Velocity{VX: rng.NormFloat64(), VY: rng.NormFloat64(), Omega: 3 * rng.NormFloat64()}
			got := k.BodyVelocity(k.MotorSpeeds(v))
			if !near(got.VX, v.VX, 1e-9) || !near(got.VY, v.VY, 1e-9) || !near(got.Omega, v.Omega, 1e-9) {
				t.Fatalf("%+v -> %+v", v, got)
			}
			m := [3]float64{rng.NormFloat64() * 1000, rng.NormFloat64() * 1000, rng.NormFloat64() * 1000}
			back := k.MotorSpeeds(k.BodyVelocity(m))
			for i := range m {
				if !near(back[i], m[i], 1e-6) {
					t.Fatalf("motors %v -> %v", m, back)
				}
			}
		}
	}
}

func TestLimits(t *testing.T) {
	k := MustKinematics(Robotino3())
	// §2.5 [D]: 0.68 m/s, 0.59 m/s, 3.37 rad/s at 3000 rpm.
	mv := k.MaxVelocity()
	if !near(mv.VX, 0.680, 0.001) || !near(mv.VY, 0.589, 0.001) || !near(mv.Omega, 3.366, 0.001) {
		t.Errorf("MaxVelocity %+v", mv)
	}

	// Within limits: rounded speeds, scale 1.
	rpm, scale := k.MotorSetpoints(Velocity{VX: 0.5})
	if rpm != [3]int16{-2205, 0, 2205} || scale != 1 {
		t.Errorf("0.5 m/s: %v scale %v", rpm, scale)
	}
	// Twice the limit: all motors scaled by the same factor, the fastest
	// at exactly 3000 rpm, direction kept.
	v := Velocity{VX: 1, VY: 0.5, Omega: 2}
	rpm, scale = k.MotorSetpoints(v)
	raw := k.MotorSpeeds(v)
	peak := 0
	for i := range rpm {
		if int(math.Abs(float64(rpm[i]))) > peak {
			peak = int(math.Abs(float64(rpm[i])))
		}
		if !near(float64(rpm[i]), raw[i]*scale, 0.5) {
			t.Errorf("motor %d: %d, want %.1f", i, rpm[i], raw[i]*scale)
		}
	}
	if peak != 3000 || scale >= 1 || scale <= 0 {
		t.Errorf("peak %d scale %v", peak, scale)
	}
	lim, s2 := k.Limit(v)
	if s2 != scale || !near(lim.VX/lim.Omega, v.VX/v.Omega, 1e-12) || !near(lim.VY/lim.VX, v.VY/v.VX, 1e-12) {
		t.Errorf("Limit %+v %v", lim, s2)
	}
	// Pure motions at their maximum just fit.
	for _, v := range []Velocity{{VX: mv.VX}, {VY: -mv.VY}, {Omega: mv.Omega}} {
		if _, s := k.MotorSetpoints(v); !near(s, 1, 1e-9) {
			t.Errorf("%+v: scale %v", v, s)
		}
	}
	// Non-finite input stops the robot.
	for _, v := range []Velocity{{VX: math.NaN()}, {Omega: math.Inf(1)}} {
		if rpm, s := k.MotorSetpoints(v); rpm != [3]int16{} || s != 0 {
			t.Errorf("%+v: %v %v", v, rpm, s)
		}
	}
	// A limit above int16 is capped at 32767.
	p := Robotino3()
	p.MaxMotorRPM = 1e6
	if rpm, _ := MustKinematics(p).MotorSetpoints(Velocity{VX: 100}); rpm[2] != math.MaxInt16 || rpm[0] != -math.MaxInt16 {
		t.Errorf("int16 cap: %v", rpm)
	}
}

func TestNewKinematicsErrors(t *testing.T) {
	bad := []func(*DriveParams){
		func(p *DriveParams) { p.WheelRadius = 0 },
		func(p *DriveParams) { p.GearRatio = -1 },
		func(p *DriveParams) { p.BaseRadius = math.NaN() },
		func(p *DriveParams) { p.MaxMotorRPM = math.Inf(1) },
		func(p *DriveParams) { p.WheelAngles = [3]float64{1, 1, 2} }, // singular
		func(p *DriveParams) { p.WheelAngles[1] = math.NaN() },
	}
	for i, f := range bad {
		p := Robotino3()
		f(&p)
		if _, err := NewKinematics(p); !errors.Is(err, ErrDriveParams) {
			t.Errorf("case %d: %v", i, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MustKinematics did not panic on invalid parameters")
		}
	}()
	MustKinematics(DriveParams{})
}
