// Package motion turns behaviour's requests into joint commands. For now it
// has two generators: stand (move every joint towards the stand pose at a
// bounded speed and hold it) and relax (limp joints). Requests it has no
// generator for yet (walk, kick, get-up) are answered with stand, and the
// motion state says so. Later work adds the walk, kicks, head control and
// get-ups.
package motion

import (
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Config configures motion.
type Config struct {
	// StandPose is the stand pose, by joint.
	StandPose [hal.NumJoints]hal.Radians `json:"stand_pose"`
	// Stiffness is the stiffness of a standing robot.
	Stiffness float64 `json:"stiffness"`
	// MaxSpeed bounds every joint's speed while moving to a pose.
	MaxSpeed hal.RadPerSec `json:"max_speed"`
	// Tolerance is how close every joint must be for the pose to be settled.
	Tolerance hal.Radians `json:"tolerance"`
}

// DefaultConfig returns the defaults: a knees-bent stand with arms down.
func DefaultConfig() Config {
	var p [hal.NumJoints]hal.Radians
	p[hal.LShoulderPitch], p[hal.RShoulderPitch] = 1.45, 1.45
	p[hal.LShoulderRoll], p[hal.RShoulderRoll] = 0.15, -0.15
	p[hal.LElbowYaw], p[hal.RElbowYaw] = -1.2, 1.2
	p[hal.LElbowRoll], p[hal.RElbowRoll] = -0.4, 0.4
	p[hal.LHipPitch], p[hal.RHipPitch] = -0.4, -0.4
	p[hal.LKneePitch], p[hal.RKneePitch] = 0.8, 0.8
	p[hal.LAnklePitch], p[hal.RAnklePitch] = -0.4, -0.4
	return Config{StandPose: p, Stiffness: 0.7, MaxSpeed: 1.5, Tolerance: 0.01}
}

// Module is the motion module.
type Module struct {
	cfg    Config
	req    *blackboard.Reader[msg.MotionRequest]
	joints *blackboard.Reader[hal.JointSensors]
	cmdW   *blackboard.Writer[hal.JointCommand]
	stateW *blackboard.Writer[msg.MotionState]

	started bool
	cmd     hal.JointCommand
	meas    hal.JointSensors
}

// New returns a motion module.
func New(cfg Config) *Module { return &Module{cfg: cfg} }

// Name implements runner.Module.
func (m *Module) Name() string { return "motion" }

// Wire implements runner.Module.
func (m *Module) Wire(b *blackboard.Board) error {
	var err error
	if m.req, err = blackboard.Read(b, m.Name(), msg.MotionRequestKey); err != nil {
		return err
	}
	if m.joints, err = blackboard.Read(b, m.Name(), msg.JointsKey); err != nil {
		return err
	}
	if m.cmdW, err = blackboard.Write(b, m.Name(), msg.JointCommandKey); err != nil {
		return err
	}
	m.stateW, err = blackboard.Write(b, m.Name(), msg.MotionStateKey)
	return err
}

// Tick implements runner.Module.
func (m *Module) Tick(t hal.Tick) error {
	req, _ := m.req.Get()
	m.joints.Load(&m.meas)
	if !m.started || !t.Connected {
		// Start from where the joints are, and again after an outage.
		m.cmd.Angle = m.meas.Angle
		m.started = true
	}
	st := msg.MotionState{Interruptible: true}
	switch req.Kind {
	case msg.MotionRelax, msg.MotionNone:
		m.cmd.Angle = m.meas.Angle
		for j := range m.cmd.Stiffness {
			m.cmd.Stiffness[j] = 0
		}
		st.Active, st.Settled = msg.MotionRelax, true
	default:
		st.Active = msg.MotionStand
		st.Settled = MoveTowards(&m.cmd, &m.cfg.StandPose, m.cfg.MaxSpeed, t.Period.Seconds(), m.cfg.Tolerance)
		for j := range m.cmd.Stiffness {
			m.cmd.Stiffness[j] = m.cfg.Stiffness
		}
	}
	m.cmdW.Set(m.cmd)
	m.stateW.Set(st)
	return nil
}

// MoveTowards moves every joint of cmd towards target by at most speed·dt,
// clamped to the joint's limits, and reports whether all joints are within
// tol of the target.
func MoveTowards(cmd *hal.JointCommand, target *[hal.NumJoints]hal.Radians, speed hal.RadPerSec, dt float64, tol hal.Radians) bool {
	step := hal.Radians(float64(speed) * dt)
	settled := true
	for j := range hal.NumJoints {
		goal := hal.Joint(j).Clamp(target[j])
		d := goal - cmd.Angle[j]
		d = min(max(d, -step), step)
		cmd.Angle[j] = hal.Joint(j).Clamp(cmd.Angle[j] + d)
		if diff := goal - cmd.Angle[j]; diff > tol || diff < -tol {
			settled = false
		}
	}
	return settled
}
