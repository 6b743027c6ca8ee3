package teamcomm

import "time"

// Reassembler puts fragmented messages back together. Its memory is bounded:
// at most Slots messages are in flight at once (the oldest is dropped to make
// room), each at most MaxMessage bytes, and a message whose fragments do not
// all arrive within Timeout is dropped. Duplicated fragments are ignored and
// fragments may arrive in any order. It is not safe for concurrent use.
type Reassembler struct {
	Timeout time.Duration
	slots   []slot
	// Dropped counts messages given up (timed out or evicted).
	Dropped uint64
	// Duplicates counts fragments received twice.
	Duplicates uint64
}

type slot struct {
	used    bool
	player  uint8
	typ     uint8
	seq     uint16
	frags   uint8
	have    uint32 // bit per fragment received
	lens    [MaxFragments]uint16
	started time.Duration
	data    [MaxMessage]byte
}

// NewReassembler returns a reassembler with the given number of slots.
func NewReassembler(slots int, timeout time.Duration) *Reassembler {
	return &Reassembler{Timeout: timeout, slots: make([]slot, max(1, slots))}
}

// Add adds a fragment received at time now. When it completes its message,
// Add returns the whole payload (valid until the next call) and true.
func (r *Reassembler) Add(h Header, payload []byte, now time.Duration) ([]byte, bool) {
	r.expire(now)
	s := r.find(h)
	if s == nil {
		s = r.evict()
		*s = slot{used: true, player: h.Player, typ: h.Type, seq: h.Seq, frags: h.Frags, started: now}
	}
	if s.frags != h.Frags {
		// Inconsistent with what we have: start this message over.
		*s = slot{used: true, player: h.Player, typ: h.Type, seq: h.Seq, frags: h.Frags, started: now}
	}
	bit := uint32(1) << h.Frag
	if s.have&bit != 0 {
		r.Duplicates++
		return nil, false
	}
	if len(payload) > maxFragPayload || (h.Frag < h.Frags-1 && len(payload) != maxFragPayload) {
		// Only the last fragment may be short.
		s.used = false
		r.Dropped++
		return nil, false
	}
	copy(s.data[int(h.Frag)*maxFragPayload:], payload)
	s.lens[h.Frag] = uint16(len(payload))
	s.have |= bit
	if s.have != (uint32(1)<<s.frags)-1 {
		return nil, false
	}
	n := int(s.frags-1)*maxFragPayload + int(s.lens[s.frags-1])
	s.used = false
	return s.data[:n], true
}

func (r *Reassembler) find(h Header) *slot {
	for i := range r.slots {
		s := &r.slots[i]
		if s.used && s.player == h.Player && s.typ == h.Type && s.seq == h.Seq {
			return s
		}
	}
	return nil
}

func (r *Reassembler) evict() *slot {
	var oldest *slot
	for i := range r.slots {
		s := &r.slots[i]
		if !s.used {
			return s
		}
		if oldest == nil || s.started < oldest.started {
			oldest = s
		}
	}
	r.Dropped++
	return oldest
}

func (r *Reassembler) expire(now time.Duration) {
	if r.Timeout <= 0 {
		return
	}
	for i := range r.slots {
		s := &r.slots[i]
		if s.used && now-s.started > r.Timeout {
			s.used = false
			r.Dropped++
		}
	}
}

// InFlight returns how many messages are partly received.
func (r *Reassembler) InFlight() int {
	n := 0
	for i := range r.slots {
		if r.slots[i].used {
			n++
		}
	}
	return n
}
