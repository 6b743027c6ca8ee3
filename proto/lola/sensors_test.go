package lola

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// loadSample reads testdata/naoth_sensor_sample.json (a real NAO v6 packet
// rendered as JSON, see testdata/README.md) into a Sensors value.
func loadSample(t testing.TB) *Sensors {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "naoth_sensor_sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSensorsJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

func goldenPacket(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "naoth_sensor_sample.msgpack"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEncodeSampleSize checks the §1.1 derivation: the NaoTH sample encoded
// as a real robot does is exactly 896 bytes, with the per-key sizes of the
// doc, and byte-identical to the golden fixture.
func TestEncodeSampleSize(t *testing.T) {
	s := loadSample(t)
	pkt := EncodeSensors(s)
	if len(pkt) != SensorPacketSize || SensorPacketSize != 896 {
		t.Fatalf("encoded sample is %d bytes, want 896", len(pkt))
	}
	if pkt[0] != 0x8d {
		t.Errorf("map header 0x%02x, want fixmap 0x8d", pkt[0])
	}
	// Per-key sizes (key string + value) from protocols.md §1.1, in the
	// order AppendSensors writes them.
	want := []struct {
		key  string
		size int
	}{
		{"Stiffness", 138}, {"Position", 137}, {"Temperature", 140}, {"Current", 136},
		{"Battery", 29}, {"Accelerometer", 30}, {"Gyroscope", 26}, {"Angles", 18},
		{"Sonar", 17}, {"FSR", 45}, {"Touch", 77}, {"Status", 35}, {"RobotConfig", 67},
	}
	rest := pkt[1:]
	for _, w := range want {
		k, o, err := msgp.ReadMapKeyZC(rest)
		if err != nil {
			t.Fatal(err)
		}
		after, err := msgp.Skip(o)
		if err != nil {
			t.Fatal(err)
		}
		if string(k) != w.key || len(rest)-len(after) != w.size {
			t.Errorf("entry %q is %d bytes, want %q %d bytes", k, len(rest)-len(after), w.key, w.size)
		}
		// Every number is float32, Status fixint, RobotConfig fixstr.
		n, v, _ := msgp.ReadArrayHeaderBytes(o)
		for range n {
			switch {
			case w.key == "Status":
				if v[0] > 0x7f {
					t.Errorf("Status value 0x%02x is not a positive fixint", v[0])
				}
			case w.key == "RobotConfig":
				if v[0]&0xe0 != 0xa0 {
					t.Errorf("RobotConfig value 0x%02x is not a fixstr", v[0])
				}
			case v[0] != 0xca:
				t.Errorf("%s value 0x%02x is not float32", w.key, v[0])
			}
			v, _ = msgp.Skip(v)
		}
		rest = after
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes after the 13 keys", len(rest))
	}
	if golden := goldenPacket(t); !bytes.Equal(pkt, golden) {
		t.Errorf("encoding differs from testdata/naoth_sensor_sample.msgpack")
	}
}

func TestDecodeSample(t *testing.T) {
	want := loadSample(t)
	var s Sensors
	if err := DecodeSensors(goldenPacket(t), &s); err != nil {
		t.Fatal(err)
	}
	if s != *want {
		t.Fatalf("decoded sample differs:\n got %+v\nwant %+v", s, *want)
	}
	if !s.RobotConfig[ConfigBodyID].Equal("P0000073A03S83I00011") || s.RobotConfig[ConfigHeadVersion].String() != "6.0.0" {
		t.Errorf("RobotConfig = %q %q", s.RobotConfig[ConfigBodyID].String(), s.RobotConfig[ConfigHeadVersion].String())
	}
	if s.Angles[1] != float32(0.990951) || s.Accelerometer[0] != float32(8.66997) {
		t.Errorf("Angles %v Accelerometer %v", s.Angles, s.Accelerometer)
	}
	b := s.BatteryState(BatteryStatusCurrent)
	if b.Charge != 0.99 || b.Status != -32552 || b.Current != 0.016 || b.Temperature != 3.6 {
		t.Errorf("default battery order: %+v", b)
	}
	var zero BatteryOrder
	if s.BatteryState(zero) != b {
		t.Error("zero BatteryOrder is not the default order")
	}
	if b2 := s.BatteryState(BatteryCurrentStatus); b2.Status != 0.016 || b2.Current != -32552 {
		t.Errorf("current-status battery order: %+v", b2)
	}
	if w := b.StatusWord(); w != 0x80d8 {
		t.Errorf("StatusWord = %#04x, want 0x80d8", w)
	}
	for _, c := range []struct {
		f float32
		w uint16
	}{{0, 0}, {-1, 0xffff}, {1e9, 0x7fff}, {-1e9, 0x8000}, {float32(math.NaN()), 0}} {
		if got := (Battery{Status: c.f}).StatusWord(); got != c.w {
			t.Errorf("StatusWord(%v) = %#x, want %#x", c.f, got, c.w)
		}
	}
}

// entry is one key of a hand-built map.
type entry struct {
	key string
	val func([]byte) []byte
}

func floatsVal(v []float32) func([]byte) []byte {
	return func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, uint32(len(v)))
		for _, f := range v {
			b = msgp.AppendFloat32(b, f)
		}
		return b
	}
}

