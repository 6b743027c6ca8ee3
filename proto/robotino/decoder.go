package robotino

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
)

// DefaultMaxPayload is the decoder's default payload limit. protocols.md §2
// states no maximum; the base's firmware builds replies in a 1024-byte
// buffer that holds at most 1015 payload bytes (tlv producer,
// PRODUCER_PAYLOAD_SIZE), so anything longer is a corrupted length.
const DefaultMaxPayload = 1024

// Kinds of framing errors (protocols.md §2.2). The Decoder reports each as a
// *FrameError wrapping one of these, counts it in Stats and resynchronises
// on the next start byte.
var (
	// ErrGarbage: bytes outside any frame were skipped before a start byte
	// (§2.2: the receiver synchronises on 0xAA).
	ErrGarbage = errors.New("robotino: garbage before start byte")
	// ErrTruncated: a frame was cut short by a new start byte (which can
	// never occur inside a frame, §2.2) or by the end of the stream.
	ErrTruncated = errors.New("robotino: truncated frame")
	// ErrBadLength: the §2.2 length field exceeds the decoder's limit.
	ErrBadLength = errors.New("robotino: bad frame length")
	// ErrBadEscape: 0x55 was followed by a byte other than 0x8A or 0x75
	// (§2.2 byte stuffing).
	ErrBadEscape = errors.New("robotino: bad escape sequence")
	// ErrChecksum: the §2.2 checksum does not match the length and payload.
	ErrChecksum = errors.New("robotino: checksum mismatch")
	// ErrNoData: the reader returned no bytes and no error (§2.1 link) — what
	// go.bug.st/serial does when its read timeout expires. Next returns it
	// so the backend can apply its no-data timeout.
	ErrNoData = errors.New("robotino: read returned no data")
	// ErrNoReader: Next was called on a Decoder without a reader (§2.2).
	ErrNoReader = errors.New("robotino: decoder has no reader")
)

// FrameError describes one framing error (protocols.md §2.2).
type FrameError struct {
	Kind error // ErrGarbage, ErrTruncated, ErrBadLength, ErrBadEscape or ErrChecksum
	// Bytes is, for ErrGarbage, the number of bytes skipped; for
	// ErrTruncated, the number of unescaped bytes of the frame received.
	Bytes int
	// Length is the frame's length field (ErrBadLength, ErrChecksum,
	// ErrTruncated once known, else -1).
	Length int
	// Want and Got are the computed and received checksums (ErrChecksum),
	// or for ErrBadEscape Got is the byte after 0x55.
	Want, Got uint16
}

// Error formats the error (§2.2 terms).
func (e *FrameError) Error() string {
	s := e.Kind.Error()
	switch e.Kind {
	case ErrGarbage:
		return s + ": " + strconv.Itoa(e.Bytes) + " bytes skipped"
	case ErrTruncated:
		if e.Length < 0 {
			return s + ": " + strconv.Itoa(e.Bytes) + " bytes received, inside the length field"
		}
		return s + ": " + strconv.Itoa(e.Bytes) + " bytes received, length " + strconv.Itoa(e.Length)
	case ErrBadLength:
		return s + ": " + strconv.Itoa(e.Length)
	case ErrBadEscape:
		return fmt.Sprintf("%s: 0x55 0x%02x", s, e.Got)
	case ErrChecksum:
		return fmt.Sprintf("%s: computed 0x%04x, received 0x%04x (length %d)", s, e.Want, e.Got, e.Length)
	}
	return s
}

// Unwrap returns the kind (one of the §2.2 framing errors).
func (e *FrameError) Unwrap() error { return e.Kind }

// Stats are a Decoder's cumulative counters of §2.2 frames and framing
// errors, e.g. for Prometheus.
type Stats struct {
	Bytes        uint64 // bytes fed to the decoder
	Frames       uint64 // frames with a valid checksum
	GarbageBytes uint64 // bytes skipped outside frames
	GarbageRuns  uint64 // ErrGarbage reports (runs of skipped bytes)
	Truncated    uint64 // ErrTruncated
	BadLength    uint64 // ErrBadLength
	BadEscape    uint64 // ErrBadEscape
	BadChecksum  uint64 // ErrChecksum
}

// Errors returns the number of framing errors (§2.2) of all kinds except
// garbage.
func (s Stats) Errors() uint64 { return s.Truncated + s.BadLength + s.BadEscape + s.BadChecksum }

