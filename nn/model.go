package nn

import (
	"errors"
	"fmt"
	"slices"
)

// Tensor names a model input or output and gives its shape, with the batch
// dimension resolved.
type Tensor struct {
	Name  string
	Shape []int
}

// Model is a loaded network: graph, weights preloaded and packed, and a
// static execution plan. It is immutable and safe to share between
// goroutines; each goroutine runs it through its own Session.
type Model struct {
	inputs, outputs []Tensor
	inBufs, outBufs []int
	steps           []step
	bufs            []bufInfo // per logical buffer: size and constant data
	slot            []int     // logical buffer -> storage slot (-1: own storage)
	slotSize        []int
	opset           int64
}

// maxSessionFloats bounds the memory of one session (256 MiB of float32).
const maxSessionFloats = 1 << 26

// LoadONNX parses an ONNX model (protobuf ModelProto) and builds its
// execution plan. A symbolic (dynamic) batch dimension is set to 1. A
// corrupted or unsupported file gives an error naming the node and op.
func LoadONNX(data []byte) (*Model, error) {
	return LoadONNXBatch(data, 1)
}

// LoadONNXBatch is LoadONNX with symbolic dimensions of the graph inputs
// (normally the batch dimension N) set to batch.
func LoadONNXBatch(data []byte, batch int) (*Model, error) {
	if batch < 1 || batch > 1<<16 {
		return nil, fmt.Errorf("nn: batch size %d out of range", batch)
	}
	pm, err := decodeModel(data)
	if err != nil {
		return nil, fmt.Errorf("nn: decoding ONNX: %w", err)
	}
	if pm.opset == 0 {
		return nil, errors.New("nn: model imports no ai.onnx opset")
	}
	m, err := build(pm, batch)
	if err != nil {
		return nil, fmt.Errorf("nn: %w", err)
	}
	return m, nil
}

func build(pm *pbModel, batch int) (*Model, error) {
	g := pm.graph
	b := newBuilder(pm.opset, batch)
	for _, n := range g.nodes {
		for _, in := range n.inputs {
			b.uses[in]++
		}
	}
	for _, o := range g.outputs {
		b.uses[o.name]++
	}
	for _, t := range g.initializer {
		if t.name == "" {
			return nil, errors.New("initializer without a name")
		}
		v, err := b.tensorValue(t.name, t)
		if err != nil {
			return nil, fmt.Errorf("initializer %q: %w", t.name, err)
		}
		v.name = t.name
		b.vals[t.name] = v
	}
	m := &Model{opset: pm.opset}
	for _, in := range g.inputs {
		if _, ok := b.vals[in.name]; ok {
			continue // an initializer listed as input (IR < 4)
		}
		if in.elemType != dtFloat {
			return nil, fmt.Errorf("input %q: element type %d is not supported (float32 only)", in.name, in.elemType)
		}
		if !in.hasShape || len(in.dims) > maxRank {
			return nil, fmt.Errorf("input %q: missing or unsupported shape", in.name)
		}
		shape := make([]int, len(in.dims))
		for i, d := range in.dims {
			switch {
			case d > 0 && d <= maxElems:
				shape[i] = int(d)
			case d <= 0 && i == 0:
				shape[i] = batch
			default:
				return nil, fmt.Errorf("input %q: dimension %d (%d %q) is not supported; only the batch dimension may be symbolic", in.name, i, d, in.params[i])
			}
		}
		v, err := b.runtime(in.name, shape, nil)
		if err != nil {
			return nil, fmt.Errorf("input %q: %w", in.name, err)
		}
		b.vals[in.name] = v
		m.inputs = append(m.inputs, Tensor{Name: in.name, Shape: shape})
		m.inBufs = append(m.inBufs, v.buf)
	}
	if len(m.inputs) == 0 {
		return nil, errors.New("graph has no runtime inputs")
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		if err := b.node(n); err != nil {
			return nil, fmt.Errorf("node %q (%s): %w", n.name, n.opType, err)
		}
	}
	if len(g.outputs) == 0 {
		return nil, errors.New("graph has no outputs")
	}
	for _, o := range g.outputs {
		v, ok := b.vals[o.name]
		if !ok {
			return nil, fmt.Errorf("output %q is not produced by the graph", o.name)
		}
		if v.isInt {
			return nil, fmt.Errorf("output %q: integer outputs are not supported", o.name)
		}
		v, err := b.ensureLayout(v, nil)
		if err != nil {
			return nil, fmt.Errorf("output %q: %w", o.name, err)
		}
		if v.konst || slices.Contains(m.inBufs, v.buf) || slices.Contains(m.outBufs, v.buf) {
			// give the output storage of its own
			nv, err := b.runtime(o.name, v.shape, nil)
			if err != nil {
				return nil, err
			}
			it, err := newIter([]int{b.bufs[v.buf].n}, []int{1})
			if err != nil {
				return nil, err
			}
			b.addStep(&copyStep{stepIO: stepIO{in: []int{v.buf}, out: nv.buf}, it: it})
			v = nv
		}
		if o.hasShape && len(o.dims) == len(v.shape) {
			for i, d := range o.dims {
				if d > 0 && int(d) != v.shape[i] {
					return nil, fmt.Errorf("output %q: computed shape %v differs from declared %v", o.name, v.shape, o.dims)
				}
			}
		}
		m.outputs = append(m.outputs, Tensor{Name: o.name, Shape: slices.Clone(v.shape)})
		m.outBufs = append(m.outBufs, v.buf)
	}
	m.steps = b.steps
	m.bufs = b.bufs
	if err := m.planMemory(); err != nil {
		return nil, err
	}
	return m, nil
}

