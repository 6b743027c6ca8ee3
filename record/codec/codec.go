// Package codec is the binary value codec of recordings: a bit-exact
// encoding of every blackboard entry's value, compiled once per type from its reflect.Type, and
// records of a whole board built from it (see Schema). Recording, replay and
// the replay's comparison are built on it.
//
// Encoding of a value, field by field in declaration order, array elements
// in index order, with no padding and no type information (that is in the
// Schema):
//
//	bool                      1 byte, 0 or 1
//	int8, uint8               1 byte
//	int16, uint16             2 bytes, little-endian
//	int32, uint32             4 bytes, little-endian
//	int64, uint64             8 bytes, little-endian
//	int, uint, uintptr        8 bytes, little-endian (64 bits on every platform)
//	float32                   math.Float32bits, 4 bytes little-endian
//	float64                   math.Float64bits, 8 bytes little-endian
//	complex64, complex128     real part, then imaginary part, as above
//	string                    uvarint length, then the bytes
//
// Floats are copied as bit patterns, so NaN payloads and -0 survive, and two
// values encode to the same bytes exactly when they are bit-identical.
//
// Encoding and decoding read and write the value's memory directly through
// offsets computed from reflect once per type (package unsafe). This is
// sound because entry types are checked to be plain values (see plain): no
// pointers other than strings' data, which are only ever read, or written
// as whole strings.

package codec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/robotd/robotd/blackboard"
)

// kind is a primitive kind of the encoding, or a composite of ops.
type kind uint8

const (
	kInvalid kind = iota
	kBool
	kInt8
	kInt16
	kInt32
	kInt64
	kInt
	kUint8
	kUint16
	kUint32
	kUint64
	kUint
	kUintptr
	kFloat32
	kFloat64
	kComplex64
	kComplex128
	kString
	// kArray and kStruct appear in Field only.
	kArray
	kStruct
	// kRepeat is an op that repeats its sub-ops n times.
	kRepeat
)

func (k kind) String() string {
	switch k {
	case kBool:
		return "bool"
	case kInt8:
		return "int8"
	case kInt16:
		return "int16"
	case kInt32:
		return "int32"
	case kInt64:
		return "int64"
	case kInt:
		return "int"
	case kUint8:
		return "uint8"
	case kUint16:
		return "uint16"
	case kUint32:
		return "uint32"
	case kUint64:
		return "uint64"
	case kUint:
		return "uint"
	case kUintptr:
		return "uintptr"
	case kFloat32:
		return "float32"
	case kFloat64:
		return "float64"
	case kComplex64:
		return "complex64"
	case kComplex128:
		return "complex128"
	case kString:
		return "string"
	case kArray:
		return "array"
	case kStruct:
		return "struct"
	}
	return "invalid"
}

func parseKind(s string) kind {
	for k := kBool; k <= kStruct; k++ {
		if k.String() == s {
			return k
		}
	}
	return kInvalid
}

// wire is the encoded size of one value of a primitive kind; 0 for strings.
func (k kind) wire() int {
	switch k {
	case kBool, kInt8, kUint8:
		return 1
	case kInt16, kUint16:
		return 2
	case kInt32, kUint32, kFloat32:
		return 4
	case kInt64, kInt, kUint64, kUint, kUintptr, kFloat64, kComplex64:
		return 8
	case kComplex128:
		return 16
	}
	return 0
}

// mem is the in-memory size of one value of a primitive kind.
func (k kind) mem() uintptr {
	switch k {
	case kInt:
		return unsafe.Sizeof(int(0))
	case kUint:
		return unsafe.Sizeof(uint(0))
	case kUintptr:
		return unsafe.Sizeof(uintptr(0))
	case kString:
		return unsafe.Sizeof("")
	}
	return uintptr(k.wire())
}

// verbatim reports whether values of k are encoded as a copy of their
// memory on this machine, so that runs of them can be copied whole.
func (k kind) verbatim() bool {
	return nativeLittleEndian() && k != kString && uintptr(k.wire()) == k.mem()
}

func nativeLittleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

func kindOf(t reflect.Type) kind {
	switch t.Kind() {
	case reflect.Bool:
		return kBool
	case reflect.Int8:
		return kInt8
	case reflect.Int16:
		return kInt16
	case reflect.Int32:
		return kInt32
	case reflect.Int64:
		return kInt64
	case reflect.Int:
		return kInt
	case reflect.Uint8:
		return kUint8
	case reflect.Uint16:
		return kUint16
	case reflect.Uint32:
		return kUint32
	case reflect.Uint64:
		return kUint64
	case reflect.Uint:
		return kUint
	case reflect.Uintptr:
		return kUintptr
	case reflect.Float32:
		return kFloat32
	case reflect.Float64:
		return kFloat64
	case reflect.Complex64:
		return kComplex64
	case reflect.Complex128:
		return kComplex128
	case reflect.String:
		return kString
	case reflect.Array:
		return kArray
	case reflect.Struct:
		return kStruct
	}
	return kInvalid
}