type counters struct {
	bytes, frames, garbageBytes, garbageRuns, truncated, badLength, badEscape, badChecksum atomic.Uint64
}

// DecoderOptions configure a Decoder (protocols.md §2.2). The zero value is
// the default.
type DecoderOptions struct {
	// MaxPayload is the largest payload accepted; longer length fields are
	// ErrBadLength. 0 means DefaultMaxPayload; values above MaxPayloadLen
	// are reduced to it.
	MaxPayload int
	// ReadBuffer is the size of Next's read buffer; 0 means 1024.
	ReadBuffer int
	// OnError, if set, is called by Next (synchronously, on the reading
	// goroutine) with every framing error it skips.
	OnError func(error)
}

// Decoder is a streaming frame decoder for the base → host (or host →
// base) byte stream, protocols.md §2.2. Feed it bytes with Feed, or let Next
// read from an io.Reader. After garbage, a bad length, a bad escape, a
// truncated frame or a checksum error it resynchronises on the next start
// byte (0xAA); since 0xAA never occurs escaped, no frame start is lost. It
// never panics and, after NewDecoder, allocates only for error values.
//
// A Decoder is used by one goroutine; Stats may be called from any.
type Decoder struct {
	r       io.Reader
	onError func(error)
	max     int

	st      uint8 // stHunt, stLen0, stLen1, stBody
	esc     bool  // the previous byte was 0x55
	lenLo   byte
	length  int
	sum     uint16
	n       int    // unescaped bytes of payload + checksum received
	buf     []byte // payload + checksum, max+2 bytes
	garbage int    // current run of skipped bytes

	in           []byte
	inPos, inEnd int
	pending      error // read error to return once in is drained

	c counters
}

const (
	stHunt = iota
	stLen0
	stLen1
	stBody
)

// NewDecoder returns a §2.2 frame Decoder reading from r (nil if only Feed
// is used).
func NewDecoder(r io.Reader, o DecoderOptions) *Decoder {
	if o.MaxPayload <= 0 {
		o.MaxPayload = DefaultMaxPayload
	}
	if o.MaxPayload > MaxPayloadLen {
		o.MaxPayload = MaxPayloadLen
	}
	if o.ReadBuffer <= 0 {
		o.ReadBuffer = 1024
	}
	d := &Decoder{r: r, onError: o.OnError, max: o.MaxPayload, buf: make([]byte, o.MaxPayload+2)}
	if r != nil {
		d.in = make([]byte, o.ReadBuffer)
	}
	return d
}

// Stats returns the §2.2 counters so far; safe to call from any goroutine.
func (d *Decoder) Stats() Stats {
	return Stats{
		Bytes:        d.c.bytes.Load(),
		Frames:       d.c.frames.Load(),
		GarbageBytes: d.c.garbageBytes.Load(),
		GarbageRuns:  d.c.garbageRuns.Load(),
		Truncated:    d.c.truncated.Load(),
		BadLength:    d.c.badLength.Load(),
		BadEscape:    d.c.badEscape.Load(),
		BadChecksum:  d.c.badChecksum.Load(),
	}
}

// InFrame reports whether the decoder is inside a frame (has seen a §2.2
// start byte but not yet the checksum).
func (d *Decoder) InFrame() bool { return d.st != stHunt }

// Reset drops any partial frame and buffered input (e.g. after reopening
// the port, §2.4). Counters are kept.
func (d *Decoder) Reset() {
	d.st, d.esc, d.garbage, d.n = stHunt, false, 0, 0
	d.inPos, d.inEnd, d.pending = 0, 0, nil
}

func (d *Decoder) begin() {
	d.st, d.esc, d.n, d.length = stLen0, false, 0, -1
}

