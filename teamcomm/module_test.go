package teamcomm

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func TestEndpointTypedHandlersAndFragments(t *testing.T) {
	b, _ := NewBus(BusConfig{Latency: config.Duration(10 * time.Millisecond), Jitter: config.Duration(20 * time.Millisecond),
		Loss: 0.05, Duplicate: 0.1, Seed: 5})
	tx := NewEndpoint(b.Endpoint(1), 1, 4, time.Second)
	rx := NewEndpoint(b.Endpoint(2), 2, 4, time.Second)
	var states, states2, debug int
	Handle(rx, TypeState, DecodeState, func(from uint8, _ time.Duration, m *msg.TeamMessage) {
		if from != 1 || m.Player != 1 {
			t.Errorf("state from %d of %d", from, m.Player)
		}
		states++
	})
	Handle(rx, TypeState, DecodeState, func(uint8, time.Duration, *msg.TeamMessage) { states2++ })
	big := make([]byte, 1000)
	for i := range big {
		big[i] = byte(i * 7)
	}
	rx.HandleRaw(TypeDebug, func(_ uint8, _ time.Duration, p []byte) {
		if len(p) != len(big) || p[999] != big[999] {
			t.Errorf("debug message of %d bytes", len(p))
		}
		debug++
	})
	m := msg.TeamMessage{Player: 1}
	payload := AppendState(nil, &m)
	const n = 200
	for i := range n {
		now := time.Duration(i) * 100 * time.Millisecond
		if k, err := tx.Send(now, TypeState, payload); err != nil || k != 1 {
			t.Fatalf("state: %d datagrams, %v", k, err)
		}
		if i%10 == 0 {
			if k, err := tx.Send(now, TypeDebug, big); err != nil || k != 9 {
				t.Fatalf("debug: %d datagrams, %v", k, err)
			}
		}
		if _, err := tx.Send(now, 9, []byte("nobody listens")); err != nil {
			t.Fatal(err)
		}
		rx.Poll(now)
	}
	rx.Poll(time.Hour)
	st := rx.Stats()
	if states < n*85/100 || states2 != states || debug < 8 || st.Unhandled == 0 || st.Reassembled != uint64(debug) {
		t.Errorf("states %d/%d (second handler %d), debug %d/20, stats %+v", states, n, states2, debug, st)
	}
	if st.Duplicates == 0 {
		t.Errorf("no duplicate fragments noticed: %+v", st)
	}
}

// rig runs team-communication modules over a bus, each with its own
// board, behaviour's team message written by a fake.
type rig struct {
	bus   *Bus
	mods  []*Module
	bbs   []*blackboard.Board
	outs  []*blackboard.Writer[msg.TeamOut]
	gcs   []*blackboard.Writer[msg.GameControl]
	mates []*blackboard.Reader[msg.Teammates]
	reps  []*blackboard.Reader[msg.TeamBallReports]
	seq   uint64
}

func newRig(t *testing.T, cfg ModuleConfig, bc BusConfig, players ...uint8) *rig {
	t.Helper()
	bus, err := NewBus(bc)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{bus: bus}
	for _, p := range players {
		b := blackboard.New()
		out, _ := blackboard.Write(b, "behaviour", msg.TeamOutKey)
		gc, _ := blackboard.Write(b, "gamecontroller", msg.GameControlKey)
		m := NewModule(cfg, bus.Endpoint(p), p, nil)
		if err := m.Wire(b); err != nil {
			t.Fatal(err)
		}
		mates, _ := blackboard.Read(b, "probe", msg.TeammatesKey)
		reps, _ := blackboard.Read(b, "probe", msg.TeamBallReportsKey)
		if err := b.Validate(); err != nil {
			t.Fatal(err)
		}
		r.mods, r.bbs, r.outs, r.gcs = append(r.mods, m), append(r.bbs, b), append(r.outs, out), append(r.gcs, gc)
		r.mates, r.reps = append(r.mates, mates), append(r.reps, reps)
	}
	return r
}

// begin starts a tick on every board (values written after it carry it).
func (r *rig) begin(now time.Duration) {
	r.seq++
	for _, b := range r.bbs {
		b.BeginTick(r.seq, now)
	}
}

// tick runs the modules in the tick begun.
func (r *rig) tick(now time.Duration) {
	for _, m := range r.mods {
		if err := m.Tick(hal.Tick{Seq: r.seq, Time: now, Period: 10 * time.Millisecond, Connected: true}); err != nil {
			panic(err)
		}
	}
}

