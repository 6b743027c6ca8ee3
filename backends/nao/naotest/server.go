// Package naotest has a fake LoLA for tests: a real Unix-socket server that
// sends NAO v6 sensor maps (protocols.md §1.2) built from the real-robot
// sample in proto/lola/testdata/ (copied here byte for byte, see
// README.md) and checks and records every actuator map (§1.4) it gets.
//
// Like LoLA it sends a map every Period (12 ms), one client at a time; to
// keep tests fast it sends the next map as soon as the client has answered
// the last one.
package naotest

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tinylib/msgp/msgp"

	"github.com/robotd/robotd/proto/lola"
)

//go:embed naoth_sensor_sample.json
var sampleJSON []byte

// SampleSHA256 is the sha256 of the embedded sample, as documented in
// proto/lola/testdata/README.md.
const SampleSHA256 = "c5e2fcce52511bf8d8ef3e198c223cba7b830608334c7296c03d72241f7f73d4"

// SampleJSON returns the embedded sample file's bytes.
func SampleJSON() []byte { return slices.Clone(sampleJSON) }

// Sample returns the real-robot sample (NaoTH, a NAO v6 pitched forward
// about 57°) as a LoLA sensor map. Encoded with lola.EncodeSensors it is
// the 896 bytes a robot sends.
func Sample() (lola.Sensors, error) {
	s, err := lola.ParseSensorsJSON(sampleJSON)
	if err != nil {
		return s, fmt.Errorf("naotest: the sample: %w", err)
	}
	return s, nil
}

// ActuatorKeys is the key order of a full actuator map as robotd sends it
// (lola.AppendActuators; LoLA accepts any order).
var ActuatorKeys = []string{"Position", "Stiffness", "Chest", "LEar", "REar", "LEye", "REye", "LFoot", "RFoot", "Skull", "Sonar"}

// Command is one actuator map the server received.
type Command struct {
	// Seq is the number of sensor maps the server had sent on this
	// connection when the command arrived.
	Seq uint64
	// Conn numbers the connection it came on, from 1.
	Conn int
	// Size is the map's size in bytes.
	Size int
	// Keys are the map's keys in wire order.
	Keys []string
	// Present is the set of keys, Act the values.
	Present lola.ActuatorSet
	Act     lola.Actuators
}

// MaxStiffness returns the largest stiffness in the command.
func (c *Command) MaxStiffness() float32 {
	m := float32(0)
	for _, s := range c.Act.Stiffness {
		m = max(m, s)
	}
	return m
}

// Options configure a Server.
type Options struct {
	// Period is how long the server waits for the client's answer before
	// it sends the next map anyway (LoLA's 12 ms if 0).
	Period time.Duration
	// Sensors is the map sent (the sample if nil).
	Sensors *lola.Sensors
	// LockStep sends the next map only when the client has answered the
	// last one (or Stall is switched off), never on the Period: a test can
	// then know that nothing was sent between a command and its OnCommand.
	LockStep bool
	// EchoStiffness reports the last commanded stiffness in the sensor
	// maps, as a robot does.
	EchoStiffness bool
	// Script, if set, may change each map before it is sent; seq counts
	// the maps of the connection from 1.
	Script func(seq uint64, s *lola.Sensors)
	// Raw, if set and returning bytes, sends those bytes instead of map
	// seq (a malformed map, garbage, an emulator's float64 map).
	Raw func(seq uint64) []byte
	// OnCommand, if set, is called for every command, in the server's
	// goroutine, before the next map is sent.
	OnCommand func(c *Command)
}

// Server is a fake LoLA on a Unix socket.
type Server struct {
	path string
	opts Options
	ln   *net.UnixListener

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every change
	conn     net.Conn
	conns    int
	ended    int
	sent     uint64
	cmds     []Command
	errs     []error
	stalled  bool
	wake     chan struct{}
	lastStif [lola.NumJoints]float32
}

// Start listens on path (removing a stale socket file there) and serves
// until Close or ctx ends.
func Start(ctx context.Context, path string, o Options) (*Server, error) {
	if o.Period <= 0 {
		o.Period = 12 * time.Millisecond
	}
	if o.Sensors == nil {
		s, err := Sample()
		if err != nil {
			return nil, err
		}
		o.Sensors = &s
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == os.ModeSocket {
		os.Remove(path)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("naotest: listening on %s: %w", path, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{path: path, opts: o, ln: ln, ctx: ctx, cancel: cancel,
		changed: make(chan struct{}), wake: make(chan struct{}, 1)}
	s.wg.Add(1)
	go s.accept()
	context.AfterFunc(ctx, func() { ln.Close() })
	return s, nil
}

// Path returns the socket's path.
func (s *Server) Path() string { return s.path }

// Close kills the server as a crashing LoLA would: the listener and the
// connection close and the socket file goes away. It waits for the
// server's goroutines.
func (s *Server) Close() error {
	s.cancel()
	err := s.ln.Close()
	s.mu.Lock()
	if s.conn != nil {
		s.conn.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	os.Remove(s.path)
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// Stall stops (true) or resumes (false) sending sensor maps; the server
// keeps reading.
func (s *Server) Stall(on bool) {
	s.mu.Lock()
	s.stalled = on
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	s.notify()
}

// Sent returns the number of sensor maps sent on all connections.
func (s *Server) Sent() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent
}

// Connections returns the number of connections accepted.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// Commands returns a copy of the commands received so far.
func (s *Server) Commands() []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.cmds)
}

// Errors returns what the server found wrong with the client's maps.
func (s *Server) Errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.errs)
}