// Feed consumes bytes from p until a frame (§2.2) completes, a framing error
// occurs, or p is used up, and returns the number of bytes consumed. A
// complete frame is returned as a non-nil payload (possibly empty), valid
// until the next call to Feed or Next; a framing error as a *FrameError
// (already counted in Stats). Call Feed again with p[n:] to continue.
func (d *Decoder) Feed(p []byte) (n int, payload []byte, err error) {
	var garbage int
loop:
	for n < len(p) {
		c := p[n]
		n++
		if d.st == stHunt {
			if c != StartByte {
				d.garbage++
				garbage++
				continue
			}
			d.begin()
			if d.garbage > 0 {
				err = &FrameError{Kind: ErrGarbage, Bytes: d.garbage, Length: -1}
				d.garbage = 0
				d.c.garbageRuns.Add(1)
				break loop
			}
			continue
		}
		if c == StartByte { // cannot occur inside a frame: this one was cut short
			err = &FrameError{Kind: ErrTruncated, Bytes: d.received(), Length: d.length}
			d.c.truncated.Add(1)
			d.begin()
			break loop
		}
		if d.esc {
			d.esc = false
			if c != StartByte^EscapeXOR && c != EscapeByte^EscapeXOR {
				err = &FrameError{Kind: ErrBadEscape, Length: d.length, Got: uint16(c)}
				d.c.badEscape.Add(1)
				d.st = stHunt
				break loop
			}
			c ^= EscapeXOR
		} else if c == EscapeByte {
			d.esc = true
			continue
		}
		switch d.st {
		case stLen0:
			d.lenLo, d.sum, d.st = c, uint16(c), stLen1
			continue
		case stLen1:
			d.length = int(d.lenLo) | int(c)<<8
			d.sum += uint16(c)
			if d.length > d.max {
				err = &FrameError{Kind: ErrBadLength, Length: d.length}
				d.c.badLength.Add(1)
				d.st = stHunt
				break loop
			}
			d.st = stBody
			continue
		}
		// stBody
		d.buf[d.n] = c
		d.n++
		if d.n <= d.length {
			d.sum += uint16(c)
			continue
		}
		if d.n < d.length+2 {
			continue
		}
		d.st = stHunt
		got := uint16(d.buf[d.length]) | uint16(d.buf[d.length+1])<<8
		if d.sum+got != 0 {
			err = &FrameError{Kind: ErrChecksum, Length: d.length, Want: -d.sum, Got: got}
			d.c.badChecksum.Add(1)
			break loop
		}
		payload = d.buf[:d.length:d.length]
		d.c.frames.Add(1)
		break loop
	}
	d.c.bytes.Add(uint64(n))
	if garbage > 0 {
		d.c.garbageBytes.Add(uint64(garbage))
	}
	return n, payload, err
}

// received is the number of unescaped bytes of the current frame so far.
func (d *Decoder) received() int {
	switch d.st {
	case stLen0:
		return 0
	case stLen1:
		return 1
	}
	return 2 + d.n
}

// Next returns the payload of the next valid frame (§2.2) read from the reader,
// valid until the next call to Feed or Next. Framing errors are counted,
// passed to DecoderOptions.OnError and skipped. It returns io.EOF at the
// end of the stream (wrapped io.ErrUnexpectedEOF, also counted as
// ErrTruncated, if the stream ends inside a frame), ErrNoData if a read
// returns no bytes and no error (a serial read timeout), and other read
// errors wrapped.
func (d *Decoder) Next() ([]byte, error) {
	if d.in == nil {
		return nil, ErrNoReader
	}
	for {
		for d.inPos < d.inEnd {
			n, payload, err := d.Feed(d.in[d.inPos:d.inEnd])
			d.inPos += n
			if err != nil {
				if d.onError != nil {
					d.onError(err)
				}
				continue
			}
			if payload != nil {
				return payload, nil
			}
		}
		if err := d.pending; err != nil {
			d.pending = nil
			return nil, d.readErr(err)
		}
		n, err := d.r.Read(d.in)
		if n < 0 || n > len(d.in) {
			n, err = 0, fmt.Errorf("robotino: reader returned invalid count %d", n)
		}
		d.inPos, d.inEnd = 0, n
		if err != nil {
			if n == 0 {
				return nil, d.readErr(err)
			}
			d.pending = err
		} else if n == 0 {
			return nil, ErrNoData
		}
	}
}

func (d *Decoder) readErr(err error) error {
	if errors.Is(err, io.EOF) {
		if d.st != stHunt {
			fe := &FrameError{Kind: ErrTruncated, Bytes: d.received(), Length: d.length}
			d.c.truncated.Add(1)
			d.st = stHunt
			return fmt.Errorf("robotino: stream ended inside a frame: %w (%w)", io.ErrUnexpectedEOF, fe)
		}
		return io.EOF
	}
	return fmt.Errorf("robotino: read: %w", err)
}
