package teamcomm

import (
	"fmt"
	"time"
)

// Endpoint is the message layer over a Transport: typed messages, each
// type with its registered handlers, transparently fragmented and
// reassembled. It does no I/O of its own and is for one goroutine (the
// tick's); handlers run inside Poll.
type Endpoint struct {
	t      Transport
	player uint8
	seq    uint16
	buf    []byte
	reasm  *Reassembler
	now    time.Duration

	handlers [128][]func(h Header, payload []byte, now time.Duration)
	onDgram  func([]byte)

	stats EndpointStats
}

// EndpointStats counts an endpoint's messages.
type EndpointStats struct {
	// Sent counts datagrams sent (each fragment counts: the GameController
	// counts datagrams against the budget); Messages messages sent.
	Sent, Messages uint64
	// Received counts datagrams from teammates; Malformed those (or the
	// messages) that do not decode; Unhandled messages of a type without
	// a handler.
	Received, Malformed, Unhandled uint64
	// Reassembled counts fragmented messages completed; Dropped those
	// given up; Duplicates repeated fragments.
	Reassembled, Dropped, Duplicates uint64
}

// NewEndpoint returns an endpoint of player over t; slots and timeout
// bound reassembly (see Reassembler).
func NewEndpoint(t Transport, player uint8, slots int, timeout time.Duration) *Endpoint {
	e := &Endpoint{t: t, player: player, reasm: NewReassembler(slots, timeout), buf: make([]byte, 0, MaxDatagram)}
	e.onDgram = e.dispatch
	return e
}

// Handle registers h for messages of type typ, decoded by decode into a
// value that h may use during the call only. A type may have several
// handlers; they run in the order registered. Register before the first
// Poll.
func Handle[M any](e *Endpoint, typ uint8, decode func([]byte, *M) error, h func(from uint8, now time.Duration, m *M)) {
	m := new(M)
	e.handlers[typ&^fragFlag] = append(e.handlers[typ&^fragFlag], func(hd Header, payload []byte, now time.Duration) {
		if err := decode(payload, m); err != nil {
			e.stats.Malformed++
			return
		}
		h(hd.Player, now, m)
	})
}

// HandleRaw registers h for messages of type typ, undecoded.
func (e *Endpoint) HandleRaw(typ uint8, h func(from uint8, now time.Duration, payload []byte)) {
	e.handlers[typ&^fragFlag] = append(e.handlers[typ&^fragFlag], func(hd Header, payload []byte, now time.Duration) {
		h(hd.Player, now, payload)
	})
}

// Send sends a message of type typ at tick time now, in as many datagrams
// as it needs; it returns how many it sent.
func (e *Endpoint) Send(now time.Duration, typ uint8, payload []byte) (int, error) {
	e.seq++
	n := 0
	var err error
	e.buf, err = AppendDatagrams(e.buf, typ, e.player, e.seq, payload, func(d []byte) error {
		if err := e.t.Send(now, d); err != nil {
			return err
		}
		n++
		return nil
	})
	e.stats.Sent += uint64(n)
	if err != nil {
		return n, fmt.Errorf("teamcomm: sending type %d: %w", typ, err)
	}
	e.stats.Messages++
	return n, nil
}

// Poll takes every datagram that has arrived by now and runs the handlers
// of the messages they complete.
func (e *Endpoint) Poll(now time.Duration) {
	e.now = now
	e.t.Receive(now, e.onDgram)
}

func (e *Endpoint) dispatch(d []byte) {
	h, payload, err := ParseHeader(d)
	if err != nil {
		e.stats.Malformed++
		return
	}
	if h.Player == e.player || h.Type == TypeHello {
		return // our own (a broadcast comes back), or a hub hello
	}
	e.stats.Received++
	if h.Frags > 0 {
		var ok bool
		dropped, dups := e.reasm.Dropped, e.reasm.Duplicates
		payload, ok = e.reasm.Add(h, payload, e.now)
		e.stats.Dropped += e.reasm.Dropped - dropped
		e.stats.Duplicates += e.reasm.Duplicates - dups
		if !ok {
			return
		}
		e.stats.Reassembled++
	}
	hs := e.handlers[h.Type]
	if len(hs) == 0 {
		e.stats.Unhandled++
		return
	}
	for _, f := range hs {
		f(h, payload, e.now)
	}
}

// Stats returns the counters.
func (e *Endpoint) Stats() EndpointStats { return e.stats }