// Field is the binary layout of a value: a primitive, an array or a struct.
// It is what a Schema says about an entry's type, so that a record can be
// split and its values told apart without the Go types that wrote it.
type Field struct {
	// Name is the struct field's name; empty for a whole value and for an
	// array's element.
	Name string `json:"name,omitempty"`
	// Kind is one of bool, int8, int16, int32, int64, int, uint8, uint16,
	// uint32, uint64, uint, uintptr, float32, float64, complex64, complex128,
	// string, array and struct.
	Kind string `json:"kind"`
	// Len is an array's length.
	Len int `json:"len,omitempty"`
	// Elem is an array's element.
	Elem *Field `json:"elem,omitempty"`
	// Fields are a struct's fields, in declaration order.
	Fields []Field `json:"fields,omitempty"`
}

// Equal reports whether f and g describe the same layout, names included.
func (f *Field) Equal(g *Field) bool {
	if f.Name != g.Name || f.Kind != g.Kind || f.Len != g.Len || len(f.Fields) != len(g.Fields) {
		return false
	}
	if (f.Elem == nil) != (g.Elem == nil) || f.Elem != nil && !f.Elem.Equal(g.Elem) {
		return false
	}
	for i := range f.Fields {
		if !f.Fields[i].Equal(&g.Fields[i]) {
			return false
		}
	}
	return true
}

// fieldOf describes t, which plain has accepted.
func fieldOf(t reflect.Type, name string) Field {
	f := Field{Name: name, Kind: kindOf(t).String()}
	switch t.Kind() {
	case reflect.Array:
		e := fieldOf(t.Elem(), "")
		f.Len, f.Elem = t.Len(), &e
	case reflect.Struct:
		f.Fields = make([]Field, t.NumField())
		for i := range t.NumField() {
			sf := t.Field(i)
			f.Fields[i] = fieldOf(sf.Type, sf.Name)
		}
	}
	return f
}

// op is one step of a compiled codec: n primitives of kind k stored
// contiguously at off, or (kRepeat) n elements stride apart at off, each
// encoded by sub.
type op struct {
	k      kind
	off    uintptr
	n      int
	stride uintptr
	sub    []op
	// verb: the run is encoded as a copy of its memory (k.verbatim()).
	verb bool
}

// codec encodes and decodes one type.
type codec struct {
	typ   reflect.Type // nil for a codec compiled from a Field
	field Field
	ops   []op
	// fixed is the encoded size, or -1 when it varies (strings).
	fixed int
}

// compileType compiles the codec of t.
func compileType(t reflect.Type) (*codec, error) {
	if err := blackboard.Plain(t); err != nil {
		return nil, err
	}
	c := &codec{typ: t, field: fieldOf(t, "")}
	c.ops = compileOps(t, 0, nil)
	c.fixed = fixedSize(c.ops)
	return c, nil
}

func compileOps(t reflect.Type, off uintptr, ops []op) []op {
	switch k := kindOf(t); k {
	case kArray:
		if t.Len() == 0 {
			return ops
		}
		sub := compileOps(t.Elem(), 0, nil)
		if len(sub) == 0 {
			return ops // elements encode to nothing (empty structs)
		}
		if len(sub) == 1 && sub[0].k != kRepeat && sub[0].off == 0 && uintptr(sub[0].n)*sub[0].k.mem() == t.Elem().Size() {
			// Contiguous primitives: one run.
			return appendOp(ops, op{k: sub[0].k, off: off, n: t.Len() * sub[0].n, verb: sub[0].verb})
		}
		return append(ops, op{k: kRepeat, off: off, n: t.Len(), stride: t.Elem().Size(), sub: sub})
	case kStruct:
		for i := range t.NumField() {
			f := t.Field(i)
			ops = compileOps(f.Type, off+f.Offset, ops)
		}
		return ops
	default:
		return appendOp(ops, op{k: k, off: off, n: 1, verb: k.verbatim()})
	}
}

// appendOp appends o, merging it into the last op when it continues that
// op's run of primitives in memory.
func appendOp(ops []op, o op) []op {
	if n := len(ops); n > 0 {
		last := &ops[n-1]
		if last.k == o.k && last.k != kRepeat && o.off == last.off+uintptr(last.n)*last.k.mem() {
			last.n += o.n
			return ops
		}
	}
	return append(ops, o)
}

// maxLen bounds the number of values of a layout read from a Schema, so
// that a corrupt schema cannot make sizing a record take forever.
const maxLen = 1 << 28