// sampleEntries returns the sample's 13 keys in the encoder's order.
func sampleEntries(s *Sensors) []entry {
	return []entry{
		{"Stiffness", floatsVal(s.Stiffness[:])},
		{"Position", floatsVal(s.Position[:])},
		{"Temperature", floatsVal(s.Temperature[:])},
		{"Current", floatsVal(s.Current[:])},
		{"Battery", floatsVal(s.Battery[:])},
		{"Accelerometer", floatsVal(s.Accelerometer[:])},
		{"Gyroscope", floatsVal(s.Gyroscope[:])},
		{"Angles", floatsVal(s.Angles[:])},
		{"Sonar", floatsVal(s.Sonar[:])},
		{"FSR", floatsVal(s.FSR[:])},
		{"Touch", floatsVal(s.Touch[:])},
		{"Status", func(b []byte) []byte {
			b = msgp.AppendArrayHeader(b, NumJoints)
			for _, v := range s.Status {
				b = msgp.AppendUint8(b, v)
			}
			return b
		}},
		{"RobotConfig", func(b []byte) []byte {
			b = msgp.AppendArrayHeader(b, 4)
			for i := range s.RobotConfig {
				b = msgp.AppendStringFromBytes(b, s.RobotConfig[i].Bytes())
			}
			return b
		}},
	}
}

func buildMap(es []entry) []byte {
	b := msgp.AppendMapHeader(nil, uint32(len(es)))
	for _, e := range es {
		b = msgp.AppendString(b, e.key)
		b = e.val(b)
	}
	return b
}

// replace returns es with key's value replaced.
func replace(es []entry, key string, val func([]byte) []byte) []entry {
	out := append([]entry(nil), es...)
	for i := range out {
		if out[i].key == key {
			out[i].val = val
		}
	}
	return out
}

func raw(bs ...byte) func([]byte) []byte {
	return func(b []byte) []byte { return append(b, bs...) }
}

