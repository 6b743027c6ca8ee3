package robotino

import (
	"encoding/binary"
	"math"
)

// MotorReadings are the motor values of ALL_MOTOR_READINGS (tag 53) or of
// ALL_MOTOR_SPEEDS / ALL_MOTOR_POSITIONS / ALL_MOTOR_CURRENT_READINGS (tags
// 11, 14, 27), protocols.md §2.3; index = motor 0..3.
type MotorReadings struct {
	Speed    [NumMotors]int16   // rpm at the motor
	Position [NumMotors]int32   // encoder ticks (ticks per revolution [U], §2.6)
	Current  [NumMotors]float32 // A
}

// Odometry is the base's own odometry (tag 23, §2.3), integrated by the
// firmware with the §2.5 model.
type Odometry struct {
	X, Y float32 // m
	Phi  float32 // rad
}

// GyroZ is GYRO_Z_ANGLE (tag 70, §2.3): firmware 1.2.3 sends the negated
// MPU6000 z angle and rate; units are not stated ([U], likely rad and
// rad/s); firmware ≥ 2.0 does not answer.
type GyroZ struct {
	Angle float32
	Rate  float32
}

// BatteryType is the battery type code of POWER_SOURCE_READINGS (§2.3).
type BatteryType uint8

// Battery type codes (firmware 2.x).
const (
	BatteryLead  BatteryType = 0 // lead-acid (Pb), §2.3
	BatteryNiMH  BatteryType = 1 // NiMH, §2.3
	BatteryLiIon BatteryType = 2 // Li-Ion (Festool packs, fw 2.x), §2.3
)

// PowerSource is POWER_SOURCE_READINGS (tag 65, 16 bytes, §2.3), which the
// firmware appends to every reply.
type PowerSource struct {
	BatteryVoltage  float32 // V
	SystemCurrent   float32 // A
	ExternalPower   bool    // external power supply connected
	NumChargers     uint8
	BatteryType     BatteryType
	BatteryLow      bool
	ShutdownCounter uint32 // battery-low shutdown counter
}

// Text is an ASCII value (§2.3) of at most 255 bytes (version strings, INFO,
// WARNING, ERROR) in a fixed buffer, so that decoding never allocates.
type Text struct {
	n uint8
	b [255]byte
}

// Bytes returns the §2.3 text (aliases t).
func (t *Text) Bytes() []byte { return t.b[:t.n] }

// String returns a copy of the §2.3 text.
func (t *Text) String() string { return string(t.b[:t.n]) }

// Len returns the §2.3 text's length in bytes.
func (t *Text) Len() int { return int(t.n) }

func (t *Text) set(v []byte) {
	t.n = uint8(copy(t.b[:], v))
	clear(t.b[t.n:])
}

// Field is a set of Readings fields (§2.3 replies), one bit per field.
type Field uint32

// Readings fields, set in Readings.Updated by the reply tags of §2.3 named
// in each comment.
const (
	FieldHWVersion       Field = 1 << iota // HW_VERSION (2)
	FieldSWVersion                         // SW_VERSION (4)
	FieldDistanceSensors                   // DISTANCE_SENSOR_READINGS (6)
	FieldMotorSpeeds                       // ALL_MOTOR_SPEEDS (11) or ALL_MOTOR_READINGS (53)
	FieldMotorPositions                    // ALL_MOTOR_POSITIONS (14) or ALL_MOTOR_READINGS (53)
	FieldMotorCurrents                     // ALL_MOTOR_CURRENT_READINGS (27) or ALL_MOTOR_READINGS (53)
	FieldOdometry                          // ODOMETRY (23)
	FieldAnalogInputs                      // ALL_ANALOG_INPUTS (33)
	FieldDigitalInputs                     // ALL_DIGITAL_INPUTS (35)
	FieldBumper                            // BUMPER (37)
	FieldPowerButton                       // POWER_BUTTON (39)
	FieldPowerSource                       // POWER_SOURCE_READINGS (65)
	FieldGyro                              // GYRO_Z_ANGLE (70)
	FieldInfo                              // INFO (250)
	FieldWarning                           // WARNING (251)
	FieldError                             // ERROR (252)
)

// Has reports whether every field (§2.3 reply) of g is in f.
func (f Field) Has(g Field) bool { return f&g == g }

