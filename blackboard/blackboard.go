// Package blackboard is how robotd's modules talk: typed entries, each with
// exactly one writer, read through consistent snapshots without a lock.
//
// An entry is declared with a Key, a name plus a Go type. Modules obtain a
// Writer with Write and Readers with Read while they are wired; a second
// writer for the same entry is an error at wiring time, so is a reader whose
// entry nobody writes (see Board.Validate).
//
// Values must be plain values: booleans, numbers, strings, arrays and structs
// of those. No pointers, slices, maps, channels, functions or interfaces: a
// value is copied in and out whole, so a reader can never see a half-written
// value nor share memory with the writer.
//
// Concurrency: each entry keeps a small pool of versions. The writer fills a
// version nobody reads, then publishes it with one atomic store. A reader
// announces the version it is about to copy in a hazard slot of its own (one
// per Reader, on its own cache line), checks it is still current and copies
// it. The writer never reuses a version that a hazard slot names. Reads
// therefore take no lock, touch no cache line another reader writes, and do
// not slow down as readers are added; writes allocate only while the pool
// grows to (concurrent readers + 2) versions, never in steady state.
//
// A Writer is for one goroutine, and so is a Reader: make one Reader per
// goroutine that reads.
package blackboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Key names an entry and fixes its type.
type Key[T any] struct{ name string }

// NewKey returns the key of the entry called name holding values of type T.
// Names are dotted, lower case, and start with the producing area, e.g.
// "motion.request" or "hal.joints".
func NewKey[T any](name string) Key[T] { return Key[T]{name: name} }

// Name returns the entry's name.
func (k Key[T]) Name() string { return k.name }

// Meta says when a value was produced.
type Meta struct {
	// Tick is the tick in which the value was written; 0 if never written.
	Tick uint64
	// Time is the tick's time.
	Time time.Duration
	// Fresh is true when the value was written in the board's current tick.
	Fresh bool
}

// Valid reports whether the entry has ever been written.
func (m Meta) Valid() bool { return m.Tick != 0 }

// Board holds the entries.
type Board struct {
	tick atomic.Uint64
	time atomic.Int64

	mu      sync.Mutex // wiring and introspection; never on the read or write path
	entries map[string]entry
	order   []entry
}

// New returns an empty board.
func New() *Board { return &Board{entries: make(map[string]entry)} }

// BeginTick sets the board's current tick. Values written from now on carry
// it, and readers judge freshness against it. Called by the runner.
func (b *Board) BeginTick(seq uint64, t time.Duration) {
	b.time.Store(int64(t))
	b.tick.Store(seq)
}

// Tick returns the current tick number.
func (b *Board) Tick() uint64 { return b.tick.Load() }

// Time returns the current tick's time.
func (b *Board) Time() time.Duration { return time.Duration(b.time.Load()) }

// entry is the type-erased view of an entry, for wiring and introspection.
type entry interface {
	hdr() *header
	// snapshot copies the current value out for introspection.
	snapshot() (any, Meta)
}

type header struct {
	name    string
	typ     reflect.Type
	writer  string
	readers []readerDecl
}

type readerDecl struct {
	module string
	// optional: the entry may have no writer.
	optional bool
	// unordered: the read does not order the reader after the writer.
	unordered bool
}

func (h *header) readerNames() []string {
	out := make([]string, 0, len(h.readers))
	for _, r := range h.readers {
		out = append(out, r.module)
	}
	return out
}

func (h *header) hdr() *header { return h }

type version[T any] struct {
	val  T
	meta Meta
}

// hazard is one reader's announcement of the version it is copying. It is
// padded to a cache line so readers do not share lines.
type hazard[T any] struct {
	p atomic.Pointer[version[T]]
	_ [56]byte
}

type entryOf[T any] struct {
	header
	board *Board
	cur   atomic.Pointer[version[T]]
	// hazards is copy-on-write so the writer can scan it while readers are
	// added.
	hazards atomic.Pointer[[]*hazard[T]]
	// pool is owned by the writer.
	pool []*version[T]

	// hazMu serialises addHazard's copy-on-write (readers are added from
	// wiring, snapshots and codecs, each under its own lock).
	hazMu sync.Mutex

	introMu sync.Mutex
	intro   *Reader[T]
}

