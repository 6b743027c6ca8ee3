package lola

import "testing"

func BenchmarkDecodeSensors(b *testing.B) {
	pkt := goldenPacket(b)
	var s Sensors
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeSensors(pkt, &s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendSensors(b *testing.B) {
	s := loadSample(b)
	buf := make([]byte, 0, SensorPacketSize)
	b.SetBytes(SensorPacketSize)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendSensors(buf[:0], s)
	}
}

func BenchmarkAppendActuators(b *testing.B) {
	a := distinctActuators()
	buf := make([]byte, 0, ActuatorPacketSize)
	b.SetBytes(ActuatorPacketSize)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendActuators(buf[:0], a)
	}
}

func BenchmarkDecodeActuators(b *testing.B) {
	a := distinctActuators()
	pkt := AppendActuators(nil, a)
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DecodeActuators(pkt, a); err != nil {
			b.Fatal(err)
		}
	}
}
