package roles

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func rec(p uint8, role msg.Role, strikerCost float64, x, y float64) msg.RoleRecord {
	return msg.RoleRecord{Player: p, Role: role, StrikerCost: strikerCost, BallKnown: true, Pos: hal.Vec2{X: x, Y: y}}
}

func TestAllocate(t *testing.T) {
	cfg := DefaultConfig()
	S, D, P, G, N := msg.RoleStriker, msg.RoleDefender, msg.RoleSupporter, msg.RoleGoalie, msg.RoleNone
	fallen := func(r msg.RoleRecord) msg.RoleRecord { r.Fallen = true; return r }
	penalised := func(r msg.RoleRecord) msg.RoleRecord { r.Penalised = true; return r }
	unknown := func(r msg.RoleRecord) msg.RoleRecord { r.BallKnown = false; return r }
	locked := func(r msg.RoleRecord) msg.RoleRecord { r.Locked = true; return r }
	tests := []struct {
		name   string
		recs   []msg.RoleRecord
		keeper uint8
		lost   bool
		want   []msg.Role
	}{
		{"nearest to the ball strikes, nearest to our goal defends",
			[]msg.RoleRecord{rec(2, P, 20, 0, 0), rec(3, P, 5, 2, 0), rec(4, P, 30, -3, 0)}, 1, false,
			[]msg.Role{P, S, D}},
		{"hysteresis: the striker keeps the role against a slightly better robot",
			[]msg.RoleRecord{rec(2, S, 10, 0, 0), rec(3, D, 7, -3, 0), rec(4, P, 30, -1, 2)}, 1, false,
			[]msg.Role{S, D, P}},
		{"beyond the change cost the better robot takes over",
			[]msg.RoleRecord{rec(2, S, 10, 0, 0), rec(3, D, 3, -3, 0), rec(4, P, 30, -1, 3)}, 1, false,
			[]msg.Role{D, S, P}},
		{"a fallen robot pays for getting up",
			[]msg.RoleRecord{fallen(rec(2, S, 5, 0, 0)), rec(3, P, 4, 1, 0)}, 0, false,
			[]msg.Role{D, S}},
		{"penalised robots get no role; with two robots the supporter goes",
			[]msg.RoleRecord{rec(2, S, 5, 0, 0), penalised(rec(3, D, 1, -3, 0)), rec(4, P, 30, -2, 0)}, 0, false,
			[]msg.Role{S, N, D}},
		{"one robot strikes",
			[]msg.RoleRecord{rec(4, D, 30, -3, 0)}, 0, false,
			[]msg.Role{S}},
		{"the goalkeeper keeps goal even nearest to the ball",
			[]msg.RoleRecord{rec(1, G, 1, -4, 0), rec(2, S, 10, 0, 0), rec(3, D, 20, -3, 0)}, 1, false,
			[]msg.Role{G, S, D}},
		{"a penalised goalkeeper is replaced (takeover)",
			[]msg.RoleRecord{penalised(rec(1, G, 1, -4, 0)), rec(2, S, 10, 0, 0), rec(3, D, 20, -3, 0), rec(4, P, 20, -4, 1)}, 1, true,
			[]msg.Role{N, S, D, G}},
		{"a goalkeeper never heard is not replaced",
			[]msg.RoleRecord{rec(2, S, 10, 0, 0), rec(3, D, 20, -3, 0), rec(4, P, 20, -4, 1)}, 1, false,
			[]msg.Role{S, D, P}},
		{"nobody knows the ball: the striker stays",
			[]msg.RoleRecord{unknown(rec(2, P, 99, 0, 0)), unknown(rec(3, S, 99, 3, 0)), unknown(rec(4, D, 99, -3, 0))}, 0, false,
			[]msg.Role{P, S, D}},
		{"ties go to the lower player number",
			[]msg.RoleRecord{rec(5, P, 10, 0, 0), rec(6, P, 10, 0, 0)}, 0, false,
			[]msg.Role{S, D}},
		{"relative hysteresis: 30 s against 24 s is nearly equal, the striker stays",
			[]msg.RoleRecord{rec(2, S, 30, 0, 0), rec(3, D, 24, -3, 0)}, 0, false,
			[]msg.Role{S, D}},
		{"a locked robot keeps its role against a much better one",
			[]msg.RoleRecord{locked(rec(2, S, 30, 0, 0)), rec(3, D, 2, -3, 0)}, 0, false,
			[]msg.Role{S, D}},
		{"a locked robot is not taken for another role while an unlocked one is free",
			[]msg.RoleRecord{rec(2, S, 30, 0, 0), locked(rec(3, P, 2, -3, 0)), rec(4, D, 40, -3, 0)}, 0, false,
			[]msg.Role{S, P, D}},
		{"locks yield when a role of higher priority would stay empty",
			[]msg.RoleRecord{penalised(rec(2, S, 30, 0, 0)), locked(rec(3, D, 9, -3, 0)), locked(rec(4, P, 5, -1, 0))}, 0, false,
			[]msg.Role{N, D, S}},
		{"more robots than roles: the rest support",
			[]msg.RoleRecord{rec(2, S, 1, 0, 0), rec(3, D, 9, -3, 0), rec(4, P, 9, 0, 2), rec(5, P, 9, 0, -2), rec(6, P, 9, 1, 2)}, 0, false,
			[]msg.Role{S, D, P, P, P}},
	}
	a := NewAllocator(cfg)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var as Assignment
			a.Allocate(tc.recs, tc.keeper, tc.lost, &as)
			for i, w := range tc.want {
				if as.Roles[i] != w {
					t.Errorf("player %d: %v, want %v (all %v)", tc.recs[i].Player, as.Roles[i], w, as.Roles[:as.N])
				}
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.Priority = []string{"striker", "keeper"} },
		func(c *Config) { c.Priority = []string{"striker", "striker"} },
		func(c *Config) { c.Priority = nil },
		func(c *Config) { c.Speed = 0 },
		func(c *Config) { c.SilentEpochs = 0 },
		func(c *Config) { c.Period = config.Duration(time.Millisecond) },
		func(c *Config) { c.Goalkeeper = 21 },
	}
	for i, f := range bad {
		c := DefaultConfig()
		f(&c)
		if c.Validate() == nil {
			t.Errorf("bad config %d validated", i)
		}
	}
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestStore(t *testing.T) {
	var s Store
	r := rec(3, msg.RoleStriker, 1, 0, 0)
	r.Epoch = 10
	s.Add(&r)
	s.Add(&r) // idempotent
	if got, ok := s.Get(3, 10); !ok || got != r {
		t.Fatalf("Get: %+v %v", got, ok)
	}
	old := r
	old.Epoch = 2 // same slot (10 % 8), older: ignored
	s.Add(&old)
	if _, ok := s.Get(3, 10); !ok {
		t.Fatal("an older record replaced a newer one")
	}
	if _, ok := s.Latest(3, 12, 1); ok {
		t.Error("Latest found epoch 10 within [11, 12]")
	}
	if got, ok := s.Latest(3, 12, 2); !ok || got.Epoch != 10 {
		t.Error("Latest did not find epoch 10 within [10, 12]")
	}
	if !s.PlayedBefore(3, 11) || s.PlayedBefore(3, 10) || s.PlayedBefore(4, 99) {
		t.Error("PlayedBefore")
	}
	snap := s.Snapshot(make([]msg.RoleRecord, 0, 4), 11, 2)
	if len(snap) != 1 || snap[0].Player != 3 {
		t.Errorf("snapshot %+v", snap)
	}
	bad := msg.RoleRecord{Player: 0}
	s.Add(&bad)
	bad.Player = 200
	s.Add(&bad)
	tests := []struct {
		low  uint16
		ref  uint32
		want uint32
	}{
		{5, 7, 5}, {9, 7, 9}, {0xfffe, 0x10001, 0xfffe}, {1, 0xffff, 0x10001}, {0x8000, 3, 0x8000},
	}
	for _, tc := range tests {
		if got := ExpandEpoch(tc.low, tc.ref); got != tc.want {
			t.Errorf("ExpandEpoch(%#x, %#x) = %#x, want %#x", tc.low, tc.ref, got, tc.want)
		}
	}
}