// Readings holds what the base reports (base → host tags of protocols.md
// §2.3). Parse updates it from one frame's payload; fields whose tags the
// payload lacks keep their previous values, and Updated says which were
// set.
type Readings struct {
	// Updated is the set of fields the last Parse set.
	Updated Field

	HWVersion       Text       // e.g. "3.0.0"
	SWVersion       Text       // firmware version, e.g. "2.1.0"
	DistanceSensors [9]float32 // IR distance sensors, V
	Motors          MotorReadings
	Odometry        Odometry
	AnalogInputs    [8]float32 // V
	DigitalInputs   uint8      // bit i = DI(i+1)
	Bumper          bool
	PowerButton     bool
	Power           PowerSource
	Gyro            GyroZ
	// Info, Warning and Error are the last texts of these kinds (the
	// firmware reports e.g. invalid command lengths as ERROR).
	Info, Warning, Error Text

	// SkippedTags counts, for the last Parse, commands whose tag Readings
	// does not decode (they are skipped).
	SkippedTags int
	// BadTags counts, for the last Parse, known tags with a length other
	// than §2.3's (they are skipped; the first is returned as error).
	BadTags int
}

// Parse decodes the commands of one base → host payload into r. A known
// tag whose length differs from §2.3 is skipped and counted in BadTags,
// parsing goes on, and the first such error (a *TagLengthError) is
// returned. A payload that ends inside a command stops parsing with an
// error wrapping ErrTLV; what came before it is kept. Parse allocates only
// for errors and never panics.
func (r *Readings) Parse(payload []byte) error {
	r.Updated, r.SkippedTags, r.BadTags = 0, 0, 0
	var first error
	for len(payload) > 0 {
		c, rest, err := NextCommand(payload)
		if err != nil {
			return err
		}
		payload = rest
		if want := r.apply(c); want >= 0 {
			r.BadTags++
			if first == nil {
				first = &TagLengthError{Tag: c.Tag, Want: want, Got: len(c.Value)}
			}
		}
	}
	return first
}

// apply decodes one command; it returns the expected length if c's length
// is wrong, else -1.
func (r *Readings) apply(c Command) int {
	v := c.Value
	le := binary.LittleEndian
	f32 := func(i int) float32 { return math.Float32frombits(le.Uint32(v[i:])) }
	want := -1
	check := func(n int) bool {
		if len(v) != n {
			want = n
			return false
		}
		return true
	}
	switch c.Tag {
	case TagHWVersion:
		r.HWVersion.set(v)
		r.Updated |= FieldHWVersion
	case TagSWVersion:
		r.SWVersion.set(v)
		r.Updated |= FieldSWVersion
	case TagInfo:
		r.Info.set(v)
		r.Updated |= FieldInfo
	case TagWarning:
		r.Warning.set(v)
		r.Updated |= FieldWarning
	case TagError:
		r.Error.set(v)
		r.Updated |= FieldError
	case TagDistanceSensorReadings:
		if check(36) {
			for i := range r.DistanceSensors {
				r.DistanceSensors[i] = f32(4 * i)
			}
			r.Updated |= FieldDistanceSensors
		}
	case TagAllMotorSpeeds:
		if check(8) {
			for i := range NumMotors {
				r.Motors.Speed[i] = int16(le.Uint16(v[2*i:]))
			}
			r.Updated |= FieldMotorSpeeds
		}
	case TagAllMotorPositions:
		if check(16) {
			for i := range NumMotors {
				r.Motors.Position[i] = int32(le.Uint32(v[4*i:]))
			}
			r.Updated |= FieldMotorPositions
		}
	case TagAllMotorCurrentReadings:
		if check(16) {
			for i := range NumMotors {
				r.Motors.Current[i] = f32(4 * i)
			}
			r.Updated |= FieldMotorCurrents
		}
	case TagAllMotorReadings:
		if check(40) {
			for i := range NumMotors {
				r.Motors.Speed[i] = int16(le.Uint16(v[2*i:]))
				r.Motors.Position[i] = int32(le.Uint32(v[8+4*i:]))
				r.Motors.Current[i] = f32(24 + 4*i)
			}
			r.Updated |= FieldMotorSpeeds | FieldMotorPositions | FieldMotorCurrents
		}
	case TagOdometry:
		if check(12) {
			r.Odometry = Odometry{X: f32(0), Y: f32(4), Phi: f32(8)}
			r.Updated |= FieldOdometry
		}
	case TagAllAnalogInputs:
		if check(32) {
			for i := range r.AnalogInputs {
				r.AnalogInputs[i] = f32(4 * i)
			}
			r.Updated |= FieldAnalogInputs
		}
	case TagAllDigitalInputs:
		if check(1) {
			r.DigitalInputs = v[0]
			r.Updated |= FieldDigitalInputs
		}
	case TagBumper:
		if check(1) {
			r.Bumper = v[0] != 0
			r.Updated |= FieldBumper
		}
	case TagPowerButton:
		if check(1) {
			r.PowerButton = v[0] != 0
			r.Updated |= FieldPowerButton
		}
	case TagPowerSourceReadings:
		if check(16) {
			r.Power = PowerSource{
				BatteryVoltage:  f32(0),
				SystemCurrent:   f32(4),
				ExternalPower:   v[8] != 0,
				NumChargers:     v[9],
				BatteryType:     BatteryType(v[10]),
				BatteryLow:      v[11] != 0,
				ShutdownCounter: le.Uint32(v[12:]),
			}
			r.Updated |= FieldPowerSource
		}
	case TagGyroZAngle:
		if check(8) {
			r.Gyro = GyroZ{Angle: f32(0), Rate: f32(4)}
			r.Updated |= FieldGyro
		}
	default:
		r.SkippedTags++
	}
	return want
}

