package teamcomm

import (
	"encoding/binary"
	"fmt"
	"math"
)

// TypeState is the message type of State.
const TypeState uint8 = 1

// TypeHello is sent once when an endpoint starts, so a Hub learns where it
// is; it carries no payload and has no handler.
const TypeHello uint8 = 127

// State is a robot's per-tick state as shared with its team: compact,
// fixed-size, little-endian (StateSize bytes).
type State struct {
	Player    uint8
	Fallen    bool
	Penalised bool
	// Role is the role the robot plays (behaviour's numbering).
	Role uint8
	// X, Y are the robot's field position in mm; Heading in rad.
	X, Y    int16
	Heading float64
	// Confidence of the pose, 0..1.
	Confidence float64
	// BallSeen is true when the robot has a current ball estimate; BallX/Y
	// is its field position in mm and BallAge the ms since it was seen.
	BallSeen     bool
	BallX, BallY int16
	BallAge      uint16
	// TargetX/Y is where the robot is going (e.g. its ball-search target), mm.
	TargetX, TargetY int16
	// Utility is the robot's utility for its role, scaled 0..65535.
	Utility uint16
}

// StateSize is the encoded size of State.
const StateSize = 24

// AppendState encodes s.
func AppendState(dst []byte, s *State) []byte {
	var flags byte
	if s.Fallen {
		flags |= 1
	}
	if s.Penalised {
		flags |= 2
	}
	if s.BallSeen {
		flags |= 4
	}
	dst = append(dst, s.Player, flags, s.Role)
	le := binary.LittleEndian
	dst = le.AppendUint16(dst, uint16(s.X))
	dst = le.AppendUint16(dst, uint16(s.Y))
	h := math.Remainder(s.Heading, 2*math.Pi)
	dst = le.AppendUint16(dst, uint16(int16(math.Round(h*10000))))
	dst = append(dst, uint8(math.Round(min(max(s.Confidence, 0), 1)*255)))
	dst = le.AppendUint16(dst, uint16(s.BallX))
	dst = le.AppendUint16(dst, uint16(s.BallY))
	dst = le.AppendUint16(dst, s.BallAge)
	dst = le.AppendUint16(dst, uint16(s.TargetX))
	dst = le.AppendUint16(dst, uint16(s.TargetY))
	dst = le.AppendUint16(dst, s.Utility)
	return append(dst, 0, 0) // reserved
}

// DecodeState decodes a State payload.
func DecodeState(b []byte, s *State) error {
	if len(b) != StateSize {
		return fmt.Errorf("teamcomm: state: %d bytes, want %d", len(b), StateSize)
	}
	le := binary.LittleEndian
	flags := b[1]
	if flags&^7 != 0 {
		return fmt.Errorf("teamcomm: state: unknown flags %#x", flags)
	}
	if h := int16(le.Uint16(b[7:])); h > 31416 || h < -31416 {
		return fmt.Errorf("teamcomm: state: heading %d·10⁻⁴ rad outside ±π", h)
	}
	*s = State{
		Player: b[0], Fallen: flags&1 != 0, Penalised: flags&2 != 0, BallSeen: flags&4 != 0, Role: b[2],
		X: int16(le.Uint16(b[3:])), Y: int16(le.Uint16(b[5:])),
		Heading:    float64(int16(le.Uint16(b[7:]))) / 10000,
		Confidence: float64(b[9]) / 255,
		BallX:      int16(le.Uint16(b[10:])), BallY: int16(le.Uint16(b[12:])), BallAge: le.Uint16(b[14:]),
		TargetX: int16(le.Uint16(b[16:])), TargetY: int16(le.Uint16(b[18:])), Utility: le.Uint16(b[20:]),
	}
	return nil
}