// compileField compiles the ops of a layout read from a Schema: enough to
// size and compare encoded values, not to reach memory.
func compileField(f *Field) ([]op, error) {
	switch k := parseKind(f.Kind); k {
	case kInvalid:
		return nil, fmt.Errorf("unknown kind %q", f.Kind)
	case kArray:
		if f.Elem == nil || f.Len < 0 || f.Len > maxLen {
			return nil, fmt.Errorf("array without element or with length %d outside 0..%d", f.Len, maxLen)
		}
		if f.Len == 0 {
			return nil, nil
		}
		sub, err := compileField(f.Elem)
		if err != nil {
			return nil, fmt.Errorf("[]: %w", err)
		}
		if len(sub) == 0 {
			return nil, nil
		}
		if len(sub) == 1 && sub[0].n > maxLen/f.Len {
			return nil, fmt.Errorf("array of %d·%d values is too long", f.Len, sub[0].n)
		}
		if len(sub) == 1 && sub[0].k != kRepeat {
			return []op{{k: sub[0].k, n: f.Len * sub[0].n}}, nil
		}
		return []op{{k: kRepeat, n: f.Len, sub: sub}}, nil
	case kStruct:
		var ops []op
		for i := range f.Fields {
			sub, err := compileField(&f.Fields[i])
			if err != nil {
				return nil, fmt.Errorf(".%s: %w", f.Fields[i].Name, err)
			}
			for _, o := range sub {
				if n := len(ops); n > 0 && o.k != kRepeat && ops[n-1].k == o.k {
					ops[n-1].n += o.n
					continue
				}
				ops = append(ops, o)
			}
		}
		return ops, nil
	default:
		return []op{{k: k, n: 1}}, nil
	}
}

// fixedSize is the encoded size of ops, or -1 if it contains strings.
func fixedSize(ops []op) int {
	n := 0
	for _, o := range ops {
		switch o.k {
		case kString:
			return -1
		case kRepeat:
			s := fixedSize(o.sub)
			if s < 0 {
				return -1
			}
			n += o.n * s
		default:
			n += o.n * o.k.wire()
		}
	}
	return n
}

// appendOps encodes the value at p.
func appendOps(dst []byte, ops []op, p unsafe.Pointer) []byte {
	for i := range ops {
		o := &ops[i]
		q := unsafe.Add(p, o.off)
		switch o.k {
		case kRepeat:
			for j := range o.n {
				dst = appendOps(dst, o.sub, unsafe.Add(q, uintptr(j)*o.stride))
			}
		case kString:
			for j := range o.n {
				s := *(*string)(unsafe.Add(q, uintptr(j)*o.k.mem()))
				dst = binary.AppendUvarint(dst, uint64(len(s)))
				dst = append(dst, s...)
			}
		default:
			dst = appendPrims(dst, o.k, o.verb, q, o.n)
		}
	}
	return dst
}

// appendPrims encodes n primitives of kind k stored contiguously at p.
func appendPrims(dst []byte, k kind, verb bool, p unsafe.Pointer, n int) []byte {
	if verb {
		// The little-endian encoding of these kinds is their memory (for
		// floats: math.Float64bits and Float32bits, which are exactly the
		// memory's bits; bools are 0 or 1 in memory).
		return append(dst, unsafe.Slice((*byte)(p), n*k.wire())...)
	}
	le := binary.LittleEndian
	for j := range n {
		q := unsafe.Add(p, uintptr(j)*k.mem())
		switch k {
		case kBool:
			b := byte(0)
			if *(*bool)(q) {
				b = 1
			}
			dst = append(dst, b)
		case kInt8, kUint8:
			dst = append(dst, *(*uint8)(q))
		case kInt16, kUint16:
			dst = le.AppendUint16(dst, *(*uint16)(q))
		case kInt32, kUint32:
			dst = le.AppendUint32(dst, *(*uint32)(q))
		case kInt64, kUint64:
			dst = le.AppendUint64(dst, *(*uint64)(q))
		case kInt:
			dst = le.AppendUint64(dst, uint64(int64(*(*int)(q))))
		case kUint:
			dst = le.AppendUint64(dst, uint64(*(*uint)(q)))
		case kUintptr:
			dst = le.AppendUint64(dst, uint64(*(*uintptr)(q)))
		case kFloat32:
			dst = le.AppendUint32(dst, math.Float32bits(*(*float32)(q)))
		case kFloat64:
			dst = le.AppendUint64(dst, math.Float64bits(*(*float64)(q)))
		case kComplex64:
			c := *(*complex64)(q)
			dst = le.AppendUint32(dst, math.Float32bits(real(c)))
			dst = le.AppendUint32(dst, math.Float32bits(imag(c)))
		case kComplex128:
			c := *(*complex128)(q)
			dst = le.AppendUint64(dst, math.Float64bits(real(c)))
			dst = le.AppendUint64(dst, math.Float64bits(imag(c)))
		}
	}
	return dst
}

var errShort = errors.New("value truncated")

