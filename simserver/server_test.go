package simserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/proto/simspark"
)

// background is a test agent that answers every message with (syn) (and
// whatever was queued) in its own goroutine and keeps the last message.
type background struct {
	a    *agentClient
	mu   sync.Mutex
	all  []string
	last string
	n    int
	next []string
	err  error
	done chan struct{}
}

func startBackground(t *testing.T, addr net.Addr, team string, unum int, x, y float64) *background {
	t.Helper()
	b := &background{a: dialAgent(t, addr), done: make(chan struct{})}
	b.next = []string{fmt.Sprintf("(init (unum %d)(teamname %s))", unum, team), fmt.Sprintf("(beam %g %g 0)", x, y)}
	b.a.send([]byte("(scene rsg/agent/nao/nao.rsg)(syn)"))
	go func() {
		defer close(b.done)
		fr := simspark.NewFrameReader(b.a.c, 0)
		for {
			m, err := fr.Next()
			if err != nil {
				b.mu.Lock()
				b.err = err
				b.mu.Unlock()
				return
			}
			b.mu.Lock()
			b.last = string(m)
			b.all = append(b.all, b.last)
			b.n++
			var reply []byte
			if len(b.next) > 0 {
				reply = append(reply, b.next[0]...)
				b.next = b.next[1:]
			}
			b.mu.Unlock()
			out := simspark.AppendFrame(nil, append(reply, "(syn)"...))
			if _, err := b.a.c.Write(out); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { b.a.close(); <-b.done })
	return b
}

// waitFor waits until a message that arrived since the last waitFor
// satisfies ok.
func (b *background) waitFor(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		msgs, err := b.all, b.err
		b.all = nil
		b.mu.Unlock()
		for _, m := range msgs {
			if ok(m) {
				return m
			}
		}
		if err != nil {
			t.Fatalf("waiting for %s: agent: %v", what, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; last message %.300s", what, b.last)
	return ""
}

func (b *background) messages() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// monitorClient reads the monitor stream in a goroutine.
type monitorClient struct {
	c    net.Conn
	mu   sync.Mutex
	msgs []string
	done chan struct{}
}

func dialMonitor(t *testing.T, addr net.Addr) *monitorClient {
	t.Helper()
	c, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	m := &monitorClient{c: c, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		fr := simspark.NewFrameReader(c, 0)
		for {
			b, err := fr.Next()
			if err != nil {
				return
			}
			m.mu.Lock()
			m.msgs = append(m.msgs, string(b))
			m.mu.Unlock()
		}
	}()
	t.Cleanup(func() { c.Close(); <-m.done })
	return m
}

func (m *monitorClient) send(t *testing.T, cmd string) {
	t.Helper()
	if _, err := m.c.Write(simspark.AppendFrame(nil, []byte(cmd))); err != nil {
		t.Fatal(err)
	}
}

func (m *monitorClient) waitFor(t *testing.T, from int, what string, ok func(string) bool) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		m.mu.Lock()
		for i := from; i < len(m.msgs); i++ {
			if ok(m.msgs[i]) {
				m.mu.Unlock()
				return i
			}
		}
		m.mu.Unlock()
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("monitor: timed out waiting for %s", what)
	return 0
}

func (m *monitorClient) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.msgs)
}

func syncConfig() Config {
	cfg := DefaultConfig()
	cfg.Sync = true
	cfg.NoVisionNoise = true
	return cfg
}

