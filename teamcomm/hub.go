package teamcomm

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/config"
)

// HubConfig configures a Hub.
type HubConfig struct {
	// Addr is where the hub listens (one hub per team).
	Addr string `json:"addr"`
	// Loss is the probability that a datagram is dropped per receiver.
	Loss float64 `json:"loss"`
	// Latency and Jitter delay each datagram by Latency plus a uniform
	// random share of Jitter (so datagrams may be reordered).
	Latency config.Duration `json:"latency"`
	Jitter  config.Duration `json:"jitter"`
	// Duplicate is the probability that a datagram is delivered twice.
	Duplicate float64 `json:"duplicate"`
	// Seed seeds the loss, jitter and duplication.
	Seed uint64 `json:"seed"`
}

// Hub relays team messages between robots on one machine (the Fawkes/Gazebo Robotino simulation's comm
// hub): each robot sends to the hub, and the hub forwards every datagram to
// every other robot it has heard from, dropping, delaying and duplicating
// them as configured.
type Hub struct {
	cfg  HubConfig
	conn *net.UDPConn
	log  *slog.Logger
	rng  *rand.Rand

	mu    sync.Mutex
	peers []*net.UDPAddr
	queue delayQueue
	wake  chan struct{}

	received, forwarded, dropped atomic.Uint64
}

// hubReadBuffer asks the kernel for room for a burst from a whole team
// (the kernel caps it at net.core.rmem_max).
const hubReadBuffer = 1 << 20

// NewHub listens for robots.
func NewHub(cfg HubConfig, log *slog.Logger) (*Hub, error) {
	if cfg.Loss < 0 || cfg.Loss > 1 || cfg.Duplicate < 0 || cfg.Duplicate > 1 {
		return nil, fmt.Errorf("teamcomm: hub: loss %v and duplicate %v must be within 0..1", cfg.Loss, cfg.Duplicate)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	addr, err := net.ResolveUDPAddr("udp4", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("teamcomm: hub address %q: %w", cfg.Addr, err)
	}
	conn, err := net.ListenUDP("udp4", addr)
	if err != nil {
		return nil, fmt.Errorf("teamcomm: hub: %w", err)
	}
	_ = conn.SetReadBuffer(hubReadBuffer) // best effort: a smaller buffer only loses bursts
	return &Hub{cfg: cfg, conn: conn, log: log, rng: rand.New(rand.NewPCG(cfg.Seed, 0x7ea3)), wake: make(chan struct{}, 1)}, nil
}

// Addr returns the hub's address.
func (h *Hub) Addr() string { return h.conn.LocalAddr().String() }

// Received counts datagrams the hub has taken from robots.
func (h *Hub) Received() uint64 { return h.received.Load() }

// Forwarded counts datagrams sent on, per receiver.
func (h *Hub) Forwarded() uint64 { return h.forwarded.Load() }

// Dropped counts datagrams dropped to simulate loss.
func (h *Hub) Dropped() uint64 { return h.dropped.Load() }

// Run relays until ctx is done, then closes the hub.
func (h *Hub) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { h.deliver(ctx) })
	defer wg.Wait()
	stop := context.AfterFunc(ctx, func() { h.conn.Close() })
	defer stop()
	buf := make([]byte, 2048)
	for {
		n, from, err := h.conn.ReadFromUDP(buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("teamcomm: hub receiving: %w", err)
		}
		h.received.Add(1)
		h.relay(buf[:n], from)
	}
}

func (h *Hub) relay(d []byte, from *net.UDPAddr) {
	h.mu.Lock()
	defer h.mu.Unlock()
	known := false
	for _, p := range h.peers {
		if p.IP.Equal(from.IP) && p.Port == from.Port {
			known = true
			continue
		}
		copies := 1
		if h.rng.Float64() < h.cfg.Duplicate {
			copies = 2
		}
		for range copies {
			if h.rng.Float64() < h.cfg.Loss {
				h.dropped.Add(1)
				continue
			}
			delay := h.cfg.Latency.D()
			if j := h.cfg.Jitter.D(); j > 0 {
				delay += time.Duration(h.rng.Int64N(int64(j)))
			}
			if delay <= 0 {
				h.send(d, p)
				continue
			}
			heap.Push(&h.queue, delayed{due: time.Now().Add(delay), to: p, data: append([]byte(nil), d...)})
			select {
			case h.wake <- struct{}{}:
			default:
			}
		}
	}
	if !known {
		h.peers = append(h.peers, from)
		h.log.Debug("hub: new robot", "addr", from)
	}
}

func (h *Hub) send(d []byte, to *net.UDPAddr) {
	if _, err := h.conn.WriteToUDP(d, to); err != nil {
		h.log.Debug("hub: forwarding", "to", to, "err", err)
		return
	}
	h.forwarded.Add(1)
}

// deliver sends delayed datagrams when they are due.
func (h *Hub) deliver(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		h.mu.Lock()
		next := time.Hour
		for h.queue.Len() > 0 {
			d := time.Until(h.queue[0].due)
			if d > 0 {
				next = d
				break
			}
			it := heap.Pop(&h.queue).(delayed)
			h.send(it.data, it.to)
		}
		h.mu.Unlock()
		t.Reset(next)
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
		case <-t.C:
		}
	}
}

type delayed struct {
	due  time.Time
	to   *net.UDPAddr
	data []byte
}

type delayQueue []delayed

func (q delayQueue) Len() int           { return len(q) }
func (q delayQueue) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q delayQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *delayQueue) Push(x any)        { *q = append(*q, x.(delayed)) }
func (q *delayQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