// decodeOps decodes src into the value at p and returns the rest of src.
func decodeOps(src []byte, ops []op, p unsafe.Pointer) ([]byte, error) {
	var err error
	for i := range ops {
		o := &ops[i]
		q := unsafe.Add(p, o.off)
		switch o.k {
		case kRepeat:
			for j := range o.n {
				if src, err = decodeOps(src, o.sub, unsafe.Add(q, uintptr(j)*o.stride)); err != nil {
					return nil, err
				}
			}
		case kString:
			for j := range o.n {
				l, n := binary.Uvarint(src)
				if n <= 0 || l > uint64(len(src)-n) {
					return nil, fmt.Errorf("string: %w", errShort)
				}
				*(*string)(unsafe.Add(q, uintptr(j)*o.k.mem())) = string(src[n : n+int(l)])
				src = src[n+int(l):]
			}
		default:
			if src, err = decodePrims(src, o.k, o.verb, q, o.n); err != nil {
				return nil, err
			}
		}
	}
	return src, nil
}

func decodePrims(src []byte, k kind, verb bool, p unsafe.Pointer, n int) ([]byte, error) {
	size := n * k.wire()
	if len(src) < size {
		return nil, fmt.Errorf("%s: %w", k, errShort)
	}
	if k == kBool {
		for _, b := range src[:size] {
			if b > 1 {
				return nil, fmt.Errorf("bool: invalid byte %#x", b)
			}
		}
	}
	if verb {
		copy(unsafe.Slice((*byte)(p), size), src)
		return src[size:], nil
	}
	le := binary.LittleEndian
	s := src
	for j := range n {
		q := unsafe.Add(p, uintptr(j)*k.mem())
		switch k {
		case kBool:
			*(*bool)(q) = s[0] == 1
		case kInt8, kUint8:
			*(*uint8)(q) = s[0]
		case kInt16, kUint16:
			*(*uint16)(q) = le.Uint16(s)
		case kInt32, kUint32:
			*(*uint32)(q) = le.Uint32(s)
		case kInt64, kUint64:
			*(*uint64)(q) = le.Uint64(s)
		case kInt:
			*(*int)(q) = int(int64(le.Uint64(s)))
		case kUint:
			*(*uint)(q) = uint(le.Uint64(s))
		case kUintptr:
			*(*uintptr)(q) = uintptr(le.Uint64(s))
		case kFloat32:
			*(*float32)(q) = math.Float32frombits(le.Uint32(s))
		case kFloat64:
			*(*float64)(q) = math.Float64frombits(le.Uint64(s))
		case kComplex64:
			*(*complex64)(q) = complex(math.Float32frombits(le.Uint32(s)), math.Float32frombits(le.Uint32(s[4:])))
		case kComplex128:
			*(*complex128)(q) = complex(math.Float64frombits(le.Uint64(s)), math.Float64frombits(le.Uint64(s[8:])))
		}
		s = s[k.wire():]
	}
	return src[size:], nil
}

// sizeOps returns the encoded size of the value at the start of src.
func sizeOps(src []byte, ops []op) (int, error) {
	n := 0
	for i := range ops {
		o := &ops[i]
		switch o.k {
		case kRepeat:
			for range o.n {
				m, err := sizeOps(src[n:], o.sub)
				if err != nil {
					return 0, err
				}
				n += m
			}
		case kString:
			for range o.n {
				l, m := binary.Uvarint(src[n:])
				if m <= 0 || l > uint64(len(src)-n-m) {
					return 0, fmt.Errorf("string: %w", errShort)
				}
				n += m + int(l)
			}
		default:
			n += o.n * o.k.wire()
			if n > len(src) {
				return 0, fmt.Errorf("%s: %w", o.k, errShort)
			}
		}
	}
	return n, nil
}

// size returns the encoded size of the value at the start of src.
func (c *codec) size(src []byte) (int, error) {
	if c.fixed >= 0 {
		if len(src) < c.fixed {
			return 0, errShort
		}
		return c.fixed, nil
	}
	return sizeOps(src, c.ops)
}

// Codec encodes and decodes values of type T bit-exactly (see the encoding
// above). It is compiled once and safe for concurrent use; Append and Decode
// do not allocate, except Decode for strings.
type Codec[T any] struct{ c *codec }

// NewCodec compiles the codec of T. It fails if T is not a plain value type.
func NewCodec[T any]() (*Codec[T], error) {
	c, err := compileType(reflect.TypeFor[T]())
	if err != nil {
		return nil, fmt.Errorf("codec: codec for %s: %w", reflect.TypeFor[T](), err)
	}
	return &Codec[T]{c: c}, nil
}

// Layout returns T's layout.
func (c *Codec[T]) Layout() Field { return c.c.field }

// Size returns the encoded size of every value of T, or -1 if it varies
// (T contains strings).
func (c *Codec[T]) Size() int { return c.c.fixed }

// Append appends the encoding of *v to dst.
func (c *Codec[T]) Append(dst []byte, v *T) []byte {
	if c.c.fixed > 0 {
		dst = slices.Grow(dst, c.c.fixed)
	}
	return appendOps(dst, c.c.ops, unsafe.Pointer(v))
}

