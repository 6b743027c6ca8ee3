package roles

import (
	"time"

	"github.com/robotd/robotd/msg"
)

// Protocol is one robot's side of the allocation protocol (see the package
// doc): it keeps the team's role records, fills the records of the robot's
// team messages, and allocates at the start of every epoch. Its clock is
// the team clock. It allocates nothing.
type Protocol struct {
	cfg   Config
	alloc *Allocator
	self  uint8
	store Store

	started    bool
	startEpoch uint32
	epoch      uint32 // the epoch of the last Update
	lateJoiner bool

	role    msg.Role
	cost    float64
	decided uint32 // the epoch of the last allocation
	active  int
	warm    bool

	// allocated: the kick-off rule or an allocation has decided the
	// role. kickOff is the epoch of the kick-off, kicked whether there
	// was one: regular allocations wait for records from after it.
	allocated bool
	kicked    bool
	kickOff   uint32
	// switched holds the epochs of the robot's last role switches, a
	// ring of nsw entries.
	switched [8]uint32
	nsw      int

	snap []msg.RoleRecord
	as   Assignment
}

// NewProtocol returns the protocol of player self; cfg must be valid.
func NewProtocol(cfg Config, self uint8) *Protocol {
	return &Protocol{cfg: cfg, alloc: NewAllocator(cfg), self: self,
		snap: make([]msg.RoleRecord, 0, msg.MaxTeammates+1)}
}

// Period returns the epoch length.
func (p *Protocol) Period() time.Duration { return p.cfg.Period.D() }

// Epoch returns the epoch of team time t.
func (p *Protocol) Epoch(t time.Duration) uint32 {
	if t < 0 {
		return 0
	}
	return uint32(t / p.cfg.Period.D())
}

// SendSlot returns when in epoch e this robot sends its team message:
// robots send one after another in the first three quarters of an epoch,
// by player number.
func (p *Protocol) SendSlot(e uint32) time.Duration {
	per := p.cfg.Period.D()
	off := per/20 + time.Duration(int(p.self-1)%8)*per*7/80
	return time.Duration(e)*per + off
}

// Receive takes the records of a teammate's message, received in the
// robot's epoch now. Only the epochs' low 16 bits need to be right (they
// are all that travels).
func (p *Protocol) Receive(m *msg.TeamMessage, now uint32) {
	for i := range min(int(m.NRecords), len(m.Records)) {
		r := m.Records[i]
		r.Epoch = ExpandEpoch(uint16(r.Epoch), now)
		if r.Player == p.self {
			continue // our own, relayed back
		}
		if r.Epoch > now+1 {
			continue // from the future: a clock not yet in step
		}
		if p.started && r.Epoch < p.startEpoch {
			p.lateJoiner = true
		}
		p.store.Add(&r)
	}
}

// Fill records this robot's record for epoch e (own.Epoch is set here)
// and puts into m the records to send: its own of e and e-1, and the
// teammates' of e-1 (relayed).
func (p *Protocol) Fill(m *msg.TeamMessage, own msg.RoleRecord, e uint32) {
	own.Player, own.Epoch = p.self, e
	own.Locked = p.Locked(e)
	own.Quantize() // as the teammates will see it
	p.store.Add(&own)
	m.NRecords = 0
	add := func(r msg.RoleRecord) {
		if int(m.NRecords) < len(m.Records) {
			m.Records[m.NRecords] = r
			m.NRecords++
		}
	}
	add(own)
	if e == 0 {
		return
	}
	if r, ok := p.store.Get(p.self, e-1); ok {
		add(r)
	}
	for q := 1; q <= msg.MaxPlayerNumber; q++ {
		if uint8(q) == p.self {
			continue
		}
		if r, ok := p.store.Get(uint8(q), e-1); ok {
			add(r)
		}
	}
}

// Update advances the protocol to team time now and returns the robot's
// role, and whether it changed at this update. At the first update of
// every even epoch k (once warm) it allocates from the records of epoch
// k-2.
// goalkeeper is the goalkeeper's player number (0: none).
func (p *Protocol) Update(now time.Duration, goalkeeper uint8) (msg.Role, bool) {
	e := p.Epoch(now)
	if !p.started {
		p.started, p.startEpoch, p.epoch = true, e, e
		p.role = InitialRole(p.self, goalkeeper)
		p.decided = e
		return p.role, false
	}
	if e == p.epoch {
		return p.role, false
	}
	p.epoch = e
	// Records of epoch e-2 are complete once we have listened since its
	// start: from startEpoch+3 on.
	if e < p.startEpoch+3 {
		if p.lateJoiner && !p.kicked && p.role != msg.RoleSupporter && p.role != msg.RoleGoalie {
			p.role = msg.RoleSupporter
			return p.role, true
		}
		return p.role, false
	}
	if p.kicked && e < p.kickOff+3 {
		// Records of the kick-off epoch predate the kick-off roles.
		return p.role, false
	}
	if e%2 != 0 {
		// Decide every other epoch: the records of epoch e-2 were sent
		// after the allocation of e-2 took effect, so they show it, and
		// its hysteresis holds against data that already reflect it. (A
		// decision every epoch would revisit the last one with records
		// from before it, and could undo it.)
		return p.role, false
	}
	p.warm = true
	old := p.role
	p.role, p.cost, p.active = p.allocate(e-2, goalkeeper)
	return p.role, p.decide(e, old)
}

