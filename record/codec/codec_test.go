package codec_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/record/codec"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// specialFloats are the bit patterns a bit-exact codec must keep.
var specialFloats = []uint64{
	0x8000000000000000, // -0
	0x7ff8000000000000, // quiet NaN
	0x7ff8dead0000beef, // quiet NaN with a payload
	0x7ff0000000000001, // signalling NaN
	0xfff4000000000abc, // negative NaN with a payload
	0x7ff0000000000000, // +Inf
	0xfff0000000000000, // -Inf
	0x0000000000000001, // smallest subnormal
	0x800fffffffffffff, // largest negative subnormal
}

var specialFloats32 = []uint32{0x80000000, 0x7fc00000, 0x7fc0beef, 0x7f800001, 0xff800000, 0x00000001}

// fill sets every primitive in v to a random value, a special float about a
// third of the time.
func fill(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(rng.Uint64()) >> (64 - 8*v.Type().Size()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(rng.Uint64() >> (64 - 8*v.Type().Size()))
	case reflect.Float32:
		bits := rng.Uint32()
		if rng.IntN(3) == 0 {
			bits = specialFloats32[rng.IntN(len(specialFloats32))]
		}
		// SetFloat would convert through float64 and quieten NaNs.
		*(*float32)(v.Addr().UnsafePointer()) = math.Float32frombits(bits)
	case reflect.Float64:
		bits := rng.Uint64()
		if rng.IntN(3) == 0 {
			bits = specialFloats[rng.IntN(len(specialFloats))]
		}
		v.SetFloat(math.Float64frombits(bits))
	case reflect.Complex64:
		re, im := reflect.New(reflect.TypeFor[float32]()).Elem(), reflect.New(reflect.TypeFor[float32]()).Elem()
		fill(rng, re)
		fill(rng, im)
		*(*complex64)(v.Addr().UnsafePointer()) = complex(float32(re.Float()), float32(im.Float()))
	case reflect.Complex128:
		re, im := reflect.New(reflect.TypeFor[float64]()).Elem(), reflect.New(reflect.TypeFor[float64]()).Elem()
		fill(rng, re)
		fill(rng, im)
		v.SetComplex(complex(re.Float(), im.Float()))
	case reflect.String:
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		v.SetString(string(b))
	case reflect.Array:
		for i := range v.Len() {
			fill(rng, v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(rng, v.Field(i))
		}
	default:
		panic("fill: " + v.Kind().String())
	}
}

// refEncode is an independent, reflect-based encoder of the documented
// format.
func refEncode(dst []byte, v reflect.Value) []byte {
	le := binary.LittleEndian
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(dst, 1)
		}
		return append(dst, 0)
	case reflect.Int8:
		return append(dst, byte(v.Int()))
	case reflect.Int16:
		return le.AppendUint16(dst, uint16(v.Int()))
	case reflect.Int32:
		return le.AppendUint32(dst, uint32(v.Int()))
	case reflect.Int64, reflect.Int:
		return le.AppendUint64(dst, uint64(v.Int()))
	case reflect.Uint8:
		return append(dst, byte(v.Uint()))
	case reflect.Uint16:
		return le.AppendUint16(dst, uint16(v.Uint()))
	case reflect.Uint32:
		return le.AppendUint32(dst, uint32(v.Uint()))
	case reflect.Uint64, reflect.Uint, reflect.Uintptr:
		return le.AppendUint64(dst, v.Uint())
	case reflect.Float32:
		return le.AppendUint32(dst, math.Float32bits(*(*float32)(v.Addr().UnsafePointer())))
	case reflect.Float64:
		return le.AppendUint64(dst, math.Float64bits(v.Float()))
	case reflect.Complex64:
		c := *(*complex64)(v.Addr().UnsafePointer())
		dst = le.AppendUint32(dst, math.Float32bits(real(c)))
		return le.AppendUint32(dst, math.Float32bits(imag(c)))
	case reflect.Complex128:
		c := v.Complex()
		dst = le.AppendUint64(dst, math.Float64bits(real(c)))
		return le.AppendUint64(dst, math.Float64bits(imag(c)))
	case reflect.String:
		dst = binary.AppendUvarint(dst, uint64(v.Len()))
		return append(dst, v.String()...)
	case reflect.Array:
		for i := range v.Len() {
			dst = refEncode(dst, v.Index(i))
		}
		return dst
	case reflect.Struct:
		for i := range v.NumField() {
			dst = refEncode(dst, v.Field(i))
		}
		return dst
	}
	panic("refEncode: " + v.Kind().String())
}

