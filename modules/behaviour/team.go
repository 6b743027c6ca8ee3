package behaviour

import (
	"math"
	"time"

	"github.com/robotd/robotd/modules/behaviour/roles"
	"github.com/robotd/robotd/msg"
)

// teamClock is the team's common clock. Robots whose clocks agree within
// the tolerance (robots in one simulator, or synchronised by NTP) use
// their own; otherwise the team follows the lowest-numbered robot heard:
// its clock is estimated from its messages, as the largest difference
// between its send time and the local arrival time in the last few
// messages (the one with the least delay).
type teamClock struct {
	tol     time.Duration
	self    uint8
	ref     uint8
	samples [8]time.Duration
	n, next int
	offset  time.Duration
	synced  bool
}

// observe takes a message from player p sent at its team time sent and
// received at local time recv.
func (c *teamClock) observe(p uint8, sent, recv time.Duration) {
	if p == 0 || p >= c.self && c.self != 0 {
		return
	}
	if c.ref == 0 || p < c.ref {
		c.ref, c.n, c.next = p, 0, 0
	}
	if p != c.ref {
		return
	}
	c.samples[c.next] = sent - recv
	c.next = (c.next + 1) % len(c.samples)
	c.n = min(c.n+1, len(c.samples))
	est := time.Duration(math.MinInt64)
	for i := range c.n {
		est = max(est, c.samples[i])
	}
	switch {
	case !c.synced && (est > c.tol || est < -c.tol):
		c.synced = true
	case c.synced && est < c.tol/2 && est > -c.tol/2:
		c.synced = false
	}
	if c.synced {
		c.offset = est
	} else {
		c.offset = 0
	}
}

// now returns the team time at local time t.
func (c *teamClock) now(t time.Duration) time.Duration { return t + c.offset }

// team is behaviour's side of team play: the allocation protocol, the
// team clock, the team message, and the role-switch bookkeeping.
type team struct {
	cfg   *Config
	self  uint8
	proto *roles.Protocol
	clock teamClock

	lastCount [msg.MaxPlayerNumber + 1]uint32
	sent      bool
	sentEpoch uint32
	out       msg.TeamOut

	role    msg.Role
	started bool
	since   time.Duration

	// The previous tick's game, for the start of play.
	wasPlaying    bool
	wasState      msg.GameStateKind
	wasSource     msg.GameSource
	wasPenalMates uint32

	switches uint32
	recent   [32]time.Duration // switch times, a ring
	nrecent  int
}

func newTeam(cfg *Config) *team {
	self := uint8(cfg.Player)
	return &team{cfg: cfg, self: self, proto: roles.NewProtocol(cfg.Roles, self),
		clock: teamClock{tol: cfg.Team.ClockTolerance.D(), self: self}}
}

// receive takes the teammates' new messages.
func (t *team) receive(w *world) {
	e := t.proto.Epoch(t.clock.now(w.now))
	for i := range w.mates.N {
		m := &w.mates.Mates[i]
		p := m.Msg.Player
		if p == 0 || int(p) > msg.MaxPlayerNumber || p == t.self || t.lastCount[p] == m.Count {
			continue
		}
		t.lastCount[p] = m.Count
		t.clock.observe(p, m.Msg.TeamTime, m.Received)
		t.proto.Receive(&m.Msg, e)
	}
}

// teamStarts reports whether the team starts to play in this tick: this
// robot starts to play, and either the game has just entered PLAYING or
// every teammate heard from was penalised too in the last tick (the
// GameController released them together). Every robot of the team sees
// the same.
func (t *team) teamStarts(w *world) bool {
	playing := w.playing()
	defer func() {
		t.wasPlaying, t.wasState, t.wasSource, t.wasPenalMates = playing, w.game.State, w.game.Source, w.game.PenalisedMates
	}()
	if !playing || t.wasPlaying || !t.started {
		return false
	}
	if t.wasSource != w.game.Source || t.wasState != msg.StatePlaying {
		return true
	}
	if w.game.Source != msg.GameSourceGameController {
		return false
	}
	for i := range w.mates.N {
		p := w.mates.Mates[i].Msg.Player
		if p < 32 && t.wasPenalMates&(1<<p) == 0 {
			return false
		}
	}
	return true
}

// starting returns the players that start to play in this tick, from the
// GameController alone (bit p set for every player p): those it released
// together (penalised in the last tick, prevPen, and no longer), or else
// the players 1..PlayersPerTeam (and this robot) it does not penalise.
// 0 when the game state comes from elsewhere.
func (t *team) starting(w *world, prevPen uint32) uint32 {
	if w.game.Source != msg.GameSourceGameController {
		return 0
	}
	if released := prevPen &^ w.game.PenalisedMates; released != 0 {
		return released
	}
	n := max(int(w.game.PlayersPerTeam), int(t.self))
	n = min(n, msg.MaxPlayerNumber)
	all := uint32(1)<<(n+1) - 2 // players 1..n
	return all &^ w.game.PenalisedMates
}

// update advances the allocation and returns the role.
func (t *team) update(w *world) msg.Role {
	var role msg.Role
	var changed bool
	before := t.proto.Switches()
	prevPen := t.wasPenalMates
	if t.teamStarts(w) {
		role, changed = t.proto.StartPlay(t.clock.now(w.now), w.goalie, t.starting(w, prevPen))
	} else {
		role, changed = t.proto.Update(t.clock.now(w.now), w.goalie)
	}
	if changed || !t.started {
		t.started = true
		if t.proto.Switches() > before {
			t.switches++
			t.recent[t.nrecent%len(t.recent)] = w.now
			t.nrecent++
		}
		t.since = w.now
	}
	t.role = role
	return role
}

// state returns the role entry.
func (t *team) state(now time.Duration) msg.RoleState {
	n := 0
	for i := range min(t.nrecent, len(t.recent)) {
		if now-t.recent[i] < time.Minute {
			n++
		}
	}
	return msg.RoleState{Role: t.role, Since: t.since, Switches: t.switches, SwitchesPerMinute: float64(n),
		Epoch: t.proto.Decided(), Active: uint8(t.proto.Active()), Cost: t.proto.Cost(),
		Allocated: t.proto.Allocated(), Locked: t.proto.Locked(t.proto.Epoch(t.clock.now(now)))}
}

// send fills the team message at this robot's slot of every epoch; it
// reports whether it did (team communication sends each new Seq once).
func (t *team) send(w *world, f *finder) bool {
	now := t.clock.now(w.now)
	e := t.proto.Epoch(now)
	if t.sent && t.sentEpoch == e || now < t.proto.SendSlot(e) {
		return false
	}
	t.sent, t.sentEpoch = true, e
	m := &t.out.Msg
	*m = msg.TeamMessage{Player: t.self, TeamTime: now, Fallen: w.fallen(), Penalised: w.game.Penalised, Role: t.role,
		PoseValid: w.pose.Valid, Pose: w.pose.Pose, PoseConfidence: w.pose.Confidence,
		Searching: w.searching, TargetValid: w.targetValid, Target: w.target}
	if w.ball.Valid && !w.ball.Lost && w.ball.FieldValid {
		m.BallValid, m.Ball, m.BallAge = true, w.ball.FieldPos, w.ball.SinceSeen
	}
	f.share(m)
	rec := msg.RoleRecord{Penalised: w.game.Penalised, Fallen: w.fallen(), BallKnown: w.ballKnown,
		Role: t.role, StrikerCost: w.timeToBall(), Pos: w.here()}
	t.proto.Fill(m, rec, e)
	t.out.Seq++
	return true
}
