package simserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/proto/simspark"
)

// Server serves a World on the agent and trainer/monitor ports. Create it
// with New, then call Run once.
type Server struct {
	cfg     Config
	log     *slog.Logger
	agentLn net.Listener
	monLn   net.Listener
	world   *World

	// wake tells the main loop that something arrived: a new connection, a
	// (syn), a trainer command, a closed connection.
	wake chan struct{}

	mu      sync.Mutex
	fresh   []*agentConn // accepted, not yet seen by the main loop
	mons    []*monConn   // accepted monitor connections
	trainer []trainerMsg // trainer commands not yet applied
	closed  bool         // Run has returned

	// Owned by the main loop.
	conns    []*agentConn // connections with or without a robot
	freshTmp []*agentConn
	monsTmp  []*monConn
	buf      []byte
	monBuf   []byte
	nextMon  float64 // sim time of the next monitor update
	sceneN   int     // agents in the last monitor scene
	stats    Stats
	statsMu  sync.Mutex
	ran      bool
	scenes   atomic.Int64 // scene effectors parsed (for tests)

	// Camera views of the last cycle (Config.CameraViews).
	viewMu sync.Mutex
	views  []CameraView
	nViews int
}

// Stats are counters of a running server.
type Stats struct {
	Cycles          int64
	SimTime         float64 // seconds
	Agents          int
	Monitors        int
	Malformed       int64 // agent messages ignored
	DroppedAgents   int64 // agents removed for a write error or a sync timeout
	TrainerCommands int64
}

type trainerMsg struct {
	mc   *monConn
	cmds []trainerCmd
}

// New checks the configuration, creates the world and binds the ports
// (unless listeners are given), so the addresses are known before Run.
func New(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	w, err := NewWorld(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, world: w, wake: make(chan struct{}, 1)}
	s.agentLn = cfg.AgentListener
	if s.agentLn == nil {
		if s.agentLn, err = net.Listen("tcp", cfg.AgentAddr); err != nil {
			w.Close()
			return nil, fmt.Errorf("simserver: listening on the agent port: %w", err)
		}
	}
	s.monLn = cfg.MonitorListener
	if s.monLn == nil && cfg.MonitorAddr != "" {
		if s.monLn, err = net.Listen("tcp", cfg.MonitorAddr); err != nil {
			s.agentLn.Close()
			w.Close()
			return nil, fmt.Errorf("simserver: listening on the monitor port: %w", err)
		}
	}
	return s, nil
}

// AgentAddr is the agent port's address.
func (s *Server) AgentAddr() net.Addr { return s.agentLn.Addr() }

// MonitorAddr is the monitor port's address (nil when disabled).
func (s *Server) MonitorAddr() net.Addr {
	if s.monLn == nil {
		return nil
	}
	return s.monLn.Addr()
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return s.stats
}

// Close releases the listeners of a server whose Run was never called.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ran {
		return nil
	}
	s.ran = true
	err := s.agentLn.Close()
	if s.monLn != nil {
		err = errors.Join(err, s.monLn.Close())
	}
	return err
}

func (s *Server) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run serves until ctx is cancelled, then closes the ports and every
// connection and returns after all goroutines it started have ended. It
// returns nil on cancellation.
func (s *Server) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.ran {
		s.mu.Unlock()
		return errors.New("simserver: Run called twice or after Close")
	}
	s.ran = true
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { s.acceptAgents(ctx, &wg) })
	if s.monLn != nil {
		wg.Go(func() { s.acceptMonitors(ctx, &wg) })
	}
	wg.Go(func() {
		<-ctx.Done()
		s.agentLn.Close()
		if s.monLn != nil {
			s.monLn.Close()
		}
		s.mu.Lock()
		s.closed = true
		conns := append([]*agentConn(nil), s.fresh...)
		mons := append([]*monConn(nil), s.mons...)
		s.mu.Unlock()
		for _, c := range conns {
			c.c.Close()
		}
		for _, m := range mons {
			m.c.Close()
		}
	})
	s.log.Info("simserver running", "agent", s.AgentAddr().String(), "monitor", addrString(s.MonitorAddr()),
		"sync", s.cfg.Sync, "cycle", s.cfg.Cycle, "seed", s.cfg.Seed)
	err := s.loop(ctx)
	cancel()
	for _, c := range s.conns {
		c.c.Close()
	}
	wg.Wait()
	s.log.Info("simserver stopped", "cycles", s.world.Cycle(), "sim_time", s.world.Time())
	s.world.Close()
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

