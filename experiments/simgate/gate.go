// Package simgate makes runs on robotd's embedded simulator reproducible:
// a Gate between the simulator and its agents holds the world in a chosen
// cycle, so that robots join and trainer commands (and anything else a
// controller does while the world waits) land in known cycles whatever
// the machine's load. The find-ball trials and the matches use it.
package simgate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"sync"
)

// Gate makes a run on the embedded simulator deterministic. It wraps the
// simulator's agent and trainer/monitor listeners (simserver.Config's
// AgentListener and MonitorListener), so it sees every frame the server
// reads and every perceptor message it writes, and it can hold an agent's
// reply before the server reads it.
//
// A sync-mode server steps only when every agent has answered with (syn),
// so holding the replies to the messages of sim time ≥ holdAt stops the
// world right after that cycle: robots then join one per cycle, and
// trainer commands land in a known cycle, whatever the goroutines'
// interleaving and the machine's load. Without it, when a robot joins and
// when a trainer command is applied depend on wall-clock timing, and the
// same seed gives a different trial.
//
// "Handled" is when the server's reader comes back for the next frame:
// the simulator's readers finish filing a frame (a scene, a trainer
// command) before they read on.
type Gate struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	holdAt  float64       // agents' replies to messages of sim time ≥ holdAt are held
	agents  []*gateConn   // in accept order
	monitor []*gateConn
	closed  bool
}

func New() *Gate {
	return &Gate{changed: make(chan struct{}), holdAt: math.Inf(1)}
}

// notify wakes every waiter; g.mu is held.
func (g *Gate) notify() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// Listener wraps ln; agent selects the agent port's behaviour (holding,
// message times) over the monitor port's (counting handled frames only).
func (g *Gate) Listener(ln net.Listener, agent bool) net.Listener {
	return &gateListener{Listener: ln, g: g, agent: agent}
}

// Hold sets the sim time from which agents' replies are held; +Inf
// releases everything.
func (g *Gate) Hold(t float64) {
	g.mu.Lock()
	g.holdAt = t
	g.notify()
	g.mu.Unlock()
}

// Close releases every held reader for good (the run is over).
func (g *Gate) Close() {
	g.mu.Lock()
	g.closed = true
	g.holdAt = math.Inf(1)
	g.notify()
	g.mu.Unlock()
}

// wait waits until cond (called with g.mu held) is true.
func (g *Gate) wait(ctx context.Context, what string, cond func() bool) error {
	for {
		g.mu.Lock()
		ok, ch := cond(), g.changed
		g.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("simgate: waiting for %s: %w", what, ctx.Err())
		}
	}
}

// AgentsAccepted returns how many agent connections were accepted.
func (g *Gate) AgentsAccepted() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.agents)
}

// WaitScene waits until the server has filed agent connection i's first
// frame (its scene).
func (g *Gate) WaitScene(ctx context.Context, i int) error {
	return g.wait(ctx, fmt.Sprintf("agent %d's scene", i), func() bool {
		return i < len(g.agents) && (g.agents[i].handled >= 1 || g.agents[i].eof)
	})
}

// WaitHeld waits until every agent whose scene was filed has been sent a
// message and has its reply held (or has gone).
func (g *Gate) WaitHeld(ctx context.Context) error {
	return g.wait(ctx, "the robots to reach the hold", func() bool {
		for _, c := range g.agents {
			if c.eof || c.handled == 0 {
				continue
			}
			if !c.held || c.last < g.holdAt {
				return false
			}
		}
		return true
	})
}

// LastTime returns the sim time of the last message sent to agent i.
func (g *Gate) LastTime(i int) float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if i >= len(g.agents) {
		return math.Inf(-1)
	}
	return g.agents[i].last
}

// MonitorHandled returns how many trainer frames the server has filed.
func (g *Gate) MonitorHandled() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, c := range g.monitor {
		n += c.handled
	}
	return n
}

// WaitMonitorHandled waits until the server has filed n trainer frames.
func (g *Gate) WaitMonitorHandled(ctx context.Context, n int) error {
	return g.wait(ctx, "the simulator to take the trainer commands", func() bool {
		got := 0
		for _, c := range g.monitor {
			got += c.handled
		}
		return got >= n
	})
}