// TestMonitorAndTrainer: the monitor port sends a full state, then updates
// every 0.04 s of simulation time, and applies the trainer commands of
// monitor.txt.
func TestMonitorAndTrainer(t *testing.T) {
	s := startServer(t, syncConfig())
	ag := startBackground(t, s.AgentAddr(), "T", 1, -2, 0)
	ag.waitFor(t, "landing", func(m string) bool { return strings.Contains(m, "FRP") })
	mon := dialMonitor(t, s.MonitorAddr())
	first := mon.waitFor(t, 0, "full state", func(m string) bool { return true })
	mon.mu.Lock()
	full := mon.msgs[first]
	mon.mu.Unlock()
	for _, want := range []string{"((FieldLength 9)(FieldWidth 6)", "(play_modes BeforeKickOff KickOff_Left", "(team_left T)", "(play_mode 0))(RSG 0 1)((nd TRF (SLT "} {
		if !strings.Contains(full, want) {
			t.Errorf("full state lacks %q: %.300s", want, full)
		}
	}
	mon.waitFor(t, first+1, "an update", func(m string) bool {
		return strings.HasPrefix(m, "((time 0)") && strings.Contains(m, ")(RDS 0 1)((nd (SLT ")
	})

	steps := []struct {
		cmd  string
		want func(agent string) bool
		mon  string // expected in a monitor message
	}{
		{"(ball (pos 1 1 0.05))", func(m string) bool { return strings.Contains(m, "(ballpos 1.00 1.00 0.05)") }, ""},
		{"(agent (unum 1)(team Left)(pos -1.5 1.5 0.35))", func(m string) bool { return strings.Contains(m, "(mypos -1.50 1.50 0.54) (myorien 0.00)") }, ""},
		{"(agent (unum 1)(team Left)(move -2.0 -1.0 0.35 90))", func(m string) bool { return strings.Contains(m, "(mypos -2.00 -1.00 0.54) (myorien 180.00)") }, ""},
		{"(agent (unum 1)(team Left)(move -2.0 1.0 0.35 0))", func(m string) bool { return strings.Contains(m, "(mypos -2.00 1.00 0.54) (myorien 90.00)") }, ""},
		{"(playMode PlayOn)", func(m string) bool { return strings.Contains(m, "(pm PlayOn)") && !strings.Contains(m, "(t 0.00)") }, "(play_mode 3)"},
		{"(kickOff Left)", func(m string) bool { return strings.Contains(m, "(pm KickOff_Left)") }, "(play_mode 1)"},
		{"(playMode BeforeKickOff)", func(m string) bool { return strings.Contains(m, "(pm BeforeKickOff)") }, "(play_mode 0)"},
		{"(dropBall)", func(m string) bool { return strings.Contains(m, "(pm PlayOn)") }, ""},
		{"(time 10)", func(m string) bool { return strings.Contains(m, "(t 10.") }, ""},
		{"(score (left 1)(right 2))", func(m string) bool { return strings.Contains(m, "(sl 1) (sr 2)") }, "(score_left 1)(score_right 2)"},
		{"(getAck ack1)", func(string) bool { return true }, ""},
		{"(reqfullstate)", func(string) bool { return true }, "((FieldLength 9)"},
	}
	for _, st := range steps {
		from := mon.count()
		mon.send(t, st.cmd)
		ag.waitFor(t, st.cmd, st.want)
		if st.mon != "" {
			mon.waitFor(t, from, st.cmd+" on the monitor", func(m string) bool { return strings.Contains(m, st.mon) })
		}
	}
	// In play the game time runs and an update comes every 0.04 s of it.
	mon.send(t, "(playMode PlayOn)")
	from := mon.count()
	last := mon.waitFor(t, from+20, "20 updates", func(m string) bool { return strings.HasPrefix(m, "((time ") })
	var prev float64
	checked := 0
	mon.mu.Lock()
	for _, m := range mon.msgs[from : last+1] {
		var tm float64
		if _, err := fmt.Sscanf(m, "((time %g)", &tm); err != nil {
			continue
		}
		if prev > 10 {
			checked++
			if math.Abs(tm-prev-0.04) > 1e-6 {
				t.Errorf("monitor updates %.4f s apart, want 0.04", tm-prev)
			}
		}
		prev = tm
	}
	// Every monitor message is one balanced run of S-expressions, like
	// the fork's (monitor.txt): a viewer parses it without error.
	var sc simspark.Scanner
	for i, m := range mon.msgs {
		sc.Reset([]byte(m), 0)
		for {
			tok, err := sc.Next()
			if err != nil {
				t.Fatalf("monitor message %d does not parse: %v: %.200s", i, err, m)
			}
			if tok == simspark.TokenEOF {
				break
			}
		}
	}
	mon.mu.Unlock()
	if checked < 15 {
		t.Errorf("only %d update intervals checked", checked)
	}
	// A moved ball rolls: (ball (pos -1 0 0.05)(vel 2 0 0)) stops near x = 0.64.
	mon.send(t, "(ball (pos -1 0 0.05)(vel 2 0 0))")
	ag.waitFor(t, "ball at rest", func(m string) bool { return strings.Contains(m, "(ballpos 0.64 0.00 0.05)") })
	// kill closes the agent's connection.
	mon.send(t, "(kill (unum 1)(team Left))")
	select {
	case <-ag.done:
	case <-time.After(5 * time.Second):
		t.Fatal("kill did not close the agent's connection")
	}
}

