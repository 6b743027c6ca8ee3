package simserver

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/proto/simspark"
)

// nullConn is a connection that swallows what the server writes.
type nullConn struct{ net.Conn }

func (nullConn) Write(b []byte) (int, error)      { return len(b), nil }
func (nullConn) Close() error                     { return nil }
func (nullConn) SetWriteDeadline(time.Time) error { return nil }
func (nullConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }

// fuzzServer is a server without sockets whose main loop the fuzzer drives
// by hand.
func fuzzServer(tb testing.TB) (*Server, *agentConn, *agentConn) {
	cfg := DefaultConfig()
	cfg.Sync = true
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := cfg.validate(); err != nil {
		tb.Fatal(err)
	}
	w, err := NewWorld(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{cfg: cfg, log: cfg.Logger, world: w, wake: make(chan struct{}, 1)}
	a := &agentConn{id: 0, c: nullConn{}, srv: s}
	b := &agentConn{id: 1, c: nullConn{}, srv: s}
	s.conns = []*agentConn{a, b}
	return s, a, b
}

// FuzzAgentMessage feeds arbitrary agent messages through the server's
// message path (parse, file, collect, realise, step, encode) for two
// agents, and checks that nothing panics and that every perceptor message
// stays valid.
func FuzzAgentMessage(f *testing.F) {
	for _, seed := range []string{
		"(scene rsg/agent/nao/nao.rsg)(syn)\n(init (unum 1)(teamname T))(syn)\n(beam -2 0 0)(syn)\n(he1 1)(lle4 -8)(syn)",
		"(scene rsg/agent/nao/nao.rsg)\n(init (teamname A))\n(beam 1e300 -1e300 7)\n(say hello)",
		"(scene rsg/agent/nao/nao.rsg)\n(init (unum 99)(teamname abcdefghijklmnopqrstuvwxyzABCDEFG))\n(he1 NaN)(he2 Inf)",
		"(scene x)\n(lle5 1)(rle5 1)(lle6 8)(rle6 -8)\n\n\n\n(lle2 -6)(rle2 6)",
		"((((((((((((((((((syn))))))))))))))))))\n(syn)(syn)\n(he1 (1))",
		"(scene rsg/agent/nao/nao_hetero.rsg 4)\n(lle7 1)(syn)\n(beam 0 0)",
	} {
		f.Add([]byte(seed))
	}
	var p simspark.Perception
	f.Fuzz(func(t *testing.T, data []byte) {
		s, a, b := fuzzServer(t)
		msgs := bytes.Split(data, []byte("\n"))
		if len(msgs) > 64 {
			msgs = msgs[:64]
		}
		// Robot b follows robot a's messages one cycle behind.
		for i := 0; i <= len(msgs); i++ {
			if i < len(msgs) {
				a.handle(msgs[i])
			}
			if i > 0 {
				b.handle(msgs[i-1])
			}
			s.collect()
			s.world.Step()
			for _, c := range s.conns {
				if c.agent == nil {
					continue
				}
				out := s.world.AppendPerception(nil, c.agent)
				if err := p.Parse(out); err != nil {
					t.Fatalf("invalid perceptor message after %q: %v\n%s", msgs[:min(i+1, len(msgs))], err, out)
				}
				if strings.Contains(string(out), "NaN") || strings.Contains(string(out), "Inf") {
					t.Fatalf("non-finite value after %q:\n%s", msgs[:min(i+1, len(msgs))], out)
				}
			}
		}
	})
}
