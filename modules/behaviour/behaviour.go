// Package behaviour turns the world model into requests to motion. For now it
// asks motion to stand while upright, to get up after a fall, and to relax
// while the backend is disconnected. Later work adds skills, roles, role
// allocation and the ball searches.
package behaviour

import (
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Config configures behaviour.
type Config struct {
	// GetUp enables asking for a get-up after a fall; if false the robot
	// relaxes instead.
	GetUp bool `json:"get_up"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config { return Config{GetUp: true} }

// Module is the behaviour module.
type Module struct {
	cfg    Config
	body   *blackboard.Reader[msg.BodyState]
	motion *blackboard.Reader[msg.MotionState]
	req    *blackboard.Writer[msg.MotionRequest]
}

// New returns a behaviour module.
func New(cfg Config) *Module { return &Module{cfg: cfg} }

// Name implements runner.Module.
func (m *Module) Name() string { return "behaviour" }

// Wire implements runner.Module.
func (m *Module) Wire(b *blackboard.Board) error {
	var err error
	if m.body, err = blackboard.Read(b, m.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	// Motion's state is feedback: use last tick's without ordering.
	if m.motion, err = blackboard.Use(b, m.Name(), msg.MotionStateKey); err != nil {
		return err
	}
	m.req, err = blackboard.Write(b, m.Name(), msg.MotionRequestKey)
	return err
}

// Tick implements runner.Module.
func (m *Module) Tick(hal.Tick) error {
	body, _ := m.body.Get()
	ms, _ := m.motion.Get()
	m.req.Set(Decide(m.cfg, body, ms))
	return nil
}

// Decide is the behaviour's decision for one tick.
func Decide(cfg Config, body msg.BodyState, _ msg.MotionState) msg.MotionRequest {
	switch {
	case !body.Connected:
		return msg.MotionRequest{Kind: msg.MotionRelax}
	case body.Fall != msg.Upright && cfg.GetUp:
		return msg.MotionRequest{Kind: msg.MotionGetUp}
	case body.Fall != msg.Upright:
		return msg.MotionRequest{Kind: msg.MotionRelax}
	}
	return msg.MotionRequest{Kind: msg.MotionStand}
}
