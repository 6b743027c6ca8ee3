package gamecontroller

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/robotd/robotd/msg"
)

// hslPacket builds a version 18 packet field by field in the order of the
// HSL GameController's RoboCupGameControlData
// (RoboCup-HumanoidSoccerLeague/GameController,
// game_controller_msgs/headers/RoboCupGameControlData.h): header,
// version, packetNumber, playersPerTeam, competitionType, stopped,
// gamePhase, state, setPlay, firstHalf, kickingTeam, secsRemaining,
// secondaryTime, then two TeamInfo (teamNumber, fieldPlayerColour,
// goalkeeperColour, goalkeeper, score, penaltyShot, singleShots,
// messageBudget, 20 × RobotInfo{penalty, secsTillUnpenalised}).
func hslPacket(competitionType, stopped, state, setPlay byte, penalties map[int]byte) []byte {
	b := []byte("RGme")
	b = append(b, 18, 7, 5, competitionType, stopped, 0, state, setPlay, 1, 12)
	b = binary.LittleEndian.AppendUint16(b, 300)
	b = binary.LittleEndian.AppendUint16(b, 10)
	for i, team := range []byte{12, 13} {
		b = append(b, team, 0, 1, 1, byte(2+i), 0)
		b = binary.LittleEndian.AppendUint16(b, 0)
		b = binary.LittleEndian.AppendUint16(b, 1000)
		for p := 1; p <= MaxPlayers; p++ {
			code := byte(0)
			if i == 0 {
				code = penalties[p]
			}
			secs := byte(0)
			if code != 0 {
				secs = 30
			}
			b = append(b, code, secs)
		}
	}
	return b
}

// TestDecodeHSLFromHeader: a packet laid out by the HSL header decodes
// with its stopped flag, competition type, set play and penalties mapped;
// the SPL decoder misreads the same bytes (stopped as the competition
// type), which is why the layout is configured.
func TestDecodeHSLFromHeader(t *testing.T) {
	pk := hslPacket(1, 1, 3, 4, map[int]byte{2: 7, 3: 99, 4: 9, 5: 11})
	if len(pk) != Size {
		t.Fatalf("built %d bytes, the header's struct is %d", len(pk), Size)
	}
	var d Data
	if err := DecodeLayout(pk, &d, LayoutHSL); err != nil {
		t.Fatal(err)
	}
	if !d.Stopped || d.CompetitionType != 1 || d.CompetitionPhase != 0 || d.State != StatePlaying || d.SetPlay != SetPlayKickIn ||
		d.PlayersPerTeam != 5 || d.KickingTeam != 12 || !d.FirstHalf || d.SecsRemaining != 300 || d.SecondaryTime != 10 {
		t.Errorf("header fields: %+v", d)
	}
	own := d.Teams[0]
	for p, want := range map[int]Penalty{1: PenaltyNone, 2: PenaltyLeavingTheField, 3: PenaltyManual, 4: PenaltyPlayerPushing, 5: PenaltySubstitute} {
		if got := own.Players[p-1].Penalty; got != want {
			t.Errorf("player %d: penalty %d, want %d", p, got, want)
		}
	}
	if own.Score != 2 || d.Teams[1].Score != 3 || own.MessageBudget != 1000 || own.Goalkeeper != 1 {
		t.Errorf("teams: %+v", d.Teams)
	}

	// The SPL decoder takes stopped for the competition type and plays on.
	var spl Data
	if err := DecodeLayout(pk, &spl, LayoutSPL); err != nil {
		t.Fatal(err)
	}
	if spl.Stopped || spl.CompetitionType != 1 || spl.CompetitionPhase != 1 {
		t.Errorf("the SPL reading of an HSL packet: %+v", spl)
	}

	// The game state: stopped, so not playing; the state kept.
	var g msg.GameControl
	Map(&d, 12, 2, &g)
	if !g.Stopped || g.State != msg.StatePlaying || g.Playing() || !g.Penalised || g.Penalty != uint8(PenaltyLeavingTheField) {
		t.Errorf("mapped: %+v (Playing %v)", g, g.Playing())
	}
	pk = hslPacket(0, 0, 3, 0, nil)
	if err := DecodeLayout(pk, &d, LayoutHSL); err != nil {
		t.Fatal(err)
	}
	Map(&d, 12, 2, &g)
	if g.Stopped || !g.Playing() {
		t.Errorf("play resumed: %+v", g)
	}
}