// team simulates the protocol for n robots exchanging team messages over
// a channel that loses, delays and reorders them.
type team struct {
	protos  []*Protocol
	players []uint8
	roles   []msg.Role
	rng     *rand.Rand
	loss    float64
	queue   []delivery
	silent  map[uint8]bool
	// startAt, if set, is when the team starts to play: before it the
	// robots' records say penalised; at it each calls StartPlay.
	startAt  time.Duration
	started  bool
	released uint32 // the players the GameController releases at startAt
	// drop, if set, loses the message from player from to player to sent
	// in epoch e.
	drop func(from, to uint8, e uint32) bool
}

type delivery struct {
	at time.Duration
	to int
	m  msg.TeamMessage
}

func newTeam(cfg Config, players []uint8, loss float64, seed uint64) *team {
	tm := &team{players: players, rng: rand.New(rand.NewPCG(seed, 1)), loss: loss, silent: map[uint8]bool{}}
	for _, p := range players {
		tm.protos = append(tm.protos, NewProtocol(cfg, p))
	}
	tm.roles = make([]msg.Role, len(players))
	return tm
}

// step advances the team to time now; cost gives each robot's striker
// cost and position.
func (tm *team) step(now time.Duration, cost func(p uint8) (float64, hal.Vec2)) (switches int) {
	sort.Slice(tm.queue, func(i, j int) bool { return tm.queue[i].at < tm.queue[j].at })
	k := 0
	for ; k < len(tm.queue) && tm.queue[k].at <= now; k++ {
		d := tm.queue[k]
		tm.protos[d.to].Receive(&d.m, tm.protos[d.to].Epoch(now))
	}
	tm.queue = tm.queue[k:]
	start := tm.startAt > 0 && !tm.started && now >= tm.startAt
	if start {
		tm.started = true
	}
	for i, pr := range tm.protos {
		var role msg.Role
		var changed bool
		if start {
			role, changed = pr.StartPlay(now, 1, tm.released)
		} else {
			role, changed = pr.Update(now, 1)
		}
		tm.roles[i] = role
		if changed && pr.Warm() {
			switches++
		}
		e := pr.Epoch(now)
		slot := pr.SendSlot(e)
		if tm.silent[tm.players[i]] || now < slot || now >= slot+10*time.Millisecond {
			continue
		}
		c, pos := cost(tm.players[i])
		var m msg.TeamMessage
		m.Player = tm.players[i]
		pr.Fill(&m, msg.RoleRecord{Role: role, StrikerCost: c, BallKnown: true, Pos: pos,
			Penalised: tm.startAt > 0 && !tm.started}, e)
		for j := range tm.protos {
			if j == i || tm.rng.Float64() < tm.loss || tm.drop != nil && tm.drop(tm.players[i], tm.players[j], e) {
				continue
			}
			lat := 20*time.Millisecond + time.Duration(tm.rng.Int64N(int64(40*time.Millisecond)))
			tm.queue = append(tm.queue, delivery{at: now + lat, to: j, m: m})
		}
	}
	return switches
}

