//go:build ode

package simserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPhysicsWorld measures the physics mode's own work per cycle, in
// process: every robot's effector message parsed, one ODE step, every
// perceptor message encoded. Robots stand 1 m or more apart (separate ODE
// islands) and sway every joint; threads=2 steps them on two threads.
// sim-s/s is simulated seconds per wall second.
func BenchmarkPhysicsWorld(b *testing.B) {
	for _, c := range []struct{ n, threads int }{{1, 1}, {3, 1}, {6, 1}, {3, 2}, {6, 2}} {
		n := c.n
		b.Run(fmt.Sprintf("robots=%d/threads=%d", n, c.threads), func(b *testing.B) {
			cfg := odeConfig()
			cfg.PhysicsThreads = c.threads
			w, agents := benchWorldCfg(b, n, cfg)
			defer w.Close()
			cmds := commandMessages(40)
			buf := make([]byte, 0, 8192)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			start := time.Now()
			contacts := 0
			for i := 0; i < b.N; i++ {
				for _, a := range agents {
					if err := w.Act(a, cmds[i%len(cmds)]); err != nil {
						b.Fatal(err)
					}
				}
				w.Step()
				for _, a := range agents {
					buf = w.AppendPerception(buf[:0], a)
					contacts += w.phys.scene.Robot(a.pid).Contacts()
				}
			}
			el := time.Since(start)
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(b.N)*w.dt/el.Seconds(), "sim-s/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e3, "cpu-µs/cycle")
			b.ReportMetric(float64(contacts)/float64(b.N*n), "contacts/robot")
		})
	}
}

// BenchmarkSyncServer runs 1, 3 and 6 robots over TCP against a sync-mode
// server: the embedded simulator in the physics mode and, when
// ROBOTD_SIMSPARK names one (agent address first), a real rcssserver3d with
// SPARK_FAST_TIME=true. Every robot answers each message at once with
// joint commands and (syn), so the server's cycle is the bottleneck.
// sim-s/s is simulated seconds per wall second; with
// ROBOTD_SIMSPARK_PID the real server's CPU time per cycle is reported too.
// "sway" robots move every joint each cycle; "idle" ones only answer (syn).
func BenchmarkSyncServer(b *testing.B) {
	type target struct {
		name string
		addr func(b *testing.B) (string, func())
		pid  int
	}
	targets := []target{{name: "embedded-ode", addr: func(b *testing.B) (string, func()) {
		cfg := odeConfig()
		cfg.Sync = true
		cfg.AgentAddr, cfg.MonitorAddr = "127.0.0.1:0", ""
		s, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		return s.AgentAddr().String(), func() {
			cancel()
			if err := <-done; err != nil {
				b.Error(err)
			}
		}
	}}}
	if env := os.Getenv("ROBOTD_SIMSPARK"); env != "" {
		addr := strings.Split(env, ",")[0]
		pid, _ := strconv.Atoi(os.Getenv("ROBOTD_SIMSPARK_PID"))
		targets = append(targets, target{name: "rcssserver3d", pid: pid, addr: func(*testing.B) (string, func()) { return addr, func() {} }})
	}
	for _, tg := range targets {
		for _, load := range []string{"sway", "idle"} {
			for _, n := range []int{1, 3, 6} {
				b.Run(fmt.Sprintf("%s/%s/robots=%d", tg.name, load, n), func(b *testing.B) {
					addr, stop := tg.addr(b)
					defer stop()
					cmds := commandMessages(40)
					if load == "idle" {
						// Only (syn): the robots stand still, and ODE's
						// auto-disable takes them out of the step.
						cmds = [][]byte{[]byte("(syn)")}
					}
					msgs := make([]atomic.Int64, n) // each robot's messages
					ctx, cancel := context.WithCancel(context.Background())
					var wg sync.WaitGroup
					defer func() { cancel(); wg.Wait() }()
					waitFor := func(i int, m int64) {
						deadline := time.Now().Add(120 * time.Second)
						for msgs[i].Load() < m {
							if time.Now().After(deadline) {
								b.Fatalf("robot %d got %d of %d messages", i, msgs[i].Load(), m)
							}
							time.Sleep(50 * time.Microsecond)
						}
					}
					// One robot at a time: the real server builds each robot
					// from its scene file before it answers.
					for i := range n {
						c, err := net.Dial("tcp", addr)
						if err != nil {
							b.Fatal(err)
						}
						wg.Go(func() {
							defer c.Close()
							stop := context.AfterFunc(ctx, func() { c.Close() })
							benchAgent(c, i, cmds, &msgs[i])
							stop()
						})
						waitFor(i, 1)
					}
					wait := func(m int64) { waitFor(0, m) }
					wait(msgs[0].Load() + 60) // init, beam, landing
					b.ResetTimer()
					m0 := msgs[0].Load()
					cpu0, own0 := procCPU(tg.pid), cpuTime()
					start := time.Now()
					wait(m0 + int64(b.N))
					el := time.Since(start)
					b.StopTimer()
					b.ReportMetric(float64(b.N)*0.01/el.Seconds(), "sim-s/s")
					if tg.pid > 0 {
						b.ReportMetric(float64((procCPU(tg.pid)-cpu0).Microseconds())/float64(b.N), "server-cpu-µs/cycle")
					} else {
						// The embedded server and the test's agents together.
						b.ReportMetric(float64((cpuTime()-own0).Microseconds())/float64(b.N), "process-cpu-µs/cycle")
					}
				})
			}
		}
	}
}

// procCPU is process pid's user and system CPU time (0 if unknown).
func procCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ
}
