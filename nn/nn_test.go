package nn

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var allNets = []string{
	"BallAndPenaltyMarkPerceptor__multihead.onnx",
	"BOP__net.onnx",
	"FieldBoundary__net.onnx",
	"FieldBoundary__net-uncertainty.onnx",
	"IntersectionsClassifier__distanceUpdatedModel.onnx",
	"RobotDetector__4_anchor_boxes_model_no_activation_20230629-220730.onnx",
}

func TestShapes(t *testing.T) {
	want := map[string][2][][]int{
		"BallAndPenaltyMarkPerceptor__multihead.onnx": {{{1, 32, 32, 1}}, {{1, 6}}},
		"BOP__net.onnx":                                                          {{{1, 240, 320, 2}}, {{1, 15, 20, 4}}},
		"FieldBoundary__net.onnx":                                                {{{1, 30, 40, 3}}, {{1, 40}}},
		"FieldBoundary__net-uncertainty.onnx":                                    {{{1, 30, 40, 3}}, {{1, 40, 2}}},
		"IntersectionsClassifier__distanceUpdatedModel.onnx":                     {{{1, 32, 32, 1}, {1, 1}}, {{1, 4}}},
		"RobotDetector__4_anchor_boxes_model_no_activation_20230629-220730.onnx": {{{1, 60, 80, 3}}, {{1, 8, 10, 4, 5}}},
	}
	for _, name := range allNets {
		m := loadModel(t, name, 1)
		var ins, outs [][]int
		for _, x := range m.Inputs() {
			ins = append(ins, x.Shape)
		}
		for _, x := range m.Outputs() {
			outs = append(outs, x.Shape)
		}
		w := want[name]
		if !slices.EqualFunc(ins, w[0], slices.Equal) || !slices.EqualFunc(outs, w[1], slices.Equal) {
			t.Errorf("%s: inputs %v outputs %v, want %v %v", name, ins, outs, w[0], w[1])
		}
		s, _ := m.NewSession()
		for i, x := range m.Inputs() {
			n := 1
			for _, d := range x.Shape {
				n *= d
			}
			if len(s.Input(i)) != n {
				t.Errorf("%s: input %d has %d values, want %d", name, i, len(s.Input(i)), n)
			}
		}
		if s.Input(-1) != nil || s.Input(len(ins)) != nil || s.Output(len(outs)) != nil {
			t.Errorf("%s: out-of-range Input/Output not nil", name)
		}
		if err := s.SetInput(0, make([]float32, 3)); err == nil || !strings.Contains(err.Error(), "needs") {
			t.Errorf("%s: SetInput with wrong size: %v", name, err)
		}
		if err := s.SetInput(5, nil); err == nil {
			t.Errorf("%s: SetInput out of range: no error", name)
		}
	}
	m := loadModel(t, "FieldBoundary__net.onnx", 4)
	if got := m.Inputs()[0].Shape; !slices.Equal(got, []int{4, 30, 40, 3}) {
		t.Errorf("batch 4 input shape %v", got)
	}
	if got := m.Outputs()[0].Shape; !slices.Equal(got, []int{4, 40}) {
		t.Errorf("batch 4 output shape %v", got)
	}
}

// Run must not allocate.
func TestRunAllocs(t *testing.T) {
	for _, name := range allNets {
		if testing.Short() && strings.HasPrefix(name, "BOP") {
			continue
		}
		m := loadModel(t, name, 1)
		s, err := m.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(3, func() { _ = s.Run() }); a != 0 {
			t.Errorf("%s: %v allocs per Run", name, a)
		}
	}
}

