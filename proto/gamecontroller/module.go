package gamecontroller

import (
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Source is where GameController packets come from: a Client, or a fake
// in tests.
type Source interface {
	// Latest returns the newest packet for our team; ok is false before
	// the first.
	Latest() (d Data, at time.Time, from *net.UDPAddr, ok bool)
	// Stats counts the packets.
	Stats() ClientStats
}

// ModuleConfig configures the game-state module.
type ModuleConfig struct {
	// Team is our SPL team number; Player our player number.
	Team   int `json:"team"`
	Player int `json:"player"`
	// Timeout: with no packet for this long the GameController counts as
	// gone, and the backend's game state (the simulator's play modes) is
	// used instead, if there is one.
	Timeout config.Duration `json:"timeout"`
	// TwoSourcesHold is how long the two-sources warning stays up after
	// the last packet from a second GameController.
	TwoSourcesHold config.Duration `json:"two_sources_hold"`
	// HalfLength is a half's length, for the sim's game time.
	HalfLength config.Duration `json:"half_length"`
}

// DefaultModuleConfig returns the defaults.
func DefaultModuleConfig() ModuleConfig {
	return ModuleConfig{Timeout: config.Duration(5 * time.Second), TwoSourcesHold: config.Duration(10 * time.Second),
		HalfLength: config.Duration(10 * time.Minute)}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within robotd's gamecontroller section.
func (c ModuleConfig) Rules() config.Rules {
	return config.Rules{
		"team":             config.Int(0, 99).Doc("", "our SPL team number (robotd sets it from robot.team_number)"),
		"player":           config.Int(0, MaxPlayers).Doc("", "our player number (robotd sets it from robot.player)"),
		"timeout":          config.Durations(0, time.Hour).Doc("", "how long without a packet before the GameController counts as gone and the backend's game state is used"),
		"two_sources_hold": config.Durations(0, time.Hour).Doc("", "how long the two-sources warning stays up after the last packet from a second GameController"),
		"half_length":      config.Durations(time.Second, 24*time.Hour).Doc("", "a half's length, for the game time of the simulator's play modes"),
	}
}

// Module maps the game state into the blackboard (msg.GameControlKey):
// the GameController's packets when they arrive, else the backend's game
// state (hal.GameState: in the sim build, SimSpark's play modes), else
// nothing (Source none). It raises TwoSources while packets come from two
// GameControllers, and keeps the content of the return packets (Return)
// from perception's pose and ball (last tick's).
type Module struct {
	cfg ModuleConfig
	src Source
	log *slog.Logger

	hgs  *blackboard.Reader[hal.GameState]
	pose *blackboard.Reader[msg.RobotPose]
	ball *blackboard.Reader[msg.Ball]
	body *blackboard.Reader[msg.BodyState]
	w    *blackboard.Writer[msg.GameControl]

	packets, others uint64
	have            bool
	lastPacket      time.Duration
	lastOther       time.Duration
	warned          bool
	data            Data
	hs              hal.GameState
	out             msg.GameControl
	logged          msg.GameControl // the state last logged

	rmu sync.Mutex
	ret Return
	pv  msg.RobotPose
	bv  msg.Ball
	bs  msg.BodyState
}

// NewModule returns the module; src may be nil (no GameController: the
// backend's game state only).
func NewModule(cfg ModuleConfig, src Source, log *slog.Logger) *Module {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Module{cfg: cfg, src: src, log: log, ret: Return{BallAge: -1}}
}

// Name implements runner.Module.
func (m *Module) Name() string { return "gamecontroller" }

// Wire implements runner.Module.
func (m *Module) Wire(b *blackboard.Board) error {
	var err error
	if m.hgs, err = blackboard.ReadOptional(b, m.Name(), msg.GameStateKey); err != nil {
		return err
	}
	// The return packet's content: last tick's, without ordering (team
	// communication and, through it, perception depend on the game
	// state). A robot without perception cannot use this module.
	if m.pose, err = blackboard.Use(b, m.Name(), msg.RobotPoseKey); err != nil {
		return err
	}
	if m.ball, err = blackboard.Use(b, m.Name(), msg.BallKey); err != nil {
		return err
	}
	if m.body, err = blackboard.Use(b, m.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	m.w, err = blackboard.Write(b, m.Name(), msg.GameControlKey)
	return err
}

// Tick implements runner.Module.
func (m *Module) Tick(t hal.Tick) error {
	now := t.Time
	if ts, ok := m.src.(TickSource); ok {
		ts.Tick(now)
	}
	if m.src != nil {
		st := m.src.Stats()
		if st.Packets != m.packets {
			m.packets = st.Packets
			if d, _, _, ok := m.src.Latest(); ok {
				m.data, m.have, m.lastPacket = d, true, now
			}
		}
		if st.OtherSources != m.others {
			m.others, m.lastOther = st.OtherSources, now
			if !m.warned {
				m.warned = true
				m.log.Warn("GameController packets arrive from two sources; check the network", "packets_from_other_sources", st.OtherSources)
			}
		}
	}
	two := m.others > 0 && now-m.lastOther <= m.cfg.TwoSourcesHold.D()
	if !two {
		m.warned = false
	}
	switch {
	case m.have && now-m.lastPacket <= m.cfg.Timeout.D():
		Map(&m.data, uint8(m.cfg.Team), uint8(m.cfg.Player), &m.out)
		m.out.Packets, m.out.LastPacket = m.packets, m.lastPacket
	case m.hgs.Load(&m.hs).Valid():
		MapSim(&m.hs, m.cfg.HalfLength.D(), &m.out)
	default:
		m.out = msg.GameControl{}
	}
	m.out.TwoSources = two
	if m.out.State != m.logged.State || m.out.Source != m.logged.Source || m.out.Penalised != m.logged.Penalised {
		// A change of the game state is rare: a handful per half.
		m.log.Info("game state", "state", m.out.State.String(), "source", m.out.Source.String(), "penalised", m.out.Penalised)
		m.logged = m.out
	}
	m.w.Set(m.out)
	m.keepReturn()
	return nil
}

// keepReturn updates the return packet's content.
func (m *Module) keepReturn() {
	pOK := m.pose.Load(&m.pv).Valid() && m.pv.Valid
	bOK := m.ball.Load(&m.bv).Valid() && m.bv.Valid
	m.body.Load(&m.bs)
	m.rmu.Lock()
	defer m.rmu.Unlock()
	m.ret.Fallen = m.bs.Fall != msg.Upright
	if pOK {
		m.ret.Pose = [3]float32{float32(m.pv.Pose.X * 1000), float32(m.pv.Pose.Y * 1000), float32(m.pv.Pose.Heading)}
	}
	m.ret.BallAge = -1
	if bOK {
		m.ret.BallAge = float32(m.bv.SinceSeen.Seconds())
		m.ret.Ball = [2]float32{float32(m.bv.Pos.X * 1000), float32(m.bv.Pos.Y * 1000)}
	}
}

// Return returns the return packet's content (player and team are the
// client's); safe for concurrent use (the client's goroutine calls it).
func (m *Module) Return() Return {
	m.rmu.Lock()
	defer m.rmu.Unlock()
	return m.ret
}

// Map maps a packet onto the game state of player of team.
func Map(d *Data, team, player uint8, g *msg.GameControl) {
	*g = msg.GameControl{Source: msg.GameSourceGameController, State: msg.GameStateKind(d.State),
		GamePhase: uint8(d.GamePhase), SetPlay: uint8(d.SetPlay), FirstHalf: d.FirstHalf,
		Remaining: time.Duration(d.SecsRemaining) * time.Second, Secondary: time.Duration(d.SecondaryTime) * time.Second,
		PlayersPerTeam: d.PlayersPerTeam, Stopped: d.Stopped}
	if d.State > StateStandby {
		g.State = msg.StateInitial // unknown: the safest
	}
	for i := range d.Teams {
		t := &d.Teams[i]
		if t.TeamNumber != team {
			g.ScoreOpp = t.Score
			continue
		}
		g.ScoreOwn = t.Score
		g.Goalkeeper = t.Goalkeeper
		g.MessageBudget, g.BudgetKnown = t.MessageBudget, true
		g.OurKickOff = d.KickingTeam == team
		for p := range t.Players {
			if t.Players[p].Penalty != PenaltyNone {
				g.PenalisedMates |= 1 << (p + 1)
			}
		}
		if player >= 1 && int(player) <= MaxPlayers {
			ri := t.Players[player-1]
			g.Penalty = uint8(ri.Penalty)
			// A substitute is not on the field: penalised as well.
			g.Penalised = ri.Penalty != PenaltyNone
			g.Unpenalised = time.Duration(ri.SecsTillUnpenalised) * time.Second
		}
	}
}

// MapSim maps the backend's game state (SimSpark's play modes, see
// backends/sim) onto the game state: the phases are the SPL states
// (msg.StateOf), the game time counts up within a half.
func MapSim(hs *hal.GameState, half time.Duration, g *msg.GameControl) {
	*g = msg.GameControl{Source: msg.GameSourceSimulator, State: msg.StateOf(hs.Phase),
		Penalised: hs.Penalised, OurKickOff: hs.OurKickOff,
		ScoreOwn: uint8(min(max(hs.ScoreOwn, 0), 255)), ScoreOpp: uint8(min(max(hs.ScoreOpp, 0), 255)),
		FirstHalf: hs.GameTime < half, Remaining: max(half-hs.GameTime%half, 0)}
}