// bitDiff returns the path of the first primitive in which a and b are not
// bit-identical, or "" if there is none.
func bitDiff(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Float32:
		if math.Float32bits(*(*float32)(a.Addr().UnsafePointer())) != math.Float32bits(*(*float32)(b.Addr().UnsafePointer())) {
			return path
		}
	case reflect.Float64:
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			return path
		}
	case reflect.Complex64:
		x, y := *(*[2]uint32)(a.Addr().UnsafePointer()), *(*[2]uint32)(b.Addr().UnsafePointer())
		if x != y {
			return path
		}
	case reflect.Complex128:
		x, y := *(*[2]uint64)(a.Addr().UnsafePointer()), *(*[2]uint64)(b.Addr().UnsafePointer())
		if x != y {
			return path
		}
	case reflect.Array:
		for i := range a.Len() {
			if p := bitDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if p := bitDiff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	default:
		if !a.Equal(b) {
			return path
		}
	}
	return ""
}

// withStrings exercises what no robot entry has yet: strings, every integer
// width, complex numbers, empty arrays and arrays of structs with strings.
type withStrings struct {
	Name   string
	Tags   [3]string
	I8     int8
	I16    int16
	I32    int32
	I      int
	U16    uint16
	U      uint
	P      uintptr
	F32    float32
	C64    complex64
	C128   complex128
	Flags  [5]bool
	Empty  [0]float64
	Nested [2]struct {
		S string
		X float64
		B [2]bool
	}
	Matrix  [2][3]float32
	Trailer bool
}

// roundTrip checks T's codec against the reference encoder and a bit-exact
// decode, for many random values.
func roundTrip[T any](t *testing.T, seed uint64) {
	t.Helper()
	c, err := codec.NewCodec[T]()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	var buf []byte
	for i := range 200 {
		var v T
		if i > 0 { // the zero value first
			fill(rng, reflect.ValueOf(&v).Elem())
		}
		buf = c.Append(buf[:0], &v)
		if want := refEncode(nil, reflect.ValueOf(&v).Elem()); !bytes.Equal(buf, want) {
			t.Fatalf("value %d: encoding differs from the documented format:\n got %x\nwant %x", i, buf, want)
		}
		if s := c.Size(); s >= 0 && s != len(buf) {
			t.Fatalf("Size() = %d, encoded %d bytes", s, len(buf))
		}
		var got T
		n, err := c.Decode(append(buf, 0xAA), &got) // trailing data is not consumed
		if err != nil {
			t.Fatalf("value %d: decode: %v", i, err)
		}
		if n != len(buf) {
			t.Fatalf("value %d: decode consumed %d of %d bytes", i, n, len(buf))
		}
		if p := bitDiff(reflect.ValueOf(&v).Elem(), reflect.ValueOf(&got).Elem(), reflect.TypeFor[T]().String()); p != "" {
			t.Fatalf("value %d: %s not bit-identical after the round trip", i, p)
		}
		for cut := range min(len(buf), 64) {
			if _, err := c.Decode(buf[:cut], &got); err == nil && cut < len(buf) {
				t.Fatalf("value %d: decoding %d of %d bytes succeeded", i, cut, len(buf))
			}
		}
	}
}

