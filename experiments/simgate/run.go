package simgate

import (
	"context"
	"fmt"
	"math"
	"net"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
)

// Sim is an embedded simulator in sync mode behind a gate, on free
// loopback ports.
type Sim struct {
	Gate   *Gate
	Server *simserver.Server
	Target simrun.Target

	stop context.CancelFunc
	done chan error
}

// Start starts the embedded simulator sc (Sync set, its listeners
// replaced) behind a new gate that holds every agent's reply until the
// caller lets it through. The simulator runs until Stop, whatever ctx
// does later: it stops after the robots.
func Start(ctx context.Context, sc simserver.Config) (*Sim, error) {
	g := New()
	g.Hold(math.Inf(-1))
	sc.Sync = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("simgate: agent port: %w", err)
	}
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("simgate: monitor port: %w", err)
	}
	sc.AgentListener, sc.MonitorListener = g.Listener(ln, true), g.Listener(mln, false)
	srv, err := simserver.New(sc)
	if err != nil {
		ln.Close()
		mln.Close()
		return nil, fmt.Errorf("simgate: %w", err)
	}
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s := &Sim{Gate: g, Server: srv, Target: simrun.Target{Agent: ln.Addr().String(), Trainer: mln.Addr().String()},
		stop: stop, done: make(chan error, 1)}
	go func() { s.done <- srv.Run(sctx) }()
	return s, nil
}

// Stop releases the gate, stops the simulator and returns its error.
func (s *Sim) Stop() error {
	s.Gate.Close()
	s.stop()
	if err := <-s.done; err != nil {
		return fmt.Errorf("simgate: simulator: %w", err)
	}
	return nil
}

// SyncConfig is a robot's backend configuration for a gated run: c with
// sync mode, a nominal period of at least period and long timeouts. A
// robot waiting for a sync-mode server waits for the other robots and for
// the controller; if it ticked on without the server meanwhile (every
// nominal period of wall time), its ticks would depend on the machine's
// speed.
func SyncConfig(c sim.Config, period time.Duration) sim.Config {
	c.Sync = true
	c.Period = config.Duration(max(c.Period.D(), period))
	c.ReadTimeout = config.Duration(max(c.ReadTimeout.D(), 30*time.Second))
	c.DeadTimeout = config.Duration(max(c.DeadTimeout.D(), 60*time.Second))
	c.HandshakeTimeout = config.Duration(max(c.HandshakeTimeout.D(), 60*time.Second))
	return c
}

// Attached adapts a SyncConfig for a robot on an attached server: the
// handshake timeout is simrun.JoinHandshake, so that a joining robot the
// server deadlocked on connects again after it (the other robots wait for
// the server meanwhile, shorter than their read timeout: no tick without
// it) instead of after a minute.
func Attached(c sim.Config) sim.Config {
	c.HandshakeTimeout = config.Duration(simrun.JoinHandshake)
	return c
}

// Trainer sends a trainer command before any robot is there. On the
// embedded simulator (srv not nil) it waits until the command was carried
// out, by the simulator's counters: with no robot connected a command is
// a step of its own, so the robots then join in a known cycle. A server
// gets a moment to take it (a sync-mode server without agents may not
// step, nor send monitor messages).
func Trainer(ctx context.Context, srv *simserver.Server, tr *simrun.Trainer, send func() error) error {
	before := int64(0)
	if srv != nil {
		before = srv.Stats().TrainerCommands
	}
	if err := send(); err != nil {
		return err
	}
	if srv == nil {
		if err := tr.WaitUpdate(ctx, 200*time.Millisecond); err != nil && ctx.Err() != nil {
			return err
		}
		return nil
	}
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	for srv.Stats().TrainerCommands <= before {
		select {
		case <-ctx.Done():
			return fmt.Errorf("simgate: waiting for the simulator to take a trainer command: %w", ctx.Err())
		case <-tk.C:
		}
	}
	return nil
}

// BeforeKickOff puts the world in BeforeKickOff, in which robots may beam
// to their starts, through Trainer; on a server (srv nil) with its game
// clock at 0, whose rules end the first half at 300 s of it.
//
// On a server it returns once the monitor reports BeforeKickOff: a robot
// that inits before the server took the command, in another play mode,
// cannot beam and stays at its spawn slot (simrun.Start does the same).
func BeforeKickOff(ctx context.Context, srv *simserver.Server, tr *simrun.Trainer) error {
	err := Trainer(ctx, srv, tr, func() error {
		if srv == nil {
			return tr.PlayModeFromZero("BeforeKickOff")
		}
		return tr.PlayMode("BeforeKickOff")
	})
	if err == nil && srv == nil {
		err = tr.WaitPlayMode(ctx, "BeforeKickOff", 10*time.Second)
	}
	return err
}

// Join waits until agent i (in accept order) is in the world. The robots
// join one per cycle while the others wait: robot i's scene is filed, the
// robots already there answer one message, the world steps with robot i
// in it, and every robot waits again.
func (g *Gate) Join(ctx context.Context, i int) error {
	if err := g.WaitScene(ctx, i); err != nil {
		return err
	}
	if i > 0 {
		g.Hold(g.LastTime(0) + 1e-6)
	}
	return g.WaitHeld(ctx)
}
