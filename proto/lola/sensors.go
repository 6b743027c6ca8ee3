package lola

import "math"

// NumJoints is the number of entries of every per-joint array (Position,
// Stiffness, Temperature, Current, Status and the actuator Position and
// Stiffness), in the LoLA joint order of protocols.md §1.3: 0 HeadYaw,
// 1 HeadPitch, 2–6 left arm, 7–12 left leg (7 LHipYawPitch, the only
// hip-yaw-pitch motor), 13–17 right leg, 18–22 right arm, 23 LHand,
// 24 RHand. The same order as hal.Joint.
const NumJoints = 25

// SensorPacketSize is the size of a real robot's sensor packet, protocols.md
// §1.1 [X]: 13 keys, every number float32, Status positive fixint,
// RobotConfig four fixstr. Clients read exactly this many bytes per cycle.
const SensorPacketSize = 896

// MaxConfigLen bounds each RobotConfig string (§1.2; real ones are 20-char
// IDs and 5-char versions). Longer strings are rejected by DecodeSensors.
const MaxConfigLen = 64

// Sensors is one LoLA sensor map (robot → client), protocols.md §1.2, with
// the index orders of §1.3. All values are as sent by the robot.
type Sensors struct {
	// Position is the measured joint angle in rad, joint order §1.3.
	Position [NumJoints]float32
	// Stiffness is the current joint stiffness, 0..1.
	Stiffness [NumJoints]float32
	// Temperature is the motor temperature in °C.
	Temperature [NumJoints]float32
	// Current is the motor current in A.
	Current [NumJoints]float32
	// Status is the temperature status: 0 normal, 1 hot, 2 very hot
	// (stiffness reduced), 3 critically hot (stiffness forced to 0).
	Status [NumJoints]uint8
	// Accelerometer is x, y, z in m/s², the raw gravity vector in the torso
	// frame: about (0, 0, −9.81) when upright (§1.2).
	Accelerometer [3]float32
	// Gyroscope is x, y, z in rad/s, raw (z sign [U], §1.2).
	Gyroscope [3]float32
	// Angles is the torso angle x (roll), y (pitch) in rad, 0 upright,
	// y positive leaning forward.
	Angles [2]float32
	// Battery is the raw 4-element battery array; its indices 1 and 2 are
	// disputed (§1.3), read it through BatteryState.
	Battery [4]float32
	// Sonar is the left, right echo distance, presumably in m ([U] unit).
	Sonar [2]float32
	// FSR is the foot force in kg: 0–3 left foot front-left, front-right,
	// rear-left, rear-right; 4–7 the same for the right foot (§1.3).
	FSR [8]float32
	// Touch is 0.0 or 1.0 per button/pad: 0 chest button, 1–3 head front,
	// middle, rear, 4–5 left foot bumper left/right, 6–8 left hand back,
	// left, right, 9–10 right foot bumper left/right, 11–13 right hand
	// back, left, right (§1.3).
	Touch [14]float32
	// RobotConfig is body ID, body version, head ID, head version (§1.3),
	// kept in fixed buffers so that decoding never allocates.
	RobotConfig [4]ConfigString

	// UnknownKeys is the number of map keys DecodeSensors skipped because
	// it does not know them (set by every successful decode).
	UnknownKeys int
}

// Indices into Sensors.RobotConfig (protocols.md §1.3).
const (
	ConfigBodyID      = 0
	ConfigBodyVersion = 1
	ConfigHeadID      = 2
	ConfigHeadVersion = 3
)

// ConfigString is one RobotConfig string (protocols.md §1.2) in a fixed
// buffer of MaxConfigLen bytes, so that Sensors can be decoded and copied
// without allocating. The zero value is the empty string.
type ConfigString struct {
	n   uint8
	buf [MaxConfigLen]byte
}

// Len returns the length of the RobotConfig string (§1.2) in bytes.
func (c *ConfigString) Len() int { return int(c.n) }

// Bytes returns the RobotConfig string's (§1.2) bytes; the slice aliases c.
func (c *ConfigString) Bytes() []byte { return c.buf[:c.n] }

// String returns a copy of the RobotConfig string (§1.2); this allocates,
// use Bytes or Equal on hot paths.
func (c *ConfigString) String() string { return string(c.buf[:c.n]) }

// Equal reports whether the RobotConfig string (§1.2) c holds s.
func (c *ConfigString) Equal(s string) bool { return string(c.buf[:c.n]) == s }

// Set stores s as a RobotConfig string (§1.2); it reports false (and
// leaves c unchanged) if s is longer than MaxConfigLen bytes.
func (c *ConfigString) Set(s string) bool {
	if len(s) > MaxConfigLen {
		return false
	}
	c.n = uint8(copy(c.buf[:], s))
	clear(c.buf[c.n:])
	return true
}

func (c *ConfigString) setBytes(b []byte) {
	c.n = uint8(copy(c.buf[:], b))
	clear(c.buf[c.n:]) // keep == comparisons of Sensors meaningful
}

// BatteryOrder selects how indices 1 and 2 of the LoLA Battery array are
// read; the sources disagree (protocols.md §1.3, [U]). Index 0 is always the
// charge (0..1) and index 3 the temperature.
type BatteryOrder uint8

const (
	// BatteryStatusCurrent (§1.3) reads index 1 as the status bit field
	// and index 2 as the current. It is the default (zero value) because B-Human,
	// HULKs, Nao Devils, rUNSWift's enum and NaoTH use it and real-robot
	// samples support it (status ≈ −32552, current ≈ 0.016 A).
	BatteryStatusCurrent BatteryOrder = iota
	// BatteryCurrentStatus (§1.3) reads index 1 as the current and index 2
	// as the status, as in nao_lola, nidhogg and SoftBank's documentation.
	BatteryCurrentStatus
)

// String returns the battery order's (§1.3) name.
func (o BatteryOrder) String() string {
	switch o {
	case BatteryStatusCurrent:
		return "status-current"
	case BatteryCurrentStatus:
		return "current-status"
	}
	return "BatteryOrder(invalid)"
}

// Battery is the battery state read from Sensors.Battery (protocols.md §1.2,
// §1.3).
type Battery struct {
	Charge      float32 // state of charge, 0..1
	Status      float32 // status bit field, sent as a float
	Current     float32 // A
	Temperature float32 // °C as reported
}

// BatteryState returns the battery values, reading indices 1 and 2 in the
// given order (protocols.md §1.3; pass the zero value, BatteryStatusCurrent,
// unless a robot shows otherwise). An unknown order is treated as the
// default.
func (s *Sensors) BatteryState(order BatteryOrder) Battery {
	b := Battery{Charge: s.Battery[0], Status: s.Battery[1], Current: s.Battery[2], Temperature: s.Battery[3]}
	if order == BatteryCurrentStatus {
		b.Status, b.Current = b.Current, b.Status
	}
	return b
}

// StatusWord returns the status float as the 16-bit pattern that clients
// test for charging ((int16)status, e.g. −32552 → 0x80D8). Which bit means
// "charging" is not agreed (§1.3 [U]: B-Human tests 0x80 set, Nao Devils
// 0x20 clear), so this package does not interpret it. Values outside the
// int16 range saturate; NaN gives 0.
func (b Battery) StatusWord() uint16 {
	f := float64(b.Status)
	switch {
	case f != f:
		return 0
	case f <= math.MinInt16:
		return 0x8000
	case f >= math.MaxInt16:
		return 0x7FFF
	}
	return uint16(int16(f))
}