// entryTypes is every value type of an entry in msg, by its reflect name.
var entryTypes = []struct {
	name string
	test func(*testing.T, uint64)
}{
	{"hal.Tick", roundTrip[hal.Tick]},
	{"hal.JointSensors", roundTrip[hal.JointSensors]},
	{"hal.IMU", roundTrip[hal.IMU]},
	{"hal.BodyAngles", roundTrip[hal.BodyAngles]},
	{"hal.Sonar", roundTrip[hal.Sonar]},
	{"hal.FSR", roundTrip[hal.FSR]},
	{"hal.Buttons", roundTrip[hal.Buttons]},
	{"hal.Battery", roundTrip[hal.Battery]},
	{"hal.BaseState", roundTrip[hal.BaseState]},
	{"hal.Vision", roundTrip[hal.Vision]},
	{"hal.CameraFrames", roundTrip[hal.CameraFrames]},
	{"hal.GameState", roundTrip[hal.GameState]},
	{"hal.GroundTruth", roundTrip[hal.GroundTruth]},
	{"hal.JointCommand", roundTrip[hal.JointCommand]},
	{"hal.LEDs", roundTrip[hal.LEDs]},
	{"hal.BaseVelocity", roundTrip[hal.BaseVelocity]},
	{"msg.BodyState", roundTrip[msg.BodyState]},
	{"msg.MotionRequest", roundTrip[msg.MotionRequest]},
	{"msg.MotionState", roundTrip[msg.MotionState]},
	{"msg.Safety", roundTrip[msg.Safety]},
	{"msg.Ball", roundTrip[msg.Ball]},
	{"msg.RobotPose", roundTrip[msg.RobotPose]},
	{"msg.BodySensors", roundTrip[msg.BodySensors]},
	{"msg.TeamBall", roundTrip[msg.TeamBall]},
	{"msg.TeamBallReports", roundTrip[msg.TeamBallReports]},
	{"msg.RoleState", roundTrip[msg.RoleState]},
	{"msg.BehaviourPath", roundTrip[msg.BehaviourPath]},
	{"msg.SearchState", roundTrip[msg.SearchState]},
	{"msg.TeamOut", roundTrip[msg.TeamOut]},
	{"msg.GameControl", roundTrip[msg.GameControl]},
	{"msg.Teammates", roundTrip[msg.Teammates]},
	{"msg.Obstacles", roundTrip[msg.Obstacles]},
}

func TestCodecRoundTripBitExact(t *testing.T) {
	cases := append(slices.Clone(entryTypes), []struct {
		name string
		test func(*testing.T, uint64)
	}{
		{"strings and every kind", roundTrip[withStrings]},
		{"string", roundTrip[string]},
		{"float64", roundTrip[float64]},
		{"float32", roundTrip[float32]},
		{"bool", roundTrip[bool]},
		{"int", roundTrip[int]},
		{"[4]hal.Vec2", roundTrip[[4]hal.Vec2]},
	}...)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.test(t, uint64(i)) })
	}
}

// TestEveryEntryTypeIsCovered finds every blackboard.NewKey in package msg
// and checks that its type is in entryTypes.
func TestEveryEntryTypeIsCovered(t *testing.T) {
	files, err := filepath.Glob("../../msg/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no msg sources: %v", err)
	}
	covered := map[string]bool{}
	for _, e := range entryTypes {
		covered[e.name] = true
	}
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			ix, ok := n.(*ast.IndexExpr)
			if !ok {
				return true
			}
			if sel, ok := ix.X.(*ast.SelectorExpr); !ok || sel.Sel.Name != "NewKey" {
				return true
			}
			var name string
			switch x := ix.Index.(type) {
			case *ast.Ident:
				name = "msg." + x.Name
			case *ast.SelectorExpr:
				name = x.X.(*ast.Ident).Name + "." + x.Sel.Name
			default:
				t.Errorf("%s: unexpected key type expression", fset.Position(ix.Pos()))
				return true
			}
			found++
			if !covered[name] {
				t.Errorf("%s: entry type %s has no round-trip case in entryTypes", fset.Position(ix.Pos()), name)
			}
			return true
		})
	}
	if found < 20 {
		t.Fatalf("found only %d NewKey calls in msg", found)
	}
}