// ReplyMotorReadings appends ALL_MOTOR_READINGS (tag 53, §2.3, 40 bytes: 4 × int16
// rpm, 4 × int32 ticks, 4 × float32 A), as the base sends it; for fake
// base controllers in tests.
func (p *Payload) ReplyMotorReadings(m MotorReadings) {
	if p.begin(TagAllMotorReadings, 40) {
		for _, s := range m.Speed {
			p.b = binary.LittleEndian.AppendUint16(p.b, uint16(s))
		}
		for _, x := range m.Position {
			p.b = binary.LittleEndian.AppendUint32(p.b, uint32(x))
		}
		for _, c := range m.Current {
			p.f32(c)
		}
	}
}

// ReplyOdometry appends ODOMETRY (tag 23, §2.3, 12 bytes), as the base sends it.
func (p *Payload) ReplyOdometry(o Odometry) {
	if p.begin(TagOdometry, 12) {
		p.f32(o.X)
		p.f32(o.Y)
		p.f32(o.Phi)
	}
}

// ReplyPowerSource appends POWER_SOURCE_READINGS (tag 65, §2.3, 16 bytes), as the
// base appends it to every reply.
func (p *Payload) ReplyPowerSource(ps PowerSource) {
	if p.begin(TagPowerSourceReadings, 16) {
		p.f32(ps.BatteryVoltage)
		p.f32(ps.SystemCurrent)
		p.b = append(p.b, b2u(ps.ExternalPower), ps.NumChargers, byte(ps.BatteryType), b2u(ps.BatteryLow))
		p.b = binary.LittleEndian.AppendUint32(p.b, ps.ShutdownCounter)
	}
}

// ReplyGyroZ appends GYRO_Z_ANGLE (tag 70, §2.3, 8 bytes), as firmware 1.x sends
// it.
func (p *Payload) ReplyGyroZ(g GyroZ) {
	if p.begin(TagGyroZAngle, 8) {
		p.f32(g.Angle)
		p.f32(g.Rate)
	}
}

// ReplyFlag appends a one-byte reply (§2.3) such as BUMPER (37) or POWER_BUTTON
// (39).
func (p *Payload) ReplyFlag(t Tag, v uint8) {
	if p.begin(t, 1) {
		p.b = append(p.b, v)
	}
}

// ReplyFloats appends a reply of float32 values (§2.3) such as
// DISTANCE_SENSOR_READINGS (6, 9 values), ALL_MOTOR_CURRENT_READINGS (27, 4)
// or ALL_ANALOG_INPUTS (33, 8).
func (p *Payload) ReplyFloats(t Tag, vals []float32) {
	if p.begin(t, 4*len(vals)) {
		for _, v := range vals {
			p.f32(v)
		}
	}
}

// ReplyText appends an ASCII reply (§2.3) such as HW_VERSION (2), SW_VERSION (4),
// INFO, WARNING or ERROR (250–252).
func (p *Payload) ReplyText(t Tag, s string) {
	if p.begin(t, len(s)) {
		p.b = append(p.b, s...)
	}
}
