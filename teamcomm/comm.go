package teamcomm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/config"
)

// Config configures an endpoint.
type Config struct {
	// Team and Player identify this robot. The team's port is 10000 + Team
	// unless Port is set.
	Team   int `json:"team"`
	Player int `json:"player"`
	Port   int `json:"port"`
	// Broadcast is where messages go on a real network.
	Broadcast string `json:"broadcast"`
	// Hub, if set (host:port), sends every message to a Hub instead of
	// broadcasting, and listens on an ephemeral port: how several robots on
	// one machine talk.
	Hub string `json:"hub"`
	// ReassemblySlots and FragmentTimeout bound reassembly.
	ReassemblySlots int             `json:"reassembly_slots"`
	FragmentTimeout config.Duration `json:"fragment_timeout"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Broadcast: "255.255.255.255", ReassemblySlots: 8, FragmentTimeout: config.Duration(2 * time.Second)}
}

// TeamPort returns the SPL team-message port of a team.
func TeamPort(team int) int { return 10000 + team }

// Stats counts an endpoint's traffic.
type Stats struct {
	Sent, Received, Malformed, Dropped, Duplicates, Unhandled uint64
}

// Comm is a team-communication endpoint.
type Comm struct {
	cfg  Config
	conn *net.UDPConn
	dest *net.UDPAddr
	log  *slog.Logger

	mu       sync.Mutex // guards sending
	seq      uint16
	sendBuf  []byte
	handlers [128]func(h Header, payload []byte)

	sent, received, malformed, unhandled atomic.Uint64
	reasm                                *Reassembler // receive goroutine only
	reasmDropped, reasmDup               atomic.Uint64
}

// Listen opens an endpoint.
func Listen(cfg Config, log *slog.Logger) (*Comm, error) {
	if cfg.Player < 1 || cfg.Player > 255 {
		return nil, fmt.Errorf("teamcomm: player %d outside 1..255", cfg.Player)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	port := cfg.Port
	if port == 0 {
		port = TeamPort(cfg.Team)
	}
	var laddr, dest *net.UDPAddr
	var err error
	if cfg.Hub != "" {
		if dest, err = net.ResolveUDPAddr("udp4", cfg.Hub); err != nil {
			return nil, fmt.Errorf("teamcomm: hub address %q: %w", cfg.Hub, err)
		}
		laddr = &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}
	} else {
		if dest, err = net.ResolveUDPAddr("udp4", net.JoinHostPort(cfg.Broadcast, strconv.Itoa(port))); err != nil {
			return nil, fmt.Errorf("teamcomm: broadcast address: %w", err)
		}
		laddr = &net.UDPAddr{Port: port}
	}
	conn, err := net.ListenUDP("udp4", laddr)
	if err != nil {
		return nil, fmt.Errorf("teamcomm: listening on %v: %w", laddr, err)
	}
	if cfg.Hub == "" {
		if err := setBroadcast(conn); err != nil {
			conn.Close()
			return nil, err
		}
	}
	c := &Comm{cfg: cfg, conn: conn, dest: dest, log: log,
		reasm: NewReassembler(cfg.ReassemblySlots, cfg.FragmentTimeout.D())}
	if cfg.Hub != "" {
		if err := c.Send(TypeHello, nil); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return c, nil
}

// LocalAddr returns the endpoint's address.
func (c *Comm) LocalAddr() net.Addr { return c.conn.LocalAddr() }

// Handle registers h for messages of type typ, decoded by decode. Register
// before Run. h runs on Run's goroutine.
func Handle[M any](c *Comm, typ uint8, decode func([]byte, *M) error, h func(from uint8, m *M)) {
	var m M
	c.handlers[typ&^fragFlag] = func(hd Header, payload []byte) {
		if err := decode(payload, &m); err != nil {
			c.malformed.Add(1)
			c.log.Debug("team message does not decode", "type", hd.Type, "from", hd.Player, "err", err)
			return
		}
		h(hd.Player, &m)
	}
}

// Send sends a message of type typ, fragmenting it if needed.
func (c *Comm) Send(typ uint8, payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	var err error
	c.sendBuf, err = AppendDatagrams(c.sendBuf, typ, uint8(c.cfg.Player), c.seq, payload, func(d []byte) error {
		if _, err := c.conn.WriteToUDP(d, c.dest); err != nil {
			return fmt.Errorf("teamcomm: sending to %v: %w", c.dest, err)
		}
		c.sent.Add(1)
		return nil
	})
	return err
}

// Run receives and dispatches messages until ctx is done. now gives the
// time used for fragment timeouts.
func (c *Comm) Run(ctx context.Context, now func() time.Duration) error {
	stop := context.AfterFunc(ctx, func() { c.conn.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	buf := make([]byte, 2048)
	for {
		n, _, err := c.conn.ReadFromUDP(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("teamcomm: receiving: %w", err)
		}
		c.dispatch(buf[:n], now())
	}
}

func (c *Comm) dispatch(d []byte, now time.Duration) {
	h, payload, err := ParseHeader(d)
	if err != nil {
		c.malformed.Add(1)
		return
	}
	if int(h.Player) == c.cfg.Player || h.Type == TypeHello {
		return // our own broadcast, or a hub hello
	}
	c.received.Add(1)
	if h.Frags > 0 {
		var ok bool
		payload, ok = c.reasm.Add(h, payload, now)
		c.reasmDropped.Store(c.reasm.Dropped)
		c.reasmDup.Store(c.reasm.Duplicates)
		if !ok {
			return
		}
	}
	if f := c.handlers[h.Type]; f != nil {
		f(h, payload)
	} else {
		c.unhandled.Add(1)
	}
}

// Stats returns the endpoint's counters.
func (c *Comm) Stats() Stats {
	return Stats{Sent: c.sent.Load(), Received: c.received.Load(), Malformed: c.malformed.Load(),
		Dropped: c.reasmDropped.Load(), Duplicates: c.reasmDup.Load(), Unhandled: c.unhandled.Load()}
}

// Close closes the endpoint; Run returns.
func (c *Comm) Close() error { return c.conn.Close() }
