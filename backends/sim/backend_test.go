package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/internal/traces"
	"github.com/robotd/robotd/proto/simspark"
)

// fakeServer is a real TCP server that plays recorded perceptor messages
// and records every frame the agent sends, per connection. In lockstep mode
// (like a sync-mode server with one agent) it sends the next message when
// a frame arrives; otherwise it sends one every period (real time), after
// the scene.
type fakeServer struct {
	ln     net.Listener
	msgs   [][]byte
	period time.Duration // 0: lockstep
	// silentAfter makes every connection stop sending (but stay open)
	// after that many messages (-1: send nothing; 0: never stop).
	silentAfter int
	// pause delays the message with index pauseAt on each connection.
	pause   time.Duration
	pauseAt int
	// bad, when set, replaces the message with this index.
	bad    []byte
	badIdx int
	badN   int // with bad: this many messages from badIdx on (0: one)

	mu    sync.Mutex
	conns []net.Conn
	got   [][]string
	wg    sync.WaitGroup
}

func newFakeServer(t *testing.T, addr string, msgs [][]byte, period time.Duration) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	return &fakeServer{ln: ln, msgs: msgs, period: period, badIdx: -1}
}

func (s *fakeServer) start() *fakeServer {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := s.ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			idx := len(s.got)
			s.conns = append(s.conns, c)
			s.got = append(s.got, nil)
			s.mu.Unlock()
			s.wg.Add(1)
			go s.handle(c, idx)
		}
	}()
	return s
}

func (s *fakeServer) msg(i int) []byte {
	if i == s.badIdx || (s.badIdx >= 0 && i > s.badIdx && i < s.badIdx+s.badN) {
		return s.bad
	}
	return s.msgs[i%len(s.msgs)]
}

func (s *fakeServer) handle(c net.Conn, idx int) {
	defer s.wg.Done()
	defer c.Close()
	fr := simspark.NewFrameReader(c, 0)
	record := func() bool {
		b, err := fr.Next()
		if err != nil {
			return false
		}
		s.mu.Lock()
		s.got[idx] = append(s.got[idx], string(b))
		s.mu.Unlock()
		return true
	}
	if !record() { // the scene comes first
		return
	}
	send := func(i int) bool {
		if s.silentAfter != 0 && i >= s.silentAfter {
			return true
		}
		if s.pause > 0 && i == s.pauseAt {
			time.Sleep(s.pause)
		}
		_, err := c.Write(simspark.AppendFrame(nil, s.msg(i)))
		return err == nil
	}
	if s.period == 0 {
		for i := 0; send(i) && record(); i++ {
		}
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for record() {
		}
	}()
	tk := time.NewTicker(s.period)
	defer tk.Stop()
	for i := 0; ; i++ {
		select {
		case <-done:
			return
		case <-tk.C:
			if !send(i) {
				c.Close()
				<-done
				return
			}
		}
	}
}

// sent returns the frames received on connection i.
func (s *fakeServer) sent(i int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.got) {
		return nil
	}
	return append([]string(nil), s.got[i]...)
}

// waitSent waits for n frames on connection i and returns them; the
// deadline only guards against a hang on a loaded machine.
func (s *fakeServer) waitSent(i, n int) []string {
	deadline := time.Now().Add(10 * time.Second)
	for len(s.sent(i)) < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	return s.sent(i)
}

func (s *fakeServer) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

// kill closes the listener and every connection and waits for the server's
// goroutines.
func (s *fakeServer) kill() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func connectMessages(t testing.TB) [][]byte {
	var msgs [][]byte
	for _, m := range traces.Read(t, "connect.txt") {
		if m.Dir == "in" {
			msgs = append(msgs, m.Payload)
		}
	}
	if len(msgs) < 50 {
		t.Fatalf("connect.txt: only %d perceptor messages", len(msgs))
	}
	return msgs
}

func testConfig(port int, sync bool) Config {
	cfg := DefaultConfig()
	cfg.Port, cfg.Team, cfg.Player, cfg.Sync = port, "T", 3, sync
	cfg.Beam = Beam{X: -1.5, Y: 0.5, Deg: 90}
	cfg.ReadTimeout = config.Duration(2 * time.Second) // no stall from a loaded machine unless a test wants one
	cfg.DeadTimeout = config.Duration(4 * time.Second)
	cfg.HandshakeTimeout = config.Duration(2 * time.Second)
	cfg.BackoffMin = config.Duration(10 * time.Millisecond)
	cfg.BackoffMax = config.Duration(40 * time.Millisecond)
	return cfg
}

