package robot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/teamcomm"
)

// TeamCommConfig configures team communication (the "teamcomm" section).
type TeamCommConfig struct {
	// Enabled opens the team's UDP port (StartNetwork).
	Enabled bool `json:"enabled"`
	// UDP is the endpoint: port, broadcast address, or a Hub for several
	// robots on one machine.
	UDP teamcomm.Config `json:"udp"`
	teamcomm.ModuleConfig
}

// GameControllerConfig configures the GameController client and the
// game-state module (the "gamecontroller" section).
type GameControllerConfig struct {
	// Enabled listens for GameController packets (StartNetwork); without
	// it the game state is the backend's (the simulator's play modes).
	Enabled bool `json:"enabled"`
	// Listen is the control port's address (":3838").
	Listen string `json:"listen"`
	// ReturnEvery is how often return packets go to the GameController;
	// ReturnPort is its return port (3939).
	ReturnEvery config.Duration `json:"return_every"`
	ReturnPort  int             `json:"return_port"`
	// Layout is the control packets' layout: "spl" (the SPL's
	// GameController 3) or "hsl" (the Humanoid Soccer League's, used by
	// the SPL from 2026; it adds the referee's stopped flag).
	Layout string `json:"layout"`
	// Simulated, when enabled, replaces the GameController's packets by a
	// simulated GameController on the robot's tick time (a kick-off:
	// INITIAL, READY, SET, PLAYING); no port is opened for it.
	Simulated gamecontroller.ScriptConfig `json:"simulated"`
	// Sources are the GameControllers' IP addresses. Empty: the first
	// source heard is the GameController, and packets from any other are
	// dropped (SPL teams guard against a second, spoofing sender so).
	Sources []string `json:"sources"`
	gamecontroller.ModuleConfig
}

// DefaultTeamCommConfig returns the defaults: enabled, broadcasting on the
// team's SPL port.
func DefaultTeamCommConfig() TeamCommConfig {
	return TeamCommConfig{Enabled: true, UDP: teamcomm.DefaultConfig(), ModuleConfig: teamcomm.DefaultModuleConfig()}
}

// DefaultGameControllerConfig returns the defaults: enabled, on port
// 3838, returning a packet every second.
func DefaultGameControllerConfig() GameControllerConfig {
	return GameControllerConfig{Enabled: true, Listen: fmt.Sprintf(":%d", gamecontroller.ControlPort),
		ReturnEvery: config.Duration(time.Second), ReturnPort: gamecontroller.ReturnPort, Layout: gamecontroller.LayoutSPL.String(), Sources: []string{},
		Simulated: gamecontroller.DefaultScriptConfig(), ModuleConfig: gamecontroller.DefaultModuleConfig()}
}

// Identify sets the robot's team and player numbers wherever a module
// needs them (behaviour's role allocation and team message, team
// communication, the GameController's packets).
func Identify(cfg *Config, team, player int) {
	cfg.Behaviour.Player = player
	cfg.TeamComm.UDP.Team, cfg.TeamComm.UDP.Player = team, player
	cfg.GameController.Team, cfg.GameController.Player = team, player
}

// TeamModules returns the team-communication and game-state modules of a
// robot whose team messages go over t (an in-process teamcomm.Bus in
// simulation runs; StartNetwork uses UDP) and whose game state comes from
// gc (nil: the backend's only).
func TeamModules(cfg *Config, t teamcomm.Transport, gc gamecontroller.Source, met *teamcomm.Metrics, log *slog.Logger) []runner.Module {
	player := cfg.Behaviour.Player
	gcm := cfg.GameController.ModuleConfig
	if gcm.Player == 0 {
		gcm.Player = player
	}
	return []runner.Module{
		gamecontroller.NewModule(gcm, gc, log),
		teamcomm.NewModule(cfg.TeamComm.ModuleConfig, t, uint8(player), met),
	}
}

// Network is a robot's network I/O: the team's UDP endpoint and the
// GameController client, each receiving in its own goroutine, and the
// modules that bring them into the tick.
type Network struct {
	modules []runner.Module
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closers []func() error
	errs    chan error
}

