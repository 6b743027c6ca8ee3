package teamcomm

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/internal/udpshare"
)

// Transport carries a team's datagrams between its robots: UDP (Comm), or
// an in-process simulated network (Bus). Send and Receive are called from
// one goroutine (the team-communication module's tick).
type Transport interface {
	// Send sends one datagram at tick time now.
	Send(now time.Duration, d []byte) error
	// Receive calls fn with every datagram that has arrived by tick time
	// now, oldest first; d is valid during the call only.
	Receive(now time.Duration, fn func(d []byte))
}

// Config configures a UDP endpoint.
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
	// Queue bounds the datagrams received and not yet taken by the tick
	// (the oldest are dropped).
	Queue int `json:"queue"`
	// Allow are the networks (CIDR, "10.0.0.0/16") team datagrams may
	// come from; others are dropped and counted as spoofed. Empty allows
	// loopback and the networks of this machine's interfaces, where the
	// team's robots are (an SPL team's robots share the field's subnet).
	Allow []string `json:"allow"`
}

// MaxPlayer is the largest player number a datagram may carry (robotd's
// robot.player range; the SPL uses 1..7, drop-in games more).
const MaxPlayer = 20

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Broadcast: "255.255.255.255", Queue: 64, Allow: []string{}}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within robotd's teamcomm.udp section.
func (c Config) Rules() config.Rules {
	return config.Rules{
		"team":      config.Int(0, 99).Doc("", "this robot's SPL team number (robotd sets it from robot.team_number)"),
		"player":    config.Int(0, MaxPlayer).Doc("", "this robot's player number (robotd sets it from robot.player)"),
		"port":      config.Port(true).Doc("", "the team's UDP port (0: 10000 + team)"),
		"broadcast": config.IP(false).Doc("", "the address team messages are broadcast to"),
		"hub":       config.HostPort(true, false).Doc("", "a Hub's host:port that gets every message instead of the broadcast address, for several robots on one machine (empty: none)"),
		"queue":     config.Int(1, 100_000).Doc("", "how many received datagrams may wait for the tick; the oldest are dropped"),
		"allow":     config.Prefixes().Doc("", "the networks team datagrams may come from; others are dropped as spoofed (empty: loopback and this machine's networks)"),
	}
}

// allowed returns the networks of cfg.Allow, or the default ones.
func allowed(cfg Config) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, a := range cfg.Allow {
		p, err := netip.ParsePrefix(a)
		if err != nil {
			return nil, fmt.Errorf("teamcomm: allow %q: %w", a, err)
		}
		out = append(out, p.Masked())
	}
	if len(out) > 0 {
		return out, nil
	}
	out = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return out, nil // loopback only
	}
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(n.IP)
		if !ok {
			continue
		}
		ones, bits := n.Mask.Size()
		if ip.Is4In6() {
			ip = ip.Unmap()
			if bits == 128 {
				ones -= 96
			}
		}
		if p, err := ip.Prefix(ones); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// TeamPort returns the SPL team-message port of a team.
func TeamPort(team int) int { return 10000 + team }

