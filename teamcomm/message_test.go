package teamcomm

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// full is a state message with every field set and the most segments and
// records.
func full() msg.TeamMessage {
	m := msg.TeamMessage{Player: 4, TeamTime: 123456789 * time.Millisecond, Fallen: true, Penalised: false, Role: msg.RoleDefender,
		PoseValid: true, Pose: hal.Pose2{X: -3.25, Y: 3, Heading: -2.5}, PoseConfidence: 0.8,
		BallValid: true, Ball: hal.Vec2{X: 4.5, Y: -3}, BallAge: 1230 * time.Millisecond,
		Searching: true, TargetValid: true, Target: hal.Vec2{X: 3, Y: -2},
		NSegments: msg.MaxSegments, NRecords: msg.MaxRecords}
	for i := range m.Distribution {
		m.Distribution[i] = float32(i) / 15
	}
	for i := range m.Records {
		m.Records[i] = msg.RoleRecord{Player: uint8(i + 1), Epoch: uint32(65530 + i), Penalised: i%2 == 0, Fallen: i%3 == 0,
			BallKnown: i%4 == 0, Locked: i%2 == 1, Role: msg.Role(i % int(msg.NumRoles)), StrikerCost: float64(i) * 7.3, Pos: hal.Vec2{X: float64(i) - 4, Y: 2.5}}
	}
	return m
}

func TestStateCodec(t *testing.T) {
	m := full()
	b := AppendState(nil, &m)
	if len(b) != maxStateLen || len(b)+headerSize > MaxDatagram {
		t.Fatalf("full state is %d bytes (+%d header), limit %d", len(b), headerSize, MaxDatagram)
	}
	var got msg.TeamMessage
	if err := DecodeState(b, &got); err != nil {
		t.Fatal(err)
	}
	near := func(name string, a, b, tol float64) {
		if math.Abs(a-b) > tol {
			t.Errorf("%s: %v, want %v ± %v", name, a, b, tol)
		}
	}
	near("heading", float64(got.Pose.Heading), -2.5, 1e-4)
	near("confidence", got.PoseConfidence, 0.8, 0.002)
	near("x", float64(got.Pose.X), -3.25, 1e-3)
	for i := range m.Distribution {
		near("distribution", float64(got.Distribution[i]), float64(m.Distribution[i]), 0.002)
	}
	for i := range m.Records {
		r, w := got.Records[i], m.Records[i]
		near("cost", r.StrikerCost, w.StrikerCost, 0.05)
		near("record x", r.Pos.X, w.Pos.X, 0.005)
		if r.Epoch != w.Epoch&0xffff || r.Role != w.Role || r.Player != w.Player || r.Penalised != w.Penalised || r.Fallen != w.Fallen || r.BallKnown != w.BallKnown || r.Locked != w.Locked {
			t.Errorf("record %d: %+v, want %+v", i, r, w)
		}
	}
	if got.TeamTime != m.TeamTime || got.BallAge != m.BallAge || got.Role != m.Role || !got.Fallen || got.Penalised ||
		!got.Searching || !got.TargetValid || !got.BallValid || !got.PoseValid || got.Player != 4 {
		t.Errorf("decoded %+v", got)
	}
	// Canonical: encoding what was decoded gives the same bytes.
	if again := AppendState(nil, &got); !bytes.Equal(again, b) {
		t.Errorf("re-encoding differs:\n%x\n%x", again, b)
	}

	// Saturation and NaN.
	odd := msg.TeamMessage{Pose: hal.Pose2{X: 1e9, Y: hal.Metres(math.NaN()), Heading: 7}, PoseConfidence: 3,
		BallAge: time.Hour, NSegments: 200, NRecords: 1, Records: [msg.MaxRecords]msg.RoleRecord{{StrikerCost: 1e9, Pos: hal.Vec2{X: -1e9}}}}
	ob := AppendState(nil, &odd)
	if err := DecodeState(ob, &got); err != nil {
		t.Fatal(err)
	}
	if got.Pose.X != 32.767 || got.Pose.Y != 0 || got.PoseConfidence != 1 || got.BallAge != 655350*time.Millisecond ||
		got.NSegments != msg.MaxSegments || got.Records[0].StrikerCost != 6553.5 || got.Records[0].Pos.X != -327.68 {
		t.Errorf("saturated %+v", got)
	}
	near("wrapped heading", float64(got.Pose.Heading), 7-2*math.Pi, 1e-4)

	errs := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"short", b[:20]},
		{"long", append(bytes.Clone(b), 0)},
		{"truncated record", b[:len(b)-1]},
		{"unknown flag", func() []byte { c := bytes.Clone(b); c[5] |= 64; return c }()},
		{"role", func() []byte { c := bytes.Clone(b); c[6] = 9; return c }()},
		{"heading", func() []byte { c := bytes.Clone(b); c[11], c[12] = 0xff, 0x7f; return c }()},
		{"too many segments", func() []byte { c := bytes.Clone(b); c[stateFixed] = 17; return c }()},
		{"record role", func() []byte { c := bytes.Clone(b); c[len(c)-7] = 0xf0; return c }()},
	}
	for _, tc := range errs {
		if err := DecodeState(tc.b, &got); !errors.Is(err, ErrState) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// FuzzDecoder feeds arbitrary datagrams to the decoder: the header parser,
// reassembly (twice, as a duplicate), and the state decoder, whose every
// accepted input re-encodes to itself.
func FuzzDecoder(f *testing.F) {
	m := full()
	for _, d := range datagrams(f, TypeState, 2, 1, AppendState(nil, &m)) {
		f.Add(d)
	}
	small := msg.TeamMessage{Player: 2}
	for _, d := range datagrams(f, TypeState, 2, 1, AppendState(nil, &small)) {
		f.Add(d)
	}
	for _, d := range datagrams(f, TypeDebug, 2, 1, make([]byte, 300)) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReassembler(2, time.Second)
		h, p, err := ParseHeader(b)
		if err != nil {
			return
		}
		if h.Frags > 0 {
			if _, ok := r.Add(h, p, 0); ok {
				t.Fatal("a single fragment completed a message")
			}
			if _, ok := r.Add(h, p, 0); ok || r.InFlight() > 2 {
				t.Fatal("a duplicate fragment completed a message")
			}
			return
		}
		var st msg.TeamMessage
		if DecodeState(p, &st) == nil {
			if again := AppendState(nil, &st); !bytes.Equal(again, p) {
				t.Fatalf("state not canonical:\n%x\n%x", p, again)
			}
		}
	})
}

