// Package teamcomm is robotd's team communication (after TeamChaos, AIBO four-legged league):
// connectionless datagrams of at most 128 bytes (the SPL limit), typed
// messages with handlers registered per type (Endpoint, Handle),
// transparent fragmentation and reassembly of larger (debug) messages with
// bounded buffers (Reassembler), the robot's state in a compact payload
// (AppendState, DecodeState: at most 122 bytes), and a message-budget
// manager for the SPL's 1200 messages per game (Budget).
//
// Datagrams travel over a Transport: UDP broadcast on the team's port
// (Comm), through a Hub for several robotd processes on one machine (seed
// 000's comm hub, with loss, latency, jitter and duplication in wall
// time), or over a Bus, the same hub in process and in tick time, for
// simulation runs that must not depend on goroutine scheduling. Module
// brings it all into the tick: it keeps the teammates' latest states on
// the blackboard and sends behaviour's team message within the budget.
package teamcomm

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// MaxDatagram is the SPL's limit on a team message's payload.
const MaxDatagram = 128

// Wire layout of a datagram:
//
//	byte 0    message type (0..127); bit 7 set = a fragment
//	byte 1    sender's player number
//	byte 2-3  sender's message sequence number, little-endian
//	[byte 4   fragment index, byte 5 fragment count]   fragments only
//	...       payload
const (
	headerSize     = 4
	fragHeaderSize = 6
	fragFlag       = 0x80
	// MaxPayload is the largest payload sent in a single datagram.
	MaxPayload = MaxDatagram - headerSize
	// maxFragPayload is the payload of one fragment.
	maxFragPayload = MaxDatagram - fragHeaderSize
	// MaxFragments bounds a fragmented message.
	MaxFragments = 32
	// MaxMessage is the largest payload Send accepts.
	MaxMessage = MaxFragments * maxFragPayload
)

// Errors.
var (
	ErrShort    = errors.New("datagram shorter than its header")
	ErrTooLarge = errors.New("message too large")
	ErrFragment = errors.New("bad fragment header")
	ErrType     = errors.New("message type out of range")
)

// Header is a datagram's header.
type Header struct {
	Type   uint8
	Player uint8
	Seq    uint16
	// Frag and Frags are the fragment index and count; Frags is 0 for an
	// unfragmented message.
	Frag, Frags uint8
}

// ParseHeader splits a datagram into its header and payload.
func ParseHeader(b []byte) (Header, []byte, error) {
	if len(b) < headerSize {
		return Header{}, nil, fmt.Errorf("teamcomm: %w: %d bytes", ErrShort, len(b))
	}
	if len(b) > MaxDatagram {
		return Header{}, nil, fmt.Errorf("teamcomm: %w: datagram of %d bytes (limit %d)", ErrTooLarge, len(b), MaxDatagram)
	}
	h := Header{Type: b[0] &^ fragFlag, Player: b[1], Seq: binary.LittleEndian.Uint16(b[2:])}
	if b[0]&fragFlag == 0 {
		return h, b[headerSize:], nil
	}
	if len(b) < fragHeaderSize {
		return Header{}, nil, fmt.Errorf("teamcomm: %w: fragment of %d bytes", ErrShort, len(b))
	}
	h.Frag, h.Frags = b[4], b[5]
	if h.Frags < 2 || h.Frags > MaxFragments || h.Frag >= h.Frags {
		return Header{}, nil, fmt.Errorf("teamcomm: %w: fragment %d of %d", ErrFragment, h.Frag, h.Frags)
	}
	return h, b[fragHeaderSize:], nil
}

// AppendDatagrams splits a message into datagrams and calls emit for each;
// buf is scratch space reused between calls (pass nil the first time and
// keep the returned slice).
func AppendDatagrams(buf []byte, typ, player uint8, seq uint16, payload []byte, emit func([]byte) error) ([]byte, error) {
	if typ&fragFlag != 0 {
		return buf, fmt.Errorf("teamcomm: %w: %d", ErrType, typ)
	}
	if len(payload) > MaxMessage {
		return buf, fmt.Errorf("teamcomm: %w: %d bytes (limit %d)", ErrTooLarge, len(payload), MaxMessage)
	}
	if len(payload) <= MaxPayload {
		buf = append(buf[:0], typ, player)
		buf = binary.LittleEndian.AppendUint16(buf, seq)
		buf = append(buf, payload...)
		return buf, emit(buf)
	}
	n := (len(payload) + maxFragPayload - 1) / maxFragPayload
	for i := range n {
		chunk := payload[i*maxFragPayload : min(len(payload), (i+1)*maxFragPayload)]
		buf = append(buf[:0], typ|fragFlag, player)
		buf = binary.LittleEndian.AppendUint16(buf, seq)
		buf = append(buf, byte(i), byte(n))
		buf = append(buf, chunk...)
		if err := emit(buf); err != nil {
			return buf, err
		}
	}
	return buf, nil
}
