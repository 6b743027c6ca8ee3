package simspark

import (
	"bytes"
	"testing"
)

// sample returns a real perceptor message from the head sweep: with a See
// block that shows another robot (the biggest kind), or without one.
func sample(tb testing.TB, withSee bool) []byte {
	for _, l := range traces(tb) {
		if l.dir == "in" && l.file == "vision_headsweep.txt" {
			var p Perception
			if err := p.Parse(l.payload); err == nil && p.HasSee() == withSee && (!withSee || len(p.See.Players) > 1) {
				return l.payload
			}
		}
	}
	tb.Fatal("no sample message")
	return nil
}

// agentReply is a full joint command message as robotd's backend sends it.
const agentReply = "(he1 1.5)(he2 -0.5)(lae1 0.1)(lae2 0.2)(lae3 0.3)(lae4 0.4)(rae1 0.1)(rae2 0.2)(rae3 0.3)(rae4 0.4)(lle1 0.1)(lle2 0.2)(lle3 0.3)(lle4 0.4)(lle5 0.5)(lle6 0.6)(rle1 0.1)(rle2 0.2)(rle3 0.3)(rle4 0.4)(rle5 0.5)(rle6 0.6)(syn)"

func TestNoAllocs(t *testing.T) {
	for _, withSee := range []bool{true, false} {
		msg := sample(t, withSee)
		var p Perception
		_ = p.Parse(msg)
		var buf []byte
		for _, f := range []Format{{ServerDecimals}, {ExactDecimals}, {4}} {
			buf = p.Append(buf[:0], f)
			if n := testing.AllocsPerRun(200, func() {
				if err := p.Parse(msg); err != nil {
					t.Fatal(err)
				}
				buf = p.Append(buf[:0], f)
			}); n != 0 {
				t.Errorf("see=%v, %d decimals: parse+encode allocates %v times per message", withSee, f.Decimals, n)
			}
		}
	}
	var e Effectors
	msg := []byte(agentReply)
	_ = e.Parse(msg)
	buf := e.Append(nil, Format{4})
	if n := testing.AllocsPerRun(200, func() {
		_ = e.Parse(msg)
		buf = e.Append(buf[:0], Format{4})
	}); n != 0 {
		t.Errorf("effectors allocate %v times", n)
	}
	var m TrainerMessage
	tmsg := []byte("(agent (unum 1)(team Left)(move -2.0 1.0 0.35 90))(ball (pos 1 1 0.05)(vel 2 0 0))(playMode PlayOn)")
	_ = m.Parse(tmsg)
	buf = m.Append(buf[:0], Format{ExactDecimals})
	if n := testing.AllocsPerRun(200, func() {
		_ = m.Parse(tmsg)
		buf = m.Append(buf[:0], Format{ExactDecimals})
	}); n != 0 {
		t.Errorf("trainer commands allocate %v times", n)
	}
	// Frames.
	var stream []byte
	for range 10 {
		stream = AppendFrame(stream, msg)
	}
	r := bytes.NewReader(stream)
	fr := NewFrameReader(r, 0)
	if n := testing.AllocsPerRun(200, func() {
		r.Reset(stream)
		fr.err = nil
		for range 10 {
			if _, err := fr.Next(); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("reading frames allocates %v times", n)
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

// BenchmarkParseWithSee parses a 1.5 KB message with a See block that
// shows a ball, two goal posts, two robots and 9 field features.
func BenchmarkParseWithSee(b *testing.B) { benchParse(b, true) }

// BenchmarkParseWithoutSee parses a message of time, GS, IMU, 22 joints
// and 2 FRP.
func BenchmarkParseWithoutSee(b *testing.B) { benchParse(b, false) }

func benchEncode(b *testing.B, withSee bool, f Format) {
	var p Perception
	_ = p.Parse(sample(b, withSee))
	buf := p.Append(nil, f)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = p.Append(buf[:0], f)
	}
}

func BenchmarkEncodeWithSeeServer(b *testing.B)    { benchEncode(b, true, Format{ServerDecimals}) }
func BenchmarkEncodeWithSeeExact(b *testing.B)     { benchEncode(b, true, Format{ExactDecimals}) }
func BenchmarkEncodeWithoutSeeServer(b *testing.B) { benchEncode(b, false, Format{ServerDecimals}) }

func BenchmarkParseEffectors(b *testing.B) {
	msg := []byte(agentReply)
	var e Effectors
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := e.Parse(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeEffectors(b *testing.B) {
	var e Effectors
	_ = e.Parse([]byte(agentReply))
	// Velocities as the backend computes them: not round numbers.
	for i := range e.Joints {
		e.Joints[i].V = float64(i)*0.7318281828 - 3.1
	}
	buf := e.Append(nil, Format{4})
	b.ReportAllocs()
	for b.Loop() {
		buf = e.Append(buf[:0], Format{4})
	}
}

func BenchmarkFrameReader(b *testing.B) {
	msg := sample(b, true)
	var stream []byte
	for range 100 {
		stream = AppendFrame(stream, msg)
	}
	r := bytes.NewReader(stream)
	fr := NewFrameReader(r, 0)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(stream)
		fr.err = nil
		for range 100 {
			if _, err := fr.Next(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
