package robotino

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestParseHandBuilt decodes a reply frame written byte by byte from the
// §2.3 layouts: ALL_MOTOR_READINGS, ODOMETRY, BUMPER, POWER_SOURCE_READINGS,
// POWER_BUTTON, GYRO_Z_ANGLE, SW_VERSION and an unknown tag.
func TestParseHandBuilt(t *testing.T) {
	payload := hx(t, strings.Join([]string{
		// ALL_MOTOR_READINGS (53 = 0x35), 40 bytes
		"35 28",
		"64 00 9c ff 00 00 b8 0b", // speeds 100, -100, 0, 3000 rpm (int16 LE)
		"01 00 00 00 ff ff ff ff 70 11 01 00 00 00 00 80", // positions 1, -1, 70000, MinInt32
		"00 00 00 3f 00 00 80 3f 00 00 00 c0 00 00 00 00", // currents 0.5, 1, -2, 0 A
		// ODOMETRY (23 = 0x17): x 1.5 m, y -0.25 m, phi 3.1415927 rad
		"17 0c 00 00 c0 3f 00 00 80 be db 0f 49 40",
		// BUMPER (37 = 0x25): hit
		"25 01 01",
		// POWER_SOURCE_READINGS (65 = 0x41): 24 V, 1.5 A, ext power, 2 chargers, Li-Ion, not low, counter 7
		"41 10 00 00 c0 41 00 00 c0 3f 01 02 02 00 07 00 00 00",
		// POWER_BUTTON (39 = 0x27): not pressed
		"27 01 00",
		// GYRO_Z_ANGLE (70 = 0x46): angle -0.5, rate 0.25
		"46 08 00 00 00 bf 00 00 80 3e",
		// SW_VERSION (4): "2.1.0"
		"04 05 32 2e 31 2e 30",
		// an unknown tag (200) with 3 bytes
		"c8 03 01 02 03",
	}, " "))

	var r Readings
	if err := r.Parse(payload); err != nil {
		t.Fatal(err)
	}
	want := Readings{
		Updated: FieldMotorSpeeds | FieldMotorPositions | FieldMotorCurrents | FieldOdometry | FieldBumper |
			FieldPowerSource | FieldPowerButton | FieldGyro | FieldSWVersion,
		Motors: MotorReadings{
			Speed:    [4]int16{100, -100, 0, 3000},
			Position: [4]int32{1, -1, 70000, math.MinInt32},
			Current:  [4]float32{0.5, 1, -2, 0},
		},
		Odometry: Odometry{X: 1.5, Y: -0.25, Phi: math.Pi},
		Bumper:   true,
		Power: PowerSource{BatteryVoltage: 24, SystemCurrent: 1.5, ExternalPower: true, NumChargers: 2,
			BatteryType: BatteryLiIon, ShutdownCounter: 7},
		Gyro:        GyroZ{Angle: -0.5, Rate: 0.25},
		SkippedTags: 1,
	}
	want.SWVersion.set([]byte("2.1.0"))
	if r != want {
		t.Fatalf("got  %+v\nwant %+v", r, want)
	}
	if r.SWVersion.String() != "2.1.0" || r.SWVersion.Len() != 5 || !bytes.Equal(r.SWVersion.Bytes(), []byte("2.1.0")) {
		t.Errorf("SWVersion %q", r.SWVersion.String())
	}
	if !r.Updated.Has(FieldOdometry|FieldBumper) || r.Updated.Has(FieldHWVersion) {
		t.Error("Field.Has")
	}

	// A second payload with only the bumper keeps everything else.
	if err := r.Parse(hx(t, "25 01 00")); err != nil {
		t.Fatal(err)
	}
	if r.Updated != FieldBumper || r.Bumper || r.Odometry.X != 1.5 || r.SkippedTags != 0 {
		t.Errorf("after a bumper-only payload: %+v", r)
	}
}

func TestParseErrors(t *testing.T) {
	var r Readings
	// BUMPER with 2 bytes (bad), then ODOMETRY (good): the bad tag is
	// skipped, the rest is used, the first error returned.
	err := r.Parse(hx(t, "25 02 01 01 17 0c 00 00 80 3f 00 00 00 00 00 00 00 00 c8 00"))
	var tle *TagLengthError
	if !errors.As(err, &tle) || !errors.Is(err, ErrTagLength) || tle.Tag != TagBumper || tle.Want != 1 || tle.Got != 2 {
		t.Fatalf("got %v", err)
	}
	if err.Error() != "robotino: wrong command length: BUMPER has 2 bytes, want 1" {
		t.Errorf("message %q", err)
	}
	if r.BadTags != 1 || r.Updated != FieldOdometry || r.Odometry.X != 1 || r.SkippedTags != 1 || r.Bumper {
		t.Errorf("%+v", r)
	}
	// A command that runs past the payload.
	for _, p := range []string{"35", "35 28 00", "17 0c 00 00 80 3f"} {
		if err := r.Parse(hx(t, p)); !errors.Is(err, ErrTLV) {
			t.Errorf("%s: %v, want ErrTLV", p, err)
		}
	}
	// Every known fixed-size tag rejects a wrong length.
	for _, tag := range []Tag{TagDistanceSensorReadings, TagAllMotorSpeeds, TagAllMotorPositions, TagAllMotorCurrentReadings,
		TagAllMotorReadings, TagOdometry, TagAllAnalogInputs, TagAllDigitalInputs, TagBumper, TagPowerButton,
		TagPowerSourceReadings, TagGyroZAngle} {
		if err := r.Parse([]byte{byte(tag), 3, 0, 0, 0}); !errors.Is(err, ErrTagLength) || r.Updated != 0 {
			t.Errorf("%v with 3 bytes: %v (updated %b)", tag, err, r.Updated)
		}
	}
}

