package robotino

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// NumMotors is the number of motor outputs of the base (protocols.md §2.3):
// 0, 1, 2 drive the omni wheels, 3 is the fourth output (gripper or free
// axis).
const NumMotors = 4

// Errors of command encoding and decoding (protocols.md §2.3).
var (
	// ErrMotorIndex: a motor index outside 0..NumMotors-1 (§2.3).
	ErrMotorIndex = errors.New("robotino: motor index out of range")
	// ErrValueTooLong: a command value longer than 255 bytes (§2.2 len is
	// uint8).
	ErrValueTooLong = errors.New("robotino: command value longer than 255 bytes")
	// ErrTLV: a command header or value runs past the end of the payload
	// (§2.2).
	ErrTLV = errors.New("robotino: command runs past the end of the payload")
	// ErrTagLength: a command's length differs from its §2.3 layout.
	ErrTagLength = errors.New("robotino: wrong command length")
)

// TagLengthError reports a command whose length differs from the layout
// in protocols.md §2.3.
type TagLengthError struct {
	Tag       Tag
	Want, Got int
}

// Error formats the error (§2.3 tag names).
func (e *TagLengthError) Error() string {
	return fmt.Sprintf("%v: %v has %d bytes, want %d", ErrTagLength, e.Tag, e.Got, e.Want)
}

// Unwrap returns ErrTagLength (§2.3).
func (e *TagLengthError) Unwrap() error { return ErrTagLength }

// Command is one TLV command of a payload (protocols.md §2.2).
type Command struct {
	Tag   Tag
	Value []byte // aliases the payload
}

// NextCommand splits the first command off payload and returns it and the
// rest (protocols.md §2.2: tag uint8, len uint8, value[len]). It returns an
// error wrapping ErrTLV if payload ends inside the command.
func NextCommand(payload []byte) (Command, []byte, error) {
	if len(payload) < 2 {
		return Command{}, payload, fmt.Errorf("%w: %d byte(s) left, a command header has 2", ErrTLV, len(payload))
	}
	n := int(payload[1])
	if len(payload)-2 < n {
		return Command{}, payload, fmt.Errorf("%w: %v declares %d bytes, %d left", ErrTLV, Tag(payload[0]), n, len(payload)-2)
	}
	return Command{Tag: Tag(payload[0]), Value: payload[2 : 2+n : 2+n]}, payload[2+n:], nil
}

// Payload builds the payload of one frame: a sequence of commands
// (protocols.md §2.2, §2.3). The first error (a bad motor index, a value
// or payload too long) is kept, later commands are ignored, and it is
// reported by Err and AppendFrame. Reuse a Payload with Reset to build
// frames without allocating.
type Payload struct {
	b   []byte
	err error
}

// Reset empties the payload (§2.2) and clears its error, keeping the buffer.
func (p *Payload) Reset() { p.b, p.err = p.b[:0], nil }

// Bytes returns the payload (§2.2) built so far (aliases p's buffer).
func (p *Payload) Bytes() []byte { return p.b }

// Len returns the payload's length in bytes (the §2.2 length field).
func (p *Payload) Len() int { return len(p.b) }

// Err returns the first error met while building (§2.2, §2.3 limits).
func (p *Payload) Err() error { return p.err }

// AppendFrame appends the frame carrying the payload to dst (§2.2; see the
// package function AppendFrame), or returns p's first error.
func (p *Payload) AppendFrame(dst []byte) ([]byte, error) {
	if p.err != nil {
		return dst, p.err
	}
	return AppendFrame(dst, p.b)
}

// begin starts a command with a value of n bytes; false if p has an error
// or the command does not fit.
func (p *Payload) begin(t Tag, n int) bool {
	if p.err != nil {
		return false
	}
	if n > math.MaxUint8 {
		p.err = fmt.Errorf("%w: %v with %d bytes", ErrValueTooLong, t, n)
		return false
	}
	if len(p.b)+2+n > MaxPayloadLen {
		p.err = fmt.Errorf("%w: adding %v", ErrPayloadTooLarge, t)
		return false
	}
	p.b = append(p.b, byte(t), byte(n))
	return true
}

