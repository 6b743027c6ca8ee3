package simserver

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/robotd/robotd/proto/simspark"
)

// agentClient is a test agent on a real socket.
type agentClient struct {
	t   testing.TB
	c   net.Conn
	fr  *simspark.FrameReader
	out []byte
}

func dialAgent(t testing.TB, addr net.Addr) *agentClient {
	t.Helper()
	c, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatalf("dialing the agent port: %v", err)
	}
	return &agentClient{t: t, c: c, fr: simspark.NewFrameReader(c, 0)}
}

func (a *agentClient) send(payload ...[]byte) {
	a.t.Helper()
	b, off := simspark.BeginFrame(a.out[:0])
	for _, p := range payload {
		b = append(b, p...)
	}
	b = simspark.EndFrame(b, off)
	a.out = b
	if _, err := a.c.Write(b); err != nil {
		a.t.Fatalf("agent: sending: %v", err)
	}
}

// recv returns the next message (a copy), failing the test after timeout.
func (a *agentClient) recv(timeout time.Duration) []byte {
	a.t.Helper()
	m, err := a.tryRecv(timeout)
	if err != nil {
		a.t.Fatalf("agent: receiving: %v", err)
	}
	return m
}

func (a *agentClient) tryRecv(timeout time.Duration) ([]byte, error) {
	a.c.SetReadDeadline(time.Now().Add(timeout))
	m, err := a.fr.Next()
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), m...), nil
}

func (a *agentClient) close() { a.c.Close() }

// startServer runs a server on free loopback ports until the test ends; it
// checks that Run returns nil.
func startServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	cfg.AgentAddr = "127.0.0.1:0"
	if cfg.MonitorAddr != "" {
		cfg.MonitorAddr = "127.0.0.1:0"
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("Run did not return after cancel")
		}
	})
	return s
}

// waitScenes waits until the server has parsed n scene effectors.
func waitScenes(t testing.TB, s *Server, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.scenes.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("server saw %d of %d scenes", s.scenes.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

var syn = []byte("(syn)")

// replayServer replays a trace against a sync-mode server over TCP and
// returns robot 1's messages. For vision_headsweep.txt a second agent
// plays the other robot.
func replayServer(t testing.TB, tr *trace, cfg Config) [][]byte {
	t.Helper()
	cfg.Sync = true
	cfg.MonitorAddr = ""
	cfg.Cycle = cycleDuration(tr.cycle)
	s := startServer(t, cfg)
	const timeout = 5 * time.Second
	a := dialAgent(t, s.AgentAddr())
	defer a.close()
	a.send(tr.scene, syn)
	var b *agentClient
	var second *secondAgent
	if tr.name == "vision_headsweep.txt" {
		second = headsweepSecond(tr)
	}
	bn := 0
	out := make([][]byte, 0, len(tr.in))
	for m := 0; m < len(tr.in); m++ {
		msg := a.recv(timeout)
		out = append(out, msg)
		if b != nil {
			b.recv(timeout)
			b.send(second.reply(bn, m), syn)
			bn++
		}
		if second != nil && m == 0 {
			// The second robot's scene must be in before robot 1 answers,
			// so that both runs create it in the same cycle.
			b = dialAgent(t, s.AgentAddr())
			defer b.close()
			b.send(tr.scene, syn)
			waitScenes(t, s, 2)
		}
		if tr.name == "sync_mode.txt" && m == 92 {
			// The trace withheld (syn) here for 2 s: the server must wait.
			if _, err := a.tryRecv(150 * time.Millisecond); err == nil || !isTimeout(err) {
				t.Fatalf("sync mode: a message arrived while (syn) was withheld (err %v)", err)
			}
			// A timed-out read poisons the frame reader; start a new one.
			a.fr = simspark.NewFrameReader(a.c, 0)
		}
		a.send(tr.replyFor(m), syn)
	}
	return out
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
