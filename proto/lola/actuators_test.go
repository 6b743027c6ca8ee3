package lola

import (
	"errors"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// distinctActuators returns an Actuators value whose every number differs.
func distinctActuators() *Actuators {
	var a Actuators
	v := float32(0)
	next := func(dst []float32) {
		for i := range dst {
			v += 0.125
			dst[i] = v
		}
	}
	next(a.Position[:])
	next(a.Stiffness[:])
	next(a.Chest[:])
	next(a.LFoot[:])
	next(a.RFoot[:])
	next(a.LEar[:])
	next(a.REar[:])
	next(a.LEye[:])
	next(a.REye[:])
	next(a.Skull[:])
	a.Sonar = [2]bool{true, false}
	return &a
}

// TestAppendActuatorsLayout: all 11 keys in the documented order, float32
// values, 786 bytes (protocols.md §1.4).
func TestAppendActuatorsLayout(t *testing.T) {
	a := distinctActuators()
	pkt := AppendActuators(nil, a)
	if len(pkt) != ActuatorPacketSize || ActuatorPacketSize != 786 {
		t.Fatalf("full actuator map is %d bytes, want 786", len(pkt))
	}
	n, rest, err := msgp.ReadMapHeaderBytes(pkt)
	if err != nil || n != 11 || pkt[0] != 0x8b {
		t.Fatalf("header %x: %d keys, %v", pkt[0], n, err)
	}
	wantKeys := []string{"Position", "Stiffness", "Chest", "LEar", "REar", "LEye", "REye", "LFoot", "RFoot", "Skull", "Sonar"}
	wantLens := []uint32{25, 25, 3, 10, 10, 24, 24, 3, 3, 12, 2}
	for i, want := range wantKeys {
		k, o, err := msgp.ReadMapKeyZC(rest)
		if err != nil || string(k) != want {
			t.Fatalf("key %d = %q (%v), want %q", i, k, err, want)
		}
		if ActuatorSet(1<<i).Key() != want {
			t.Errorf("ActuatorSet(1<<%d).Key() = %q, want %q", i, ActuatorSet(1<<i).Key(), want)
		}
		l, v, err := msgp.ReadArrayHeaderBytes(o)
		if err != nil || l != wantLens[i] {
			t.Fatalf("%s: %d elements (%v), want %d", want, l, err, wantLens[i])
		}
		for range l {
			if want == "Sonar" {
				if v[0] != 0xc2 && v[0] != 0xc3 {
					t.Errorf("Sonar value 0x%02x is not a bool", v[0])
				}
			} else if v[0] != 0xca {
				t.Errorf("%s value 0x%02x is not float32", want, v[0])
			}
			v, _ = msgp.Skip(v)
		}
		rest = v
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes after the map", len(rest))
	}
	if AllActuators != 1<<11-1 || ActuatorSet(3).Key() != "" {
		t.Error("AllActuators / Key of a multi-key set")
	}
}

func TestActuatorsRoundTrip(t *testing.T) {
	a := distinctActuators()
	pkt := AppendActuators(nil, a)
	var got Actuators
	present, rest, err := DecodeActuators(pkt, &got)
	if err != nil {
		t.Fatal(err)
	}
	if present != AllActuators || len(rest) != 0 || got != *a {
		t.Fatalf("present %b rest %d\n got %+v\nwant %+v", present, len(rest), got, *a)
	}
}

// TestDecodeActuatorsSubsets models rUNSWift (§1.4): two maps back to back,
// one with some float keys in its own order and one with only Sonar; keys
// not sent keep their previous values.
func TestDecodeActuatorsSubsets(t *testing.T) {
	var b []byte
	b = msgp.AppendMapHeader(b, 2)
	b = msgp.AppendString(b, "Stiffness")
	b = msgp.AppendArrayHeader(b, NumJoints)
	for range NumJoints {
		b = msgp.AppendFloat64(b, 0.5) // float64 is accepted
	}
	b = msgp.AppendString(b, "Chest")
	b = msgp.AppendArrayHeader(b, 3)
	b = msgp.AppendInt(b, 1) // so are integers
	b = msgp.AppendFloat32(b, 0)
	b = msgp.AppendFloat32(b, 0.25)
	first := len(b)
	b = msgp.AppendMapHeader(b, 1)
	b = msgp.AppendString(b, "Sonar")
	b = msgp.AppendArrayHeader(b, 2)
	b = msgp.AppendBool(b, true)
	b = msgp.AppendBool(b, true)

	a := distinctActuators()
	prev := *a
	present, rest, err := DecodeActuators(b, a)
	if err != nil {
		t.Fatal(err)
	}
	if present != ActuatorStiffness|ActuatorChest || len(rest) != len(b)-first {
		t.Fatalf("first map: present %b, %d bytes left", present, len(rest))
	}
	if !present.Has(ActuatorChest) || present.Has(ActuatorSonar) {
		t.Error("Has")
	}
	if a.Stiffness[24] != 0.5 || a.Chest != [3]float32{1, 0, 0.25} || a.Position != prev.Position || a.Sonar != prev.Sonar {
		t.Errorf("after first map: %+v", *a)
	}
	present, rest, err = DecodeActuators(rest, a)
	if err != nil || present != ActuatorSonar || len(rest) != 0 || a.Sonar != [2]bool{true, true} {
		t.Fatalf("second map: present %b rest %d err %v sonar %v", present, len(rest), err, a.Sonar)
	}
	if n := testing.AllocsPerRun(100, func() { _, _, _ = DecodeActuators(b, a) }); n != 0 {
		t.Errorf("DecodeActuators allocates %v times", n)
	}
}

func TestDecodeActuatorsErrors(t *testing.T) {
	full := AppendActuators(nil, distinctActuators())
	one := func(key string, val func([]byte) []byte) []byte {
		b := msgp.AppendMapHeader(nil, 1)
		b = msgp.AppendString(b, key)
		return val(b)
	}
	tests := []struct {
		name  string
		pkt   []byte
		kind  error
		key   string
		index int
	}{
		{"unknown key", one("LHand", floatsVal([]float32{1})), ErrUnknownKey, "LHand", -1},
		{"wrong length", one("LEye", floatsVal(make([]float32, 8))), ErrLength, "LEye", -1},
		{"sonar not bool", one("Sonar", floatsVal([]float32{1, 1})), ErrType, "Sonar", 0},
		{"string value", one("Skull", func(b []byte) []byte {
			b = msgp.AppendArrayHeader(b, 12)
			b = msgp.AppendFloat32(b, 1)
			return msgp.AppendString(b, "on")
		}), ErrType, "Skull", 1},
		{"duplicate", append(msgp.AppendMapHeader(nil, 2), append(one("Chest", floatsVal(make([]float32, 3)))[1:], one("Chest", floatsVal(make([]float32, 3)))[1:]...)...), ErrDuplicateKey, "Chest", -1},
		{"truncated", full[:len(full)-1], ErrTruncated, "Sonar", 1},
		{"not a map", []byte{0xc0}, ErrType, "", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := distinctActuators()
			before := *a
			present, rest, err := DecodeActuators(tc.pkt, a)
			var de *DecodeError
			if !errors.As(err, &de) || !errors.Is(err, tc.kind) || de.Key != tc.key || de.Index != tc.index || de.Map != "actuators" {
				t.Fatalf("got %v (%+v), want %v at %q[%d]", err, de, tc.kind, tc.key, tc.index)
			}
			if present != 0 || len(rest) != len(tc.pkt) || *a != before {
				t.Error("a failed decode reported keys, consumed input or changed *a")
			}
		})
	}
}

func TestAppendActuatorsAllocs(t *testing.T) {
	a := distinctActuators()
	buf := make([]byte, 0, ActuatorPacketSize)
	if n := testing.AllocsPerRun(1000, func() { buf = AppendActuators(buf[:0], a) }); n != 0 {
		t.Errorf("AppendActuators allocates %v times", n)
	}
}