func (s *Server) acceptAgents(ctx context.Context, wg *sync.WaitGroup) {
	for id := 0; ; id++ {
		c, err := s.agentLn.Accept()
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("agent port: accept failed; no more agents", "err", err)
			}
			return
		}
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		ac := &agentConn{id: id, c: c, srv: s}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.fresh = append(s.fresh, ac)
		s.mu.Unlock()
		s.log.Info("agent connected", "conn", id, "remote", c.RemoteAddr().String())
		wg.Go(func() { ac.read(ctx) })
		s.signal()
	}
}

// loop is the simulation: collect what agents sent, step, send
// perceptions, wait for the next cycle.
func (s *Server) loop(ctx context.Context) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	next := time.Now()
	for {
		var err error
		if s.cfg.Sync {
			err = s.waitSync(ctx, timer)
		} else {
			next = next.Add(s.cfg.Cycle)
			if now := time.Now(); next.Before(now.Add(-5 * s.cfg.Cycle)) {
				next = now // far behind: do not burst
			}
			err = sleepUntil(ctx, timer, next)
		}
		if err != nil {
			return err
		}
		s.collect()
		s.world.Step()
		if s.cfg.CameraViews {
			s.publishViews()
		}
		s.send()
		s.monitor()
		s.mu.Lock()
		mons := len(s.mons)
		s.mu.Unlock()
		s.statsMu.Lock()
		s.stats.Cycles, s.stats.SimTime, s.stats.Agents = s.world.Cycle(), s.world.Time(), len(s.world.agents)
		s.stats.Monitors = mons
		s.statsMu.Unlock()
	}
}

