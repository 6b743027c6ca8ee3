package nn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// This file decodes the subset of the ONNX protobuf schema (onnx/onnx.proto,
// https://github.com/onnx/onnx/blob/main/onnx/onnx.proto) that inference
// needs, straight from the protobuf wire format
// (https://protobuf.dev/programming-guides/encoding/). Every length and
// count is checked against the remaining input, so a corrupted file yields an
// error rather than a panic or an oversized allocation.

// Protobuf wire types.
const (
	wireVarint = 0
	wireI64    = 1
	wireLen    = 2
	wireSGroup = 3
	wireEGroup = 4
	wireI32    = 5
)

var errTruncated = errors.New("truncated protobuf")

// pbReader walks the fields of one protobuf message.
type pbReader struct {
	b   []byte
	off int
}

// next returns the next field's number and wire type. ok is false at the end
// of the message.
func (r *pbReader) next() (field int, wire int, ok bool, err error) {
	if r.off >= len(r.b) {
		return 0, 0, false, nil
	}
	key, err := r.varint()
	if err != nil {
		return 0, 0, false, err
	}
	field = int(key >> 3)
	wire = int(key & 7)
	if field <= 0 || key>>3 > math.MaxInt32 {
		return 0, 0, false, fmt.Errorf("invalid protobuf field number %d", key>>3)
	}
	return field, wire, true, nil
}

func (r *pbReader) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.off >= len(r.b) {
			return 0, errTruncated
		}
		c := r.b[r.off]
		r.off++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("protobuf varint overflows 64 bits")
}

