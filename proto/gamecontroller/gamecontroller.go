// Package gamecontroller is the wire format of the RoboCup SPL GameController
// (protocols.md §4): RoboCupGameControlData versions 15–18 (118 bytes, one
// layout, GameController 3, 2023–today) and version 14 (62 bytes, RoboCup
// 2022), and RoboCupGameControlReturnData version 4 (32 bytes); and the
// Humanoid Soccer League's GameController's version 18
// (RoboCup-HumanoidSoccerLeague/GameController,
// game_controller_msgs/headers/RoboCupGameControlData.h), 118 bytes in
// another layout (LayoutHSL). All numbers are little-endian, with no
// padding on the wire.
package gamecontroller

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Ports of the GameController channels (protocols.md §4.1).
const (
	ControlPort = 3838
	ReturnPort  = 3939
)

// Headers.
const (
	Header         = "RGme"
	TrueDataHeader = "RGTD"
	ReturnHeader   = "RGrt"
)

// Sizes.
const (
	// Size is the size of a version 15–18 control packet.
	Size = 118
	// SizeV14 is the size of a version 14 control packet.
	SizeV14 = 62
	// ReturnSize is the size of a version 4 return packet.
	ReturnSize = 32
	// ReturnVersion is the return packet's version.
	ReturnVersion = 4
	// MaxPlayers is the number of RobotInfo slots per team in v15–v18.
	MaxPlayers = 20
	// KickingTeamNone is kickingTeam when no team kicks (2025+).
	KickingTeamNone = 255
)

// State is the game state.
type State uint8

// Game states (v18; 5 was SETUP in the unreleased v17).
const (
	StateInitial State = iota
	StateReady
	StateSet
	StatePlaying
	StateFinished
	StateStandby
)

