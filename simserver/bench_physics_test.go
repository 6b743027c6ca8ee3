//go:build ode

package simserver

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/robotd/robotd/simserver/ode"
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

// BenchmarkSyncServer runs the same agents over TCP on the physics mode's
// embedded server and on a real rcssserver3d in sync mode, side by side in
// one run: both fleets stay connected and take turns (eight rounds of b.N/8
// cycles each; the waiting fleet holds its (syn), so its server waits), so
// both see the same load on a shared machine. Every robot answers each
// message at once with joint commands and (syn): "sway" moves every joint
// each cycle, "idle" only answers (syn) and the robots stand still.
//
// The real server is ROBOTD_SIMSPARK's (agent address first), started by
// the benchmark when ROBOTD_SIMSPARK_START names its start command (for
// example "/work/rcss/start-server.sh 3750 3850"; it is killed at the end)
// or already running (ROBOTD_SIMSPARK_PID: its pid, for its CPU time).
// Without ROBOTD_SIMSPARK its part is skipped and the log says so.
//
// Metrics: sim-s/s is simulated seconds per wall second; ode/rcss their
// ratio; cpu-µs/cycle the CPU time per 10 ms cycle, of this process (the
// embedded server and the agents) for ode, of the server process and the
// agents for rcss; ode-allocs/cycle the heap allocations of the embedded
// server and its agents per cycle; rcss-cpu/ode-cpu the ratio of the CPU
// times per cycle (the ratio of the rates on free cores).
func BenchmarkSyncServer(b *testing.B) {
	rcss, reason := startRealServer(b)
	for _, load := range []string{"sway", "idle"} {
		for _, n := range []int{1, 3, 6} {
			b.Run(fmt.Sprintf("%s/robots=%d", load, n), func(b *testing.B) {
				cmds := commandMessages(40)
				if load == "idle" {
					// Only (syn): the robots stand still, and ODE's
					// auto-disable takes them out of the step.
					cmds = [][]byte{[]byte("(syn)")}
				}
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
				defer func() {
					cancel()
					if err := <-done; err != nil {
						b.Error(err)
					}
				}()
				fleets := []*benchFleet{connectFleet(ctx, b, "ode", s.AgentAddr().String(), 0, n, cmds)}
				if rcss == nil {
					b.Logf("rcssserver3d: skipped: %s", reason)
				} else {
					fleets = append(fleets, connectFleet(ctx, b, "rcss", rcss.addr, rcss.pid, n, cmds))
				}
				defer func() {
					for _, f := range fleets {
						f.close()
					}
				}()
				b.ResetTimer()
				const rounds = 8
				chunk := max(1, b.N/rounds)
				for range rounds {
					for _, f := range fleets {
						f.run(b, int64(chunk))
					}
				}
				b.StopTimer()
				rate := func(f *benchFleet) float64 { return float64(f.cycles) * 0.01 / f.wall.Seconds() }
				for _, f := range fleets {
					b.ReportMetric(rate(f), f.name+"-sim-s/s")
					if f.name == "ode" || f.pid > 0 {
						b.ReportMetric(float64(f.cpu.Microseconds())/float64(f.cycles), f.name+"-cpu-µs/cycle")
					}
					if f.name == "ode" {
						// The embedded server's and its agents' heap allocations.
						b.ReportMetric(float64(f.allocs)/float64(f.cycles), "ode-allocs/cycle")
					}
				}
				if len(fleets) == 2 {
					b.ReportMetric(rate(fleets[0])/rate(fleets[1]), "ode/rcss")
					if fleets[1].pid > 0 {
						// On a free core the rate is 10 ms over the CPU time
						// per cycle, so this is the ratio a loaded machine's
						// wall clock blurs.
						b.ReportMetric(float64(fleets[1].cpu)/float64(fleets[0].cpu), "rcss-cpu/ode-cpu")
					}
				}
			})
		}
	}
}

// realServer is a running rcssserver3d.
type realServer struct {
	addr string
	pid  int // 0 if unknown
}

