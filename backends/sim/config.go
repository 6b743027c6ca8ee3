package sim

import (
	"fmt"
	"time"

	"github.com/robotd/robotd/config"
)

// Config configures the SimSpark backend.
type Config struct {
	// Host and Port are the server's agent port.
	Host string `json:"host"`
	Port int    `json:"port"`
	// Scene is the robot model.
	Scene string `json:"scene"`
	// Team and Player are sent in init. robotd fills them from its robot
	// section, so they are not part of the sim section of a config file.
	Team   string `json:"-"`
	Player int    `json:"-"`
	// Beam is the start pose: x, y (m) and heading (deg) in the team's frame.
	Beam [3]float64 `json:"beam"`
	// Sync answers every cycle with (syn), for a server in sync mode.
	Sync bool `json:"sync"`
	// Period is the nominal cycle, used before the server's time is known
	// and to pace ticks while disconnected.
	Period config.Duration `json:"period"`
	// DialTimeout bounds one connection attempt; ReadTimeout how long a
	// silent server is tolerated before it counts as gone.
	DialTimeout config.Duration `json:"dial_timeout"`
	ReadTimeout config.Duration `json:"read_timeout"`
	// BackoffMin and BackoffMax bound the wait between reconnects.
	BackoffMin config.Duration `json:"backoff_min"`
	BackoffMax config.Duration `json:"backoff_max"`
	// FilterAlpha is the angle filter's gyro weight per cycle.
	FilterAlpha float64 `json:"filter_alpha"`
	// Vision configures the vision adapter and sonars.
	Vision VisionConfig `json:"vision"`
}

// DefaultConfig returns the defaults: the SPL fork's 10 ms cycle on
// 127.0.0.1:3100, player 1 of team "robotd" beamed to (-2, 0) facing the
// opponent goal.
func DefaultConfig() Config {
	return Config{
		Host: "127.0.0.1", Port: 3100, Scene: "rsg/agent/nao/nao.rsg",
		Team: "robotd", Player: 1, Beam: [3]float64{-2, 0, 0},
		Period:      config.Duration(10 * time.Millisecond),
		DialTimeout: config.Duration(500 * time.Millisecond),
		ReadTimeout: config.Duration(time.Second),
		BackoffMin:  config.Duration(100 * time.Millisecond),
		BackoffMax:  config.Duration(5 * time.Second),
		FilterAlpha: 0.98,
		Vision:      DefaultVisionConfig(),
	}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.Port <= 0 || c.Port > 65535:
		return fmt.Errorf("sim: port %d out of range", c.Port)
	case c.Player < 1 || c.Player > 20:
		return fmt.Errorf("sim: player %d outside 1..20", c.Player)
	case c.Team == "" || len(c.Team) > 16:
		return fmt.Errorf("sim: team name %q must have 1 to 16 characters", c.Team)
	case c.Period.D() <= 0 || c.DialTimeout.D() <= 0 || c.ReadTimeout.D() <= 0:
		return fmt.Errorf("sim: period, dial_timeout and read_timeout must be positive")
	case c.BackoffMin.D() <= 0 || c.BackoffMax.D() < c.BackoffMin.D():
		return fmt.Errorf("sim: need 0 < backoff_min ≤ backoff_max")
	case c.FilterAlpha < 0 || c.FilterAlpha > 1:
		return fmt.Errorf("sim: filter_alpha %v outside 0..1", c.FilterAlpha)
	case c.Vision.FOV <= 0 || c.Vision.FOV > 120:
		return fmt.Errorf("sim: vision.fov_deg %v outside (0, 120]", c.Vision.FOV)
	}
	return nil
}