// TestProtocolOneStrikerUnderLoss runs three robots for an hour of team
// time under 10 % loss while the ball circles the field: every robot
// always agrees there is exactly one striker (once warm), and the role
// changes stay rare.
func TestProtocolOneStrikerUnderLoss(t *testing.T) {
	tests := []struct {
		name string
		loss float64
	}{
		{"no loss", 0},
		{"10% loss", 0.1},
		{"30% loss", 0.3},
	}
	cfg := DefaultConfig()
	cfg.Period = config.Duration(3 * time.Second)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm := newTeam(cfg, []uint8{2, 3, 4}, tc.loss, 42)
			pos := map[uint8]hal.Vec2{2: {X: -2, Y: 1}, 3: {X: 2, Y: -1}, 4: {X: 0, Y: 2}}
			bad, ticks, switches := 0, 0, 0
			const dur = time.Hour
			for now := time.Duration(0); now < dur; now += 10 * time.Millisecond {
				a := now.Seconds() * 2 * math.Pi / 300 // once round in 5 minutes
				ball := hal.Vec2{X: 3.5 * math.Cos(a), Y: 2.5 * math.Sin(a)}
				switches += tm.step(now, func(p uint8) (float64, hal.Vec2) {
					q := pos[p]
					return math.Hypot(ball.X-q.X, ball.Y-q.Y) / 0.2, q
				})
				if now < 10*time.Second {
					continue
				}
				ticks++
				strikers := 0
				for _, r := range tm.roles {
					if r == msg.RoleStriker {
						strikers++
					}
				}
				if strikers != 1 {
					bad++
				}
			}
			perMin := float64(switches) / dur.Minutes()
			t.Logf("%s: %d of %d ticks without exactly one striker; %d role changes (%.2f per minute per team)", tc.name, bad, ticks, switches, perMin)
			limit := 0
			if tc.loss > 0.2 {
				limit = ticks / 100 // degrades, but gracefully
			}
			if bad > limit {
				t.Errorf("%d ticks without exactly one striker (limit %d)", bad, limit)
			}
			if perMin > 2 {
				t.Errorf("%.2f role changes per minute", perMin)
			}
		})
	}
}

