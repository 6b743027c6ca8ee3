package nn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// value is a tensor of the graph while the plan is built.
type value struct {
	name   string
	shape  []int
	layout []int // physical layout; nil = plain (see layout.go)

	// Constants known at load time. Integer tensors exist only as
	// constants (shape arithmetic); runtime tensors are float32.
	isInt  bool
	ints   []int64
	konst  bool      // float constant
	floats []float32 // float constant data in physical layout order

	buf int // session buffer (float values only); -1 for int constants
}

type bufInfo struct {
	n     int       // elements
	konst []float32 // shared read-only data for constant buffers
}

type builder struct {
	opset int64
	batch int

	vals  map[string]*value
	bufs  []bufInfo
	steps []step

	uses     map[string]int // consumers per value name (graph outputs count)
	owner    map[int]string // runtime buffer -> name of the value a node wrote into it
	fused    bool           // the current node was folded into its producer
	producer map[int]step   // runtime buffer -> step that writes it
	relayout map[string]*value
}

func newBuilder(opset int64, batch int) *builder {
	return &builder{
		opset:    opset,
		batch:    batch,
		vals:     map[string]*value{},
		uses:     map[string]int{},
		producer: map[int]step{},
		relayout: map[string]*value{},
		owner:    map[int]string{},
	}
}

func (b *builder) newBuf(n int) int {
	b.bufs = append(b.bufs, bufInfo{n: n})
	return len(b.bufs) - 1
}

// runtime creates a runtime float value with a fresh buffer.
func (b *builder) runtime(name string, shape, layout []int) (*value, error) {
	n, err := numel(shape)
	if err != nil {
		return nil, err
	}
	return &value{name: name, shape: shape, layout: normLayout(layout), buf: b.newBuf(n)}, nil
}

func (b *builder) floatConst(name string, shape []int, data []float32) *value {
	b.bufs = append(b.bufs, bufInfo{n: len(data), konst: data})
	return &value{name: name, shape: shape, konst: true, floats: data, buf: len(b.bufs) - 1}
}

func intConst(name string, shape []int, data []int64) *value {
	return &value{name: name, shape: shape, isInt: true, ints: data, buf: -1}
}

func (b *builder) addStep(s step) {
	b.steps = append(b.steps, s)
	_, out := s.bufs()
	b.producer[out] = s
}

// plainFloats returns the data of a float constant in plain order.
func plainFloats(v *value) ([]float32, error) {
	if !v.konst {
		return nil, fmt.Errorf("%q must be a constant (initializer)", v.name)
	}
	if v.layout == nil {
		return v.floats, nil
	}
	return permuteData(v.floats, v.shape, v.layout, nil)
}

// ensureLayout returns v stored in the wanted layout, adding a copy step if
// the data has to move.
func (b *builder) ensureLayout(v *value, want []int) (*value, error) {
	want = normLayout(want)
	if v.isInt {
		if want != nil {
			return nil, fmt.Errorf("%q: integer tensor used as data", v.name)
		}
		return v, nil
	}
	if slices.Equal(v.layout, want) {
		return v, nil
	}
	if sameData(v.shape, v.layout, want) {
		nv := *v
		nv.layout = want
		return &nv, nil
	}
	key := fmt.Sprint(v.buf, v.shape, v.layout, want)
	if nv, ok := b.relayout[key]; ok {
		return nv, nil
	}
	var nv *value
	if v.konst {
		data, err := permuteData(v.floats, v.shape, v.layout, want)
		if err != nil {
			return nil, err
		}
		nv = b.floatConst(v.name, v.shape, data)
		nv.layout = want
	} else {
		var err error
		nv, err = b.runtime(v.name+"#relayout", v.shape, want)
		if err != nil {
			return nil, err
		}
		st := physStrides(v.shape, v.layout)
		p := layoutOf(want, len(v.shape))
		sst := make([]int, len(p))
		for j := range p {
			sst[j] = st[p[j]]
		}
		it, err := newIter(physShape(v.shape, want), sst)
		if err != nil {
			return nil, err
		}
		b.addStep(&copyStep{stepIO: stepIO{in: []int{v.buf}, out: nv.buf}, it: it})
	}
	b.relayout[key] = nv
	return nv, nil
}

// channelsLast is the layout of a rank-r tensor with axis 1 (channels)
// innermost: NHWC for a 4-D NCHW tensor.
func channelsLast(r int) []int {
	p := []int{0}
	for i := 2; i < r; i++ {
		p = append(p, i)
	}
	if r > 1 {
		p = append(p, 1)
	}
	return p
}

// ---- attributes ----

type attrs []pbAttr

func (a attrs) get(name string) *pbAttr {
	for i := range a {
		if a[i].name == name {
			return &a[i]
		}
	}
	return nil
}

func (a attrs) int(name string, def int64) int64 {
	if p := a.get(name); p != nil {
		return p.i
	}
	return def
}

func (a attrs) float(name string, def float32) float32 {
	if p := a.get(name); p != nil {
		return p.f
	}
	return def
}

func (a attrs) str(name, def string) string {
	if p := a.get(name); p != nil {
		return string(p.s)
	}
	return def
}

func (a attrs) ints(name string) ([]int, bool) {
	p := a.get(name)
	if p == nil {
		return nil, false
	}
	out := make([]int, len(p.ints))
	for i, v := range p.ints {
		// out-of-range values are clamped so that validation rejects them
		out[i] = int(min(max(v, math.MinInt32), math.MaxInt32))
	}
	return out, true
}

// ---- tensors from the file ----

