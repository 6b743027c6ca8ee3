package simspark

import (
	"bytes"
	"strconv"
	"testing"
)

func parseStd(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func seedFromTraces(f *testing.F, dir string, every int) {
	n := 0
	for _, l := range traceLines(f) {
		if l.Dir == dir {
			if n%every == 0 {
				f.Add(l.Payload)
			}
			n++
		}
	}
}

func FuzzPerception(f *testing.F) {
	seedFromTraces(f, "in", 400)
	f.Fuzz(func(t *testing.T, msg []byte) {
		var p, p2 Perception
		if err := p.Parse(msg); err != nil {
			return
		}
		enc := p.Append(nil, Exact)
		if err := p2.Parse(enc); err != nil {
			t.Fatalf("encoding of a parsed message does not parse: %v\n%q\n%q", err, msg, enc)
		}
		if !equalPerception(&p, &p2) {
			t.Fatalf("round trip differs:\n%q\n%q", msg, enc)
		}
	})
}

func FuzzEffectors(f *testing.F) {
	seedFromTraces(f, "out", 100)
	f.Fuzz(func(t *testing.T, msg []byte) {
		var e, e2 Effectors
		if err := e.Parse(msg); err != nil {
			return
		}
		enc := e.Append(nil, Exact)
		if err := e2.Parse(enc); err != nil {
			t.Fatalf("encoding does not parse: %v\n%q\n%q", err, msg, enc)
		}
		if !bytes.Equal(e2.Append(nil, Exact), enc) {
			t.Fatalf("round trip differs:\n%q\n%q", msg, enc)
		}
	})
}

func FuzzTrainer(f *testing.F) {
	seedFromTraces(f, "mon-out", 1)
	f.Fuzz(func(t *testing.T, msg []byte) {
		_, _ = ParseTrainer(msg) // must not panic
	})
}

func FuzzFrame(f *testing.F) {
	f.Add(AppendFrame(AppendFrame(nil, []byte("(syn)")), []byte("(he1 1)")))
	f.Add([]byte{0, 0, 0, 9, '('})
	f.Fuzz(func(t *testing.T, stream []byte) {
		fr := NewFrameReader(bytes.NewReader(stream), 1<<12)
		var re []byte
		for {
			b, err := fr.Next()
			if err != nil {
				break
			}
			re = AppendFrame(re, b)
		}
		if !bytes.HasPrefix(stream, re) {
			t.Fatalf("re-framed frames are not a prefix of the input")
		}
	})
}