func TestCodecRejects(t *testing.T) {
	if _, err := codec.NewCodec[struct{ P *int }](); err == nil {
		t.Error("NewCodec accepted a pointer field")
	}
	if _, err := codec.NewCodec[[]float64](); err == nil {
		t.Error("NewCodec accepted a slice")
	}
	c, err := codec.NewCodec[hal.Sonar]()
	if err != nil {
		t.Fatal(err)
	}
	v := hal.Sonar{Left: 1, LeftValid: true}
	buf := c.Append(nil, &v)
	buf[16] = 2 // LeftValid
	if _, err := c.Decode(buf, &v); err == nil || !strings.Contains(err.Error(), "bool") {
		t.Errorf("decoding bool byte 2: err = %v, want an invalid bool", err)
	}
	other, _ := codec.NewCodec[hal.BodyAngles]()
	l := other.Layout()
	if err := c.Check(&l); err == nil {
		t.Error("Check accepted hal.BodyAngles' layout for hal.Sonar")
	}
	l = c.Layout()
	if err := c.Check(&l); err != nil {
		t.Errorf("Check of its own layout: %v", err)
	}
}

func TestLayoutDescribesFields(t *testing.T) {
	c, err := codec.NewCodec[hal.Sonar]()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(c.Layout())
	want := `{"kind":"struct","fields":[{"name":"Left","kind":"float64"},{"name":"Right","kind":"float64"},{"name":"LeftValid","kind":"bool"},{"name":"RightValid","kind":"bool"}]}`
	if string(got) != want {
		t.Errorf("layout\n got %s\nwant %s", got, want)
	}
}

// robot is a board with every msg entry, written by the modules that write
// them on a robot.
type robot struct {
	board *blackboard.Board
	set   []func(rng *rand.Rand)
	vals  map[string]any
}

func addEntry[T any](r *robot, writer string, k blackboard.Key[T]) {
	w, err := blackboard.Write(r.board, writer, k)
	if err != nil {
		panic(err)
	}
	r.set = append(r.set, func(rng *rand.Rand) {
		var v T
		fill(rng, reflect.ValueOf(&v).Elem())
		w.Set(v)
		r.vals[k.Name()] = v
	})
}

func newRobot() *robot {
	r := &robot{board: blackboard.New(), vals: map[string]any{}}
	addEntry(r, "hal", msg.TickKey)
	addEntry(r, "hal", msg.JointsKey)
	addEntry(r, "hal", msg.IMUKey)
	addEntry(r, "hal", msg.BodyAnglesKey)
	addEntry(r, "hal", msg.SonarKey)
	addEntry(r, "hal", msg.FSRKey)
	addEntry(r, "hal", msg.ButtonsKey)
	addEntry(r, "hal", msg.BatteryKey)
	addEntry(r, "hal", msg.BaseKey)
	addEntry(r, "hal", msg.VisionKey)
	addEntry(r, "hal", msg.GameStateKey)
	addEntry(r, "hal", msg.GroundTruthKey)
	addEntry(r, "motion", msg.JointCommandKey)
	addEntry(r, "behaviour", msg.LEDsKey)
	addEntry(r, "behaviour", msg.BaseVelocityKey)
	addEntry(r, "perception", msg.BodyStateKey)
	addEntry(r, "perception", msg.BallKey)
	addEntry(r, "perception", msg.RobotPoseKey)
	addEntry(r, "perception", msg.BodySensorsKey)
	addEntry(r, "perception", msg.TeamBallKey)
	addEntry(r, "behaviour", msg.MotionRequestKey)
	addEntry(r, "motion", msg.MotionStateKey)
	// Read by perception, written by nobody.
	if _, err := blackboard.ReadOptional(r.board, "perception", msg.TeamBallReportsKey); err != nil {
		panic(err)
	}
	return r
}

