package robotino

import (
	"errors"
	"fmt"
)

// Framing constants, protocols.md §2.2 [X].
const (
	// StartByte begins every frame (§2.2); it never occurs escaped, so a receiver
	// synchronises on it.
	StartByte byte = 0xAA
	// EscapeByte precedes an escaped byte (§2.2).
	EscapeByte byte = 0x55
	// EscapeXOR is XORed into an escaped byte (§2.2) (0xAA → 55 8A, 0x55 → 55 75).
	EscapeXOR byte = 0x20
	// MaxPayloadLen is the largest payload the 16-bit length of §2.2 can
	// describe.
	MaxPayloadLen = 0xFFFF
)

// Link facts, protocols.md §2.1.
const (
	// USBVendorID and USBProductID identify the base's CDC-ACM device
	// (§2.1, [X]).
	USBVendorID  = 0x1e29
	USBProductID = 0x040d // §2.1, see USBVendorID
	// BaudRate is the line speed (§2.1) Fawkes and OpenRobotino set (8N1 assumed;
	// probably irrelevant on CDC-ACM, [U]).
	BaudRate = 115200
)

// ErrPayloadTooLarge is returned by AppendFrame for a payload longer than
// MaxPayloadLen (§2.2), and by Payload when a command would not fit.
var ErrPayloadTooLarge = errors.New("robotino: payload too large")

// Checksum returns the checksum of a frame with the given (unescaped)
// payload, protocols.md §2.2: the two length bytes and every payload byte
// added as unsigned bytes in a 16-bit accumulator, then (0x10000 − sum) &
// 0xFFFF, so that sum + checksum ≡ 0 (mod 65536). The payload must not be
// longer than MaxPayloadLen.
func Checksum(payload []byte) uint16 {
	n := len(payload)
	sum := uint16(n&0xFF) + uint16(n>>8&0xFF)
	for _, c := range payload {
		sum += uint16(c)
	}
	return -sum
}

// AppendFrame appends the frame carrying payload to dst, protocols.md §2.2:
// start byte 0xAA, the payload length (uint16 LE), the payload, the checksum
// (uint16 LE); every byte after the start byte that equals 0xAA or 0x55 is
// sent as 0x55 followed by the byte XOR 0x20. It allocates only if dst lacks
// capacity (at most 5 + 2·(len(payload)+4) bytes are appended).
func AppendFrame(dst, payload []byte) ([]byte, error) {
	if len(payload) > MaxPayloadLen {
		return dst, fmt.Errorf("%w: %d bytes (limit %d)", ErrPayloadTooLarge, len(payload), MaxPayloadLen)
	}
	n := len(payload)
	cs := Checksum(payload)
	dst = append(dst, StartByte)
	dst = appendEscaped(dst, byte(n))
	dst = appendEscaped(dst, byte(n>>8))
	for _, c := range payload {
		dst = appendEscaped(dst, c)
	}
	dst = appendEscaped(dst, byte(cs))
	dst = appendEscaped(dst, byte(cs>>8))
	return dst, nil
}

func appendEscaped(dst []byte, c byte) []byte {
	if c == StartByte || c == EscapeByte {
		return append(dst, EscapeByte, c^EscapeXOR)
	}
	return append(dst, c)
}
