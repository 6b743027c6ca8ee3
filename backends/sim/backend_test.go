package sim

import (
	"bytes"
	"context"
	"net"
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

// fakeServer is a real TCP server that plays back recorded perceptor
// messages, one per agent reply (like a sync-mode server), and records what
// the agent sends.
type fakeServer struct {
	ln   net.Listener
	msgs [][]byte
	mu   sync.Mutex
	got  []string
	conn net.Conn
}

func newFakeServer(t *testing.T, addr string, msgs [][]byte) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln, msgs: msgs}
	go s.serve()
	return s
}

func (s *fakeServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conn = c
		s.mu.Unlock()
		go func() {
			defer c.Close()
			fr := simspark.NewFrameReader(c, 0)
			// The scene comes first, before any perceptor message.
			for i := 0; ; i++ {
				b, err := fr.Next()
				if err != nil {
					return
				}
				s.mu.Lock()
				s.got = append(s.got, string(b))
				s.mu.Unlock()
				if _, err := c.Write(simspark.AppendFrame(nil, s.msgs[i%len(s.msgs)])); err != nil {
					return
				}
			}
		}()
	}
}

func (s *fakeServer) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

func (s *fakeServer) kill() {
	s.ln.Close()
	s.mu.Lock()
	if s.conn != nil {
		s.conn.Close()
	}
	s.mu.Unlock()
}

func TestClientConnectsSyncsAndReconnects(t *testing.T) {
	defer leaktest.Check(t)()
	var msgs [][]byte
	for _, m := range readTrace(t, "connect.txt") {
		if m.Dir == "in" {
			msgs = append(msgs, m.Payload)
		}
	}
	srv := newFakeServer(t, "127.0.0.1:0", msgs)
	addr := srv.ln.Addr().(*net.TCPAddr)
	cfg := DefaultConfig()
	cfg.Port, cfg.Team, cfg.Player, cfg.Sync = addr.Port, "T", 3, true
	cfg.Beam = [3]float64{-1.5, 0.5, 90}
	cfg.ReadTimeout = config.Duration(200 * time.Millisecond)
	cfg.BackoffMin = config.Duration(20 * time.Millisecond)
	b, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	step := func() hal.Tick {
		t.Helper()
		tk, err := b.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var c hal.JointCommand
		c.Angle[hal.HeadYaw] = 0.5
		for j := range c.Stiffness {
			c.Stiffness[j] = 1
		}
		b.WriteJoints(&c)
		if err := b.Commit(ctx); err != nil && tk.Connected {
			t.Fatal(err)
		}
		return tk
	}
	var last hal.Tick
	for range 10 {
		tk := step()
		if !tk.Connected || tk.Seq <= last.Seq || tk.Time <= last.Time {
			t.Fatalf("tick %+v after %+v", tk, last)
		}
		last = tk
	}
	got := srv.sent()
	want := []string{"(scene rsg/agent/nao/nao.rsg)(syn)", "(init(unum 3)(teamname T))(syn)", "(beam -1.5000 0.5000 90.0000)(syn)"}
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("message %d sent %q, want %q", i, got[i], w)
		}
	}
	if !strings.HasPrefix(got[3], "(he1 ") || !strings.HasSuffix(got[3], "(syn)") || !strings.Contains(got[3], "(rle6 ") || strings.Count(got[3], "(") != 23 {
		t.Fatalf("joint reply %q: want 22 joint velocities and (syn)", got[3])
	}
	// dt comes from the time perceptor (10 ms in the recording).
	if b.dt < 0.0099 || b.dt > 0.0101 {
		t.Fatalf("measured cycle %v s", b.dt)
	}

	// The server goes away: ticks go on, paced, with Connected false.
	srv.kill()
	sawDown := false
	for range 20 {
		tk := step()
		if tk.Seq <= last.Seq || tk.Time <= last.Time {
			t.Fatalf("tick went backwards while down: %+v after %+v", tk, last)
		}
		last = tk
		if !tk.Connected {
			sawDown = true
			break
		}
	}
	if !sawDown || b.Stats().Errors == 0 {
		t.Fatalf("no disconnected tick after the server died (stats %+v)", b.Stats())
	}

	// It comes back on the same port: the backend reconnects and re-inits.
	srv2 := newFakeServer(t, addr.String(), msgs)
	defer srv2.kill()
	deadline := time.Now().Add(5 * time.Second)
	for !last.Connected && time.Now().Before(deadline) {
		last = step()
	}
	if !last.Connected || b.Stats().Reconnects != 1 {
		t.Fatalf("did not reconnect: %+v, stats %+v", last, b.Stats())
	}
	for range 3 {
		step()
	}
	if got := srv2.sent(); len(got) < 3 || !strings.HasPrefix(got[1], "(init") || !strings.HasPrefix(got[2], "(beam") {
		t.Fatalf("after reconnecting sent %q, want scene, init, beam again", got)
	}
	if err := b.SafeState(ctx); err != nil {
		t.Fatal(err)
	}
	b.Close()
	srv2.kill()
}

func TestCycleDoesNotAllocate(t *testing.T) {
	var msg []byte
	for _, m := range readTrace(t, "vision_headsweep.txt") {
		if m.Dir == "in" && bytes.Contains(m.Payload, []byte("(See")) {
			msg = m.Payload
			break
		}
	}
	b, err := New(DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var c hal.JointCommand
	b.WriteJoints(&c)
	var out []byte
	cycle := func() {
		if err := b.p.Parse(msg); err != nil {
			t.Fatal(err)
		}
		b.absorb()
		b.eff.Reset()
		b.jointCommands()
		out = b.eff.Append(out[:0], simspark.Format{Decimals: 4})
	}
	cycle()
	if n := testing.AllocsPerRun(100, cycle); n != 0 {
		t.Fatalf("one cycle (parse, adapt, reply) allocates %v times", n)
	}
}

func BenchmarkCycle(b *testing.B) {
	var msg []byte
	for _, m := range traces.Read(b, "vision_headsweep.txt") {
		if m.Dir == "in" && bytes.Contains(m.Payload, []byte("(See")) {
			msg = m.Payload
			break
		}
	}
	be, _ := New(DefaultConfig(), nil)
	var c hal.JointCommand
	be.WriteJoints(&c)
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		_ = be.p.Parse(msg)
		be.absorb()
		be.eff.Reset()
		be.jointCommands()
		out = be.eff.Append(out[:0], simspark.Format{Decimals: 4})
	}
}
