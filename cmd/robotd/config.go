package main

import (
	"fmt"
	"net"
	"strconv"

	"github.com/robotd/robotd/backends/real"
	"github.com/robotd/robotd/backends/sim"
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
	Record     RecordConfig      `json:"record"`
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
	// Mode is "auto" (use a SimSpark server if one listens at host:port,
	// else the built-in stand-in), "server" (always the server, waiting and
	// reconnecting until it is there) or "loopback" (the stand-in robot).
	Mode string `json:"mode"`
	sim.Config
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
		Sim:        SimConfig{Mode: "auto", Config: sim.DefaultConfig()},
		Record:     DefaultRecordConfig(),
	}
}

// MetricsAddr returns the metrics listener's address.
func (c *Config) MetricsAddr() string {
	if c.Metrics.Addr != "" {
		return c.Metrics.Addr
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(DefaultMetricsPort(c.Robot.TeamNumber, c.Robot.Player)))
}

// SimBackend returns the SimSpark backend's configuration, with the robot's
// team name and player number.
func (c *Config) SimBackend() sim.Config {
	s := c.Sim.Config
	s.Team, s.Player = c.Robot.TeamName, c.Robot.Player
	return s
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
	switch c.Sim.Mode {
	case "auto", "server", "loopback":
	default:
		return fmt.Errorf("config: sim.mode %q: want auto, server or loopback", c.Sim.Mode)
	}
	s := c.SimBackend()
	if err := s.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := c.Perception.Validate(); err != nil {
		return fmt.Errorf("config: perception: %w", err)
	}
	if err := c.Record.Validate(); err != nil {
		return fmt.Errorf("config: record: %w", err)
	}
	return nil
}