// TestDecodeAnyOrderAnyNumber: reversed key order, float64 and integer
// numbers, a str8 RobotConfig value, a map16 header and unknown keys (with
// nested values) all decode to the same values.
func TestDecodeAnyOrderAnyNumber(t *testing.T) {
	want := loadSample(t)
	es := sampleEntries(want)
	// float64 everywhere except Temperature (integers) and Touch (mixed).
	for i, e := range es {
		var v []float32
		switch e.key {
		case "Stiffness":
			v = want.Stiffness[:]
		case "Position":
			v = want.Position[:]
		case "FSR":
			v = want.FSR[:]
		case "Battery":
			v = want.Battery[:]
		}
		if v != nil {
			es[i].val = func(b []byte) []byte {
				b = msgp.AppendArrayHeader(b, uint32(len(v)))
				for _, f := range v {
					b = msgp.AppendFloat64(b, float64(f))
				}
				return b
			}
		}
	}
	es = replace(es, "Temperature", func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, NumJoints)
		for _, f := range want.Temperature {
			b = msgp.AppendInt64(b, int64(f))
		}
		return b
	})
	es = replace(es, "Touch", func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, 14)
		for i := range 14 {
			switch i % 4 {
			case 0:
				b = append(b, 0xd3, 0, 0, 0, 0, 0, 0, 0, 0) // int64 0
			case 1:
				b = append(b, 0xcf, 0, 0, 0, 0, 0, 0, 0, 0) // uint64 0
			case 2:
				b = append(b, 0xcc, 0) // uint8 0
			default:
				b = append(b, 0xd0, 0) // int8 0
			}
		}
		return b
	})
	es = replace(es, "Status", func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, NumJoints)
		for i, v := range want.Status {
			if i%2 == 0 {
				b = append(b, 0xcc, v) // uint8
			} else {
				b = msgp.AppendFloat64(b, float64(v)) // integral float
			}
		}
		return b
	})
	es = replace(es, "RobotConfig", func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, 4)
		for i := range want.RobotConfig {
			c := want.RobotConfig[i].Bytes()
			b = append(b, 0xd9, byte(len(c))) // str8
			b = append(b, c...)
		}
		return b
	})
	es = append(es,
		entry{"Unknown", func(b []byte) []byte {
			b = msgp.AppendMapHeader(b, 1)
			b = msgp.AppendString(b, "x")
			return msgp.AppendArrayHeader(b, 0)
		}},
		entry{"AlsoUnknown", raw(0xc0)})
	for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
		es[i], es[j] = es[j], es[i]
	}
	pkt := buildMap(es)
	// Re-write the header as map16 to exercise that form too.
	pkt = append([]byte{0xde, 0, byte(len(es))}, pkt[1:]...)

	var s Sensors
	if err := DecodeSensors(pkt, &s); err != nil {
		t.Fatal(err)
	}
	if s.UnknownKeys != 2 {
		t.Errorf("UnknownKeys = %d, want 2", s.UnknownKeys)
	}
	s.UnknownKeys = 0
	if s != *want {
		t.Fatalf("decoded differs:\n got %+v\nwant %+v", s, *want)
	}
	if n := testing.AllocsPerRun(100, func() { _ = DecodeSensors(pkt, &s) }); n != 0 {
		t.Errorf("DecodeSensors of a mixed-type packet allocates %v times", n)
	}
}

