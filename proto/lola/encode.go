package lola

import "github.com/tinylib/msgp/msgp"

// AppendSensors appends s as a LoLA sensor map in the wire format of a real
// robot (protocols.md §1.1, §1.2): a fixmap of the 13 keys in the Webots
// emulator's order (Stiffness, Position, Temperature, Current, Battery,
// Accelerometer, Gyroscope, Angles, Sonar, FSR, Touch, Status, RobotConfig),
// every number as float32 (0xca), Status as positive fixint (values above
// 127 become uint8) and RobotConfig as four str (fixstr up to 31 bytes). With
// real-robot strings (two 20-character IDs, two 5-character versions) the
// map is SensorPacketSize (896) bytes. UnknownKeys is not encoded.
//
// It is meant for fake LoLA peers in tests; it allocates only if dst lacks
// capacity.
func AppendSensors(dst []byte, s *Sensors) []byte {
	dst = msgp.AppendMapHeader(dst, numSensorKeys)
	dst = appendFloats(dst, "Stiffness", s.Stiffness[:])
	dst = appendFloats(dst, "Position", s.Position[:])
	dst = appendFloats(dst, "Temperature", s.Temperature[:])
	dst = appendFloats(dst, "Current", s.Current[:])
	dst = appendFloats(dst, "Battery", s.Battery[:])
	dst = appendFloats(dst, "Accelerometer", s.Accelerometer[:])
	dst = appendFloats(dst, "Gyroscope", s.Gyroscope[:])
	dst = appendFloats(dst, "Angles", s.Angles[:])
	dst = appendFloats(dst, "Sonar", s.Sonar[:])
	dst = appendFloats(dst, "FSR", s.FSR[:])
	dst = appendFloats(dst, "Touch", s.Touch[:])
	dst = msgp.AppendString(dst, "Status")
	dst = msgp.AppendArrayHeader(dst, uint32(len(s.Status)))
	for _, v := range s.Status {
		dst = msgp.AppendUint8(dst, v)
	}
	dst = msgp.AppendString(dst, "RobotConfig")
	dst = msgp.AppendArrayHeader(dst, uint32(len(s.RobotConfig)))
	for i := range s.RobotConfig {
		dst = msgp.AppendStringFromBytes(dst, s.RobotConfig[i].Bytes())
	}
	return dst
}

// EncodeSensors returns s encoded by AppendSensors (protocols.md §1.1,
// §1.2) in a new slice of capacity SensorPacketSize.
func EncodeSensors(s *Sensors) []byte {
	return AppendSensors(make([]byte, 0, SensorPacketSize), s)
}

// appendFloats appends key and vals as an array of float32.
func appendFloats(dst []byte, key string, vals []float32) []byte {
	dst = msgp.AppendString(dst, key)
	dst = msgp.AppendArrayHeader(dst, uint32(len(vals)))
	for _, v := range vals {
		dst = msgp.AppendFloat32(dst, v)
	}
	return dst
}