// A Model is shared; each goroutine has its own Session (run with -race).
func TestConcurrentSessions(t *testing.T) {
	m := loadModel(t, "BallAndPenaltyMarkPerceptor__multihead.onnx", 1)
	ref, _ := m.NewSession()
	in := refInput{Files: []string{"patch32_f2_ball.u8"}}
	in.fill(t, ref.Input(0))
	_ = ref.Run()
	want := slices.Clone(ref.Output(0))
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, _ := m.NewSession()
			copy(s.Input(0), ref.Input(0))
			for i := 0; i < 20; i++ {
				_ = s.Run()
				if !slices.Equal(s.Output(0), want) {
					errs <- "output differs between sessions"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// The SIMD kernels must agree with the portable ones.
func TestKernelsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	for _, width := range []int{4, 8, 16} {
		for _, np := range []int{1, tilePixels(width)} {
			kc, nky, xsy, wsy, ldw, xdx, odx := 7, 3, 40, 7*24, 24, 9, 20
			x := fill((np-1)*xdx + (nky-1)*xsy + kc)
			w := fill((nky-1)*wsy + (kc-1)*ldw + 24)
			o1 := fill((np-1)*odx + width)
			o2 := slices.Clone(o1)
			tile(width, np, o1, x, w, kc, nky, xsy, wsy, ldw, xdx, odx)
			tileGo(width, np, o2, x, w, kc, nky, xsy, wsy, ldw, xdx, odx)
			for i := range o1 {
				if math.Abs(float64(o1[i]-o2[i])) > 1e-5 {
					t.Fatalf("tile %dx%d: %d: %v vs %v", width, np, i, o1[i], o2[i])
				}
			}
		}
	}
	for _, c := range []int{3, 4, 16, 20, 24, 37} {
		in := fill(200 + 3*64 + 3*c)
		w := fill(3*3*c + c)
		o1 := fill(c)
		o2 := slices.Clone(o1)
		depthwiseTaps(o1, in, w, 3, 2, 64, c+1, 3*c)
		depthwiseTapsGo(o2, in, w, c, 3, 2, 64, c+1, 3*c)
		for i := range o1 {
			if math.Abs(float64(o1[i]-o2[i])) > 1e-5 {
				t.Fatalf("depthwise c=%d: %d: %v vs %v", c, i, o1[i], o2[i])
			}
		}
		a, b := fill(c), fill(c)
		m := slices.Clone(a)
		maxInto(m, b)
		relu(a)
		for i := range a {
			if m[i] != max(m[i], b[i]) || a[i] < 0 {
				t.Fatalf("maxInto/relu c=%d wrong at %d", c, i)
			}
		}
	}
}

func readNet(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(netDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Corrupted and unsupported files give errors, never panics.
func TestBadModels(t *testing.T) {
	ball := readNet(t, "BallAndPenaltyMarkPerceptor__multihead.onnx")
	cases := map[string][]byte{
		"empty":     nil,
		"garbage":   []byte("this is not an ONNX model at all"),
		"truncated": ball[:len(ball)/2],
		"one byte":  ball[:1],
		"zeros":     make([]byte, 100),
		"ff":        bytes.Repeat([]byte{0xff}, 64),
	}
	cases["wrong initializer size"] = buildAddModel(t, make([]byte, 12), 4)
	cases["shape mismatch"] = buildAddModel(t, make([]byte, 12), 3)
	cases["huge dims"] = buildAddModel(t, nil, 1<<40)
	for name, data := range cases {
		m, err := LoadONNX(data)
		if err == nil {
			t.Errorf("%s: loaded (%d inputs), want error", name, len(m.Inputs()))
			continue
		}
		if !strings.HasPrefix(err.Error(), "nn: ") {
			t.Errorf("%s: error %q lacks the package prefix", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
	if _, err := LoadONNXBatch(ball, 0); err == nil {
		t.Error("batch 0 accepted")
	}
}

// A hand-built model with an unsupported op names node and op.
func TestUnsupportedOpError(t *testing.T) {
	data := buildModel(t, "Hardmax")
	_, err := LoadONNX(data)
	if err == nil || !strings.Contains(err.Error(), `"n0"`) || !strings.Contains(err.Error(), "Hardmax") {
		t.Fatalf("error %v does not name node and op", err)
	}
}

// ---- a tiny protobuf writer for hand-built test models ----

type pbw struct{ b []byte }

func (w *pbw) varint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *pbw) key(f, wt int)   { w.varint(uint64(f<<3 | wt)) }
func (w *pbw) bytes(f int, b []byte) {
	w.key(f, 2)
	w.varint(uint64(len(b)))
	w.b = append(w.b, b...)
}
func (w *pbw) str(f int, s string) { w.bytes(f, []byte(s)) }
func (w *pbw) int(f int, v int64)  { w.key(f, 0); w.varint(uint64(v)) }

func valueInfo(name string, dims ...int64) []byte {
	var shape pbw
	for _, d := range dims {
		var dim pbw
		dim.int(1, d)
		shape.bytes(1, dim.b)
	}
	var tt pbw
	tt.int(1, dtFloat)
	tt.bytes(2, shape.b)
	var tp pbw
	tp.bytes(1, tt.b)
	var vi pbw
	vi.str(1, name)
	vi.bytes(2, tp.b)
	return vi.b
}

// buildModel returns a model x[1,4] -> op -> y[1,4].
func buildModel(t testing.TB, op string) []byte {
	t.Helper()
	var node pbw
	node.str(1, "x")
	node.str(2, "y")
	node.str(3, "n0")
	node.str(4, op)
	var g pbw
	g.bytes(1, node.b)
	g.str(2, "g")
	g.bytes(11, valueInfo("x", 1, 4))
	g.bytes(12, valueInfo("y", 1, 4))
	var opset pbw
	opset.int(2, 13)
	var m pbw
	m.int(1, 8)
	m.bytes(8, opset.b)
	m.bytes(7, g.b)
	return m.b
}

// buildAddModel returns a model y = x[1,4] + b with b an initializer of the
// given dims and raw data.
func buildAddModel(t testing.TB, raw []byte, dims ...int64) []byte {
	t.Helper()
	var node pbw
	node.str(1, "x")
	node.str(1, "b")
	node.str(2, "y")
	node.str(3, "add")
	node.str(4, "Add")
	var init pbw
	for _, d := range dims {
		init.int(1, d)
	}
	init.int(2, dtFloat)
	init.str(8, "b")
	init.bytes(9, raw)
	var g pbw
	g.bytes(1, node.b)
	g.bytes(5, init.b)
	g.bytes(11, valueInfo("x", 1, 4))
	g.bytes(12, valueInfo("y", 1, 4))
	var opset pbw
	opset.int(2, 13)
	var m pbw
	m.int(1, 8)
	m.bytes(8, opset.b)
	m.bytes(7, g.b)
	return m.b
}

func TestBroadcastAdd(t *testing.T) {
	raw := binary.LittleEndian.AppendUint32(nil, math.Float32bits(10))
	m, err := LoadONNX(buildAddModel(t, raw, 1))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.NewSession()
	_ = s.SetInput(0, []float32{1, 2, 3, 4})
	_ = s.Run()
	if got := s.Output(0); !slices.Equal(got, []float32{11, 12, 13, 14}) {
		t.Fatalf("got %v", got)
	}
}

func TestTinyModels(t *testing.T) {
	for _, tc := range []struct {
		op   string
		want func(float32) float32
	}{
		{"Relu", func(v float32) float32 { return max(v, 0) }},
		{"Sigmoid", func(v float32) float32 { return float32(1 / (1 + math.Exp(-float64(v)))) }},
		{"Identity", func(v float32) float32 { return v }},
	} {
		m, err := LoadONNX(buildModel(t, tc.op))
		if err != nil {
			t.Fatalf("%s: %v", tc.op, err)
		}
		s, _ := m.NewSession()
		in := []float32{-2, -0.5, 0.5, 3}
		if err := s.SetInput(0, in); err != nil {
			t.Fatal(err)
		}
		_ = s.Run()
		for i, v := range in {
			if got := s.Output(0)[i]; math.Abs(float64(got-tc.want(v))) > 1e-6 {
				t.Errorf("%s(%v) = %v, want %v", tc.op, v, got, tc.want(v))
			}
		}
	}
}