// stepper runs the runner's cycle against a backend: Next, read the
// sensors, write a joint command, Commit.
type stepper struct {
	t    *testing.T
	b    *Backend
	last hal.Tick
	cmd  hal.JointCommand
}

func (s *stepper) step() hal.Tick {
	s.t.Helper()
	tk, err := s.b.Next(context.Background())
	if err != nil {
		s.t.Fatalf("Next: %v", err)
	}
	if tk.Seq != s.last.Seq+1 || tk.Time <= s.last.Time {
		s.t.Fatalf("tick %+v after %+v: want Seq+1 and a later Time", tk, s.last)
	}
	var js hal.JointSensors
	s.b.ReadJoints(&js)
	s.b.WriteJoints(&s.cmd)
	if err := s.b.Commit(context.Background()); err != nil && tk.Connected {
		s.t.Logf("Commit: %v", err) // the server may just have gone
	}
	s.last = tk
	return tk
}

// until steps until cond holds for a tick, or fails after timeout.
func (s *stepper) until(what string, timeout time.Duration, cond func(hal.Tick) bool) hal.Tick {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if tk := s.step(); cond(tk) {
			return tk
		}
	}
	s.t.Fatalf("no tick with %s within %v (last %+v, stats %+v)", what, timeout, s.last, s.b.Stats())
	return hal.Tick{}
}

func connected(tk hal.Tick) bool    { return tk.Connected }
func disconnected(tk hal.Tick) bool { return !tk.Connected }

