package roles

import "github.com/robotd/robotd/msg"

// depth is how many epochs of records the store keeps per robot.
const depth = 8

// Store keeps the latest role records of every robot (player numbers
// 1..msg.MaxPlayerNumber), a few epochs deep. Adding a record is
// idempotent, so the same record arriving directly and relayed is kept
// once. It allocates nothing.
type Store struct {
	recs [msg.MaxPlayerNumber + 1][depth]msg.RoleRecord
	has  [msg.MaxPlayerNumber + 1][depth]bool
	// first is 1 + the epoch of the earliest record of each robot, 0 if
	// none.
	first [msg.MaxPlayerNumber + 1]uint32
}

// Add keeps rec (it replaces an older record in its slot).
func (s *Store) Add(rec *msg.RoleRecord) {
	p := int(rec.Player)
	if p < 1 || p > msg.MaxPlayerNumber {
		return
	}
	i := int(rec.Epoch % depth)
	if s.has[p][i] && s.recs[p][i].Epoch > rec.Epoch {
		return // a stale record; the slot holds a newer epoch
	}
	s.recs[p][i], s.has[p][i] = *rec, true
	if f := s.first[p]; f == 0 || rec.Epoch+1 < f {
		s.first[p] = rec.Epoch + 1
	}
}

// Get returns player p's record of epoch e.
func (s *Store) Get(p uint8, e uint32) (msg.RoleRecord, bool) {
	if p < 1 || int(p) > msg.MaxPlayerNumber {
		return msg.RoleRecord{}, false
	}
	i := int(e % depth)
	if !s.has[p][i] || s.recs[p][i].Epoch != e {
		return msg.RoleRecord{}, false
	}
	return s.recs[p][i], true
}

// Latest returns player p's newest record of an epoch in [e-back, e].
func (s *Store) Latest(p uint8, e uint32, back int) (msg.RoleRecord, bool) {
	for k := 0; k <= back && k < depth && uint32(k) <= e; k++ {
		if r, ok := s.Get(p, e-uint32(k)); ok {
			return r, true
		}
	}
	return msg.RoleRecord{}, false
}

// Snapshot appends to dst, in player-number order, every robot's newest
// record of an epoch in [e-back, e]: the robots an allocation for epoch e
// counts. It returns at most cap(dst) records.
func (s *Store) Snapshot(dst []msg.RoleRecord, e uint32, back int) []msg.RoleRecord {
	for p := 1; p <= msg.MaxPlayerNumber && len(dst) < cap(dst); p++ {
		if r, ok := s.Latest(uint8(p), e, back); ok {
			dst = append(dst, r)
		}
	}
	return dst
}

// PlayedBefore reports whether player p has a record of an epoch before
// e.
func (s *Store) PlayedBefore(p uint8, e uint32) bool {
	if p < 1 || int(p) > msg.MaxPlayerNumber {
		return false
	}
	f := s.first[p]
	return f != 0 && f-1 < e
}

// Clear forgets everything.
func (s *Store) Clear() { *s = Store{} }

// ExpandEpoch restores a 16-bit epoch number to the full epoch nearest to
// ref.
func ExpandEpoch(low uint16, ref uint32) uint32 {
	e := ref&^0xffff | uint32(low)
	switch {
	case e > ref && e-ref > 0x8000 && e >= 0x10000:
		e -= 0x10000
	case e < ref && ref-e > 0x8000:
		e += 0x10000
	}
	return e
}
