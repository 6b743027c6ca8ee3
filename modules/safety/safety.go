// Package safety protects a legged robot from itself: it limits the
// stiffness of hot joints, sits the robot down on a low battery or on the
// head's safe-stop gesture, keeps stiffness low while the robot falls,
// penalises and unpenalises it with the chest button when no GameController
// is heard, and shows the game state on the LEDs. Motion obeys its verdict
// (msg.SafetyKey) before anything behaviour asks.
package safety

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Config is the safety module's configuration.
type Config struct {
	// HotTemperature (°C) makes a joint hot; it cools again below
	// HotTemperature-Hysteresis. A joint is also hot from LoLA's
	// temperature status HotStatus on (NAO v6 statuses: 0 normal, 1 hot:
	// the firmware starts to reduce stiffness, 2 very hot: stiffness
	// reduced by over 30 %, 3 critical: stiffness 0; nao_sensor_msgs
	// JointStatuses.msg). Acting at status 1 comes before the firmware's
	// own cut.
	HotTemperature float64 `json:"hot_temperature"`
	Hysteresis     float64 `json:"hysteresis"`
	HotStatus      uint8   `json:"hot_status"`
	// CriticalTemperature (°C) or status 3 takes all stiffness.
	CriticalTemperature float64 `json:"critical_temperature"`
	// HotStiffness is the most a hot joint gets.
	HotStiffness float64 `json:"hot_stiffness"`
	// MaxCurrent (A) held for CurrentTicks ticks in a row makes a joint hot
	// (a joint pushing against something).
	MaxCurrent   float64 `json:"max_current"`
	CurrentTicks int     `json:"current_ticks"`
	// LowBattery (charge 0..1) sits the robot down unless it charges; it
	// stands up again above LowBattery+BatteryHysteresis.
	LowBattery        float64 `json:"low_battery"`
	BatteryHysteresis float64 `json:"battery_hysteresis"`
	// FallStiffness is every joint's stiffness while falling.
	FallStiffness float64 `json:"fall_stiffness"`
	// LogEvery bounds the log lines of one kind of action (tick time).
	LogEvery config.Duration `json:"log_every"`

	// The settings below make a single glitching sensor value unable to
	// allow more stiffness or to end a sit. Whatever protects the robot
	// (a joint turning hot, a low battery, a safe stop) acts on the tick
	// it is seen; whatever releases a protection waits until the release
	// has been seen continuously for a hold time. All times are tick time.

	// CoolHold is how long a joint's readings must stay below its current
	// level (hot or critical) before its stiffness cap rises to the lower
	// level's; one reading at or above the level starts the wait again.
	CoolHold config.Duration `json:"cool_hold"`
	// MinTemperature and MaxTemperature (°C) bound a plausible joint
	// temperature; a reading outside them is ignored and the joint keeps
	// its state. A joint with no plausible reading yet gets no stiffness,
	// unless a connected tick's joint state says the hardware has no
	// temperature sensors (the simulator).
	MinTemperature float64 `json:"min_temperature"`
	MaxTemperature float64 `json:"max_temperature"`
	// MaxCoolingRate (°C/s) is the fastest a joint's temperature is
	// believed to fall: the temperature the module goes by follows a rise
	// at once but a fall at most this fast, so a reading far below the
	// last ones (a glitching packet, a sensor stuck low) keeps the joint
	// hot until the readings have stayed low long enough.
	MaxCoolingRate float64 `json:"max_cooling_rate"`
	// ResumeHold is how long the head's three pads must be touched
	// together to end a safe stop (starting one takes a single touch).
	ResumeHold config.Duration `json:"resume_hold"`
	// BatteryHold debounces the battery: the charging flag counts once it
	// has read charging this long without a break (not charging counts at
	// once), and a low-battery sit ends once the battery has read charging,
	// or charged above the band, this long without a break.
	BatteryHold config.Duration `json:"battery_hold"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		HotTemperature:      75,
		Hysteresis:          5,
		HotStatus:           1,
		CriticalTemperature: 85,
		HotStiffness:        0.3,
		MaxCurrent:          2.5,
		CurrentTicks:        42, // 0.5 s of LoLA's 12 ms cycle
		LowBattery:          0.08,
		BatteryHysteresis:   0.05,
		FallStiffness:       0.1,
		LogEvery:            config.Duration(5 * time.Second),
		CoolHold:            config.Duration(time.Second),
		MinTemperature:      0,
		MaxTemperature:      150,
		MaxCoolingRate:      5,
		ResumeHold:          config.Duration(500 * time.Millisecond),
		BatteryHold:         config.Duration(time.Second),
	}
}

// Ranges of the hold settings.
const (
	minHold = 100 * time.Millisecond // several ticks of every backend
	maxHold = 10 * time.Minute
)

// Rules returns the allowed values and the documentation of every
// setting, keyed within the safety section.
func (c *Config) Rules() config.Rules {
	return config.Rules{
		"hot_temperature":      config.Between(20, 120, true, false).Doc("°C", "the temperature that makes a joint hot"),
		"hysteresis":           config.Range(0, 50).Doc("°C", "how far below hot_temperature a hot joint cools again"),
		"hot_status":           config.Int(1, 3).Doc("", "the joint status (LoLA's 0 … 3) that makes a joint hot"),
		"critical_temperature": config.Range(20, 150).Doc("°C", "the temperature (or status 3) that takes a joint's stiffness; at least hot_temperature"),
		"hot_stiffness":        config.Range(0, 1).Doc("fraction", "the most stiffness a hot joint gets"),
		"max_current":          config.Range(0.01, 10).Doc("A", "a joint current that, held for current_ticks ticks in a row, makes the joint hot (pushing against something)"),
		"current_ticks":        config.Int(1, 100_000).Doc("", "how many ticks in a row max_current must hold to make a joint hot"),
		"low_battery":          config.Range(0, 1).Doc("fraction of charge", "the charge below which the robot sits down unless it charges"),
		"battery_hysteresis":   config.Range(0, 1).Doc("fraction of charge", "how far above low_battery the robot stands up again"),
		"fall_stiffness":       config.Range(0, 1).Doc("fraction", "every joint's stiffness while falling"),
		"log_every":            config.Durations(0, time.Hour).Doc("", "the shortest time between two log lines of one kind of action (tick time)"),
		"cool_hold":            config.Durations(minHold, maxHold).Doc("", "how long a joint's readings must stay below its level (hot or critical) before its stiffness cap rises"),
		"min_temperature":      config.Range(-50, 50).Doc("°C", "the lowest plausible joint temperature; a reading below it is ignored"),
		"max_temperature":      config.Range(20, 500).Doc("°C", "the highest plausible joint temperature, above critical_temperature; a reading above it is ignored"),
		"max_cooling_rate":     config.Range(0.01, 1000).Doc("°C/s", "the fastest a joint's temperature is believed to fall (a reading far below the last ones keeps the joint hot)"),
		"resume_hold":          config.Durations(minHold, maxHold).Doc("", "how long the head's three pads must be touched together to end a safe stop"),
		"battery_hold":         config.Durations(minHold, maxHold).Doc("", "how long the battery must read charging (or charged above the band) without a break to count"),
	}
}

// Validate checks every setting against Rules, then the temperatures
// against each other; errors name the key.
func (c *Config) Validate() error {
	var errs []error
	if err := config.CheckSection("safety", c, c.Rules()); err != nil {
		errs = append(errs, err)
	}
	if c.CriticalTemperature < c.HotTemperature {
		errs = append(errs, fmt.Errorf("safety.critical_temperature: %v °C below hot_temperature %v", c.CriticalTemperature, c.HotTemperature))
	}
	if !(c.MaxTemperature > c.CriticalTemperature) {
		errs = append(errs, fmt.Errorf("safety.max_temperature: %v °C; want above critical_temperature %v, at most 500", c.MaxTemperature, c.CriticalTemperature))
	}
	if !(c.MinTemperature < c.HotTemperature-c.Hysteresis) {
		errs = append(errs, fmt.Errorf("safety.min_temperature: %v °C; want below hot_temperature-hysteresis %v, or no joint cools", c.MinTemperature, c.HotTemperature-c.Hysteresis))
	}
	return errors.Join(errs...)
}

// Action is a kind of safety action.
type Action uint8

// The actions, each counted and logged.
const (
	ActHotJoint Action = iota
	ActJointCooled
	ActLowBattery
	ActFall
	ActPenalise
	ActUnpenalise
	ActSafeStop
	ActResume
	NumActions
)

var actionNames = [NumActions]string{"hot_joint", "joint_cooled", "low_battery", "fall", "penalise", "unpenalise", "safe_stop", "resume"}

func (a Action) String() string { return actionNames[a] }

// Module is the safety module.
type Module struct {
	cfg Config
	log *slog.Logger

	tick    *blackboard.Reader[hal.Tick]
	joints  *blackboard.Reader[hal.JointSensors]
	battery *blackboard.Reader[hal.Battery]
	sensors *blackboard.Reader[msg.BodySensors]
	game    *blackboard.Reader[msg.GameControl]
	out     *blackboard.Writer[msg.Safety]
	ledsW   *blackboard.Writer[hal.LEDs]

	js      hal.JointSensors
	bs      msg.BodySensors
	bat     hal.Battery
	gc      msg.GameControl
	st      msg.Safety
	leds    hal.LEDs
	joint   [hal.NumJoints]jointState
	counts  [NumActions]atomic.Uint64
	lastLog [NumActions]time.Duration
	logged  [NumActions]bool

	charging   held // the battery's charging flag
	batteryOK  held // the low-battery sit's end condition
	resume     held // the head's three pads, to end a safe stop
	chordArmed bool // the pads were let go since the last toggle
	// noSensor: a connected tick's joint state said the hardware has no
	// joint temperature sensors (the simulator). Hardware does not gain
	// or lose them while it runs, so it holds through outages.
	noSensor bool
}

// level is how hot a joint is; a higher level allows less stiffness.
type level uint8

const (
	cool level = iota
	hot
	critical
)

// jointState is what the module remembers of one joint.
type jointState struct {
	temp    float64       // the temperature it goes by (°C), see Config.MaxCoolingRate
	tempAt  time.Duration // when temp was last updated
	hasTemp bool          // temp holds a plausible reading
	over    int           // ticks in a row over MaxCurrent
	level   level
	// While the readings are below level: since when, and the highest
	// level they gave meanwhile, which is the level after CoolHold.
	cooling   bool
	coolSince time.Duration
	coolTo    level
}

// held tracks how long a condition has held without a break.
type held struct {
	on    bool
	since time.Duration
}

// update takes the condition at time now and reports whether it has held
// for at least d without a break.
func (h *held) update(cond bool, now, d time.Duration) bool {
	if !cond {
		h.on = false
		return false
	}
	if !h.on {
		h.on, h.since = true, now
	}
	return now-h.since >= d
}

// New returns a safety module logging to log (slog.Default if nil).
func New(cfg Config, log *slog.Logger) *Module {
	if log == nil {
		log = slog.Default()
	}
	m := &Module{cfg: cfg, log: log.With("module", "safety"), chordArmed: true}
	for j := range m.st.StiffnessCap {
		m.st.StiffnessCap[j] = 1
	}
	return m
}

// Name implements runner.Module.
func (m *Module) Name() string { return "safety" }

// Wire implements runner.Module.
func (m *Module) Wire(b *blackboard.Board) error {
	var err error
	if m.tick, err = blackboard.Read(b, m.Name(), msg.TickKey); err != nil {
		return err
	}
	if m.joints, err = blackboard.Read(b, m.Name(), msg.JointsKey); err != nil {
		return err
	}
	if m.battery, err = blackboard.ReadOptional(b, m.Name(), msg.BatteryKey); err != nil {
		return err
	}
	if m.sensors, err = blackboard.ReadOptional(b, m.Name(), msg.BodySensorsKey); err != nil {
		return err
	}
	if m.game, err = blackboard.ReadOptional(b, m.Name(), msg.GameControlKey); err != nil {
		return err
	}
	if m.out, err = blackboard.Write(b, m.Name(), msg.SafetyKey); err != nil {
		return err
	}
	m.ledsW, err = blackboard.Write(b, m.Name(), msg.LEDsKey)
	return err
}

// Count returns how often action a was taken.
func (m *Module) Count(a Action) uint64 { return m.counts[a].Load() }

// act counts an action and logs it, at most once per LogEvery per kind.
func (m *Module) act(now time.Duration, a Action, args ...any) {
	m.counts[a].Add(1)
	if m.logged[a] && now-m.lastLog[a] < m.cfg.LogEvery.D() {
		return
	}
	m.logged[a], m.lastLog[a] = true, now
	m.log.Warn("safety: "+a.String(), append(args, "count", m.counts[a].Load())...)
}

// Tick implements runner.Module.
func (m *Module) Tick(t hal.Tick) error {
	now := t.Time
	// Without joint temperature sensors (a connected tick's joint state
	// reports none, as in the simulator) a joint with no reading is not
	// unknown; until a connected tick has said so, it is.
	if m.joints.Load(&m.js).Valid() && t.Connected {
		m.noSensor = !m.js.HasTemperature
	}
	m.updateJoints(now)
	if m.battery.Load(&m.bat).Valid() {
		m.batteryCheck(now)
	}
	m.sensors.Load(&m.bs)
	gcHeard := m.game.Load(&m.gc).Valid() && m.gc.Source == msg.GameSourceGameController
	m.buttons(now, gcHeard)
	if m.bs.Falling != m.st.Falling {
		m.st.Falling = m.bs.Falling
		if m.st.Falling {
			m.act(now, ActFall, "direction", m.bs.FallDirection.String())
		}
	}
	m.st.FallStiffness = m.cfg.FallStiffness
	m.st.Sit = m.st.LowBattery || m.st.SafeStop
	m.out.Set(m.st)
	m.showLEDs(gcHeard)
	m.ledsW.Set(m.leds)
	return nil
}

// updateJoints updates the hot joints and their stiffness caps. A joint
// turns hot or critical on the tick a reading says so; it cools to a lower
// level only after its readings have said so for CoolHold without a break
// (see jointState.step), so one glitching reading never raises its cap.
func (m *Module) updateJoints(now time.Duration) {
	c := &m.cfg
	m.st.HotLeg = false
	for j := range hal.Joint(hal.NumJoints) {
		if !m.js.Present.Has(j) && m.js.Present != 0 {
			continue
		}
		s := &m.joint[j]
		temp, status, current := m.js.Temperature[j], m.js.TemperatureStatus[j], m.js.Current[j]
		if m.js.HasTemperature {
			s.observe(c, temp, now)
		}
		if m.js.HasCurrent && !math.IsNaN(current) {
			// A motor pushes against something in either direction.
			if math.Abs(current) >= c.MaxCurrent {
				s.over = min(s.over+1, c.CurrentTicks)
			} else {
				s.over = 0
			}
		}
		was := s.level
		s.step(c, s.raw(c, status), now)
		switch s.level {
		case critical:
			m.st.StiffnessCap[j] = 0
		case hot:
			m.st.StiffnessCap[j] = c.HotStiffness
		default:
			m.st.StiffnessCap[j] = 1
		}
		if !s.hasTemp && !m.noSensor {
			// No reading has been plausible yet, on hardware that reports
			// the joint's temperature or on a tick that does not say: how
			// hot it is is unknown.
			m.st.StiffnessCap[j] = 0
		}
		if s.level > cool {
			m.st.Hot |= 1 << j
			if j >= hal.LHipYawPitch && j <= hal.RAnkleRoll {
				m.st.HotLeg = true
			}
		} else {
			m.st.Hot &^= 1 << j
		}
		if s.level > cool && was == cool {
			m.act(now, ActHotJoint, "joint", hal.Joints[j].Name, "temperature", temp, "status", status,
				"current", current, "stiffness_cap", m.st.StiffnessCap[j])
		} else if was > cool && s.level == cool {
			m.act(now, ActJointCooled, "joint", hal.Joints[j].Name, "temperature", temp)
		}
	}
}

// observe takes a temperature reading: one outside the plausible range is
// ignored; the temperature gone by follows a rise at once and a fall at
// most at MaxCoolingRate.
func (s *jointState) observe(c *Config, temp float64, now time.Duration) {
	if !(temp >= c.MinTemperature && temp <= c.MaxTemperature) { // NaN too
		return
	}
	if s.hasTemp && temp < s.temp {
		dt := max(now-s.tempAt, 0)
		temp = max(temp, s.temp-c.MaxCoolingRate*dt.Seconds())
	}
	s.temp, s.tempAt, s.hasTemp = temp, now, true
}

// raw is the level this tick's readings give, with the hysteresis band
// below HotTemperature for a joint that is hot.
func (s *jointState) raw(c *Config, status uint8) level {
	switch {
	case status >= 3 || (s.hasTemp && s.temp >= c.CriticalTemperature):
		return critical
	case status >= c.HotStatus || s.over >= c.CurrentTicks || (s.hasTemp && s.temp >= c.HotTemperature):
		return hot
	case s.level > cool && s.hasTemp && s.temp >= c.HotTemperature-c.Hysteresis:
		return hot
	}
	return cool
}

// step moves the joint's level to the raw level r: up at once, down once
// the readings have stayed below the level for CoolHold, to the highest
// level they gave meanwhile.
func (s *jointState) step(c *Config, r level, now time.Duration) {
	switch {
	case r >= s.level:
		s.level, s.cooling = r, false
	case !s.cooling:
		s.cooling, s.coolSince, s.coolTo = true, now, r
	default:
		s.coolTo = max(s.coolTo, r)
		if now-s.coolSince >= c.CoolHold.D() {
			s.level, s.cooling = s.coolTo, false
		}
	}
}

// batteryCheck sits the robot down on a low battery at once. The
// battery counts as charging once its flag has read charging for
// BatteryHold without a break, and the sit ends once the battery has read
// charging, or charged above the band, for BatteryHold without a break: a
// flag or a charge that flickers keeps the robot sitting.
func (m *Module) batteryCheck(now time.Duration) {
	c := &m.cfg
	hold := c.BatteryHold.D()
	charging := m.charging.update(m.bat.Charging, now, hold)
	recovered := m.batteryOK.update(m.bat.Charging || m.bat.Charge >= c.LowBattery+c.BatteryHysteresis, now, hold)
	switch {
	case !m.st.LowBattery && !charging && m.bat.Charge <= c.LowBattery:
		m.st.LowBattery = true
		m.act(now, ActLowBattery, "charge", m.bat.Charge, "limit", c.LowBattery)
	case m.st.LowBattery && recovered:
		m.st.LowBattery = false
		m.act(now, ActResume, "why", "battery", "charge", m.bat.Charge, "charging", m.bat.Charging)
	}
}

// buttons: one chest-button press penalises or unpenalises while no
// GameController is heard (as SPL robots do). Touching the head's three
// pads together stops the robot safely at once (it sits down and goes
// limp); touching them together again, after letting go, for ResumeHold
// without a break resumes.
func (m *Module) buttons(now time.Duration, gcHeard bool) {
	if gcHeard && m.st.Penalised {
		m.st.Penalised = false // the GameController decides now
		m.act(now, ActUnpenalise, "why", "GameController heard")
	}
	if !gcHeard && m.bs.ChestPresses == 1 {
		m.st.Penalised = !m.st.Penalised
		if m.st.Penalised {
			m.act(now, ActPenalise, "by", "chest button")
		} else {
			m.act(now, ActUnpenalise, "by", "chest button")
		}
	}
	head := hal.Buttons(1<<hal.HeadFront | 1<<hal.HeadMiddle | 1<<hal.HeadRear)
	chord := m.bs.Buttons&head == head
	switch {
	case !m.st.SafeStop && chord && m.chordArmed:
		m.st.SafeStop, m.chordArmed = true, false
		m.resume.on = false
		m.act(now, ActSafeStop, "by", "head touch")
	case m.st.SafeStop && m.resume.update(chord && m.chordArmed, now, m.cfg.ResumeHold.D()):
		m.st.SafeStop, m.chordArmed = false, false
		m.resume.on = false
		m.act(now, ActResume, "why", "head touch", "held", m.cfg.ResumeHold.D())
	}
	if !chord {
		m.chordArmed = true
	}
}

// SPL colours.
var (
	off    = hal.RGB{}
	red    = hal.RGB{R: 1}
	green  = hal.RGB{G: 1}
	blue   = hal.RGB{B: 1}
	yellow = hal.RGB{R: 1, G: 1}
	white  = hal.RGB{R: 1, G: 1, B: 1}
)

// showLEDs: the chest shows the game state as the SPL rules ask (off in
// INITIAL and FINISHED, blue READY, yellow SET, green PLAYING, red while
// penalised); the right foot is white while we have the kick-off before
// PLAYING; the ears show the battery's charge (lit segments); the eyes are
// red while a safety action holds (a hot joint, low battery, safe stop).
func (m *Module) showLEDs(gcHeard bool) {
	l := &m.leds
	penalised := m.st.Penalised || (m.gc.Source != msg.GameSourceNone && m.gc.Penalised)
	switch {
	case penalised:
		l.Chest = red
	case m.gc.Source == msg.GameSourceNone && !gcHeard:
		l.Chest = off
	case m.gc.State == msg.StateReady:
		l.Chest = blue
	case m.gc.State == msg.StateSet:
		l.Chest = yellow
	case m.gc.State == msg.StatePlaying:
		l.Chest = green
	default:
		l.Chest = off
	}
	l.RFoot = off
	if m.gc.OurKickOff && m.gc.Source != msg.GameSourceNone && m.gc.State != msg.StatePlaying && m.gc.State != msg.StateFinished {
		l.RFoot = white
	}
	lit := int(m.bat.Charge*10 + 0.5)
	for i := range l.LEar {
		v := 0.0
		if i < lit {
			v = 1
		}
		l.LEar[i], l.REar[i] = v, v
	}
	eye := off
	if m.st.Hot != 0 || m.st.Sit {
		eye = red
	}
	for i := range l.LEye {
		l.LEye[i], l.REye[i] = eye, eye
	}
}