func (s State) String() string {
	names := [...]string{"INITIAL", "READY", "SET", "PLAYING", "FINISHED", "STANDBY"}
	if int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// GamePhase is the game phase.
type GamePhase uint8

// Game phases.
const (
	PhaseNormal GamePhase = iota
	PhasePenaltyShootout
	PhaseOvertime
	PhaseTimeout
)

// SetPlay is the current set play, in the SPL GameController's numbering
// (0–5); the HSL's set plays are mapped onto it, its free kicks beyond.
type SetPlay uint8

// Set plays.
const (
	SetPlayNone SetPlay = iota
	SetPlayGoalKick
	SetPlayPushingFreeKick
	SetPlayCornerKick
	SetPlayKickIn
	SetPlayPenaltyKick
	// SetPlayDirectFreeKick and SetPlayIndirectFreeKick are the HSL's.
	SetPlayDirectFreeKick
	SetPlayIndirectFreeKick
	// SetPlayUnknown is an HSL set play this decoder does not know.
	SetPlayUnknown SetPlay = 255
)

// Penalty is a penalty code (v18 meanings; protocols.md §4.2).
type Penalty uint8

// Penalty codes.
const (
	PenaltyNone                 Penalty = 0
	PenaltyIllegalBallContact   Penalty = 1
	PenaltyPlayerPushing        Penalty = 2
	PenaltyIllegalMotionInSet   Penalty = 3
	PenaltyInactivePlayer       Penalty = 4
	PenaltyIllegalPosition      Penalty = 5
	PenaltyLeavingTheField      Penalty = 6
	PenaltyRequestForPickup     Penalty = 7
	PenaltyLocalGameStuck       Penalty = 8
	PenaltyIllegalPositionInSet Penalty = 9
	PenaltyPlayerStance         Penalty = 10
	PenaltyIllegalMotionStandby Penalty = 11
	PenaltySubstitute           Penalty = 14
	PenaltyManual               Penalty = 15
	// The HSL's penalties without an SPL counterpart.
	PenaltyIncapableRobot   Penalty = 16
	PenaltyBallHolding      Penalty = 17
	PenaltyPlayingWithHands Penalty = 18
	PenaltySentOff          Penalty = 19
)

// Layout is which layout a version 18 control packet has. Both are 118
// bytes with the header "RGme"; the HSL's has competitionType and a
// stopped flag in bytes 7 and 8 where the SPL's has competitionPhase and
// competitionType, and its own set-play and penalty codes. Nothing in a
// packet tells them apart: the robot's configuration says which.
type Layout uint8

// Layouts.
const (
	// LayoutSPL is the SPL's GameController 3 (versions 14–18).
	LayoutSPL Layout = iota
	// LayoutHSL is the Humanoid Soccer League's GameController (version
	// 18 only), which the SPL uses from 2026.
	LayoutHSL
)

// String names the layout as the configuration does.
func (l Layout) String() string {
	switch l {
	case LayoutSPL:
		return "spl"
	case LayoutHSL:
		return "hsl"
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// ParseLayout parses "spl" or "hsl".
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "spl", "":
		return LayoutSPL, nil
	case "hsl":
		return LayoutHSL, nil
	}
	return 0, fmt.Errorf("gamecontroller: layout %q: want \"spl\" or \"hsl\"", s)
}

// hslSetPlays maps the HSL's set-play codes (SET_PLAY_*) to SetPlay.
var hslSetPlays = [...]SetPlay{SetPlayNone, SetPlayDirectFreeKick, SetPlayIndirectFreeKick, SetPlayPenaltyKick,
	SetPlayKickIn, SetPlayGoalKick, SetPlayCornerKick}

// hslPenalties maps the HSL's penalty codes (PENALTY_*) to Penalty.
var hslPenalties = [...]Penalty{PenaltyNone, PenaltyIllegalPosition, PenaltyIllegalMotionInSet, PenaltyLocalGameStuck,
	PenaltyIncapableRobot, PenaltyRequestForPickup, PenaltyBallHolding, PenaltyLeavingTheField,
	PenaltyPlayingWithHands, PenaltyPlayerPushing, PenaltySentOff, PenaltySubstitute}

// RobotInfo is one player's penalty state.
type RobotInfo struct {
	Penalty             Penalty
	SecsTillUnpenalised uint8
}

// TeamInfo is one team's state.
type TeamInfo struct {
	TeamNumber uint8
	// FieldPlayerColour and GoalkeeperColour are colour codes (0 blue … 9
	// light grey). In v14 both carry the single teamColour.
	FieldPlayerColour, GoalkeeperColour uint8
	// Goalkeeper is the goalkeeper's player number (v15+; 0 in v14).
	Goalkeeper    uint8
	Score         uint8
	PenaltyShot   uint8
	SingleShots   uint16
	MessageBudget uint16
	// Players holds index 0 = player 1. v14 fills only the first 7.
	Players [MaxPlayers]RobotInfo
}

// Data is a RoboCupGameControlData packet.
type Data struct {
	// TrueData is set for an `RGTD` monitor copy.
	TrueData       bool
	Version        uint8
	PacketNumber   uint8
	PlayersPerTeam uint8
	// CompetitionPhase is the SPL's (0 in the HSL layout).
	CompetitionPhase uint8
	CompetitionType  uint8
	// Stopped is the HSL's flag: the referee has stopped play, and
	// robots stand still (false in the SPL layout).
	Stopped       bool
	GamePhase     GamePhase
	State         State
	SetPlay       SetPlay
	FirstHalf     bool
	KickingTeam   uint8
	SecsRemaining int16
	SecondaryTime int16
	Teams         [2]TeamInfo
}

// Team returns the TeamInfo of the given team number.
func (d *Data) Team(number uint8) (*TeamInfo, bool) {
	for i := range d.Teams {
		if d.Teams[i].TeamNumber == number {
			return &d.Teams[i], true
		}
	}
	return nil, false
}

// Errors returned by the decoders.
var (
	ErrShort   = errors.New("packet too short")
	ErrHeader  = errors.New("bad header")
	ErrVersion = errors.New("unsupported version")
	ErrSize    = errors.New("wrong packet size for its version")
	ErrValue   = errors.New("invalid value")
)

// DecodeLayout parses a control packet in layout l into d: Decode for
// LayoutSPL; for LayoutHSL a version 18 packet of 118 bytes, its set-play
// and penalty codes mapped onto SetPlay and Penalty (an unknown set play
// is SetPlayUnknown, an unknown penalty PenaltyManual: still penalised),
// and stopped, which must be 0 or 1.
func DecodeLayout(b []byte, d *Data, l Layout) error {
	switch l {
	case LayoutSPL:
		return Decode(b, d)
	case LayoutHSL:
	default:
		return fmt.Errorf("gamecontroller: %w: layout %d", ErrValue, l)
	}
	if len(b) < 6 {
		return fmt.Errorf("gamecontroller: %w: %d bytes, need at least 6", ErrShort, len(b))
	}
	trueData := false
	switch string(b[:4]) {
	case Header:
	case TrueDataHeader:
		trueData = true
	default:
		return fmt.Errorf("gamecontroller: %w %q, want %q", ErrHeader, b[:4], Header)
	}
	if b[4] != 18 {
		return fmt.Errorf("gamecontroller: %w %d (the HSL layout is version 18)", ErrVersion, b[4])
	}
	if len(b) != Size {
		return fmt.Errorf("gamecontroller: %w: the HSL layout is %d bytes, got %d", ErrSize, Size, len(b))
	}
	if b[8] > 1 {
		return fmt.Errorf("gamecontroller: %w: stopped is %d, want 0 or 1 (is the GameController the SPL's? set the layout to spl)", ErrValue, b[8])
	}
	*d = Data{TrueData: trueData, Version: b[4], PacketNumber: b[5], PlayersPerTeam: b[6], CompetitionType: b[7],
		Stopped: b[8] == 1, GamePhase: GamePhase(b[9]), State: State(b[10]), SetPlay: SetPlayUnknown,
		FirstHalf: b[12] != 0, KickingTeam: b[13],
		SecsRemaining: int16(binary.LittleEndian.Uint16(b[14:])), SecondaryTime: int16(binary.LittleEndian.Uint16(b[16:]))}
	if int(b[11]) < len(hslSetPlays) {
		d.SetPlay = hslSetPlays[b[11]]
	}
	for i := range 2 {
		t := &d.Teams[i]
		decodeTeam(b[18+50*i:18+50*(i+1)], t)
		for p := range t.Players {
			code := uint8(t.Players[p].Penalty)
			switch {
			case int(code) < len(hslPenalties):
				t.Players[p].Penalty = hslPenalties[code]
			default:
				t.Players[p].Penalty = PenaltyManual
			}
		}
	}
	return nil
}

// Decode parses a control packet of version 14 or 15–18 into d, chosen by
// the version byte. It checks the header and that the size matches the
// version.
func Decode(b []byte, d *Data) error {
	if len(b) < 6 {
		return fmt.Errorf("gamecontroller: %w: %d bytes, need at least 6", ErrShort, len(b))
	}
	switch string(b[:4]) {
	case Header:
		d.TrueData = false
	case TrueDataHeader:
		d.TrueData = true
	default:
		return fmt.Errorf("gamecontroller: %w %q, want %q", ErrHeader, b[:4], Header)
	}
	v := b[4]
	switch {
	case v >= 15 && v <= 18:
		if len(b) != Size {
			return fmt.Errorf("gamecontroller: %w: version %d is %d bytes, got %d", ErrSize, v, Size, len(b))
		}
	case v == 14:
		if len(b) != SizeV14 {
			return fmt.Errorf("gamecontroller: %w: version 14 is %d bytes, got %d", ErrSize, SizeV14, len(b))
		}
	default:
		return fmt.Errorf("gamecontroller: %w %d (this decoder reads 14 to 18)", ErrVersion, v)
	}
	*d = Data{TrueData: d.TrueData}
	d.Version = v
	d.PacketNumber = b[5]
	d.PlayersPerTeam = b[6]
	d.CompetitionPhase = b[7]
	d.CompetitionType = b[8]
	d.GamePhase = GamePhase(b[9])
	d.State = State(b[10])
	d.SetPlay = SetPlay(b[11])
	d.FirstHalf = b[12] != 0
	d.KickingTeam = b[13]
	d.SecsRemaining = int16(binary.LittleEndian.Uint16(b[14:]))
	d.SecondaryTime = int16(binary.LittleEndian.Uint16(b[16:]))
	if v == 14 {
		for i := range 2 {
			decodeTeamV14(b[18+22*i:18+22*(i+1)], &d.Teams[i])
		}
		return nil
	}
	for i := range 2 {
		decodeTeam(b[18+50*i:18+50*(i+1)], &d.Teams[i])
	}
	return nil
}

func decodeTeam(b []byte, t *TeamInfo) {
	t.TeamNumber = b[0]
	t.FieldPlayerColour = b[1]
	t.GoalkeeperColour = b[2]
	t.Goalkeeper = b[3]
	t.Score = b[4]
	t.PenaltyShot = b[5]
	t.SingleShots = binary.LittleEndian.Uint16(b[6:])
	t.MessageBudget = binary.LittleEndian.Uint16(b[8:])
	for p := range MaxPlayers {
		t.Players[p] = RobotInfo{Penalty: Penalty(b[10+2*p]), SecsTillUnpenalised: b[11+2*p]}
	}
}

// v14 TeamInfo: teamNumber, teamColour, score, penaltyShot, singleShots (2),
// messageBudget (2), players[7] (14) = 22 bytes.
func decodeTeamV14(b []byte, t *TeamInfo) {
	t.TeamNumber = b[0]
	t.FieldPlayerColour = b[1]
	t.GoalkeeperColour = b[1]
	t.Score = b[2]
	t.PenaltyShot = b[3]
	t.SingleShots = binary.LittleEndian.Uint16(b[4:])
	t.MessageBudget = binary.LittleEndian.Uint16(b[6:])
	for p := range 7 {
		t.Players[p] = RobotInfo{Penalty: Penalty(b[8+2*p]), SecsTillUnpenalised: b[9+2*p]}
	}
}

// Append encodes d as a version 15–18 packet (d.Version, 18 if 0) and appends
// it to dst. It is what a GameController sends; robotd uses it in tests and
// in simulated games.
func Append(dst []byte, d *Data) []byte {
	v := d.Version
	if v == 0 {
		v = 18
	}
	h := Header
	if d.TrueData {
		h = TrueDataHeader
	}
	dst = append(dst, h...)
	dst = append(dst, v, d.PacketNumber, d.PlayersPerTeam, d.CompetitionPhase, d.CompetitionType,
		byte(d.GamePhase), byte(d.State), byte(d.SetPlay), b2u(d.FirstHalf), d.KickingTeam)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(d.SecsRemaining))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(d.SecondaryTime))
	for i := range 2 {
		t := &d.Teams[i]
		dst = append(dst, t.TeamNumber, t.FieldPlayerColour, t.GoalkeeperColour, t.Goalkeeper, t.Score, t.PenaltyShot)
		dst = binary.LittleEndian.AppendUint16(dst, t.SingleShots)
		dst = binary.LittleEndian.AppendUint16(dst, t.MessageBudget)
		for _, p := range t.Players {
			dst = append(dst, byte(p.Penalty), p.SecsTillUnpenalised)
		}
	}
	return dst
}