type gateListener struct {
	net.Listener
	g     *Gate
	agent bool
}

func (l *gateListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	gc := &gateConn{Conn: c, in: bufio.NewReaderSize(c, 64<<10), g: l.g, agent: l.agent, last: math.Inf(-1)}
	l.g.mu.Lock()
	if l.agent {
		l.g.agents = append(l.g.agents, gc)
	} else {
		l.g.monitor = append(l.g.monitor, gc)
	}
	l.g.notify()
	l.g.mu.Unlock()
	return gc, nil
}

// maxGateFrame bounds a frame read through the gate.
const maxGateFrame = 1 << 20

// gateConn is one connection as the server sees it: its reads come one
// frame at a time.
type gateConn struct {
	net.Conn
	in    *bufio.Reader // frames arrive whole: one read each
	g     *Gate
	agent bool

	// The reader's (the server's reader goroutine).
	buf  []byte
	rem  []byte
	read int // frames returned so far

	// Under g.mu.
	handled int     // frames the server has filed
	held    bool    // the reader waits at the hold
	last    float64 // sim time of the last message written
	eof     bool
}

// Read returns the current frame's bytes; at a frame's boundary it first
// records the previous frame as filed, reads the next frame from the
// connection, and holds it while the gate says so.
func (c *gateConn) Read(p []byte) (int, error) {
	if len(c.rem) == 0 {
		g := c.g
		g.mu.Lock()
		c.handled = c.read
		g.notify()
		g.mu.Unlock()
		if err := c.next(); err != nil {
			g.mu.Lock()
			c.eof = true
			g.notify()
			g.mu.Unlock()
			return 0, err
		}
		if c.agent && c.read > 0 {
			if err := c.waitHold(); err != nil {
				return 0, err
			}
		}
		c.read++
	}
	n := copy(p, c.rem)
	c.rem = c.rem[n:]
	return n, nil
}

// next reads one whole frame from the connection.
func (c *gateConn) next() error {
	var hdr [4]byte
	if _, err := io.ReadFull(c.in, hdr[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxGateFrame {
		return fmt.Errorf("simgate: gate: a frame of %d bytes", n)
	}
	if cap(c.buf) < int(n)+4 {
		c.buf = make([]byte, int(n)+4)
	}
	c.buf = c.buf[:int(n)+4]
	copy(c.buf, hdr[:])
	if _, err := io.ReadFull(c.in, c.buf[4:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	c.rem = c.buf
	return nil
}

// waitHold blocks while the reply answers a message at or after holdAt.
// The reply was read after the message was written, so last is that
// message's time.
func (c *gateConn) waitHold() error {
	g := c.g
	for {
		g.mu.Lock()
		if c.eof {
			g.mu.Unlock()
			return net.ErrClosed
		}
		if g.closed || c.last < g.holdAt {
			if c.held {
				c.held = false
				g.notify()
			}
			g.mu.Unlock()
			return nil
		}
		if !c.held {
			c.held = true
			g.notify()
		}
		ch := g.changed
		g.mu.Unlock()
		<-ch
	}
}

// Write records a perceptor message's sim time before sending it.
func (c *gateConn) Write(p []byte) (int, error) {
	if c.agent {
		if t, ok := messageTime(p); ok {
			c.g.mu.Lock()
			c.last = t
			c.g.notify()
			c.g.mu.Unlock()
		}
	}
	return c.Conn.Write(p)
}

// Close also releases the reader from a hold.
func (c *gateConn) Close() error {
	err := c.Conn.Close()
	c.g.mu.Lock()
	c.eof = true
	c.g.notify()
	c.g.mu.Unlock()
	return err
}

var nowTag = []byte("(now ")

// messageTime finds "(now T)" in a perceptor frame.
func messageTime(p []byte) (float64, bool) {
	i := bytes.Index(p, nowTag)
	if i < 0 {
		return 0, false
	}
	s := p[i+len(nowTag):]
	j := bytes.IndexByte(s, ')')
	if j < 0 {
		return 0, false
	}
	t, err := strconv.ParseFloat(string(s[:j]), 64)
	return t, err == nil
}
