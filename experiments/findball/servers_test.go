package findball

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
)

// servedSim is robotd's embedded simulator served on its own TCP ports
// in sync mode, as rcssserver3d with SPARK_FAST_TIME would run: a server
// for Options.Targets.
type servedSim struct {
	srv    *simserver.Server
	stop   context.CancelFunc
	served chan error
}

func serveSim(t *testing.T) *servedSim {
	t.Helper()
	sc := simserver.DefaultConfig()
	sc.Sync, sc.Physics = true, simserver.PhysicsKinematic
	// No vision noise: a noisy server's draws go on from trial to trial,
	// so its trials' outcomes would depend on what it ran before.
	sc.NoVisionNoise = true
	sc.AgentAddr, sc.MonitorAddr = "127.0.0.1:0", "127.0.0.1:0"
	srv, err := simserver.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &servedSim{srv: srv, stop: stop, served: make(chan error, 1)}
	go func() { s.served <- srv.Run(ctx) }()
	return s
}

func (s *servedSim) target() simrun.Target {
	return simrun.Target{Agent: s.srv.AgentAddr().String(), Trainer: s.srv.MonitorAddr().String()}
}

// Close stops the simulator and waits for it.
func (s *servedSim) Close(t *testing.T) {
	s.stop()
	if err := <-s.served; err != nil && !errors.Is(err, context.Canceled) {
		t.Error(err)
	}
}

// dyingProxy stands in front of a server's two ports and dies as a server
// process would: once a trainer has placed the ball through it (play
// starts) and its first agent connection has relayed after more frames
// from the server (mid-trial), it closes both ports and every
// connection, and refuses connections from then on. With dropBall the
// trainer's ball placements never reach the server.
type dyingProxy struct {
	agent, trainer net.Listener
	to             simrun.Target
	after          int
	dropBall       bool
	placed         atomic.Bool  // a trainer sent a ball placement
	dropped        atomic.Int32 // ball placements dropped

	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
	n     int // agent connections accepted
	dead  bool
	died  chan struct{}
}

func newDyingProxy(t *testing.T, to simrun.Target, after int, dropBall bool) *dyingProxy {
	t.Helper()
	p := &dyingProxy{to: to, after: after, dropBall: dropBall, died: make(chan struct{})}
	var err error
	if p.agent, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	if p.trainer, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	p.wg.Go(func() { p.accept(p.agent, to.Agent, true) })
	p.wg.Go(func() { p.accept(p.trainer, to.Trainer, false) })
	return p
}

func (p *dyingProxy) target() simrun.Target {
	return simrun.Target{Agent: p.agent.Addr().String(), Trainer: p.trainer.Addr().String()}
}

func (p *dyingProxy) accept(ln net.Listener, to string, agent bool) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", to)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.dead {
			p.mu.Unlock()
			c.Close()
			s.Close()
			continue
		}
		p.conns = append(p.conns, c, s)
		first := false
		if agent {
			p.n++
			first = p.n == 1
		}
		p.mu.Unlock()
		p.wg.Go(func() {
			if agent {
				io.Copy(s, c)
			} else {
				relayFrames(s, c, func(int) bool { return true }, func(cmd []byte) bool {
					if !bytes.HasPrefix(cmd, []byte("(ball")) {
						return true
					}
					p.placed.Store(true)
					if p.dropBall {
						p.dropped.Add(1)
						return false
					}
					return true
				})
			}
			s.Close()
			c.Close()
		})
		p.wg.Go(func() {
			if first {
				p.relay(c, s)
			} else {
				io.Copy(c, s)
			}
			s.Close()
			c.Close()
		})
	}
}

// relay copies SimSpark frames from the server s to the robot c and
// kills the proxy after p.after of them from the ball's placement on.
func (p *dyingProxy) relay(c, s net.Conn) {
	played := 0
	relayFrames(c, s, func(int) bool {
		if p.placed.Load() {
			played++
		}
		if played > p.after {
			p.kill()
			return false
		}
		return true
	}, nil)
}

// kill closes the ports and every connection.
func (p *dyingProxy) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead {
		return
	}
	p.dead = true
	close(p.died)
	p.agent.Close()
	p.trainer.Close()
	for _, c := range p.conns {
		c.Close()
	}
}

// Close kills the proxy (if it is alive) and waits for its goroutines.
func (p *dyingProxy) Close() {
	p.kill()
	p.wg.Wait()
}