func (e *entryOf[T]) addHazard() *hazard[T] {
	e.hazMu.Lock()
	defer e.hazMu.Unlock()
	h := new(hazard[T])
	var next []*hazard[T]
	if old := e.hazards.Load(); old != nil {
		next = append(slices.Clip(*old), h)
	} else {
		next = []*hazard[T]{h}
	}
	e.hazards.Store(&next)
	return h
}

// free returns a version that is neither current nor announced by any
// reader. Only the writer calls it.
func (e *entryOf[T]) free() *version[T] {
	cur := e.cur.Load()
	var hz []*hazard[T]
	if p := e.hazards.Load(); p != nil {
		hz = *p
	}
next:
	for _, v := range e.pool {
		if v == cur {
			continue
		}
		for _, h := range hz {
			if h.p.Load() == v {
				continue next
			}
		}
		return v
	}
	v := new(version[T])
	e.pool = append(e.pool, v)
	return v
}

func (e *entryOf[T]) snapshot() (any, Meta) {
	e.introMu.Lock()
	defer e.introMu.Unlock()
	if e.intro == nil {
		e.intro = &Reader[T]{e: e, h: e.addHazard()}
	}
	v, m := e.intro.Get()
	return v, m
}

// Writer writes one entry. There is exactly one per entry.
type Writer[T any] struct{ e *entryOf[T] }

// Set publishes v as the entry's value for the current tick.
func (w *Writer[T]) Set(v T) {
	e := w.e
	nv := e.free()
	nv.val = v
	nv.meta = Meta{Tick: e.board.tick.Load(), Time: time.Duration(e.board.time.Load())}
	e.cur.Store(nv)
}

// Name returns the entry's name.
func (w *Writer[T]) Name() string { return w.e.name }

// Reader reads one entry. A Reader is for one goroutine at a time: its
// hazard slot protects one read. Two goroutines that read through one
// Reader at once panic in a race-enabled build (useGuard); give each
// goroutine its own Reader, or serialise the reads.
type Reader[T any] struct {
	e *entryOf[T]
	h *hazard[T]
	g useGuard
}

// Get returns the entry's current value and when it was produced. Before the
// first write it returns the zero value and a Meta whose Valid is false.
func (r *Reader[T]) Get() (T, Meta) {
	var out T
	m := r.Load(&out)
	return out, m
}

// Load copies the entry's current value into dst and returns when it was
// produced. It leaves dst alone if the entry was never written.
func (r *Reader[T]) Load(dst *T) Meta {
	r.g.enter(r.e.name)
	e := r.e
	for {
		v := e.cur.Load()
		if v == nil {
			r.g.leave()
			return Meta{}
		}
		r.h.p.Store(v)
		if e.cur.Load() != v {
			continue // replaced meanwhile; it may be reused: try again
		}
		*dst = v.val
		m := v.meta
		r.h.p.Store(nil)
		m.Fresh = m.Tick != 0 && m.Tick == e.board.tick.Load()
		r.g.leave()
		return m
	}
}

// Name returns the entry's name.
func (r *Reader[T]) Name() string { return r.e.name }

// Write registers module as the writer of k's entry. It fails if the entry
// already has a writer, or exists with another type.
func Write[T any](b *Board, module string, k Key[T]) (*Writer[T], error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, err := lookup[T](b, k)
	if err != nil {
		return nil, fmt.Errorf("blackboard: %s writes %q: %w", module, k.name, err)
	}
	if e.writer != "" {
		return nil, &DuplicateWriterError{Entry: k.name, First: e.writer, Second: module}
	}
	e.writer = module
	return &Writer[T]{e: e}, nil
}

// Read registers module as a reader of k's entry. The entry must get a
// writer before Validate.
// The runner runs module after the entry's writer in every tick.
func Read[T any](b *Board, module string, k Key[T]) (*Reader[T], error) {
	return read(b, module, k, readerDecl{module: module})
}

// ReadOptional is Read for an entry that may have no writer at all; its
// Reader then always returns an invalid Meta.
func ReadOptional[T any](b *Board, module string, k Key[T]) (*Reader[T], error) {
	return read(b, module, k, readerDecl{module: module, optional: true})
}