// FuzzReassembly feeds a stream of fragments, derived from the input, of
// several messages by several senders into a small reassembler: whatever
// the order, loss or duplication, it never holds more than its slots,
// never returns more than a message can hold, and every message it
// returns is one that was sent.
func FuzzReassembly(f *testing.F) {
	const senders, msgs = 3, 4
	var sent [senders][msgs][]byte
	var frags [][]byte
	for p := range senders {
		for s := range msgs {
			body := make([]byte, 200+50*p+40*s)
			for i := range body {
				body[i] = byte(p*31 + s*7 + i)
			}
			sent[p][s] = body
			frags = append(frags, datagrams(f, 9, uint8(p+1), uint16(s), body)...)
		}
	}
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, uint8(3))
	f.Add([]byte{9, 9, 9, 1, 1, 0, 250, 3}, uint8(1))
	f.Fuzz(func(t *testing.T, script []byte, slots uint8) {
		r := NewReassembler(int(slots%4)+1, 50*time.Millisecond)
		now := time.Duration(0)
		for _, c := range script {
			now += time.Duration(c%7) * time.Millisecond
			d := frags[int(c)%len(frags)]
			h, p, err := ParseHeader(d)
			if err != nil {
				t.Fatal(err)
			}
			out, ok := r.Add(h, p, now)
			if r.InFlight() > int(slots%4)+1 {
				t.Fatalf("%d in flight, %d slots", r.InFlight(), slots%4+1)
			}
			if ok && !bytes.Equal(out, sent[h.Player-1][h.Seq]) {
				t.Fatalf("message %d/%d reassembled wrongly", h.Player, h.Seq)
			}
		}
	})
}