// tensorValue converts an initializer or Constant tensor.
func (b *builder) tensorValue(name string, t *pbTensor) (*value, error) {
	if t.external {
		return nil, errors.New("external tensor data is not supported")
	}
	shape := make([]int, len(t.dims))
	for i, d := range t.dims {
		if d < 0 || d > maxElems {
			return nil, fmt.Errorf("invalid dimension %d", d)
		}
		shape[i] = int(d)
	}
	if len(shape) > maxRank {
		return nil, fmt.Errorf("rank %d exceeds %d", len(shape), maxRank)
	}
	n, err := numel(shape)
	if err != nil {
		return nil, err
	}
	sizes := map[int]int{dtFloat: 4, dtUint8: 1, dtInt8: 1, dtInt32: 4, dtInt64: 8, dtBool: 1, dtDouble: 8}
	size, ok := sizes[t.dataType]
	if !ok {
		return nil, fmt.Errorf("data type %d is not supported", t.dataType)
	}
	if t.raw != nil && len(t.raw) != n*size {
		return nil, fmt.Errorf("raw_data has %d bytes, want %d for shape %v", len(t.raw), n*size, shape)
	}
	switch t.dataType {
	case dtFloat, dtDouble:
		f := make([]float32, n)
		switch {
		case t.raw != nil && t.dataType == dtFloat:
			for i := range f {
				f[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.raw[4*i:]))
			}
		case t.raw != nil:
			for i := range f {
				f[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(t.raw[8*i:])))
			}
		case t.dataType == dtFloat && len(t.floatData) == n:
			copy(f, t.floatData)
		case t.dataType == dtDouble && len(t.dblData) == n:
			for i := range f {
				f[i] = float32(t.dblData[i])
			}
		default:
			return nil, fmt.Errorf("tensor has no or wrong-sized data for shape %v", shape)
		}
		return b.floatConst(name, shape, f), nil
	default:
		v := make([]int64, n)
		switch {
		case t.raw != nil:
			for i := range v {
				switch t.dataType {
				case dtUint8, dtBool:
					v[i] = int64(t.raw[i])
				case dtInt8:
					v[i] = int64(int8(t.raw[i]))
				case dtInt32:
					v[i] = int64(int32(binary.LittleEndian.Uint32(t.raw[4*i:])))
				case dtInt64:
					v[i] = int64(binary.LittleEndian.Uint64(t.raw[8*i:]))
				}
			}
		case t.dataType == dtInt64 && len(t.int64Data) == n:
			copy(v, t.int64Data)
		case t.dataType != dtInt64 && len(t.int32Data) == n:
			for i := range v {
				v[i] = int64(int32(t.int32Data[i]))
			}
		default:
			return nil, fmt.Errorf("tensor has no or wrong-sized data for shape %v", shape)
		}
		return intConst(name, shape, v), nil
	}
}

// ---- graph ----

func (b *builder) input(name string) (*value, error) {
	v, ok := b.vals[name]
	if !ok {
		return nil, fmt.Errorf("input %q is not defined (graph not topologically sorted?)", name)
	}
	return v, nil
}

// optional input i of a node: nil if absent or "".
func (b *builder) optInput(n *pbNode, i int) (*value, error) {
	if i >= len(n.inputs) || n.inputs[i] == "" {
		return nil, nil
	}
	return b.input(n.inputs[i])
}

func toInts(v *value) ([]int, error) {
	if !v.isInt {
		if v.konst && len(v.floats) <= maxRank*2 {
			// Some exporters store small shape vectors as float.
			out := make([]int, len(v.floats))
			for i, f := range v.floats {
				out[i] = int(f)
			}
			return out, nil
		}
		return nil, fmt.Errorf("%q must be a constant integer tensor", v.name)
	}
	out := make([]int, len(v.ints))
	for i, x := range v.ints {
		if x < -maxElems || x > maxElems {
			// large values occur as "to the end" in Slice; clamp
			if x > 0 {
				x = maxElems
			} else {
				x = -maxElems
			}
		}
		out[i] = int(x)
	}
	return out, nil
}

func normAxis(axis, rank int) (int, error) {
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	return axis, nil
}

// node builds the steps for one node.
func (b *builder) node(n *pbNode) error {
	if n.domain != "" && n.domain != "ai.onnx" {
		return fmt.Errorf("domain %q is not supported", n.domain)
	}
	in := make([]*value, len(n.inputs))
	for i, name := range n.inputs {
		if name == "" {
			continue
		}
		v, err := b.input(name)
		if err != nil {
			return err
		}
		in[i] = v
	}
	if len(n.outputs) == 0 {
		return errors.New("node has no outputs")
	}
	need := func(k int) error {
		if len(in) < k {
			return fmt.Errorf("needs %d inputs, has %d", k, len(in))
		}
		for i := 0; i < k; i++ {
			if in[i] == nil {
				return fmt.Errorf("input %d is missing", i)
			}
		}
		return nil
	}
	a := attrs(n.attrs)
	nbufBefore := len(b.bufs)
	b.fused = false
	var out *value
	var err error
	switch n.opType {
	case "Conv":
		if err = need(2); err == nil {
			out, err = b.conv(n, a, in)
		}
	case "BatchNormalization":
		if err = need(5); err == nil {
			out, err = b.batchNorm(n, a, in)
		}
	case "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Clip":
		if err = need(1); err == nil {
			out, err = b.activation(n, a, in)
		}
	case "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool":
		if err = need(1); err == nil {
			out, err = b.pool(n, a, in[0])
		}
	case "Add", "Sub", "Mul", "Div", "Max", "Min":
		if err = need(2); err == nil {
			out, err = b.binary(n, in[0], in[1])
		}
	case "Sum":
		if err = need(1); err == nil {
			out = in[0]
			for _, v := range in[1:] {
				if out, err = b.binary(&pbNode{name: n.name, opType: "Add", outputs: n.outputs}, out, v); err != nil {
					break
				}
			}
		}
	case "Concat":
		if err = need(1); err == nil {
			out, err = b.concat(n, a, in)
		}
	case "Transpose":
		if err = need(1); err == nil {
			out, err = b.transpose(a, in[0])
		}
	case "Reshape", "Flatten", "Squeeze", "Unsqueeze":
		if err = need(1); err == nil {
			out, err = b.reshape(n, a, in)
		}
	case "Identity", "Dropout":
		if err = need(1); err == nil {
			out = in[0]
		}
	case "MatMul", "Gemm":
		if err = need(2); err == nil {
			out, err = b.gemm(n, a, in)
		}
	case "Softmax":
		if err = need(1); err == nil {
			out, err = b.softmax(a, in[0])
		}
	case "Pad":
		if err = need(1); err == nil {
			out, err = b.pad(a, in)
		}
	case "Constant":
		out, err = b.constant(n, a)
	case "Shape":
		if err = need(1); err == nil {
			out, err = shapeOp(a, in[0])
		}
	case "Gather":
		if err = need(2); err == nil {
			out, err = gatherOp(a, in[0], in[1])
		}
	case "Cast":
		if err = need(1); err == nil {
			out, err = b.cast(a, in[0])
		}
	case "Slice":
		if err = need(1); err == nil {
			out, err = b.slice(a, in)
		}
	default:
		return fmt.Errorf("operator %q is not supported", n.opType)
	}
	if err != nil {
		return err
	}
	if len(n.outputs) > 1 {
		for _, o := range n.outputs[1:] {
			if o != "" && b.uses[o] > 0 {
				return fmt.Errorf("optional output %q is not supported", o)
			}
		}
	}
	nv := *out
	nv.name = n.outputs[0]
	if _, dup := b.vals[nv.name]; dup {
		return fmt.Errorf("output %q is defined twice", nv.name)
	}
	b.vals[nv.name] = &nv
	if nv.buf >= 0 && (nv.buf >= nbufBefore || b.fused) {
		b.owner[nv.buf] = nv.name
	}
	return nil
}

