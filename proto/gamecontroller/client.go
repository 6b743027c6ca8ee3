package gamecontroller

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/internal/udpshare"
)

// ClientConfig configures a Client.
type ClientConfig struct {
	// Listen is the address control packets arrive on (":3838").
	Listen string
	// Team is our team number; Player our player number.
	Team, Player uint8
	// ReturnEvery is how often return packets go to the GameController
	// (it wants 0.5 to 2 Hz); 0 disables them.
	ReturnEvery time.Duration
	// ReturnPort is the GameController's return port (3939).
	ReturnPort int
	// Sources, if not empty, are the GameControllers' addresses: packets
	// from any of them are taken, from others dropped. If empty, the
	// first source heard is the GameController until the client is
	// closed, and packets from any other are dropped. Dropped packets are
	// counted (OtherSources) and logged at most once a second.
	Sources []netip.Addr
	// Layout is the control packets' layout (LayoutSPL or LayoutHSL).
	Layout Layout
}

// DefaultClientConfig returns the defaults for a robot.
func DefaultClientConfig(team, player uint8) ClientConfig {
	return ClientConfig{Listen: fmt.Sprintf(":%d", ControlPort), Team: team, Player: player, ReturnEvery: time.Second, ReturnPort: ReturnPort}
}

// Client receives GameController packets, keeps the newest, warns when they
// come from two sources, and sends return packets to the source.
type Client struct {
	cfg  ClientConfig
	conn *net.UDPConn
	log  *slog.Logger

	mu       sync.Mutex
	data     Data
	have     bool
	received time.Time
	source   *net.UDPAddr
	ret      func() Return

	packets, malformed, foreign, otherSources atomic.Uint64
	otherLogAt                                time.Time // guarded by mu
	otherQuiet                                int
}

// NewClient opens the control port. ret, if not nil, supplies the return
// packet's content each time one is sent.
func NewClient(cfg ClientConfig, ret func() Return, log *slog.Logger) (*Client, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	addr, err := net.ResolveUDPAddr("udp4", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("gamecontroller: listen address %q: %w", cfg.Listen, err)
	}
	// Shared: every robotd on this machine hears the GameController.
	conn, err := udpshare.Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("gamecontroller: listening on %v: %w", addr, err)
	}
	return &Client{cfg: cfg, conn: conn, log: log, ret: ret}, nil
}

// Addr returns the address the client listens on.
func (c *Client) Addr() *net.UDPAddr { return c.conn.LocalAddr().(*net.UDPAddr) }

// Latest returns the newest packet, when it arrived and from where; ok is
// false before the first.
func (c *Client) Latest() (d Data, at time.Time, from *net.UDPAddr, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.data, c.received, c.source, c.have
}

// ClientStats counts what the client saw.
type ClientStats struct {
	// Packets counts valid packets for our team; Malformed packets that do
	// not decode; Foreign valid packets of a game without our team;
	// OtherSources packets from a second GameController (dropped).
	Packets, Malformed, Foreign, OtherSources uint64
}

// Stats returns the counters.
func (c *Client) Stats() ClientStats {
	return ClientStats{c.packets.Load(), c.malformed.Load(), c.foreign.Load(), c.otherSources.Load()}
}

// Run receives until ctx is done; it sends return packets meanwhile.
func (c *Client) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	if c.cfg.ReturnEvery > 0 && c.ret != nil {
		wg.Go(func() { c.sendReturns(ctx) })
	}
	defer wg.Wait()
	var d Data
	return udpshare.Receive(ctx, c.conn, make([]byte, 512), "gamecontroller", func(p []byte, from netip.AddrPort) {
		if err := DecodeLayout(p, &d, c.cfg.Layout); err != nil {
			c.malformed.Add(1)
			c.log.Debug("dropping GameController packet", "from", from, "err", err)
			return
		}
		if d.TrueData {
			return // a monitor copy, not for robots
		}
		if _, ok := d.Team(c.cfg.Team); !ok {
			c.foreign.Add(1)
			return
		}
		c.accept(&d, net.UDPAddrFromAddrPort(from))
	})
}

func (c *Client) accept(d *Data, from *net.UDPAddr) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.trusted(from) {
		c.otherSources.Add(1)
		if now := time.Now(); !now.Before(c.otherLogAt) {
			var was net.IP
			if c.source != nil {
				was = c.source.IP
			}
			c.log.Warn("dropping GameController packets from another source", "gamecontroller", was, "other", from.IP, "configured", len(c.cfg.Sources) > 0, "suppressed", c.otherQuiet)
			c.otherLogAt, c.otherQuiet = now.Add(time.Second), 0
		} else {
			c.otherQuiet++
		}
		return
	}
	c.data, c.have, c.received, c.source = *d, true, time.Now(), from
	c.packets.Add(1)
}

// trusted reports whether packets from from are the GameController's: it
// is configured (Sources), or none is and from is the first source heard.
func (c *Client) trusted(from *net.UDPAddr) bool {
	ip, ok := netip.AddrFromSlice(from.IP)
	if !ok {
		return false
	}
	ip = ip.Unmap()
	if len(c.cfg.Sources) > 0 {
		for _, s := range c.cfg.Sources {
			if s.Unmap() == ip {
				return true
			}
		}
		return false
	}
	return c.source == nil || c.source.IP.Equal(from.IP)
}

func (c *Client) sendReturns(ctx context.Context) {
	t := time.NewTicker(c.cfg.ReturnEvery)
	defer t.Stop()
	var buf []byte
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c.mu.Lock()
		src := c.source
		c.mu.Unlock()
		if src == nil {
			continue
		}
		r := c.ret()
		r.PlayerNum, r.TeamNum = c.cfg.Player, c.cfg.Team
		var err error
		if buf, err = AppendReturn(buf[:0], &r); err != nil {
			c.log.Warn("not sending an invalid return packet", "err", err)
			continue
		}
		to := &net.UDPAddr{IP: src.IP, Port: c.cfg.ReturnPort}
		if _, err := c.conn.WriteToUDP(buf, to); err != nil {
			c.log.Debug("sending return packet", "to", to, "err", err)
		}
	}
}

// Close closes the client; Run returns.
func (c *Client) Close() error { return c.conn.Close() }
