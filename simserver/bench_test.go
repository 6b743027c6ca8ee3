package simserver

import (
	"context"
	"fmt"
	"math"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/robotd/robotd/proto/simspark"
)

// benchWorld creates n agents on both teams in a world of the default
// configuration, inits and beams them, and lets them land.
func benchWorld(b *testing.B, n int) (*World, []*Agent) {
	b.Helper()
	return benchWorldCfg(b, n, DefaultConfig())
}

// benchWorldCfg is benchWorld with a configuration.
func benchWorldCfg(b *testing.B, n int, cfg Config) (*World, []*Agent) {
	b.Helper()
	w, err := NewWorld(cfg)
	if err != nil {
		b.Fatal(err)
	}
	agents := make([]*Agent, n)
	for i := range agents {
		agents[i] = w.AddAgent()
	}
	for i, a := range agents {
		team := []string{"A", "B"}[i%2]
		if err := w.Act(a, fmt.Appendf(nil, "(init (unum %d)(teamname %s))", i/2+1, team)); err != nil {
			b.Fatal(err)
		}
	}
	w.Step()
	for i, a := range agents {
		if err := w.Act(a, fmt.Appendf(nil, "(beam %d %d 0)", -1-i/2, i%3-1)); err != nil {
			b.Fatal(err)
		}
	}
	for range 50 {
		w.Step()
		for _, a := range agents {
			w.AppendPerception(nil, a)
		}
	}
	return w, agents
}

// commandMessages are per-cycle effector messages like a motion module's:
// all 22 joints, the legs swaying a little so the kinematics change every
// cycle.
func commandMessages(n int) [][]byte {
	msgs := make([][]byte, n)
	for i := range msgs {
		var b []byte
		v := 0.15 * math.Sin(float64(i)*2*math.Pi/float64(n))
		for k, j := range joints {
			if k == jRArm+3 || k == jLArm+3 {
				continue // the elbow rolls rest at a stop
			}
			b = append(b, '(')
			b = append(b, j.id.EffectorName()...)
			b = append(b, ' ')
			b = strconv.AppendFloat(b, v, 'f', 4, 64)
			b = append(b, ')')
		}
		b = append(b, "(syn)"...)
		msgs[i] = b
	}
	return msgs
}

// BenchmarkWorld measures the server's own work per cycle in sync mode:
// parsing every agent's effector message, stepping the world and encoding
// every agent's perceptor message (See every third cycle). sim-s/s is
// simulated seconds per wall-clock second.
func BenchmarkWorld(b *testing.B) {
	for _, n := range []int{1, 6} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			w, agents := benchWorld(b, n)
			cmds := commandMessages(40)
			buf := make([]byte, 0, 8192)
			bytes := 0
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				for _, a := range agents {
					if err := w.Act(a, cmds[i%len(cmds)]); err != nil {
						b.Fatal(err)
					}
				}
				w.Step()
				for _, a := range agents {
					buf = w.AppendPerception(buf[:0], a)
					bytes += len(buf)
				}
			}
			el := time.Since(start)
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(b.N)*w.dt/el.Seconds(), "sim-s/s")
			// CPU time is what the work costs on a shared machine.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(b.N)*w.dt/cpu.Seconds(), "sim-s/cpu-s")
			b.ReportMetric(float64(bytes)/float64(b.N), "B/cycle")
		})
	}
}

// BenchmarkLoopback measures whole cycles over TCP on 127.0.0.1 in sync
// mode, with agents that answer every message at once.
func BenchmarkLoopback(b *testing.B) {
	for _, n := range []int{1, 6} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Sync = true
			cfg.AgentAddr = "127.0.0.1:0"
			cfg.MonitorAddr = ""
			s, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			cmds := commandMessages(40)
			var wg sync.WaitGroup
			for i := 0; i < n; i++ {
				c, err := net.Dial("tcp", s.AgentAddr().String())
				if err != nil {
					b.Fatal(err)
				}
				wg.Go(func() {
					defer c.Close()
					benchAgent(c, i, cmds, nil, nil)
				})
			}
			waitScenes(b, s, int64(n))
			// Let the agents init, beam and land.
			for s.Stats().Cycles < 50 {
				time.Sleep(time.Millisecond)
			}
			b.ResetTimer()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			c0 := s.Stats().Cycles
			start := time.Now()
			for s.Stats().Cycles < c0+int64(b.N) {
				time.Sleep(50 * time.Microsecond)
			}
			el := time.Since(start)
			b.StopTimer()
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(b.N)*cfg.Cycle.Seconds()/el.Seconds(), "sim-s/s")
			// Allocations of the whole process (server and test agents).
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N), "allocs/cycle")
			cancel()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			wg.Wait()
		})
	}
}

// benchGate pauses agents: while it is closed an agent holds its answer,
// and a sync-mode server waits for it. A nil gate is always open.
type benchGate struct {
	mu     sync.Mutex
	cond   *sync.Cond
	closed bool
}

func newBenchGate(closed bool) *benchGate {
	g := &benchGate{closed: closed}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// set closes (true) or opens (false) the gate.
func (g *benchGate) set(closed bool) {
	g.mu.Lock()
	g.closed = closed
	g.mu.Unlock()
	g.cond.Broadcast()
}

func (g *benchGate) wait() {
	if g == nil {
		return
	}
	g.mu.Lock()
	for g.closed {
		g.cond.Wait()
	}
	g.mu.Unlock()
}

// benchAgent plays robot i (team A for even i, B for odd) over c: scene,
// init, beam, then joint commands, each answer at once with (syn), or as
// soon as gate opens. It counts the messages it received in msgs (if not
// nil) and returns when c fails or closes.
func benchAgent(c net.Conn, i int, cmds [][]byte, msgs *atomic.Int64, gate *benchGate) {
	fr := simspark.NewFrameReader(c, 0)
	out := simspark.AppendFrame(nil, []byte("(scene rsg/agent/nao/nao.rsg)(syn)"))
	if _, err := c.Write(out); err != nil {
		return
	}
	team := []string{"A", "B"}[i%2]
	for m := 0; ; m++ {
		if _, err := fr.Next(); err != nil {
			return
		}
		if msgs != nil {
			msgs.Add(1)
		}
		var p []byte
		switch m {
		case 0:
			p = fmt.Appendf(nil, "(init (unum %d)(teamname %s))(syn)", i/2+1, team)
		case 1:
			p = fmt.Appendf(nil, "(beam %d %d 0)(syn)", -1-i/2, i%3-1)
		default:
			p = cmds[m%len(cmds)]
		}
		out = simspark.AppendFrame(out[:0], p)
		gate.wait()
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
