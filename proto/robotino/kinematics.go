package robotino

import (
	"errors"
	"fmt"
	"math"
)

// DriveParams describe the omni drive, protocols.md §2.5.
type DriveParams struct {
	// WheelRadius rw in m (Robotino 3: 0.060).
	WheelRadius float64
	// GearRatio, motor : wheel (Robotino 3: 32).
	GearRatio float64
	// BaseRadius rb, centre to wheel, in m (Robotino 3: 0.175 per Fawkes
	// and controld3.conf; controld3's compiled-in default 0.17 and the
	// firmware odometry default 0.17 differ).
	BaseRadius float64
	// WheelAngles is the mounting angle of the wheel of motor 0, 1, 2 in
	// rad, counter-clockwise from the robot's x axis (x forward, y left).
	// Each wheel drives along the counter-clockwise tangent
	// (−sin θ, cos θ); the §2.5 drive directions (−√3/2, ½), (0, −1),
	// (√3/2, ½) give 60°, 180°, 300° [D].
	WheelAngles [3]float64
	// MaxMotorRPM limits |motor speed| in MotorSetpoints (Fawkes
	// motor/rpm-max: 3000).
	MaxMotorRPM float64
}

// Robotino3 returns the Robotino 3 parameters of protocols.md §2.5 and the
// Fawkes speed limit of §2.4.
func Robotino3() DriveParams {
	return DriveParams{
		WheelRadius: 0.060,
		GearRatio:   32,
		BaseRadius:  0.175,
		WheelAngles: [3]float64{math.Pi / 3, math.Pi, 5 * math.Pi / 3},
		MaxMotorRPM: 3000,
	}
}

// Velocity is a body velocity in the robot frame of §2.5 (x forward, y left).
type Velocity struct {
	VX, VY float64 // m/s
	Omega  float64 // rad/s, counter-clockwise
}

// ErrDriveParams reports invalid DriveParams (§2.5).
var ErrDriveParams = errors.New("robotino: invalid drive parameters")

// Kinematics converts between body velocity and motor speeds for the
// three-wheel omni drive of protocols.md §2.5. It is an immutable value;
// its methods are pure functions.
type Kinematics struct {
	p   DriveParams
	k   float64       // rpm at the motor per m/s at the wheel rim
	fwd [3][3]float64 // motor rpm = fwd · (vx, vy, ω)
	inv [3][3]float64 // (vx, vy, ω) = inv · motor rpm
}

// NewKinematics checks p and precomputes the forward and inverse models of
// §2.5.
func NewKinematics(p DriveParams) (Kinematics, error) {
	for _, v := range []struct {
		name string
		x    float64
	}{{"WheelRadius", p.WheelRadius}, {"GearRatio", p.GearRatio}, {"BaseRadius", p.BaseRadius}, {"MaxMotorRPM", p.MaxMotorRPM}} {
		if !(v.x > 0) || math.IsInf(v.x, 1) {
			return Kinematics{}, fmt.Errorf("%w: %s = %v, want a positive finite number", ErrDriveParams, v.name, v.x)
		}
	}
	k := Kinematics{p: p, k: 60 * p.GearRatio / (2 * math.Pi * p.WheelRadius)}
	for i, a := range p.WheelAngles {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return Kinematics{}, fmt.Errorf("%w: WheelAngles[%d] = %v", ErrDriveParams, i, a)
		}
		k.fwd[i] = [3]float64{-math.Sin(a) * k.k, math.Cos(a) * k.k, p.BaseRadius * k.k}
	}
	inv, ok := invert3(k.fwd)
	if !ok {
		return Kinematics{}, fmt.Errorf("%w: wheel angles %v give a singular drive", ErrDriveParams, p.WheelAngles)
	}
	k.inv = inv
	return k, nil
}

// MustKinematics (§2.5) is NewKinematics for parameters known to be valid (such
// as Robotino3()); it panics on invalid ones.
func MustKinematics(p DriveParams) Kinematics {
	k, err := NewKinematics(p)
	if err != nil {
		panic(err)
	}
	return k
}

// Params returns the §2.5 parameters k was built from.
func (k Kinematics) Params() DriveParams { return k.p }

// RPMPerMPS returns the conversion factor from wheel-rim speed (m/s) to
// motor speed (rpm), 60·gear / (2π·rw) — 5092.96 for Robotino 3 (§2.5).
func (k Kinematics) RPMPerMPS() float64 { return k.k }