func (b *builder) constant(n *pbNode, a attrs) (*value, error) {
	if p := a.get("value"); p != nil && p.t != nil {
		return b.tensorValue(n.outputs[0], p.t)
	}
	if p := a.get("value_float"); p != nil {
		return b.floatConst(n.outputs[0], nil, []float32{p.f}), nil
	}
	if p := a.get("value_floats"); p != nil {
		return b.floatConst(n.outputs[0], []int{len(p.floats)}, slices.Clone(p.floats)), nil
	}
	if p := a.get("value_int"); p != nil {
		return intConst(n.outputs[0], nil, []int64{p.i}), nil
	}
	if p := a.get("value_ints"); p != nil {
		return intConst(n.outputs[0], []int{len(p.ints)}, slices.Clone(p.ints)), nil
	}
	return nil, errors.New("Constant without a supported value attribute")
}

// ---- Conv ----

func (b *builder) convPads(a attrs, inHW, k, s, d []int) (pads []int, err error) {
	r := len(inHW)
	switch ap := a.str("auto_pad", "NOTSET"); ap {
	case "NOTSET", "":
		pads, ok := a.ints("pads")
		if !ok {
			pads = make([]int, 2*r)
		}
		if len(pads) != 2*r {
			return nil, fmt.Errorf("pads %v: want %d values", pads, 2*r)
		}
		for _, p := range pads {
			if p < 0 || p > 1<<16 {
				return nil, fmt.Errorf("pads %v out of range", pads)
			}
		}
		return pads, nil
	case "VALID":
		return make([]int, 2*r), nil
	case "SAME_UPPER", "SAME_LOWER":
		pads = make([]int, 2*r)
		for i := 0; i < r; i++ {
			out := (inHW[i] + s[i] - 1) / s[i]
			total := max(0, (out-1)*s[i]+(k[i]-1)*d[i]+1-inHW[i])
			lo := total / 2
			if ap == "SAME_LOWER" {
				lo = total - total/2
			}
			pads[i], pads[i+r] = lo, total-lo
		}
		return pads, nil
	default:
		return nil, fmt.Errorf("auto_pad %q is not supported", ap)
	}
}

func spatialAttr(a attrs, name string, r, def int) ([]int, error) {
	v, ok := a.ints(name)
	if !ok {
		v = make([]int, r)
		for i := range v {
			v[i] = def
		}
	}
	if len(v) != r {
		return nil, fmt.Errorf("%s %v: want %d values", name, v, r)
	}
	for _, x := range v {
		if x < 1 || x > 1<<16 {
			return nil, fmt.Errorf("%s %v out of range", name, v)
		}
	}
	return v, nil
}

// geometry computes the output size of a sliding window.
func windowOut(in, k, s, d, p0, p1 int, ceil bool) (int, error) {
	span := in + p0 + p1 - d*(k-1) - 1
	if span < 0 {
		return 0, fmt.Errorf("window %d (dilation %d) larger than padded input %d", k, d, in+p0+p1)
	}
	o := span/s + 1
	if ceil && span%s != 0 {
		o++
		// the last window must start inside the input or left padding
		if (o-1)*s >= in+p0 {
			o--
		}
	}
	return o, nil
}

func (b *builder) conv(n *pbNode, a attrs, in []*value) (*value, error) {
	x, wv := in[0], in[1]
	if x.isInt || x.konst {
		return nil, errors.New("constant data input is not supported")
	}
	if len(x.shape) != 4 || len(wv.shape) != 4 {
		return nil, fmt.Errorf("only 2-D convolution is supported (input %v, weights %v)", x.shape, wv.shape)
	}
	w, err := plainFloats(wv)
	if err != nil {
		return nil, err
	}
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	M, Cg, KH, KW := wv.shape[0], wv.shape[1], wv.shape[2], wv.shape[3]
	group := int(a.int("group", 1))
	if group < 1 || Cg*group != C || M%group != 0 || M == 0 {
		return nil, fmt.Errorf("weights %v do not fit input %v with group %d", wv.shape, x.shape, group)
	}
	if ks, ok := a.ints("kernel_shape"); ok && !slices.Equal(ks, []int{KH, KW}) {
		return nil, fmt.Errorf("kernel_shape %v does not match weights %v", ks, wv.shape)
	}
	strides, err := spatialAttr(a, "strides", 2, 1)
	if err != nil {
		return nil, err
	}
	dil, err := spatialAttr(a, "dilations", 2, 1)
	if err != nil {
		return nil, err
	}
	pads, err := b.convPads(a, []int{H, W}, []int{KH, KW}, strides, dil)
	if err != nil {
		return nil, err
	}
	OH, err := windowOut(H, KH, strides[0], dil[0], pads[0], pads[2], false)
	if err != nil {
		return nil, err
	}
	OW, err := windowOut(W, KW, strides[1], dil[1], pads[1], pads[3], false)
	if err != nil {
		return nil, err
	}
	bias := make([]float32, M)
	if len(in) > 2 && in[2] != nil {
		bv, err := plainFloats(in[2])
		if err != nil {
			return nil, err
		}
		if len(bv) != M {
			return nil, fmt.Errorf("bias has %d values, want %d", len(bv), M)
		}
		copy(bias, bv)
	}
	x, err = b.ensureLayout(x, channelsLast(4))
	if err != nil {
		return nil, err
	}
	out, err := b.runtime("", []int{N, M, OH, OW}, channelsLast(4))
	if err != nil {
		return nil, err
	}
	g := convGeom{n: N, h: H, w: W, c: C, oh: OH, ow: OW, m: M, kh: KH, kw: KW,
		sh: strides[0], sw: strides[1], dh: dil[0], dw: dil[1], pt: pads[0], pl: pads[1], group: group}
	io := stepIO{in: []int{x.buf}, out: out.buf}
	if group == C && Cg == 1 && group > 1 {
		// depthwise: pack [kh][kw][m]
		pw := make([]float32, KH*KW*M)
		for m := 0; m < M; m++ {
			for ky := 0; ky < KH; ky++ {
				for kx := 0; kx < KW; kx++ {
					pw[(ky*KW+kx)*M+m] = w[(m*KH+ky)*KW+kx]
				}
			}
		}
		b.addStep(&dwConvStep{stepIO: io, g: g, mult: M / C, w: pw, bias: bias})
		return out, nil
	}
	// grouped/dense: pack [group][kh][kw][cg][mg]
	mg := M / group
	pw := make([]float32, len(w))
	for gi := 0; gi < group; gi++ {
		for j := 0; j < mg; j++ {
			m := gi*mg + j
			for c := 0; c < Cg; c++ {
				for ky := 0; ky < KH; ky++ {
					for kx := 0; kx < KW; kx++ {
						pw[(((gi*KH+ky)*KW+kx)*Cg+c)*mg+j] = w[((m*Cg+c)*KH+ky)*KW+kx]
					}
				}
			}
		}
	}
	b.addStep(&convStep{stepIO: io, g: g, w: pw, bias: bias})
	return out, nil
}

