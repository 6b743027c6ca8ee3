package gamecontroller

import (
	"net"
	"time"

	"github.com/robotd/robotd/config"
)

// ScriptConfig is a simulated GameController's game: INITIAL, then READY,
// SET and PLAYING (until the half ends), each phase for its time, as the
// SPL GameController runs a kick-off (SPL rules: READY lasts up to 45 s,
// the robots walk to their kick-off positions; SET, they stand still; then
// PLAYING).
type ScriptConfig struct {
	// Enabled replaces the GameController's UDP packets by this script.
	Enabled bool `json:"enabled"`
	// Initial, Ready and Set are the phases' lengths; PLAYING follows for
	// the rest of the half (ModuleConfig.HalfLength).
	Initial config.Duration `json:"initial"`
	Ready   config.Duration `json:"ready"`
	Set     config.Duration `json:"set"`
	// OurKickOff: our team kicks off.
	OurKickOff bool `json:"our_kick_off"`
	// Goalkeeper is our goalkeeper's player number; 0: the team plays
	// without one (a lone robot then plays in the field).
	Goalkeeper int `json:"goalkeeper"`
}

// DefaultScriptConfig returns the defaults: off; 2 s INITIAL, 15 s READY,
// 3 s SET, our kick-off, no goalkeeper.
func DefaultScriptConfig() ScriptConfig {
	return ScriptConfig{Initial: config.Duration(2 * time.Second), Ready: config.Duration(15 * time.Second),
		Set: config.Duration(3 * time.Second), OurKickOff: true}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the simulated GameController's section.
func (c *ScriptConfig) Rules() config.Rules {
	return config.Rules{
		"enabled":      config.Bool().Doc("", "replaces the GameController's packets by a scripted kick-off on the robot's tick time (the sim build turns it on)"),
		"initial":      config.Durations(0, 10*time.Minute).Doc("", "how long INITIAL lasts"),
		"ready":        config.Durations(0, 10*time.Minute).Doc("", "how long READY lasts"),
		"set":          config.Durations(0, 10*time.Minute).Doc("", "how long SET lasts; PLAYING follows for the rest of the half"),
		"our_kick_off": config.Bool().Doc("", "gives our team the kick-off"),
		"goalkeeper":   config.Int(0, MaxPlayers).Doc("", "our goalkeeper's player number (0: the team plays without one)"),
	}
}

// Validate checks the phases' lengths and the goalkeeper's number
// against Rules.
func (c *ScriptConfig) Validate() error {
	if err := config.CheckSection("gamecontroller.simulated", c, c.Rules()); err != nil {
		return err
	}
	return nil
}

// Script is a simulated GameController: a Source whose packets follow
// ScriptConfig's phases on the robot's tick time. The module tells it each
// tick's time (TickSource) before it reads it, so what it says depends
// only on that time: the same in real time, in sync mode and in a replay.
type Script struct {
	cfg        ScriptConfig
	team, opp  uint8
	half       time.Duration
	from       *net.UDPAddr
	started    bool
	start, now time.Duration
}

// TickSource is a Source that runs on the robot's tick time; the module
// calls Tick with each tick's time before Stats and Latest.
type TickSource interface {
	Source
	Tick(now time.Duration)
}

// NewScript returns the simulated GameController of a game of team
// (against team+1) with halves of half. The game starts at the first tick
// it is told.
func NewScript(cfg ScriptConfig, team int, half time.Duration) *Script {
	t := uint8(team)
	return &Script{cfg: cfg, team: t, opp: t%255 + 1, half: half, from: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: ControlPort}}
}

// Tick implements TickSource.
func (s *Script) Tick(now time.Duration) {
	if !s.started {
		s.started, s.start = true, now
	}
	s.now = now
}

// State returns the game state and the time left in it (the half's for
// PLAYING) at tick time now.
func (s *Script) State(now time.Duration) (State, time.Duration) {
	t := now - s.start
	for _, p := range []struct {
		state State
		d     time.Duration
	}{{StateInitial, s.cfg.Initial.D()}, {StateReady, s.cfg.Ready.D()}, {StateSet, s.cfg.Set.D()}, {StatePlaying, s.half}} {
		if t < p.d {
			return p.state, p.d - t
		}
		t -= p.d
	}
	return StateFinished, 0
}

// Latest implements Source: the packet of the current tick.
func (s *Script) Latest() (Data, time.Time, *net.UDPAddr, bool) {
	if !s.started {
		return Data{}, time.Time{}, nil, false
	}
	state, left := s.State(s.now)
	d := Data{Version: 18, PacketNumber: uint8(s.now / time.Millisecond), PlayersPerTeam: 5, State: state,
		FirstHalf: true, KickingTeam: s.opp}
	if s.cfg.OurKickOff {
		d.KickingTeam = s.team
	}
	switch state {
	case StatePlaying:
		d.SecsRemaining = int16(left / time.Second)
	case StateReady, StateSet:
		d.SecsRemaining, d.SecondaryTime = int16(s.half/time.Second), int16(left/time.Second)
	case StateInitial:
		d.SecsRemaining = int16(s.half / time.Second)
	}
	d.Teams[0] = TeamInfo{TeamNumber: s.team, Goalkeeper: uint8(s.cfg.Goalkeeper), MessageBudget: 1200}
	d.Teams[1] = TeamInfo{TeamNumber: s.opp, Goalkeeper: 1, MessageBudget: 1200}
	return d, time.Unix(0, int64(s.now)), s.from, true
}

// Stats implements Source: a new packet every millisecond of tick time.
func (s *Script) Stats() ClientStats {
	if !s.started {
		return ClientStats{}
	}
	return ClientStats{Packets: uint64((s.now-s.start)/time.Millisecond) + 1}
}
