package main

//go:generate go test -run ^TestConfigDoc$ -update .

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/robotd/robotd/backends/real"
	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/debugview"
	"github.com/robotd/robotd/robot"
)

// Config is robotd's whole configuration: one section per part, defaults in
// DefaultConfig, a JSON file over them, flags over that. The same file works
// for both builds: each build uses its own backend's section.
type Config struct {
	Robot   RobotConfig   `json:"robot"`
	Log     LogConfig     `json:"log"`
	Metrics MetricsConfig `json:"metrics"`
	// The runner's and the modules' sections (runner, perception,
	// behaviour, motion).
	robot.Config
	Real   real.Config  `json:"real"`
	Sim    SimConfig    `json:"sim"`
	Record RecordConfig `json:"record"`
	// Camera is the robot's camera calibration (its robot layer's).
	Camera CameraConfig `json:"camera"`

	// layers are the configuration files applied, in order; robotName
	// the robot's name in the configuration directory.
	layers    []string
	robotName string
	// hooks are a test's replacements (runWith).
	hooks hooks
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
	// Another host than a loopback address opens robot state to the
	// network; robotd then logs a warning.
	Addr string `json:"addr"`
	// MaxStreams bounds the debug page's live event streams at a time;
	// more are answered 503.
	MaxStreams int `json:"max_streams"`
	// AllowHosts are host names, besides localhost and the host of Addr,
	// that requests may be addressed to (their Host header); IP
	// addresses always may. Others are answered 421, which stops a web
	// page that rebinds its name to the robot (DNS rebinding).
	AllowHosts []string `json:"allow_hosts"`
}

// SimConfig configures the sim build's backend.
type SimConfig struct {
	// Mode is "auto" (use a SimSpark server if one listens at host:port,
	// else start the embedded simulator there), "server" (always the
	// server, waiting and reconnecting until it is there), "embedded"
	// (start robotd's own SimSpark-compatible simulator in-process, on
	// host:port and the embedded monitor port) or "loopback" (no
	// simulator: a robot whose commands become its sensors).
	Mode string `json:"mode"`
	sim.Config
	// Embedded configures the embedded simulator.
	Embedded EmbeddedConfig `json:"embedded"`
}

// EmbeddedConfig configures the embedded simulator (package simserver).
type EmbeddedConfig struct {
	// MonitorPort is the trainer/monitor port (3200 like the real
	// server); 0 turns it off.
	MonitorPort int `json:"monitor_port"`
	// Cycle is the simulation step: 10 ms like the SPL fork, 20 ms like
	// upstream.
	Cycle config.Duration `json:"cycle"`
	// Sync runs the simulator in sync mode, as fast as the agents answer
	// (the backend then answers every cycle with (syn)); otherwise it runs
	// in real time.
	Sync bool `json:"sync"`
	// Seed seeds the simulator's noise.
	Seed uint64 `json:"seed"`
	// NoVisionNoise turns the simulator's vision noise off.
	NoVisionNoise bool `json:"no_vision_noise"`
	// Physics is the simulator's world model: "kinematic", or "ode"
	// (rcssserver3d's dynamics on ODE; a build with -tags sim,ode).
	Physics string `json:"physics"`
}

// DefaultEmbeddedConfig returns the embedded simulator's defaults: the SPL
// fork's 10 ms cycle in real time, monitor port 3200, seed 1, kinematic.
func DefaultEmbeddedConfig() EmbeddedConfig {
	return EmbeddedConfig{MonitorPort: 3200, Cycle: config.Duration(10 * time.Millisecond), Seed: 1, Physics: "kinematic"}
}

// Rules returns the allowed values and the documentation of every
// setting, by key as in the configuration file: each section's rules
// under its name. Validate applies them; a test checks that every key has
// one, and docs/configuration.md is generated from them
// (TestConfigDoc).
func (c *Config) Rules() config.Rules {
	r := config.Rules{}
	r.Add("robot", c.Robot.Rules())
	r.Add("log", c.Log.Rules())
	r.Add("metrics", c.Metrics.Rules())
	r.Add("", c.Config.Rules())
	r.Add("real", c.Real.Rules())
	r.Add("sim", c.Sim.Rules())
	r.Add("record", c.Record.Rules())
	r.Add("camera", c.Camera.Rules())
	return r
}

// configRules are robotd's rules (Config.Rules).
var configRules = (&Config{}).Rules()

// Rules returns the rules of the robot section.
func (c *RobotConfig) Rules() config.Rules {
	return config.Rules{
		"team_name":   config.Text(1, 64).Doc("", "the team's name (the SimSpark team name in simulation)"),
		"team_number": config.Int(0, 99).Doc("", "this robot's SPL team number"),
		"player":      config.Int(1, 20).Doc("", "this robot's player number"),
	}
}

// Rules returns the rules of the log section.
func (c *LogConfig) Rules() config.Rules {
	return config.Rules{
		"level":  config.OneOf("debug", "info", "warn", "error", "DEBUG", "INFO", "WARN", "ERROR").Doc("", "the least level logged"),
		"format": config.OneOf("text", "json").Doc("", "the log lines' format"),
	}
}

// Rules returns the rules of the metrics section.
func (c *MetricsConfig) Rules() config.Rules {
	return config.Rules{
		"addr":        config.HostPort(true, true).Doc("", "the /metrics and debug listener; empty: `127.0.0.1:<10000 + 100·team + player>`"),
		"max_streams": config.Int(1, 1000).Doc("", "the most live event streams of the debug page at a time; more are answered 503"),
		"allow_hosts": config.Each(config.Host()).Doc("", "host names, besides localhost and the host of addr, that requests may be addressed to"),
	}
}