// AppendLayout encodes d in layout l: Append for LayoutSPL; for
// LayoutHSL a version 18 packet with the HSL's byte order and codes (a
// set play the HSL has no code for is sent as none, a penalty as
// PENALTY_SUBSTITUTE).
func AppendLayout(dst []byte, d *Data, l Layout) []byte {
	if l != LayoutHSL {
		return Append(dst, d)
	}
	h := Header
	if d.TrueData {
		h = TrueDataHeader
	}
	dst = append(dst, h...)
	dst = append(dst, 18, d.PacketNumber, d.PlayersPerTeam, d.CompetitionType, b2u(d.Stopped),
		byte(d.GamePhase), byte(d.State), hslCode(hslSetPlays[:], d.SetPlay, 0), b2u(d.FirstHalf), d.KickingTeam)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(d.SecsRemaining))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(d.SecondaryTime))
	for i := range 2 {
		t := &d.Teams[i]
		dst = append(dst, t.TeamNumber, t.FieldPlayerColour, t.GoalkeeperColour, t.Goalkeeper, t.Score, t.PenaltyShot)
		dst = binary.LittleEndian.AppendUint16(dst, t.SingleShots)
		dst = binary.LittleEndian.AppendUint16(dst, t.MessageBudget)
		for _, p := range t.Players {
			code := hslCode(hslPenalties[:], p.Penalty, 0)
			if code == 0 && p.Penalty != PenaltyNone {
				code = 11 // PENALTY_SUBSTITUTE: off the field, as every penalty without an HSL code
			}
			dst = append(dst, code, p.SecsTillUnpenalised)
		}
	}
	return dst
}