func (r *pbReader) fixed32() (uint32, error) {
	if len(r.b)-r.off < 4 {
		return 0, errTruncated
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v, nil
}

func (r *pbReader) fixed64() (uint64, error) {
	if len(r.b)-r.off < 8 {
		return 0, errTruncated
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v, nil
}

func (r *pbReader) bytes() ([]byte, error) {
	n, err := r.varint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.b)-r.off) {
		return nil, errTruncated
	}
	b := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

// skip skips a field of the given wire type.
func (r *pbReader) skip(wire int) error {
	switch wire {
	case wireVarint:
		_, err := r.varint()
		return err
	case wireI64:
		_, err := r.fixed64()
		return err
	case wireLen:
		_, err := r.bytes()
		return err
	case wireI32:
		_, err := r.fixed32()
		return err
	default:
		// Groups are deprecated and never used by ONNX.
		return fmt.Errorf("unsupported protobuf wire type %d", wire)
	}
}

// int64s reads a repeated int64 field, packed or not, appending to dst.
func (r *pbReader) int64s(wire int, dst []int64) ([]int64, error) {
	switch wire {
	case wireVarint:
		v, err := r.varint()
		return append(dst, int64(v)), err
	case wireLen:
		b, err := r.bytes()
		if err != nil {
			return dst, err
		}
		sub := pbReader{b: b}
		for sub.off < len(b) {
			v, err := sub.varint()
			if err != nil {
				return dst, err
			}
			dst = append(dst, int64(v))
		}
		return dst, nil
	}
	return dst, fmt.Errorf("wire type %d for repeated int64", wire)
}

// float32s reads a repeated float field, packed or not, appending to dst.
func (r *pbReader) float32s(wire int, dst []float32) ([]float32, error) {
	switch wire {
	case wireI32:
		v, err := r.fixed32()
		return append(dst, math.Float32frombits(v)), err
	case wireLen:
		b, err := r.bytes()
		if err != nil {
			return dst, err
		}
		if len(b)%4 != 0 {
			return dst, errors.New("packed float field length not a multiple of 4")
		}
		for i := 0; i < len(b); i += 4 {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
		}
		return dst, nil
	}
	return dst, fmt.Errorf("wire type %d for repeated float", wire)
}

// float64s reads a repeated double field, packed or not, appending to dst.
func (r *pbReader) float64s(wire int, dst []float64) ([]float64, error) {
	switch wire {
	case wireI64:
		v, err := r.fixed64()
		return append(dst, math.Float64frombits(v)), err
	case wireLen:
		b, err := r.bytes()
		if err != nil {
			return dst, err
		}
		if len(b)%8 != 0 {
			return dst, errors.New("packed double field length not a multiple of 8")
		}
		for i := 0; i < len(b); i += 8 {
			dst = append(dst, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
		}
		return dst, nil
	}
	return dst, fmt.Errorf("wire type %d for repeated double", wire)
}

func expectWire(field, wire, want int) error {
	if wire != want {
		return fmt.Errorf("protobuf field %d has wire type %d, want %d", field, wire, want)
	}
	return nil
}

// ONNX TensorProto.DataType values used here.
const (
	dtFloat  = 1
	dtUint8  = 2
	dtInt8   = 3
	dtInt32  = 6
	dtInt64  = 7
	dtBool   = 9
	dtDouble = 11
)

// pbTensor is a decoded TensorProto. Data is kept in its stored form until
// converted with floats/ints.
type pbTensor struct {
	name      string
	dims      []int64
	dataType  int
	raw       []byte
	floatData []float32
	int32Data []int64 // int32_data is varint encoded like int64
	int64Data []int64
	dblData   []float64
	external  bool
}

// pbAttr is a decoded AttributeProto.
type pbAttr struct {
	name   string
	typ    int
	f      float32
	i      int64
	s      []byte
	t      *pbTensor
	floats []float32
	ints   []int64
	hasG   bool
}

// pbNode is a decoded NodeProto.
type pbNode struct {
	name    string
	opType  string
	domain  string
	inputs  []string
	outputs []string
	attrs   []pbAttr
}

// pbValueInfo is a decoded ValueInfoProto with a tensor type.
type pbValueInfo struct {
	name     string
	elemType int
	hasShape bool
	dims     []int64  // -1 for a symbolic or unknown dimension
	params   []string // dim_param per dimension ("" if numeric)
}

// pbGraph is a decoded GraphProto.
type pbGraph struct {
	name        string
	nodes       []pbNode
	initializer []*pbTensor
	inputs      []pbValueInfo
	outputs     []pbValueInfo
	valueInfo   []pbValueInfo
}

// pbModel is a decoded ModelProto.
type pbModel struct {
	irVersion int64
	opset     int64 // version of the default ("" or "ai.onnx") domain
	producer  string
	graph     *pbGraph
}

func decodeModel(b []byte) (*pbModel, error) {
	m := &pbModel{}
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return nil, fmt.Errorf("ModelProto: %w", err)
		}
		if !ok {
			break
		}
		switch f {
		case 1: // ir_version
			if err := expectWire(f, w, wireVarint); err != nil {
				return nil, fmt.Errorf("ModelProto: %w", err)
			}
			v, err := r.varint()
			if err != nil {
				return nil, fmt.Errorf("ModelProto.ir_version: %w", err)
			}
			m.irVersion = int64(v)
		case 2: // producer_name
			if err := expectWire(f, w, wireLen); err != nil {
				return nil, fmt.Errorf("ModelProto: %w", err)
			}
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("ModelProto.producer_name: %w", err)
			}
			m.producer = string(s)
		case 7: // graph
			if err := expectWire(f, w, wireLen); err != nil {
				return nil, fmt.Errorf("ModelProto: %w", err)
			}
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("ModelProto.graph: %w", err)
			}
			g, err := decodeGraph(s)
			if err != nil {
				return nil, fmt.Errorf("ModelProto.graph: %w", err)
			}
			m.graph = g
		case 8: // opset_import
			if err := expectWire(f, w, wireLen); err != nil {
				return nil, fmt.Errorf("ModelProto: %w", err)
			}
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("ModelProto.opset_import: %w", err)
			}
			domain, version, err := decodeOpset(s)
			if err != nil {
				return nil, fmt.Errorf("ModelProto.opset_import: %w", err)
			}
			if domain == "" || domain == "ai.onnx" {
				m.opset = version
			}
		default:
			if err := r.skip(w); err != nil {
				return nil, fmt.Errorf("ModelProto field %d: %w", f, err)
			}
		}
	}
	if m.graph == nil {
		return nil, errors.New("ModelProto has no graph")
	}
	return m, nil
}

func decodeOpset(b []byte) (domain string, version int64, err error) {
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return "", 0, err
		}
		if !ok {
			return domain, version, nil
		}
		switch {
		case f == 1 && w == wireLen:
			s, err := r.bytes()
			if err != nil {
				return "", 0, err
			}
			domain = string(s)
		case f == 2 && w == wireVarint:
			v, err := r.varint()
			if err != nil {
				return "", 0, err
			}
			version = int64(v)
		default:
			if err := r.skip(w); err != nil {
				return "", 0, err
			}
		}
	}
}

