package lola

import (
	"github.com/tinylib/msgp/msgp"
)

// ActuatorPacketSize is the size of a full 11-key actuator map with float32
// values as written by AppendActuators (protocols.md §1.4, [D]).
const ActuatorPacketSize = 786

// Actuators is one LoLA actuator map (client → robot), protocols.md §1.4.
// LED values are intensities 0..1.
type Actuators struct {
	// Position is the joint target angle in rad, joint order §1.3. To
	// release a joint send its measured angle with stiffness 0.
	Position [NumJoints]float32
	// Stiffness is the joint stiffness 0..1.
	Stiffness [NumJoints]float32
	// Chest is the chest button LED, R, G, B.
	Chest [3]float32
	// LFoot is the left foot LED, R, G, B.
	LFoot [3]float32
	// RFoot is the right foot LED, R, G, B.
	RFoot [3]float32
	// LEar is the left ear: index i is at i·36° (0°, 36°, …, 324°).
	LEar [10]float32
	// REar is the right ear: index i is at 324° − i·36° (324°, 288°, …, 0°).
	REar [10]float32
	// LEye is 8 red, then 8 green, then 8 blue; inside each block the LEDs
	// at 45°, 0°, 315°, 270°, 225°, 180°, 135°, 90°.
	LEye [24]float32
	// REye is 8 red, 8 green, 8 blue; inside each block 0°, 45°, 90°, 135°,
	// 180°, 225°, 270°, 315°.
	REye [24]float32
	// Skull is the 12 head LEDs. B-Human and nao_lola name the indices
	// FrontLeft1, FrontLeft0, MiddleLeft0, RearLeft0, RearLeft1, RearLeft2,
	// RearRight2, RearRight1, RearRight0, MiddleRight0, FrontRight0,
	// FrontRight1; other teams label them differently, so the physical
	// position of each index is [U] (§1.4).
	Skull [12]float32
	// Sonar enables the left and right sonar (HULKs: both true).
	Sonar [2]bool
}

// ActuatorSet is a set of actuator map keys (protocols.md §1.4), one bit per
// key; DecodeActuators returns the keys a map contained.
type ActuatorSet uint16

// The actuator map keys (protocols.md §1.4), in the order AppendActuators
// writes them.
const (
	ActuatorPosition ActuatorSet = 1 << iota
	ActuatorStiffness
	ActuatorChest
	ActuatorLEar
	ActuatorREar
	ActuatorLEye
	ActuatorREye
	ActuatorLFoot
	ActuatorRFoot
	ActuatorSkull
	ActuatorSonar

	// AllActuators is the set of all 11 keys of §1.4.
	AllActuators = ActuatorSonar<<1 - 1
)

// Has reports whether every key (§1.4) of k is in s.
func (s ActuatorSet) Has(k ActuatorSet) bool { return s&k == k }

// Key returns the §1.4 map key of a single-key set, or "" otherwise.
func (s ActuatorSet) Key() string {
	switch s {
	case ActuatorPosition:
		return "Position"
	case ActuatorStiffness:
		return "Stiffness"
	case ActuatorChest:
		return "Chest"
	case ActuatorLEar:
		return "LEar"
	case ActuatorREar:
		return "REar"
	case ActuatorLEye:
		return "LEye"
	case ActuatorREye:
		return "REye"
	case ActuatorLFoot:
		return "LFoot"
	case ActuatorRFoot:
		return "RFoot"
	case ActuatorSkull:
		return "Skull"
	case ActuatorSonar:
		return "Sonar"
	}
	return ""
}

// actuatorKey returns the single-key set of an actuator map key, or 0.
func actuatorKey(k []byte) ActuatorSet {
	switch string(k) {
	case "Position":
		return ActuatorPosition
	case "Stiffness":
		return ActuatorStiffness
	case "Chest":
		return ActuatorChest
	case "LEar":
		return ActuatorLEar
	case "REar":
		return ActuatorREar
	case "LEye":
		return ActuatorLEye
	case "REye":
		return ActuatorREye
	case "LFoot":
		return ActuatorLFoot
	case "RFoot":
		return ActuatorRFoot
	case "Skull":
		return ActuatorSkull
	case "Sonar":
		return ActuatorSonar
	}
	return 0
}