// Decode decodes the value at the start of src into *v and returns the
// number of bytes it took. On an error *v may be partly written.
func (c *Codec[T]) Decode(src []byte, v *T) (int, error) {
	rest, err := decodeOps(src, c.c.ops, unsafe.Pointer(v))
	if err != nil {
		return 0, fmt.Errorf("codec: decoding %s: %w", c.c.typ, err)
	}
	return len(src) - len(rest), nil
}

// Check reports whether values recorded with layout f can be decoded as T:
// nil if f is T's layout, else an error that says how they differ.
func (c *Codec[T]) Check(f *Field) error {
	if c.c.field.Equal(f) {
		return nil
	}
	a, _ := json.Marshal(f)
	b, _ := json.Marshal(c.c.field)
	return fmt.Errorf("codec: layout %s is not %s's layout %s", a, c.c.typ, b)
}

// SchemaVersion is the version of the record encoding a Schema describes.
const SchemaVersion = 1

// SchemaEntry describes one entry of a Schema.
type SchemaEntry struct {
	// Name is the entry's name.
	Name string `json:"name"`
	// Type is the Go type, as reflect prints it (e.g. "hal.JointSensors").
	Type string `json:"type"`
	// Writer is the module that writes it; empty if none.
	Writer string `json:"writer"`
	// Layout is the value's binary layout.
	Layout Field `json:"layout"`
}

// Schema is the layout of a board's records: its entries in registration
// order, each with its type's compiled codec. A Schema from SchemaOf is
// bound to the board and encodes records of it (AppendRecord); one decoded
// from JSON (ParseSchema) splits and compares records without the Go types.
//
// A record is, little-endian:
//
//	tick uint64, time int64 (ns)          the board's current tick
//	per entry, in schema order:
//	  tick uint64, time int64 (ns)        the value's Meta (tick 0: never written)
//	  value                               the entry's encoded value
type Schema struct {
	entries []SchemaEntry
	codecs  []*codec
	// bound is set for a schema taken from a board.
	board *blackboard.Board
	bound []blackboard.Tap
	hint  int
}

// SchemaOf describes the board's entries as they are registered now and
// binds a Schema to them, for AppendRecord. Take it once wiring is
// complete (entries registered later are not in it). Each call adds one
// reader slot to every entry (blackboard.Board.Taps), so take one per
// recorder, not one per record.
func SchemaOf(b *blackboard.Board) *Schema {
	s := &Schema{board: b}
	for _, tp := range b.Taps() {
		// Entry types passed plain at registration, so this cannot fail.
		c, err := compileType(tp.Type)
		if err != nil {
			panic(fmt.Sprintf("codec: entry %q: %v", tp.Name, err))
		}
		s.entries = append(s.entries, SchemaEntry{Name: tp.Name, Type: tp.Type.String(), Writer: tp.Writer, Layout: c.field})
		s.codecs = append(s.codecs, c)
		s.bound = append(s.bound, tp)
		if c.fixed >= 0 {
			s.hint += 16 + c.fixed
		} else {
			s.hint += 64
		}
	}
	s.hint += 16
	return s
}

type schemaJSON struct {
	Version int           `json:"version"`
	Entries []SchemaEntry `json:"entries"`
}

// MarshalJSON encodes the schema's description.
func (s *Schema) MarshalJSON() ([]byte, error) {
	return json.Marshal(schemaJSON{Version: SchemaVersion, Entries: s.entries})
}

// UnmarshalJSON decodes a schema's description (see ParseSchema).
func (s *Schema) UnmarshalJSON(data []byte) error {
	p, err := ParseSchema(data)
	if err != nil {
		return err
	}
	*s = *p
	return nil
}

// ParseSchema decodes a schema written by MarshalJSON. The result describes
// records (Split, Comparer) but is not bound to a board.
func ParseSchema(data []byte) (*Schema, error) {
	var j schemaJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("codec: decoding schema: %w", err)
	}
	if j.Version != SchemaVersion {
		return nil, fmt.Errorf("codec: schema version %d, this build reads %d", j.Version, SchemaVersion)
	}
	s := &Schema{entries: j.Entries}
	seen := make(map[string]bool, len(j.Entries))
	for i := range j.Entries {
		e := &j.Entries[i]
		if seen[e.Name] {
			return nil, fmt.Errorf("codec: schema: entry %q twice", e.Name)
		}
		seen[e.Name] = true
		ops, err := compileField(&e.Layout)
		if err != nil {
			return nil, fmt.Errorf("codec: schema: entry %q: layout: %w", e.Name, err)
		}
		s.codecs = append(s.codecs, &codec{field: e.Layout, ops: ops, fixed: fixedSize(ops)})
	}
	return s, nil
}

// Entries describes the schema's entries, in record order.
func (s *Schema) Entries() []SchemaEntry { return slices.Clone(s.entries) }

// Len returns the number of entries.
func (s *Schema) Len() int { return len(s.entries) }

// Index returns the position of the entry called name, or -1.
func (s *Schema) Index(name string) int {
	return slices.IndexFunc(s.entries, func(e SchemaEntry) bool { return e.Name == name })
}

