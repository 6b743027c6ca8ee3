package nn

import (
	"testing"
)

// FuzzLoadONNX feeds corrupted models to the loader: it must return an error
// or a model that runs, and never panic. Seeds: the real nets, truncations
// and single-byte corruptions of them.
func FuzzLoadONNX(f *testing.F) {
	for _, name := range allNets {
		data := readNet(f, name)
		f.Add(data)
		for _, cut := range []int{1, 7, 100, len(data) / 3, len(data) - 1} {
			f.Add(data[:cut])
		}
		for _, at := range []int{3, 50, len(data) / 2} {
			c := append([]byte(nil), data...)
			c[at] ^= 0x5a
			f.Add(c)
		}
	}
	f.Add(buildModel(f, "Relu"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := LoadONNX(data)
		if err != nil {
			return
		}
		s, err := m.NewSession()
		if err != nil {
			return
		}
		// Run the small nets (patch classifiers, field boundary) too; the
		// full-image nets take milliseconds per run and would starve the
		// parser fuzzing.
		n := 0
		for i := range m.Inputs() {
			n += len(s.Input(i))
		}
		if n > 4096 {
			return
		}
		for i := range m.Inputs() {
			in := s.Input(i)
			for j := range in {
				in[j] = float32(j%7) - 3
			}
		}
		_ = s.Run()
	})
}
