package record

import (
	"bufio"
	"compress/flate"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/record/codec"

	"github.com/robotd/robotd/blackboard"
)

// Info is what a recording says about the run besides the blackboard.
type Info struct {
	// Config is the robot's configuration as JSON; replay rebuilds the
	// modules from it.
	Config json.RawMessage
	// Build is the build flavour ("real", "sim").
	Build string
}

// Recorder records a board's ticks. RecordTick, called by the tick
// goroutine after every tick, only encodes the board into a recycled buffer
// and queues it; a writer goroutine compresses and writes the records, and
// lives until the context given to Start is done or Close is called.
type Recorder struct {
	cfg    Config
	schema *codec.Schema
	log    *slog.Logger

	free      chan []byte
	queue     chan []byte
	allocated atomic.Int64
	dropped   atomic.Uint64
	written   atomic.Uint64
	bytes     atomic.Int64
	closed    atomic.Bool

	cancel    context.CancelFunc
	closeOnce sync.Once
	done      chan struct{}
	errMu     sync.Mutex
	err       error

	// testHookWrite, when set, runs in the writer goroutine before each
	// record is written (tests use it to make the writer fall behind).
	testHookWrite func()
}

// Start begins recording board, whose wiring must be complete (entries
// registered later are not recorded). It creates Config.Dir and the first
// segment at once, so that a bad directory is an error here, then writes
// in a goroutine until ctx is done or Close is called.
func Start(ctx context.Context, cfg Config, board *blackboard.Board, info Info, log *slog.Logger) (*Recorder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := time.Now()
	schema := codec.SchemaOf(board)
	w := &segWriter{
		cfg: cfg,
		log: log,
		hdr: Header{
			Version: FormatVersion,
			Session: now.UTC().Format(sessionLayout),
			Start:   now,
			Build:   info.Build,
			Config:  info.Config,
			Schema:  schema,
		},
	}
	if info.Config != nil && !json.Valid(info.Config) {
		return nil, fmt.Errorf("record: the configuration to record is not valid JSON")
	}
	zw, err := flate.NewWriter(io.Discard, cfg.Level)
	if err != nil {
		return nil, fmt.Errorf("record: compressor: %w", err)
	}
	w.zw = zw
	r := &Recorder{
		cfg:    cfg,
		schema: schema,
		log:    log,
		free:   make(chan []byte, cfg.Queue),
		queue:  make(chan []byte, cfg.Queue),
		done:   make(chan struct{}),
	}
	w.rec = r
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("record: creating the recording directory: %w", err)
	}
	if err := w.open(0); err != nil {
		return nil, err
	}
	ctx, r.cancel = context.WithCancel(ctx)
	log.Info("recording", "dir", cfg.Dir, "session", w.hdr.Session, "entries", schema.Len())
	go w.run(ctx)
	return r, nil
}

// RecordTick records the board as it is now. It is meant to be called by
// the tick goroutine after the tick's commands were handed to the backend
// (it implements runner.Recorder), from one goroutine at a time. It never
// blocks: when the writer is behind, the record is dropped and counted.
// It does not allocate once the buffers have grown to a record's size.
func (r *Recorder) RecordTick(uint64) {
	if r.closed.Load() {
		return
	}
	var buf []byte
	select {
	case buf = <-r.free:
	default:
		if r.allocated.Load() >= int64(r.cfg.Queue) {
			r.dropped.Add(1)
			return
		}
		r.allocated.Add(1)
	}
	buf = append(buf[:0], frameTick)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(time.Now().UnixNano()))
	buf = binary.AppendUvarint(buf, r.dropped.Load())
	buf = r.schema.AppendRecord(buf)
	select {
	case r.queue <- buf:
	default: // cannot happen: the queue has room for every buffer
		r.dropped.Add(1)
	}
}

// Dropped returns the number of records lost: dropped because the writer
// was behind, or not written because writing failed (see Err).
func (r *Recorder) Dropped() uint64 { return r.dropped.Load() }

// Written returns the number of records written.
func (r *Recorder) Written() uint64 { return r.written.Load() }

// Bytes returns the compressed bytes written so far, headers included.
func (r *Recorder) Bytes() int64 { return r.bytes.Load() }

// Schema returns the schema of the records.
func (r *Recorder) Schema() *codec.Schema { return r.schema }

// Err returns the first write error, if any. The recorder keeps trying:
// after an error it starts a new segment a few seconds later.
func (r *Recorder) Err() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err
}

