package teamcomm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Message types.
const (
	// TypeState carries a robot's state (msg.TeamMessage), every epoch.
	TypeState uint8 = 1
	// TypeDebug carries debugging payloads of any size (fragmented).
	TypeDebug uint8 = 2
	// TypeHello is sent once when an endpoint starts, so a Hub learns where
	// it is; it carries no payload and has no handler.
	TypeHello uint8 = 127
)

// Wire layout of a state message (TypeState), little-endian, after the
// datagram header:
//
//	0   player                   u8
//	1   team time, ms            u32 (mod 2³²)
//	5   flags                    u8: 1 fallen, 2 penalised, 4 pose valid,
//	                                 8 ball valid, 16 searching, 32 target valid
//	6   role                     u8
//	7   pose x, y (mm)           i16, i16
//	11  heading (10⁻⁴ rad)       i16, within ±π
//	13  pose confidence (/255)   u8
//	14  ball x, y (mm)           i16, i16
//	18  ball age (10 ms)         u16, saturating
//	20  target x, y (mm)         i16, i16
//	24  segments n ≤ 16          u8, then n × u8 (relative probability /255)
//	    records  k ≤ 8           u8, then k × 10 bytes:
//	        player u8, epoch (low 16 bits) u16, flags|role u8 (1 penalised,
//	        2 fallen, 4 ball known, 8 locked; role in the high nibble), striker cost
//	        (0.1 s) u16 saturating, x, y (cm) i16, i16
//
// At most 24 + 17 + 81 = 122 bytes: with the 4-byte header a state fits
// the SPL's 128.
const (
	stateFixed  = 24
	recordSize  = 10
	maxStateLen = stateFixed + 1 + msg.MaxSegments + 1 + msg.MaxRecords*recordSize
)

// Errors of the state decoder.
var (
	ErrState = errors.New("malformed state message")
)

func mm(v float64) uint16 {
	return uint16(int16(math.Round(clamp(v*1000, math.MinInt16, math.MaxInt16))))
}

func cm(v float64) uint16 {
	return uint16(int16(math.Round(clamp(v*100, math.MinInt16, math.MaxInt16))))
}

func clamp(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return min(max(v, lo), hi)
}

func b2(b bool, bit uint8) uint8 {
	if b {
		return bit
	}
	return 0
}

// AppendState encodes m (values out of the wire's ranges saturate; NaN
// becomes 0).
func AppendState(dst []byte, m *msg.TeamMessage) []byte {
	le := binary.LittleEndian
	dst = append(dst, m.Player)
	dst = le.AppendUint32(dst, uint32(m.TeamTime/time.Millisecond))
	flags := b2(m.Fallen, 1) | b2(m.Penalised, 2) | b2(m.PoseValid, 4) | b2(m.BallValid, 8) |
		b2(m.Searching, 16) | b2(m.TargetValid, 32)
	dst = append(dst, flags, uint8(m.Role))
	dst = le.AppendUint16(dst, mm(float64(m.Pose.X)))
	dst = le.AppendUint16(dst, mm(float64(m.Pose.Y)))
	h := math.Remainder(float64(m.Pose.Heading), 2*math.Pi)
	dst = le.AppendUint16(dst, uint16(int16(math.Round(clamp(h*1e4, -31415, 31415)))))
	dst = append(dst, uint8(math.Round(clamp(m.PoseConfidence, 0, 1)*255)))
	dst = le.AppendUint16(dst, mm(m.Ball.X))
	dst = le.AppendUint16(dst, mm(m.Ball.Y))
	dst = le.AppendUint16(dst, uint16(clamp(math.Round(float64(m.BallAge)/float64(10*time.Millisecond)), 0, math.MaxUint16)))
	dst = le.AppendUint16(dst, mm(m.Target.X))
	dst = le.AppendUint16(dst, mm(m.Target.Y))
	n := min(int(m.NSegments), msg.MaxSegments)
	dst = append(dst, uint8(n))
	for i := range n {
		dst = append(dst, uint8(math.Round(clamp(float64(m.Distribution[i]), 0, 1)*255)))
	}
	k := min(int(m.NRecords), msg.MaxRecords)
	dst = append(dst, uint8(k))
	for i := range k {
		r := &m.Records[i]
		dst = append(dst, r.Player)
		dst = le.AppendUint16(dst, uint16(r.Epoch))
		dst = append(dst, b2(r.Penalised, 1)|b2(r.Fallen, 2)|b2(r.BallKnown, 4)|b2(r.Locked, 8)|uint8(r.Role&0xf)<<4)
		dst = le.AppendUint16(dst, uint16(clamp(math.Round(r.StrikerCost*10), 0, math.MaxUint16)))
		dst = le.AppendUint16(dst, cm(r.Pos.X))
		dst = le.AppendUint16(dst, cm(r.Pos.Y))
	}
	return dst
}

