package main

import (
	"fmt"
	"net"
	"strconv"

	"github.com/robotd/robotd/backends/real"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/perception"
	"github.com/robotd/robotd/runner"
)

// Config is robotd's whole configuration: one section per part, defaults in
// DefaultConfig, a JSON file over them, flags over that. The same file works
// for both builds: each build uses its own backend's section.
type Config struct {
	Robot      RobotConfig       `json:"robot"`
	Log        LogConfig         `json:"log"`
	Metrics    MetricsConfig     `json:"metrics"`
	Runner     runner.Config     `json:"runner"`
	Perception perception.Config `json:"perception"`
	Behaviour  behaviour.Config  `json:"behaviour"`
	Motion     motion.Config     `json:"motion"`
	Real       real.Config       `json:"real"`
	Sim        SimConfig         `json:"sim"`
}

// RobotConfig says who this robot is.
type RobotConfig struct {
	// TeamName is the team's name (the SimSpark team name in simulation).
	TeamName string `json:"team_name"`
	// TeamNumber is the SPL team number, 1..99.
	TeamNumber int `json:"team_number"`
	// Player is the player number, 1..20.
	Player int `json:"player"`
}

// LogConfig configures logging.
type LogConfig struct {
	// Level is debug, info, warn or error.
	Level string `json:"level"`
	// Format is text or json.
	Format string `json:"format"`
}

// MetricsConfig configures the HTTP listener for /metrics and the debug
// endpoints.
type MetricsConfig struct {
	// Addr is host:port. Empty derives 127.0.0.1:<10000 + 100·team + player>,
	// so the robots of a simulated team on one machine do not collide.
	Addr string `json:"addr"`
}

// SimConfig configures the sim build's backend.
type SimConfig struct {
	// Period is the cycle of the loopback stand-in.
	Period config.Duration `json:"period"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		Robot:      RobotConfig{TeamName: "robotd", TeamNumber: 1, Player: 1},
		Log:        LogConfig{Level: "info", Format: "text"},
		Runner:     runner.DefaultConfig(),
		Perception: perception.DefaultConfig(),
		Behaviour:  behaviour.DefaultConfig(),
		Motion:     motion.DefaultConfig(),
		Real:       real.DefaultConfig(),
		Sim:        SimConfig{Period: config.Duration(10_000_000)},
	}
}

// MetricsAddr returns the metrics listener's address.
func (c *Config) MetricsAddr() string {
	if c.Metrics.Addr != "" {
		return c.Metrics.Addr
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(DefaultMetricsPort(c.Robot.TeamNumber, c.Robot.Player)))
}

// DefaultMetricsPort is 10000 + 100·team + player: team 1 player 2 gets 10102.
func DefaultMetricsPort(team, player int) int { return 10000 + 100*team + player }

// Validate checks the configuration.
func (c *Config) Validate() error {
	if c.Robot.TeamNumber < 0 || c.Robot.TeamNumber > 99 {
		return fmt.Errorf("config: robot.team_number %d is outside 0..99", c.Robot.TeamNumber)
	}
	if c.Robot.Player < 1 || c.Robot.Player > 20 {
		return fmt.Errorf("config: robot.player %d is outside 1..20", c.Robot.Player)
	}
	if c.Robot.TeamName == "" {
		return fmt.Errorf("config: robot.team_name is empty")
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		return fmt.Errorf("config: log.format %q: want text or json", c.Log.Format)
	}
	if _, err := parseLevel(c.Log.Level); err != nil {
		return err
	}
	if c.Sim.Period.D() <= 0 {
		return fmt.Errorf("config: sim.period must be positive")
	}
	return nil
}
