package lola

import (
	"errors"
	"math"
	"strconv"

	"github.com/tinylib/msgp/msgp"
)

// Sensor map keys, in the order the Webots LoLA emulator emits them and
// AppendSensors writes them (protocols.md §1.2; the order is [U] and
// DecodeSensors does not depend on it).
const (
	skStiffness = iota
	skPosition
	skTemperature
	skCurrent
	skBattery
	skAccelerometer
	skGyroscope
	skAngles
	skSonar
	skFSR
	skTouch
	skStatus
	skRobotConfig
	numSensorKeys

	allSensorKeys = 1<<numSensorKeys - 1
)

// sensorKeyName returns the key string of sensor key id.
func sensorKeyName(id int) string {
	switch id {
	case skStiffness:
		return "Stiffness"
	case skPosition:
		return "Position"
	case skTemperature:
		return "Temperature"
	case skCurrent:
		return "Current"
	case skBattery:
		return "Battery"
	case skAccelerometer:
		return "Accelerometer"
	case skGyroscope:
		return "Gyroscope"
	case skAngles:
		return "Angles"
	case skSonar:
		return "Sonar"
	case skFSR:
		return "FSR"
	case skTouch:
		return "Touch"
	case skStatus:
		return "Status"
	case skRobotConfig:
		return "RobotConfig"
	}
	return ""
}

// sensorKeyID returns the id of a sensor map key, or -1.
func sensorKeyID(k []byte) int {
	switch string(k) { // no allocation: the compiler compares in place
	case "Stiffness":
		return skStiffness
	case "Position":
		return skPosition
	case "Temperature":
		return skTemperature
	case "Current":
		return skCurrent
	case "Battery":
		return skBattery
	case "Accelerometer":
		return skAccelerometer
	case "Gyroscope":
		return skGyroscope
	case "Angles":
		return skAngles
	case "Sonar":
		return skSonar
	case "FSR":
		return skFSR
	case "Touch":
		return skTouch
	case "Status":
		return skStatus
	case "RobotConfig":
		return skRobotConfig
	}
	return -1
}

// DecodeSensors parses one LoLA sensor map (protocols.md §1.2) from b, which
// must hold exactly one map and nothing else, into *s.
//
// It accepts the keys in any order and every msgpack number type (float32,
// float64, signed and unsigned integers) for every numeric value; Status
// must hold integers 0..255 (integral floats are accepted). All 13 keys must
// be present exactly once and every array must have its §1.2 length; keys
// it does not know are skipped and counted in s.UnknownKeys. RobotConfig
// strings go into fixed buffers, so a successful decode allocates nothing.
//
// On error, *s is left unchanged and the error is a *DecodeError naming the
// key, index, byte offset, and what was expected and found. It never panics.
func DecodeSensors(b []byte, s *Sensors) error {
	var t Sensors
	p := at{m: "sensors", index: -1}
	n, rest, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return p.msgpErr(err, "map", b)
	}
	var seen uint32
	for range n {
		p = at{m: "sensors", index: -1, off: len(b) - len(rest)}
		k, o, err := msgp.ReadMapKeyZC(rest)
		if err != nil {
			return p.msgpErr(err, "str key", rest)
		}
		id := sensorKeyID(k)
		if id < 0 {
			if rest, err = msgp.Skip(o); err != nil {
				p.key, p.off = string(k), len(b)-len(o) // allocate only on error
				return p.msgpErr(err, "", o)
			}
			t.UnknownKeys++
			continue
		}
		p.key = sensorKeyName(id)
		if seen&(1<<id) != 0 {
			return p.err(ErrDuplicateKey, "", "")
		}
		seen |= 1 << id
		switch id {
		case skStiffness:
			rest, err = readFloats(b, o, p, t.Stiffness[:])
		case skPosition:
			rest, err = readFloats(b, o, p, t.Position[:])
		case skTemperature:
			rest, err = readFloats(b, o, p, t.Temperature[:])
		case skCurrent:
			rest, err = readFloats(b, o, p, t.Current[:])
		case skBattery:
			rest, err = readFloats(b, o, p, t.Battery[:])
		case skAccelerometer:
			rest, err = readFloats(b, o, p, t.Accelerometer[:])
		case skGyroscope:
			rest, err = readFloats(b, o, p, t.Gyroscope[:])
		case skAngles:
			rest, err = readFloats(b, o, p, t.Angles[:])
		case skSonar:
			rest, err = readFloats(b, o, p, t.Sonar[:])
		case skFSR:
			rest, err = readFloats(b, o, p, t.FSR[:])
		case skTouch:
			rest, err = readFloats(b, o, p, t.Touch[:])
		case skStatus:
			rest, err = readStatus(b, o, p, t.Status[:])
		case skRobotConfig:
			rest, err = readConfig(b, o, p, t.RobotConfig[:])
		}
		if err != nil {
			return err
		}
	}
	if len(rest) != 0 {
		p = at{m: "sensors", index: -1, off: len(b) - len(rest)}
		return p.err(ErrTrailingBytes, "end of packet", strconv.Itoa(len(rest))+" more bytes")
	}
	if seen != allSensorKeys {
		for id := range numSensorKeys {
			if seen&(1<<id) == 0 {
				p = at{m: "sensors", key: sensorKeyName(id), index: -1, off: len(b)}
				return p.err(ErrMissingKey, "", "")
			}
		}
	}
	*s = t
	return nil
}