// Use registers module as a reader of k's entry without ordering it after
// the writer: the value read may be this tick's or the previous tick's (look
// at Meta). It is how feedback loops are declared, like B-Human's USES: for
// example behaviour uses the motion state that motion produces from
// behaviour's request. The entry must still have a writer.
func Use[T any](b *Board, module string, k Key[T]) (*Reader[T], error) {
	return read(b, module, k, readerDecl{module: module, unordered: true})
}

func read[T any](b *Board, module string, k Key[T], d readerDecl) (*Reader[T], error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, err := lookup[T](b, k)
	if err != nil {
		return nil, fmt.Errorf("blackboard: %s reads %q: %w", module, k.name, err)
	}
	e.readers = append(e.readers, d)
	return &Reader[T]{e: e, h: e.addHazard()}, nil
}

// lookup finds or creates k's entry. b.mu is held.
func lookup[T any](b *Board, k Key[T]) (*entryOf[T], error) {
	if k.name == "" {
		return nil, fmt.Errorf("empty entry name")
	}
	if old, ok := b.entries[k.name]; ok {
		e, ok := old.(*entryOf[T])
		if !ok {
			return nil, fmt.Errorf("entry exists with type %s, not %s", old.hdr().typ, reflect.TypeFor[T]())
		}
		return e, nil
	}
	typ := reflect.TypeFor[T]()
	if err := plain(typ, typ.String()); err != nil {
		return nil, err
	}
	e := &entryOf[T]{header: header{name: k.name, typ: typ}, board: b}
	b.entries[k.name] = e
	b.order = append(b.order, e)
	return e, nil
}

// Plain checks that t is a plain value type (see the package doc), as
// every entry's type is: the value codec of recordings relies on it.
func Plain(t reflect.Type) error { return plain(t, t.String()) }

// plain checks that t is a plain value type (see the package doc).
func plain(t reflect.Type, path string) error {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return nil
	case reflect.Array:
		return plain(t.Elem(), path+"[]")
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if err := plain(f.Type, path+"."+f.Name); err != nil {
				return err
			}
		}
		return nil
	default:
		return fmt.Errorf("type %s is not a plain value: %s is a %s (use arrays and structs, no pointers, slices, maps or interfaces)", t, path, t.Kind())
	}
}

// DuplicateWriterError is returned when a second module registers as the
// writer of an entry.
type DuplicateWriterError struct {
	Entry, First, Second string
}

func (e *DuplicateWriterError) Error() string {
	return fmt.Sprintf("blackboard: duplicate producer for %q: both %s and %s write it", e.Entry, e.First, e.Second)
}

// MissingWriterError is returned by Validate for an entry that is read but
// written by nobody.
type MissingWriterError struct {
	Entry   string
	Readers []string
}

func (e *MissingWriterError) Error() string {
	return fmt.Sprintf("blackboard: missing producer for %q: read by %v, written by no module", e.Entry, e.Readers)
}

// Validate checks that every entry that is read (not optionally) has a writer.
func (b *Board) Validate() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.order {
		h := e.hdr()
		if h.writer != "" {
			continue
		}
		var needy []string
		for _, r := range h.readers {
			if !r.optional {
				needy = append(needy, r.module)
			}
		}
		if len(needy) > 0 {
			return &MissingWriterError{Entry: h.name, Readers: needy}
		}
	}
	return nil
}

// EntryInfo describes an entry.
type EntryInfo struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Writer  string   `json:"writer"`
	Readers []string `json:"readers"`
}

// Entries lists the entries in registration order.
func (b *Board) Entries() []EntryInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]EntryInfo, 0, len(b.order))
	for _, e := range b.order {
		h := e.hdr()
		out = append(out, EntryInfo{Name: h.name, Type: h.typ.String(), Writer: h.writer, Readers: h.readerNames()})
	}
	return out
}

// Value is one entry's value in a Snapshot.
type Value struct {
	Type string `json:"type"`
	// Tick and TimeNS say when it was produced; Tick 0 means never.
	Tick   uint64 `json:"tick"`
	TimeNS int64  `json:"time_ns"`
	Value  any    `json:"value"`
}