// fusable returns the step producing v if v is a runtime value used by
// exactly one node and not a graph output, so that a following
// per-channel op or activation may be folded into it.
func (b *builder) fusable(v *value, name string) step {
	if v.konst || v.isInt || b.uses[name] != 1 || b.owner[v.buf] != name {
		return nil
	}
	return b.producer[v.buf]
}

func (b *builder) batchNorm(n *pbNode, a attrs, in []*value) (*value, error) {
	x := in[0]
	if x.isInt || len(x.shape) < 2 {
		return nil, fmt.Errorf("input shape %v not supported", x.shape)
	}
	C := x.shape[1]
	var p [4][]float32
	for i := 0; i < 4; i++ {
		v, err := plainFloats(in[i+1])
		if err != nil {
			return nil, err
		}
		if len(v) != C {
			return nil, fmt.Errorf("parameter %d has %d values, want %d", i+1, len(v), C)
		}
		p[i] = v
	}
	eps := float64(a.float("epsilon", 1e-5))
	scale := make([]float32, C)
	shift := make([]float32, C)
	for c := 0; c < C; c++ {
		s := float64(p[0][c]) / math.Sqrt(float64(p[3][c])+eps)
		scale[c] = float32(s)
		shift[c] = float32(float64(p[1][c]) - float64(p[2][c])*s)
	}
	// Fold into a preceding convolution (ONNX BatchNormalization, inference
	// mode: y = (x - mean) / sqrt(var + eps) * scale + B).
	if st := b.fusable(x, n.inputs[0]); st != nil {
		switch cs := st.(type) {
		case *convStep:
			if cs.act.kind == actNone {
				M := cs.g.m
				for i := range cs.w {
					cs.w[i] *= scale[(i%(M/cs.g.group))+(i/(len(cs.w)/cs.g.group))*(M/cs.g.group)]
				}
				for m := range cs.bias {
					cs.bias[m] = cs.bias[m]*scale[m] + shift[m]
				}
				b.fused = true
				return x, nil
			}
		case *dwConvStep:
			if cs.act.kind == actNone {
				M := cs.g.m
				for i := range cs.w {
					cs.w[i] *= scale[i%M]
				}
				for m := range cs.bias {
					cs.bias[m] = cs.bias[m]*scale[m] + shift[m]
				}
				b.fused = true
				return x, nil
			}
		}
	}
	if x.konst {
		return nil, errors.New("constant data input is not supported")
	}
	x, err := b.ensureLayout(x, channelsLast(len(x.shape)))
	if err != nil {
		return nil, err
	}
	out, err := b.runtime("", x.shape, x.layout)
	if err != nil {
		return nil, err
	}
	b.addStep(&affineStep{stepIO: stepIO{in: []int{x.buf}, out: out.buf}, scale: scale, shift: shift})
	return out, nil
}

func (b *builder) activation(n *pbNode, a attrs, in []*value) (*value, error) {
	x := in[0]
	if x.isInt {
		return nil, errors.New("integer input is not supported")
	}
	var act activation
	switch n.opType {
	case "Relu":
		act.kind = actRelu
	case "LeakyRelu":
		act.kind = actLeaky
		act.alpha = a.float("alpha", 0.01)
	case "Sigmoid":
		act.kind = actSigmoid
	case "Tanh":
		act.kind = actTanh
	case "Clip":
		act.kind = actClip
		act.lo, act.hi = float32(math.Inf(-1)), float32(math.Inf(1))
		if b.opset < 11 {
			act.lo = a.float("min", act.lo)
			act.hi = a.float("max", act.hi)
		} else {
			for i, dst := range []*float32{&act.lo, &act.hi} {
				if i+1 < len(in) && in[i+1] != nil {
					v, err := plainFloats(in[i+1])
					if err != nil || len(v) != 1 {
						return nil, fmt.Errorf("Clip bound %q must be a scalar constant", n.inputs[i+1])
					}
					*dst = v[0]
				}
			}
		}
	}
	if st := b.fusable(x, n.inputs[0]); st != nil {
		var target *activation
		switch s := st.(type) {
		case *convStep:
			target = &s.act
		case *dwConvStep:
			target = &s.act
		case *affineStep:
			target = &s.act
		case *binaryStep:
			target = &s.act
		case *gemmStep:
			target = &s.act
		}
		if target != nil && target.kind == actNone {
			*target = act
			b.fused = true
			return x, nil
		}
	}
	out, err := b.runtime("", x.shape, x.layout)
	if err != nil {
		return nil, err
	}
	b.addStep(&actStep{stepIO: stepIO{in: []int{x.buf}, out: out.buf}, act: act})
	return out, nil
}