// TestProtocolSilentTeammate: a robot that stops sending is dropped after
// SilentEpochs, and its role goes to a teammate in priority order.
func TestProtocolSilentTeammate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Period = config.Duration(2 * time.Second)
	tm := newTeam(cfg, []uint8{2, 3, 4}, 0, 1)
	cost := func(p uint8) (float64, hal.Vec2) {
		return float64(p) * 10, hal.Vec2{X: float64(p) - 5} // 2 nearest to the ball and to our goal
	}
	now := time.Duration(0)
	run := func(d time.Duration) {
		for end := now + d; now < end; now += 10 * time.Millisecond {
			tm.step(now, cost)
		}
	}
	run(30 * time.Second)
	if tm.roles[0] != msg.RoleStriker || tm.roles[1] != msg.RoleDefender || tm.roles[2] != msg.RoleSupporter {
		t.Fatalf("roles %v, want striker, defender, supporter", tm.roles)
	}
	tm.silent[2] = true
	run(time.Duration(cfg.SilentEpochs+3) * cfg.Period.D())
	if tm.roles[1] != msg.RoleStriker || tm.roles[2] != msg.RoleDefender {
		t.Fatalf("after player 2 fell silent: roles %v, want 3 striker, 4 defender (supporter released)", tm.roles[1:])
	}
	if a := tm.protos[1].Active(); a != 2 {
		t.Errorf("player 3 counts %d robots", a)
	}
}

func TestInitialRole(t *testing.T) {
	tests := []struct {
		player, keeper uint8
		want           msg.Role
	}{
		{1, 1, msg.RoleGoalie}, {2, 1, msg.RoleStriker}, {3, 1, msg.RoleDefender}, {4, 1, msg.RoleSupporter}, {2, 2, msg.RoleGoalie},
	}
	for _, tc := range tests {
		if got := InitialRole(tc.player, tc.keeper); got != tc.want {
			t.Errorf("InitialRole(%d, %d) = %v", tc.player, tc.keeper, got)
		}
	}
}