func (r *Recorder) setErr(err error) {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// Close stops recording: it writes the records still queued, closes the
// segment and waits for the writer goroutine to end. It returns Err.
func (r *Recorder) Close() error {
	r.closeOnce.Do(func() {
		r.closed.Store(true)
		r.cancel()
	})
	<-r.done
	return r.Err()
}

// Done is closed when the writer goroutine has ended.
func (r *Recorder) Done() <-chan struct{} { return r.done }

// retryAfter is how long the writer waits after a write error before it
// starts a new segment.
const retryAfter = 5 * time.Second

// segWriter is the writer goroutine's state.
type segWriter struct {
	cfg Config
	log *slog.Logger
	hdr Header
	rec *Recorder

	f     *os.File
	path  string
	bw    *bufio.Writer
	cw    countWriter
	zw    *flate.Writer
	frame []byte

	// pending counts the frame bytes written since the last flush, and
	// since when they wait.
	pending      int
	pendingSince time.Time
	broken       bool
	retryAt      time.Time
	// closedBytes is the size of the session's closed segments.
	closedBytes int64
}

// countWriter counts the compressed bytes.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// size returns the segment file's size once everything is flushed.
func (w *segWriter) size() int64 { return int64(fileHeader) + w.cw.n }

// deflateBound bounds the compressed size of n bytes: DEFLATE stores a
// block it cannot compress, at 5 bytes per block of at most 65535 bytes,
// plus the partial byte of the previous block and a flush's empty block.
func deflateBound(n int) int64 {
	return int64(n) + 8*int64(n/65535+1) + 16
}

func (w *segWriter) run(ctx context.Context) {
	r := w.rec
	defer close(r.done)
	period := w.cfg.FlushInterval.D() / 4
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			for {
				select {
				case buf := <-r.queue:
					w.write(buf)
					continue
				default:
				}
				break
			}
			r.closed.Store(true)
			if !w.broken {
				if err := w.close(); err != nil {
					w.fail(err)
				}
			}
			return
		case buf := <-r.queue:
			if r.testHookWrite != nil {
				r.testHookWrite()
			}
			w.write(buf)
			if w.pending > 0 && time.Since(w.pendingSince) >= w.cfg.FlushInterval.D()-period {
				w.flushOrFail()
			}
		case <-ticker.C:
			if w.pending > 0 && time.Since(w.pendingSince) >= w.cfg.FlushInterval.D()-period {
				w.flushOrFail()
			}
		}
	}
}

// write writes one record frame and recycles its buffer.
func (w *segWriter) write(buf []byte) {
	r := w.rec
	defer func() {
		select {
		case r.free <- buf:
		default:
		}
	}()
	if w.broken {
		if time.Now().Before(w.retryAt) {
			r.dropped.Add(1)
			return
		}
		w.broken = false
		if err := w.open(w.hdr.Segment + 1); err != nil {
			w.fail(err)
			r.dropped.Add(1)
			return
		}
	}
	if err := w.writeFrame(buf); err != nil {
		w.fail(err)
		r.dropped.Add(1)
		return
	}
	r.written.Add(1)
}

// writeFrame writes body as a frame, first starting a new segment if the
// frame could make this one exceed the segment size.
func (w *segWriter) writeFrame(body []byte) error {
	w.frame = appendFrame(w.frame[:0], body)
	n := len(w.frame)
	limit := w.cfg.SegmentBytes
	if w.size()+deflateBound(w.pending+n) > limit {
		// Flushing makes the size exact; then see if the frame still fits.
		if err := w.flush(); err != nil {
			return err
		}
		if w.size()+deflateBound(n) > limit {
			if err := w.rotate(); err != nil {
				return err
			}
			if w.size()+deflateBound(n) > limit {
				return fmt.Errorf("record: a record of %d bytes does not fit in a segment of %d bytes", n, limit)
			}
		}
	}
	if _, err := w.zw.Write(w.frame); err != nil {
		return fmt.Errorf("record: writing %s: %w", w.path, err)
	}
	if w.pending == 0 {
		w.pendingSince = time.Now()
	}
	w.pending += n
	w.rec.bytes.Store(w.bytesTotal())
	return nil
}

// bytesTotal is the compressed size written so far in the session.
func (w *segWriter) bytesTotal() int64 { return w.closedBytes + w.size() }

// flush sync-flushes the DEFLATE stream to the file.
func (w *segWriter) flush() error {
	if err := w.zw.Flush(); err != nil {
		return fmt.Errorf("record: flushing %s: %w", w.path, err)
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("record: writing %s: %w", w.path, err)
	}
	if w.cfg.Fsync {
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("record: syncing %s: %w", w.path, err)
		}
	}
	w.pending = 0
	w.rec.bytes.Store(w.bytesTotal())
	return nil
}

