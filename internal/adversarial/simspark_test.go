package adversarial

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/simspark"
	"github.com/robotd/robotd/robot"
)

// validPerception is a plausible perceptor message of an upright NAO at
// sim time t.
func validPerception(t float64) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "(time (now %.2f))(GS (t %.2f) (pm BeforeKickOff))(GYR (n torso) (rt 0.01 -0.02 0))(ACC (n torso) (a 0 0 9.81))", t, t)
	for _, n := range []string{"hj1", "hj2", "laj1", "laj2", "raj1", "raj2", "llj1", "llj2", "llj3", "llj4", "llj5", "llj6", "rlj1", "rlj2", "rlj3", "rlj4", "rlj5", "rlj6"} {
		fmt.Fprintf(&b, "(HJ (n %s) (ax 1.5))", n)
	}
	b.WriteString("(FRP (n lf) (c 0 0 -0.01) (f 0 0 22))(FRP (n rf) (c 0 0 -0.01) (f 0 0 22))")
	return b.Bytes()
}

// hostileFrames are perceptor messages that must not move the robot:
// huge values, NaN and Inf literals, garbage, unbalanced and empty
// messages.
func hostileFrames(t float64) [][]byte {
	return [][]byte{
		[]byte(fmt.Sprintf("(time (now %.2f))(GYR (n torso) (rt 1e308 -1e308 0))(ACC (n torso) (a 1e308 0 0))", t)),
		[]byte(fmt.Sprintf("(time (now %.2f))(HJ (n hj1) (ax 1e300))(HJ (n llj3) (ax -1e300))", t)),
		[]byte(fmt.Sprintf("(time (now %.2f))(GYR (n torso) (rt nan inf -inf))", t)),
		[]byte(fmt.Sprintf("(time (now %.2f))(See (B (pol 1e300 0 0)) (mypos nan 0 0))", t)),
		[]byte(fmt.Sprintf("(time (now %.2f))(FRP (n lf) (c 0 0 0) (f 0 0 1e300))", t)),
		[]byte("(time (now 1e300))"),
		[]byte("(time (now -5))"),
		[]byte("((((((((((((((((((((((((((((((("),
		[]byte("(GYR (n torso) (rt 1 2"),
		[]byte("\x00\xff\xfe garbage \x01"),
		{},
		bytes.Repeat([]byte("(x "), 10000),
	}
}

// agentLog records what the agent sends, per connection.
type agentLog struct {
	mu     sync.Mutex
	frames [][]string
}

func (l *agentLog) add(conn int, f []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.frames) <= conn {
		l.frames = append(l.frames, nil)
	}
	l.frames[conn] = append(l.frames[conn], string(f))
}

func (l *agentLog) all() [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([][]string, len(l.frames))
	for i := range l.frames {
		out[i] = append([]string(nil), l.frames[i]...)
	}
	return out
}

var (
	jointEffector = regexp.MustCompile(`\((he|lae|rae|lle|rle)\d+ ([^)]*)\)`)
	number        = regexp.MustCompile(`-?[0-9][0-9.eE+-]*|NaN|[+-]?Inf`)
)

// hostileSimServer accepts agents and plays script(conn, w) to each,
// recording what they send.
func hostileSimServer(t *testing.T, script func(conn int, c net.Conn)) (addr *net.TCPAddr, log *agentLog, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	log = &agentLog{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				fr := simspark.NewFrameReader(c, 0)
				for {
					f, err := fr.Next()
					if err != nil {
						return
					}
					log.add(i, f)
				}
			})
			wg.Go(func() { script(i, c) })
		}
	})
	return ln.Addr().(*net.TCPAddr), log, func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}
}

func simConfig(port int) sim.Config {
	c := sim.DefaultConfig()
	c.Port, c.Team, c.Player = port, "adversary", 1
	c.ReadTimeout = config.Duration(200 * time.Millisecond)
	c.DeadTimeout = config.Duration(2 * time.Second)
	c.HandshakeTimeout = config.Duration(2 * time.Second)
	c.BackoffMin = config.Duration(10 * time.Millisecond)
	c.BackoffMax = config.Duration(50 * time.Millisecond)
	return c
}

func send(c net.Conn, payload []byte) bool {
	c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	_, err := c.Write(simspark.AppendFrame(nil, payload))
	return err == nil
}

// checkAgentFrames fails on a joint command that is not finite or beyond
// any joint's speed.
func checkAgentFrames(t *testing.T, frames [][]string) (joints int) {
	t.Helper()
	for ci, fs := range frames {
		for _, f := range fs {
			for _, m := range jointEffector.FindAllStringSubmatch(f, -1) {
				joints++
				for _, s := range number.FindAllString(m[2], -1) {
					v, err := strconv.ParseFloat(s, 64)
					if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1000 {
						t.Errorf("connection %d: joint command %q", ci, m[0])
					}
				}
			}
		}
	}
	return joints
}