func decodeGraph(b []byte) (*pbGraph, error) {
	g := &pbGraph{}
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return g, nil
		}
		if f == 1 || f == 2 || f == 5 || f == 11 || f == 12 || f == 13 {
			if err := expectWire(f, w, wireLen); err != nil {
				return nil, err
			}
		}
		switch f {
		case 1:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("node: %w", err)
			}
			n, err := decodeNode(s)
			if err != nil {
				return nil, fmt.Errorf("node %d: %w", len(g.nodes), err)
			}
			g.nodes = append(g.nodes, n)
		case 2:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("name: %w", err)
			}
			g.name = string(s)
		case 5:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("initializer: %w", err)
			}
			t, err := decodeTensor(s)
			if err != nil {
				return nil, fmt.Errorf("initializer %d: %w", len(g.initializer), err)
			}
			g.initializer = append(g.initializer, t)
		case 11, 12, 13:
			s, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("value info: %w", err)
			}
			vi, err := decodeValueInfo(s)
			if err != nil {
				return nil, fmt.Errorf("value info: %w", err)
			}
			switch f {
			case 11:
				g.inputs = append(g.inputs, vi)
			case 12:
				g.outputs = append(g.outputs, vi)
			default:
				g.valueInfo = append(g.valueInfo, vi)
			}
		case 15:
			return nil, errors.New("sparse initializers are not supported")
		default:
			if err := r.skip(w); err != nil {
				return nil, fmt.Errorf("field %d: %w", f, err)
			}
		}
	}
}

func decodeNode(b []byte) (pbNode, error) {
	var n pbNode
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return n, err
		}
		if !ok {
			return n, nil
		}
		if f == 1 || f == 2 || f == 3 || f == 4 || f == 5 || f == 7 {
			if err := expectWire(f, w, wireLen); err != nil {
				return n, err
			}
		}
		switch f {
		case 1, 2, 3, 4, 7:
			s, err := r.bytes()
			if err != nil {
				return n, err
			}
			switch f {
			case 1:
				n.inputs = append(n.inputs, string(s))
			case 2:
				n.outputs = append(n.outputs, string(s))
			case 3:
				n.name = string(s)
			case 4:
				n.opType = string(s)
			case 7:
				n.domain = string(s)
			}
		case 5:
			s, err := r.bytes()
			if err != nil {
				return n, err
			}
			a, err := decodeAttr(s)
			if err != nil {
				return n, fmt.Errorf("attribute %q: %w", a.name, err)
			}
			n.attrs = append(n.attrs, a)
		default:
			if err := r.skip(w); err != nil {
				return n, err
			}
		}
	}
}

func decodeAttr(b []byte) (pbAttr, error) {
	var a pbAttr
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return a, err
		}
		if !ok {
			return a, nil
		}
		switch f {
		case 1: // name
			if err := expectWire(f, w, wireLen); err != nil {
				return a, err
			}
			s, err := r.bytes()
			if err != nil {
				return a, err
			}
			a.name = string(s)
		case 2: // f
			if err := expectWire(f, w, wireI32); err != nil {
				return a, err
			}
			v, err := r.fixed32()
			if err != nil {
				return a, err
			}
			a.f = math.Float32frombits(v)
		case 3: // i
			if err := expectWire(f, w, wireVarint); err != nil {
				return a, err
			}
			v, err := r.varint()
			if err != nil {
				return a, err
			}
			a.i = int64(v)
		case 4: // s
			if err := expectWire(f, w, wireLen); err != nil {
				return a, err
			}
			s, err := r.bytes()
			if err != nil {
				return a, err
			}
			a.s = s
		case 5: // t
			if err := expectWire(f, w, wireLen); err != nil {
				return a, err
			}
			s, err := r.bytes()
			if err != nil {
				return a, err
			}
			t, err := decodeTensor(s)
			if err != nil {
				return a, err
			}
			a.t = t
		case 6: // g
			a.hasG = true
			if err := r.skip(w); err != nil {
				return a, err
			}
		case 7: // floats
			a.floats, err = r.float32s(w, a.floats)
			if err != nil {
				return a, err
			}
		case 8: // ints
			a.ints, err = r.int64s(w, a.ints)
			if err != nil {
				return a, err
			}
		case 20: // type
			if err := expectWire(f, w, wireVarint); err != nil {
				return a, err
			}
			v, err := r.varint()
			if err != nil {
				return a, err
			}
			a.typ = int(v)
		default:
			if err := r.skip(w); err != nil {
				return a, err
			}
		}
	}
}