func sleepUntil(ctx context.Context, t *time.Timer, when time.Time) error {
	d := time.Until(when)
	if d <= 0 {
		return nil
	}
	t.Reset(d)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// waitSync waits until every agent with a robot has sent (syn) for this
// cycle (or is gone). With no agents it waits for one, instead of spinning.
func (s *Server) waitSync(ctx context.Context, timer *time.Timer) error {
	var deadline time.Time
	if s.cfg.SyncTimeout > 0 {
		deadline = time.Now().Add(s.cfg.SyncTimeout)
	}
	for {
		ready, any := true, false
		for _, c := range s.conns {
			if c.agent == nil {
				continue
			}
			any = true
			c.mu.Lock()
			ok := c.now.syn || c.eof
			c.mu.Unlock()
			if !ok {
				ready = false
				break
			}
		}
		if ready && any || s.pendingWork() {
			return nil
		}
		var tc <-chan time.Time
		if !deadline.IsZero() {
			d := time.Until(deadline)
			if d <= 0 {
				s.dropSilent()
				return nil
			}
			timer.Reset(d)
			tc = timer.C
		}
		select {
		case <-s.wake:
		case <-tc:
		case <-ctx.Done():
			return ctx.Err()
		}
		if tc != nil && !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// pendingWork reports whether, with no agent waiting to be answered, a
// scene (a new robot) or a trainer command needs a cycle. Without either
// the world does not step, so that the steps before the first robot do not
// depend on timing.
func (s *Server) pendingWork() bool {
	for _, c := range s.conns {
		if c.agent != nil {
			return false
		}
	}
	s.mu.Lock()
	fresh := append(s.freshTmp[:0], s.fresh...)
	n := len(s.trainer)
	s.mu.Unlock()
	s.freshTmp = fresh[:0]
	if n > 0 {
		return true
	}
	for _, list := range [2][]*agentConn{s.conns, fresh} {
		for _, c := range list {
			c.mu.Lock()
			ok := c.now.scene
			c.mu.Unlock()
			if ok {
				return true
			}
		}
	}
	return false
}

// dropSilent disconnects agents that withheld (syn) past SyncTimeout.
func (s *Server) dropSilent() {
	for _, c := range s.conns {
		if c.agent == nil {
			continue
		}
		c.mu.Lock()
		ok := c.now.syn || c.eof
		c.mu.Unlock()
		if !ok {
			s.log.Warn("agent withheld (syn) too long; disconnecting", "conn", c.id, "timeout", s.cfg.SyncTimeout)
			s.countDrop()
			c.c.Close()
			c.mu.Lock()
			c.eof = true
			c.mu.Unlock()
		}
	}
}

func (s *Server) countDrop() {
	s.statsMu.Lock()
	s.stats.DroppedAgents++
	s.statsMu.Unlock()
}

// collect takes what every connection sent since the last cycle: new
// connections, scenes, effectors, closed connections, trainer commands.
func (s *Server) collect() {
	s.mu.Lock()
	if len(s.fresh) > 0 {
		s.conns = append(s.conns, s.fresh...)
		s.fresh = s.fresh[:0]
	}
	tr := s.trainer
	s.trainer = nil
	s.mu.Unlock()
	keep := s.conns[:0]
	for _, c := range s.conns {
		var in actions
		c.mu.Lock()
		eof := c.eof
		in = c.now
		c.now = c.later
		c.later.reset()
		c.mu.Unlock()
		if eof {
			if c.agent != nil {
				s.world.RemoveAgent(c.agent)
				s.log.Info("agent removed", "conn", c.id, "team", c.agent.Team(), "unum", c.agent.unum)
			}
			c.c.Close()
			continue
		}
		keep = append(keep, c)
		if c.agent == nil {
			if !in.scene {
				continue
			}
			c.agent = s.world.AddAgent()
			s.log.Info("agent created", "conn", c.id, "agent", c.agent.id)
		}
		in.scene, in.syn = false, false
		s.world.queue(c.agent, &in)
	}
	for i := len(keep); i < len(s.conns); i++ {
		s.conns[i] = nil
	}
	s.conns = keep
	for _, m := range tr {
		s.applyTrainer(m)
	}
}

// send encodes and writes every agent's perceptor message.
func (s *Server) send() {
	for _, c := range s.conns {
		if c.agent == nil {
			continue
		}
		b, off := simspark.BeginFrame(s.buf[:0])
		b = s.world.AppendPerception(b, c.agent)
		b = simspark.EndFrame(b, off)
		s.buf = b
		if s.cfg.WriteTimeout > 0 {
			c.c.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		}
		if _, err := c.c.Write(b); err != nil {
			s.log.Warn("agent: sending perceptions failed; disconnecting", "conn", c.id, "err", err)
			s.countDrop()
			c.c.Close()
			c.mu.Lock()
			c.eof = true
			c.mu.Unlock()
		}
	}
}

// agentConn is one agent connection.
type agentConn struct {
	id  int
	c   net.Conn
	srv *Server

	mu sync.Mutex
	// now holds what arrived for the coming cycle; later what arrived after
	// the agent's (syn) for it, in sync mode.
	now, later actions
	eof        bool

	// Owned by the main loop.
	agent *Agent

	// Owned by the reader goroutine.
	eff simspark.Effectors
	bad int64
}

// read parses the agent's messages as they arrive.
func (ac *agentConn) read(ctx context.Context) {
	s := ac.srv
	defer func() {
		ac.mu.Lock()
		ac.eof = true
		ac.mu.Unlock()
		s.signal()
	}()
	fr := simspark.NewFrameReader(bufio.NewReaderSize(ac.c, 16<<10), s.cfg.MaxFrame)
	for {
		msg, err := fr.Next()
		if err != nil {
			switch {
			case ctx.Err() != nil:
			case errors.Is(err, io.EOF):
				s.log.Info("agent disconnected", "conn", ac.id)
			default:
				s.log.Warn("agent connection failed", "conn", ac.id, "err", err)
			}
			return
		}
		if err := ac.handle(msg); err != nil {
			ac.bad++
			s.statsMu.Lock()
			s.stats.Malformed++
			s.statsMu.Unlock()
			if ac.bad <= 10 || ac.bad%1000 == 0 {
				s.log.Warn("agent message ignored", "conn", ac.id, "count", ac.bad, "err", err, "msg", clip(msg))
				if ac.bad == 10 {
					s.log.Warn("agent keeps sending bad messages; logging every 1000th", "conn", ac.id)
				}
			}
		}
	}
}

// handle parses one message and files its effectors for the main loop.
func (ac *agentConn) handle(msg []byte) error {
	if err := ac.eff.Parse(msg); err != nil {
		if hasTopSyn(msg) {
			// The message is ignored, but its (syn) still counts: a
			// sync-mode server must not stall on a garbled reply.
			ac.mu.Lock()
			dst := &ac.now
			if ac.now.syn && ac.srv.cfg.Sync {
				dst = &ac.later
			}
			dst.syn = true
			ac.mu.Unlock()
			ac.srv.signal()
		}
		return fmt.Errorf("parsing the effector message: %w", err)
	}
	ac.mu.Lock()
	dst := &ac.now
	if ac.now.syn && ac.srv.cfg.Sync {
		dst = &ac.later
	}
	err := dst.add(&ac.eff)
	wake := dst.syn || dst.scene
	ac.mu.Unlock()
	if err == nil && ac.eff.Has(simspark.EffScene) {
		ac.srv.scenes.Add(1)
	}
	if err == nil && len(ac.eff.Unknown) > 0 {
		// As the real server: unknown effectors are ignored, the rest
		// applies.
		err = fmt.Errorf("unknown effector %q ignored", clip(ac.eff.Bytes(ac.eff.Unknown[0])))
	}
	if wake {
		ac.srv.signal()
	}
	return err
}

// hasTopSyn reports whether msg has "(syn)" outside any list.
func hasTopSyn(msg []byte) bool {
	depth := 0
	for i, c := range msg {
		switch c {
		case '(':
			if depth == 0 && bytes.HasPrefix(msg[i:], []byte("(syn)")) {
				return true
			}
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