// startRealServer returns ROBOTD_SIMSPARK's server, started from
// ROBOTD_SIMSPARK_START if that is set (and killed when b ends), or nil and
// why not.
func startRealServer(b *testing.B) (*realServer, string) {
	env := os.Getenv("ROBOTD_SIMSPARK")
	start := os.Getenv("ROBOTD_SIMSPARK_START")
	if env == "" {
		if start != "" {
			b.Fatal("ROBOTD_SIMSPARK_START needs ROBOTD_SIMSPARK, the server's agent address")
		}
		return nil, "ROBOTD_SIMSPARK names no server (agent-host:port[,monitor-host:port]; ROBOTD_SIMSPARK_START: its start command)"
	}
	rs := &realServer{addr: strings.Split(env, ",")[0]}
	rs.pid, _ = strconv.Atoi(os.Getenv("ROBOTD_SIMSPARK_PID"))
	if start == "" {
		return rs, ""
	}
	cmd := exec.Command("sh", "-c", "exec "+start)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatalf("starting the real server (%s): %v", start, err)
	}
	rs.pid = cmd.Process.Pid
	b.Cleanup(func() {
		// The process group this benchmark started: the server and any
		// shell around it.
		_ = syscall.Kill(-rs.pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(120 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", rs.addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the real server (%s) does not listen on %s: %v", start, rs.addr, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return rs, ""
}

// benchFleet is n agents on one server, paused between turns.
type benchFleet struct {
	name   string
	pid    int
	gate   *benchGate
	msgs   []atomic.Int64
	conns  []net.Conn
	wg     sync.WaitGroup
	cycles int64
	wall   time.Duration
	cpu    time.Duration
	allocs uint64 // this process's, while the fleet ran
}

// connectFleet connects n agents to addr one at a time (a real server
// builds each robot before it answers), lets them init, beam and land, and
// pauses them.
func connectFleet(ctx context.Context, b *testing.B, name, addr string, pid, n int, cmds [][]byte) *benchFleet {
	b.Helper()
	f := &benchFleet{name: name, pid: pid, gate: newBenchGate(false), msgs: make([]atomic.Int64, n)}
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		f.conns = append(f.conns, c)
		f.wg.Go(func() {
			stop := context.AfterFunc(ctx, func() { c.Close() })
			defer stop()
			benchAgent(c, i, cmds, &f.msgs[i], f.gate)
		})
		f.waitFor(b, i, 1)
	}
	f.waitFor(b, 0, f.msgs[0].Load()+60) // init, beam, landing
	f.gate.set(true)
	return f
}

func (f *benchFleet) waitFor(b *testing.B, i int, m int64) {
	deadline := time.Now().Add(120 * time.Second)
	for f.msgs[i].Load() < m {
		if time.Now().After(deadline) {
			b.Fatalf("%s: robot %d got %d of %d messages", f.name, i, f.msgs[i].Load(), m)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// run lets the fleet's server step k cycles, adding their wall and CPU time.
func (f *benchFleet) run(b *testing.B, k int64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	a0 := ms.Mallocs
	m0 := f.msgs[0].Load()
	cpu0, own0 := procCPU(f.pid), cpuTime()
	start := time.Now()
	f.gate.set(false)
	f.waitFor(b, 0, m0+k)
	f.wall += time.Since(start)
	f.gate.set(true)
	f.cpu += cpuTime() - own0
	if f.name != "ode" {
		f.cpu += procCPU(f.pid) - cpu0
	}
	f.cycles += k
	runtime.ReadMemStats(&ms)
	f.allocs += ms.Mallocs - a0
}

func (f *benchFleet) close() {
	for _, c := range f.conns {
		c.Close()
	}
	f.gate.set(false)
	f.wg.Wait()
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

// BenchmarkPhysicsStep is one NAO's ODE step alone (ps_step: motors,
// drag, collision, dWorldStep, senses), to show what a physics step costs
// and why: standing still with auto-disable (SimSpark's setting), standing
// still with every body kept awake, swaying every joint a little, and a
// 0.5 Hz squat with the arms swinging (a P-controller on hips, knees,
// ankles and shoulders). Reports the CPU time per step, the contact points
// per step and the share of steps the torso was awake.
func BenchmarkPhysicsStep(b *testing.B) {
	m, err := naoPhysModel()
	if err != nil {
		b.Fatal(err)
	}
	idx := func(name string) int {
		for j, id := range jointIDs {
			if id.EffectorName() == name {
				return j
			}
		}
		b.Fatalf("no joint %s", name)
		return -1
	}
	for _, tc := range []struct {
		name   string
		awake  bool // auto-disable off
		motion string
	}{
		{"still/auto-disable", false, "still"},
		{"still/awake", true, "still"},
		{"sway", false, "sway"},
		{"squat", false, "squat"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := ode.SimSpark()
			p.AutoDisable = !tc.awake
			s, err := ode.New(p)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			id, err := s.AddRobot(&m.m, [3]float64{0, 0, 0.4}, ode.UprightRot(0))
			if err != nil {
				b.Fatal(err)
			}
			s.Place(id, [3]float64{0, 0, 0.4}, ode.UprightRot(0), trainerClear)
			s.SetBall([3]float64{2, 0, 0.05}, [3]float64{})
			knees := [2]int{idx("lle4"), idx("rle4")}
			hips := [2]int{idx("lle3"), idx("rle3")}
			ankles := [2]int{idx("lle5"), idx("rle5")}
			shoulders := [2]int{idx("lae1"), idx("rae1")}
			cycle := 0
			step := func() {
				t := float64(cycle) * 0.01
				cycle++
				switch tc.motion {
				case "sway":
					v := 0.15 * math.Sin(2*math.Pi*t/0.4)
					for j := range numJoints {
						s.SetVelocity(id, j, v)
					}
				case "squat":
					st := s.Robot(id)
					knee := 0.5 + 0.4*math.Sin(math.Pi*t)
					arm := -1.4 + 0.8*math.Sin(math.Pi*t)
					for k := range 2 {
						for _, jt := range [][2]float64{{float64(knees[k]), knee}, {float64(hips[k]), -knee / 2}, {float64(ankles[k]), -knee / 2}, {float64(shoulders[k]), arm}} {
							j := int(jt[0])
							s.SetVelocity(id, j, 10*(jt[1]-st.Angle(j)))
						}
					}
				}
				s.Step()
			}
			for range 200 {
				step()
			}
			contacts, awake := 0, 0
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				step()
				st := s.Robot(id)
				contacts += st.Contacts()
				if st.Enabled() {
					awake++
				}
			}
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/step")
			b.ReportMetric(float64(contacts)/float64(b.N), "contacts/step")
			b.ReportMetric(float64(awake)/float64(b.N), "awake")
		})
	}
}
