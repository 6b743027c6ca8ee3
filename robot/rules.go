package robot

import (
	"time"

	"github.com/robotd/robotd/config"
)

// Rules returns the allowed values and the documentation of every setting
// of c, by key as in robotd's configuration file: each module's Rules
// under its section. behaviour.player is narrowed to 1 … 20: Identify
// sets it from the robot's player number.
func (c *Config) Rules() config.Rules {
	r := config.Rules{}
	r.Add("runner", runnerRules())
	r.Add("perception", c.Perception.Rules())
	r.Add("vision", c.Vision.Rules())
	r.Add("behaviour", c.Behaviour.Rules())
	r.Add("motion", c.Motion.Rules())
	r.Add("base", c.Base.Rules())
	r.Add("safety", c.Safety.Rules())
	r.Add("teamcomm", c.TeamComm.Rules())
	r.Add("gamecontroller", c.GameController.Rules())
	r["behaviour.player"] = config.Int(1, 20).Doc("", "this robot's player number (Identify sets it from robot.player)")
	return r
}

// runnerRules are the rules of the runner's settings (runner.Config).
func runnerRules() config.Rules {
	return config.Rules{
		"every":              config.Each(config.Int(0, 10_000)).Doc("", "runs a module only every Nth tick, by module name (0 or 1: every tick)"),
		"budget":             config.Durations(0, 10*time.Second).Doc("", "the time one module may take per tick before it counts as an overrun (0: the tick's period)"),
		"safe_state_timeout": config.Durations(time.Millisecond, time.Minute).Doc("", "bounds how long Run waits for the backend to reach the safe state on shutdown"),
		"stop_after":         config.Durations(0, 24*time.Hour).Doc("", "stops the run once this much tick time has passed (0: run until cancelled)"),
	}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the teamcomm section.
func (c *TeamCommConfig) Rules() config.Rules {
	return config.Rules{
		"enabled":          config.Bool().Doc("", "Enabled opens the team's UDP port (StartNetwork)"),
		"udp.team":         config.Int(0, 99).Doc("", "Team and Player identify this robot"),
		"udp.player":       config.Int(0, 20).Doc("", "Team and Player identify this robot"),
		"udp.port":         config.Port(true).Doc("", "Team and Player identify this robot"),
		"udp.broadcast":    config.IP(false).Doc("", "where messages go on a real network"),
		"udp.hub":          config.HostPort(true, false).Doc("", "Hub, if set (host:port), sends every message to a Hub instead of broadcasting, and listens on an ephemeral port: how several robots on one machine talk"),
		"udp.queue":        config.Int(1, 100_000).Doc("", "bounds the datagrams received and not yet taken by the tick (the oldest are dropped)"),
		"udp.allow":        config.Prefixes().Doc("", "the networks (CIDR, \"10.0.0.0/16\") team datagrams may come from; others are dropped and counted as spoofed"),
		"budget":           config.Int(0, 1_000_000).Doc("messages per game", "the team's messages per game (SPL: 1200) and GameLength the playing time they are for (two halves of 10 minutes), used when no GameController says what is left"),
		"game_length":      config.Durations(time.Second, 24*time.Hour).Doc("", "the team's messages per game (SPL: 1200) and GameLength the playing time they are for (two halves of 10 minutes), used when no GameController says what is left"),
		"reserve":          config.Int(0, 1_000_000).Doc("messages", "kept back for the end of the game"),
		"min_interval":     config.Durations(0, time.Hour).Doc("", "the shortest time between two messages of this robot"),
		"max_age":          config.Durations(0, time.Hour).Doc("", "MaxAge forgets a teammate not heard for this long"),
		"reassembly_slots": config.Int(1, 1000).Doc("", "ReassemblySlots and FragmentTimeout bound reassembly"),
		"fragment_timeout": config.Durations(0, time.Minute).Doc("", "ReassemblySlots and FragmentTimeout bound reassembly"),
	}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the gamecontroller section (the simulated
// GameController's under simulated).
func (c *GameControllerConfig) Rules() config.Rules {
	r := config.Rules{
		"enabled":          config.Bool().Doc("", "Enabled listens for GameController packets (StartNetwork); without it the game state is the backend's (the simulator's play modes)"),
		"listen":           config.HostPort(false, true).Doc("", "the control port's address (\":3838\")"),
		"return_every":     config.Durations(0, time.Minute).Doc("", "how often return packets go to the GameController; ReturnPort is its return port (3939)"),
		"return_port":      config.Port(false).Doc("", "how often return packets go to the GameController; ReturnPort is its return port (3939)"),
		"team":             config.Int(0, 99).Doc("", "our SPL team number; Player our player number"),
		"player":           config.Int(0, 20).Doc("", "our SPL team number; Player our player number"),
		"timeout":          config.Durations(0, time.Hour).Doc("", "Timeout: with no packet for this long the GameController counts as gone, and the backend's game state (the simulator's play modes) is used instead, if there is one"),
		"two_sources_hold": config.Durations(0, time.Hour).Doc("", "how long the two-sources warning stays up after the last packet from a second GameController"),
		"half_length":      config.Durations(time.Second, 24*time.Hour).Doc("", "a half's length, for the sim's game time"),
		"sources":          config.Each(config.IP(false)).Doc("", "the GameControllers' IP addresses"),
	}
	return r.Add("simulated", c.Simulated.Rules())
}
