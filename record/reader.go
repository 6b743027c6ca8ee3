package record

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/robotd/robotd/record/codec"
)

// Record is one tick's record.
type Record struct {
	// Wall is the wall-clock time at which the tick was recorded.
	Wall time.Time
	// Dropped is the number of records the recorder had dropped in the
	// session before this one; a change from one record to the next is a
	// gap.
	Dropped uint64
	// Data is the blackboard record (see codec.Schema). It is valid
	// until the next call of Next.
	Data []byte
	// Segment is the number of the segment it was read from.
	Segment int
}

// Reader reads a session's records, across its segments, in order.
type Reader struct {
	files  []string
	next   int
	hdr    *Header
	schema json.RawMessage

	f    *os.File
	zr   io.ReadCloser
	br   *bufio.Reader
	cur  *Header
	path string

	body      []byte
	rec       Record
	err       error
	truncated []string
	skipped   []Skip
	records   uint64
	// segRecords counts the records read from the current segment.
	segRecords uint64
}

// errEmpty is a segment file with nothing in it.
var errEmpty = errors.New("empty file")

// Skip is a segment, or the rest of one, that the reader could not read and
// left out: an empty file, one cut off before its header, one that is not a
// recording of this session, or a corrupt frame and what follows it.
type Skip struct {
	// Path is the segment file.
	Path string
	// Records is the number of the segment's records read before the
	// problem (0: the whole segment was left out).
	Records uint64
	// Reason says what was wrong.
	Reason string
}

func (s Skip) String() string {
	if s.Records == 0 {
		return fmt.Sprintf("%s (%s)", s.Path, s.Reason)
	}
	return fmt.Sprintf("%s after %d records (%s)", s.Path, s.Records, s.Reason)
}

// Open opens a recording. path is a directory (its newest session is read),
// a segment file (its whole session in that directory is read, oldest
// remaining segment first), or a file not named like a segment (read
// alone).
func Open(path string) (*Reader, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("record: opening a recording: %w", err)
	}
	if fi.IsDir() {
		files, err := sessionFiles(path, nil)
		if err != nil {
			return nil, err
		}
		return OpenFiles(files...)
	}
	if id, ok := parseSegmentName(filepath.Base(path)); ok {
		files, err := sessionFiles(filepath.Dir(path), &id)
		if err != nil {
			return nil, err
		}
		return OpenFiles(files...)
	}
	return OpenFiles(path)
}

// sessionFiles lists the segments of like's session in dir, or of the
// newest session if like is nil, in order.
func sessionFiles(dir string, like *segmentID) ([]string, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("record: listing %s: %w", dir, err)
	}
	var ids []segmentID
	for _, de := range des {
		if id, ok := parseSegmentName(de.Name()); ok && de.Type().IsRegular() {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("record: no recording (*%s) in %s", ext, dir)
	}
	if like == nil {
		newest := slices.MaxFunc(ids, func(a, b segmentID) int { return a.compare(b) })
		like = &newest
	}
	ids = slices.DeleteFunc(ids, func(id segmentID) bool { return id.session != like.session || id.prefix != like.prefix })
	slices.SortFunc(ids, segmentID.compare)
	files := make([]string, len(ids))
	for i, id := range ids {
		files[i] = filepath.Join(dir, id.name)
	}
	return files, nil
}

// OpenFiles opens the given segments of one session, in the given order.
// It reads the first one's header at once.
func OpenFiles(files ...string) (*Reader, error) {
	if len(files) == 0 {
		return nil, errors.New("record: no segment files to read")
	}
	r := &Reader{files: files}
	var errs []error
	for r.hdr == nil {
		if r.next >= len(r.files) {
			r.Close()
			if len(errs) == 1 {
				return nil, errs[0]
			}
			return nil, fmt.Errorf("record: no readable segment among %d: %w", len(files), errors.Join(errs...))
		}
		if err := r.openNext(); err != nil {
			// The first segments may be unreadable (a disk that filled
			// up, a file overwritten); a later one still carries the
			// header.
			errs = append(errs, err)
			r.skipStart(err)
		}
	}
	return r, nil
}

// Header returns the first segment's header.
func (r *Reader) Header() *Header { return r.hdr }

// Schema returns the records' schema.
func (r *Reader) Schema() *codec.Schema { return r.hdr.Schema }

// Files returns the segment files, in reading order.
func (r *Reader) Files() []string { return slices.Clone(r.files) }

// Next advances to the next record. It returns false at the end of the
// recording or on an error (see Err); a segment that ends mid-stream, as
// when the recording process was killed, ends cleanly (see Truncated).
func (r *Reader) Next() bool {
	for r.err == nil {
		if r.br == nil {
			if r.next >= len(r.files) {
				return false
			}
			if err := r.openNext(); err != nil {
				r.skipStart(err)
			}
			continue
		}
		body, err := r.readFrame()
		if err == nil {
			err = r.parseTick(body)
		}
		switch {
		case err == nil:
			r.records++
			r.segRecords++
			return true
		case errors.Is(err, io.EOF):
			r.closeSegment()
		case errors.Is(err, io.ErrUnexpectedEOF):
			r.truncated = append(r.truncated, r.path)
			if r.segRecords == 0 {
				r.skip("cut off before its first record")
			} else {
				r.skip("cut off mid-stream")
			}
		default:
			// The DEFLATE stream cannot be resynchronised after a
			// corrupt frame: the rest of the segment is left out, the
			// next segment starts a stream of its own.
			r.skip(err.Error())
		}
	}
	return false
}

