package findball

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/simspark"
	"github.com/robotd/robotd/simrun"
)

// pauseProxy is a TCP proxy in front of a simulator's agent port. Every
// connection's frames from the server to the robot are relayed one by
// one; on the connections numbered in pauseConns (1-based, in accept
// order), after pauseAfter frames, the proxy stops relaying for pauseFor:
// the server stops answering mid-trial, as the real one did.
type pauseProxy struct {
	ln         net.Listener
	target     string
	pauseConns map[int]bool
	pauseAfter int
	pauseFor   time.Duration
	// take, if set, may take over connection n (1-based) instead of
	// relaying it, and says so; gate, if set, runs before each frame from
	// the server to the robot on connection n and stops the relay if it
	// returns false (by default: the pauses above).
	take func(n int, c net.Conn) bool
	gate func(n, frames int) bool

	done   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
	n      int
	paused int // pauses made
}

func newPauseProxy(t *testing.T, target string, conns []int, after int, pause time.Duration) *pauseProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pauseProxy{ln: ln, target: target, pauseConns: map[int]bool{}, pauseAfter: after, pauseFor: pause, done: make(chan struct{})}
	for _, c := range conns {
		p.pauseConns[c] = true
	}
	p.wg.Go(p.accept)
	return p
}

func (p *pauseProxy) Addr() string { return p.ln.Addr().String() }

func (p *pauseProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.n++
		n := p.n
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		if p.take != nil && p.take(n, c) {
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, s)
		p.mu.Unlock()
		gate := p.gate
		if gate == nil {
			gate = p.pause
		}
		p.wg.Go(func() {
			io.Copy(s, c)
			s.Close()
			c.Close()
		})
		p.wg.Go(func() {
			relayFrames(c, s, func(frames int) bool { return gate(n, frames) }, nil)
			s.Close()
			c.Close()
		})
	}
}

// pause pauses connection n once, after pauseAfter frames, for pauseFor,
// if n is one of pauseConns.
func (p *pauseProxy) pause(n, frames int) bool {
	if !p.pauseConns[n] || frames != p.pauseAfter {
		return true
	}
	p.mu.Lock()
	p.paused++
	p.mu.Unlock()
	select {
	case <-time.After(p.pauseFor):
		return true
	case <-p.done:
		return false
	}
}

// relayFrames copies SimSpark frames (proto/simspark's framing) from s
// to c until either side fails or before, called with the number of
// frames read so far, returns false; keep, if not nil, is shown each
// frame's payload and says whether it goes on (else it is dropped).
func relayFrames(c, s net.Conn, before func(frames int) bool, keep func(payload []byte) bool) {
	fr := simspark.NewFrameReader(s, 1<<20)
	var buf []byte
	for frames := 0; before(frames); frames++ {
		payload, err := fr.Next()
		if err != nil {
			return
		}
		if keep != nil && !keep(payload) {
			continue
		}
		buf = simspark.AppendFrame(buf[:0], payload)
		if _, err := c.Write(buf); err != nil {
			return
		}
	}
}

func (p *pauseProxy) pauses() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paused
}

