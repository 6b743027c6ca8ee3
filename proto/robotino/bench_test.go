package robotino

import "testing"

// replyFrame is a typical reply to the periodic request frame.
func replyFrame() []byte {
	var p Payload
	p.ReplyMotorReadings(MotorReadings{Speed: [4]int16{85, -86, 170, 0}, Position: [4]int32{0x55aa, -1, 3, 4}})
	p.ReplyFloats(TagDistanceSensorReadings, make([]float32, 9))
	p.ReplyFloats(TagAllAnalogInputs, make([]float32, 8))
	p.ReplyFlag(TagAllDigitalInputs, 0)
	p.ReplyFlag(TagBumper, 0)
	p.ReplyOdometry(Odometry{X: 1, Y: 2, Phi: 3})
	p.ReplyGyroZ(GyroZ{})
	p.ReplyPowerSource(PowerSource{BatteryVoltage: 24})
	p.ReplyFlag(TagPowerButton, 0)
	f, _ := p.AppendFrame(nil)
	return f
}

func BenchmarkDecodeFrame(b *testing.B) {
	frame := replyFrame()
	d := NewDecoder(nil, DecoderOptions{})
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if _, p, err := d.Feed(frame); err != nil || p == nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNextAndParse(b *testing.B) {
	frame := replyFrame()
	d := NewDecoder(&repeatReader{b: frame}, DecoderOptions{})
	var r Readings
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := d.Next()
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Parse(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeDriveFrame(b *testing.B) {
	k := MustKinematics(Robotino3())
	var p Payload
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		rpm, _ := k.MotorSetpoints(Velocity{VX: 0.3, VY: -0.1, Omega: 0.5})
		p.Reset()
		p.SetDriveSpeeds(rpm)
		p.SensorRequests(PollOptions{})
		buf, _ = p.AppendFrame(buf[:0])
	}
}