// TestAgentsOnBothTeams: several agents; the first team to init plays left;
// they see each other.
func TestAgentsOnBothTeams(t *testing.T) {
	s := startServer(t, syncConfig())
	a1 := startBackground(t, s.AgentAddr(), "Red", 1, -2, 0)
	a1.waitFor(t, "init", func(m string) bool { return strings.Contains(m, "(team left)") })
	a2 := startBackground(t, s.AgentAddr(), "Red", 2, -2, 1)
	b1 := startBackground(t, s.AgentAddr(), "Blue", 1, -1, 0.5)
	b2 := startBackground(t, s.AgentAddr(), "Blue", 2, -3, -1)
	a2.waitFor(t, "left side", func(m string) bool { return strings.Contains(m, "(unum 2) (team left)") })
	b1.waitFor(t, "right side", func(m string) bool { return strings.Contains(m, "(unum 1) (team right)") })
	b2.waitFor(t, "right side", func(m string) bool { return strings.Contains(m, "(unum 2) (team right)") })
	a1.waitFor(t, "opponents in view", func(m string) bool { return strings.Contains(m, "(P (team Blue) (id 1)") })
	b1.waitFor(t, "opponents in view", func(m string) bool { return strings.Contains(m, "(P (team Red) (id 1)") })
	if st := s.Stats(); st.Agents != 4 {
		t.Errorf("%d agents, want 4", st.Agents)
	}
}

// lockedBuffer is a log sink for tests.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFaults: malformed agent messages are logged and ignored for that
// agent only; an agent that disconnects mid-run is removed and the others
// go on; no input panics the server.
func TestFaults(t *testing.T) {
	var logs lockedBuffer
	cfg := syncConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	s := startServer(t, cfg)
	good := startBackground(t, s.AgentAddr(), "T", 1, -2, 0)
	good.waitFor(t, "landing", func(m string) bool { return strings.Contains(m, "FRP") })

	bad := dialAgent(t, s.AgentAddr())
	bad.send([]byte("(scene rsg/agent/nao/nao.rsg)(syn)"))
	bad.recv(5 * time.Second)
	bad.send([]byte("(init (unum 2)(teamname T))(syn)"))
	for i, m := range []string{"(he1 (", "((x))(syn)", "(he9 1)(syn)", "(lle7 1)(syn)", "(beam nan 0 0)(syn)", "\x00\xff(syn)", "(say (a))(syn)"} {
		bad.recv(5 * time.Second)
		bad.send([]byte(m))
		if i == 0 {
			// Not a message at all: the agent still owes its (syn).
			bad.send(syn)
		}
	}
	bad.recv(5 * time.Second)
	bad.send([]byte("(he1 1)(syn)"))
	var last []byte
	for i := 0; i < 5; i++ {
		last = bad.recv(5 * time.Second)
		bad.send(syn)
	}
	var p simspark.Perception
	if err := p.Parse(last); err != nil {
		t.Fatal(err)
	}
	if p.Joints[0].ID != simspark.HJ1 || p.Joints[0].Deg < 1 {
		t.Errorf("a valid command after malformed ones had no effect: %v", p.Joints[0])
	}
	if st := s.Stats(); st.Malformed < 6 {
		t.Errorf("%d malformed messages counted, want ≥ 6", st.Malformed)
	}
	if l := logs.String(); !strings.Contains(l, "agent message ignored") {
		t.Errorf("malformed messages not logged:\n%s", l)
	}
	// The bad agent leaves in the middle of a cycle; the good one goes on.
	bad.close()
	n := good.messages()
	good.waitFor(t, "cycles after the disconnect", func(string) bool { return good.messages() > n+50 })
	if st := s.Stats(); st.Agents != 1 {
		t.Errorf("%d agents after a disconnect, want 1", st.Agents)
	}
	if l := logs.String(); !strings.Contains(l, "agent removed") {
		t.Errorf("removal not logged:\n%s", l)
	}
}

// TestRealTime: without sync the server runs at the cycle's pace whether
// or not the agent answers.
func TestRealTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MonitorAddr = ""
	s := startServer(t, cfg)
	a := dialAgent(t, s.AgentAddr())
	defer a.close()
	a.send([]byte("(scene rsg/agent/nao/nao.rsg)"))
	var p simspark.Perception
	first := a.recv(2 * time.Second)
	if err := p.Parse(first); err != nil {
		t.Fatal(err)
	}
	t0, w0 := p.Time, time.Now()
	var last []byte
	for i := 0; i < 30; i++ {
		last = a.recv(2 * time.Second)
	}
	el := time.Since(w0)
	if err := p.Parse(last); err != nil {
		t.Fatal(err)
	}
	if d := p.Time - t0; d < 0.299 || d > 0.301 {
		t.Errorf("30 messages advanced the time by %.3f s, want 0.30", d)
	}
	// Paced: no faster than the cycle (a free-running server sends 30
	// messages in a few milliseconds). A server behind its schedule
	// catches up by at most 5 cycles, and the first message may itself
	// have come late, so 30 cycles take at least 24 of them. A loaded
	// machine may make it slower, which is not an error of the server.
	if el < 240*time.Millisecond {
		t.Errorf("30 cycles of 10 ms took %v, want ≥ 240 ms (paced at the cycle)", el)
	}
}