// tick writes every entry but the last skip ones with random values.
func (r *robot) tick(rng *rand.Rand, seq uint64, skip int) {
	r.board.BeginTick(seq, time.Duration(seq)*10*time.Millisecond)
	for _, f := range r.set[:len(r.set)-skip] {
		f(rng)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := newRobot()
	s := codec.SchemaOf(r.board)
	if s.Len() != 23 {
		t.Fatalf("schema has %d entries, want 23", s.Len())
	}
	rng := rand.New(rand.NewPCG(1, 2))
	r.tick(rng, 1, 0)
	r.tick(rng, 2, 1) // motion.state keeps tick 1's value
	rec := s.AppendRecord(nil)

	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := codec.ParseSchema(js)
	if err != nil {
		t.Fatal(err)
	}
	if !parsed.Equal(s) {
		t.Fatal("parsed schema differs from the board's")
	}
	var split, split2 codec.Record
	if err := s.Split(rec, &split); err != nil {
		t.Fatal(err)
	}
	if err := parsed.Split(rec, &split2); err != nil {
		t.Fatal(err)
	}
	if split.Tick != 2 || split.Time != 20*time.Millisecond {
		t.Errorf("record tick %d at %v, want 2 at 20ms", split.Tick, split.Time)
	}
	for i, e := range s.Entries() {
		re := split.Entries[i]
		if !bytes.Equal(re.Value, split2.Entries[i].Value) || re.Tick != split2.Entries[i].Tick {
			t.Errorf("%s: the parsed schema splits differently", e.Name)
		}
		wantTick := uint64(2)
		switch e.Name {
		case "motion.state":
			wantTick = 1
		case "teamcomm.ball_reports":
			wantTick = 0
		}
		if re.Tick != wantTick || re.Time != time.Duration(wantTick)*10*time.Millisecond {
			t.Errorf("%s: meta tick %d at %v, want %d", e.Name, re.Tick, re.Time, wantTick)
		}
		v, err := s.Decode(i, re.Value)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := r.vals[e.Name]
		if !ok {
			want = reflect.Zero(reflect.TypeOf(v)).Interface()
		}
		wv, gv := reflect.New(reflect.TypeOf(want)).Elem(), reflect.New(reflect.TypeOf(v)).Elem()
		wv.Set(reflect.ValueOf(want))
		gv.Set(reflect.ValueOf(v))
		if p := bitDiff(wv, gv, e.Name); p != "" {
			t.Errorf("%s not bit-identical after the record round trip", p)
		}
	}
	if _, err := parsed.Decode(0, split.Entries[0].Value); err == nil {
		t.Error("a parsed schema decoded a value without Go types")
	}
	for _, cut := range []int{0, 15, 16, 100, len(rec) - 1} {
		if err := s.Split(rec[:cut], &split); err == nil {
			t.Errorf("split of %d of %d bytes succeeded", cut, len(rec))
		}
	}
	if err := s.Split(append(rec, 0), &split); err == nil {
		t.Error("split of a record with a trailing byte succeeded")
	}
}

func TestSchemaWithStrings(t *testing.T) {
	b := blackboard.New()
	w, err := blackboard.Write(b, "m", blackboard.NewKey[withStrings]("m.strings"))
	if err != nil {
		t.Fatal(err)
	}
	w2, _ := blackboard.Write(b, "m", blackboard.NewKey[float64]("m.after"))
	s := codec.SchemaOf(b)
	js, _ := json.Marshal(s)
	parsed, err := codec.ParseSchema(js)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 20 {
		var v withStrings
		fill(rng, reflect.ValueOf(&v).Elem())
		b.BeginTick(uint64(i+1), 0)
		w.Set(v)
		w2.Set(float64(i))
		rec := s.AppendRecord(nil)
		var r codec.Record
		if err := parsed.Split(rec, &r); err != nil {
			t.Fatal(err)
		}
		got, err := s.Decode(0, r.Entries[0].Value)
		if err != nil {
			t.Fatal(err)
		}
		g := got.(withStrings)
		if p := bitDiff(reflect.ValueOf(&v).Elem(), reflect.ValueOf(&g).Elem(), "v"); p != "" {
			t.Fatalf("%s differs", p)
		}
		if f, _ := s.Decode(1, r.Entries[1].Value); f.(float64) != float64(i) {
			t.Fatalf("entry after the strings: %v, want %d", f, i)
		}
	}
}

func TestComparer(t *testing.T) {
	r := newRobot()
	s := codec.SchemaOf(r.board)
	rng := rand.New(rand.NewPCG(5, 6))
	r.tick(rng, 7, 0)
	rec := s.AppendRecord(nil)
	writers := []string{"hal", "perception", "behaviour", "motion"}
	c := codec.NewComparer(s, s, writers)
	if c.Compared() != 23 || len(c.Extra()) != 0 {
		t.Fatalf("compares %d entries, extra %v", c.Compared(), c.Extra())
	}
	if d, err := c.Compare(rec, rec); d != nil || err != nil {
		t.Fatalf("identical records: %v, %v", d, err)
	}
	var split codec.Record
	if err := s.Split(rec, &split); err != nil {
		t.Fatal(err)
	}
	valueAt := func(name string) int {
		i := s.Index(name)
		v := split.Entries[i].Value
		for o := 0; o+len(v) <= len(rec); o++ {
			if &rec[o] == &v[0] {
				return o
			}
		}
		t.Fatalf("%s: value not inside the record", name)
		return 0
	}
	cases := []struct {
		name   string
		change func(want, got []byte)
		entry  string
		field  string
		others []string
	}{
		{"one joint command", func(_, b []byte) {
			o := valueAt("cmd.joints") + 3*8
			binary.LittleEndian.PutUint64(b[o:], math.Float64bits(0.5)^binary.LittleEndian.Uint64(b[o:]))
		}, "cmd.joints", "Angle[3]", nil},
		{"negative zero", func(a, b []byte) {
			o := valueAt("cmd.joints") + 25*8 + 24*8 // Stiffness[24]
			binary.LittleEndian.PutUint64(a[o:], math.Float64bits(0))
			binary.LittleEndian.PutUint64(b[o:], math.Float64bits(math.Copysign(0, -1)))
		}, "cmd.joints", "Stiffness[24]", nil},
		{"NaN payload", func(a, b []byte) {
			o := valueAt("hal.imu") + 8 // Gyro.Y
			binary.LittleEndian.PutUint64(a[o:], 0x7ff8000000000001)
			binary.LittleEndian.PutUint64(b[o:], 0x7ff8000000000002)
		}, "hal.imu", "Gyro.Y", nil},
		{"causal order: hal, then motion, not registration order", func(_, b []byte) {
			b[valueAt("motion.state")+1] ^= 1 // Interruptible
			b[valueAt("hal.buttons")] ^= 4
		}, "hal.buttons", "", []string{"motion.state"}},
		{"writer order: perception before motion's cmd.joints", func(_, b []byte) {
			b[valueAt("cmd.joints")] ^= 1
			b[valueAt("perception.body")] ^= 1
		}, "perception.body", "Angles.Roll", []string{"cmd.joints"}},
		{"vision observation", func(_, b []byte) {
			o := valueAt("hal.vision") + 1 + 8 + 5*75 + 3 // Obs[5].Pos.X (an Observation is 75 bytes)
			b[o] ^= 0x80
		}, "hal.vision", "Obs[5].Pos.X", nil},
		{"meta only", func(_, b []byte) {
			o := valueAt("perception.pose") - 16
			b[o]++
		}, "perception.pose", "meta.tick", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, got := slices.Clone(rec), slices.Clone(rec)
			tc.change(want, got)
			d, err := c.Compare(want, got)
			if err != nil {
				t.Fatal(err)
			}
			if d == nil {
				t.Fatal("no difference found")
			}
			if d.Entry != tc.entry || d.Field != tc.field || !slices.Equal(d.Others, tc.others) || d.Tick != 7 {
				t.Fatalf("difference %+v, want %s %q others %v at tick 7", d, tc.entry, tc.field, tc.others)
			}
			if d.Want == d.Got {
				t.Fatalf("want and got print alike: %s", d)
			}
			t.Log(d)
		})
	}
}