func TestModuleTeammatesAndReports(t *testing.T) {
	r := newRig(t, DefaultModuleConfig(), DefaultBusConfig(), 2, 3)
	r.begin(0)
	for i, w := range r.outs {
		p := uint8(i + 2)
		w.Set(msg.TeamOut{Seq: 1, Msg: msg.TeamMessage{Player: p, PoseValid: true, PoseConfidence: 0.9,
			BallValid: true, Ball: hal.Vec2{X: 1, Y: float64(p)}, BallAge: 200 * time.Millisecond}})
	}
	r.tick(0)
	for k := 1; k < 10; k++ {
		r.begin(time.Duration(k) * 10 * time.Millisecond)
		r.tick(time.Duration(k) * 10 * time.Millisecond)
	}
	for i := range r.mods {
		ms, meta := r.mates[i].Get()
		if !meta.Valid() || ms.N != 1 || ms.Mates[0].Count != 1 || ms.Mates[0].Msg.Player != uint8(3-i) {
			t.Fatalf("robot %d: teammates %+v", i+2, ms)
		}
		if got := ms.Mates[0].Received; got != 20*time.Millisecond {
			t.Errorf("received at %v, want 20ms (sent at 0, 20 ms bus latency)", got)
		}
		rep, _ := r.reps[i].Get()
		if rep.N != 1 || rep.Reports[0].Pos.Y != float64(3-i) || rep.Reports[0].Age != 200*time.Millisecond {
			t.Errorf("robot %d: reports %+v", i+2, rep)
		}
	}
	// The same sequence number is not sent twice.
	if s := r.mods[0].Endpoint().Stats(); s.Messages != 1 {
		t.Errorf("sent %d messages, want 1", s.Messages)
	}
	// A teammate not heard for MaxAge is forgotten.
	r.begin(time.Minute)
	r.tick(time.Minute)
	if ms, _ := r.mates[0].Get(); ms.N != 0 {
		t.Errorf("teammate kept after a minute: %+v", ms)
	}
}

func TestModuleBudget(t *testing.T) {
	tests := []struct {
		name  string
		gc    msg.GameControl
		msgs  int // messages behaviour asks for, one every 1.5 s
		wantS int // sent
	}{
		{"initial: free", msg.GameControl{Source: msg.GameSourceGameController, State: msg.StateInitial}, 100, 100},
		{"playing, ample budget", msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying,
			BudgetKnown: true, MessageBudget: 1200, Remaining: 600 * time.Second, FirstHalf: true, PlayersPerTeam: 1}, 100, 100},
		{"playing, budget nearly spent", msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying,
			BudgetKnown: true, MessageBudget: 61, Remaining: 600 * time.Second, PlayersPerTeam: 1}, 100, 1},
		{"playing, spent", msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying,
			BudgetKnown: true, MessageBudget: 10, Remaining: 600 * time.Second, PlayersPerTeam: 1}, 100, 0},
		{"penalty shoot-out: free", msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying, GamePhase: 1,
			BudgetKnown: true, MessageBudget: 0}, 100, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, DefaultModuleConfig(), DefaultBusConfig(), 2)
			for k := range tc.msgs {
				for j := range 150 {
					now := time.Duration(k*150+j) * 10 * time.Millisecond
					r.begin(now)
					if j == 0 {
						r.gcs[0].Set(tc.gc)
						r.outs[0].Set(msg.TeamOut{Seq: uint32(k + 1), Msg: msg.TeamMessage{Player: 2}})
					}
					r.tick(now)
				}
			}
			if s := r.mods[0].Endpoint().Stats(); int(s.Messages) != tc.wantS {
				t.Errorf("sent %d of %d messages, want %d", s.Messages, tc.msgs, tc.wantS)
			}
		})
	}
}

func TestModuleMetricsAndNoAllocs(t *testing.T) {
	reg := prometheus.NewRegistry()
	met, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	bus, _ := NewBus(DefaultBusConfig())
	b := blackboard.New()
	out, _ := blackboard.Write(b, "behaviour", msg.TeamOutKey)
	m := NewModule(DefaultModuleConfig(), bus.Endpoint(2), 2, met)
	if err := m.Wire(b); err != nil {
		t.Fatal(err)
	}
	peer := NewEndpoint(bus.Endpoint(3), 3, 2, time.Second)
	pm := msg.TeamMessage{Player: 3, BallValid: true, PoseValid: true, NSegments: 9, NRecords: 4}
	payload := AppendState(nil, &pm)
	seq := uint64(0)
	now := time.Duration(0)
	step := func() {
		seq++
		now += 10 * time.Millisecond
		b.BeginTick(seq, now)
		if seq%5 == 0 {
			out.Set(msg.TeamOut{Seq: uint32(seq), Msg: msg.TeamMessage{Player: 2, NSegments: 9, NRecords: 8}})
			peer.Send(now, TypeState, payload)
		}
		peer.Poll(now)
		m.Tick(hal.Tick{Seq: seq, Time: now, Connected: true})
	}
	for range 100 {
		step()
	}
	if allocs := testing.AllocsPerRun(500, step); allocs != 0 {
		t.Errorf("%v allocations per tick", allocs)
	}
	mf, _ := reg.Gather()
	got := map[string]float64{}
	for _, f := range mf {
		for _, mm := range f.GetMetric() {
			if c := mm.GetCounter(); c != nil {
				got[f.GetName()] = c.GetValue()
			} else if g := mm.GetGauge(); g != nil {
				got[f.GetName()] = g.GetValue()
			}
		}
	}
	if got["robotd_teamcomm_sent_total"] < 100 || got["robotd_teamcomm_received_total"] < 100 || got["robotd_teamcomm_teammates"] != 1 {
		t.Errorf("metrics %v", got)
	}
}