// Rules returns the rules of the sim section: the mode, the backend's
// (sim.Config) and the embedded simulator's.
func (c *SimConfig) Rules() config.Rules {
	r := config.Rules{
		"mode": config.OneOf("auto", "server", "embedded", "loopback").Doc("", "which simulator: auto (a server at host:port if one listens, else the embedded one), server, embedded, or loopback (none: commands become sensors)"),
	}
	r.Add("", c.Config.Rules())
	return r.Add("embedded", c.Embedded.Rules())
}

// Rules returns the rules of the embedded simulator's section.
func (c *EmbeddedConfig) Rules() config.Rules {
	return config.Rules{
		"monitor_port":    config.Port(true).Doc("", "the trainer/monitor port; 0 turns it off"),
		"cycle":           config.Durations(time.Millisecond, time.Second).Doc("", "the simulation step (10ms like the SPL fork, 20ms like upstream)"),
		"sync":            config.Bool().Doc("", "runs the simulator as fast as the agents answer instead of in real time"),
		"seed":            config.Uint().Doc("", "seeds the simulator's noise"),
		"no_vision_noise": config.Bool().Doc("", "turns the simulator's vision noise off"),
		"physics":         config.OneOf("kinematic", "ode").Doc("", "the simulator's world model: kinematic, or ode (a build with -tags sim,ode)"),
	}
}

// Rules returns the rules of the record section: enabled and the
// recorder's (record.Config).
func (c *RecordConfig) Rules() config.Rules {
	r := config.Rules{
		"enabled": config.Bool().Doc("", "records every tick's blackboard, for robotd replay"),
	}
	return r.Add("", c.Config.Rules())
}

// Rules returns the rules of the camera section: each camera's
// calibration under its name.
func (c *CameraConfig) Rules() config.Rules {
	r := config.Rules{}
	r.Add("top", c.Top.Rules("top"))
	return r.Add("bottom", c.Bottom.Rules("bottom"))
}

// Rules returns the rules of the calibration of the camera called name
// (top, bottom).
func (c *CameraCalibration) Rules(name string) config.Rules {
	offset := func(axis string) config.Rule {
		return config.Range(-maxCameraOffset, maxCameraOffset).Doc("rad", "the "+name+" camera's "+axis+" offset against the head's kinematic model")
	}
	intrinsic := func(what string) config.Rule {
		return config.Range(0, 10_000).Doc("px", "the "+name+" camera's "+what+" (0: nominal)")
	}
	return config.Rules{
		"roll":     offset("roll"),
		"pitch":    offset("pitch"),
		"yaw":      offset("yaw"),
		"focal_x":  intrinsic("focal length along x"),
		"focal_y":  intrinsic("focal length along y"),
		"centre_x": intrinsic("optical centre along x"),
		"centre_y": intrinsic("optical centre along y"),
	}
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	c := Config{
		Robot:   RobotConfig{TeamName: "robotd", TeamNumber: 1, Player: 1},
		Log:     LogConfig{Level: "info", Format: "text"},
		Metrics: MetricsConfig{MaxStreams: debugview.DefaultMaxStreams, AllowHosts: []string{}},
		Config:  robot.DefaultConfig(),
		Real:    real.DefaultConfig(),
		Sim:     SimConfig{Mode: "auto", Config: sim.DefaultConfig(), Embedded: DefaultEmbeddedConfig()},
		Record:  DefaultRecordConfig(),
	}
	buildDefaults(&c)
	c.identify()
	return c
}

// MetricsAddr returns the metrics listener's address.
func (c *Config) MetricsAddr() string {
	if c.Metrics.Addr != "" {
		return c.Metrics.Addr
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(DefaultMetricsPort(c.Robot.TeamNumber, c.Robot.Player)))
}

// MetricsOnLoopback reports whether the metrics listener's host is a
// loopback address or localhost.
func (c *Config) MetricsOnLoopback() bool {
	host, _, err := net.SplitHostPort(c.MetricsAddr())
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// SimBackend returns the SimSpark backend's configuration, with the robot's
// team name and player number.
func (c *Config) SimBackend() sim.Config {
	s := c.Sim.Config
	s.Team, s.Player = c.Robot.TeamName, c.Robot.Player
	return s
}

// identify gives the modules the robot's team and player numbers
// (robot.Identify), which the robot section sets.
func (c *Config) identify() {
	robot.Identify(&c.Config, c.Robot.TeamNumber, c.Robot.Player)
}

// DefaultMetricsPort is 10000 + 100·team + player: team 1 player 2 gets 10102.
func DefaultMetricsPort(team, player int) int { return 10000 + 100*team + player }

// Validate checks the configuration: every setting against its rule
// (Rules), then what relates settings to each other.
func (c *Config) Validate() error {
	if err := config.Check(c, configRules); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	s := c.SimBackend()
	if err := s.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := c.Config.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := c.Record.Validate(); err != nil {
		return fmt.Errorf("config: record: %w", err)
	}
	// The robot build's section, checked in both builds: one file serves
	// both, and -print-config must refuse what the daemon would.
	if err := c.Real.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := c.Camera.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return c.checkCameraSizes()
}
