package gamecontroller

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// handBuilt lays out a v18 packet byte by byte from protocols.md §4.2, with a
// distinct value in every field.
func handBuilt() []byte {
	b := make([]byte, 0, Size)
	b = append(b, 'R', 'G', 'm', 'e')
	b = append(b, 18, 201, 7, 1, 0, 2, 3, 4, 1, 17) // version .. kickingTeam
	b = append(b, 0xd2, 0x02)                       // secsRemaining 722
	b = append(b, 0xf6, 0xff)                       // secondaryTime -10
	for team := range 2 {
		n := byte(17 + 7*team)
		b = append(b, n, byte(1+team), byte(5+team), byte(1+team), byte(3-team), byte(team))
		b = append(b, 0x05, 0x00) // singleShots 5
		b = binary.LittleEndian.AppendUint16(b, uint16(1150-team))
		for p := range MaxPlayers {
			b = append(b, byte((p+team)%16), byte(p*10+team))
		}
	}
	return b
}

func TestDecodeV18AllFields(t *testing.T) {
	b := handBuilt()
	if len(b) != Size {
		t.Fatalf("hand-built packet is %d bytes, want %d", len(b), Size)
	}
	var d Data
	if err := Decode(b, &d); err != nil {
		t.Fatal(err)
	}
	want := Data{Version: 18, PacketNumber: 201, PlayersPerTeam: 7, CompetitionPhase: 1, CompetitionType: 0,
		GamePhase: PhaseOvertime, State: StatePlaying, SetPlay: SetPlayKickIn, FirstHalf: true, KickingTeam: 17,
		SecsRemaining: 722, SecondaryTime: -10}
	for team := range 2 {
		ti := &want.Teams[team]
		ti.TeamNumber, ti.FieldPlayerColour, ti.GoalkeeperColour = uint8(17+7*team), uint8(1+team), uint8(5+team)
		ti.Goalkeeper, ti.Score, ti.PenaltyShot = uint8(1+team), uint8(3-team), uint8(team)
		ti.SingleShots, ti.MessageBudget = 5, uint16(1150-team)
		for p := range MaxPlayers {
			ti.Players[p] = RobotInfo{Penalty: Penalty((p + team) % 16), SecsTillUnpenalised: uint8(p*10 + team)}
		}
	}
	if d != want {
		t.Fatalf("decoded\n%+v\nwant\n%+v", d, want)
	}
	if ti, ok := d.Team(24); !ok || ti.MessageBudget != 1149 {
		t.Fatalf("Team(24) = %+v %v", ti, ok)
	}
	if _, ok := d.Team(99); ok {
		t.Fatal("Team(99) found")
	}
	// Encoding what was decoded gives the same bytes.
	if got := Append(nil, &d); !bytes.Equal(got, b) {
		t.Fatalf("Append differs from the hand-built packet:\n%x\n%x", got, b)
	}
	if d.State.String() != "PLAYING" || State(9).String() != "State(9)" {
		t.Fatal("State.String")
	}
}