// DecodeState decodes a state message into m. A record's Epoch holds the
// epoch's low 16 bits only (see roles.ExpandEpoch).
func DecodeState(b []byte, m *msg.TeamMessage) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("teamcomm: %w: "+format, append([]any{ErrState}, args...)...)
	}
	if len(b) < stateFixed+2 || len(b) > maxStateLen {
		return bad("%d bytes", len(b))
	}
	le := binary.LittleEndian
	flags := b[5]
	if flags&^63 != 0 {
		return bad("unknown flags %#x", flags)
	}
	if msg.Role(b[6]) >= msg.NumRoles {
		return bad("role %d", b[6])
	}
	h := int16(le.Uint16(b[11:]))
	if h > 31415 || h < -31415 {
		return bad("heading %d·10⁻⁴ rad outside ±π", h)
	}
	n := int(b[stateFixed])
	if n > msg.MaxSegments || len(b) < stateFixed+1+n+1 {
		return bad("%d segments in %d bytes", n, len(b))
	}
	k := int(b[stateFixed+1+n])
	if k > msg.MaxRecords || len(b) != stateFixed+1+n+1+k*recordSize {
		return bad("%d segments and %d records in %d bytes", n, k, len(b))
	}
	m16 := func(off int) float64 { return float64(int16(le.Uint16(b[off:]))) / 1000 }
	*m = msg.TeamMessage{
		Player:   b[0],
		TeamTime: time.Duration(le.Uint32(b[1:])) * time.Millisecond,
		Fallen:   flags&1 != 0, Penalised: flags&2 != 0, PoseValid: flags&4 != 0, BallValid: flags&8 != 0,
		Searching: flags&16 != 0, TargetValid: flags&32 != 0,
		Role:           msg.Role(b[6]),
		Pose:           hal.Pose2{X: hal.Metres(m16(7)), Y: hal.Metres(m16(9)), Heading: hal.Radians(float64(h) / 1e4)},
		PoseConfidence: float64(b[13]) / 255,
		Ball:           hal.Vec2{X: m16(14), Y: m16(16)},
		BallAge:        time.Duration(le.Uint16(b[18:])) * 10 * time.Millisecond,
		Target:         hal.Vec2{X: m16(20), Y: m16(22)},
		NSegments:      uint8(n),
		NRecords:       uint8(k),
	}
	for i := range n {
		m.Distribution[i] = float32(b[stateFixed+1+i]) / 255
	}
	off := stateFixed + 1 + n + 1
	for i := range k {
		r := b[off+i*recordSize:]
		fr := r[3]
		if msg.Role(fr>>4) >= msg.NumRoles {
			return bad("record %d: flags %#x", i, fr)
		}
		m.Records[i] = msg.RoleRecord{
			Player: r[0], Epoch: uint32(le.Uint16(r[1:])),
			Penalised: fr&1 != 0, Fallen: fr&2 != 0, BallKnown: fr&4 != 0, Locked: fr&8 != 0, Role: msg.Role(fr >> 4),
			StrikerCost: float64(le.Uint16(r[4:])) / 10,
			Pos:         hal.Vec2{X: float64(int16(le.Uint16(r[6:]))) / 100, Y: float64(int16(le.Uint16(r[8:]))) / 100},
		}
	}
	return nil
}
