package search

import (
	"math"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Inputs is what the distribution generators see in one tick.
type Inputs struct {
	// Dt is the time since the last update.
	Dt time.Duration
	// PoseValid and Pose are the robot's localisation.
	PoseValid bool
	Pose      hal.Pose2
	// Mislocalised is true when the localisation just re-localised or
	// believes it may be on the wrong side of the field.
	Mislocalised bool
	// BallSeen is true when the robot sees the ball this tick; Ball is its
	// field position.
	BallSeen bool
	Ball     hal.Vec2
	// Penalised is true while the robot is penalised.
	Penalised bool
}

// ComponentConfig configures the CompositeDistributionGenerator's
// components (the thesis §4.2.1.1). A zero time constant turns its
// component off.
type ComponentConfig struct {
	// BallSeen is the time constant with which the segment where the ball
	// is seen takes over the distribution (BallPosComponent).
	BallSeen config.Duration `json:"ball_seen"`
	// Entropy is the time constant with which the distribution converges
	// to uniform (EntropyComponent).
	Entropy config.Duration `json:"entropy"`
	// RobotPos is the time constant with which the robot's own segment
	// loses probability while the robot does not see the ball there
	// (RobotPosComponent).
	RobotPos config.Duration `json:"robot_pos"`
	// FlipReset resets the distribution to uniform on mislocalisation
	// (FlipFilterComponent).
	FlipReset bool `json:"flip_reset"`
	// PenalisedReset resets it while the robot is penalised
	// (PenalisedComponent).
	PenalisedReset bool `json:"penalised_reset"`
}

// DefaultComponentConfig returns the defaults.
func DefaultComponentConfig() ComponentConfig {
	return ComponentConfig{
		BallSeen:  config.Duration(300 * time.Millisecond),
		Entropy:   config.Duration(90 * time.Second),
		RobotPos:  config.Duration(3 * time.Second),
		FlipReset: true, PenalisedReset: true,
	}
}

// Composite is the CompositeDistributionGenerator: every tick each
// component transforms the robot's local distribution, which is then
// normalised.
type Composite struct {
	cfg  ComponentConfig
	grid Grid
	d    Dist
}

// NewComposite returns a generator over grid with a uniform distribution.
func NewComposite(cfg ComponentConfig, grid Grid) *Composite {
	c := &Composite{cfg: cfg, grid: grid}
	c.d.Uniform(grid.N())
	return c
}

// Reset makes the distribution uniform.
func (c *Composite) Reset() { c.d.Uniform(c.grid.N()) }

// Dist returns the local distribution.
func (c *Composite) Dist() *Dist { return &c.d }

// decay is 1 - exp(-dt/tau): the share of the way to its goal a
// first-order process with time constant tau goes in dt (0 if tau is 0).
func decay(dt time.Duration, tau config.Duration) float64 {
	if tau <= 0 || dt <= 0 {
		return 0
	}
	return 1 - math.Exp(-dt.Seconds()/tau.D().Seconds())
}

// Update applies the components for one tick.
func (c *Composite) Update(in *Inputs) {
	d := &c.d
	n := d.N
	// PenalisedComponent and FlipFilterComponent: start over.
	if c.cfg.PenalisedReset && in.Penalised || c.cfg.FlipReset && in.Mislocalised {
		d.Uniform(n)
		return
	}
	// BallPosComponent: the segment where the ball is seen takes over.
	if in.BallSeen {
		if a := decay(in.Dt, c.cfg.BallSeen); a > 0 {
			seg := c.grid.Index(in.Ball)
			for i := range n {
				d.P[i] *= 1 - a
			}
			d.P[seg] += a
		}
	}
	// EntropyComponent: towards uniform.
	if a := decay(in.Dt, c.cfg.Entropy); a > 0 {
		u := 1 / float64(n)
		for i := range n {
			d.P[i] += (u - d.P[i]) * a
		}
	}
	// RobotPosComponent: the robot's own segment, searched without seeing
	// the ball, loses probability.
	if in.PoseValid && !in.BallSeen {
		if a := decay(in.Dt, c.cfg.RobotPos); a > 0 {
			seg := c.grid.Index(hal.Vec2{X: float64(in.Pose.X), Y: float64(in.Pose.Y)})
			d.P[seg] *= 1 - a
		}
	}
	d.Normalise()
}

// TeamConfig configures the TeamDistributionGenerator.
type TeamConfig struct {
	// MaxAge is the age beyond which a teammate's distribution is left
	// out.
	MaxAge config.Duration `json:"max_age"`
}

// Mate is a teammate's input to the team distribution and the distributed
// utility: its local distribution (relative values), its search target,
// and how old they are.
type Mate struct {
	Player      uint8
	Age         time.Duration
	NSegments   int
	Dist        *[msg.MaxSegments]float32
	Searching   bool
	TargetValid bool
	Target      hal.Vec2
}

// Team combines the local distribution with the teammates' (the thesis
// §4.2.1.2): each segment's local probability times the sum of every
// robot's local probability for it (this robot's included), normalised.
// Teammates whose distribution is older than cfg.MaxAge, or over another
// grid, are left out.
func Team(cfg TeamConfig, local *Dist, mates []Mate, out *Dist) {
	n := local.N
	var sum [msg.MaxSegments]float64
	for i := range n {
		sum[i] = local.P[i]
	}
	for k := range mates {
		m := &mates[k]
		if m.NSegments != n || m.Dist == nil || m.Age > cfg.MaxAge.D() {
			continue
		}
		var s float64
		for i := range n {
			s += float64(max(m.Dist[i], 0))
		}
		if !(s > 0) || math.IsInf(s, 0) {
			continue
		}
		for i := range n {
			sum[i] += float64(max(m.Dist[i], 0)) / s
		}
	}
	out.N = n
	for i := range msg.MaxSegments {
		out.P[i] = 0
	}
	for i := range n {
		out.P[i] = local.P[i] * sum[i]
	}
	out.Normalise()
}