// Wait waits until cond (called with the server's lock held) holds, or
// ctx ends.
func (s *Server) Wait(ctx context.Context, cond func(*Server) bool) error {
	for {
		s.mu.Lock()
		ok, ch := cond(s), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("naotest: waiting: %w", ctx.Err())
		}
	}
}

// WaitCommands waits until n commands have arrived in all.
func (s *Server) WaitCommands(ctx context.Context, n int) error {
	return s.Wait(ctx, func(s *Server) bool { return len(s.cmds) >= n })
}

// WaitEnded waits until n connections have ended (the client closed
// them, or the server did) and everything they carried is recorded.
func (s *Server) WaitEnded(ctx context.Context, n int) error {
	return s.Wait(ctx, func(s *Server) bool { return s.ended >= n })
}

// NumCommands is for Wait conditions: the number of commands so far
// (call only with the lock held, i.e. inside a Wait condition).
func (s *Server) NumCommands() int { return len(s.cmds) }

func (s *Server) notify() {
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func (s *Server) fail(err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
	s.notify()
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.conn != nil { // one client at a time: the newer one wins
			s.conn.Close()
		}
		s.conn = c
		s.conns++
		id := s.conns
		s.mu.Unlock()
		s.notify()
		s.wg.Add(1)
		go s.serve(c, id)
	}
}

// serve runs one connection: a reader goroutine records commands, this
// one sends maps.
func (s *Server) serve(c net.Conn, id int) {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	answered := make(chan struct{}, 1)
	var seq uint64
	var seqMu sync.Mutex
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		s.read(c, id, func() uint64 { seqMu.Lock(); defer seqMu.Unlock(); return seq }, answered)
		s.mu.Lock()
		s.ended++
		s.mu.Unlock()
		s.notify()
	}()
	sensors := *s.opts.Sensors
	buf := make([]byte, 0, 2*lola.SensorPacketSize)
	t := time.NewTimer(s.opts.Period)
	defer t.Stop()
	for {
		s.mu.Lock()
		stalled := s.stalled
		if s.opts.EchoStiffness {
			sensors.Stiffness = s.lastStif
		}
		s.mu.Unlock()
		if !stalled {
			seqMu.Lock()
			seq++
			n := seq
			seqMu.Unlock()
			m := sensors
			if s.opts.Script != nil {
				s.opts.Script(n, &m)
			}
			out := lola.AppendSensors(buf[:0], &m)
			buf = out
			if s.opts.Raw != nil {
				if raw := s.opts.Raw(n); raw != nil {
					out = raw
				}
			}
			if _, err := c.Write(out); err != nil {
				return
			}
			s.mu.Lock()
			s.sent++
			s.mu.Unlock()
			s.notify()
		}
		var tick <-chan time.Time
		if !s.opts.LockStep {
			t.Reset(s.opts.Period)
			tick = t.C
		}
		select {
		case <-ctx.Done():
			return
		case <-answered:
		case <-s.wake:
		case <-tick:
		}
		t.Stop()
	}
}

// read records the client's maps until the connection ends.
func (s *Server) read(c net.Conn, id int, seq func() uint64, answered chan<- struct{}) {
	buf := make([]byte, 0, 8192)
	tmp := make([]byte, 4096)
	for {
		n, err := c.Read(tmp)
		buf = append(buf, tmp[:n]...)
		for len(buf) > 0 {
			rest, serr := msgp.Skip(buf)
			if errors.Is(serr, msgp.ErrShortBytes) {
				break
			}
			if serr != nil {
				s.fail(fmt.Errorf("naotest: connection %d: not msgpack: %w", id, serr))
				return
			}
			size := len(buf) - len(rest)
			s.record(id, seq(), buf[:size])
			buf = buf[size:]
			select {
			case answered <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// record checks and stores one actuator map.
func (s *Server) record(id int, seq uint64, msg []byte) {
	cmd := Command{Seq: seq, Conn: id, Size: len(msg)}
	present, rest, err := lola.DecodeActuators(msg, &cmd.Act)
	if err != nil {
		s.fail(fmt.Errorf("naotest: connection %d, after map %d: %w", id, seq, err))
		return
	}
	if len(rest) != 0 {
		s.fail(fmt.Errorf("naotest: connection %d, after map %d: %d bytes after the map", id, seq, len(rest)))
	}
	cmd.Present = present
	n, o, err := msgp.ReadMapHeaderBytes(msg)
	for i := uint32(0); err == nil && i < n; i++ {
		var k []byte
		if k, o, err = msgp.ReadMapKeyZC(o); err == nil {
			cmd.Keys = append(cmd.Keys, string(k))
			o, err = msgp.Skip(o)
		}
	}
	if err != nil {
		s.fail(fmt.Errorf("naotest: connection %d: listing keys: %w", id, err))
	}
	if got, want := strings.Join(cmd.Keys, ","), strings.Join(ActuatorKeys, ","); got != want || len(msg) != lola.ActuatorPacketSize {
		s.fail(fmt.Errorf("naotest: connection %d, after map %d: %d bytes with keys %s, want %d bytes with %s",
			id, seq, len(msg), got, lola.ActuatorPacketSize, want))
	}
	s.mu.Lock()
	s.cmds = append(s.cmds, cmd)
	s.lastStif = cmd.Act.Stiffness
	s.mu.Unlock()
	if s.opts.OnCommand != nil {
		s.opts.OnCommand(&cmd)
	}
	s.notify()
}
