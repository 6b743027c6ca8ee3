//go:build sim

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/simserver"
)

const buildName = "sim"

// buildDefaults sets the sim build's own defaults: a simulated
// GameController runs a kick-off, so that the robot plays at once.
func buildDefaults(c *Config) { c.GameController.Simulated.Enabled = true }

// newBackend constructs the simulation backend: the SimSpark client, to a
// server that listens (modes auto and server) or to the embedded simulator
// started here (auto when nothing listens, and embedded); or the loopback
// robot.
func newBackend(ctx context.Context, cfg *Config, log *slog.Logger) (hal.Device, error) {
	sc := cfg.SimBackend()
	addr := net.JoinHostPort(sc.Host, strconv.Itoa(sc.Port))
	mode := cfg.Sim.Mode
	if mode == "auto" {
		mode = "embedded"
		d := net.Dialer{Timeout: 300 * time.Millisecond}
		if c, err := d.DialContext(ctx, "tcp", addr); err == nil {
			c.Close()
			mode = "server"
		} else {
			log.Info("no SimSpark server listening; starting the embedded simulator", "addr", addr)
		}
	}
	switch mode {
	case "loopback":
		log.Info("simulation backend: loopback robot", "period", sc.Period.D())
		return loopback.New(loopback.NewWallClock(sc.Period.D())), nil
	case "embedded":
		return newEmbedded(cfg, sc, log)
	}
	b, err := sim.New(sc, log)
	if err != nil {
		return nil, err
	}
	log.Info("simulation backend: SimSpark", "addr", b.Addr(), "team", sc.Team, "player", sc.Player, "sync", sc.Sync)
	return b, nil
}

// embedded is the SimSpark backend connected to an in-process simulator,
// which it stops when closed.
type embedded struct {
	*sim.Backend
	stop func() error
}

func (e *embedded) Close() error { return errors.Join(e.Backend.Close(), e.stop()) }

// newEmbedded starts the embedded simulator on the backend's address and
// connects the backend to it over TCP, exactly as to the real server.
func newEmbedded(cfg *Config, sc sim.Config, log *slog.Logger) (hal.Device, error) {
	ec := cfg.Sim.Embedded
	scfg := simserver.DefaultConfig()
	scfg.AgentAddr = net.JoinHostPort(sc.Host, strconv.Itoa(sc.Port))
	scfg.MonitorAddr = ""
	if ec.MonitorPort != 0 {
		scfg.MonitorAddr = net.JoinHostPort(sc.Host, strconv.Itoa(ec.MonitorPort))
	}
	scfg.Cycle, scfg.Sync, scfg.Seed, scfg.NoVisionNoise = ec.Cycle.D(), ec.Sync, ec.Seed, ec.NoVisionNoise
	scfg.Physics = ec.Physics
	scfg.Logger = log.With("sim", "embedded")
	srv, err := simserver.New(scfg)
	if err != nil {
		return nil, fmt.Errorf("starting the embedded simulator: %w", err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(sctx) }()
	stop := func() error {
		cancel()
		if err := <-done; err != nil {
			return fmt.Errorf("embedded simulator: %w", err)
		}
		return nil
	}
	sc.Host, sc.Sync = "127.0.0.1", ec.Sync
	if h, p, err := net.SplitHostPort(srv.AgentAddr().String()); err == nil {
		sc.Host = h
		sc.Port, _ = strconv.Atoi(p)
	}
	b, err := sim.New(sc, log)
	if err != nil {
		return nil, errors.Join(err, stop())
	}
	log.Info("simulation backend: embedded simulator", "agent", srv.AgentAddr().String(), "monitor", scfg.MonitorAddr,
		"cycle", scfg.Cycle, "sync", scfg.Sync, "team", sc.Team, "player", sc.Player)
	return &embedded{Backend: b, stop: stop}, nil
}

// robotIDs: a simulated robot has no IDs of its own; -robot-ids gives them.
func robotIDs(context.Context, *Config) (config.RobotIDs, error) {
	return config.RobotIDs{}, errors.New("the simulated robot reports no body and head IDs: give them with -robot-ids BODY,HEAD")
}