// AppendActuators appends a as a full LoLA actuator map (protocols.md §1.4):
// all 11 keys in the order Position, Stiffness, Chest, LEar, REar, LEye,
// REye, LFoot, RFoot, Skull, Sonar (LoLA accepts any order), every number as
// float32 (0xca) and Sonar as two booleans — ActuatorPacketSize (786) bytes.
// It allocates only if dst lacks capacity.
func AppendActuators(dst []byte, a *Actuators) []byte {
	dst = msgp.AppendMapHeader(dst, 11)
	dst = appendFloats(dst, "Position", a.Position[:])
	dst = appendFloats(dst, "Stiffness", a.Stiffness[:])
	dst = appendFloats(dst, "Chest", a.Chest[:])
	dst = appendFloats(dst, "LEar", a.LEar[:])
	dst = appendFloats(dst, "REar", a.REar[:])
	dst = appendFloats(dst, "LEye", a.LEye[:])
	dst = appendFloats(dst, "REye", a.REye[:])
	dst = appendFloats(dst, "LFoot", a.LFoot[:])
	dst = appendFloats(dst, "RFoot", a.RFoot[:])
	dst = appendFloats(dst, "Skull", a.Skull[:])
	dst = msgp.AppendString(dst, "Sonar")
	dst = msgp.AppendArrayHeader(dst, uint32(len(a.Sonar)))
	for _, v := range a.Sonar {
		dst = msgp.AppendBool(dst, v)
	}
	return dst
}

// DecodeActuators parses one actuator map (protocols.md §1.4) from the
// start of b, as a fake LoLA server would. Clients may send any subset of
// the keys in any order (rUNSWift even sends two maps back to back), so it
// returns the set of keys found and the bytes after the map; fields of
// keys not present keep their values in *a.
//
// Numbers may have any msgpack number type; Sonar must hold booleans. Array
// lengths must match §1.4 exactly; unknown and duplicate keys are errors
// (a fake server should catch a client's typos). On error *a is left
// unchanged and the error is a *DecodeError. It allocates nothing on
// success and never panics.
func DecodeActuators(b []byte, a *Actuators) (present ActuatorSet, rest []byte, err error) {
	t := *a
	p := at{m: "actuators", index: -1}
	n, rest, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return 0, b, p.msgpErr(err, "map", b)
	}
	for range n {
		p = at{m: "actuators", index: -1, off: len(b) - len(rest)}
		k, o, err := msgp.ReadMapKeyZC(rest)
		if err != nil {
			return 0, b, p.msgpErr(err, "str key", rest)
		}
		key := actuatorKey(k)
		if key == 0 {
			p.key = string(k)
			return 0, b, p.err(ErrUnknownKey, "", "")
		}
		p.key = key.Key()
		if present&key != 0 {
			return 0, b, p.err(ErrDuplicateKey, "", "")
		}
		present |= key
		switch key {
		case ActuatorPosition:
			rest, err = readFloats(b, o, p, t.Position[:])
		case ActuatorStiffness:
			rest, err = readFloats(b, o, p, t.Stiffness[:])
		case ActuatorChest:
			rest, err = readFloats(b, o, p, t.Chest[:])
		case ActuatorLEar:
			rest, err = readFloats(b, o, p, t.LEar[:])
		case ActuatorREar:
			rest, err = readFloats(b, o, p, t.REar[:])
		case ActuatorLEye:
			rest, err = readFloats(b, o, p, t.LEye[:])
		case ActuatorREye:
			rest, err = readFloats(b, o, p, t.REye[:])
		case ActuatorLFoot:
			rest, err = readFloats(b, o, p, t.LFoot[:])
		case ActuatorRFoot:
			rest, err = readFloats(b, o, p, t.RFoot[:])
		case ActuatorSkull:
			rest, err = readFloats(b, o, p, t.Skull[:])
		case ActuatorSonar:
			rest, err = readBools(b, o, p, t.Sonar[:])
		}
		if err != nil {
			return 0, b, err
		}
	}
	*a = t
	return present, rest, nil
}

// readBools reads an array of exactly len(dst) booleans.
func readBools(pkt, b []byte, p at, dst []bool) ([]byte, error) {
	o, err := readArrayHeader(pkt, b, p, len(dst))
	if err != nil {
		return b, err
	}
	for i := range dst {
		p.index, p.off = i, len(pkt)-len(o)
		v, next, err := msgp.ReadBoolBytes(o)
		if err != nil {
			return b, p.msgpErr(err, "bool", o)
		}
		dst[i], o = v, next
	}
	return o, nil
}
