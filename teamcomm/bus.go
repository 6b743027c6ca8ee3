package teamcomm

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/config"
)

// BusConfig configures a Bus: the simulated network's faults.
type BusConfig struct {
	// Loss is the probability that a datagram is lost, per receiver;
	// Duplicate the probability that it arrives twice.
	Loss      float64 `json:"loss"`
	Duplicate float64 `json:"duplicate"`
	// Latency and Jitter delay each datagram by Latency plus a uniform
	// random share of Jitter, in tick time (so datagrams may be
	// reordered). With a Latency of at least one tick, what a robot
	// receives does not depend on how the robots' goroutines interleave.
	Latency config.Duration `json:"latency"`
	Jitter  config.Duration `json:"jitter"`
	// Seed seeds the faults; each sender draws from its own generator.
	Seed uint64 `json:"seed"`
	// Queue bounds the datagrams in flight to one robot (the oldest are
	// dropped).
	Queue int `json:"queue"`
}

// DefaultBusConfig returns a network without faults but a 20 ms latency.
func DefaultBusConfig() BusConfig {
	return BusConfig{Latency: config.Duration(20 * time.Millisecond), Seed: 1, Queue: 256}
}

// Bus is an in-process team network for robots that run in one process
// (simulation runs): robots' endpoints exchange datagrams in tick time,
// with seeded loss, duplication, latency and jitter. It is the Fawkes/Gazebo Robotino simulation's comm
// hub without sockets.
type Bus struct {
	cfg BusConfig
	mu  sync.Mutex
	eps []*BusEndpoint

	delivered, lost, overflow atomic.Uint64
}

// NewBus returns a bus.
func NewBus(cfg BusConfig) (*Bus, error) {
	if cfg.Loss < 0 || cfg.Loss > 1 || cfg.Duplicate < 0 || cfg.Duplicate > 1 {
		return nil, fmt.Errorf("teamcomm: bus: loss %v and duplicate %v must be within 0..1", cfg.Loss, cfg.Duplicate)
	}
	if cfg.Latency < 0 || cfg.Jitter < 0 {
		return nil, fmt.Errorf("teamcomm: bus: latency %v and jitter %v must not be negative", cfg.Latency.D(), cfg.Jitter.D())
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 256
	}
	return &Bus{cfg: cfg}, nil
}

// BusEndpoint is one robot's connection to a Bus. It implements Transport.
type BusEndpoint struct {
	bus    *Bus
	player uint8
	rng    *rand.Rand // the sender's faults, under bus.mu

	// The receive queue, ordered by due time (then sender, then order
	// sent), under bus.mu.
	q    []inflight
	take [MaxDatagram]byte
	seq  uint64
}

type inflight struct {
	due  time.Duration
	from uint8
	seq  uint64
	n    int
	data [MaxDatagram]byte
}

// Endpoint connects player to the bus.
func (b *Bus) Endpoint(player uint8) *BusEndpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := &BusEndpoint{bus: b, player: player, rng: rand.New(rand.NewPCG(b.cfg.Seed, uint64(player)*0x9e3779b97f4a7c15+1)),
		q: make([]inflight, 0, b.cfg.Queue)}
	b.eps = append(b.eps, e)
	return e
}

// Send implements Transport.
func (e *BusEndpoint) Send(now time.Duration, d []byte) error {
	if len(d) > MaxDatagram {
		return fmt.Errorf("teamcomm: bus: %w: datagram of %d bytes", ErrTooLarge, len(d))
	}
	b := e.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.eps {
		if r == e {
			continue
		}
		copies := 1
		if e.rng.Float64() < b.cfg.Duplicate {
			copies = 2
		}
		for range copies {
			if e.rng.Float64() < b.cfg.Loss {
				b.lost.Add(1)
				continue
			}
			due := now + b.cfg.Latency.D()
			if j := b.cfg.Jitter.D(); j > 0 {
				due += time.Duration(e.rng.Int64N(int64(j)))
			}
			r.push(due, e.player, d)
		}
	}
	return nil
}

// push queues a datagram for e, in order; bus.mu is held.
func (e *BusEndpoint) push(due time.Duration, from uint8, d []byte) {
	if len(e.q) == cap(e.q) {
		copy(e.q, e.q[1:])
		e.q = e.q[:len(e.q)-1]
		e.bus.overflow.Add(1)
	}
	e.seq++
	e.q = e.q[:len(e.q)+1]
	i := len(e.q) - 1
	for i > 0 && later(&e.q[i-1], due, from) {
		e.q[i] = e.q[i-1]
		i--
	}
	it := &e.q[i]
	it.due, it.from, it.seq, it.n = due, from, e.seq, copy(it.data[:], d)
}

func later(a *inflight, due time.Duration, from uint8) bool {
	return a.due > due || a.due == due && a.from > from
}

// Receive implements Transport.
func (e *BusEndpoint) Receive(now time.Duration, fn func(d []byte)) {
	b := e.bus
	for {
		b.mu.Lock()
		if len(e.q) == 0 || e.q[0].due > now {
			b.mu.Unlock()
			return
		}
		n := e.q[0].n
		copy(e.take[:], e.q[0].data[:n])
		copy(e.q, e.q[1:])
		e.q = e.q[:len(e.q)-1]
		b.mu.Unlock()
		b.delivered.Add(1)
		fn(e.take[:n])
	}
}

// BusStats counts a bus's datagrams (per receiver).
type BusStats struct {
	Delivered, Lost, Overflow uint64
}

// Stats returns the bus's counters.
func (b *Bus) Stats() BusStats {
	return BusStats{Delivered: b.delivered.Load(), Lost: b.lost.Load(), Overflow: b.overflow.Load()}
}