func (b *builder) pool(n *pbNode, a attrs, x *value) (*value, error) {
	if x.isInt || x.konst || len(x.shape) != 4 {
		return nil, fmt.Errorf("input %v: only runtime 2-D pooling is supported", x.shape)
	}
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	ps := poolStep{n: N, c: C, h: H, w: W, isMax: n.opType == "MaxPool" || n.opType == "GlobalMaxPool"}
	var k, s, d, pads []int
	var err error
	if n.opType == "GlobalAveragePool" || n.opType == "GlobalMaxPool" {
		k, s, d, pads = []int{H, W}, []int{1, 1}, []int{1, 1}, []int{0, 0, 0, 0}
	} else {
		var ok bool
		if k, ok = a.ints("kernel_shape"); !ok || len(k) != 2 || k[0] < 1 || k[1] < 1 || k[0] > 1<<16 || k[1] > 1<<16 {
			return nil, fmt.Errorf("kernel_shape %v invalid", k)
		}
		if s, err = spatialAttr(a, "strides", 2, 1); err != nil {
			return nil, err
		}
		if d, err = spatialAttr(a, "dilations", 2, 1); err != nil {
			return nil, err
		}
		if pads, err = b.convPads(a, []int{H, W}, k, s, d); err != nil {
			return nil, err
		}
		if len(n.outputs) > 1 && n.outputs[1] != "" {
			return nil, errors.New("MaxPool Indices output is not supported")
		}
		ps.countPad = a.int("count_include_pad", 0) != 0
	}
	ceil := a.int("ceil_mode", 0) != 0
	if ps.oh, err = windowOut(H, k[0], s[0], d[0], pads[0], pads[2], ceil); err != nil {
		return nil, err
	}
	if ps.ow, err = windowOut(W, k[1], s[1], d[1], pads[1], pads[3], ceil); err != nil {
		return nil, err
	}
	ps.kh, ps.kw, ps.sh, ps.sw, ps.dh, ps.dw, ps.pt, ps.pl = k[0], k[1], s[0], s[1], d[0], d[1], pads[0], pads[1]
	x, err = b.ensureLayout(x, channelsLast(4))
	if err != nil {
		return nil, err
	}
	out, err := b.runtime("", []int{N, C, ps.oh, ps.ow}, channelsLast(4))
	if err != nil {
		return nil, err
	}
	ps.stepIO = stepIO{in: []int{x.buf}, out: out.buf}
	b.addStep(&ps)
	return out, nil
}

// ---- elementwise binary ----

func (b *builder) binary(n *pbNode, x, y *value) (*value, error) {
	shape, err := broadcastShape(x.shape, y.shape)
	if err != nil {
		return nil, err
	}
	if len(shape) > maxRank {
		return nil, fmt.Errorf("rank %d exceeds %d", len(shape), maxRank)
	}
	if x.isInt || y.isInt {
		if !(x.isInt && y.isInt) {
			return nil, errors.New("mixed integer and float operands")
		}
		return foldIntBinary(n.opType, x, y, shape)
	}
	op := map[string]binOp{"Add": opAdd, "Sub": opSub, "Mul": opMul, "Div": opDiv, "Max": opMax, "Min": opMin}[n.opType]
	// Output layout: that of an operand with the full shape, preferring a
	// runtime one.
	var layout []int
	switch {
	case slices.Equal(x.shape, shape) && !x.konst:
		layout = x.layout
	case slices.Equal(y.shape, shape) && !y.konst:
		layout = y.layout
	case slices.Equal(x.shape, shape):
		layout = x.layout
	case slices.Equal(y.shape, shape):
		layout = y.layout
	}
	out, err := b.runtime("", shape, layout)
	if err != nil {
		return nil, err
	}
	it, err := newIter(physShape(shape, layout),
		bcastStrides(x.shape, x.layout, shape, layout),
		bcastStrides(y.shape, y.layout, shape, layout))
	if err != nil {
		return nil, err
	}
	b.addStep(&binaryStep{stepIO: stepIO{in: []int{x.buf, y.buf}, out: out.buf}, op: op, it: it})
	return out, nil
}

