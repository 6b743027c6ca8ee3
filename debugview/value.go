package debugview

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/record/codec"
)

// This file turns blackboard values into JSON for the page: Go values
// (from a live board, or decoded from a recording with the Go types at
// hand) by reflection, and encoded values of a recording whose Go types
// this build lacks by their layout (codec.Field). Both give the same
// JSON for the same value, with three differences from encoding/json that
// the page relies on:
//
//   - struct fields keep their declaration order (encoding/json does too,
//     but a map would not);
//   - an integer whose type has a String method (an enum, time.Duration)
//     becomes its name, e.g. "stand" or "1.5s", where the Go type is known;
//   - NaN and ±Inf, which JSON cannot carry, become the strings "NaN",
//     "+Inf" and "-Inf" instead of failing the whole snapshot.

// object is a JSON object that keeps its keys in order.
type object []member

type member struct {
	key string
	val any
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", m.key, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonFloat32 keeps a float32's shortest decimal form (0.1, not
// 0.10000000149011612).
func jsonFloat32(f float32) any {
	if s, ok := blackboard.JSONFloat(float64(f)).(string); ok {
		return s
	}
	// The shortest float32 form parses as a float64 without error.
	n, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	return n
}

var stringerType = reflect.TypeFor[fmt.Stringer]()

// toJSON converts a plain blackboard value (see package blackboard) to a
// tree that encoding/json writes as described above.
func toJSON(v any) any {
	if v == nil {
		return nil
	}
	return valueJSON(reflect.ValueOf(v))
}

func valueJSON(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if s, ok := stringOf(v); ok {
			return s
		}
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if s, ok := stringOf(v); ok {
			return s
		}
		return v.Uint()
	case reflect.Float32:
		return jsonFloat32(float32(v.Float()))
	case reflect.Float64:
		return blackboard.JSONFloat(v.Float())
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return []any{blackboard.JSONFloat(real(c)), blackboard.JSONFloat(imag(c))}
	case reflect.String:
		return v.String()
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = valueJSON(v.Index(i))
		}
		return out
	case reflect.Struct:
		t := v.Type()
		out := make(object, t.NumField())
		for i := range out {
			out[i] = member{t.Field(i).Name, valueJSON(v.Field(i))}
		}
		return out
	}
	// Not a plain value: the blackboard does not hold these.
	return fmt.Sprintf("<%s>", v.Type())
}

// stringOf is the String method's result for an integer of a named type
// that has one (and is exported, so that it can be called).
func stringOf(v reflect.Value) (string, bool) {
	if !v.CanInterface() || !v.Type().Implements(stringerType) || v.Type().PkgPath() == "" {
		return "", false
	}
	s, ok := v.Interface().(fmt.Stringer)
	if !ok {
		return "", false
	}
	return s.String(), true
}

// fieldLayout is a value's layout as a recording's schema describes it.
type fieldLayout = codec.Field

var errShort = errors.New("value shorter than its layout")

// maxElems bounds the values decoded from one layout, so that a corrupt
// schema cannot make the page allocate without bound.
const maxElems = 1 << 22

// layoutDecoder decodes an encoded value by its layout (the encoding is
// documented in package blackboard: little-endian primitives, no padding,
// strings as uvarint length and bytes).
type layoutDecoder struct {
	src   []byte
	elems int
}

func (d *layoutDecoder) take(n int) ([]byte, error) {
	if len(d.src) < n {
		return nil, errShort
	}
	b := d.src[:n]
	d.src = d.src[n:]
	return b, nil
}

func (d *layoutDecoder) decode(f *fieldLayout) (any, error) {
	d.elems++
	if d.elems > maxElems {
		return nil, fmt.Errorf("more than %d values", maxElems)
	}
	le := binary.LittleEndian
	switch f.Kind {
	case "bool":
		b, err := d.take(1)
		if err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case "int8":
		b, err := d.take(1)
		if err != nil {
			return nil, err
		}
		return int64(int8(b[0])), nil
	case "uint8":
		b, err := d.take(1)
		if err != nil {
			return nil, err
		}
		return uint64(b[0]), nil
	case "int16":
		b, err := d.take(2)
		if err != nil {
			return nil, err
		}
		return int64(int16(le.Uint16(b))), nil
	case "uint16":
		b, err := d.take(2)
		if err != nil {
			return nil, err
		}
		return uint64(le.Uint16(b)), nil
	case "int32":
		b, err := d.take(4)
		if err != nil {
			return nil, err
		}
		return int64(int32(le.Uint32(b))), nil
	case "uint32":
		b, err := d.take(4)
		if err != nil {
			return nil, err
		}
		return uint64(le.Uint32(b)), nil
	case "int64", "int":
		b, err := d.take(8)
		if err != nil {
			return nil, err
		}
		return int64(le.Uint64(b)), nil
	case "uint64", "uint", "uintptr":
		b, err := d.take(8)
		if err != nil {
			return nil, err
		}
		return le.Uint64(b), nil
	case "float32":
		b, err := d.take(4)
		if err != nil {
			return nil, err
		}
		return jsonFloat32(math.Float32frombits(le.Uint32(b))), nil
	case "float64":
		b, err := d.take(8)
		if err != nil {
			return nil, err
		}
		return blackboard.JSONFloat(math.Float64frombits(le.Uint64(b))), nil
	case "complex64":
		b, err := d.take(8)
		if err != nil {
			return nil, err
		}
		return []any{jsonFloat32(math.Float32frombits(le.Uint32(b))), jsonFloat32(math.Float32frombits(le.Uint32(b[4:])))}, nil
	case "complex128":
		b, err := d.take(16)
		if err != nil {
			return nil, err
		}
		return []any{blackboard.JSONFloat(math.Float64frombits(le.Uint64(b))), blackboard.JSONFloat(math.Float64frombits(le.Uint64(b[8:])))}, nil
	case "string":
		n, k := binary.Uvarint(d.src)
		if k <= 0 || n > uint64(len(d.src)-k) {
			return nil, errShort
		}
		s := string(d.src[k : k+int(n)])
		d.src = d.src[k+int(n):]
		return s, nil
	case "array":
		if f.Elem == nil || f.Len < 0 || f.Len > maxElems {
			return nil, fmt.Errorf("bad array layout (len %d)", f.Len)
		}
		out := make([]any, f.Len)
		for i := range out {
			v, err := d.decode(f.Elem)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case "struct":
		out := make(object, len(f.Fields))
		for i := range f.Fields {
			v, err := d.decode(&f.Fields[i])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Fields[i].Name, err)
			}
			out[i] = member{f.Fields[i].Name, v}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown kind %q", f.Kind)
}
