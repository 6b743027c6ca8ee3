// Package perception turns sensor values into robotd's world model. For now it
// publishes the body state: torso angles and whether the robot has fallen.
// Later work adds the ball model, self-localisation and the team ball.
package perception

import (
	"math"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Config configures perception.
type Config struct {
	// FallAngle is the torso tilt beyond which the robot counts as fallen.
	FallAngle hal.Radians `json:"fall_angle"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config { return Config{FallAngle: hal.Deg(50)} }

// Module is the perception module.
type Module struct {
	cfg    Config
	angles *blackboard.Reader[hal.BodyAngles]
	body   *blackboard.Writer[msg.BodyState]
}

// New returns a perception module.
func New(cfg Config) *Module { return &Module{cfg: cfg} }

// Name implements runner.Module.
func (m *Module) Name() string { return "perception" }

// Wire implements runner.Module.
func (m *Module) Wire(b *blackboard.Board) error {
	var err error
	if m.angles, err = blackboard.Read(b, m.Name(), msg.BodyAnglesKey); err != nil {
		return err
	}
	m.body, err = blackboard.Write(b, m.Name(), msg.BodyStateKey)
	return err
}

// Tick implements runner.Module.
func (m *Module) Tick(t hal.Tick) error {
	a, _ := m.angles.Get()
	m.body.Set(msg.BodyState{Angles: a, Fall: Classify(a, m.cfg.FallAngle), Connected: t.Connected})
	return nil
}

// Classify says whether torso angles a mean a fall, and to which side.
func Classify(a hal.BodyAngles, limit hal.Radians) msg.Fall {
	p, r := float64(a.Pitch), float64(a.Roll)
	if math.Abs(p) < float64(limit) && math.Abs(r) < float64(limit) {
		return msg.Upright
	}
	if math.Abs(p) >= math.Abs(r) {
		if p > 0 {
			return msg.FallenFront
		}
		return msg.FallenBack
	}
	if r > 0 {
		return msg.FallenRight
	}
	return msg.FallenLeft
}