func foldIntBinary(op string, x, y *value, shape []int) (*value, error) {
	n, err := numel(shape)
	if err != nil {
		return nil, err
	}
	if n > 1<<16 {
		return nil, errors.New("integer tensor too large")
	}
	sx := bcastStrides(x.shape, nil, shape, nil)
	sy := bcastStrides(y.shape, nil, shape, nil)
	out := make([]int64, n)
	idx := make([]int, len(shape))
	for i := range out {
		ox, oy := 0, 0
		for k := range idx {
			ox += idx[k] * sx[k]
			oy += idx[k] * sy[k]
		}
		a, c := x.ints[ox], y.ints[oy]
		switch op {
		case "Add":
			out[i] = a + c
		case "Sub":
			out[i] = a - c
		case "Mul":
			out[i] = a * c
		case "Div":
			if c == 0 {
				return nil, errors.New("integer division by zero")
			}
			out[i] = a / c
		case "Max":
			out[i] = max(a, c)
		case "Min":
			out[i] = min(a, c)
		}
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return intConst("", shape, out), nil
}

// ---- Concat ----

func (b *builder) concat(n *pbNode, a attrs, in []*value) (*value, error) {
	r := len(in[0].shape)
	axis, err := normAxis(int(a.int("axis", 1)), max(r, 1))
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(in[0].shape)
	if r == 0 {
		return nil, errors.New("cannot concatenate scalars")
	}
	shape[axis] = 0
	allInt := true
	for _, v := range in {
		if v == nil {
			return nil, errors.New("missing input")
		}
		if len(v.shape) != r {
			return nil, fmt.Errorf("input ranks differ (%v, %v)", in[0].shape, v.shape)
		}
		for i := range shape {
			if i != axis && v.shape[i] != in[0].shape[i] {
				return nil, fmt.Errorf("input shapes %v and %v differ off axis %d", in[0].shape, v.shape, axis)
			}
		}
		shape[axis] += v.shape[axis]
		allInt = allInt && v.isInt
	}
	if allInt {
		if r != 1 {
			return nil, errors.New("integer Concat only for 1-D tensors")
		}
		var out []int64
		for _, v := range in {
			out = append(out, v.ints...)
		}
		return intConst("", shape, out), nil
	}
	var layout []int
	for _, v := range in {
		if v.isInt {
			return nil, errors.New("mixed integer and float inputs")
		}
		if !v.konst {
			layout = v.layout
			break
		}
	}
	out, err := b.runtime("", shape, layout)
	if err != nil {
		return nil, err
	}
	p := layoutOf(layout, r)
	pa := slices.Index(p, axis)
	ps := physShape(shape, layout)
	outer := 1
	for _, d := range ps[:pa] {
		outer *= d
	}
	st := &concatStep{stepIO: stepIO{out: out.buf}, outer: outer}
	for _, v := range in {
		v, err := b.ensureLayout(v, layout)
		if err != nil {
			return nil, err
		}
		c := 1
		for _, d := range physShape(v.shape, layout)[pa:] {
			c *= d
		}
		st.in = append(st.in, v.buf)
		st.chunks = append(st.chunks, c)
	}
	b.addStep(st)
	return out, nil
}

// ---- shape ops ----

func (b *builder) transpose(a attrs, x *value) (*value, error) {
	r := len(x.shape)
	perm, ok := a.ints("perm")
	if !ok {
		perm = make([]int, r)
		for i := range perm {
			perm[i] = r - 1 - i
		}
	}
	if !validPerm(perm, r) {
		return nil, fmt.Errorf("perm %v invalid for rank %d", perm, r)
	}
	shape := make([]int, r)
	for i, p := range perm {
		shape[i] = x.shape[p]
	}
	if x.isInt {
		if len(x.ints) > 1<<16 {
			return nil, errors.New("integer tensor too large")
		}
		// permute element indices (exact in float32 below 2^24)
		f := make([]float32, len(x.ints))
		for i := range f {
			f[i] = float32(i)
		}
		pd, err := permuteData(f, x.shape, nil, invertPerm(perm))
		if err != nil {
			return nil, err
		}
		v := intConst("", shape, make([]int64, len(pd)))
		for i, q := range pd {
			v.ints[i] = x.ints[int(q)]
		}
		return v, nil
	}
	// out logical axis i = in axis perm[i]; in is stored with layout p;
	// the same storage seen as out has layout inv(perm)∘p.
	nv := *x
	nv.shape = shape
	nv.layout = normLayout(composePerm(invertPerm(perm), layoutOf(x.layout, r)))
	return &nv, nil
}

func (b *builder) reshape(n *pbNode, a attrs, in []*value) (*value, error) {
	x := in[0]
	var shape []int
	total, err := numel(x.shape)
	if err != nil {
		return nil, err
	}
	switch n.opType {
	case "Reshape":
		var want []int
		if len(in) > 1 && in[1] != nil {
			if want, err = toInts(in[1]); err != nil {
				return nil, err
			}
		} else if want, _ = a.ints("shape"); want == nil {
			return nil, errors.New("missing shape")
		}
		if len(want) > maxRank {
			return nil, fmt.Errorf("rank %d exceeds %d", len(want), maxRank)
		}
		allowZero := a.int("allowzero", 0) != 0
		shape = make([]int, len(want))
		infer := -1
		known := 1
		for i, d := range want {
			switch {
			case d == 0 && !allowZero:
				if i >= len(x.shape) {
					return nil, fmt.Errorf("shape %v copies a missing dimension", want)
				}
				shape[i] = x.shape[i]
			case d == -1:
				if infer >= 0 {
					return nil, fmt.Errorf("shape %v has two -1", want)
				}
				infer = i
				continue
			case d < 0:
				return nil, fmt.Errorf("invalid shape %v", want)
			default:
				shape[i] = d
			}
			if shape[i] != 0 && known > maxElems/shape[i] {
				return nil, errTooLarge
			}
			known *= shape[i]
		}
		if infer >= 0 {
			if known == 0 || total%known != 0 {
				return nil, fmt.Errorf("cannot reshape %v to %v", x.shape, want)
			}
			shape[infer] = total / known
		}
	case "Flatten":
		axis := int(a.int("axis", 1))
		if axis < 0 {
			axis += len(x.shape)
		}
		if axis < 0 || axis > len(x.shape) {
			return nil, fmt.Errorf("axis %d out of range", axis)
		}
		outer := 1
		for _, d := range x.shape[:axis] {
			outer *= d
		}
		inner := 0
		if outer != 0 {
			inner = total / outer
		}
		shape = []int{outer, inner}
	case "Squeeze", "Unsqueeze":
		axes, ok := a.ints("axes")
		if len(in) > 1 && in[1] != nil {
			if axes, err = toInts(in[1]); err != nil {
				return nil, err
			}
			ok = true
		}
		if n.opType == "Squeeze" {
			drop := make([]bool, len(x.shape))
			for _, ax := range axes {
				ax, err := normAxis(ax, len(x.shape))
				if err != nil {
					return nil, err
				}
				if x.shape[ax] != 1 {
					return nil, fmt.Errorf("cannot squeeze axis %d of %v", ax, x.shape)
				}
				drop[ax] = true
			}
			for i, d := range x.shape {
				if (ok && !drop[i]) || (!ok && d != 1) {
					shape = append(shape, d)
				}
			}
		} else {
			r := len(x.shape) + len(axes)
			if !ok || r > maxRank {
				return nil, errors.New("invalid axes")
			}
			ins := make([]bool, r)
			for _, ax := range axes {
				ax, err := normAxis(ax, r)
				if err != nil {
					return nil, err
				}
				if ins[ax] {
					return nil, errors.New("repeated axis")
				}
				ins[ax] = true
			}
			j := 0
			for i := 0; i < r; i++ {
				if ins[i] {
					shape = append(shape, 1)
				} else {
					shape = append(shape, x.shape[j])
					j++
				}
			}
		}
	}
	if t, err := numel(shape); err != nil || t != total {
		return nil, fmt.Errorf("cannot reshape %v to %v", x.shape, shape)
	}
	if x.isInt {
		return intConst("", shape, x.ints), nil
	}
	x, err = b.ensureLayout(x, nil)
	if err != nil {
		return nil, err
	}
	nv := *x
	nv.shape = shape
	return &nv, nil
}

func shapeOp(a attrs, x *value) (*value, error) {
	r := len(x.shape)
	start, end := int(a.int("start", 0)), int(a.int("end", int64(r)))
	if start < 0 {
		start += r
	}
	if end < 0 {
		end += r
	}
	start, end = min(max(start, 0), r), min(max(end, 0), r)
	var out []int64
	for _, d := range x.shape[start:max(start, end)] {
		out = append(out, int64(d))
	}
	return intConst("", []int{len(out)}, out), nil
}

func gatherOp(a attrs, x, idx *value) (*value, error) {
	if !x.isInt || !idx.isInt {
		return nil, errors.New("Gather is supported only on constant integer tensors")
	}
	axis, err := normAxis(int(a.int("axis", 0)), max(len(x.shape), 1))
	if err != nil || len(x.shape) == 0 {
		return nil, fmt.Errorf("axis invalid for shape %v", x.shape)
	}
	outer, inner := 1, 1
	for _, d := range x.shape[:axis] {
		outer *= d
	}
	for _, d := range x.shape[axis+1:] {
		inner *= d
	}
	dim := x.shape[axis]
	shape := append(append(slices.Clone(x.shape[:axis]), idx.shape...), x.shape[axis+1:]...)
	var out []int64
	for o := 0; o < outer; o++ {
		for _, i := range idx.ints {
			if i < 0 {
				i += int64(dim)
			}
			if i < 0 || i >= int64(dim) {
				return nil, fmt.Errorf("index %d out of range %d", i, dim)
			}
			base := (o*dim + int(i)) * inner
			out = append(out, x.ints[base:base+inner]...)
		}
	}
	return intConst("", shape, out), nil
}

func (b *builder) cast(a attrs, x *value) (*value, error) {
	to := int(a.int("to", 0))
	isFloat := to == dtFloat || to == dtDouble || to == 10 || to == 16
	switch {
	case x.isInt && isFloat:
		f := make([]float32, len(x.ints))
		for i, v := range x.ints {
			f[i] = float32(v)
		}
		return b.floatConst("", x.shape, f), nil
	case x.isInt:
		return x, nil
	case isFloat:
		return x, nil
	case x.konst:
		f, err := plainFloats(x)
		if err != nil {
			return nil, err
		}
		v := make([]int64, len(f))
		for i, q := range f {
			if q != q || q > maxElems || q < -maxElems {
				return nil, errors.New("value out of integer range")
			}
			v[i] = int64(q)
		}
		return intConst("", x.shape, v), nil
	default:
		return nil, fmt.Errorf("Cast of runtime data to type %d is not supported", to)
	}
}

func (b *builder) slice(a attrs, in []*value) (*value, error) {
	x := in[0]
	r := len(x.shape)
	var starts, ends, axes, steps []int
	var err error
	if b.opset < 10 {
		var ok bool
		if starts, ok = a.ints("starts"); !ok {
			return nil, errors.New("missing starts")
		}
		if ends, ok = a.ints("ends"); !ok {
			return nil, errors.New("missing ends")
		}
		axes, _ = a.ints("axes")
	} else {
		get := func(i int) ([]int, error) {
			if i < len(in) && in[i] != nil {
				return toInts(in[i])
			}
			return nil, nil
		}
		if starts, err = get(1); err != nil {
			return nil, err
		}
		if ends, err = get(2); err != nil {
			return nil, err
		}
		if axes, err = get(3); err != nil {
			return nil, err
		}
		if steps, err = get(4); err != nil {
			return nil, err
		}
	}
	if axes == nil {
		axes = identity(len(starts))
	}
	if steps == nil {
		steps = make([]int, len(starts))
		for i := range steps {
			steps[i] = 1
		}
	}
	if len(ends) != len(starts) || len(axes) != len(starts) || len(steps) != len(starts) {
		return nil, errors.New("starts, ends, axes and steps differ in length")
	}
	begin := make([]int, r)
	step := make([]int, r)
	shape := slices.Clone(x.shape)
	for i := range step {
		step[i] = 1
	}
	for i, ax := range axes {
		ax, err := normAxis(ax, r)
		if err != nil {
			return nil, err
		}
		d := x.shape[ax]
		s, e, st := starts[i], ends[i], steps[i]
		if st == 0 {
			return nil, errors.New("slice step 0")
		}
		if s < 0 {
			s += d
		}
		if e < 0 {
			e += d
		}
		if st > 0 {
			s, e = min(max(s, 0), d), min(max(e, 0), d)
			shape[ax] = max(0, (e-s+st-1)/st)
		} else {
			s, e = min(max(s, -1), d-1), min(max(e, -1), d-1)
			shape[ax] = max(0, (s-e-st-1)/(-st))
		}
		begin[ax], step[ax] = s, st
	}
	n, err := numel(shape)
	if err != nil {
		return nil, err
	}
	if x.isInt {
		out := make([]int64, 0, n)
		st := physStrides(x.shape, nil)
		idx := make([]int, r)
		for k := 0; k < n; k++ {
			off := 0
			for i := range idx {
				off += (begin[i] + idx[i]*step[i]) * st[i]
			}
			out = append(out, x.ints[off])
			for i := r - 1; i >= 0; i-- {
				idx[i]++
				if idx[i] < shape[i] {
					break
				}
				idx[i] = 0
			}
		}
		return intConst("", shape, out), nil
	}
	out, err := b.runtime("", shape, x.layout)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return out, nil
	}
	st := physStrides(x.shape, x.layout)
	off := 0
	sst := make([]int, r)
	for i := range st {
		off += begin[i] * st[i]
		sst[i] = st[i] * step[i]
	}
	p := layoutOf(x.layout, r)
	ps := make([]int, r)
	for j := range p {
		ps[j] = sst[p[j]]
	}
	it, err := newIter(physShape(shape, x.layout), ps)
	if err != nil {
		return nil, err
	}
	b.addStep(&copyStep{stepIO: stepIO{in: []int{x.buf}, out: out.buf}, it: it, off: off})
	return out, nil
}