// Equal reports whether s and o describe the same records: the same entries
// with the same names, types, writers and layouts, in the same order.
func (s *Schema) Equal(o *Schema) bool {
	return slices.EqualFunc(s.entries, o.entries, func(a, b SchemaEntry) bool {
		return a.Name == b.Name && a.Type == b.Type && a.Writer == b.Writer && a.Layout.Equal(&b.Layout)
	})
}

// AppendRecord appends a record of every entry's current value and Meta to
// dst (see Schema for the format). It does not allocate once dst has room
// for a record, except for entries holding strings. Call it between ticks
// for a record of one tick, and from one goroutine at a time. It panics on
// a schema that is not bound to a board.
func (s *Schema) AppendRecord(dst []byte) []byte {
	if s.board == nil {
		panic("codec: AppendRecord on a schema not taken from a board")
	}
	dst = slices.Grow(dst, s.hint)
	le := binary.LittleEndian
	dst = le.AppendUint64(dst, s.board.Tick())
	dst = le.AppendUint64(dst, uint64(s.board.Time()))
	for i := range s.bound {
		tp := &s.bound[i]
		m := tp.Load()
		dst = le.AppendUint64(dst, m.Tick)
		dst = le.AppendUint64(dst, uint64(m.Time))
		dst = appendOps(dst, s.codecs[i].ops, tp.Value())
	}
	return dst
}

// RecordEntry is one entry's part of a record.
type RecordEntry struct {
	// Tick and Time are the value's Meta; Tick 0 means never written.
	Tick uint64
	Time time.Duration
	// Value is the encoded value. It aliases the record.
	Value []byte
}

// Record is a record split into its entries (see Schema.Split).
type Record struct {
	// Tick and Time are the board's tick when the record was taken.
	Tick uint64
	Time time.Duration
	// Entries are in schema order.
	Entries []RecordEntry
}

// Split splits rec into r, reusing r.Entries' storage: it does not
// allocate once r has held a record of this schema.
func (s *Schema) Split(rec []byte, r *Record) error {
	le := binary.LittleEndian
	if len(rec) < 16 {
		return fmt.Errorf("codec: record of %d bytes: %w", len(rec), errShort)
	}
	r.Tick, r.Time = le.Uint64(rec), time.Duration(le.Uint64(rec[8:]))
	rec = rec[16:]
	r.Entries = slices.Grow(r.Entries[:0], len(s.entries))[:len(s.entries)]
	for i, c := range s.codecs {
		if len(rec) < 16 {
			return fmt.Errorf("codec: record truncated at entry %q: %w", s.entries[i].Name, errShort)
		}
		e := &r.Entries[i]
		e.Tick, e.Time = le.Uint64(rec), time.Duration(le.Uint64(rec[8:]))
		rec = rec[16:]
		n, err := c.size(rec)
		if err != nil {
			return fmt.Errorf("codec: record entry %q: %w", s.entries[i].Name, err)
		}
		e.Value = rec[:n:n]
		rec = rec[n:]
	}
	if len(rec) != 0 {
		return fmt.Errorf("codec: record has %d bytes after its last entry", len(rec))
	}
	return nil
}

// Decode decodes the i'th entry's encoded value into a new value of its Go
// type. It needs a schema taken from a board (the Go types); it allocates.
func (s *Schema) Decode(i int, value []byte) (any, error) {
	c := s.codecs[i]
	if c.typ == nil {
		return nil, fmt.Errorf("codec: decoding %q: the schema has no Go types (it was not taken from a board)", s.entries[i].Name)
	}
	v := reflect.New(c.typ)
	rest, err := decodeOps(value, c.ops, v.UnsafePointer())
	if err != nil {
		return nil, fmt.Errorf("codec: decoding %q: %w", s.entries[i].Name, err)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("codec: decoding %q: %d bytes left over", s.entries[i].Name, len(rest))
	}
	return v.Elem().Interface(), nil
}

// Difference is where a replayed record first differs from a recorded one.
type Difference struct {
	// Tick and Time are the recorded record's tick.
	Tick uint64
	Time time.Duration
	// Entry is the first entry that differs (in comparison order), and
	// Writer the module that writes it.
	Entry, Writer string
	// Field is the path of the first differing field inside the value
	// (e.g. "Angle[3]"; empty for a primitive value), "meta.tick" or
	// "meta.time" when only the Meta differs, or "entry" when the entry is
	// missing or has another type.
	Field string
	// Want and Got are the recorded and the replayed values of Field:
	// floats with their bits, enums with their names where the replay's
	// type has a String method.
	Want, Got string
	// Others are the other entries that differ in the same record.
	Others []string
}

func (d *Difference) String() string {
	where := d.Entry
	if d.Field != "" {
		where += " " + d.Field
	}
	s := fmt.Sprintf("tick %d (t=%v): %s (written by %s) differs: recorded %s, replayed %s", d.Tick, d.Time, where, orNone(d.Writer), d.Want, d.Got)
	if len(d.Others) > 0 {
		s += "; also differing: " + strings.Join(d.Others, ", ")
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "nobody"
	}
	return s
}