// TestNoGoroutineLeak: after Run returns on cancel, every goroutine it
// started has ended, with agents and a monitor still connected.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	cfg := syncConfig()
	cfg.AgentAddr, cfg.MonitorAddr = "127.0.0.1:0", "127.0.0.1:0"
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var conns []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", s.AgentAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		c.Write(simspark.AppendFrame(nil, []byte("(scene rsg/agent/nao/nao.rsg)(syn)")))
	}
	m, err := net.Dial("tcp", s.MonitorAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	conns = append(conns, m)
	waitScenes(t, s, 3)
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	// The server closed its ends: the clients see EOF.
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Errorf("client read: %v (want EOF)", err)
		}
		c.Close()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after Run returned:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
	// Run once only.
	if err := s.Run(context.Background()); err == nil {
		t.Error("a second Run succeeded")
	}
}

// TestConfigErrors: bad settings and busy ports give clear errors.
func TestConfigErrors(t *testing.T) {
	defer leaktest.Check(t)()
	for _, c := range []struct {
		name string
		mut  func(*Config)
		want string
	}{
		{"zero cycle", func(c *Config) { c.Cycle = 0 }, "cycle"},
		{"negative rest", func(c *Config) { c.RestSteps = -1 }, "rest steps"},
		{"bad address", func(c *Config) { c.AgentAddr = "127.0.0.1:99999" }, "agent port"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.AgentAddr, cfg.MonitorAddr = "127.0.0.1:0", "127.0.0.1:0"
			c.mut(&cfg)
			s, err := New(cfg)
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
	// The monitor port taken.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := DefaultConfig()
	cfg.AgentAddr, cfg.MonitorAddr = "127.0.0.1:0", ln.Addr().String()
	if s, err := New(cfg); err == nil {
		s.Close()
		t.Error("a taken monitor port gave no error")
	}
}

// TestSyncTimeout: in sync mode an agent that withholds (syn) past
// SyncTimeout is disconnected and the others go on; without the timeout
// the server waits, as the real one.
func TestSyncTimeout(t *testing.T) {
	cfg := syncConfig()
	cfg.SyncTimeout = 100 * time.Millisecond
	s := startServer(t, cfg)
	good := startBackground(t, s.AgentAddr(), "T", 1, -2, 0)
	good.waitFor(t, "landing", func(m string) bool { return strings.Contains(m, "FRP") })
	silent := dialAgent(t, s.AgentAddr())
	defer silent.close()
	silent.send([]byte("(scene rsg/agent/nao/nao.rsg)(syn)"))
	silent.recv(5 * time.Second) // and never answer
	n := good.messages()
	good.waitFor(t, "cycles after the silent agent was dropped", func(string) bool { return good.messages() > n+30 })
	if st := s.Stats(); st.DroppedAgents != 1 || st.Agents != 1 {
		t.Errorf("stats %+v, want one dropped agent and one left", st)
	}
}

// TestMonitorsComeAndGo: a monitor leaving does not disturb the others.
func TestMonitorsComeAndGo(t *testing.T) {
	s := startServer(t, syncConfig())
	ag := startBackground(t, s.AgentAddr(), "T", 1, -2, 0)
	ag.waitFor(t, "landing", func(m string) bool { return strings.Contains(m, "FRP") })
	m1 := dialMonitor(t, s.MonitorAddr())
	m2 := dialMonitor(t, s.MonitorAddr())
	m1.waitFor(t, 0, "a message", func(string) bool { return true })
	m2.waitFor(t, 0, "a message", func(string) bool { return true })
	m1.c.Close()
	for i := 0; i < 3; i++ {
		m3 := dialMonitor(t, s.MonitorAddr())
		m3.waitFor(t, 0, "a message", func(string) bool { return true })
		m3.c.Close()
	}
	n := m2.count()
	m2.waitFor(t, n+20, "more updates", func(string) bool { return true })
}