// errNotNumber marks a value that is not a msgpack number.
var errNotNumber = errors.New("not a number")

// readNumber reads any msgpack number as a float32 (float64 is rounded,
// integers are converted).
func readNumber(b []byte) (float32, []byte, error) {
	switch msgp.NextType(b) {
	case msgp.Float32Type:
		return msgp.ReadFloat32Bytes(b)
	case msgp.Float64Type:
		f, o, err := msgp.ReadFloat64Bytes(b)
		return float32(f), o, err
	case msgp.IntType:
		i, o, err := msgp.ReadInt64Bytes(b)
		return float32(i), o, err
	case msgp.UintType:
		u, o, err := msgp.ReadUint64Bytes(b)
		return float32(u), o, err
	}
	if len(b) == 0 {
		return 0, b, msgp.ErrShortBytes
	}
	return 0, b, errNotNumber
}

// numErr converts an error of readNumber into a *DecodeError.
func (p at) numErr(err error, b []byte) error {
	if err == errNotNumber {
		return p.err(ErrType, "number", typeName(b))
	}
	return p.msgpErr(err, "number", b)
}

// readArrayHeader reads an array header and checks that it has want
// elements. pkt is the whole packet (for offsets).
func readArrayHeader(pkt, b []byte, p at, want int) ([]byte, error) {
	p.off = len(pkt) - len(b)
	n, o, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return b, p.msgpErr(err, arrayOf(want), b)
	}
	if uint64(n) != uint64(want) {
		return b, p.err(ErrLength, arrayOf(want), arrayOf(int(n)))
	}
	return o, nil
}

// readFloats reads an array of exactly len(dst) numbers into dst.
func readFloats(pkt, b []byte, p at, dst []float32) ([]byte, error) {
	o, err := readArrayHeader(pkt, b, p, len(dst))
	if err != nil {
		return b, err
	}
	for i := range dst {
		p.index, p.off = i, len(pkt)-len(o)
		f, next, err := readNumber(o)
		if err != nil {
			return b, p.numErr(err, o)
		}
		dst[i], o = f, next
	}
	return o, nil
}

// readStatus reads an array of exactly len(dst) integers 0..255.
func readStatus(pkt, b []byte, p at, dst []uint8) ([]byte, error) {
	o, err := readArrayHeader(pkt, b, p, len(dst))
	if err != nil {
		return b, err
	}
	const want = "integer 0..255"
	for i := range dst {
		p.index, p.off = i, len(pkt)-len(o)
		var next []byte
		switch msgp.NextType(o) {
		case msgp.IntType:
			var v int64
			if v, next, err = msgp.ReadInt64Bytes(o); err == nil && (v < 0 || v > math.MaxUint8) {
				return b, p.err(ErrRange, want, strconv.FormatInt(v, 10))
			}
			dst[i] = uint8(v)
		case msgp.UintType:
			var v uint64
			if v, next, err = msgp.ReadUint64Bytes(o); err == nil && v > math.MaxUint8 {
				return b, p.err(ErrRange, want, strconv.FormatUint(v, 10))
			}
			dst[i] = uint8(v)
		default:
			var f float32
			if f, next, err = readNumber(o); err == nil && !(f >= 0 && f <= math.MaxUint8 && f == float32(math.Trunc(float64(f)))) {
				return b, p.err(ErrRange, want, strconv.FormatFloat(float64(f), 'g', -1, 32))
			}
			dst[i] = uint8(f)
		}
		if err != nil {
			return b, p.numErr(err, o)
		}
		o = next
	}
	return o, nil
}

// readConfig reads the RobotConfig array of strings.
func readConfig(pkt, b []byte, p at, dst []ConfigString) ([]byte, error) {
	o, err := readArrayHeader(pkt, b, p, len(dst))
	if err != nil {
		return b, err
	}
	for i := range dst {
		p.index, p.off = i, len(pkt)-len(o)
		str, next, err := msgp.ReadStringZC(o)
		if err != nil {
			return b, p.msgpErr(err, "str", o)
		}
		if len(str) > MaxConfigLen {
			return b, p.err(ErrLength, "str of at most "+strconv.Itoa(MaxConfigLen)+" bytes", "str of "+strconv.Itoa(len(str))+" bytes")
		}
		dst[i].setBytes(str)
		o = next
	}
	return o, nil
}