// checkHandshake checks that a connection's first frames were the scene,
// init with beam in one frame (the robot never stands at its spawn slot)
// and beam again, and that a joint reply followed, with (syn) on all of
// them in sync mode and on none otherwise.
func checkHandshake(t *testing.T, got []string, sync bool) {
	t.Helper()
	beam := "(beam -1.5000 0.5000 90.0000)"
	want := []string{"(scene rsg/agent/nao/nao.rsg)", "(init (unum 3)(teamname T))" + beam, beam}
	if len(got) < 4 {
		t.Fatalf("server got %q, want scene, init with beam, beam, and joint commands", got)
	}
	for i, w := range want {
		if sync {
			w += "(syn)"
		}
		if got[i] != w {
			t.Fatalf("frame %d: %q, want %q", i, got[i], w)
		}
	}
	j := got[3]
	if !strings.HasPrefix(j, "(he1 ") || !strings.Contains(j, "(rle6 ") || strings.Count(j, "(") != 22+btoi(sync) ||
		strings.HasSuffix(j, "(syn)") != sync {
		t.Fatalf("joint reply %q: want 22 joint velocities, (syn) %v", j, sync)
	}
	for _, f := range got {
		if strings.Contains(f, "(syn)") != sync {
			t.Fatalf("frame %q: (syn) should be there: %v", f, sync)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestClientConnectsAndReconnects(t *testing.T) {
	msgs := connectMessages(t)
	for _, tc := range []struct {
		name   string
		sync   bool
		period time.Duration
	}{
		{"sync mode, lockstep server", true, 0},
		{"real-time mode, 10 ms server", false, 10 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer leaktest.Check(t)()
			srv := newFakeServer(t, "127.0.0.1:0", msgs, tc.period).start()
			defer srv.kill()
			addr := srv.ln.Addr().(*net.TCPAddr)
			b, err := New(testConfig(addr.Port, tc.sync), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			s := &stepper{t: t, b: b}
			for j := range s.cmd.Stiffness {
				s.cmd.Stiffness[j] = 1
			}
			s.cmd.Angle[hal.HeadYaw] = 0.5

			first := s.until("Connected", 5*time.Second, connected)
			for range 20 {
				if tk := s.step(); !tk.Connected {
					t.Fatalf("disconnected tick %+v while the server runs (stats %+v)", tk, b.Stats())
				}
			}
			// Tick time runs on by the server's clock, 10 ms a message
			// (connect.txt starts at 4.05 s; tick time does not jump there).
			if first.Time > time.Second || s.last.Time-first.Time != 20*10*time.Millisecond {
				t.Errorf("tick times %v … %v: want them continuing from the idle ticks, 10 ms apart", first.Time, s.last.Time)
			}
			if c := b.Cycle(); c < 0.0099 || c > 0.0101 {
				t.Errorf("measured cycle %v s", c)
			}
			checkHandshake(t, srv.waitSent(0, 4), tc.sync)

			// The server goes away: ticks go on, paced at the period, with
			// Connected false and the last sensor values.
			var before hal.JointSensors
			b.ReadJoints(&before)
			srv.kill()
			down := s.until("Connected false", 2*time.Second, disconnected)
			t0 := time.Now()
			for range 10 {
				prev := s.last
				if tk := s.step(); tk.Connected || tk.Time-prev.Time != b.cfg.Period.D() {
					t.Fatalf("tick %+v after %+v while down: want Connected false, one period later", tk, prev)
				}
			}
			if el := time.Since(t0); el < 9*b.cfg.Period.D() {
				t.Errorf("10 disconnected ticks took %v, want them paced at %v", el, b.cfg.Period.D())
			}
			if s.last.Time-down.Time != 10*b.cfg.Period.D() {
				t.Errorf("disconnected ticks advanced %v in 10 ticks", s.last.Time-down.Time)
			}
			var after hal.JointSensors
			b.ReadJoints(&after)
			if after != before {
				t.Errorf("joint sensors changed while disconnected")
			}
			if b.Stats().Errors == 0 {
				t.Errorf("the lost connection was not counted: %+v", b.Stats())
			}

			// It comes back on the same port: the backend reconnects,
			// re-runs scene, init and beam, and time goes on (the new
			// server starts again at 4.05 s).
			srv2 := newFakeServer(t, addr.String(), msgs, tc.period).start()
			defer srv2.kill()
			back := s.until("Connected again", 5*time.Second, connected)
			for range 5 {
				s.step()
			}
			if back.Time <= down.Time || b.Stats().Reconnects != 1 {
				t.Errorf("reconnected at %v (down at %v), stats %+v", back.Time, down.Time, b.Stats())
			}
			checkHandshake(t, srv2.waitSent(0, 4), tc.sync)

			// SafeState stops every joint at once.
			if err := b.SafeState(context.Background()); err != nil {
				t.Fatal(err)
			}
			var lastFrame string
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				got := srv2.sent(0)
				if lastFrame = got[len(got)-1]; strings.Count(lastFrame, " 0.0000)") == 22 {
					break
				}
			}
			if strings.Count(lastFrame, " 0.0000)") != 22 || strings.Count(lastFrame, "(") != 22 {
				t.Fatalf("after SafeState the server got %q last, want 22 zero velocities", lastFrame)
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Next(context.Background()); !errors.Is(err, ErrClosed) {
				t.Errorf("Next after Close: %v", err)
			}
		})
	}
}

// TestClientSilentServer checks the three kinds of silence: a server that
// pauses for longer than the read timeout (ticks go on disconnected, then
// the same connection resumes), one that stops sending but keeps the
// connection (given up after the dead timeout, then dialled again), and
// one that never sends its first message (given up after the handshake
// timeout).
func TestClientSilentServer(t *testing.T) {
	defer leaktest.Check(t)()
	msgs := connectMessages(t)
	srv := newFakeServer(t, "127.0.0.1:0", msgs, 0)
	srv.pause, srv.pauseAt = time.Second, 10
	srv.silentAfter = 30
	srv.start()
	defer srv.kill()
	cfg := testConfig(srv.ln.Addr().(*net.TCPAddr).Port, true)
	cfg.ReadTimeout = config.Duration(300 * time.Millisecond)
	cfg.DeadTimeout = config.Duration(2 * time.Second)
	cfg.HandshakeTimeout = config.Duration(500 * time.Millisecond)
	b, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := &stepper{t: t, b: b}

	// A pause: disconnected ticks, then the same connection again.
	s.until("Connected", 5*time.Second, connected)
	paused := s.until("Connected false (pause)", 2*time.Second, disconnected)
	resumed := s.until("Connected after the pause", 2*time.Second, connected)
	if st := b.Stats(); st.Reconnects != 0 || srv.connections() != 1 || st.Errors != 1 {
		t.Errorf("after a pause: stats %+v, %d connections; want the silence counted and no reconnect", st, srv.connections())
	}
	t.Logf("paused: disconnected at %v, resumed at %v on the same connection", paused.Time, resumed.Time)

	// Silent for good: given up after the dead timeout and dialled again.
	down := s.until("Connected false (silent)", 2*time.Second, disconnected)
	back := s.until("Connected again", 5*time.Second, connected)
	if st := b.Stats(); st.Reconnects != 1 || srv.connections() != 2 || back.Time <= down.Time {
		t.Errorf("after a dead server: stats %+v, %d connections, down at %v, back at %v", st, srv.connections(), down.Time, back.Time)
	}
	for range 5 {
		s.step()
	}
	checkHandshake(t, srv.waitSent(1, 4), true)

	// Silent from the start: never connected, the handshake times out
	// and the backend keeps trying.
	srv.kill()
	srv2 := newFakeServer(t, srv.ln.Addr().String(), msgs, 0)
	srv2.silentAfter = -1 // never sends anything
	srv2.start()
	defer srv2.kill()
	s.until("Connected false", 2*time.Second, disconnected)
	deadline := time.Now().Add(3 * time.Second)
	for srv2.connections() < 2 && time.Now().Before(deadline) {
		if s.step().Connected {
			t.Fatal("connected to a server that never sends")
		}
	}
	if srv2.connections() < 2 {
		t.Errorf("%d connections to a silent server: want the handshake timeout to retry", srv2.connections())
	}
}

// TestClientSkipsMalformedMessages sends a malformed message in the middle
// of the stream: it is counted and skipped, the backend keeps going, and in
// sync mode it still answers with (syn).
func TestClientSkipsMalformedMessages(t *testing.T) {
	defer leaktest.Check(t)()
	msgs := connectMessages(t)
	srv := newFakeServer(t, "127.0.0.1:0", msgs, 0)
	srv.bad, srv.badIdx = []byte("(time (now 4.2)(GYR"), 20
	srv.start()
	defer srv.kill()
	b, err := New(testConfig(srv.ln.Addr().(*net.TCPAddr).Port, true), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := &stepper{t: t, b: b}
	s.until("Connected", 5*time.Second, connected)
	for range 40 {
		if tk := s.step(); !tk.Connected {
			t.Fatalf("disconnected after a malformed message: %+v, stats %+v", tk, b.Stats())
		}
	}
	if st := b.Stats(); st.Errors != 1 || st.Reconnects != 0 {
		t.Errorf("stats %+v, want exactly one error", st)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Port = -1
	if _, err := New(cfg, nil); err == nil || !strings.Contains(err.Error(), "port") {
		t.Fatalf("New with port -1: %v", err)
	}
}

func TestNextHonoursContext(t *testing.T) {
	defer leaktest.Check(t)()
	cfg := testConfig(1, false) // nothing listens on port 1
	b, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	tk, err := b.Next(ctx)
	if err != nil || tk.Connected || tk.Seq != 1 {
		t.Fatalf("first tick without a server: %+v, %v", tk, err)
	}
	cancel()
	if _, err := b.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with a cancelled context: %v", err)
	}
}

// cycleMessages returns a few recorded messages, with and without See.
func cycleMessages(t testing.TB) [][]byte {
	var msgs [][]byte
	for _, m := range traces.Read(t, "vision_headsweep.txt") {
		if m.Dir == "in" && m.Cycle >= 60 && len(msgs) < 6 {
			msgs = append(msgs, m.Payload)
		}
	}
	if !bytes.Contains(bytes.Join(msgs, nil), []byte("(See")) {
		t.Fatal("no See block among the cycle messages")
	}
	return msgs
}

// cycle is one steady-state cycle without the socket: parse, adapt, encode
// the reply frame.
type cycle struct {
	a    *Adapter
	p    simspark.Perception
	e    simspark.Effectors
	out  []byte
	msgs [][]byte
	i    int
}

func newCycle(t testing.TB) *cycle {
	c := &cycle{a: NewAdapter(DefaultConfig()), msgs: cycleMessages(t)}
	var cmd hal.JointCommand
	for j := range cmd.Stiffness {
		cmd.Stiffness[j] = 1
		cmd.Angle[j] = 0.1
	}
	c.a.WriteJoints(&cmd)
	return c
}

func (c *cycle) run() error {
	if err := c.p.Parse(c.msgs[c.i%len(c.msgs)]); err != nil {
		return err
	}
	c.i++
	c.a.Update(&c.p)
	c.e.Reset()
	c.a.AppendJointVelocities(&c.e)
	c.e.AddItem(simspark.EffSyn)
	buf, off := simspark.BeginFrame(c.out[:0])
	c.out = simspark.EndFrame(c.e.Append(buf, replyFormat), off)
	return nil
}

func TestCycleDoesNotAllocate(t *testing.T) {
	c := newCycle(t)
	for range 2 * len(c.msgs) { // warm up every buffer
		if err := c.run(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.HasPrefix(c.out[4:], []byte("(he1 ")) {
		t.Fatalf("reply %q", c.out)
	}
	if n := testing.AllocsPerRun(200, func() { _ = c.run() }); n != 0 {
		t.Fatalf("one cycle (parse, adapt, encode) allocates %v times", n)
	}
}

func BenchmarkCycle(b *testing.B) {
	c := newCycle(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.run(); err != nil {
			b.Fatal(err)
		}
	}
}

// retimed returns msgs with the time perceptor rewritten to start at
// start seconds and advance by 10 ms per message.
func retimed(t *testing.T, msgs [][]byte, start float64) [][]byte {
	t.Helper()
	re := regexp.MustCompile(`\(time \(now [0-9.]+\)\)`)
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		if !re.Match(m) {
			t.Fatalf("message %d has no time perceptor: %.80s", i, m)
		}
		now := fmt.Sprintf("(time (now %.2f))", start+float64(i)*0.01)
		out[i] = re.ReplaceAll(m, []byte(now))
	}
	return out
}

// checkContinuous fails unless every tick after prev is one tick on and
// at most one period (or cycle) later.
func checkContinuous(t *testing.T, ticks []hal.Tick, prev hal.Tick) {
	t.Helper()
	for _, tk := range ticks {
		if d := tk.Time - prev.Time; d <= 0 || d > 10*time.Millisecond {
			t.Fatalf("tick %+v after %+v: time stepped %v, want one cycle (10 ms)", tk, prev, d)
		}
		prev = tk
	}
}

// TestClockContinuesAcrossServerClocks covers servers whose clock does not
// start where the robot's does: a sync-mode server that ran for minutes
// before the robot connected, and one that restarts at 0. Tick time steps
// by one cycle at every tick in both from the first message on, the idle
// ticks while the server is down included.
func TestClockContinuesAcrossServerClocks(t *testing.T) {
	msgs := connectMessages(t)
	t.Run("server clock at minutes", func(t *testing.T) {
		defer leaktest.Check(t)()
		srv := newFakeServer(t, "127.0.0.1:0", retimed(t, msgs, 1623.47), 0)
		srv.pause, srv.pauseAt = 200*time.Millisecond, 0 // idle ticks first
		srv.start()
		defer srv.kill()
		b, err := New(testConfig(srv.ln.Addr().(*net.TCPAddr).Port, true), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		s := &stepper{t: t, b: b}
		var ticks []hal.Tick
		first := s.until("Connected", 10*time.Second, func(tk hal.Tick) bool {
			ticks = append(ticks, tk)
			return tk.Connected
		})
		for range 30 {
			ticks = append(ticks, s.step())
		}
		if len(ticks) < 32 {
			t.Fatalf("the first message came on tick %d: want idle ticks before it", first.Seq)
		}
		// Before the first message tick time all but stands still
		// (waiting is not simulation time: 1 ns a tick); from it on it
		// steps by one cycle.
		k := slices.IndexFunc(ticks, func(tk hal.Tick) bool { return tk.Connected })
		for i, tk := range ticks[:k] {
			if tk.Time != time.Duration(i+1) {
				t.Fatalf("idle tick %+v before the first message: want time %v", tk, time.Duration(i+1))
			}
		}
		checkContinuous(t, ticks[k:], ticks[k-1])
		if first.Time > 5*time.Second {
			t.Errorf("first connected tick at %v: the server's clock leaked into tick time", first.Time)
		}
		if got := s.last.Time - first.Time; got != 300*time.Millisecond {
			t.Errorf("30 messages advanced tick time by %v, want 300 ms", got)
		}
	})
	t.Run("server restarts at 0", func(t *testing.T) {
		defer leaktest.Check(t)()
		srv := newFakeServer(t, "127.0.0.1:0", retimed(t, msgs, 95.5), 0).start()
		defer srv.kill()
		addr := srv.ln.Addr().String()
		b, err := New(testConfig(srv.ln.Addr().(*net.TCPAddr).Port, true), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		s := &stepper{t: t, b: b}
		var ticks []hal.Tick
		rec := func(tk hal.Tick) { ticks = append(ticks, tk) }
		s.until("Connected", 10*time.Second, func(tk hal.Tick) bool { rec(tk); return tk.Connected })
		for range 20 {
			rec(s.step())
		}
		srv.kill()
		s.until("Connected false", 5*time.Second, func(tk hal.Tick) bool { rec(tk); return !tk.Connected })
		srv2 := newFakeServer(t, addr, retimed(t, msgs, 0), 0).start()
		defer srv2.kill()
		back := s.until("Connected again", 10*time.Second, func(tk hal.Tick) bool { rec(tk); return tk.Connected })
		for range 20 {
			rec(s.step())
		}
		checkContinuous(t, ticks, hal.Tick{})
		if got := s.last.Time - back.Time; got != 200*time.Millisecond {
			t.Errorf("20 messages after the restart advanced tick time by %v, want 200 ms", got)
		}
		if b.Stats().Reconnects != 1 {
			t.Errorf("stats %+v: want one reconnect", b.Stats())
		}
	})
}

// TestTimeBase: the first robot goes on at the next whole second after its
// last tick; later robots take the shared offset unless it would take their
// clock backwards, and then set a new one (a restarted server).
func TestTimeBase(t *testing.T) {
	var tb TimeBase
	s, ms := time.Second, time.Millisecond
	steps := []struct {
		sim, last, next, want time.Duration // server time, the robot's last and next tick, the offset
	}{
		{100 * s, 0, 40 * ms, -99 * s},       // first robot: tick 1 s at server 100 s
		{103 * s, 0, 20 * ms, -99 * s},       // a later robot joins the team clock (4 s)
		{2 * s, 10*s - 10*ms, 10 * s, 8 * s}, // server restarted: continue at 10 s
		{3 * s, 9*s - 10*ms, 9 * s, 8 * s},   // the next robot after the restart
		{3 * s, 11 * s, 11*s + ms, 9 * s},    // its clock is ahead: a new offset, at the next second
		{3 * s, 0, 100 * ms, 9 * s},          // a nominal period beyond the server time: the team clock
	}
	for i, st := range steps {
		if got := tb.offset(st.sim, st.last, st.next); got != st.want {
			t.Errorf("step %d: offset(%v, %v, %v) = %v, want %v", i, st.sim, st.last, st.next, got, st.want)
		}
	}
}

// TestTimeBaseFixed: a fixed offset is taken by every robot whose clock it
// does not take backwards, so tick time is the server's time (+ offset)
// however long a robot idled before its first message, and whatever its
// nominal period.
func TestTimeBaseFixed(t *testing.T) {
	var tb TimeBase
	tb.Fix(0)
	ms := time.Millisecond
	for _, st := range []struct{ sim, last, next, want time.Duration }{
		{2000 * ms, 0, 10 * ms, 0},
		{2000 * ms, 1490 * ms, 1500 * ms, 0}, // idled 1.5 s: still the server's time
		{5000 * ms, 0, 20 * ms, 0},
		{20 * ms, 1, 100 * ms, 0}, // the first message at 20 ms, a nominal period of 100 ms
	} {
		if got := tb.offset(st.sim, st.last, st.next); got != st.want {
			t.Errorf("offset(%v, %v, %v) = %v, want %v", st.sim, st.last, st.next, got, st.want)
		}
	}
}

// float32Clock retimes msgs with a server clock as the fork keeps it: a
// float32 that adds the 10 ms step every cycle, sent with two decimals.
// It returns the messages and the printed steps.
func float32Clock(t *testing.T, msgs [][]byte, start float32) ([][]byte, []string) {
	t.Helper()
	re := regexp.MustCompile(`\(time \(now [0-9.]+\)\)`)
	out := make([][]byte, len(msgs))
	var steps []string
	clock := start
	prev := ""
	for i, m := range msgs {
		now := strconv.FormatFloat(float64(clock), 'f', 2, 32)
		out[i] = re.ReplaceAll(m, []byte("(time (now "+now+"))"))
		if prev != "" {
			a, _ := strconv.ParseFloat(prev, 64)
			b, _ := strconv.ParseFloat(now, 64)
			steps = append(steps, fmt.Sprintf("%.2f", b-a))
		}
		prev = now
		clock += float32(0.01)
	}
	return out, steps
}

// TestStepOfAFloat32Clock: a server's float32 clock, sent with two
// decimals, reads steps of 0.02 s (from 256 s to 4096 s) or 0 s (beyond
// 4096 s) now and then, while every message is one 10 ms physics step:
// every message's tick steps 10 ms and the measured cycle stays 10 ms,
// while tick time follows the server's clock (which every robot on it
// reads alike) forwards.
func TestStepOfAFloat32Clock(t *testing.T) {
	msgs := connectMessages(t)
	for _, tc := range []struct {
		name  string
		start float32
		odd   string // the step the clock reads now and then
	}{
		{"clock at 3000 s", 3000.0049, "0.02"},
		{"clock at 5000 s", 5000, "0.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer leaktest.Check(t)()
			timed, steps := float32Clock(t, msgs, tc.start)
			if !slices.Contains(steps[1:], tc.odd) {
				t.Fatalf("the clock's steps %v never read %s: not the case under test", steps, tc.odd)
			}
			srv := newFakeServer(t, "127.0.0.1:0", timed, 0).start()
			defer srv.kill()
			b, err := New(testConfig(srv.ln.Addr().(*net.TCPAddr).Port, true), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			s := &stepper{t: t, b: b}
			prev := s.until("Connected", 10*time.Second, connected)
			odd := 0
			for range len(msgs) - 2 {
				tk := s.step()
				if !tk.Connected {
					t.Fatalf("tick %+v: lost the server", tk)
				}
				if tk.Step != 10*time.Millisecond || tk.Period != 10*time.Millisecond {
					t.Fatalf("tick %+v after %+v: want a step and period of one cycle (10 ms); clock steps %v", tk, prev, steps)
				}
				if c := b.Cycle(); math.Abs(c-0.01) > 1e-9 {
					t.Fatalf("tick %+v: measured cycle %.4f s, want 0.0100", tk, c)
				}
				if d := tk.Time - prev.Time; d <= 0 || d > 20*time.Millisecond {
					t.Fatalf("tick %+v after %+v: time stepped %v; clock steps %v", tk, prev, d, steps)
				} else if d != 10*time.Millisecond {
					odd++
				}
				prev = tk
			}
			if tc.odd == "0.02" && odd == 0 {
				t.Errorf("tick time never followed the clock's 20 ms step %v", steps)
			}
		})
	}
}

// TestJoinAfterRepeatedClock: the fork's float32 clock beyond 4096 s reads
// the same time twice now and then, and every robot goes on one cycle
// there. A robot that joins after such repeats ticks every message at the
// tick time of the robots already on the server, whichever of them
// handles a cycle first; without the base's stamps it would lag one cycle
// per repeat it did not see.
func TestJoinAfterRepeatedClock(t *testing.T) {
	// At 5000 s the clock still counts cycles (tick time follows it); at
	// 12000 s it is too coarse to (tick time goes on a cycle a message).
	for _, start := range []float32{5000, 12000} {
		t.Run(fmt.Sprintf("clock at %v s", start), func(t *testing.T) { testJoinAfterRepeatedClock(t, start) })
	}
}

func testJoinAfterRepeatedClock(t *testing.T, start float32) {
	var msgs [][]byte
	for range 8 {
		msgs = append(msgs, connectMessages(t)...)
	}
	timed, steps := float32Clock(t, msgs, start)
	// join: the message on which the second robot connects, after at
	// least two repeats, and the next repeat's index.
	var repeats []int
	for i, s := range steps {
		if s == "0.00" {
			repeats = append(repeats, i+1)
		}
	}
	if len(repeats) < 4 {
		t.Fatalf("the clock repeats at %v: fewer than 4, not the case under test", repeats)
	}
	for _, tc := range []struct {
		name      string
		join      int
		joinerFst bool // the joiner handles each cycle first
	}{
		{"after two repeats, joiner second", repeats[1] + 5, false},
		{"after two repeats, joiner first", repeats[1] + 5, true},
		{"on a repeat, joiner first", repeats[2], true},
		{"on a repeat, joiner second", repeats[2], false},
		{"just before a repeat, joiner first", repeats[2] - 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer leaktest.Check(t)()
			var tb TimeBase
			join := func(from int) (*stepper, func()) {
				srv := newFakeServer(t, "127.0.0.1:0", timed[from:], 0).start()
				b, err := New(testConfig(srv.ln.Addr().(*net.TCPAddr).Port, true), nil)
				if err != nil {
					srv.kill()
					t.Fatal(err)
				}
				b.ShareTime(&tb)
				return &stepper{t: t, b: b}, func() { b.Close(); srv.kill() }
			}
			a, stopA := join(0)
			defer stopA()
			ticksA := []time.Duration{a.until("Connected", 10*time.Second, connected).Time}
			for len(ticksA) < tc.join {
				ticksA = append(ticksA, a.step().Time)
			}
			b, stopB := join(tc.join)
			defer stopB()
			// The joiner's first message arrives while the first robot
			// waits for its next one: handle them in the case's order.
			var ticksB []time.Duration
			stepA := func() { ticksA = append(ticksA, a.step().Time) }
			stepB := func() {
				if len(ticksB) == 0 {
					ticksB = append(ticksB, b.until("Connected", 10*time.Second, connected).Time)
					return
				}
				ticksB = append(ticksB, b.step().Time)
			}
			for len(ticksA) < len(timed)-2 {
				if tc.joinerFst {
					stepB()
					stepA()
				} else {
					stepA()
					stepB()
				}
			}
			bad := 0
			for i, tk := range ticksB {
				m := tc.join + i
				if m >= len(ticksA) {
					break
				}
				if tk != ticksA[m] && i > 0 {
					if bad < 5 {
						t.Errorf("message %d: the joiner ticked %v, the first robot %v", m, tk, ticksA[m])
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d messages on another clock", bad, len(ticksB)-1)
			}
			for i := 1; i < len(ticksA); i++ {
				if d := ticksA[i] - ticksA[i-1]; d != 10*time.Millisecond {
					t.Fatalf("the first robot's message %d stepped %v: want one cycle", i, d)
				}
			}
		})
	}
}

// TestNoiseEpochOnTickTime: with the same seed and epoch (a time after
// each robot's first tick), two robots draw the same vision noise frame
// by frame whether their server's clock counts cycles (100 s) or is a
// float32 too coarse to (12000 s, reading some times twice): the noise is
// drawn on tick time, which goes on one cycle a message on both.
func TestNoiseEpochOnTickTime(t *testing.T) {
	var msgs [][]byte
	for range 4 {
		msgs = append(msgs, connectMessages(t)...)
	}
	coarse, steps := float32Clock(t, msgs, 12000)
	if !slices.Contains(steps, "0.00") {
		t.Fatalf("the coarse clock's steps %v never repeat: not the case under test", steps)
	}
	run := func(timed [][]byte) []hal.Vision {
		defer leaktest.Check(t)()
		srv := newFakeServer(t, "127.0.0.1:0", timed, 0).start()
		defer srv.kill()
		cfg := testConfig(srv.ln.Addr().(*net.TCPAddr).Port, true)
		cfg.Vision.NoiseDistance, cfg.Vision.NoiseAngleDeg, cfg.Vision.Seed = 0.05, 2, 11
		b, err := New(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		var epoch time.Duration
		b.SetNoiseEpoch(func() (time.Duration, bool) { return epoch, epoch != 0 })
		s := &stepper{t: t, b: b}
		first := s.until("Connected", 10*time.Second, connected)
		epoch = first.Time + 200*time.Millisecond
		var out []hal.Vision
		for range len(timed) - 2 {
			tk := s.step()
			var v hal.Vision
			b.ReadVision(&v)
			if tk.Time >= epoch && v.Fresh {
				out = append(out, v)
			}
		}
		return out
	}
	fine := run(retimed(t, msgs, 100))
	got := run(coarse)
	if len(fine) < 20 {
		t.Fatalf("only %d frames after the epoch", len(fine))
	}
	if len(got) != len(fine) {
		t.Fatalf("%d frames after the epoch on the coarse clock, %d on the fine one", len(got), len(fine))
	}
	for i := range fine {
		if got[i].N != fine[i].N {
			t.Fatalf("frame %d: %d observations on the coarse clock, %d on the fine one", i, got[i].N, fine[i].N)
		}
		// The noise is centimetres and degrees; the measured cycle (the
		// angle filter's step) differs between the clocks in the last
		// bits.
		for j := range fine[i].N {
			g, f := got[i].Obs[j], fine[i].Obs[j]
			if g.Kind != f.Kind || math.Abs(float64(g.Distance-f.Distance)) > 1e-9 || math.Abs(float64(g.Bearing-f.Bearing)) > 1e-9 {
				t.Errorf("frame %d, observation %d: %+v on the coarse clock, %+v on the fine one", i, j, g, f)
			}
		}
	}
}
