package teamcomm

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// ModuleConfig configures the team-communication module.
type ModuleConfig struct {
	// Budget is the team's messages per game (SPL: 1200) and GameLength
	// the playing time they are for (two halves of 10 minutes), used when
	// no GameController says what is left.
	Budget     int             `json:"budget"`
	GameLength config.Duration `json:"game_length"`
	// Reserve is kept back for the end of the game.
	Reserve int `json:"reserve"`
	// MinInterval is the shortest time between two messages of this robot.
	MinInterval config.Duration `json:"min_interval"`
	// MaxAge forgets a teammate not heard for this long.
	MaxAge config.Duration `json:"max_age"`
	// ReassemblySlots and FragmentTimeout bound reassembly.
	ReassemblySlots int             `json:"reassembly_slots"`
	FragmentTimeout config.Duration `json:"fragment_timeout"`
}

// DefaultModuleConfig returns the defaults.
func DefaultModuleConfig() ModuleConfig {
	return ModuleConfig{Budget: 1200, GameLength: config.Duration(20 * time.Minute), Reserve: 60,
		MinInterval: config.Duration(time.Second), MaxAge: config.Duration(30 * time.Second),
		ReassemblySlots: 8, FragmentTimeout: config.Duration(2 * time.Second)}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within robotd's teamcomm section.
func (c ModuleConfig) Rules() config.Rules {
	return config.Rules{
		"budget":           config.Int(0, 1_000_000).Doc("messages per game", "the team's message budget (SPL: 1200), used when no GameController says how many are left"),
		"game_length":      config.Durations(time.Second, 24*time.Hour).Doc("", "the playing time the budget is for (two halves of 10 minutes)"),
		"reserve":          config.Int(0, 1_000_000).Doc("messages", "the messages kept back for the end of the game"),
		"min_interval":     config.Durations(0, time.Hour).Doc("", "the shortest time between two messages of this robot"),
		"max_age":          config.Durations(0, time.Hour).Doc("", "forgets a teammate not heard from for this long"),
		"reassembly_slots": config.Int(1, 1000).Doc("", "how many fragmented messages are reassembled at a time; a new one drops the oldest"),
		"fragment_timeout": config.Durations(0, time.Minute).Doc("", "drops a message whose fragments do not all arrive within this time"),
	}
}

// halfLength is an SPL half.
const halfLength = 10 * time.Minute

// Module is team communication as a runner module ("teamcomm"): each tick
// it takes the datagrams that arrived, keeps every teammate's latest state
// (msg.TeammatesKey) and ball report (msg.TeamBallReportsKey, which
// perception fuses), and sends behaviour's team message (msg.TeamOutKey,
// read without ordering: last tick's) once per new sequence number when the
// message budget allows. The budget comes from the GameController's
// messageBudget when there is one (msg.GameControlKey), else from the
// configuration; only READY, SET and PLAYING count.
type Module struct {
	cfg    ModuleConfig
	ep     *Endpoint
	player uint8
	met    *Metrics

	out     *blackboard.Reader[msg.TeamOut]
	game    *blackboard.Reader[msg.GameControl]
	matesW  *blackboard.Writer[msg.Teammates]
	reportW *blackboard.Writer[msg.TeamBallReports]

	budget   Budget
	lastSeq  uint32
	haveSeq  bool
	sentGame int           // datagrams sent in counting states
	played   time.Duration // time in counting states
	last     time.Duration
	started  bool
	changed  bool

	mates   msg.Teammates
	reports msg.TeamBallReports
	tout    msg.TeamOut
	gc      msg.GameControl
	payload []byte
	stats   EndpointStats
	// implausible counts teammates' states dropped as implausible.
	implausible uint64
}

// Implausible returns the number of teammates' states dropped because
// they cannot be true (a position off the field, an impossible player
// number, a value that is not finite).
func (m *Module) Implausible() uint64 { return m.implausible }

// NewModule returns the module of player over transport t. met may be
// nil.
func NewModule(cfg ModuleConfig, t Transport, player uint8, met *Metrics) *Module {
	m := &Module{cfg: cfg, player: player, met: met,
		ep:      NewEndpoint(t, player, cfg.ReassemblySlots, cfg.FragmentTimeout.D()),
		budget:  Budget{Reserve: cfg.Reserve, MinInterval: cfg.MinInterval.D(), Slack: 0.2},
		payload: make([]byte, 0, MaxPayload)}
	Handle(m.ep, TypeState, DecodeState, m.onState)
	return m
}

// Endpoint returns the module's endpoint, to register more handlers or
// send other messages (from the tick's goroutine only).
func (m *Module) Endpoint() *Endpoint { return m.ep }

// Name implements runner.Module.
func (m *Module) Name() string { return "teamcomm" }

// Wire implements runner.Module.
func (m *Module) Wire(b *blackboard.Board) error {
	var err error
	if m.out, err = blackboard.Use(b, m.Name(), msg.TeamOutKey); err != nil {
		return err
	}
	if m.game, err = blackboard.ReadOptional(b, m.Name(), msg.GameControlKey); err != nil {
		return err
	}
	if m.matesW, err = blackboard.Write(b, m.Name(), msg.TeammatesKey); err != nil {
		return err
	}
	m.reportW, err = blackboard.Write(b, m.Name(), msg.TeamBallReportsKey)
	return err
}

// onState keeps a teammate's state.
func (m *Module) onState(from uint8, now time.Duration, s *msg.TeamMessage) {
	if s.Player != from {
		m.mates.Dropped++
		return
	}
	if plausible(s) != "" {
		m.mates.Dropped++
		m.implausible++
		m.met.implausibleMessage()
		return
	}
	m.mates.Received++
	i := 0
	for ; i < m.mates.N; i++ {
		if m.mates.Mates[i].Msg.Player == from {
			break
		}
	}
	if i == m.mates.N {
		if m.mates.N == len(m.mates.Mates) {
			m.mates.Dropped++
			return
		}
		m.mates.N++
		m.mates.Mates[i] = msg.Teammate{}
	}
	mt := &m.mates.Mates[i]
	mt.Received, mt.Msg = now, *s
	mt.Count++
	m.changed = true
}

// Tick implements runner.Module.
func (m *Module) Tick(t hal.Tick) error {
	now := t.Time
	if !m.started {
		m.started, m.last = true, now
	}
	dt := min(max(now-m.last, 0), time.Second)
	m.last = now
	gcOK := m.game.Load(&m.gc).Valid() && m.gc.Source != msg.GameSourceNone
	counting := gcOK && m.gc.GamePhase != 1 &&
		(m.gc.State == msg.StateReady || m.gc.State == msg.StateSet || m.gc.State == msg.StatePlaying)
	if counting {
		m.played += dt
	}

	m.ep.Poll(now)
	m.expire(now)
	if m.changed {
		m.changed = false
		m.matesW.Set(m.mates)
		m.buildReports()
		m.reportW.Set(m.reports)
	}

	if m.out.Load(&m.tout).Valid() && (!m.haveSeq || m.tout.Seq != m.lastSeq) {
		m.haveSeq, m.lastSeq = true, m.tout.Seq
		if !counting || m.allow(now) {
			m.payload = AppendState(m.payload[:0], &m.tout.Msg)
			n, err := m.ep.Send(now, TypeState, m.payload)
			if counting {
				m.sentGame += n
			}
			if err != nil {
				m.observe()
				return err
			}
		} else {
			m.met.budgetSkipped()
		}
	}
	m.observe()
	return nil
}

// allow asks the budget.
func (m *Module) allow(now time.Duration) bool {
	players := m.gc.PlayersPerTeam
	if players == 0 {
		players = uint8(m.mates.N + 1)
	}
	left := m.cfg.Budget - m.sentGame*int(players)
	if m.gc.BudgetKnown {
		left = int(m.gc.MessageBudget)
	}
	timeLeft := m.cfg.GameLength.D() - m.played
	if m.gc.Source == msg.GameSourceGameController {
		timeLeft = m.gc.Remaining
		if m.gc.FirstHalf {
			timeLeft += halfLength
		}
	}
	return m.budget.Allow(now, left, int(players), max(timeLeft, time.Second))
}

// expire forgets teammates not heard for MaxAge.
func (m *Module) expire(now time.Duration) {
	j := 0
	for i := range m.mates.N {
		if now-m.mates.Mates[i].Received > m.cfg.MaxAge.D() {
			m.changed = true
			continue
		}
		m.mates.Mates[j] = m.mates.Mates[i]
		j++
	}
	m.mates.N = j
}

// buildReports turns the teammates' balls into ball reports.
func (m *Module) buildReports() {
	m.reports.N = 0
	for i := range m.mates.N {
		mt := &m.mates.Mates[i]
		if !mt.Msg.BallValid || !mt.Msg.PoseValid || mt.Msg.Penalised || m.reports.N == len(m.reports.Reports) {
			continue
		}
		m.reports.Reports[m.reports.N] = msg.TeamBallReport{Player: mt.Msg.Player, Pos: mt.Msg.Ball,
			Age: mt.Msg.BallAge, Received: mt.Received, PoseConfidence: mt.Msg.PoseConfidence}
		m.reports.N++
	}
}

// observe updates the metrics.
func (m *Module) observe() {
	s := m.ep.Stats()
	m.met.add(&m.stats, &s, m.mates.N)
	m.stats = s
}

// Metrics are team communication's Prometheus metrics.
type Metrics struct {
	sent, received, malformed, unhandled, reasmDropped, budgetSkips, implausible prometheus.Counter
	teammates                                                                    prometheus.Gauge
}

// NewMetrics registers team communication's metrics on reg:
// robotd_teamcomm_{sent,received,malformed,unhandled,reassembly_dropped,budget_skipped,implausible}_total
// and robotd_teamcomm_teammates.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	c := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: "robotd_teamcomm_" + name, Help: help})
	}
	m := &Metrics{
		sent:         c("sent_total", "Team datagrams sent (fragments count)."),
		received:     c("received_total", "Team datagrams received from teammates."),
		malformed:    c("malformed_total", "Team datagrams or messages that did not decode."),
		unhandled:    c("unhandled_total", "Team messages of a type without a handler."),
		reasmDropped: c("reassembly_dropped_total", "Fragmented team messages given up."),
		budgetSkips:  c("budget_skipped_total", "Team messages not sent to keep within the message budget."),
		implausible:  c("implausible_total", "Teammates' states dropped because they cannot be true (off the field, impossible player, not finite)."),
		teammates:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "robotd_teamcomm_teammates", Help: "Teammates heard recently."}),
	}
	for _, col := range []prometheus.Collector{m.sent, m.received, m.malformed, m.unhandled, m.reasmDropped, m.budgetSkips, m.implausible, m.teammates} {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (mt *Metrics) add(old, cur *EndpointStats, mates int) {
	if mt == nil {
		return
	}
	mt.sent.Add(float64(cur.Sent - old.Sent))
	mt.received.Add(float64(cur.Received - old.Received))
	mt.malformed.Add(float64(cur.Malformed - old.Malformed))
	mt.unhandled.Add(float64(cur.Unhandled - old.Unhandled))
	mt.reasmDropped.Add(float64(cur.Dropped - old.Dropped))
	mt.teammates.Set(float64(mates))
}

func (mt *Metrics) implausibleMessage() {
	if mt != nil {
		mt.implausible.Inc()
	}
}

func (mt *Metrics) budgetSkipped() {
	if mt != nil {
		mt.budgetSkips.Inc()
	}
}
