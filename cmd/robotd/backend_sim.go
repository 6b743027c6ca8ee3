//go:build sim

package main

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/hal"
)

const buildName = "sim"

// newBackend constructs the simulation backend: the SimSpark client, or the
// built-in stand-in when no server listens (mode auto) or when asked.
func newBackend(ctx context.Context, cfg *Config, log *slog.Logger) (hal.Device, error) {
	sc := cfg.SimBackend()
	mode := cfg.Sim.Mode
	if mode == "auto" {
		mode = "loopback"
		d := net.Dialer{Timeout: 300 * time.Millisecond}
		if c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(sc.Host, itoa(sc.Port))); err == nil {
			c.Close()
			mode = "server"
		} else {
			log.Info("no SimSpark server listening; using the loopback stand-in robot", "addr", net.JoinHostPort(sc.Host, itoa(sc.Port)))
		}
	}
	if mode == "loopback" {
		log.Info("simulation backend: loopback robot", "period", sc.Period.D())
		return loopback.New(loopback.NewWallClock(sc.Period.D())), nil
	}
	b, err := sim.New(sc, log)
	if err != nil {
		return nil, err
	}
	log.Info("simulation backend: SimSpark", "addr", b.Addr(), "team", sc.Team, "player", sc.Player, "sync", sc.Sync)
	return b, nil
}