func (p *pauseProxy) Close() {
	close(p.done)
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// TestStalledTrialIsVoid is the done-when: a server that stops
// answering mid-trial. A campaign of one trial runs on an attached
// simulator (the embedded one in sync mode, as a real server, on its own
// ports) through a proxy that goes silent for 1.5 s, 2 s into the trial;
// the robot ticks without the simulator after its 200 ms read timeout.
// That run is void: logged, recorded in the voided table, not stored as a
// result, and run again. If the rerun is fine it is stored; if it stalls
// too, nothing is stored and the campaign says so.
func TestStalledTrialIsVoid(t *testing.T) {
	defer leaktest.Check(t)()
	t.Run("group", func(t *testing.T) {
		t.Run("rerun stored", func(t *testing.T) { testStall(t, []int{1}, 1, 1) })
		t.Run("void twice", func(t *testing.T) { testStall(t, []int{1, 2}, 2, 0) })
	})
}

// testStall runs the campaign with the robot connections numbered in
// pauses silenced mid-trial and checks the void runs and the stored
// trials.
func testStall(t *testing.T, pauses []int, wantVoid, wantStored int) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	sim := serveSim(t)
	defer sim.Close(t)
	srv := sim.srv
	// The penalised half second and 2 s of play: about 250 messages of
	// 10 ms, after the handshake.
	px := newPauseProxy(t, srv.AgentAddr().String(), pauses, 300, 1500*time.Millisecond)
	defer px.Close()

	cfg := quickConfig(1, 1)
	cfg.Balls = []Point{{4, -2.5}} // not found before the limit
	cfg.Limit = config.Duration(4 * time.Second)
	cfg.Strategies = cfg.Strategies[:1]
	plan := cfg.Plan()
	if len(plan) != 1 {
		t.Fatalf("%d trials planned, want 1", len(plan))
	}
	st, err := Open(ctx, filepath.Join(t.TempDir(), "stalled.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&lockedBuffer{b: &logs}, nil))
	sum, err := Run(ctx, &cfg, st, Options{Targets: []simrun.Target{{Agent: px.Addr(), Trainer: srv.MonitorAddr().String()}},
		ReadTimeout: 200 * time.Millisecond, Log: log})
	if wantStored == 1 && err != nil || wantStored == 0 && (err == nil || !strings.Contains(err.Error(), "void in both runs")) {
		t.Fatalf("campaign: %v\n%s", err, logs.String())
	}
	if px.pauses() != len(pauses) {
		t.Fatalf("the proxy paused %d times, want %d", px.pauses(), len(pauses))
	}
	if sum.Ran != wantStored || sum.Voided != wantVoid || sum.VoidTwice != 1-wantStored {
		t.Fatalf("summary %+v, want %d stored, %d void runs\n%s", sum, wantStored, wantVoid, logs.String())
	}
	if !strings.Contains(logs.String(), "trial void") {
		t.Fatalf("no void trial logged:\n%s", logs.String())
	}
	results, err := st.Results(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != wantStored {
		t.Fatalf("%d results stored, want %d", len(results), wantStored)
	}
	for _, r := range results {
		// The rerun ran to the limit in sim time.
		if r.Found || r.Time != cfg.Limit.D() || r.Start <= 0 {
			t.Errorf("trial %s: found %v at %v (start %v), want not found at the limit", r.ID(), r.Found, r.Time, r.Start)
		}
	}
	n, err := st.Voided(ctx)
	if err != nil || n != wantVoid {
		t.Fatalf("the store records %d void runs (%v), want %d", n, err, wantVoid)
	}
	rows, err := st.db.QueryContext(ctx, `SELECT trial, ticks FROM voided`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var ticks int
		if err := rows.Scan(&id, &ticks); err != nil {
			t.Fatal(err)
		}
		if id != plan[0].ID() || ticks <= defaultStallTicks {
			t.Errorf("void run of %s with %d ticks, want %s with more than %d", id, ticks, plan[0].ID(), defaultStallTicks)
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var rep strings.Builder
	if err := ReportStored(&rep, &cfg, results, n); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("voided: %d", wantVoid); !strings.Contains(rep.String(), want) {
		t.Fatalf("the report does not say %s:\n%s", want, rep.String())
	}
}

// lockedBuffer is a buffer for a logger that several goroutines write.
type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestProbeIdleBeforeFirstMessage: ticks without the simulator before its
// first message (a real server's handshake takes about 2 s, the robot
// ticks on its nominal period meanwhile) are no stall; those after it
// are.
func TestProbeIdleBeforeFirstMessage(t *testing.T) {
	b := blackboard.New()
	gt, err := blackboard.Write(b, "hal", msg.GroundTruthKey)
	if err != nil {
		t.Fatal(err)
	}
	ball, err := blackboard.Write(b, "perception", msg.BallKey)
	if err != nil {
		t.Fatal(err)
	}
	body, err := blackboard.Write(b, "perception", msg.BodyStateKey)
	if err != nil {
		t.Fatal(err)
	}
	start := new(atomic.Int64)
	start.Store(notYet)
	p := newProbe(2, 0.3, 500*time.Millisecond, start, make(chan struct{}, 1))
	if err := p.Wire(b); err != nil {
		t.Fatal(err)
	}
	seq := uint64(0)
	tick := func(connected bool) {
		seq++
		now := time.Duration(seq) * 10 * time.Millisecond
		b.BeginTick(seq, now)
		gt.Set(hal.GroundTruth{Valid: true})
		ball.Set(msg.Ball{})
		body.Set(msg.BodyState{Connected: connected})
		if err := p.Tick(hal.Tick{Seq: seq, Time: now, Connected: connected}); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 {
		tick(false)
	}
	tick(true)
	for range 3 {
		tick(false)
	}
	tick(true)
	if s := p.state(); s.idleBefore != 20 || s.idle != 3 || !s.connected {
		t.Fatalf("state %+v: want 20 ticks before the first message, 3 after", s)
	}
}

// joinDeadlockProxy is a TCP proxy in front of a simulator's agent port
// that does what rcssserver3d does when a joining agent's scene message
// comes too late (simrun.JoinHandshake): on the connection numbered
// deadConn (1-based, in accept order) it sends nothing, and every other
// connection gets no frame from the server either, until the robot closes
// that connection.
type joinDeadlockProxy struct {
	*pauseProxy
	frozen   atomic.Bool
	unfreeze chan struct{}
	froze    atomic.Int32
}

func newJoinDeadlockProxy(t *testing.T, target string, deadConn int) *joinDeadlockProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &joinDeadlockProxy{pauseProxy: &pauseProxy{ln: ln, target: target, done: make(chan struct{})}, unfreeze: make(chan struct{})}
	p.take = func(n int, c net.Conn) bool {
		if n != deadConn {
			return false
		}
		p.frozen.Store(true)
		p.froze.Add(1)
		p.wg.Go(func() {
			io.Copy(io.Discard, c) // the scene, then nothing: the robot waits
			c.Close()
			p.frozen.Store(false)
			close(p.unfreeze)
		})
		return true
	}
	p.gate = func(int, int) bool {
		if !p.frozen.Load() {
			return true
		}
		select {
		case <-p.unfreeze:
			return true
		case <-p.done:
			return false
		}
	}
	p.wg.Go(p.accept)
	return p
}

// TestJoinDeadlockIsNotAStall: the server deadlocks on the second robot
// to join (it sends that robot nothing, and the first robot nothing
// either, until the second robot's connection closes). The second robot
// connects again after its handshake timeout, the first robot waits
// without ticking meanwhile (its read timeout is longer), and the trial
// runs and is stored: not void.
func TestJoinDeadlockIsNotAStall(t *testing.T) {
	defer leaktest.Check(t)()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	sim := serveSim(t)
	defer sim.Close(t)
	srv := sim.srv
	px := newJoinDeadlockProxy(t, srv.AgentAddr().String(), 2)
	defer px.Close()

	cfg := quickConfig(2, 1)
	cfg.Balls = []Point{{4, -2.5}}
	cfg.Limit = config.Duration(2 * time.Second)
	cfg.Strategies = cfg.Strategies[:1]
	st, err := Open(ctx, filepath.Join(t.TempDir(), "join.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var logs bytes.Buffer
	simLog := slog.New(slog.NewTextHandler(&lockedBuffer{b: &logs}, nil))
	sum, err := Run(ctx, &cfg, st, Options{Targets: []simrun.Target{{Agent: px.Addr(), Trainer: srv.MonitorAddr().String()}},
		ReadTimeout: 5 * time.Second, HandshakeTimeout: 500 * time.Millisecond, Log: simLog, SimLog: simLog})
	if err != nil {
		t.Fatalf("campaign: %v\n%s", err, logs.String())
	}
	if px.froze.Load() != 1 {
		t.Fatalf("the proxy froze %d times, want 1", px.froze.Load())
	}
	if sum.Ran != 1 || sum.Voided != 0 {
		t.Fatalf("summary %+v, want 1 stored and none void\n%s", sum, logs.String())
	}
	if !strings.Contains(logs.String(), "no first message") {
		t.Fatalf("the second robot did not connect again after its handshake timeout:\n%s", logs.String())
	}
}