func TestComparerSchemasDiffer(t *testing.T) {
	rec := newRobot()
	want := codec.SchemaOf(rec.board)
	rng := rand.New(rand.NewPCG(8, 9))
	rec.tick(rng, 3, 0)
	wantRec := want.AppendRecord(nil)

	// The replay has an extra entry and lacks motion.state.
	rep := blackboard.New()
	_, _ = blackboard.Write(rep, "hal", blackboard.NewKey[hal.GroundTruth]("hal.extra"))
	w, _ := blackboard.Write(rep, "hal", msg.TickKey)
	rep.BeginTick(3, 30*time.Millisecond)
	w.Set(rec.vals["hal.tick"].(hal.Tick))
	got := codec.SchemaOf(rep)
	c := codec.NewComparer(want, got, []string{"hal"})
	if c.Compared() != 1 || !slices.Equal(c.Extra(), []string{"hal.extra"}) {
		t.Fatalf("compared %d, extra %v", c.Compared(), c.Extra())
	}
	d, err := c.Compare(wantRec, got.AppendRecord(nil))
	if err != nil {
		t.Fatal(err)
	}
	// teamcomm.ball_reports was never written: its absence is no difference.
	if d == nil || d.Entry != "hal.joints" || d.Field != "entry" || len(d.Others) != 20 || slices.Contains(d.Others, "teamcomm.ball_reports") {
		t.Fatalf("difference %+v, want hal.joints missing and 20 others", d)
	}
}