// hslCode is v's index in the HSL's table, or none if it has none.
func hslCode[T comparable](table []T, v T, none byte) byte {
	for i, x := range table {
		if x == v {
			return byte(i)
		}
	}
	return none
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Return is a RoboCupGameControlReturnData packet (version 4).
type Return struct {
	PlayerNum, TeamNum uint8
	Fallen             bool
	// Pose is x, y in mm (field centre, +x towards the goal the team
	// attacks) and theta in rad, CCW.
	Pose [3]float32
	// BallAge is seconds since the ball was last seen, -1 if never.
	BallAge float32
	// Ball is the ball relative to the robot in mm, +x forward, +y left.
	Ball [2]float32
}

// AppendReturn encodes r and appends it to dst. It refuses what GameController
// 3 would reject: player numbers outside 1..20 and NaN floats.
func AppendReturn(dst []byte, r *Return) ([]byte, error) {
	if err := r.validate(); err != nil {
		return dst, err
	}
	dst = append(dst, ReturnHeader...)
	dst = append(dst, ReturnVersion, r.PlayerNum, r.TeamNum, b2u(r.Fallen))
	for _, f := range r.Pose {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
	}
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(r.BallAge))
	for _, f := range r.Ball {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
	}
	return dst, nil
}

func (r *Return) validate() error {
	if r.PlayerNum < 1 || r.PlayerNum > MaxPlayers {
		return fmt.Errorf("gamecontroller: return: %w: player number %d outside 1..%d", ErrValue, r.PlayerNum, MaxPlayers)
	}
	for i, f := range [...]float32{r.Pose[0], r.Pose[1], r.Pose[2], r.BallAge, r.Ball[0], r.Ball[1]} {
		if f != f {
			return fmt.Errorf("gamecontroller: return: %w: float %d is NaN", ErrValue, i)
		}
	}
	return nil
}

// DecodeReturn parses a return packet, applying GameController 3's checks.
func DecodeReturn(b []byte, r *Return) error {
	if len(b) != ReturnSize {
		return fmt.Errorf("gamecontroller: return: %w: %d bytes, want %d", ErrSize, len(b), ReturnSize)
	}
	if string(b[:4]) != ReturnHeader {
		return fmt.Errorf("gamecontroller: return: %w %q", ErrHeader, b[:4])
	}
	if b[4] != ReturnVersion {
		return fmt.Errorf("gamecontroller: return: %w %d", ErrVersion, b[4])
	}
	if b[7] > 1 {
		return fmt.Errorf("gamecontroller: return: %w: fallen = %d", ErrValue, b[7])
	}
	*r = Return{PlayerNum: b[5], TeamNum: b[6], Fallen: b[7] == 1}
	f := func(off int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[off:])) }
	r.Pose = [3]float32{f(8), f(12), f(16)}
	r.BallAge = f(20)
	r.Ball = [2]float32{f(24), f(28)}
	return r.validate()
}