// Comparer compares records of two schemas entry by entry, matching entries
// by name: typically a recording's (want) and a replay's (got). Entries
// only the replay has are not compared (see Extra). An entry the replay
// lacks, or has with another layout, differs once the recording has
// written it.
type Comparer struct {
	want, got *Schema
	same      bool
	checks    []check
	missing   []check
	extra     []string
	wr, gr    Record
}

type check struct {
	name, writer string
	w, g         int // indexes in want and got; g -1 when missing
	why          string
}

// NewComparer returns a comparer of want's records with got's. Entries are
// compared, and the first difference reported, in the order of their
// writers in writers (e.g. "hal" then the modules in the order they run),
// then in want's order; entries whose writer is not listed come last.
func NewComparer(want, got *Schema, writers []string) *Comparer {
	c := &Comparer{want: want, got: got, same: want.Equal(got)}
	rank := func(w string) int {
		if i := slices.Index(writers, w); i >= 0 {
			return i
		}
		return len(writers)
	}
	for i, e := range want.entries {
		ch := check{name: e.Name, writer: e.Writer, w: i, g: got.Index(e.Name)}
		switch {
		case ch.g < 0:
			ch.why = "missing from the replay"
		case !e.Layout.Equal(&got.entries[ch.g].Layout):
			ch.why = fmt.Sprintf("type %s in the recording, %s in the replay", e.Type, got.entries[ch.g].Type)
		}
		if ch.why != "" {
			c.missing = append(c.missing, ch)
			continue
		}
		c.checks = append(c.checks, ch)
	}
	slices.SortStableFunc(c.checks, func(a, b check) int { return rank(a.writer) - rank(b.writer) })
	for _, e := range got.entries {
		if want.Index(e.Name) < 0 {
			c.extra = append(c.extra, e.Name)
		}
	}
	return c
}

// Compared returns the number of entries compared in every record.
func (c *Comparer) Compared() int { return len(c.checks) }

// Extra lists the entries only the replay has.
func (c *Comparer) Extra() []string { return slices.Clone(c.extra) }

// Compare compares a record of want's schema with one of got's. It returns
// nil if every entry is bit-identical, else the first difference; an error
// if a record cannot be split. It does not allocate when the records agree.
func (c *Comparer) Compare(want, got []byte) (*Difference, error) {
	if c.same && len(c.missing) == 0 && bytes.Equal(want, got) {
		return nil, nil
	}
	if err := c.want.Split(want, &c.wr); err != nil {
		return nil, fmt.Errorf("recorded %w", err)
	}
	if err := c.got.Split(got, &c.gr); err != nil {
		return nil, fmt.Errorf("replayed %w", err)
	}
	var d *Difference
	note := func(ch check, field, w, g string) {
		if d == nil {
			d = &Difference{Tick: c.wr.Tick, Time: c.wr.Time, Entry: ch.name, Writer: ch.writer, Field: field, Want: w, Got: g}
			return
		}
		d.Others = append(d.Others, ch.name)
	}
	if c.wr.Tick != c.gr.Tick || c.wr.Time != c.gr.Time {
		note(check{name: "(board)"}, "tick", fmt.Sprintf("%d at %v", c.wr.Tick, c.wr.Time), fmt.Sprintf("%d at %v", c.gr.Tick, c.gr.Time))
	}
	for _, ch := range c.missing {
		// An entry never written holds the zero value in both: only a
		// recorded value the replay cannot have is a difference.
		if c.wr.Entries[ch.w].Tick != 0 {
			note(ch, "entry", "present", ch.why)
		}
	}
	for _, ch := range c.checks {
		we, ge := &c.wr.Entries[ch.w], &c.gr.Entries[ch.g]
		switch {
		case !bytes.Equal(we.Value, ge.Value):
			if d != nil {
				note(ch, "", "", "") // only named
				continue
			}
			path, w, g := firstDiff(&c.want.entries[ch.w].Layout, we.Value, ge.Value)
			if gc := c.got.codecs[ch.g]; gc.typ != nil {
				// The replay's Go type names what the numbers mean.
				w, g = named(gc, we.Value, path, w), named(gc, ge.Value, path, g)
			}
			note(ch, path, w, g)
		case we.Tick != ge.Tick:
			note(ch, "meta.tick", strconv.FormatUint(we.Tick, 10), strconv.FormatUint(ge.Tick, 10))
		case we.Time != ge.Time:
			note(ch, "meta.time", we.Time.String(), ge.Time.String())
		}
	}
	return d, nil
}

// firstDiff finds the first primitive in which the encoded values a and b
// of layout f differ, and formats both.
func firstDiff(f *Field, a, b []byte) (path, av, bv string) {
	w := diffWalker{a: a, b: b}
	if w.walk(f, "") {
		return w.path, w.av, w.bv
	}
	return "", fmt.Sprintf("%x", a), fmt.Sprintf("%x", b)
}