func TestProtocolNoAllocs(t *testing.T) {
	cfg := DefaultConfig()
	p := NewProtocol(cfg, 2)
	var m msg.TeamMessage
	now := time.Duration(0)
	p.Update(now, 1)
	allocs := testing.AllocsPerRun(200, func() {
		now += cfg.Period.D() / 3
		e := p.Epoch(now)
		p.Update(now, 1)
		p.Fill(&m, msg.RoleRecord{StrikerCost: 3}, e)
		m2 := m
		m2.Player = 3
		for i := range m2.NRecords {
			m2.Records[i].Player = 3
		}
		p.Receive(&m2, e)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per update", allocs)
	}
}

// swapRun runs players 2 and 3 for dur under loss, their striker costs
// equal on average but each ahead of the other by 2·amp in turn at every
// allocation (the other's epochs), and returns each robot's switch times
// and the ticks (once warm) without exactly one striker.
func swapRun(t *testing.T, cfg Config, amp, loss float64, dur time.Duration) (switchAt [2][]time.Duration, bad int) {
	t.Helper()
	tm := newTeam(cfg, []uint8{2, 3}, loss, 7)
	per := cfg.Period.D()
	before := [2]int{}
	for now := time.Duration(0); now < dur; now += 10 * time.Millisecond {
		e := uint32(now / per)
		sign := 1.0
		if (e/2)%2 == 1 {
			sign = -1
		}
		tm.step(now, func(p uint8) (float64, hal.Vec2) {
			if p == 2 {
				return 20 + amp*sign, hal.Vec2{X: -1, Y: 1}
			}
			return 20 - amp*sign, hal.Vec2{X: -1, Y: -1}
		})
		for i, pr := range tm.protos {
			if n := pr.Switches(); n > before[i] {
				switchAt[i] = append(switchAt[i], now)
				before[i] = n
			}
		}
		if now > 4*per {
			strikers := 0
			for _, r := range tm.roles {
				if r == msg.RoleStriker {
					strikers++
				}
			}
			if strikers != 1 {
				bad++
			}
		}
	}
	return switchAt, bad
}

// mostInAMinute is the largest number of the sorted times in any 60 s.
func mostInAMinute(ts []time.Duration) int {
	best, j := 0, 0
	for i := range ts {
		for ts[i]-ts[j] >= time.Minute {
			j++
		}
		best = max(best, i-j+1)
	}
	return best
}

// TestProtocolEqualCostsSettle reproduces the two-robot swap: two robots
// whose striker costs are nearly equal, each ahead by 6 s (more than the
// change cost) at alternate allocations. With Switch!'s absolute change
// cost alone they swap striker at every allocation; with the relative
// hysteresis they settle at once, and with costs that swing far beyond
// any hysteresis the switch limit still holds each robot to two switches
// in any minute, at 10 % loss, with exactly one striker throughout.
func TestProtocolEqualCostsSettle(t *testing.T) {
	base := DefaultConfig()
	base.Period = config.Duration(3500 * time.Millisecond)
	legacy := base
	legacy.ChangeRatio, legacy.MaxSwitches, legacy.KickOff = 0, 0, false
	const dur = 5 * time.Minute
	tests := []struct {
		name      string
		cfg       Config
		amp       float64
		minPerMin int // at least this many switches in some minute (the reproduction)
		maxPerMin int // at most this many in any minute
		maxAfter1 int // switches per robot after the first minute
	}{
		{"Switch! change cost alone: swaps at every allocation", legacy, 3, 8, 100, 1000},
		{"relative hysteresis: settled", base, 3, 0, 1, 0},
		{"costs swinging beyond any hysteresis: at most 2 per minute", base, 15, 2, 2, 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sw, bad := swapRun(t, tc.cfg, tc.amp, 0.1, dur)
			for i, ts := range sw {
				most, after := mostInAMinute(ts), 0
				for _, s := range ts {
					if s >= time.Minute {
						after++
					}
				}
				t.Logf("player %d: %d switches in %v, at most %d in a minute, %d after the first minute", i+2, len(ts), dur, most, after)
				if most < tc.minPerMin || most > tc.maxPerMin {
					t.Errorf("player %d: %d switches in the worst minute, want %d..%d", i+2, most, tc.minPerMin, tc.maxPerMin)
				}
				if after > tc.maxAfter1 {
					t.Errorf("player %d: %d switches after the first minute, want at most %d", i+2, after, tc.maxAfter1)
				}
			}
			if bad > 0 {
				t.Errorf("%d ticks without exactly one striker", bad)
			}
		})
	}
}

// kickOffRun runs players 2, 3 and 4, penalised until start, then released
// together; player 4 is nearest to the ball. It fails the test at the first
// tick of play without exactly one striker or with a robot not allocated,
// and returns the roles at the end and each robot's switches.
func kickOffRun(t *testing.T, cfg Config, loss float64, seed uint64, start time.Duration, drop func(from, to uint8, e uint32) bool) ([]msg.Role, []int) {
	t.Helper()
	tm := newTeam(cfg, []uint8{2, 3, 4}, loss, seed)
	tm.startAt, tm.released, tm.drop = start, 1<<2|1<<3|1<<4, drop
	pos := map[uint8]hal.Vec2{2: {X: -3.25, Y: 3}, 3: {X: -2, Y: -3}, 4: {X: -1.75, Y: 3}}
	cost := func(p uint8) (float64, hal.Vec2) {
		if p == 4 {
			return 5, pos[p]
		}
		return 10 + float64(p), pos[p]
	}
	for now := time.Duration(0); now < start+25*time.Second; now += 10 * time.Millisecond {
		tm.step(now, cost)
		if now < tm.startAt {
			continue
		}
		strikers := 0
		for i, pr := range tm.protos {
			if !pr.Allocated() {
				t.Fatalf("seed %d: player %d not allocated %v after the start", seed, tm.players[i], now-tm.startAt)
			}
			if tm.roles[i] == msg.RoleStriker {
				strikers++
			}
		}
		if strikers != 1 {
			t.Fatalf("seed %d: %d strikers %v after the start (%v)", seed, strikers, now-tm.startAt, tm.roles)
		}
	}
	var sw []int
	for _, pr := range tm.protos {
		sw = append(sw, pr.Switches())
	}
	return tm.roles, sw
}

