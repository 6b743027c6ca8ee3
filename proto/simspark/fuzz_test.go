package simspark

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// The seed corpora are real trace messages in testdata/fuzz/<FuzzName>/,
// next to the crashers the fuzzer found (kept as regression inputs).

// checkSyntaxError fails unless err is a *SyntaxError inside msg.
func checkSyntaxError(t *testing.T, err error, msg []byte) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) || se.Offset < 0 || se.Offset > len(msg) || se.Err == nil {
		t.Fatalf("bad error %#v for %q", err, msg)
	}
}

// scans reports whether msg is balanced S-expression text.
func scans(msg []byte) error {
	var s Scanner
	s.Reset(msg, 0)
	for {
		tok, err := s.Next()
		if err != nil || tok == TokenEOF {
			return err
		}
	}
}

// reused is a struct that parsed another message first: parsing into it
// must give what parsing into a fresh one gives.
const reusedSeed = "(time (now 20.45))(GS (unum 1) (team left) (sl 0) (sr 0) (t 0.00) (pm BeforeKickOff))(hear T 0.00 self ping.T)(GYR (n torso) (rt 0.00 -0.00 0.00))(See (G2R (pol 6.33 -10.35 3.64)) (B (pol 2.18 -5.50 -17.95)) (P (team O) (id 1) (head (pol 5.78 23.63 -0.69)) (lfoot (pol 5.78 19.36 -9.08))) (mypos -2.00 0.00 0.55) (X y) (CC (ffs 2.16 -0.96 -8.91 -85.89)))(HJ (n hj1) (ax 1.00))(FRP (n rf) (c 0.00 -0.01 -0.01) (f -0.00 -0.17 22.60))(foo)"

func FuzzPerception(f *testing.F) {
	f.Fuzz(func(t *testing.T, msg []byte) {
		var p Perception
		if err := p.Parse(msg); err != nil {
			checkSyntaxError(t, err, msg)
			return
		}
		// Whatever parses is balanced S-expression text.
		if err := scans(msg); err != nil {
			t.Fatalf("parsed, but the scanner rejects it: %v\n%q", err, msg)
		}
		roundTripPerception(t, &p, msg)
		// The server's 2-decimal format parses too, to the same structure.
		var p2 Perception
		if err := p2.Parse(p.Append(nil, Format{ServerDecimals})); err != nil {
			t.Fatalf("server format does not parse: %v\n%q", err, p.Append(nil, Format{ServerDecimals}))
		}
		if p.Signature() != p2.Signature() {
			t.Fatalf("server format changed the signature:\n%s\n%s", p.Signature(), p2.Signature())
		}
		// A reused struct gives the same result.
		var r Perception
		if err := r.Parse([]byte(reusedSeed)); err != nil {
			t.Fatal(err)
		}
		if err := r.Parse(msg); err != nil {
			t.Fatalf("parses fresh but not reused: %v", err)
		}
		if !bytes.Equal(r.Append(nil, Format{ExactDecimals}), p.Append(nil, Format{ExactDecimals})) || r.Signature() != p.Signature() {
			t.Fatalf("reused struct differs:\n%q\n%q", r.Append(nil, Format{ExactDecimals}), p.Append(nil, Format{ExactDecimals}))
		}
	})
}

func FuzzEffectors(f *testing.F) {
	f.Fuzz(func(t *testing.T, msg []byte) {
		var e Effectors
		if err := e.Parse(msg); err != nil {
			checkSyntaxError(t, err, msg)
			return
		}
		if err := scans(msg); err != nil {
			t.Fatalf("parsed, but the scanner rejects it: %v\n%q", err, msg)
		}
		roundTripEffectors(t, &e, msg)
		var r Effectors
		if err := r.Parse([]byte(agentReply + "(scene a 1)(init (unum 2)(teamname T))(x)")); err != nil {
			t.Fatal(err)
		}
		if err := r.Parse(msg); err != nil || !bytes.Equal(r.Append(nil, Format{ExactDecimals}), e.Append(nil, Format{ExactDecimals})) {
			t.Fatalf("reused struct differs: %v", err)
		}
	})
}

func FuzzTrainer(f *testing.F) {
	f.Fuzz(func(t *testing.T, msg []byte) {
		var m TrainerMessage
		if err := m.Parse(msg); err != nil {
			checkSyntaxError(t, err, msg)
			return
		}
		if err := scans(msg); err != nil {
			t.Fatalf("parsed, but the scanner rejects it: %v\n%q", err, msg)
		}
		roundTripTrainer(t, &m, msg)
	})
}

func FuzzFrame(f *testing.F) {
	f.Fuzz(func(t *testing.T, stream []byte) {
		const max = 1 << 12
		fr := NewFrameReader(bytes.NewReader(stream), max)
		var re []byte
		for {
			b, err := fr.Next()
			if err != nil {
				switch {
				case err == io.EOF:
					if !bytes.Equal(re, stream) {
						t.Fatalf("clean EOF, but the frames do not make up the stream")
					}
				case errors.Is(err, ErrTruncated):
					if len(stream)-len(re) < 4 {
						break
					}
					if n := int(stream[len(re)])<<24 | int(stream[len(re)+1])<<16 | int(stream[len(re)+2])<<8 | int(stream[len(re)+3]); n <= len(stream)-len(re)-4 {
						t.Fatalf("truncated, but %d bytes were there for a %d-byte frame", len(stream)-len(re)-4, n)
					}
				case errors.Is(err, ErrFrameTooLarge):
				default:
					t.Fatalf("unexpected error %v", err)
				}
				if _, err2 := fr.Next(); err2 != err {
					t.Fatalf("error not sticky: %v, then %v", err, err2)
				}
				break
			}
			if len(b) > max {
				t.Fatalf("frame of %d bytes above the limit", len(b))
			}
			// Both ways of writing a frame give the input back.
			re = AppendFrame(re, b)
			var alt []byte
			alt, off := BeginFrame(alt)
			alt = EndFrame(append(alt, b...), off)
			if !bytes.HasSuffix(re, alt) {
				t.Fatalf("BeginFrame/EndFrame differs from AppendFrame")
			}
		}
		if !bytes.HasPrefix(stream, re) {
			t.Fatalf("re-framed frames are not a prefix of the input")
		}
	})
}