func decodeTensor(b []byte) (*pbTensor, error) {
	t := &pbTensor{}
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return t, err
		}
		if !ok {
			return t, nil
		}
		switch f {
		case 1: // dims
			t.dims, err = r.int64s(w, t.dims)
		case 2: // data_type
			if err = expectWire(f, w, wireVarint); err == nil {
				var v uint64
				v, err = r.varint()
				t.dataType = int(v)
			}
		case 4: // float_data
			t.floatData, err = r.float32s(w, t.floatData)
		case 5: // int32_data
			t.int32Data, err = r.int64s(w, t.int32Data)
		case 7: // int64_data
			t.int64Data, err = r.int64s(w, t.int64Data)
		case 8: // name
			if err = expectWire(f, w, wireLen); err == nil {
				var s []byte
				s, err = r.bytes()
				t.name = string(s)
			}
		case 9: // raw_data
			if err = expectWire(f, w, wireLen); err == nil {
				t.raw, err = r.bytes()
			}
		case 10: // double_data
			t.dblData, err = r.float64s(w, t.dblData)
		case 13: // external_data
			t.external = true
			err = r.skip(w)
		case 14: // data_location
			if err = expectWire(f, w, wireVarint); err == nil {
				var v uint64
				v, err = r.varint()
				if v == 1 {
					t.external = true
				}
			}
		default:
			err = r.skip(w)
		}
		if err != nil {
			return t, fmt.Errorf("TensorProto %q field %d: %w", t.name, f, err)
		}
	}
}

func decodeValueInfo(b []byte) (pbValueInfo, error) {
	var vi pbValueInfo
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return vi, err
		}
		if !ok {
			return vi, nil
		}
		switch {
		case f == 1 && w == wireLen:
			s, err := r.bytes()
			if err != nil {
				return vi, err
			}
			vi.name = string(s)
		case f == 2 && w == wireLen: // TypeProto
			s, err := r.bytes()
			if err != nil {
				return vi, err
			}
			if err := decodeTypeProto(s, &vi); err != nil {
				return vi, fmt.Errorf("%q type: %w", vi.name, err)
			}
		default:
			if err := r.skip(w); err != nil {
				return vi, err
			}
		}
	}
}

func decodeTypeProto(b []byte, vi *pbValueInfo) error {
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if f == 1 && w == wireLen { // tensor_type
			s, err := r.bytes()
			if err != nil {
				return err
			}
			if err := decodeTensorType(s, vi); err != nil {
				return err
			}
			continue
		}
		if err := r.skip(w); err != nil {
			return err
		}
	}
}

func decodeTensorType(b []byte, vi *pbValueInfo) error {
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch {
		case f == 1 && w == wireVarint:
			v, err := r.varint()
			if err != nil {
				return err
			}
			vi.elemType = int(v)
		case f == 2 && w == wireLen: // TensorShapeProto
			s, err := r.bytes()
			if err != nil {
				return err
			}
			vi.hasShape = true
			if err := decodeShape(s, vi); err != nil {
				return err
			}
		default:
			if err := r.skip(w); err != nil {
				return err
			}
		}
	}
}

func decodeShape(b []byte, vi *pbValueInfo) error {
	r := pbReader{b: b}
	for {
		f, w, ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if f != 1 || w != wireLen {
			if err := r.skip(w); err != nil {
				return err
			}
			continue
		}
		s, err := r.bytes()
		if err != nil {
			return err
		}
		d := pbReader{b: s}
		dim, param := int64(-1), ""
		for {
			f, w, ok, err := d.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			switch {
			case f == 1 && w == wireVarint:
				v, err := d.varint()
				if err != nil {
					return err
				}
				dim = int64(v)
			case f == 2 && w == wireLen:
				p, err := d.bytes()
				if err != nil {
					return err
				}
				param = string(p)
			default:
				if err := d.skip(w); err != nil {
					return err
				}
			}
		}
		vi.dims = append(vi.dims, dim)
		vi.params = append(vi.params, param)
	}
}