// planMemory lets intermediate buffers whose lifetimes do not overlap share
// storage (greedy best fit in plan order).
func (m *Model) planMemory() error {
	nb := len(m.bufs)
	def := make([]int, nb)
	last := make([]int, nb)
	for i := range def {
		def[i], last[i] = -1, -1
	}
	for i, s := range m.steps {
		in, out := s.bufs()
		for _, b := range in {
			last[b] = i
		}
		if def[out] < 0 {
			def[out] = i
		}
	}
	pinned := make([]bool, nb)
	for _, b := range m.inBufs {
		pinned[b] = true
	}
	for _, b := range m.outBufs {
		pinned[b] = true
	}
	m.slot = make([]int, nb)
	for i := range m.slot {
		m.slot[i] = -1
	}
	// buffers defined at each step
	byStep := make([][]int, len(m.steps))
	for b := 0; b < nb; b++ {
		if m.bufs[b].konst != nil || pinned[b] || def[b] < 0 {
			continue
		}
		byStep[def[b]] = append(byStep[def[b]], b)
	}
	var free []int // free slots
	var slotEnd []int
	total := 0
	for i := range m.steps {
		// release slots whose buffers are dead before step i
		for s, end := range slotEnd {
			if end >= 0 && end < i {
				free = append(free, s)
				slotEnd[s] = -1
			}
		}
		for _, b := range byStep[i] {
			n := m.bufs[b].n
			end := max(last[b], i)
			// best fit: the smallest free slot that holds n, else the
			// largest one (it grows)
			best := -1
			for k, s := range free {
				if best < 0 {
					best = k
					continue
				}
				cur, bs := m.slotSize[s], m.slotSize[free[best]]
				switch {
				case cur >= n && (bs < n || cur < bs):
					best = k
				case cur < n && bs < n && cur > bs:
					best = k
				}
			}
			var s int
			if best >= 0 {
				s = free[best]
				free = slices.Delete(free, best, best+1)
				m.slotSize[s] = max(m.slotSize[s], n)
			} else {
				s = len(m.slotSize)
				m.slotSize = append(m.slotSize, n)
				slotEnd = append(slotEnd, -1)
			}
			slotEnd[s] = end
			m.slot[b] = s
		}
	}
	for _, n := range m.slotSize {
		total += n
	}
	for b := 0; b < nb; b++ {
		if m.slot[b] < 0 && m.bufs[b].konst == nil {
			total += m.bufs[b].n
		}
	}
	if total > maxSessionFloats {
		return fmt.Errorf("session would need %d floats: %w", total, errTooLarge)
	}
	return nil
}

// Inputs returns the model inputs with their shapes, in graph order.
func (m *Model) Inputs() []Tensor { return cloneTensors(m.inputs) }

// Outputs returns the model outputs with their shapes, in graph order.
func (m *Model) Outputs() []Tensor { return cloneTensors(m.outputs) }

func cloneTensors(t []Tensor) []Tensor {
	out := make([]Tensor, len(t))
	for i, x := range t {
		out[i] = Tensor{Name: x.Name, Shape: slices.Clone(x.Shape)}
	}
	return out
}

// Steps returns the number of kernel invocations in the execution plan
// (after fusing BatchNormalization and activations into convolutions).
func (m *Model) Steps() int { return len(m.steps) }

// Session holds every buffer one inference needs. It is not safe for
// concurrent use; use one Session per goroutine.
type Session struct {
	m    *Model
	bufs [][]float32
}

// NewSession allocates the buffers for running m.
func (m *Model) NewSession() (*Session, error) {
	s := &Session{m: m, bufs: make([][]float32, len(m.bufs))}
	slots := make([][]float32, len(m.slotSize))
	for i, n := range m.slotSize {
		slots[i] = make([]float32, n)
	}
	for i, b := range m.bufs {
		switch {
		case b.konst != nil:
			s.bufs[i] = b.konst[:b.n:b.n]
		case m.slot[i] >= 0:
			s.bufs[i] = slots[m.slot[i]][:b.n:b.n]
		default:
			s.bufs[i] = make([]float32, b.n)
		}
	}
	return s, nil
}

// Input returns the buffer of input i, to be filled before Run, laid out as
// the model declares it (row-major over Inputs()[i].Shape; for the B-Human
// nets NHWC). Its length is the product of the shape. It returns nil if i is
// out of range.
func (s *Session) Input(i int) []float32 {
	if i < 0 || i >= len(s.m.inBufs) {
		return nil
	}
	return s.bufs[s.m.inBufs[i]]
}

// SetInput copies data into input i; data must have exactly the input's
// length.
func (s *Session) SetInput(i int, data []float32) error {
	in := s.Input(i)
	if in == nil && (i < 0 || i >= len(s.m.inBufs)) {
		return fmt.Errorf("nn: input %d out of range (model has %d)", i, len(s.m.inBufs))
	}
	if len(data) != len(in) {
		return fmt.Errorf("nn: input %d (%s %v) needs %d values, got %d",
			i, s.m.inputs[i].Name, s.m.inputs[i].Shape, len(in), len(data))
	}
	copy(in, data)
	return nil
}

// Output returns the buffer of output i, valid after Run until the next Run,
// row-major over Outputs()[i].Shape. It returns nil if i is out of range.
func (s *Session) Output(i int) []float32 {
	if i < 0 || i >= len(s.m.outBufs) {
		return nil
	}
	return s.bufs[s.m.outBufs[i]]
}

// Run executes the plan on the current inputs. It does not allocate.
func (s *Session) Run() error {
	b := s.bufs
	for _, st := range s.m.steps {
		st.run(b)
	}
	return nil
}