// skipStart leaves out a segment whose start could not be read; one that
// is empty or cut off (a full disk, a crash) is also truncated.
func (r *Reader) skipStart(err error) {
	if errors.Is(err, errEmpty) || errors.Is(err, io.ErrUnexpectedEOF) {
		r.truncated = append(r.truncated, r.path)
	}
	r.skip(err.Error())
}

// skip leaves the rest of the current segment out, saying why.
func (r *Reader) skip(reason string) {
	r.skipped = append(r.skipped, Skip{Path: r.path, Records: r.segRecords, Reason: reason})
	r.closeSegment()
}

// Record returns the current record.
func (r *Reader) Record() Record { return r.rec }

// Err returns the error that ended Next early, if any. A truncated tail is
// not an error.
func (r *Reader) Err() error { return r.err }

// Truncated lists the segments that ended mid-stream: their records up to
// the last flush were read, the rest was lost (the recording process
// ended without closing them). After a crash, that is the last segment.
func (r *Reader) Truncated() []string { return slices.Clone(r.truncated) }

// Skipped lists the segments, or their rests, that were left out because
// they could not be read: empty, cut off before a record, not of this
// session, or corrupt. Every record of the other segments was read.
func (r *Reader) Skipped() []Skip { return slices.Clone(r.skipped) }

// Close closes the current segment.
func (r *Reader) Close() error {
	r.closeSegment()
	return nil
}

func (r *Reader) closeSegment() {
	if r.zr != nil {
		r.zr.Close()
	}
	if r.f != nil {
		r.f.Close()
	}
	r.f, r.zr, r.br, r.cur = nil, nil, nil, nil
	r.segRecords = 0
}

// openNext opens the next segment and reads its header. A segment cut off
// before its header was flushed is skipped as truncated, unless it is the
// first. On an error the segment is closed; the caller skips it.
func (r *Reader) openNext() error {
	path := r.files[r.next]
	r.next++
	r.path = path
	r.closeSegment()
	if err := r.openSegment(path); err != nil {
		r.closeSegment()
		return err
	}
	return nil
}

func (r *Reader) openSegment(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	r.f = f
	var fh [fileHeader]byte
	if n, err := io.ReadFull(f, fh[:]); err != nil {
		if n == 0 {
			return fmt.Errorf("record: %s: %w", path, errEmpty)
		}
		return fmt.Errorf("record: %s: reading the file header: %w", path, noEOF(err))
	}
	if string(fh[:len(magic)]) != magic {
		return fmt.Errorf("record: %s is not a robotd recording (magic %q)", path, fh[:len(magic)])
	}
	if v := binary.LittleEndian.Uint16(fh[len(magic):]); v != FormatVersion {
		return fmt.Errorf("record: %s: format version %d, this build reads %d", path, v, FormatVersion)
	}
	if flags := binary.LittleEndian.Uint16(fh[len(magic)+2:]); flags != 0 {
		return fmt.Errorf("record: %s: unknown flags %#x", path, flags)
	}
	r.zr = flate.NewReader(bufio.NewReaderSize(f, 64<<10))
	r.br = bufio.NewReaderSize(r.zr, 64<<10)
	body, err := r.readFrame()
	if err != nil {
		return fmt.Errorf("record: %s: reading the header: %w", path, noEOF(err))
	}
	if len(body) == 0 || body[0] != frameHead {
		return fmt.Errorf("record: %s: the first frame is not a header", path)
	}
	var h Header
	if err := json.Unmarshal(body[1:], &h); err != nil {
		return fmt.Errorf("record: %s: decoding the header: %w", path, err)
	}
	if h.Version != FormatVersion || h.Schema == nil {
		return fmt.Errorf("record: %s: header version %d, schema present %t", path, h.Version, h.Schema != nil)
	}
	raw, err := json.Marshal(h.Schema)
	if err != nil {
		return fmt.Errorf("record: %s: %w", path, err)
	}
	if r.hdr == nil {
		r.hdr, r.schema = &h, raw
	} else {
		if h.Session != r.hdr.Session {
			return fmt.Errorf("record: %s is of session %s, not %s", path, h.Session, r.hdr.Session)
		}
		if !bytes.Equal(raw, r.schema) {
			return fmt.Errorf("record: %s: the schema differs from the first segment's", path)
		}
	}
	r.cur = &h
	return nil
}

// readFrame reads one frame's body: io.EOF at a clean end of the stream,
// io.ErrUnexpectedEOF where it is cut off.
func (r *Reader) readFrame() ([]byte, error) {
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		return nil, err // io.EOF only if no byte was read
	}
	if n > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes (corrupt length)", n)
	}
	r.body = slices.Grow(r.body[:0], int(n)+4)[:n+4]
	if _, err := io.ReadFull(r.br, r.body); err != nil {
		return nil, noEOF(err)
	}
	body := r.body[:n]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(r.body[n:]); got != want {
		return nil, fmt.Errorf("frame checksum %#08x, want %#08x (corrupt)", got, want)
	}
	return body, nil
}

func (r *Reader) parseTick(body []byte) error {
	if len(body) < 10 || body[0] != frameTick {
		typ := byte(0)
		if len(body) > 0 {
			typ = body[0]
		}
		return fmt.Errorf("record: %s: unexpected frame (type %q, %d bytes)", r.path, typ, len(body))
	}
	wall := int64(binary.LittleEndian.Uint64(body[1:]))
	dropped, n := binary.Uvarint(body[9:])
	if n <= 0 {
		return fmt.Errorf("record: %s: bad tick frame", r.path)
	}
	r.rec = Record{Wall: time.Unix(0, wall), Dropped: dropped, Data: body[9+n:], Segment: r.cur.Segment}
	return nil
}

// noEOF turns io.EOF in the middle of something into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
