package simspark

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxFrame bounds a frame's payload (and a message given to a
// parser). The largest message in the traces is the monitor's first full
// state, 10.7 KB.
const DefaultMaxFrame = 1 << 20

// Framing errors.
var (
	// ErrFrameTooLarge: a length prefix above the reader's limit.
	ErrFrameTooLarge = errors.New("simspark: frame too large")
	// ErrTruncated: the stream ended inside a frame.
	ErrTruncated = errors.New("simspark: truncated frame")
)

// FrameReader reads length-prefixed frames (4-byte big-endian length, then
// the payload) into a reused buffer: once the buffer has grown to the
// largest frame, reading allocates nothing. It makes two Read calls per
// frame; wrap the connection in a bufio.Reader to save system calls.
type FrameReader struct {
	r   io.Reader
	max int
	buf []byte
	hdr [4]byte
	err error
}

// NewFrameReader returns a reader of frames of at most max bytes (≤ 0
// means DefaultMaxFrame).
func NewFrameReader(r io.Reader, max int) *FrameReader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &FrameReader{r: r, max: max}
}

// Next returns the next frame's payload, valid until the next call. It
// returns io.EOF at a clean end between frames, an error wrapping
// ErrTruncated (and io.ErrUnexpectedEOF) if the stream ends inside one,
// and one wrapping ErrFrameTooLarge for a length above the limit. Errors
// are sticky: the stream cannot be resynchronised after one.
func (f *FrameReader) Next() ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	b, err := f.next()
	f.err = err
	return b, err
}

func (f *FrameReader) next() ([]byte, error) {
	if n, err := io.ReadFull(f.r, f.hdr[:]); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		if err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%w: stream ends after %d of the 4 length bytes: %w", ErrTruncated, n, err)
		}
		return nil, fmt.Errorf("simspark: reading frame length: %w", err)
	}
	n := binary.BigEndian.Uint32(f.hdr[:])
	if uint64(n) > uint64(f.max) {
		return nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, n, f.max)
	}
	if cap(f.buf) < int(n) {
		f.buf = make([]byte, n)
	}
	f.buf = f.buf[:n]
	if got, err := io.ReadFull(f.r, f.buf); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, fmt.Errorf("%w: stream ends after %d of %d payload bytes: %w", ErrTruncated, got, n, io.ErrUnexpectedEOF)
		}
		return nil, fmt.Errorf("simspark: reading frame payload: %w", err)
	}
	return f.buf, nil
}

// AppendFrame appends payload with its length prefix to dst. payload must
// be shorter than 4 GiB.
func AppendFrame(dst, payload []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...)
}

// BeginFrame reserves a length prefix at the end of dst; write the payload
// after it and call EndFrame with the returned offset.
func BeginFrame(dst []byte) ([]byte, int) { return append(dst, 0, 0, 0, 0), len(dst) }

// EndFrame fills in the length prefix reserved by BeginFrame at off.
func EndFrame(dst []byte, off int) []byte {
	binary.BigEndian.PutUint32(dst[off:], uint32(len(dst)-off-4))
	return dst
}
