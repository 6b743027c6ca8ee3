package lola

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// sameSensors compares bit for bit (NaN == NaN).
func sameSensors(a, b *Sensors) bool {
	eq := func(x, y []float32) bool {
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				return false
			}
		}
		return true
	}
	return eq(a.Position[:], b.Position[:]) && eq(a.Stiffness[:], b.Stiffness[:]) &&
		eq(a.Temperature[:], b.Temperature[:]) && eq(a.Current[:], b.Current[:]) &&
		a.Status == b.Status && eq(a.Accelerometer[:], b.Accelerometer[:]) &&
		eq(a.Gyroscope[:], b.Gyroscope[:]) && eq(a.Angles[:], b.Angles[:]) &&
		eq(a.Battery[:], b.Battery[:]) && eq(a.Sonar[:], b.Sonar[:]) &&
		eq(a.FSR[:], b.FSR[:]) && eq(a.Touch[:], b.Touch[:]) && a.RobotConfig == b.RobotConfig
}

// FuzzDecodeSensors: DecodeSensors never panics, reports every failure as a
// *DecodeError and leaves *s alone then; what it accepts re-encodes to a
// packet that decodes to the same values and re-encodes to the same bytes.
// Seed corpus: testdata/fuzz/FuzzDecodeSensors.
func FuzzDecodeSensors(f *testing.F) {
	f.Add(goldenPacket(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Sensors
		s.Touch[0] = 7 // marker: must survive a failed decode
		err := DecodeSensors(data, &s)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) || de.Kind == nil {
				t.Fatalf("error %v (%T) is not a *DecodeError", err, err)
			}
			if s.Touch[0] != 7 || s.UnknownKeys != 0 {
				t.Fatal("failed decode changed *s")
			}
			_ = err.Error()
			return
		}
		enc := EncodeSensors(&s)
		var s2 Sensors
		if err := DecodeSensors(enc, &s2); err != nil {
			t.Fatalf("re-encoded packet does not decode: %v", err)
		}
		if !sameSensors(&s, &s2) || s2.UnknownKeys != 0 {
			t.Fatalf("decode(encode(s)) != s:\n%+v\n%+v", s, s2)
		}
		if enc2 := EncodeSensors(&s2); !bytes.Equal(enc, enc2) {
			t.Fatal("encoding is not stable")
		}
	})
}