// MotorSpeeds returns the motor speeds (rpm at the motor) for motors 0, 1,
// 2 that produce body velocity v, without limits (§2.5 forward model:
// m_i = k·(dx_i·vx + dy_i·vy + rb·ω)).
func (k Kinematics) MotorSpeeds(v Velocity) [3]float64 {
	var m [3]float64
	for i, row := range k.fwd {
		m[i] = row[0]*v.VX + row[1]*v.VY + row[2]*v.Omega
	}
	return m
}

// BodyVelocity returns the body velocity produced by motor speeds m (rpm
// at the motor, motors 0, 1, 2), the §2.5 inverse model.
func (k Kinematics) BodyVelocity(m [3]float64) Velocity {
	var v [3]float64
	for i, row := range k.inv {
		v[i] = row[0]*m[0] + row[1]*m[1] + row[2]*m[2]
	}
	return Velocity{VX: v[0], VY: v[1], Omega: v[2]}
}

// MotorSetpoints returns the SET_MOTOR_SPEED values (§2.3, §2.5) for body
// velocity v
// within the speed limit: if any motor would exceed MaxMotorRPM, all three
// speeds are scaled down by the same factor, so the robot keeps its
// direction of motion and only moves slower (Fawkes instead clamps each
// motor, which bends the path). scale is the factor applied (1 if within
// limits). A non-finite v gives zero speeds and scale 0.
func (k Kinematics) MotorSetpoints(v Velocity) (rpm [3]int16, scale float64) {
	m := k.MotorSpeeds(v)
	peak := 0.0
	for _, x := range m {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return [3]int16{}, 0
		}
		peak = math.Max(peak, math.Abs(x))
	}
	limit := math.Min(k.p.MaxMotorRPM, math.MaxInt16)
	scale = 1
	if peak > limit {
		scale = limit / peak
	}
	for i, x := range m {
		r := math.Round(x * scale)
		rpm[i] = int16(math.Max(-limit, math.Min(limit, r)))
	}
	return rpm, scale
}

// Limit returns v scaled down uniformly so that no motor exceeds
// MaxMotorRPM (§2.4, §2.5) (v itself if it is within the limit), and the factor applied.
func (k Kinematics) Limit(v Velocity) (Velocity, float64) {
	_, scale := k.MotorSetpoints(v)
	return Velocity{VX: v.VX * scale, VY: v.VY * scale, Omega: v.Omega * scale}, scale
}

// MaxVelocity returns the largest speed along each pure motion (only vx,
// only vy, only ω) that stays within MaxMotorRPM (§2.5, [D]: 0.68 m/s,
// 0.59 m/s, 3.37 rad/s for Robotino 3 at 3000 rpm).
func (k Kinematics) MaxVelocity() Velocity {
	peak := func(col int) float64 {
		p := 0.0
		for _, row := range k.fwd {
			p = math.Max(p, math.Abs(row[col]))
		}
		return k.p.MaxMotorRPM / p
	}
	return Velocity{VX: peak(0), VY: peak(1), Omega: peak(2)}
}

// invert3 inverts a 3×3 matrix; false if it is (nearly) singular.
func invert3(m [3][3]float64) ([3][3]float64, bool) {
	c00 := m[1][1]*m[2][2] - m[1][2]*m[2][1]
	c01 := m[1][2]*m[2][0] - m[1][0]*m[2][2]
	c02 := m[1][0]*m[2][1] - m[1][1]*m[2][0]
	det := m[0][0]*c00 + m[0][1]*c01 + m[0][2]*c02
	scale := 0.0
	for _, row := range m {
		for _, x := range row {
			scale = math.Max(scale, math.Abs(x))
		}
	}
	if !(math.Abs(det) > 1e-9*scale*scale*scale) {
		return [3][3]float64{}, false
	}
	var r [3][3]float64
	r[0][0] = c00 / det
	r[1][0] = c01 / det
	r[2][0] = c02 / det
	r[0][1] = (m[0][2]*m[2][1] - m[0][1]*m[2][2]) / det
	r[1][1] = (m[0][0]*m[2][2] - m[0][2]*m[2][0]) / det
	r[2][1] = (m[0][1]*m[2][0] - m[0][0]*m[2][1]) / det
	r[0][2] = (m[0][1]*m[1][2] - m[0][2]*m[1][1]) / det
	r[1][2] = (m[0][2]*m[1][0] - m[0][0]*m[1][2]) / det
	r[2][2] = (m[0][0]*m[1][1] - m[0][1]*m[1][0]) / det
	return r, true
}