// Comm is a UDP team-communication endpoint: Run receives datagrams into a
// bounded queue, which the tick drains with Receive.
type Comm struct {
	cfg  Config
	conn *net.UDPConn
	dest *net.UDPAddr
	log  *slog.Logger

	smu sync.Mutex // guards sending

	rmu   sync.Mutex // guards the queue
	queue [][MaxDatagram]byte
	lens  []int
	head  int
	n     int
	take  [MaxDatagram]byte

	allow []netip.Prefix

	sent, received, overflow, oversize, spoofed atomic.Uint64
	spoofLogAt                                  time.Time // Run's goroutine only
	spoofQuiet                                  int
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
	var conn *net.UDPConn
	if cfg.Hub != "" {
		conn, err = net.ListenUDP("udp4", laddr)
	} else {
		// Shared: every robotd of the team on this machine hears the
		// broadcasts.
		conn, err = udpshare.Listen(laddr)
	}
	if err != nil {
		return nil, fmt.Errorf("teamcomm: listening on %v: %w", laddr, err)
	}
	if cfg.Hub == "" {
		if err := setBroadcast(conn); err != nil {
			conn.Close()
			return nil, err
		}
	}
	allow, err := allowed(cfg)
	if err != nil {
		conn.Close()
		return nil, err
	}
	q := max(cfg.Queue, 1)
	c := &Comm{cfg: cfg, conn: conn, dest: dest, log: log, queue: make([][MaxDatagram]byte, q), lens: make([]int, q), allow: allow}
	if cfg.Hub != "" {
		var hello [headerSize]byte
		hello[0], hello[1] = TypeHello, uint8(cfg.Player)
		if err := c.Send(0, hello[:]); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return c, nil
}

// LocalAddr returns the endpoint's address.
func (c *Comm) LocalAddr() net.Addr { return c.conn.LocalAddr() }

// Send implements Transport.
func (c *Comm) Send(_ time.Duration, d []byte) error {
	c.smu.Lock()
	defer c.smu.Unlock()
	if _, err := c.conn.WriteToUDP(d, c.dest); err != nil {
		return fmt.Errorf("teamcomm: sending to %v: %w", c.dest, err)
	}
	c.sent.Add(1)
	return nil
}

// Receive implements Transport.
func (c *Comm) Receive(_ time.Duration, fn func(d []byte)) {
	for {
		c.rmu.Lock()
		if c.n == 0 {
			c.rmu.Unlock()
			return
		}
		n := c.lens[c.head]
		copy(c.take[:], c.queue[c.head][:n])
		c.head = (c.head + 1) % len(c.queue)
		c.n--
		c.rmu.Unlock()
		fn(c.take[:n])
	}
}

// Run receives datagrams until ctx is done or the endpoint is closed.
func (c *Comm) Run(ctx context.Context) error {
	return udpshare.Receive(ctx, c.conn, make([]byte, 2048), "teamcomm", func(d []byte, from netip.AddrPort) {
		n := len(d)
		if n > MaxDatagram {
			c.oversize.Add(1)
			return
		}
		if why := c.spoof(from.Addr(), d); why != "" {
			c.spoofed.Add(1)
			if now := time.Now(); !now.Before(c.spoofLogAt) {
				c.log.Warn("dropping a team datagram", "from", from, "why", why, "suppressed", c.spoofQuiet)
				c.spoofLogAt, c.spoofQuiet = now.Add(time.Second), 0
			} else {
				c.spoofQuiet++
			}
			return
		}
		c.received.Add(1)
		c.rmu.Lock()
		if c.n == len(c.queue) {
			c.head = (c.head + 1) % len(c.queue)
			c.n--
			c.overflow.Add(1)
		}
		i := (c.head + c.n) % len(c.queue)
		copy(c.queue[i][:], d)
		c.lens[i] = n
		c.n++
		c.rmu.Unlock()
	})
}

// spoof says why a datagram from ip is not from a teammate ("" if it may
// be): a source outside the allowed networks, or a player number no robot
// has.
func (c *Comm) spoof(ip netip.Addr, d []byte) string {
	ip = ip.Unmap()
	ok := false
	for _, p := range c.allow {
		if p.Contains(ip) {
			ok = true
			break
		}
	}
	if !ok {
		return "the source is outside the team's networks"
	}
	if len(d) >= 2 && (d[1] == 0 || d[1] > MaxPlayer) {
		return "the player number is outside 1..20"
	}
	return ""
}

// CommStats counts a UDP endpoint's traffic.
type CommStats struct {
	// Sent and Received count datagrams; Overflow those dropped because
	// the tick did not take them in time; Oversize those beyond the SPL
	// limit; Spoofed those from outside the allowed networks or with an
	// impossible player number.
	Sent, Received, Overflow, Oversize, Spoofed uint64
}

// Stats returns the endpoint's counters.
func (c *Comm) Stats() CommStats {
	return CommStats{Sent: c.sent.Load(), Received: c.received.Load(), Overflow: c.overflow.Load(), Oversize: c.oversize.Load(), Spoofed: c.spoofed.Load()}
}

// Close closes the endpoint; Run returns.
func (c *Comm) Close() error { return c.conn.Close() }