// ---- MatMul / Gemm ----

func (b *builder) gemm(n *pbNode, a attrs, in []*value) (*value, error) {
	x, w := in[0], in[1]
	if x.isInt || w.isInt {
		return nil, errors.New("integer operands are not supported")
	}
	if len(w.shape) != 2 || len(x.shape) < 1 {
		return nil, fmt.Errorf("shapes %v x %v: B must be 2-D", x.shape, w.shape)
	}
	alpha, beta := float32(1), float32(1)
	if n.opType == "Gemm" {
		if len(x.shape) != 2 {
			return nil, fmt.Errorf("Gemm A must be 2-D, is %v", x.shape)
		}
		alpha, beta = a.float("alpha", 1), a.float("beta", 1)
		var err error
		if a.int("transA", 0) != 0 {
			if x, err = b.transpose(attrs{{name: "perm", ints: []int64{1, 0}}}, x); err != nil {
				return nil, err
			}
		}
		if a.int("transB", 0) != 0 {
			if w, err = b.transpose(attrs{{name: "perm", ints: []int64{1, 0}}}, w); err != nil {
				return nil, err
			}
		}
	}
	K, N := w.shape[0], w.shape[1]
	if x.shape[len(x.shape)-1] != K {
		return nil, fmt.Errorf("shapes %v x %v do not match", x.shape, w.shape)
	}
	rows := 1
	for _, d := range x.shape[:len(x.shape)-1] {
		rows *= d
	}
	shape := append(slices.Clone(x.shape[:len(x.shape)-1]), N)
	x, err := b.ensureLayout(x, nil)
	if err != nil {
		return nil, err
	}
	out, err := b.runtime("", shape, nil)
	if err != nil {
		return nil, err
	}
	gs := &gemmStep{stepIO: stepIO{in: []int{x.buf}, out: out.buf}, rows: rows, k: K, n: N}
	if w.konst {
		wd, err := plainFloats(w)
		if err != nil {
			return nil, err
		}
		gs.w = slices.Clone(wd)
		for i := range gs.w {
			gs.w[i] *= alpha
		}
	} else {
		if alpha != 1 {
			return nil, errors.New("alpha with a runtime B is not supported")
		}
		w, err = b.ensureLayout(w, nil)
		if err != nil {
			return nil, err
		}
		gs.in = append(gs.in, w.buf)
	}
	if n.opType == "Gemm" && len(in) > 2 && in[2] != nil && beta != 0 {
		c, err := plainFloats(in[2])
		if err != nil {
			return nil, err
		}
		if _, err := broadcastShape(in[2].shape, shape); err != nil {
			return nil, err
		}
		switch {
		case len(c) == N && (len(in[2].shape) < 2 || in[2].shape[0] == 1):
			gs.bias = scaled(c, beta)
		case len(c) == 1:
			gs.bias = scaled(slices.Repeat(c, N), beta)
		default:
			full, err := broadcastTo(c, in[2].shape, shape)
			if err != nil {
				return nil, err
			}
			gs.biasFull = scaled(full, beta)
		}
	}
	b.addStep(gs)
	return out, nil
}