// TestProtocolKickOff: three robots stand penalised for 3 s or more, then
// the team starts to play, at 10 % loss: from the first tick of play every
// robot has its kick-off role (2 striker, 3 defender, 4 supporter), with
// exactly one striker at every tick; the first regular allocation gives
// the striker role to player 4, nearest to the ball, and that is the only
// switch.
func TestProtocolKickOff(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Period = config.Duration(3500 * time.Millisecond)
	for seed := uint64(1); seed <= 100; seed++ {
		start := 3*time.Second + time.Duration(seed%20)*170*time.Millisecond
		roles, sw := kickOffRun(t, cfg, 0.1, seed, start, nil)
		if roles[2] != msg.RoleStriker {
			t.Errorf("seed %d: roles %v, want player 4 striking", seed, roles)
		}
		if sw[0] != 1 || sw[1] != 0 || sw[2] != 1 {
			t.Errorf("seed %d: switches %v, want players 2 and 4 once", seed, sw)
		}
	}
}

// TestProtocolKickOffLostMessages: from before the kick-off to the end of
// the epoch after it (at least 3.5 s after it) every message of player 4
// is lost, or every message to player 2. An allocation from the records
// sent around the kick-off gave two strikers (player 4, cheapest, from its
// own records; teammates without them chose another); the kick-off rule
// needs no message, and there is exactly one striker from the first tick
// of play on, every robot allocated, and player 4 strikes once the
// regular allocations have its records.
func TestProtocolKickOffLostMessages(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Period = config.Duration(3500 * time.Millisecond)
	const start = 3040 * time.Millisecond
	kick := uint32(start / cfg.Period.D())
	tests := []struct {
		name string
		drop func(from, to uint8, e uint32) bool
	}{
		{"player 4 silent until an epoch after the kick-off", func(from, to uint8, e uint32) bool { return from == 4 && e <= kick+1 }},
		{"player 2 hears no teammate until an epoch after the kick-off", func(from, to uint8, e uint32) bool {
			return to == 2 && e <= kick+1
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 8; seed++ {
				roles, _ := kickOffRun(t, cfg, 0, seed, start+time.Duration(seed)*97*time.Millisecond, tc.drop)
				if roles[2] != msg.RoleStriker {
					t.Errorf("seed %d: roles %v at the end, want player 4 striking", seed, roles)
				}
			}
		})
	}
}

// TestKickOffRole: the kick-off roles by player number among the players
// that start, the goalkeeper in goal if it plays.
func TestKickOffRole(t *testing.T) {
	a := NewAllocator(DefaultConfig())
	S, D, P, G, N := msg.RoleStriker, msg.RoleDefender, msg.RoleSupporter, msg.RoleGoalie, msg.RoleNone
	set := func(ps ...uint8) uint32 {
		var b uint32
		for _, p := range ps {
			b |= 1 << p
		}
		return b
	}
	tests := []struct {
		name    string
		players uint32
		keeper  uint8
		want    map[uint8]msg.Role
	}{
		{"players 2-4, the goalkeeper absent", set(2, 3, 4), 1, map[uint8]msg.Role{2: S, 3: D, 4: P, 1: N, 5: N}},
		{"a full team", set(1, 2, 3, 4, 5), 1, map[uint8]msg.Role{1: G, 2: S, 3: D, 4: P, 5: P}},
		{"player 2 penalised", set(1, 3, 4), 1, map[uint8]msg.Role{1: G, 3: S, 4: D}},
		{"no fixed goalkeeper", set(1, 3), 0, map[uint8]msg.Role{1: S, 3: D}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			strikers := 0
			for p, want := range tc.want {
				got := a.KickOffRole(p, tc.players, tc.keeper)
				if got != want {
					t.Errorf("player %d: %v, want %v", p, got, want)
				}
				if got == S {
					strikers++
				}
			}
			if strikers != 1 {
				t.Errorf("%d strikers", strikers)
			}
		})
	}
}