func TestDecodeV14(t *testing.T) {
	b := []byte{'R', 'G', 'm', 'e', 14, 3, 7, 0, 2, 0, 1, 0, 0, 5, 0x58, 0x02, 0, 0}
	for team := range 2 {
		b = append(b, byte(5+team), byte(team), byte(2*team), 0, 0, 0, 0xb0, 0x04)
		for p := range 7 {
			b = append(b, byte(p), byte(p+team))
		}
	}
	if len(b) != SizeV14 {
		t.Fatalf("v14 packet %d bytes", len(b))
	}
	var d Data
	if err := Decode(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.Version != 14 || d.State != StateReady || d.SecsRemaining != 600 || d.Teams[1].TeamNumber != 6 ||
		d.Teams[1].FieldPlayerColour != 1 || d.Teams[1].Score != 2 || d.Teams[1].MessageBudget != 1200 ||
		d.Teams[1].Players[6] != (RobotInfo{Penalty: 6, SecsTillUnpenalised: 7}) || d.Teams[1].Players[7] != (RobotInfo{}) {
		t.Fatalf("v14 decoded %+v", d)
	}
}

func TestDecodeErrors(t *testing.T) {
	good := handBuilt()
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	tests := []struct {
		name string
		b    []byte
		is   error
		msg  string
	}{
		{"empty", nil, ErrShort, "0 bytes"},
		{"header", mut(func(b []byte) []byte { b[0] = 'X'; return b }), ErrHeader, `"XGme"`},
		{"version 12", mut(func(b []byte) []byte { b[4] = 12; return b }), ErrVersion, "version 12"},
		{"truncated", good[:100], ErrSize, "got 100"},
		{"v14 size for v18", mut(func(b []byte) []byte { return b[:SizeV14] }), ErrSize, "version 18"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d Data
			err := Decode(tc.b, &d)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.is, tc.msg)
			}
		})
	}
	var d Data
	td := mut(func(b []byte) []byte { copy(b, TrueDataHeader); return b })
	if err := Decode(td, &d); err != nil || !d.TrueData {
		t.Fatalf("RGTD: %v %v", err, d.TrueData)
	}
}

func TestReturn(t *testing.T) {
	r := Return{PlayerNum: 3, TeamNum: 17, Fallen: true, Pose: [3]float32{-1500, 250.5, 1.25}, BallAge: -1, Ball: [2]float32{300, -20}}
	b, err := AppendReturn(nil, &r)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{'R', 'G', 'r', 't', 4, 3, 17, 1}
	for _, f := range []float32{-1500, 250.5, 1.25, -1, 300, -20} {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(f))
	}
	if !bytes.Equal(b, want) || len(b) != ReturnSize {
		t.Fatalf("return packet\n%x\nwant\n%x", b, want)
	}
	var got Return
	if err := DecodeReturn(b, &got); err != nil || got != r {
		t.Fatalf("DecodeReturn = %+v %v", got, err)
	}
	bad := []struct {
		name string
		r    Return
	}{
		{"player 0", Return{PlayerNum: 0}},
		{"player 21", Return{PlayerNum: 21}},
		{"NaN", Return{PlayerNum: 1, BallAge: float32(math.NaN())}},
	}
	for _, tc := range bad {
		if _, err := AppendReturn(nil, &tc.r); !errors.Is(err, ErrValue) {
			t.Errorf("%s: err = %v, want ErrValue", tc.name, err)
		}
	}
	fallen2 := bytes.Clone(b)
	fallen2[7] = 2
	if err := DecodeReturn(fallen2, &got); !errors.Is(err, ErrValue) {
		t.Errorf("fallen=2: %v", err)
	}
	if err := DecodeReturn(b[:31], &got); !errors.Is(err, ErrSize) {
		t.Errorf("short: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(handBuilt())
	f.Add([]byte("RGme\x0e"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Data
		if err := Decode(b, &d); err != nil {
			return
		}
		if d.Version < 15 {
			return
		}
		// Decode → encode → decode is stable, and byte-exact but for the
		// boolean firstHalf, which any non-zero byte sets.
		enc := Append(nil, &d)
		var d2 Data
		if err := Decode(enc, &d2); err != nil || d2 != d {
			t.Fatalf("re-decoding: %v\n%+v\n%+v", err, d2, d)
		}
		enc[12] = b[12]
		if !bytes.Equal(enc, b) {
			t.Fatalf("re-encoding differs:\n%x\n%x", enc, b)
		}
	})
}

func FuzzDecodeReturn(f *testing.F) {
	r := Return{PlayerNum: 3, TeamNum: 17, Pose: [3]float32{1, 2, 3}}
	b, _ := AppendReturn(nil, &r)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Return
		if err := DecodeReturn(b, &r); err != nil {
			return
		}
		got, err := AppendReturn(nil, &r)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("re-encoding: %v\n%x\n%x", err, got, b)
		}
	})
}
