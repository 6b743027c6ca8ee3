// Package omnibase is motion for an omnidirectional base (a Festo Robotino):
// it turns behaviour's motion request into a body velocity for the
// backend's hal.OmniBase, the way package motion turns it into joint
// commands for a NAO. Behaviour and perception cannot tell the
// difference: the motion state says what runs, and its odometry is the
// base's, in the previous tick's robot frame.
//
// A walk request drives at its speeds, or to its target (a proportional
// planner over the odometry, like the NAO walk's); the velocity changes
// by at most the configured accelerations per second. A kick is a push:
// the base drives forward through the ball for a while. A get-up has
// nothing to do. A stand stops the base with the deceleration ramp; a
// relax, a bumper contact, an emergency stop and a lost connection stop it
// at once.
package omnibase

import (
	"fmt"
	"math"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// TargetConfig configures walking to a target.
type TargetConfig struct {
	// Gain and TurnGain turn the remaining distance (m, rad) into a speed
	// (m/s, rad/s).
	Gain     float64 `json:"gain"`
	TurnGain float64 `json:"turn_gain"`
	// Tolerance and AngleTolerance are how close counts as arrived.
	Tolerance      hal.Metres  `json:"tolerance"`
	AngleTolerance hal.Radians `json:"angle_tolerance"`
}

// Config configures the module.
type Config struct {
	// MaxSpeed bounds the translation (of forward and left together) and
	// MaxTurn the rotation. The backend has limits of its own.
	MaxSpeed hal.MetresPerSec `json:"max_speed"`
	MaxTurn  hal.RadPerSec    `json:"max_turn"`
	// Accel (m/s²) and TurnAccel (rad/s²) bound how fast the commanded
	// velocity changes.
	Accel     float64 `json:"accel"`
	TurnAccel float64 `json:"turn_accel"`
	// Target configures walking to a target.
	Target TargetConfig `json:"target"`
	// PushSpeed and PushTime make a kick: forward at PushSpeed for
	// PushTime, turned towards the kick's direction.
	PushSpeed hal.MetresPerSec `json:"push_speed"`
	PushTime  config.Duration  `json:"push_time"`
}

// DefaultConfig returns the defaults, within a Robotino 3's limits
// (backends/robotino's defaults).
func DefaultConfig() Config {
	return Config{
		MaxSpeed: 0.5, MaxTurn: 1.5,
		Accel: 1.0, TurnAccel: 3.0,
		Target:    TargetConfig{Gain: 1.0, TurnGain: 1.5, Tolerance: 0.05, AngleTolerance: 0.1},
		PushSpeed: 0.4, PushTime: config.Duration(800 * time.Millisecond),
	}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the base section.
func (c *Config) Rules() config.Rules {
	return config.Rules{
		"max_speed":              config.Between(0, 5, true, false).Doc("m/s", "the largest commanded translation speed (forward and left together); the backend has limits of its own"),
		"max_turn":               config.Between(0, 20, true, false).Doc("rad/s", "the largest commanded turn rate"),
		"accel":                  config.Between(0, 100, true, false).Doc("m/s²", "bounds how fast the commanded translation changes"),
		"turn_accel":             config.Between(0, 100, true, false).Doc("rad/s²", "bounds how fast the commanded rotation changes"),
		"target.gain":            config.Between(0, 100, true, false).Doc("1/s", "turns the remaining distance to a target into a speed"),
		"target.turn_gain":       config.Between(0, 100, true, false).Doc("1/s", "turns the remaining angle to a target into a turn rate"),
		"target.tolerance":       config.Range(0, 10).Doc("m", "how close to a target counts as arrived"),
		"target.angle_tolerance": config.Range(0, math.Pi).Doc("rad", "how close to a target's heading counts as arrived"),
		"push_speed":             config.Range(0, 5).Doc("m/s", "a kick's speed: forward through the ball, turned towards the kick's direction"),
		"push_time":              config.Durations(0, 10*time.Second).Doc("", "how long a kick drives at push_speed"),
	}
}

// Validate checks every setting against Rules.
func (c *Config) Validate() error {
	if err := config.CheckSection("base", c, c.Rules()); err != nil {
		return err
	}
	return nil
}

// Module is the base's motion.
type Module struct {
	cfg Config

	req   *blackboard.Reader[msg.MotionRequest]
	base  *blackboard.Reader[hal.BaseState]
	velW  *blackboard.Writer[hal.BaseVelocity]
	stW   *blackboard.Writer[msg.MotionState]
	bs    hal.BaseState
	vel   hal.BaseVelocity
	last  time.Duration
	begun bool

	odo      hal.Pose2 // last tick's integrated odometry
	haveOdo  bool
	tracking bool
	lastReq  hal.Pose2
	target   hal.Pose2 // what is left, in the current robot frame
	pushLeft time.Duration
	pushDir  hal.Radians
}

// New returns the module.
func New(cfg Config) *Module { return &Module{cfg: cfg} }

// Name implements runner.Module.
func (m *Module) Name() string { return "base" }

// Wire implements runner.Module.
func (m *Module) Wire(b *blackboard.Board) error {
	var err error
	if m.req, err = blackboard.ReadOptional(b, m.Name(), msg.MotionRequestKey); err != nil {
		return err
	}
	if m.base, err = blackboard.Read(b, m.Name(), msg.BaseKey); err != nil {
		return fmt.Errorf("base: the backend has no omnidirectional base: %w", err)
	}
	if m.velW, err = blackboard.Write(b, m.Name(), msg.BaseVelocityKey); err != nil {
		return err
	}
	m.stW, err = blackboard.Write(b, m.Name(), msg.MotionStateKey)
	return err
}

// Tick implements runner.Module.
func (m *Module) Tick(t hal.Tick) error {
	dt := 0.0
	if m.begun {
		dt = min(max(t.Time-m.last, 0), 100*time.Millisecond).Seconds()
	}
	m.last, m.begun = t.Time, true
	req, rm := m.req.Get()
	if !rm.Valid() {
		req = msg.MotionRequest{}
	}
	bm := m.base.Load(&m.bs)
	odo := m.odometry(bm.Valid())

	st := msg.MotionState{Active: msg.MotionStand, Interruptible: true, Odometry: odo}
	var want hal.BaseVelocity
	stop := !t.Connected || !bm.Valid() || m.bs.Bumper || m.bs.EmergencyStop
	switch {
	case stop || req.Kind == msg.MotionRelax:
		m.pushLeft, m.tracking = 0, false
		if req.Kind == msg.MotionRelax {
			st.Active = msg.MotionRelax
		}
	case m.pushLeft > 0 || (req.Kind == msg.MotionKick && m.settled()):
		if m.pushLeft <= 0 {
			m.pushLeft, m.pushDir = m.cfg.PushTime.D(), req.Kick.Direction
		}
		m.pushLeft -= time.Duration(dt * float64(time.Second))
		s, c := math.Sincos(float64(m.pushDir))
		want = hal.BaseVelocity{VX: hal.MetresPerSec(c) * m.cfg.PushSpeed, VY: hal.MetresPerSec(s) * m.cfg.PushSpeed}
		st.Active, st.Interruptible = msg.MotionKick, false
	case req.Kind == msg.MotionWalk:
		want = m.walk(&req.Walk, odo)
		st.Active = msg.MotionWalk
	default:
		m.tracking = false
	}
	if stop || req.Kind == msg.MotionRelax {
		m.vel = hal.BaseVelocity{}
	} else {
		m.vel = m.ramp(want, dt)
	}
	st.Settled = m.settled()
	if st.Active == msg.MotionKick && m.pushLeft <= 0 {
		// The push is done; the base stops as a stand would.
		st.Interruptible = true
	}
	m.velW.Set(m.vel)
	m.stW.Set(st)
	return nil
}

// settled is true while the base stands still.
func (m *Module) settled() bool { return m.vel == hal.BaseVelocity{} }

// odometry returns the base's motion since the last tick, in the last
// tick's robot frame.
func (m *Module) odometry(valid bool) hal.Pose2 {
	if !valid {
		m.haveOdo = false
		return hal.Pose2{}
	}
	cur := m.bs.Odometry
	prev, ok := m.odo, m.haveOdo
	m.odo, m.haveOdo = cur, true
	if !ok {
		return hal.Pose2{}
	}
	return prev.Relative(cur)
}

// walk returns the velocity a walk request asks for, within the limits.
func (m *Module) walk(r *msg.WalkRequest, odo hal.Pose2) hal.BaseVelocity {
	if !r.ToTarget {
		m.tracking = false
		return m.limit(float64(r.Forward), float64(r.Left), float64(r.Turn))
	}
	if !m.tracking || r.Target != m.lastReq {
		m.target, m.lastReq, m.tracking = r.Target, r.Target, true
		m.target.Heading = m.target.Heading.Wrap()
	} else {
		// What is left, seen from where the base is now.
		m.target = odo.Relative(m.target)
	}
	t, c := m.target, &m.cfg.Target
	if math.Hypot(float64(t.X), float64(t.Y)) < float64(c.Tolerance) && math.Abs(float64(t.Heading)) < float64(c.AngleTolerance) {
		return hal.BaseVelocity{}
	}
	return m.limit(c.Gain*float64(t.X), c.Gain*float64(t.Y), c.TurnGain*float64(t.Heading))
}

// limit clamps a velocity to MaxSpeed and MaxTurn; a non-finite one is
// zero.
func (m *Module) limit(vx, vy, w float64) hal.BaseVelocity {
	if math.IsNaN(vx+vy+w) || math.IsInf(vx+vy+w, 0) {
		return hal.BaseVelocity{}
	}
	if s, lim := math.Hypot(vx, vy), float64(m.cfg.MaxSpeed); s > lim {
		vx, vy = vx*lim/s, vy*lim/s
	}
	lim := float64(m.cfg.MaxTurn)
	return hal.BaseVelocity{VX: hal.MetresPerSec(vx), VY: hal.MetresPerSec(vy), Omega: hal.RadPerSec(min(max(w, -lim), lim))}
}

// ramp moves the commanded velocity towards want by at most the
// accelerations over dt.
func (m *Module) ramp(want hal.BaseVelocity, dt float64) hal.BaseVelocity {
	v := m.vel
	dx, dy := float64(want.VX-v.VX), float64(want.VY-v.VY)
	if d, step := math.Hypot(dx, dy), m.cfg.Accel*dt; d > step {
		dx, dy = dx*step/d, dy*step/d
	}
	dw := float64(want.Omega - v.Omega)
	step := m.cfg.TurnAccel * dt
	dw = min(max(dw, -step), step)
	return hal.BaseVelocity{VX: v.VX + hal.MetresPerSec(dx), VY: v.VY + hal.MetresPerSec(dy), Omega: v.Omega + hal.RadPerSec(dw)}
}