func (p *Payload) motor(t Tag, motor int) bool {
	if p.err == nil && (motor < 0 || motor >= NumMotors) {
		p.err = fmt.Errorf("%w: %v for motor %d", ErrMotorIndex, t, motor)
	}
	return p.err == nil
}

func (p *Payload) f32(v float32) { p.b = binary.LittleEndian.AppendUint32(p.b, math.Float32bits(v)) }

// Command appends a command with an arbitrary value (protocols.md §2.2).
func (p *Payload) Command(t Tag, value []byte) {
	if p.begin(t, len(value)) {
		p.b = append(p.b, value...)
	}
}

// Request appends a command without data, e.g. TagGetAllMotorReadings
// (protocols.md §2.3: requests have len = 0).
func (p *Payload) Request(t Tag) { p.begin(t, 0) }

// SetMotorSpeed appends SET_MOTOR_SPEED (tag 9, §2.3): motor 0..3, speed in
// rpm at the motor (int16, negative = reverse; Fawkes clamps to ±3000).
func (p *Payload) SetMotorSpeed(motor int, rpm int16) {
	if p.motor(TagSetMotorSpeed, motor) && p.begin(TagSetMotorSpeed, 3) {
		p.b = append(p.b, byte(motor))
		p.b = binary.LittleEndian.AppendUint16(p.b, uint16(rpm))
	}
}

// SetDriveSpeeds appends SET_MOTOR_SPEED for the three drive motors 0, 1, 2
// (§2.2's last worked example), e.g. from Kinematics.MotorSetpoints.
func (p *Payload) SetDriveSpeeds(rpm [3]int16) {
	for i, v := range rpm {
		p.SetMotorSpeed(i, v)
	}
}

// SetMotorPosition appends SET_MOTOR_POSITION (tag 12, §2.3): motor, position in
// encoder ticks.
func (p *Payload) SetMotorPosition(motor int, ticks int32) {
	if p.motor(TagSetMotorPosition, motor) && p.begin(TagSetMotorPosition, 5) {
		p.b = append(p.b, byte(motor))
		p.b = binary.LittleEndian.AppendUint32(p.b, uint32(ticks))
	}
}

// SetMotorPID appends SET_MOTOR_PID_PARAMETERS (tag 15, §2.3): motor, kp, ki, kd
// (the firmware ignores kd).
func (p *Payload) SetMotorPID(motor int, kp, ki, kd float32) {
	if p.motor(TagSetMotorPIDParameters, motor) && p.begin(TagSetMotorPIDParameters, 13) {
		p.b = append(p.b, byte(motor))
		p.f32(kp)
		p.f32(ki)
		p.f32(kd)
	}
}

// SetDigitalOutputs appends SET_ALL_DIGITAL_OUTPUTS (tag 18): bit i of mask
// drives DO(i+1). Fawkes sends 0 at start-up (§2.4).
func (p *Payload) SetDigitalOutputs(mask uint8) {
	if p.begin(TagSetAllDigitalOutputs, 1) {
		p.b = append(p.b, mask)
	}
}

// SetRelays appends SET_ALL_RELAYS (tag 19, §2.3): bits 0–1 of mask.
func (p *Payload) SetRelays(mask uint8) {
	if p.begin(TagSetAllRelays, 1) {
		p.b = append(p.b, mask&0x3)
	}
}

// SetOdometry appends SET_ODOMETRY (tag 20): x, y in m, phi in rad. Fawkes
// sends (0, 0, 0) at start-up (§2.4).
func (p *Payload) SetOdometry(x, y, phi float32) {
	if p.begin(TagSetOdometry, 12) {
		p.f32(x)
		p.f32(y)
		p.f32(phi)
	}
}

// SetOdometryRotation appends SET_ODOMETRY_ROTATION (tag 21, §2.3): phi in rad.
func (p *Payload) SetOdometryRotation(phi float32) {
	if p.begin(TagSetOdometryRotation, 4) {
		p.f32(phi)
	}
}

