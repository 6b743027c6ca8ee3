// Package lola implements the wire format of the NAO v6 LoLA (Low Level
// Abstraction) interface, protocols.md §1: one MessagePack map per message,
// string keys, float32 numbers. It has no I/O and no timing policy; the NAO
// backend owns the Unix socket (/tmp/robocup, §1.1), the 12 ms cycle and the
// one-read-per-write discipline.
//
// Robot → client: [DecodeSensors] parses one sensor map into a [Sensors]
// value (any key order, any numeric msgpack type, exact array lengths, no
// allocation); [AppendSensors] / [EncodeSensors] produce the packet a real
// robot sends (896 bytes, §1.1) for fake LoLA peers in tests.
//
// Client → robot: [AppendActuators] writes the full 11-key actuator map
// (786 bytes, §1.4); [DecodeActuators] reads any subset of it back, for a
// fake LoLA server.
//
// Values are kept exactly as LoLA reports them: SI units (rad, rad/s, m/s²,
// A, °C, kg, m) and the index orders of §1.3. In particular the
// accelerometer is the raw gravity vector (≈ (0, 0, −9.81) upright) and the
// gyroscope z sign is passed through unchanged; both conversions, if any,
// are the backend's business (§1.2).
//
// Unconfirmed points of §1 ([U]) that touch this package:
//   - Battery index order (§1.3): see [BatteryOrder]; the default is the
//     majority reading, index 1 = status, index 2 = current.
//   - Key order on the wire (§1.2): the decoders accept any order; the
//     encoders use the order of the Webots LoLA emulator (sensors) and of
//     the §1.4 table (actuators).
//   - Whether LoLA accepts float64 or integers in actuator arrays (§1.4):
//     [AppendActuators] always writes float32, as every known client does.
//   - Skull LED naming (§1.4): only the index order is given, see
//     [Actuators].
package lola