// decide books the allocation of epoch e, which replaced role old, and
// reports whether the role changed.
func (p *Protocol) decide(e uint32, old msg.Role) bool {
	p.decided = e
	changed := p.role != old
	if changed && p.allocated {
		p.switched[p.nsw%len(p.switched)] = e
		p.nsw++
	}
	p.allocated = true
	return changed
}

// Locked reports whether this robot is locked in its role for the
// allocation after epoch e: it switched MaxSwitches times within the
// minute before the next even epoch.
func (p *Protocol) Locked(e uint32) bool {
	limit := p.cfg.MaxSwitches
	if limit == 0 {
		return false
	}
	next := e + 2 - e%2
	per := p.cfg.Period.D()
	n := 0
	for i := range min(p.nsw, len(p.switched)) {
		if time.Duration(next-p.switched[i])*per < time.Minute {
			n++
		}
	}
	return n >= limit
}

// StartPlay sets the kick-off roles when the team starts to play at team
// time now (the game entered PLAYING, or the robots penalised together
// were released together), if so configured: KickOffRole of this robot
// among players (bit p set for every player that starts to play, known
// from the GameController to every robot alike; 0: unknown, then
// InitialRole). The rule needs no team message, so every robot decides
// alike from the first tick of play whatever the network loses; the
// regular, cost-based allocations take over once records from after the
// kick-off are complete. It returns the role and whether it changed.
func (p *Protocol) StartPlay(now time.Duration, goalkeeper uint8, players uint32) (msg.Role, bool) {
	if !p.cfg.KickOff {
		return p.Update(now, goalkeeper)
	}
	if !p.started {
		p.Update(now, goalkeeper)
	}
	e := p.Epoch(now)
	old := p.role
	if players == 0 {
		p.role = InitialRole(p.self, goalkeeper)
	} else {
		p.role = p.alloc.KickOffRole(p.self, players|1<<p.self, goalkeeper)
	}
	p.cost, p.active, p.epoch = 0, bits(players|1<<p.self), e
	p.kicked, p.kickOff = true, e
	return p.role, p.decide(e, old)
}

// bits counts the set bits of players.
func bits(players uint32) int {
	n := 0
	for ; players != 0; players &= players - 1 {
		n++
	}
	return n
}

// allocate computes an allocation from the records of epoch d (and
// before, for a silent robot).
func (p *Protocol) allocate(d uint32, goalkeeper uint8) (msg.Role, float64, int) {
	back := p.cfg.SilentEpochs - 1
	p.snap = p.store.Snapshot(p.snap[:0], d, back)
	// The goalkeeper is lost when it is penalised, or silent after having
	// played (before the silence window).
	lost := false
	if goalkeeper != 0 {
		if r, ok := p.store.Latest(goalkeeper, d, back); ok {
			lost = r.Penalised
		} else if uint32(back+1) <= d {
			lost = p.store.PlayedBefore(goalkeeper, d-uint32(back))
		}
	}
	p.alloc.Allocate(p.snap, goalkeeper, lost, &p.as)
	role, cost := p.as.RoleOf(p.snap, p.self)
	active := 0
	for i := range p.snap {
		if !p.snap[i].Penalised {
			active++
		}
	}
	return role, cost, active
}

// Role returns the current role.
func (p *Protocol) Role() msg.Role { return p.role }

// Cost returns this robot's cost in the last allocation.
func (p *Protocol) Cost() float64 { return p.cost }

// Active returns the number of robots the last allocation counted.
func (p *Protocol) Active() int { return p.active }

// Decided returns the epoch of the last allocation.
func (p *Protocol) Decided() uint32 { return p.decided }

// Warm reports whether the robot allocates (it has listened for long
// enough).
func (p *Protocol) Warm() bool { return p.warm }

// Switches counts the role switches allocations made (the first
// allocation's change from the kick-off role is none).
func (p *Protocol) Switches() int { return p.nsw }

// Allocated reports whether the kick-off rule or an allocation has
// decided the role.
func (p *Protocol) Allocated() bool { return p.allocated }

// Reset forgets everything (a restart).
func (p *Protocol) Reset() {
	snap := p.snap
	*p = Protocol{cfg: p.cfg, alloc: p.alloc, self: p.self, snap: snap[:0]}
}
