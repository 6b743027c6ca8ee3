package simspark

import "testing"

func sample(t testing.TB, withSee bool) []byte {
	for _, l := range traceLines(t) {
		if l.Dir == "in" && l.File == "vision_headsweep.txt" {
			var p Perception
			if err := p.Parse(l.Payload); err == nil && p.HasSee() == withSee && (!withSee || len(p.See.Players) > 0) {
				return l.Payload
			}
		}
	}
	t.Fatal("no sample message")
	return nil
}

func TestParseDoesNotAllocate(t *testing.T) {
	for _, withSee := range []bool{true, false} {
		msg := sample(t, withSee)
		var p Perception
		_ = p.Parse(msg)
		var buf []byte
		if n := testing.AllocsPerRun(100, func() {
			_ = p.Parse(msg)
			buf = p.Append(buf[:0], Server)
		}); n != 0 {
			t.Errorf("see=%v: parse+encode allocates %v times", withSee, n)
		}
	}
	var e Effectors
	msg := []byte("(he1 1.5)(he2 -0.5)(lle1 0.1)(lle2 0.2)(lle3 0.3)(lle4 0.4)(lle5 0.5)(lle6 0.6)(syn)")
	_ = e.Parse(msg)
	var buf []byte
	if n := testing.AllocsPerRun(100, func() { _ = e.Parse(msg); buf = e.Append(buf[:0], Exact) }); n != 0 {
		t.Errorf("effectors allocate %v times", n)
	}
}

func benchParse(b *testing.B, withSee bool) {
	msg := sample(b, withSee)
	var p Perception
	_ = p.Parse(msg)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Parse(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseWithSee(b *testing.B)    { benchParse(b, true) }
func BenchmarkParseWithoutSee(b *testing.B) { benchParse(b, false) }

func BenchmarkEncodeWithSee(b *testing.B) {
	var p Perception
	_ = p.Parse(sample(b, true))
	buf := p.Append(nil, Server)
	b.ReportAllocs()
	for b.Loop() {
		buf = p.Append(buf[:0], Server)
	}
}

func BenchmarkParseEffectors(b *testing.B) {
	msg := []byte("(he1 1.5)(he2 -0.5)(lae1 0.1)(lae2 0.2)(lae3 0.3)(lae4 0.4)(rae1 0.1)(rae2 0.2)(rae3 0.3)(rae4 0.4)(lle1 0.1)(lle2 0.2)(lle3 0.3)(lle4 0.4)(lle5 0.5)(lle6 0.6)(rle1 0.1)(rle2 0.2)(rle3 0.3)(rle4 0.4)(rle5 0.5)(rle6 0.6)(syn)")
	var e Effectors
	b.ReportAllocs()
	for b.Loop() {
		if err := e.Parse(msg); err != nil {
			b.Fatal(err)
		}
	}
}