// closedTarget is a server that is not there: two ports nothing listens on.
func closedTarget(t *testing.T) simrun.Target {
	t.Helper()
	var addrs [2]string
	for i := range addrs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addrs[i] = ln.Addr().String()
		ln.Close()
	}
	return simrun.Target{Agent: addrs[0], Trainer: addrs[1]}
}

// serversConfig is the campaign of TestCampaignOnServers: one robot, a
// ball 0.8 m in front of it, found (within 0.7 m) when it first sees it,
// about 1.5 s into the trial, and one it does not find before the 3 s
// limit, both strategies: four trials.
func serversConfig() Config {
	cfg := quickConfig(1, 2)
	cfg.FoundDistance = 0.7
	cfg.Limit = config.Duration(3 * time.Second)
	return cfg
}

// serverOutcome is a stored trial's outcome as the comparison of
// campaigns on different servers sees it: found, by whom, and the find
// time, which may differ by maxServerSkew.
type serverOutcome struct {
	found  bool
	finder int
	time   time.Duration
}

// maxServerSkew is how far the find times of a trial run on attached
// servers may lie apart. Such a trial is not reproducible bit for bit:
// the robots' tick time starts at the next whole second after their
// handshake, the trainer's commands land in whichever cycle they reach
// the server, and the robots' timers (role epochs, head scans) run on the
// tick time, so the start's phase against them changes from run to run.
const maxServerSkew = 600 * time.Millisecond

func outcomes(t *testing.T, st *Store) map[string]serverOutcome {
	t.Helper()
	rs, err := st.Results(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]serverOutcome{}
	for _, r := range rs {
		out[r.ID()] = serverOutcome{r.Found, r.Finder, r.Time}
	}
	return out
}