type diffWalker struct {
	a, b          []byte
	path, av, bv  string
	failed, found bool
}

// walk consumes one value of layout f from a and b; it returns true once a
// difference (or an undecodable value) is found.
func (w *diffWalker) walk(f *Field, path string) bool {
	switch k := parseKind(f.Kind); k {
	case kStruct:
		for i := range f.Fields {
			p := f.Fields[i].Name
			if path != "" {
				p = path + "." + p
			}
			if w.walk(&f.Fields[i], p) {
				return true
			}
		}
		return false
	case kArray:
		for i := range f.Len {
			if w.walk(f.Elem, path+"["+strconv.Itoa(i)+"]") {
				return true
			}
		}
		return false
	case kString:
		sa, okA := takeString(&w.a)
		sb, okB := takeString(&w.b)
		if !okA || !okB || sa != sb {
			w.path, w.av, w.bv = path, strconv.Quote(sa), strconv.Quote(sb)
			return true
		}
		return false
	case kInvalid:
		w.path, w.av, w.bv = path, "?", "?"
		return true
	default:
		n := k.wire()
		if len(w.a) < n || len(w.b) < n {
			w.path, w.av, w.bv = path, "(truncated)", "(truncated)"
			return true
		}
		pa, pb := w.a[:n], w.b[:n]
		w.a, w.b = w.a[n:], w.b[n:]
		if !bytes.Equal(pa, pb) {
			w.path, w.av, w.bv = path, formatPrim(k, pa), formatPrim(k, pb)
			return true
		}
		return false
	}
}

// named decodes value with c and, if the field at path has a String
// method (an enum), returns its name with the plain formatting s.
func named(c *codec, value []byte, path, s string) string {
	v := reflect.New(c.typ)
	if _, err := decodeOps(value, c.ops, v.UnsafePointer()); err != nil {
		return s
	}
	f, ok := fieldAt(v.Elem(), path)
	if !ok || !f.CanInterface() {
		return s
	}
	switch f.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return s
	}
	if st, ok := f.Interface().(fmt.Stringer); ok {
		return st.String() + " (" + s + ")"
	}
	return s
}

// fieldAt follows a path made by firstDiff ("A.B[3].C") from v.
func fieldAt(v reflect.Value, path string) (reflect.Value, bool) {
	for path != "" {
		if path[0] == '[' {
			end := strings.IndexByte(path, ']')
			i, err := strconv.Atoi(path[1:max(end, 1)])
			if end < 0 || err != nil || v.Kind() != reflect.Array || i < 0 || i >= v.Len() {
				return v, false
			}
			v, path = v.Index(i), path[end+1:]
			continue
		}
		path = strings.TrimPrefix(path, ".")
		end := strings.IndexAny(path, ".[")
		if end < 0 {
			end = len(path)
		}
		if v.Kind() != reflect.Struct {
			return v, false
		}
		v = v.FieldByName(path[:end])
		if !v.IsValid() {
			return v, false
		}
		path = path[end:]
	}
	return v, true
}

func takeString(b *[]byte) (string, bool) {
	l, n := binary.Uvarint(*b)
	if n <= 0 || l > uint64(len(*b)-n) {
		return "", false
	}
	s := string((*b)[n : n+int(l)])
	*b = (*b)[n+int(l):]
	return s, true
}

// formatPrim formats one encoded primitive; floats with their bits, so that
// values that print alike (NaNs, -0) are told apart.
func formatPrim(k kind, p []byte) string {
	le := binary.LittleEndian
	switch k {
	case kBool:
		return strconv.FormatBool(p[0] == 1)
	case kInt8:
		return strconv.Itoa(int(int8(p[0])))
	case kUint8:
		return strconv.Itoa(int(p[0]))
	case kInt16:
		return strconv.Itoa(int(int16(le.Uint16(p))))
	case kUint16:
		return strconv.Itoa(int(le.Uint16(p)))
	case kInt32:
		return strconv.Itoa(int(int32(le.Uint32(p))))
	case kUint32:
		return strconv.FormatUint(uint64(le.Uint32(p)), 10)
	case kInt64, kInt:
		return strconv.FormatInt(int64(le.Uint64(p)), 10)
	case kUint64, kUint, kUintptr:
		return strconv.FormatUint(le.Uint64(p), 10)
	case kFloat32:
		u := le.Uint32(p)
		return fmt.Sprintf("%v (%#08x)", math.Float32frombits(u), u)
	case kFloat64:
		u := le.Uint64(p)
		return fmt.Sprintf("%v (%#016x)", math.Float64frombits(u), u)
	case kComplex64:
		return fmt.Sprintf("(%s, %s)", formatPrim(kFloat32, p[:4]), formatPrim(kFloat32, p[4:]))
	case kComplex128:
		return fmt.Sprintf("(%s, %s)", formatPrim(kFloat64, p[:8]), formatPrim(kFloat64, p[8:]))
	}
	return fmt.Sprintf("%x", p)
}