// TestHSLSetPlaysAndPenalties: every HSL set play and penalty code maps
// to its meaning and back; unknown codes are SetPlayUnknown and a penalty
// that keeps the robot penalised.
func TestHSLSetPlaysAndPenalties(t *testing.T) {
	for code, want := range []SetPlay{SetPlayNone, SetPlayDirectFreeKick, SetPlayIndirectFreeKick, SetPlayPenaltyKick,
		SetPlayKickIn, SetPlayGoalKick, SetPlayCornerKick} {
		var d Data
		if err := DecodeLayout(hslPacket(0, 0, 3, byte(code), nil), &d, LayoutHSL); err != nil {
			t.Fatal(err)
		}
		if d.SetPlay != want {
			t.Errorf("set play %d: %d, want %d", code, d.SetPlay, want)
		}
		if back := AppendLayout(nil, &d, LayoutHSL); back[11] != byte(code) {
			t.Errorf("set play %d encoded as %d", code, back[11])
		}
	}
	var d Data
	if err := DecodeLayout(hslPacket(0, 0, 3, 200, nil), &d, LayoutHSL); err != nil || d.SetPlay != SetPlayUnknown {
		t.Errorf("unknown set play: %d, %v", d.SetPlay, err)
	}
	for code := byte(0); code <= 11; code++ {
		pk := hslPacket(0, 0, 3, 0, map[int]byte{1: code})
		if err := DecodeLayout(pk, &d, LayoutHSL); err != nil {
			t.Fatal(err)
		}
		if (d.Teams[0].Players[0].Penalty != PenaltyNone) != (code != 0) {
			t.Errorf("penalty code %d: %d", code, d.Teams[0].Players[0].Penalty)
		}
		if back := AppendLayout(nil, &d, LayoutHSL); back[18+10] != code {
			t.Errorf("penalty code %d encoded as %d", code, back[18+10])
		}
	}
}

// TestHSLRoundTripAndErrors: AppendLayout and DecodeLayout agree in both
// layouts; an HSL packet of another version or size, or with stopped
// neither 0 nor 1, is refused with the reason.
func TestHSLRoundTripAndErrors(t *testing.T) {
	d := Data{Version: 18, PacketNumber: 9, PlayersPerTeam: 5, CompetitionType: 2, Stopped: true, GamePhase: PhaseNormal,
		State: StateSet, SetPlay: SetPlayCornerKick, FirstHalf: true, KickingTeam: 13, SecsRemaining: -4, SecondaryTime: 20}
	d.Teams[0].TeamNumber, d.Teams[1].TeamNumber = 12, 13
	d.Teams[1].Players[3] = RobotInfo{Penalty: PenaltyRequestForPickup, SecsTillUnpenalised: 45}
	for _, l := range []Layout{LayoutSPL, LayoutHSL} {
		var got Data
		if err := DecodeLayout(AppendLayout(nil, &d, l), &got, l); err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		want := d
		if l == LayoutSPL {
			want.Stopped = false // the SPL layout has no such flag
		}
		if got != want {
			t.Errorf("%v round trip:\n got %+v\nwant %+v", l, got, want)
		}
	}
	good := hslPacket(0, 0, 3, 0, nil)
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"version 17", func() []byte { b := append([]byte(nil), good...); b[4] = 17; return b }(), ErrVersion},
		{"short", good[:100], ErrSize},
		{"stopped 2", func() []byte { b := append([]byte(nil), good...); b[8] = 2; return b }(), ErrValue},
		{"header", func() []byte { b := append([]byte(nil), good...); b[0] = 'X'; return b }(), ErrHeader},
		{"tiny", good[:3], ErrShort},
	} {
		var d Data
		if err := DecodeLayout(tc.b, &d, LayoutHSL); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	for _, s := range []string{"spl", "hsl", ""} {
		if _, err := ParseLayout(s); err != nil {
			t.Errorf("ParseLayout(%q): %v", s, err)
		}
	}
	if _, err := ParseLayout("SPL3"); err == nil {
		t.Error("ParseLayout took SPL3")
	}
}

// FuzzDecodeHSL: any input decodes or is refused, never panics; a decoded
// packet re-encodes to one that decodes to the same Data (codes the
// decoder maps to SetPlayUnknown or PenaltyManual re-encode as none or
// substitute, so the second decode is compared with the first's).
func FuzzDecodeHSL(f *testing.F) {
	f.Add(hslPacket(1, 1, 3, 4, map[int]byte{2: 7}))
	f.Add(hslPacket(0, 0, 0, 0, nil))
	f.Add([]byte("RGme\x12"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Data
		if err := DecodeLayout(b, &d, LayoutHSL); err != nil {
			return
		}
		var d2, d3 Data
		if err := DecodeLayout(AppendLayout(nil, &d, LayoutHSL), &d2, LayoutHSL); err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
		if err := DecodeLayout(AppendLayout(nil, &d2, LayoutHSL), &d3, LayoutHSL); err != nil || d3 != d2 {
			t.Fatalf("not stable after one round:\n%+v\n%+v (%v)", d2, d3, err)
		}
		if d2.Stopped != d.Stopped || d2.State != d.State || d2.Teams[0].TeamNumber != d.Teams[0].TeamNumber {
			t.Fatalf("round trip lost fields:\n%+v\n%+v", d, d2)
		}
	})
}
