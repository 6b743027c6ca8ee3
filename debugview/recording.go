package debugview

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/robotd/robotd/record/codec"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/record"
)

// RecordingOptions configure LoadRecording. The zero value works.
type RecordingOptions struct {
	// Types is a board wired with the modules of the build that made the
	// recording (as a replay wires them): with it, values are decoded into
	// their Go types, so that enums show their names. Entries it lacks, or
	// has with another layout, are decoded by their recorded layout.
	Types *blackboard.Board
	// MaxBytes bounds the memory the records take. A longer recording
	// keeps every second record, then every fourth, and so on: the time
	// slider then moves in steps of that many ticks. Zero means 512 MiB.
	MaxBytes int64
}

// Recording is a recording in memory, for the page's time slider.
type Recording struct {
	schema *codec.Schema
	typed  *codec.Schema
	// typedIdx is, for each recorded entry, its index in typed, or -1.
	typedIdx []int

	ticks  []uint64
	data   [][]byte
	bytes  int64
	stride int

	session   string
	build     string
	duration  time.Duration
	read      uint64
	truncated []string
}

// ReplayInfo describes a recording in a State.
type ReplayInfo struct {
	Session string `json:"session"`
	Build   string `json:"build,omitempty"`
	// First and Last are the first and the last recorded tick.
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
	// Records is the number of records kept, Stride the number of
	// recorded records per kept one (1 unless the recording was too long
	// for RecordingOptions.MaxBytes), Index the shown record's position.
	Records int `json:"records"`
	Stride  int `json:"stride"`
	Index   int `json:"index"`
	// DurationNS is the recorded time from the first to the last tick.
	DurationNS int64 `json:"duration_ns"`
	// Truncated: the recording ends where its process was killed.
	Truncated bool `json:"truncated,omitempty"`
}

// LoadRecording reads src to its end into memory (within o.MaxBytes). It
// does not close src.
func LoadRecording(ctx context.Context, src *record.Reader, o RecordingOptions) (*Recording, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = 512 << 20
	}
	h := src.Header()
	rec := &Recording{schema: src.Schema(), stride: 1, session: h.Session, build: h.Build}
	rec.typedIdx = make([]int, rec.schema.Len())
	for i := range rec.typedIdx {
		rec.typedIdx[i] = -1
	}
	if o.Types != nil {
		rec.typed = codec.SchemaOf(o.Types)
		typed := rec.typed.Entries()
		for i, e := range rec.schema.Entries() {
			j := rec.typed.Index(e.Name)
			if j >= 0 && typed[j].Layout.Equal(&e.Layout) {
				rec.typedIdx[i] = j
			}
		}
	}
	for src.Next() {
		if rec.read%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("debugview: loading the recording: %w", err)
			}
		}
		n := rec.read
		rec.read++
		if n%uint64(rec.stride) != 0 {
			continue
		}
		d := src.Record().Data
		if len(d) < 16 {
			return nil, fmt.Errorf("debugview: record %d has %d bytes, not even a tick", n, len(d))
		}
		tick := binary.LittleEndian.Uint64(d)
		if k := len(rec.ticks); k > 0 && tick <= rec.ticks[k-1] {
			return nil, fmt.Errorf("debugview: record %d: tick %d after tick %d", n, tick, rec.ticks[k-1])
		}
		rec.ticks = append(rec.ticks, tick)
		rec.data = append(rec.data, append([]byte(nil), d...))
		rec.bytes += int64(len(d))
		for rec.bytes > o.MaxBytes && len(rec.data) > 1 {
			rec.halve()
		}
	}
	if err := src.Err(); err != nil {
		return nil, fmt.Errorf("debugview: reading the recording: %w", err)
	}
	if len(rec.ticks) == 0 {
		return nil, fmt.Errorf("debugview: the recording has no records")
	}
	rec.truncated = src.Truncated()
	rec.duration = rec.span()
	return rec, nil
}

// halve keeps every second record.
func (r *Recording) halve() {
	k := 0
	r.bytes = 0
	for i := 0; i < len(r.data); i += 2 {
		r.ticks[k], r.data[k] = r.ticks[i], r.data[i]
		r.bytes += int64(len(r.data[k]))
		k++
	}
	clear(r.data[k:])
	r.ticks, r.data = r.ticks[:k], r.data[:k]
	r.stride *= 2
}

// Len returns the number of records kept.
func (r *Recording) Len() int { return len(r.ticks) }

// Ticks returns the first and last tick kept.
func (r *Recording) Ticks() (first, last uint64) { return r.ticks[0], r.ticks[len(r.ticks)-1] }

// Stride returns the number of recorded records per kept one.
func (r *Recording) Stride() int { return r.stride }

func (r *Recording) live() bool { return false }

// index is the last record at or before tick (the first if tick is before
// it).
func (r *Recording) index(tick uint64) int {
	i := sort.Search(len(r.ticks), func(i int) bool { return r.ticks[i] > tick })
	return max(i-1, 0)
}

func (r *Recording) state(tick uint64, haveTick bool) (*State, error) {
	i := 0
	if haveTick {
		i = r.index(tick)
	}
	var split codec.Record
	if err := r.schema.Split(r.data[i], &split); err != nil {
		return nil, fmt.Errorf("debugview: record of tick %d: %w", r.ticks[i], err)
	}
	first, last := r.Ticks()
	s := &State{
		Mode: "replay", Tick: split.Tick, TimeNS: int64(split.Time),
		Entries: make(map[string]Entry, len(split.Entries)),
		Replay: &ReplayInfo{Session: r.session, Build: r.build, First: first, Last: last,
			Records: len(r.ticks), Stride: r.stride, Index: i, DurationNS: int64(r.duration), Truncated: len(r.truncated) > 0},
	}
	for k, e := range r.schema.Entries() {
		re := split.Entries[k]
		out := Entry{Type: e.Type, Writer: e.Writer, Tick: re.Tick, TimeNS: int64(re.Time)}
		v, err := r.decode(k, &e.Layout, re.Value)
		if err != nil {
			out.Error = err.Error()
		} else {
			out.Value = v
		}
		s.Entries[e.Name] = out
	}
	return s, nil
}

// decode decodes the k'th recorded entry's value: into its Go type if the
// types board has it, else by its layout.
func (r *Recording) decode(k int, f *codec.Field, value []byte) (any, error) {
	if j := r.typedIdx[k]; j >= 0 {
		v, err := r.typed.Decode(j, value)
		if err == nil {
			return toJSON(v), nil
		}
	}
	d := layoutDecoder{src: value}
	v, err := d.decode(f)
	if err != nil {
		return nil, err
	}
	if len(d.src) != 0 {
		return nil, fmt.Errorf("%d bytes left over after the value", len(d.src))
	}
	return v, nil
}

// Duration returns the recorded time between the first and the last record
// kept.
func (r *Recording) Duration() time.Duration { return r.duration }

func (r *Recording) span() time.Duration {
	var a, b codec.Record
	if r.schema.Split(r.data[0], &a) != nil || r.schema.Split(r.data[len(r.data)-1], &b) != nil {
		return 0
	}
	return b.Time - a.Time
}
