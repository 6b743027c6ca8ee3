package nao

import (
	"math"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/lola"
)

// state is one sensor packet in HAL units and frames.
type state struct {
	joints  hal.JointSensors
	imu     hal.IMU
	angles  hal.BodyAngles
	sonar   hal.Sonar
	fsr     hal.FSR
	buttons hal.Buttons
	battery hal.Battery
}

// convert turns a decoded LoLA sensor map (protocols.md §1.2, §1.3) into
// HAL values: the joints are in LoLA order already (hal.Joint is that
// order); the accelerometer's gravity vector is negated into the specific
// force hal.IMU wants; the gyroscope's z is negated only if configured;
// touch values count as pressed above 0.5 (HULKs' threshold).
func convert(cfg *Config, s *lola.Sensors, out *state) {
	j := &out.joints
	j.Present = hal.AllJoints
	j.HasStiffness, j.HasTemperature, j.HasCurrent = true, true, true
	for i := range lola.NumJoints {
		j.Angle[i] = hal.Radians(s.Position[i])
		j.Stiffness[i] = float64(s.Stiffness[i])
		j.Temperature[i] = float64(s.Temperature[i])
		j.Current[i] = float64(s.Current[i])
		j.TemperatureStatus[i] = s.Status[i]
	}
	out.imu.Gyro = hal.Vec3{X: float64(s.Gyroscope[0]), Y: float64(s.Gyroscope[1]), Z: float64(s.Gyroscope[2])}
	if cfg.InvertGyroZ {
		out.imu.Gyro.Z = -out.imu.Gyro.Z
	}
	out.imu.Accel = hal.Vec3{X: -float64(s.Accelerometer[0]), Y: -float64(s.Accelerometer[1]), Z: -float64(s.Accelerometer[2])}
	out.angles = hal.BodyAngles{Roll: hal.Radians(s.Angles[0]), Pitch: hal.Radians(s.Angles[1])}

	l, r := float64(s.Sonar[0]), float64(s.Sonar[1])
	out.sonar = hal.Sonar{
		Left: hal.Metres(l), Right: hal.Metres(r),
		LeftValid: l > 0 && l < cfg.SonarMaxRange, RightValid: r > 0 && r < cfg.SonarMaxRange,
	}
	for i := range 4 {
		out.fsr.Left[i] = float64(s.FSR[i])
		out.fsr.Right[i] = float64(s.FSR[4+i])
	}
	var b hal.Buttons
	for i, v := range s.Touch {
		if v > 0.5 {
			b |= 1 << i
		}
	}
	out.buttons = b

	bat := s.BatteryState(cfg.batteryOrder())
	word := bat.StatusWord()
	out.battery = hal.Battery{
		Charge:      float64(bat.Charge),
		Current:     float64(bat.Current),
		Temperature: float64(bat.Temperature),
		Charging:    (word&cfg.ChargingMask != 0) == cfg.ChargingWhenSet,
	}
}

// lEyeOrder maps the position k inside each colour block of LoLA's LEye
// (45°, 0°, 315°, 270°, 225°, 180°, 135°, 90°, protocols.md §1.4) to the
// hal.LEDs.LEye index (i at i·45°).
var lEyeOrder = [8]int{1, 0, 7, 6, 5, 4, 3, 2}

// command is what the next actuator map carries.
type command struct {
	// limp sends every joint's measured angle with stiffness 0 (B-Human's
	// way to release a joint, §1.4).
	limp bool
	// stiffnessCap bounds the stiffness (the connection ramp), 0..1.
	stiffnessCap float64
}

// fillActuators writes the actuator map for the joint command c (nil: none
// written yet, which sends limp joints), the LEDs and the measured angles
// into a. Targets, the measured angles of limp joints included, are
// clamped to the joint limits, stiffness to 0..stiffnessCap; a NaN target
// or stiffness releases that joint.
func fillActuators(a *lola.Actuators, cmd command, c *hal.JointCommand, measured *[hal.NumJoints]hal.Radians, leds *hal.LEDs, sonar bool) {
	for i := range hal.NumJoints {
		pos, stiff := float64(measured[i]), 0.0
		if c != nil && !cmd.limp {
			p, s := float64(c.Angle[i]), c.Stiffness[i]
			if !math.IsNaN(p) && !math.IsNaN(s) {
				pos = float64(hal.Joint(i).Clamp(hal.Radians(p)))
				stiff = min(max(s, 0), cmd.stiffnessCap)
			}
		}
		if math.IsNaN(pos) {
			pos, stiff = 0, 0
		}
		// A measured angle may lie a little beyond the limit (the
		// sample's HeadPitch 0.549 > 0.5149): every target sent is in it.
		pos = float64(hal.Joint(i).Clamp(hal.Radians(pos)))
		a.Position[i] = float32(pos)
		a.Stiffness[i] = float32(stiff)
	}
	rgb := func(dst []float32, c hal.RGB) {
		dst[0], dst[1], dst[2] = unit(c.R), unit(c.G), unit(c.B)
	}
	rgb(a.Chest[:], leds.Chest)
	rgb(a.LFoot[:], leds.LFoot)
	rgb(a.RFoot[:], leds.RFoot)
	for i := range 10 {
		a.LEar[i] = unit(leds.LEar[i])
		a.REar[i] = unit(leds.REar[9-i]) // REar runs 324°, 288°, …, 0°
	}
	for k := range 8 {
		l, r := leds.LEye[lEyeOrder[k]], leds.REye[k]
		a.LEye[k], a.LEye[8+k], a.LEye[16+k] = unit(l.R), unit(l.G), unit(l.B)
		a.REye[k], a.REye[8+k], a.REye[16+k] = unit(r.R), unit(r.G), unit(r.B)
	}
	for i := range 12 {
		a.Skull[i] = unit(leds.Skull[i])
	}
	a.Sonar = [2]bool{sonar, sonar}
}

// unit clamps an LED intensity to 0..1 (NaN is off).
func unit(v float64) float32 {
	if !(v > 0) {
		return 0
	}
	return float32(min(v, 1))
}

// chestGesture counts chest-button presses (rising edges) and reports when
// n of them fell within window, measured from the first.
type chestGesture struct {
	n       int
	window  time.Duration
	presses int
	first   time.Duration
	down    bool
}

// update takes the button state at time t and reports whether this press
// completed the gesture.
func (g *chestGesture) update(pressed bool, t time.Duration) bool {
	rising := pressed && !g.down
	g.down = pressed
	if !rising || g.n <= 0 {
		return false
	}
	if g.presses == 0 || t-g.first > g.window {
		g.presses, g.first = 0, t
	}
	g.presses++
	if g.presses < g.n {
		return false
	}
	g.presses = 0
	return true
}
