package robot

import (
	"time"

	"github.com/robotd/robotd/config"
)

// Rules returns the allowed values and the documentation of every setting
// of c, by key as in robotd's configuration file: the runner's and each
// module's Rules under its section. behaviour.player is narrowed to
// 1 … 20: Identify sets it from the robot's player number.
func (c *Config) Rules() config.Rules {
	r := config.Rules{}
	r.Add("runner", c.Runner.Rules())
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

// Rules returns the allowed values and the documentation of every
// setting, keyed within the teamcomm section: Enabled's, the endpoint's
// (teamcomm.Config) under udp and the module's (teamcomm.ModuleConfig).
func (c *TeamCommConfig) Rules() config.Rules {
	r := config.Rules{
		"enabled": config.Bool().Doc("", "opens the team's UDP port; without it the robot neither sends nor hears team messages"),
	}
	r.Add("udp", c.UDP.Rules())
	return r.Add("", c.ModuleConfig.Rules())
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the gamecontroller section: the client's, the
// module's (gamecontroller.ModuleConfig) and the simulated
// GameController's under simulated (gamecontroller.ScriptConfig).
func (c *GameControllerConfig) Rules() config.Rules {
	r := config.Rules{
		"enabled":      config.Bool().Doc("", "listens for GameController packets; without it the game state is the backend's (the simulator's play modes)"),
		"listen":       config.HostPort(false, true).Doc("", "the address GameController packets are received on"),
		"return_every": config.Durations(0, time.Minute).Doc("", "how often a return packet goes to the GameController"),
		"return_port":  config.Port(false).Doc("", "the GameController's port for return packets"),
		"layout":       config.OneOf("spl", "hsl").Doc("", "the control packets' layout: the SPL's GameController 3 (\"spl\") or the Humanoid Soccer League's (\"hsl\", with the referee's stopped flag)"),
		"sources":      config.Each(config.IP(false)).Doc("", "the GameControllers' IP addresses (empty: the first one heard)"),
	}
	r.Add("", c.ModuleConfig.Rules())
	return r.Add("simulated", c.Simulated.Rules())
}
