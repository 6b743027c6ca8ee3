package nn

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Reference outputs were computed once with onnxruntime (see
// testdata/reference/gen.mjs and README.md).

type refInput struct {
	Name   string    `json:"name"`
	Shape  []int     `json:"shape"`
	Files  []string  `json:"files"`
	Values []float32 `json:"values"`
}

type refOutput struct {
	Name  string    `json:"name"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

type refCase struct {
	Model   string      `json:"model"`
	Batch   int         `json:"batch"`
	Inputs  []refInput  `json:"inputs"`
	Outputs []refOutput `json:"outputs"`
}

const netDir = "testdata/bhuman-nets-2025"

func loadRef(t testing.TB) []refCase {
	t.Helper()
	b, err := os.ReadFile("testdata/reference/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []refCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) == 0 {
		t.Fatal("no reference cases")
	}
	return ref.Cases
}

// fill copies the case's input data into dst.
func (in *refInput) fill(t testing.TB, dst []float32) {
	t.Helper()
	var src []float32
	if in.Files != nil {
		for _, f := range in.Files {
			b, err := os.ReadFile(filepath.Join("testdata/inputs", f))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range b {
				src = append(src, float32(v))
			}
		}
	} else {
		src = in.Values
	}
	if len(src) != len(dst) {
		t.Fatalf("input %s: %d values for a buffer of %d", in.Name, len(src), len(dst))
	}
	copy(dst, src)
}

// tolerance: |got - want| <= refTol * max(1, |want|), i.e. absolute 1e-4
// for values up to 1 and relative 1e-4 above.
const refTol = 1e-4

func loadModel(t testing.TB, name string, batch int) *Model {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(netDir, name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadONNXBatch(data, batch)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func TestReferenceOutputs(t *testing.T) {
	cases := loadRef(t)
	maxErr := map[string]float64{}
	for i, c := range cases {
		name := fmt.Sprintf("%d_%s_b%d", i, c.Model, c.Batch)
		t.Run(name, func(t *testing.T) {
			m := loadModel(t, c.Model, c.Batch)
			s, err := m.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			ins := m.Inputs()
			if len(ins) != len(c.Inputs) {
				t.Fatalf("model has %d inputs, case %d", len(ins), len(c.Inputs))
			}
			for k, in := range c.Inputs {
				if ins[k].Name != in.Name || !slices.Equal(ins[k].Shape, in.Shape) {
					t.Fatalf("input %d is %v, case says %s %v", k, ins[k], in.Name, in.Shape)
				}
				in.fill(t, s.Input(k))
			}
			if err := s.Run(); err != nil {
				t.Fatal(err)
			}
			outs := m.Outputs()
			for k, want := range c.Outputs {
				if outs[k].Name != want.Name || !slices.Equal(outs[k].Shape, want.Shape) {
					t.Fatalf("output %d is %v, reference %s %v", k, outs[k], want.Name, want.Shape)
				}
				got := s.Output(k)
				if len(got) != len(want.Data) {
					t.Fatalf("output %d: %d values, want %d", k, len(got), len(want.Data))
				}
				worst, worstAt := 0.0, 0
				for j, w := range want.Data {
					d := math.Abs(float64(got[j]) - w)
					if d/math.Max(1, math.Abs(w)) > worst {
						worst, worstAt = d/math.Max(1, math.Abs(w)), j
					}
					maxErr[c.Model] = math.Max(maxErr[c.Model], d)
				}
				if worst > refTol || math.IsNaN(worst) {
					t.Errorf("output %s: error %.3g at %d (got %g, want %g)", want.Name, worst, worstAt, got[worstAt], want.Data[worstAt])
				}
			}
		})
	}
	for k, v := range maxErr {
		t.Logf("max abs error %-70s %.3g", k, v)
	}
}