func TestZeroAllocs(t *testing.T) {
	r := newRobot()
	s := codec.SchemaOf(r.board)
	rng := rand.New(rand.NewPCG(1, 1))
	r.tick(rng, 1, 0)
	buf := s.AppendRecord(nil)
	other := slices.Clone(buf)
	c := codec.NewComparer(s, s, nil)
	var split codec.Record
	jc, _ := codec.NewCodec[hal.JointSensors]()
	var js hal.JointSensors
	enc := jc.Append(nil, &js)
	cases := []struct {
		name string
		f    func()
	}{
		{"AppendRecord", func() { buf = s.AppendRecord(buf[:0]) }},
		{"Split", func() { _ = s.Split(buf, &split) }},
		{"Compare", func() { _, _ = c.Compare(buf, other) }},
		{"Codec.Append", func() { enc = jc.Append(enc[:0], &js) }},
		{"Codec.Decode", func() { _, _ = jc.Decode(enc, &js) }},
	}
	for _, tc := range cases {
		if n := testing.AllocsPerRun(200, tc.f); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", tc.name, n)
		}
	}
	// The records compared were equal: the comparison was the full one.
	if d, _ := c.Compare(buf, other); d != nil {
		t.Fatalf("records differ: %v", d)
	}
}

func BenchmarkAppendRecord(b *testing.B) {
	r := newRobot()
	s := codec.SchemaOf(r.board)
	r.tick(rand.New(rand.NewPCG(1, 1)), 1, 0)
	buf := s.AppendRecord(nil)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = s.AppendRecord(buf[:0])
	}
}

func BenchmarkCompareEqual(b *testing.B) {
	r := newRobot()
	s := codec.SchemaOf(r.board)
	r.tick(rand.New(rand.NewPCG(1, 1)), 1, 0)
	buf := s.AppendRecord(nil)
	other := slices.Clone(buf)
	c := codec.NewComparer(s, s, nil)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = c.Compare(buf, other)
	}
}

func BenchmarkCodec(b *testing.B) {
	b.Run("JointSensors", benchCodec[hal.JointSensors])
	b.Run("Vision", benchCodec[hal.Vision])
	b.Run("LEDs", benchCodec[hal.LEDs])
}

func benchCodec[T any](b *testing.B) {
	c, _ := codec.NewCodec[T]()
	var v T
	fill(rand.New(rand.NewPCG(1, 1)), reflect.ValueOf(&v).Elem())
	buf := c.Append(nil, &v)
	b.Run("Append", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for b.Loop() {
			buf = c.Append(buf[:0], &v)
		}
	})
	b.Run("Decode", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for b.Loop() {
			_, _ = c.Decode(buf, &v)
		}
	})
}

func TestParseSchemaRejects(t *testing.T) {
	cases := []struct {
		name, json, want string
	}{
		{"not JSON", `{`, "decoding schema"},
		{"version", `{"version":2,"entries":[]}`, "version 2"},
		{"unknown kind", `{"version":1,"entries":[{"name":"a","layout":{"kind":"pointer"}}]}`, `entry "a": layout: unknown kind "pointer"`},
		{"array without element", `{"version":1,"entries":[{"name":"a","layout":{"kind":"array","len":3}}]}`, "without element"},
		{"huge array", `{"version":1,"entries":[{"name":"a","layout":{"kind":"array","len":1000000000,"elem":{"kind":"bool"}}}]}`, "length"},
		{"duplicate entry", `{"version":1,"entries":[{"name":"a","layout":{"kind":"bool"}},{"name":"a","layout":{"kind":"bool"}}]}`, "twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := codec.ParseSchema([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
