package lola

import (
	"errors"
	"strconv"
	"strings"

	"github.com/tinylib/msgp/msgp"
)

// Kinds of decoding errors (protocols.md §1.2, §1.4). Every error returned by
// DecodeSensors and DecodeActuators is a *DecodeError that wraps exactly one
// of these; test with errors.Is.
var (
	// ErrTruncated: the packet ends inside a value (there is no framing
	// beyond msgpack, §1.1).
	ErrTruncated = errors.New("lola: truncated packet")
	// ErrType: a value has the wrong msgpack type for §1.2/§1.4 (e.g. a
	// string where a number belongs, or the packet is not a map).
	ErrType = errors.New("lola: wrong msgpack type")
	// ErrLength: an array has a length other than §1.2/§1.4 give, or a
	// RobotConfig string is longer than MaxConfigLen.
	ErrLength = errors.New("lola: wrong length")
	// ErrRange: a number does not fit its field (Status, §1.2, outside
	// 0..255 or not an integer).
	ErrRange = errors.New("lola: value out of range")
	// ErrMissingKey: a sensor map lacks one of the 13 keys of §1.2.
	ErrMissingKey = errors.New("lola: missing key")
	// ErrDuplicateKey: a key occurs twice in one map (§1.2, §1.4).
	ErrDuplicateKey = errors.New("lola: duplicate key")
	// ErrUnknownKey: an actuator map has a key that is not in §1.4
	// (sensor maps skip and count unknown keys instead).
	ErrUnknownKey = errors.New("lola: unknown key")
	// ErrTrailingBytes: bytes follow the sensor map (one map per message,
	// §1.1).
	ErrTrailingBytes = errors.New("lola: trailing bytes after the map")
	// ErrMalformed: invalid msgpack (§1.1; e.g. an unknown prefix byte or
	// too deep nesting inside a skipped value).
	ErrMalformed = errors.New("lola: malformed msgpack")
)

// DecodeError says precisely what is wrong with a LoLA packet (protocols.md
// §1.2 sensors, §1.4 actuators): which key,
// which array index, where in the packet, and what was expected and found.
type DecodeError struct {
	Map    string // "sensors" or "actuators"
	Key    string // the map key concerned; "" for the map itself
	Index  int    // the array index concerned, or -1
	Offset int    // byte offset in the packet where the offending value starts
	Want   string // what was expected, e.g. "array of 25" (may be empty)
	Got    string // what was found, e.g. "array of 24" (may be empty)
	Kind   error  // one of the Err* kinds of this package
	Cause  error  // the underlying msgp error, if any
}

// Error formats the error (§1.2/§1.4 names), e.g.
// `lola: sensors: "Position"[3] at byte 57: wrong msgpack type: want number, got str`.
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("lola: ")
	b.WriteString(e.Map)
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(strconv.Quote(e.Key))
		if e.Index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.Index))
			b.WriteByte(']')
		}
		b.WriteByte(' ')
	}
	b.WriteString("at byte ")
	b.WriteString(strconv.Itoa(e.Offset))
	b.WriteString(": ")
	b.WriteString(strings.TrimPrefix(e.Kind.Error(), "lola: "))
	if e.Want != "" || e.Got != "" {
		b.WriteString(": want ")
		b.WriteString(e.Want)
		b.WriteString(", got ")
		b.WriteString(e.Got)
	}
	if e.Cause != nil {
		b.WriteString(" (")
		b.WriteString(e.Cause.Error())
		b.WriteByte(')')
	}
	return b.String()
}

// Unwrap returns the kind and, if any, the underlying msgp error (§1.1
// serialisation).
func (e *DecodeError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}

// at is the position of a value for error reports.
type at struct {
	m     string
	key   string
	index int
	off   int
}

func (p at) err(kind error, want, got string) error {
	return &DecodeError{Map: p.m, Key: p.key, Index: p.index, Offset: p.off, Want: want, Got: got, Kind: kind}
}

// msgpErr converts an error of the msgp runtime into a *DecodeError; b is
// the input at the offending value (for naming the type found).
func (p at) msgpErr(err error, want string, b []byte) error {
	kind := ErrMalformed
	got := ""
	var te msgp.TypeError
	switch {
	case errors.Is(err, msgp.ErrShortBytes):
		kind = ErrTruncated
	case errors.As(err, &te):
		kind = ErrType
		got = typeName(b)
	}
	e := &DecodeError{Map: p.m, Key: p.key, Index: p.index, Offset: p.off, Kind: kind, Cause: err}
	if kind == ErrType {
		e.Want, e.Got = want, got
	}
	return e
}

// typeName names the msgpack type at the start of b.
func typeName(b []byte) string {
	if len(b) == 0 {
		return "end of packet"
	}
	t := msgp.NextType(b)
	if t == msgp.InvalidType {
		return "invalid prefix 0x" + strconv.FormatUint(uint64(b[0]), 16)
	}
	return t.String()
}

func arrayOf(n int) string { return "array of " + strconv.Itoa(n) }