// TestCampaignOnServers runs a campaign on several servers at once (robotd's
// embedded simulator served on real TCP ports, as rcssserver3d would be),
// one worker per server: each server runs trials, the outcomes equal the
// same campaign's on one server, a server that dies mid-trial (or is not
// there) is left out while the others run every other trial, its trial's
// error names it, and a resumed run on the servers left runs exactly the
// trials not stored.
func TestCampaignOnServers(t *testing.T) {
	defer leaktest.Check(t)()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := serversConfig()
	planned := len(cfg.Plan())
	dir := t.TempDir()
	var stores []*Store
	defer func() {
		for _, st := range stores {
			st.Close()
		}
	}()
	open := func(name string) *Store {
		st, err := Open(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, st)
		return st
	}

	a, b := serveSim(t), serveSim(t)
	defer a.Close(t)
	defer b.Close(t)

	// The outcomes of the first case's campaign, on two servers, which the
	// others (run mostly on server a alone) must equal.
	var want map[string]serverOutcome

	for _, tc := range []struct {
		name string
		// dies: a server that dies mid-trial (the first trial it runs)
		// joins a and b; down: one that is not there at all. Both are
		// left out: the first's trial is void (its robot stalled) and its
		// rerun fails (nothing listens any more), the second's fails.
		dies, down bool
	}{
		{name: "two servers"},
		{name: "one dies mid-trial, one is not there", dies: true, down: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			targets := []simrun.Target{a.target(), b.target()}
			var px *dyingProxy
			if tc.dies {
				// Half a second after the ball's placement (10 ms
				// cycles; the ball is placed a quarter second before
				// play starts), before the robot can find it (about
				// 1.4 s).
				// In front of a server of its own: a worker runs on a
				// and on b meanwhile, and two trials on one server at once
				// would meet in its scene.
				c := serveSim(t)
				defer c.Close(t)
				px = newDyingProxy(t, c.target(), 50, false)
				defer px.Close()
				targets = append(targets, px.target())
			}
			if tc.down {
				targets = append(targets, closedTarget(t))
			}
			lost := map[simrun.Target]bool{}
			for _, tg := range targets[2:] {
				lost[tg] = true
			}
			st := open(strings.ReplaceAll(tc.name, " ", "-") + ".db")
			retries := 0 // the default
			if len(lost) > 0 {
				retries = 1 // a dead server's trial fails sooner
			}
			var mu sync.Mutex // Progress runs on Run's goroutine; the race detector checks
			perServer := map[string]int{}
			sum, err := Run(ctx, &cfg, st, Options{Targets: targets, Retries: retries, Log: testLog(t),
				Progress: func(r *Result, done, todo int) { mu.Lock(); perServer[r.Server]++; mu.Unlock() }})
			if len(lost) == 0 && err != nil {
				t.Fatal(err)
			}
			for tg := range lost {
				if err == nil || !strings.Contains(err.Error(), "server "+serverName(tg)+" left out") {
					t.Errorf("error %v, want one saying server %s was left out", err, serverName(tg))
				}
			}
			if px != nil {
				select {
				case <-px.died:
				default:
					t.Fatal("the proxy did not die")
				}
			}
			if len(sum.Servers) != len(targets) {
				t.Fatalf("summary %+v, want %d servers", sum, len(targets))
			}
			mu.Lock()
			defer mu.Unlock()
			ran := 0
			for i, ss := range sum.Servers {
				if ss.Target != targets[i] || perServer[serverName(ss.Target)] != ss.Ran {
					t.Errorf("server %d: %+v; progress saw %d of its trials", i, ss, perServer[serverName(ss.Target)])
				}
				ran += ss.Ran
				switch {
				case !lost[ss.Target] && (ss.Ran == 0 || ss.Err != nil || ss.Voided != 0):
					t.Errorf("server %d: %+v, want it to run trials", i, ss)
				case lost[ss.Target] && (ss.Ran != 0 || ss.Err == nil || !strings.Contains(ss.Err.Error(), "on server "+serverName(ss.Target))):
					t.Errorf("server %d: %+v, want it left out, its trial's error naming it", i, ss)
				}
			}
			// Every trial ran but those the servers left out failed in.
			if ran != sum.Ran || sum.Ran != planned-len(lost) {
				t.Errorf("%d trials run (%d by the servers), want %d", sum.Ran, ran, planned-len(lost))
			}
			if px != nil {
				if ss := sum.Servers[2]; ss.Voided != 1 {
					t.Errorf("the server that died: %+v, want one void run", ss)
				}
				n, err := st.Voided(ctx)
				if err != nil || n != 1 {
					t.Errorf("the store records %d void runs (%v), want 1", n, err)
				}
			}
			if got := outcomes(t, st); len(got) != sum.Ran {
				t.Errorf("%d trials stored, %d run", len(got), sum.Ran)
			}

			// Resumed on the servers that are there: the stored trials are
			// skipped, the rest run.
			stored := sum.Ran
			sum, err = Run(ctx, &cfg, st, Options{Targets: []simrun.Target{b.target(), a.target()}, Log: testLog(t)})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Skipped != stored || sum.Ran != planned-stored {
				t.Errorf("resumed: %+v, want %d skipped and %d run", sum, stored, planned-stored)
			}
			got := outcomes(t, st)
			if len(got) != planned {
				t.Fatalf("%d trials stored, want %d", len(got), planned)
			}
			found := 0
			for _, o := range got {
				if o.found {
					found++
				}
			}
			if found != planned/2 {
				t.Errorf("%d of %d trials found the ball, want the %d with the ball in front of the robot: %v", found, planned, planned/2, got)
			}
			if want == nil {
				want = got
				t.Logf("outcomes: %+v", got)
			}
			for id, w := range want {
				g := got[id]
				if g.found != w.found || g.finder != w.finder || (g.time-w.time).Abs() > maxServerSkew {
					t.Errorf("trial %s: %+v, in the first campaign %+v", id, g, w)
				}
			}
			consistent(t, st)
		})
	}
}

// TestMisplacedBallIsNotStored: a trainer's ball placement that never
// reaches the server (a proxy in front of it drops it)
// leaves the ball where it was; the trial fails, saying where the ball
// lay at the start, and nothing is stored.
func TestMisplacedBallIsNotStored(t *testing.T) {
	defer leaktest.Check(t)()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := serveSim(t)
	defer s.Close(t)
	px := newDyingProxy(t, s.target(), math.MaxInt, true) // never dies
	defer px.Close()

	cfg := serversConfig()
	cfg.Balls = cfg.Balls[:1]
	cfg.Strategies = cfg.Strategies[:1]
	st, err := Open(ctx, filepath.Join(t.TempDir(), "misplaced.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = Run(ctx, &cfg, st, Options{Targets: []simrun.Target{px.target()}, Retries: -1, Log: testLog(t)})
	if err == nil || !strings.Contains(err.Error(), "not at its place") {
		t.Fatalf("campaign error %v, want one saying the ball was not at its place", err)
	}
	if px.dropped.Load() == 0 {
		t.Fatal("the proxy dropped no ball placement")
	}
	if got := outcomes(t, st); len(got) != 0 {
		t.Errorf("stored %v, want nothing", got)
	}
}