// SetEmergencyBumper appends SET_EMERGENCY_BUMPER (tag 57): whether the
// base stops the motors itself when the bumper is hit (Fawkes default:
// enabled, §2.4).
func (p *Payload) SetEmergencyBumper(enable bool) {
	if p.begin(TagSetEmergencyBumper, 1) {
		p.b = append(p.b, b2u(enable))
	}
}

// SetMotorOn appends SET_MOTOR_ON (tag 47, §2.3): motor, on.
func (p *Payload) SetMotorOn(motor int, on bool) {
	if p.motor(TagSetMotorOn, motor) && p.begin(TagSetMotorOn, 2) {
		p.b = append(p.b, byte(motor), b2u(on))
	}
}

// DefaultAccelLimit is Fawkes' motor/acceleration-limits default (±11500,
// §2.4); the unit is not stated ([U]).
const DefaultAccelLimit = 11500

// SetMotorAccelLimits appends SET_MOTOR_ACCEL_LIMITS (tag 66): motor, min,
// max, passed through unchanged because their unit is [U] (§2.4; Fawkes
// sends −DefaultAccelLimit, +DefaultAccelLimit).
func (p *Payload) SetMotorAccelLimits(motor int, min, max float32) {
	if p.motor(TagSetMotorAccelLimits, motor) && p.begin(TagSetMotorAccelLimits, 9) {
		p.b = append(p.b, byte(motor))
		p.f32(min)
		p.f32(max)
	}
}

// PollOptions select the requests of the periodic sensor frame. The zero
// value is Fawkes' set (§2.4).
type PollOptions struct {
	// NoGyro leaves out GET_GYRO_Z_ANGLE. Fawkes requests it (the default);
	// firmware 2.x ignores it and 1.x answers with [U] units (§2.3).
	NoGyro bool
	// Currents adds GET_ALL_MOTOR_CURRENT_READINGS (currents already come
	// with GET_ALL_MOTOR_READINGS, so Fawkes does not ask).
	Currents bool
	// PowerButton adds GET_POWER_BUTTON (replies carry it anyway).
	PowerButton bool
}

// SensorRequests appends the periodic request set Fawkes sends every
// cycle (§2.4): GET_ALL_MOTOR_READINGS, GET_DISTANCE_SENSOR_READINGS,
// GET_ALL_ANALOG_INPUTS, GET_ALL_DIGITAL_INPUTS, GET_BUMPER, GET_ODOMETRY and
// GET_GYRO_Z_ANGLE, adjusted by o. Sending it regularly is what keeps
// readings (and POWER_SOURCE_READINGS, appended to every reply) flowing.
func (p *Payload) SensorRequests(o PollOptions) {
	p.Request(TagGetAllMotorReadings)
	p.Request(TagGetDistanceSensorReadings)
	p.Request(TagGetAllAnalogInputs)
	p.Request(TagGetAllDigitalInputs)
	p.Request(TagGetBumper)
	p.Request(TagGetOdometry)
	if !o.NoGyro {
		p.Request(TagGetGyroZAngle)
	}
	if o.Currents {
		p.Request(TagGetAllMotorCurrentReadings)
	}
	if o.PowerButton {
		p.Request(TagGetPowerButton)
	}
}

// VersionRequests appends GET_HW_VERSION and GET_SW_VERSION, the first frame
// of Fawkes' start-up sequence (§2.4; it also serves as its "ping" after
// repeated checksum errors).
func (p *Payload) VersionRequests() {
	p.Request(TagGetHWVersion)
	p.Request(TagGetSWVersion)
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// DecodeSetMotorSpeed decodes the value of a SET_MOTOR_SPEED command (tag
// 9, §2.3), e.g. in a fake base controller.
func DecodeSetMotorSpeed(value []byte) (motor int, rpm int16, err error) {
	if len(value) != 3 {
		return 0, 0, &TagLengthError{Tag: TagSetMotorSpeed, Want: 3, Got: len(value)}
	}
	if value[0] >= NumMotors {
		return 0, 0, fmt.Errorf("%w: %v for motor %d", ErrMotorIndex, TagSetMotorSpeed, value[0])
	}
	return int(value[0]), int16(binary.LittleEndian.Uint16(value[1:])), nil
}