func scaled(v []float32, s float32) []float32 {
	out := slices.Clone(v)
	for i := range out {
		out[i] *= s
	}
	return out
}

func broadcastTo(data []float32, from, to []int) ([]float32, error) {
	n, err := numel(to)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	it, err := newIter(to, bcastStrides(from, nil, to, nil))
	if err != nil {
		return nil, err
	}
	copyStrided(&it, out, data, 0)
	return out, nil
}

// ---- Softmax, Pad ----

func (b *builder) softmax(a attrs, x *value) (*value, error) {
	if x.isInt || len(x.shape) == 0 {
		return nil, errors.New("unsupported input")
	}
	r := len(x.shape)
	def := int64(-1)
	if b.opset < 13 {
		def = 1
	}
	axis, err := normAxis(int(a.int("axis", def)), r)
	if err != nil {
		return nil, err
	}
	x, err = b.ensureLayout(x, nil)
	if err != nil {
		return nil, err
	}
	out, err := b.runtime("", x.shape, nil)
	if err != nil {
		return nil, err
	}
	st := &softmaxStep{stepIO: stepIO{in: []int{x.buf}, out: out.buf}, outer: 1, axis: 1, inner: 1}
	for i, d := range x.shape {
		switch {
		case i < axis:
			st.outer *= d
		case i == axis || b.opset < 13:
			st.axis *= d
		default:
			st.inner *= d
		}
	}
	b.addStep(st)
	return out, nil
}

func (b *builder) pad(a attrs, in []*value) (*value, error) {
	x := in[0]
	if x.isInt {
		return nil, errors.New("integer input is not supported")
	}
	r := len(x.shape)
	if mode := a.str("mode", "constant"); mode != "constant" {
		return nil, fmt.Errorf("mode %q is not supported", mode)
	}
	var pads []int
	var val float32
	if b.opset < 11 {
		pads, _ = a.ints("pads")
		val = a.float("value", 0)
	} else {
		if len(in) < 2 || in[1] == nil {
			return nil, errors.New("missing pads")
		}
		var err error
		if pads, err = toInts(in[1]); err != nil {
			return nil, err
		}
		if len(in) > 2 && in[2] != nil {
			v, err := plainFloats(in[2])
			if err != nil || len(v) != 1 {
				return nil, errors.New("constant_value must be a scalar constant")
			}
			val = v[0]
		}
		if len(in) > 3 && in[3] != nil {
			axes, err := toInts(in[3])
			if err != nil {
				return nil, err
			}
			if len(pads) != 2*len(axes) {
				return nil, errors.New("pads do not match axes")
			}
			full := make([]int, 2*r)
			for i, ax := range axes {
				ax, err := normAxis(ax, r)
				if err != nil {
					return nil, err
				}
				full[ax], full[ax+r] = pads[i], pads[i+len(axes)]
			}
			pads = full
		}
	}
	if len(pads) != 2*r {
		return nil, fmt.Errorf("pads %v: want %d values", pads, 2*r)
	}
	shape := make([]int, r)
	for i := range shape {
		if pads[i] < 0 || pads[i+r] < 0 || pads[i] > 1<<16 || pads[i+r] > 1<<16 {
			return nil, fmt.Errorf("pads %v are not supported (negative or too large)", pads)
		}
		shape[i] = x.shape[i] + pads[i] + pads[i+r]
	}
	out, err := b.runtime("", shape, x.layout)
	if err != nil {
		return nil, err
	}
	ost := physStrides(shape, x.layout)
	base := 0
	for i := range shape {
		base += pads[i] * ost[i]
	}
	p := layoutOf(x.layout, r)
	ps := make([]int, r)
	for j := range p {
		ps[j] = ost[p[j]]
	}
	// walk the input rows (physical order); inner axis must stay a row,
	// so iterate with all axes but merge only where the output is contiguous
	it, err := newIter(physShape(x.shape, x.layout), ps)
	if err != nil {
		return nil, err
	}
	if it.st[0][it.rank-1] != 1 {
		// inner axis not contiguous in output: add a unit inner axis
		if it.rank == maxRank {
			return nil, errors.New("rank too high")
		}
		it.shape[it.rank] = 1
		it.st[0][it.rank] = 1
		it.rank++
	}
	b.addStep(&padStep{stepIO: stepIO{in: []int{x.buf}, out: out.buf}, value: val, it: it, base: base})
	return out, nil
}