// TestReplyRoundTrip: the Reply* encoders and Parse agree.
func TestReplyRoundTrip(t *testing.T) {
	var p Payload
	m := MotorReadings{Speed: [4]int16{-3000, 85, 170, 1}, Position: [4]int32{-5, 0x55aa, 1 << 30, 0}, Current: [4]float32{0.1, 0.2, 0.3, 0.4}}
	ps := PowerSource{BatteryVoltage: 23.5, SystemCurrent: 2, NumChargers: 1, BatteryType: BatteryNiMH, BatteryLow: true, ShutdownCounter: 0xaa55}
	dist := []float32{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
	ain := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	p.ReplyText(TagHWVersion, "3.0.0")
	p.ReplyText(TagSWVersion, "1.1.1")
	p.ReplyMotorReadings(m)
	p.ReplyOdometry(Odometry{X: -1, Y: 2, Phi: 0.5})
	p.ReplyGyroZ(GyroZ{Angle: 1, Rate: -1})
	p.ReplyFloats(TagDistanceSensorReadings, dist)
	p.ReplyFloats(TagAllAnalogInputs, ain)
	p.ReplyFlag(TagAllDigitalInputs, 0xa5)
	p.ReplyFlag(TagBumper, 1)
	p.ReplyFlag(TagPowerButton, 1)
	p.ReplyPowerSource(ps)
	p.ReplyText(TagInfo, "info")
	p.ReplyText(TagWarning, "warn")
	p.ReplyText(TagError, "invalid length for tag 9")
	frame, err := p.AppendFrame(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, payload, err := NewDecoder(nil, DecoderOptions{}).Feed(frame)
	if err != nil {
		t.Fatal(err)
	}
	var r Readings
	if err := r.Parse(payload); err != nil {
		t.Fatal(err)
	}
	if r.Updated != FieldError<<1-1 {
		t.Errorf("updated %b", r.Updated)
	}
	if r.Motors != m || r.Power != ps || r.Odometry != (Odometry{X: -1, Y: 2, Phi: 0.5}) || r.Gyro != (GyroZ{Angle: 1, Rate: -1}) ||
		r.DigitalInputs != 0xa5 || !r.Bumper || !r.PowerButton || r.HWVersion.String() != "3.0.0" ||
		r.SWVersion.String() != "1.1.1" || r.Info.String() != "info" || r.Warning.String() != "warn" ||
		r.Error.String() != "invalid length for tag 9" || r.DistanceSensors[8] != 0.9 || r.AnalogInputs[7] != 8 {
		t.Errorf("%+v", r)
	}
}

// TestCommandLayouts checks the host → base commands byte by byte (§2.3).
func TestCommandLayouts(t *testing.T) {
	tests := []struct {
		name  string
		build func(*Payload)
		want  string
	}{
		{"SET_MOTOR_SPEED motor 3 -1 rpm", func(p *Payload) { p.SetMotorSpeed(3, -1) }, "09 03 03 ff ff"},
		{"SET_MOTOR_POSITION", func(p *Payload) { p.SetMotorPosition(1, -2) }, "0c 05 01 fe ff ff ff"},
		{"SET_MOTOR_PID_PARAMETERS", func(p *Payload) { p.SetMotorPID(2, 1, 0.5, 0) }, "0f 0d 02 00 00 80 3f 00 00 00 3f 00 00 00 00"},
		{"SET_ALL_DIGITAL_OUTPUTS", func(p *Payload) { p.SetDigitalOutputs(0) }, "12 01 00"},
		{"SET_ALL_RELAYS", func(p *Payload) { p.SetRelays(0xff) }, "13 01 03"},
		{"SET_ODOMETRY", func(p *Payload) { p.SetOdometry(0, 0, 0) }, "14 0c 00 00 00 00 00 00 00 00 00 00 00 00"},
		{"SET_ODOMETRY_ROTATION", func(p *Payload) { p.SetOdometryRotation(-2) }, "15 04 00 00 00 c0"},
		{"SET_EMERGENCY_BUMPER", func(p *Payload) { p.SetEmergencyBumper(true) }, "39 01 01"},
		{"SET_MOTOR_ON", func(p *Payload) { p.SetMotorOn(0, false) }, "2f 02 00 00"},
		{"SET_MOTOR_ACCEL_LIMITS", func(p *Payload) { p.SetMotorAccelLimits(1, -DefaultAccelLimit, DefaultAccelLimit) }, "42 09 01 00 b0 33 c6 00 b0 33 46"},
		{"start-up versions", func(p *Payload) { p.VersionRequests() }, "01 00 03 00"},
		{"periodic requests (Fawkes)", func(p *Payload) { p.SensorRequests(PollOptions{}) }, "34 00 05 00 20 00 22 00 24 00 16 00 45 00"},
		{"periodic requests, options", func(p *Payload) { p.SensorRequests(PollOptions{NoGyro: true, Currents: true, PowerButton: true}) },
			"34 00 05 00 20 00 22 00 24 00 16 00 1a 00 26 00"},
		{"raw command", func(p *Payload) { p.Command(TagSetPWM, []byte{1, 128}) }, "2e 02 01 80"},
	}
	for _, tc := range tests {
		var p Payload
		tc.build(&p)
		if p.Err() != nil || !bytes.Equal(p.Bytes(), hx(t, tc.want)) || p.Len() != len(hx(t, tc.want)) {
			t.Errorf("%s: % x (%v), want %s", tc.name, p.Bytes(), p.Err(), tc.want)
		}
	}
}

func TestPayloadErrors(t *testing.T) {
	var p Payload
	p.SetMotorSpeed(4, 1)
	p.Request(TagGetBumper) // ignored after the error
	if !errors.Is(p.Err(), ErrMotorIndex) || p.Len() != 0 {
		t.Errorf("err %v len %d", p.Err(), p.Len())
	}
	if _, err := p.AppendFrame(nil); !errors.Is(err, ErrMotorIndex) {
		t.Errorf("AppendFrame: %v", err)
	}
	p.Reset()
	if p.Err() != nil {
		t.Error("Reset kept the error")
	}
	p.SetMotorOn(-1, true)
	if !errors.Is(p.Err(), ErrMotorIndex) {
		t.Error(p.Err())
	}
	p.Reset()
	p.Command(TagInfo, make([]byte, 256))
	if !errors.Is(p.Err(), ErrValueTooLong) {
		t.Error(p.Err())
	}
	p.Reset()
	for range 300 {
		p.Command(TagInfo, make([]byte, 255))
	}
	if !errors.Is(p.Err(), ErrPayloadTooLarge) || p.Len() > MaxPayloadLen {
		t.Errorf("%v, len %d", p.Err(), p.Len())
	}
}

func TestDecodeSetMotorSpeed(t *testing.T) {
	var p Payload
	p.SetDriveSpeeds([3]int16{-100, 0, 100})
	rest := p.Bytes()
	for i, want := range []int16{-100, 0, 100} {
		c, r, err := NextCommand(rest)
		if err != nil || c.Tag != TagSetMotorSpeed {
			t.Fatal(c, err)
		}
		rest = r
		m, rpm, err := DecodeSetMotorSpeed(c.Value)
		if err != nil || m != i || rpm != want {
			t.Errorf("motor %d: %d %d %v", i, m, rpm, err)
		}
	}
	if _, _, err := DecodeSetMotorSpeed([]byte{1, 2}); !errors.Is(err, ErrTagLength) {
		t.Error(err)
	}
	if _, _, err := DecodeSetMotorSpeed([]byte{4, 0, 0}); !errors.Is(err, ErrMotorIndex) {
		t.Error(err)
	}
}

func TestTagNames(t *testing.T) {
	for tag, name := range map[Tag]string{
		TagSetMotorSpeed: "SET_MOTOR_SPEED", TagAllMotorReadings: "ALL_MOTOR_READINGS",
		TagPowerSourceReadings: "POWER_SOURCE_READINGS", TagGetGyroZAngle: "GET_GYRO_Z_ANGLE",
		TagError: "ERROR", Tag(64): "TAG_64", Tag(200): "TAG_200",
	} {
		if tag.String() != name {
			t.Errorf("Tag(%d).String() = %q, want %q", tag, tag.String(), name)
		}
	}
	// Every listed id has a name.
	for i := range 256 {
		tag := Tag(i)
		unlisted := i == 0 || i == 24 || i == 25 || (i >= 28 && i <= 31) || i == 64 || (i >= 102 && i <= 249)
		if named := !strings.HasPrefix(tag.String(), "TAG_"); named == unlisted {
			t.Errorf("Tag(%d) = %q", i, tag.String())
		}
	}
}