func (w *segWriter) flushOrFail() {
	if w.broken {
		return
	}
	if err := w.flush(); err != nil {
		w.fail(err)
	}
}

// fail logs err, abandons the segment and schedules a new one.
func (w *segWriter) fail(err error) {
	w.log.Error("recording failed; retrying with a new segment", "err", err, "retry_in", retryAfter)
	w.rec.setErr(err)
	if w.f != nil {
		_ = w.f.Close()
		w.f = nil
	}
	w.broken = true
	w.retryAt = time.Now().Add(retryAfter)
}

// rotate closes the segment and starts the next.
func (w *segWriter) rotate() error {
	if err := w.close(); err != nil {
		return err
	}
	return w.open(w.hdr.Segment + 1)
}

// close finishes the DEFLATE stream and closes the file.
func (w *segWriter) close() error {
	f := w.f
	if f == nil {
		return nil
	}
	w.f = nil
	err := w.zw.Close()
	if err == nil {
		err = w.bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("record: closing %s: %w", w.path, err)
	}
	w.closedBytes += w.size()
	w.pending = 0
	return nil
}

// open makes room for a segment, creates segment n and writes its header.
func (w *segWriter) open(n int) error {
	if err := w.makeRoom(); err != nil {
		return err
	}
	if err := w.create(n); err != nil {
		if w.f != nil {
			_ = w.f.Close()
			w.f = nil
		}
		return err
	}
	w.log.Debug("recording segment", "path", w.path)
	return nil
}

// create creates segment n and writes its header.
func (w *segWriter) create(n int) error {
	now := time.Now()
	w.hdr.Segment, w.hdr.Created = n, now
	hdr, err := json.Marshal(&w.hdr)
	if err != nil {
		return fmt.Errorf("record: encoding the header: %w", err)
	}
	w.path = filepath.Join(w.cfg.Dir, segmentName(w.cfg.Prefix, w.hdr.Session, n))
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("record: creating a segment: %w", err)
	}
	w.f = f
	if w.bw == nil {
		w.bw = bufio.NewWriterSize(f, 64<<10)
	} else {
		w.bw.Reset(f)
	}
	var fh [fileHeader]byte
	copy(fh[:], magic)
	binary.LittleEndian.PutUint16(fh[len(magic):], FormatVersion)
	binary.LittleEndian.PutUint16(fh[len(magic)+2:], 0)
	if _, err := w.bw.Write(fh[:]); err != nil {
		return fmt.Errorf("record: writing %s: %w", w.path, err)
	}
	w.cw = countWriter{w: w.bw}
	w.zw.Reset(&w.cw)
	w.pending = 0
	body := append([]byte{frameHead}, hdr...)
	if _, err := w.zw.Write(appendFrame(nil, body)); err != nil {
		return fmt.Errorf("record: writing %s: %w", w.path, err)
	}
	if err := w.flush(); err != nil {
		return err
	}
	if w.size() > w.cfg.SegmentBytes/2 {
		w.log.Warn("recording: the segment header takes more than half a segment", "header_bytes", w.size(), "segment_bytes", w.cfg.SegmentBytes)
	}
	return nil
}

// makeRoom deletes the oldest segment files with the configured prefix
// until a new segment of the full size fits under MaxTotalBytes.
func (w *segWriter) makeRoom() error {
	if w.cfg.MaxTotalBytes <= 0 {
		return nil
	}
	des, err := os.ReadDir(w.cfg.Dir)
	if err != nil {
		return fmt.Errorf("record: listing the recording directory: %w", err)
	}
	type seg struct {
		id   segmentID
		size int64
	}
	var segs []seg
	var total int64
	for _, de := range des {
		id, ok := parseSegmentName(de.Name())
		if !ok || id.prefix != w.cfg.Prefix || !de.Type().IsRegular() {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // deleted meanwhile
		}
		segs = append(segs, seg{id, fi.Size()})
		total += fi.Size()
	}
	slices.SortFunc(segs, func(a, b seg) int { return a.id.compare(b.id) })
	for _, s := range segs {
		if total+w.cfg.SegmentBytes <= w.cfg.MaxTotalBytes {
			break
		}
		p := filepath.Join(w.cfg.Dir, s.id.name)
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("record: deleting an old segment: %w", err)
		}
		total -= s.size
		w.log.Info("recording: deleted the oldest segment to stay within max_total_bytes", "path", p, "bytes", s.size)
	}
	if total+w.cfg.SegmentBytes > w.cfg.MaxTotalBytes {
		return fmt.Errorf("record: no room for a segment in %s: %d bytes in use, max_total_bytes %d", w.cfg.Dir, total, w.cfg.MaxTotalBytes)
	}
	return nil
}