func TestDecodeSensorsErrors(t *testing.T) {
	sample := loadSample(t)
	base := sampleEntries(sample)
	long := strings.Repeat("x", MaxConfigLen+1)
	tests := []struct {
		name       string
		pkt        []byte
		kind       error
		key        string
		index      int
		want, got  string
		offsetByte byte // pkt[Offset] must be this byte (0: not checked)
	}{
		{
			name: "array too short", kind: ErrLength, key: "Position", index: -1,
			pkt:  buildMap(replace(base, "Position", floatsVal(sample.Position[:24]))),
			want: "array of 25", got: "array of 24", offsetByte: 0xdc,
		},
		{
			name: "array too long", kind: ErrLength, key: "Sonar", index: -1,
			pkt:  buildMap(replace(base, "Sonar", floatsVal([]float32{1, 2, 3}))),
			want: "array of 2", got: "array of 3", offsetByte: 0x93,
		},
		{
			name: "string in float array", kind: ErrType, key: "Position", index: 3,
			pkt: buildMap(replace(base, "Position", func(b []byte) []byte {
				b = msgp.AppendArrayHeader(b, NumJoints)
				for i := range NumJoints {
					if i == 3 {
						b = msgp.AppendString(b, "x")
					} else {
						b = msgp.AppendFloat32(b, 0)
					}
				}
				return b
			})),
			want: "number", got: "str", offsetByte: 0xa1,
		},
		{
			name: "nil instead of array", kind: ErrType, key: "Battery", index: -1,
			pkt:  buildMap(replace(base, "Battery", raw(0xc0))),
			want: "array of 4", got: "nil", offsetByte: 0xc0,
		},
		{
			name: "status out of range", kind: ErrRange, key: "Status", index: 5,
			pkt: buildMap(replace(base, "Status", func(b []byte) []byte {
				b = msgp.AppendArrayHeader(b, NumJoints)
				for i := range NumJoints {
					if i == 5 {
						b = msgp.AppendInt(b, 300)
					} else {
						b = msgp.AppendInt(b, 0)
					}
				}
				return b
			})),
			want: "integer 0..255", got: "300", offsetByte: 0xd1,
		},
		{
			name: "negative status", kind: ErrRange, key: "Status", index: 0,
			pkt: buildMap(replace(base, "Status", func(b []byte) []byte {
				b = msgp.AppendArrayHeader(b, NumJoints)
				b = msgp.AppendInt(b, -1)
				for range NumJoints - 1 {
					b = msgp.AppendInt(b, 0)
				}
				return b
			})),
			want: "integer 0..255", got: "-1", offsetByte: 0xff,
		},
		{
			name: "fractional status", kind: ErrRange, key: "Status", index: 1,
			pkt: buildMap(replace(base, "Status", func(b []byte) []byte {
				b = msgp.AppendArrayHeader(b, NumJoints)
				b = msgp.AppendInt(b, 0)
				b = msgp.AppendFloat32(b, 1.5)
				for range NumJoints - 2 {
					b = msgp.AppendInt(b, 0)
				}
				return b
			})),
			want: "integer 0..255", got: "1.5", offsetByte: 0xca,
		},
		{
			name: "status as bool", kind: ErrType, key: "Status", index: 0,
			pkt: buildMap(replace(base, "Status", func(b []byte) []byte {
				b = msgp.AppendArrayHeader(b, NumJoints)
				for range NumJoints {
					b = msgp.AppendBool(b, true)
				}
				return b
			})),
			want: "number", got: "bool", offsetByte: 0xc3,
		},
		{
			name: "config string too long", kind: ErrLength, key: "RobotConfig", index: 2,
			pkt: buildMap(replace(base, "RobotConfig", func(b []byte) []byte {
				b = msgp.AppendArrayHeader(b, 4)
				for i := range 4 {
					if i == 2 {
						b = msgp.AppendString(b, long)
					} else {
						b = msgp.AppendString(b, "6.0.0")
					}
				}
				return b
			})),
			want: "str of at most 64 bytes", got: "str of 65 bytes", offsetByte: 0xd9,
		},
		{
			name: "config not a string", kind: ErrType, key: "RobotConfig", index: 0,
			pkt: buildMap(replace(base, "RobotConfig", func(b []byte) []byte {
				b = msgp.AppendArrayHeader(b, 4)
				for range 4 {
					b = msgp.AppendInt(b, 1)
				}
				return b
			})),
			want: "str", got: "int", offsetByte: 0x01,
		},
		{
			name: "missing key", kind: ErrMissingKey, key: "RobotConfig", index: -1,
			pkt: buildMap(base[:12]),
		},
		{
			name: "duplicate key", kind: ErrDuplicateKey, key: "Touch", index: -1,
			pkt: buildMap(append(append([]entry(nil), base...), base[10])), offsetByte: 0xa5,
		},
		{
			name: "trailing bytes", kind: ErrTrailingBytes, index: -1,
			pkt: append(buildMap(base), 0xc0), want: "end of packet", got: "1 more bytes", offsetByte: 0xc0,
		},
		{
			name: "not a map", kind: ErrType, index: -1,
			pkt: []byte{0x90}, want: "map", got: "array", offsetByte: 0x90,
		},
		{
			name: "integer key", kind: ErrType, index: -1,
			pkt: []byte{0x81, 0x01, 0xc0}, want: "str key", got: "int", offsetByte: 0x01,
		},
		{
			name: "invalid prefix in unknown value", kind: ErrMalformed, key: "Foo", index: -1,
			pkt:        buildMap(append(append([]entry(nil), base...), entry{"Foo", raw(0xc1)})),
			offsetByte: 0xc1,
		},
		{
			name: "empty input", kind: ErrTruncated, index: -1, pkt: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := *sample
			s.Gyroscope[2] = 42 // must survive a failed decode
			before := s
			err := DecodeSensors(tc.pkt, &s)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("error %v is not %v", err, tc.kind)
			}
			if de.Map != "sensors" || de.Key != tc.key || de.Index != tc.index || de.Want != tc.want || de.Got != tc.got {
				t.Errorf("got key %q index %d want %q got %q; expected key %q index %d want %q got %q (%v)",
					de.Key, de.Index, de.Want, de.Got, tc.key, tc.index, tc.want, tc.got, err)
			}
			if tc.offsetByte != 0 && (de.Offset >= len(tc.pkt) || tc.pkt[de.Offset] != tc.offsetByte) {
				t.Errorf("offset %d does not point at 0x%02x (%v)", de.Offset, tc.offsetByte, err)
			}
			if s != before {
				t.Error("a failed decode changed *s")
			}
			if !strings.HasPrefix(err.Error(), "lola: sensors: ") {
				t.Errorf("message %q", err)
			}
		})
	}
}