// Snapshot is a copy of every entry.
type Snapshot struct {
	Tick    uint64           `json:"tick"`
	TimeNS  int64            `json:"time_ns"`
	Entries map[string]Value `json:"entries"`
}

// Snapshot copies every entry. Each entry's value is consistent; entries
// written while the snapshot is taken may come from different ticks (compare
// their Tick). Take it between ticks for a snapshot of one tick. It allocates
// and is meant for the debug UI, recording and tests, not for modules.
func (b *Board) Snapshot() Snapshot {
	b.mu.Lock()
	es := slices.Clone(b.order)
	b.mu.Unlock()
	s := Snapshot{Tick: b.tick.Load(), TimeNS: b.time.Load(), Entries: make(map[string]Value, len(es))}
	for _, e := range es {
		v, m := e.snapshot()
		s.Entries[e.hdr().name] = Value{Type: e.hdr().typ.String(), Tick: m.Tick, TimeNS: int64(m.Time), Value: v}
	}
	return s
}

// WriteJSON writes a Snapshot as JSON, entries sorted by name. A value
// holding NaN or ±Inf, which JSON cannot carry, is written with those
// numbers as the strings "NaN", "+Inf" and "-Inf", so one such value does
// not fail the whole snapshot.
func (s Snapshot) WriteJSON(w io.Writer) error {
	// encoding/json sorts map keys, which gives a stable order.
	enc := json.NewEncoder(w)
	err := enc.Encode(s)
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) {
		// Encode writes nothing on an error: encode again, finite.
		c := s
		c.Entries = make(map[string]Value, len(s.Entries))
		for n, v := range s.Entries {
			if _, err := json.Marshal(v.Value); err != nil {
				v.Value = finiteJSON(reflect.ValueOf(v.Value))
			}
			c.Entries[n] = v
		}
		err = enc.Encode(c)
	}
	if err != nil {
		return fmt.Errorf("blackboard: encoding snapshot: %w", err)
	}
	return nil
}

// JSONFloat returns f as a value JSON can carry: f itself, or for NaN and
// ±Inf their names "NaN", "+Inf" and "-Inf".
func JSONFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return f
}

// finiteJSON returns v as plain JSON values (maps, slices, numbers,
// strings) with every non-finite float replaced by its name.
func finiteJSON(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return JSONFloat(v.Float())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return finiteJSON(v.Elem())
	case reflect.Struct:
		m := make(map[string]any, v.NumField())
		t := v.Type()
		for i := range v.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Name
			if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == "-" {
				continue
			} else if tag != "" {
				name = tag
			}
			m[name] = finiteJSON(v.Field(i))
		}
		return m
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = finiteJSON(v.Index(i))
		}
		return out
	case reflect.Map:
		m := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			m[fmt.Sprint(it.Key().Interface())] = finiteJSON(it.Value())
		}
		return m
	}
	if v.CanInterface() {
		return v.Interface()
	}
	return nil
}

// Names returns the snapshot's entry names, sorted.
func (s Snapshot) Names() []string {
	names := make([]string, 0, len(s.Entries))
	for n := range s.Entries {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Declaration is what one module reads and writes.
type Declaration struct {
	Module string
	// Reads are the entries the module must run after the writers of.
	Reads []string
	// Uses are the entries it reads without ordering (see Use).
	Uses   []string
	Writes []string
}

// Declarations lists each module's reads and writes, modules in the order
// they first registered.
func (b *Board) Declarations() []Declaration {
	b.mu.Lock()
	defer b.mu.Unlock()
	idx := map[string]int{}
	var out []Declaration
	get := func(m string) *Declaration {
		i, ok := idx[m]
		if !ok {
			i = len(out)
			idx[m] = i
			out = append(out, Declaration{Module: m})
		}
		return &out[i]
	}
	for _, e := range b.order {
		h := e.hdr()
		if h.writer != "" {
			d := get(h.writer)
			d.Writes = append(d.Writes, h.name)
		}
		for _, r := range h.readers {
			d := get(r.module)
			list := &d.Reads
			if r.unordered {
				list = &d.Uses
			}
			if !slices.Contains(*list, h.name) {
				*list = append(*list, h.name)
			}
		}
	}
	return out
}