// StartNetwork opens what cfg enables (call Identify first) and starts
// receiving until ctx is done or Close. reg, if not nil, gets the team
// communication's and the GameController client's metrics.
func StartNetwork(ctx context.Context, cfg *Config, reg prometheus.Registerer, log *slog.Logger) (*Network, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	n := &Network{cancel: cancel, errs: make(chan error, 2)}
	fail := func(err error) (*Network, error) {
		n.Close()
		return nil, err
	}
	var gcSrc gamecontroller.Source
	var gcMod *gamecontroller.Module
	if g := cfg.GameController; g.Simulated.Enabled {
		gcSrc = gamecontroller.NewScript(g.Simulated, g.Team, g.HalfLength.D())
	} else if g.Enabled {
		var client *gamecontroller.Client
		layout, err := gamecontroller.ParseLayout(g.Layout)
		if err != nil {
			return fail(fmt.Errorf("robot: gamecontroller.layout: %w", err))
		}
		cc := gamecontroller.ClientConfig{Listen: g.Listen, Team: uint8(g.Team), Player: uint8(g.Player),
			ReturnEvery: g.ReturnEvery.D(), ReturnPort: g.ReturnPort, Layout: layout}
		for _, s := range g.Sources {
			ip, err := netip.ParseAddr(s)
			if err != nil {
				return fail(fmt.Errorf("robot: gamecontroller.sources: %w", err))
			}
			cc.Sources = append(cc.Sources, ip)
		}
		client, err = gamecontroller.NewClient(cc, func() gamecontroller.Return { return gcMod.Return() }, log.With("part", "gamecontroller"))
		if err != nil {
			return fail(fmt.Errorf("robot: %w", err))
		}
		gcSrc = client
		n.closers = append(n.closers, client.Close)
		n.wg.Go(func() {
			if err := client.Run(ctx); err != nil {
				n.errs <- err
			}
		})
		if reg != nil {
			if err := registerClient(reg, client); err != nil {
				return fail(err)
			}
		}
	}
	gcMod = gamecontroller.NewModule(withPlayer(cfg.GameController.ModuleConfig, cfg.Behaviour.Player), gcSrc, log.With("part", "gamecontroller"))
	n.modules = append(n.modules, gcMod)
	if t := cfg.TeamComm; t.Enabled {
		comm, err := teamcomm.Listen(t.UDP, log.With("part", "teamcomm"))
		if err != nil {
			return fail(fmt.Errorf("robot: %w", err))
		}
		n.closers = append(n.closers, comm.Close)
		n.wg.Go(func() {
			if err := comm.Run(ctx); err != nil {
				n.errs <- err
			}
		})
		var met *teamcomm.Metrics
		if reg != nil {
			if met, err = teamcomm.NewMetrics(reg); err != nil {
				return fail(fmt.Errorf("robot: %w", err))
			}
			spoofed := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "robotd_teamcomm_spoofed_total",
				Help: "Team datagrams dropped as spoofed: from outside teamcomm.udp.allow, or with an impossible player number."},
				func() float64 { return float64(comm.Stats().Spoofed) })
			if err := reg.Register(spoofed); err != nil {
				return fail(fmt.Errorf("robot: registering team metrics: %w", err))
			}
		}
		n.modules = append(n.modules, teamcomm.NewModule(t.ModuleConfig, comm, uint8(t.UDP.Player), met))
	}
	return n, nil
}

func withPlayer(c gamecontroller.ModuleConfig, player int) gamecontroller.ModuleConfig {
	if c.Player == 0 {
		c.Player = player
	}
	return c
}

func registerClient(reg prometheus.Registerer, c *gamecontroller.Client) error {
	f := func(name, help string, v func(gamecontroller.ClientStats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "robotd_gamecontroller_" + name, Help: help},
			func() float64 { return float64(v(c.Stats())) })
	}
	for _, col := range []prometheus.Collector{
		f("packets_total", "GameController packets for our team.", func(s gamecontroller.ClientStats) uint64 { return s.Packets }),
		f("malformed_total", "GameController packets that did not decode.", func(s gamecontroller.ClientStats) uint64 { return s.Malformed }),
		f("foreign_total", "GameController packets of other games.", func(s gamecontroller.ClientStats) uint64 { return s.Foreign }),
		f("other_sources_total", "GameController packets from a second source (dropped).", func(s gamecontroller.ClientStats) uint64 { return s.OtherSources }),
	} {
		if err := reg.Register(col); err != nil {
			return fmt.Errorf("robot: registering GameController metrics: %w", err)
		}
	}
	return nil
}

// Modules returns the network's modules, to run with the robot's.
func (n *Network) Modules() []runner.Module { return n.modules }

// Close stops receiving, closes the sockets and waits for the goroutines.
// It returns the first receive error, if any.
func (n *Network) Close() error {
	n.cancel()
	var errs []error
	for _, c := range n.closers {
		if err := c(); err != nil && !errors.Is(err, context.Canceled) {
			errs = append(errs, err)
		}
	}
	n.closers = nil
	n.wg.Wait()
	for {
		select {
		case err := <-n.errs:
			errs = append(errs, err)
		default:
			return errors.Join(errs...)
		}
	}
}

// RegisterRoleMetrics registers behaviour's role switches on reg:
// robotd_behaviour_role_switches_total and
// robotd_behaviour_role_switches_per_minute, read from the board's
// behaviour.role entry when scraped.
func RegisterRoleMetrics(reg prometheus.Registerer, b *blackboard.Board) error {
	rd, err := blackboard.ReadOptional(b, "metrics", msg.RoleKey)
	if err != nil {
		return fmt.Errorf("robot: role metrics: %w", err)
	}
	var mu sync.Mutex
	get := func() msg.RoleState {
		mu.Lock()
		defer mu.Unlock()
		v, _ := rd.Get()
		return v
	}
	for _, c := range []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "robotd_behaviour_role_switches_total", Help: "Role changes since the robot started playing."},
			func() float64 { return float64(get().Switches) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "robotd_behaviour_role_switches_per_minute", Help: "Role changes in the last minute."},
			func() float64 { return get().SwitchesPerMinute }),
	} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("robot: role metrics: %w", err)
		}
	}
	return nil
}