func TestDecodeErrorMessage(t *testing.T) {
	sample := loadSample(t)
	pkt := buildMap(replace(sampleEntries(sample), "Position", floatsVal(sample.Position[:24])))
	err := DecodeSensors(pkt, new(Sensors))
	const want = `lola: sensors: "Position" at byte 148: wrong length: want array of 25, got array of 24`
	if err == nil || err.Error() != want {
		t.Errorf("message\n %v\nwant\n %s", err, want)
	}
}

// TestDecodeTruncated: every strict prefix of a valid packet is rejected as
// truncated (there is no framing beyond msgpack, §1.1).
func TestDecodeTruncated(t *testing.T) {
	pkt := goldenPacket(t)
	var s Sensors
	for n := range len(pkt) {
		err := DecodeSensors(pkt[:n], &s)
		if !errors.Is(err, ErrTruncated) {
			t.Fatalf("prefix of %d bytes: %v, want ErrTruncated", n, err)
		}
		var de *DecodeError
		if !errors.As(err, &de) || de.Offset > n || !errors.Is(err, msgp.ErrShortBytes) {
			t.Fatalf("prefix of %d bytes: %#v", n, err)
		}
	}
}

func TestDecodeSensorsAllocs(t *testing.T) {
	pkt := goldenPacket(t)
	var s Sensors
	if n := testing.AllocsPerRun(1000, func() {
		if err := DecodeSensors(pkt, &s); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("DecodeSensors allocates %v times per packet", n)
	}
	buf := make([]byte, 0, SensorPacketSize)
	if n := testing.AllocsPerRun(1000, func() { buf = AppendSensors(buf[:0], &s) }); n != 0 {
		t.Errorf("AppendSensors allocates %v times per packet", n)
	}
}

func TestConfigString(t *testing.T) {
	var c ConfigString
	if c.Len() != 0 || c.String() != "" || !c.Equal("") {
		t.Error("zero ConfigString is not empty")
	}
	if !c.Set("P0000073A03S83I00011") || c.Len() != 20 || !bytes.Equal(c.Bytes(), []byte("P0000073A03S83I00011")) {
		t.Errorf("Set: %q", c.String())
	}
	if c.Set(strings.Repeat("x", MaxConfigLen+1)) || !c.Equal("P0000073A03S83I00011") {
		t.Error("an over-long Set changed the value")
	}
	var d ConfigString
	d.Set("P0000073A03S83I00011")
	d.Set("6.0.0")
	var e ConfigString
	e.Set("6.0.0")
	if d != e {
		t.Error("ConfigString values with the same content compare unequal")
	}
	if BatteryStatusCurrent.String() != "status-current" || BatteryCurrentStatus.String() != "current-status" || BatteryOrder(9).String() != "BatteryOrder(invalid)" {
		t.Error("BatteryOrder.String")
	}
}

func TestParseSensorsJSONErrors(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "naoth_sensor_sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, json, want string }{
		{"not JSON", `{"Position": [`, "decoding"},
		{"unknown key", `{"Elbow": [1]}`, "unknown field"},
		{"short joints", `{"Position": [1, 2]}`, "Position has 2 values, want 25"},
		{"long robot config", `{"RobotConfig": ["a", "b", "c", "d", "e"]}`, "RobotConfig has 5 strings, want 4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSensorsJSON([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if _, err := ParseSensorsJSON(good); err != nil {
		t.Fatalf("the sample: %v", err)
	}
}