// TestHostileSimSpark runs the sim daemon's modules against a SimSpark
// server that mixes valid messages with huge, non-finite and malformed
// ones and floods, cuts a frame off, announces a frame of 2 GiB, and
// finally plays valid messages again: no panic, no NaN on the blackboard,
// every joint command finite and bounded, the robot recovers (upright,
// connected), the heap bounded.
func TestHostileSimSpark(t *testing.T) {
	defer leaktest.Check(t)()
	heap0 := heapInUse()
	const mixedFor = 1500 * time.Millisecond
	recovered := make(chan struct{})
	addr, agent, stopServer := hostileSimServer(t, func(conn int, c net.Conn) {
		st := 1.0
		next := func() float64 { st += 0.02; return st }
		switch conn {
		case 0: // mixed, then a frame cut off
			end := time.Now().Add(mixedFor)
			for i := 0; time.Now().Before(end); i++ {
				frames := append([][]byte{validPerception(next())}, hostileFrames(next())...)
				if !send(c, frames[i%len(frames)]) {
					return
				}
				if i%97 == 0 { // a flood
					for range 200 {
						if !send(c, validPerception(next())) {
							return
						}
					}
				}
				time.Sleep(2 * time.Millisecond)
			}
			var hdr [4]byte
			binary.BigEndian.PutUint32(hdr[:], 1000)
			c.Write(append(hdr[:], "(time (now"...))
			c.Close()
		case 1: // a frame of 2 GiB announced
			var hdr [4]byte
			binary.BigEndian.PutUint32(hdr[:], 1<<31)
			c.Write(hdr[:])
			io.Copy(io.Discard, io.LimitReader(c, 1<<20))
			c.Close()
		default: // valid again
			for {
				if !send(c, validPerception(next())) {
					return
				}
				select {
				case <-recovered:
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		}
	})
	defer stopServer()
	dev, err := sim.New(simConfig(addr.Port), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	d := startDaemon(t, dev, robot.Legs)
	stopWatch := watchBoard(t, d.board)
	// Wait for the third connection's valid messages to be taken, and the
	// robot to be upright on them.
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := dev.Stats()
		v := d.board.Snapshot().Entries
		angles, _ := v[msg.BodyAnglesKey.Name()].Value.(hal.BodyAngles)
		tick, _ := v[msg.TickKey.Name()].Value.(hal.Tick)
		if st.Reconnects >= 1 && tick.Connected && math.Abs(float64(angles.Pitch)) < 0.1 && math.Abs(float64(angles.Roll)) < 0.1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery: stats %+v, tick %+v, angles %+v", st, tick, angles)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(recovered)
	checks := stopWatch()
	d.stop(t)
	st := dev.Stats()
	joints := checkAgentFrames(t, agent.all())
	if st.Rejected == 0 || st.Errors == 0 {
		t.Errorf("stats %+v: want rejected and malformed messages counted", st)
	}
	if joints == 0 {
		t.Error("the agent never commanded a joint: the test proves nothing")
	}
	t.Logf("stats %+v, %d joint commands checked, %d board checks", st, joints, checks)
	checkHeap(t, heap0)
}

// TestHostileSimSparkOnlyBadInput: a server that sends nothing but
// implausible and malformed messages gets no joint command, no init and
// no beam: bad input never moves the robot.
func TestHostileSimSparkOnlyBadInput(t *testing.T) {
	defer leaktest.Check(t)()
	heap0 := heapInUse()
	sent := make(chan int, 1)
	addr, agent, stopServer := hostileSimServer(t, func(conn int, c net.Conn) {
		if conn > 0 {
			return
		}
		n := 0
		st := 1.0
		for range 40 {
			for _, f := range hostileFrames(st) {
				st += 0.02
				if !send(c, f) {
					sent <- n
					return
				}
				n++
			}
		}
		sent <- n
	})
	defer stopServer()
	dev, err := sim.New(simConfig(addr.Port), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	d := startDaemon(t, dev, robot.Legs)
	stopWatch := watchBoard(t, d.board)
	n := <-sent
	// Every message was looked at: counted as rejected or malformed, or
	// the connection given up.
	deadline := time.Now().Add(20 * time.Second)
	for st := dev.Stats(); st.Rejected+st.Errors < uint64(n); st = dev.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("%d hostile messages sent, stats %+v", n, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stopWatch()
	d.stop(t)
	for ci, fs := range agent.all() {
		for _, f := range fs {
			if jointEffector.MatchString(f) || bytes.Contains([]byte(f), []byte("(init")) || bytes.Contains([]byte(f), []byte("(beam")) {
				t.Errorf("connection %d: the agent answered bad input with %q", ci, f)
			}
		}
	}
	var tick hal.Tick
	if v, ok := d.board.Snapshot().Entries[msg.TickKey.Name()].Value.(hal.Tick); ok {
		tick = v
	}
	if tick.Connected {
		t.Errorf("a connected tick out of bad input: %+v", tick)
	}
	t.Logf("%d hostile messages, stats %+v, last tick %+v", n, dev.Stats(), tick)
	checkHeap(t, heap0)
}
