package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/backends/pacing"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/internal/reconnect"
	"github.com/robotd/robotd/proto/simspark"
)

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("sim: backend closed")

// errSilent marks a server that stopped sending.
var errSilent = errors.New("server silent")

// maxSimStep is the largest step of the server's clock between two
// messages on one connection that counts as time passing; a larger step,
// or one backwards, is a jump that tick time does not follow. A server
// sends one message per cycle (10 or 20 ms), so 1 s only allows for
// messages the server skipped.
const maxSimStep = time.Second

// Reply number format: 4 decimals is 0.1 mrad/s for velocities, 0.1 mm for
// beam coordinates.
var replyFormat = simspark.Format{Decimals: 4}

// phase is where a connection is in the handshake. The scene goes out on
// connecting; init and beam answer the first message, in one frame, and
// beam again the second.
//
// Beam with init, because rcssserver3d realises the init effector before
// the beam effector within a cycle (StaticMeshInitEffector precedes
// BeamEffector in rsg/agent/nao/nao_hetero.rsg), so a robot that beams
// with its init never stands where init puts it. Init puts a side's n-th
// agent at the side's n-th spawn slot (GameStateAspect::RequestInitPosition,
// plugin/soccer/gamestateaspect/gamestateaspect.cpp): x = -FieldLength/2 +
// 2r(1 + ⌊n/5⌋) for the left side, r = AgentRadius, so on the SPL field
// (9 m, r 0.4) the slots of a server's left agents 70–74 lie on the right
// side wall (a 1 m box at x 7.5, rsg/agent/nao/soccer.rsg). Measured on the
// UNSW fork: a robot beamed a cycle or more after its init there lies on
// the field after the beam; one beamed with its init stands.
//
// Beam again a cycle later, because on the same fork robots that beamed
// only with their init and then sent joint commands lay at their starts
// in every find-ball trial (6 falls per trial in 4 of 4); with the second
// beam, as with init and beam a cycle apart, they stood (0 in 4 of 4).
type phase uint8

const (
	phaseInit phase = iota // init and beam are due with the next reply
	phaseBeam              // beam (again) is due with the next reply
	phaseRun               // joint commands
)

type eventKind uint8

const (
	evConnected eventKind = iota + 1 // conn is up and the scene was sent
	evFrame                          // msg is a perceptor message, valid until released
	evLost                           // the connection ended with err
)

// event goes from the connection goroutine to Next.
type event struct {
	kind eventKind
	gen  uint64
	conn net.Conn
	msg  []byte
	err  error
}

// Backend is a simulated NAO on a SimSpark server (rcssserver3d, or
// robotd's embedded simulator). It implements hal.Device and the
// capabilities a simulated NAO has: JointSensor, JointActuator, IMUSensor,
// BodyAngleSensor, SonarSensor, FSRSensor, VisionSensor, CameraSensor,
// GameStateSensor, GroundTruthSensor and StatsReporter. Of VisionSensor
// and CameraSensor it provides one (runner.Provider): the server's
// observations, or with Vision.Source rendered the cameras it renders.
//
// One goroutine, started by the first Next and ended by Close, dials,
// sends the scene, and reads frames; everything else happens in the
// caller's goroutine. All methods but Stats are for one goroutine (the
// runner's); Stats may be called from any.
type Backend struct {
	cfg  Config
	log  *slog.Logger
	addr string

	a    *Adapter
	rig  *cameraRig // the rendered cameras; nil with the server's vision
	p    simspark.Perception
	eff  simspark.Effectors
	wbuf []byte

	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	events  chan event
	release chan struct{}
	started bool
	closed  bool

	conn     net.Conn // the runner's view; nil while down
	gen      uint64
	phase    phase
	everLive bool
	replyDue bool // a message awaits its reply

	base *TimeBase // shared with the other robots on the server, or nil
	// lastSim is the server time of the connection's last message, and
	// anchored says that its tick time follows the base's stamps (see
	// TimeBase.align); both start over with each connection.
	lastSim  time.Duration
	anchored bool
	epoch    func() (time.Duration, bool)
	seq      uint64
	offset   time.Duration // connected, with a clock fine enough to count cycles by: tick time = sim time + offset
	pace     *pacing.Pacer // the link's state and the ticks' wall-time pacing

	errors, reconnects atomic.Uint64
	logAt              time.Duration // tick time of the next allowed malformed-message log
	suppressed         int
	stalls             stallLog

	rejected         atomic.Uint64
	rejectLogAt      time.Time // wall time of the next allowed rejection log
	rejectSuppressed int
}

// stallLog counts the simulator's stalls (live, then silent for
// ReadTimeout) and logs them at most once per stallLogEvery: a loaded
// machine can stall a real-time simulator many times a minute.
type stallLog struct {
	n, logged uint64
	at        time.Time // when the last line was logged
	longest   time.Duration
}

// stallLogEvery is the shortest time between two stall log lines.
const stallLogEvery = time.Minute

// stalled counts a stall after silent and logs it if a line is due.
func (s *stallLog) stalled(log *slog.Logger, addr string, now time.Time, silent time.Duration) {
	s.n++
	s.longest = max(s.longest, silent)
	if s.logged > 0 && now.Sub(s.at) < stallLogEvery {
		return
	}
	log.Warn("the simulator is silent; ticking without it until it is back (logged at most once a minute)", "addr", addr,
		"after", silent, "stalls", s.n-s.logged, "longest", s.longest)
	s.logged, s.at, s.longest = s.n, now, 0
}

// New returns a backend for cfg. It does not connect: the first Next
// starts connecting, and Next ticks (disconnected) until the server
// answers.
func New(cfg Config, log *slog.Logger) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sim: invalid configuration: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Backend{
		cfg: cfg, log: log.With("backend", "sim"),
		addr: net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)),
		a:    NewAdapter(cfg),
		ctx:  ctx, cancel: cancel,
		done:    make(chan struct{}),
		events:  make(chan event),
		release: make(chan struct{}),
		pace:    pacing.NewPacer(cfg.Link, cfg.HandshakeTimeout.D(), nil),
	}
	if cfg.Vision.Source == SourceRendered {
		var err error
		if b.rig, err = newCameraRig(cfg.Vision.Render); err != nil {
			cancel()
			return nil, err
		}
	}
	return b, nil
}

// TimeBase gives the robots on one server one clock: the first robot to
// connect sets tick time = server time + offset, going on from its own
// last tick at the next whole second, and every robot that connects later uses the same offset
// unless that would take its own clock backwards (then it keeps its own:
// a server that restarted at 0 sets a new offset that way). Safe for
// concurrent use; its zero value is ready.
//
// The fork's clock is a float32 that adds the 10 ms step every cycle,
// sent with two decimals: beyond 4096 s (where a sync-mode server's clock
// is minutes after its start) it reads the same time twice about every
// 43rd cycle, and each robot then goes on one cycle (Backend), so a
// robot's offset depends on how many of those it saw. A robot that joins
// later therefore takes its clock from the stamps of the robots already
// there (align): the tick time they gave the first message that read
// each recent server time.
type TimeBase struct {
	mu  sync.Mutex
	set bool
	off time.Duration

	stamps [stampRing]stamp
	next   int // where the next stamp goes
	n      int // stamps held
	// latest is the latest message an anchored robot ticked (a time read
	// again included), if any.
	latest     stamp
	haveLatest bool
}

// stamp is the tick time of the first message that read a server time.
type stamp struct{ sim, tick time.Duration }

// stampRing is how many server times TimeBase remembers: 2.5 s of cycles.
const stampRing = 256

// find returns the stamp of server time sim, looking from the newest
// (robots ask for recent times); callers hold mu.
func (tb *TimeBase) find(sim time.Duration) (stamp, bool) {
	for i := range tb.n {
		s := tb.stamps[(tb.next-1-i+stampRing)%stampRing]
		if s.sim == sim {
			return s, true
		}
	}
	return stamp{}, false
}

// align returns the tick time of a message that read server time sim,
// which the robot would tick at t, after last, on the clock of the robots
// already on the server, and whether the robot is anchored to it.
// firstRead says that the robot's previous message on this connection
// read an earlier time, so that this message is the first to read sim (a
// connection's first message may be the second one that read it).
//
// An anchored robot keeps its clock and stamps the times it reads first
// that have no stamp yet. A robot that is not anchored (it joined while
// others ticked) follows the latest stamp, cycle by cycle, until it reads
// first a time that has a stamp: it takes that stamp's tick time and is
// anchored. A robot that finds no stamp near its time (the first robot,
// or the first after the server restarted) sets the clock: it is
// anchored. Every robot takes the stamp of a time it reads first. A tick
// time that would not come after last is not taken.
func (tb *TimeBase) align(sim, t, last, cycle time.Duration, firstRead, anchored bool) (time.Duration, bool) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	at, found := tb.find(sim)
	near := tb.haveLatest && (sim-tb.latest.sim).Abs() <= maxSimStep
	a := t
	switch {
	case found && (firstRead || !anchored):
		a = at.tick
		anchored = anchored || firstRead
	case found || anchored:
	case near && cycle > 0:
		a = tb.latest.tick + time.Duration(math.Round(float64(sim-tb.latest.sim)/float64(cycle)))*cycle
	default:
		anchored = true
	}
	if a <= last {
		a = t
	}
	if !anchored {
		return a, false
	}
	if !found && (firstRead || !near) {
		tb.stamps[tb.next] = stamp{sim: sim, tick: a}
		tb.next = (tb.next + 1) % stampRing
		tb.n = min(tb.n+1, stampRing)
	}
	if !tb.haveLatest || a > tb.latest.tick || !near {
		tb.latest, tb.haveLatest = stamp{sim: sim, tick: a}, true
	}
	return a, true
}

// offset returns the offset for a robot whose server time is sim, whose
// last tick was at last and whose next tick would be at t (a cycle on; a
// nominal period before the first message, which can be longer than the
// server's first cycles). The shared offset goes, unless it would not
// take the robot's clock forwards.
func (tb *TimeBase) offset(sim, last, t time.Duration) time.Duration {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.set && sim+tb.off > last {
		return tb.off
	}
	// The first robot's clock goes on at the next whole second: then the
	// team's clock does not depend on how long the handshake took, and a
	// sync-mode run is reproducible.
	t = (t + time.Second - 1).Truncate(time.Second)
	tb.set, tb.off = true, t-sim
	return tb.off
}

// Fix sets the offset from server time to tick time before any robot
// connects: for a server whose clock starts with the run (an embedded
// simulator), 0 makes tick time the server's time.
func (tb *TimeBase) Fix(off time.Duration) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.set, tb.off = true, off
}

// SetNoiseEpoch makes the noise the backend adds to the server's
// observations (VisionConfig.NoiseDistance, NoiseAngleDeg) a function of
// its seed and each frame's tick time since the epoch, from the epoch on:
// the tick time that epoch returns once it knows it (ok). Two runs whose
// robots share a seed and an epoch then draw the same noise at the same
// moments of play on any server (common random numbers), however many
// frames came before. Call it before Start; epoch runs in the robot's
// tick.
func (b *Backend) SetNoiseEpoch(epoch func() (time.Duration, bool)) { b.epoch = epoch }

// ShareTime makes the backend's tick time follow tb (see TimeBase). Call
// it before the first Next.
func (b *Backend) ShareTime(tb *TimeBase) { b.base = tb }

// Addr returns the server's address, host:port.
func (b *Backend) Addr() string { return b.addr }

// Stats implements hal.StatsReporter: Errors counts malformed messages,
// lost connections, silences longer than ReadTimeout and failed writes; Reconnects counts
// connections that delivered messages after an earlier one had. Safe for
// concurrent use.
func (b *Backend) Stats() hal.BackendStats {
	return hal.BackendStats{Errors: b.errors.Load(), Reconnects: b.reconnects.Load(), Rejected: b.rejected.Load()}
}

// Cycle returns the measured cycle length in seconds (see Adapter.Cycle).
func (b *Backend) Cycle() float64 { return b.a.Cycle() }

// CameraHeight returns the camera height used for the last See block and
// whether it came from the forward kinematics (see Adapter.CameraHeight).
func (b *Backend) CameraHeight() (float64, bool) { return b.a.CameraHeight() }

func (b *Backend) start() {
	if b.started {
		return
	}
	b.started = true
	b.pace.Start(b.pace.Now())
	go b.run()
}

// run is the connection goroutine: dial, send the scene, hand the
// connection to Next, read frames until the connection ends, back off,
// repeat; until b.ctx is cancelled.
func (b *Backend) run() {
	defer close(b.done)
	l := reconnect.Loop[net.Conn]{
		Backoff: b.cfg.Backoff(),
		Dial: func(ctx context.Context) (net.Conn, error) {
			d := net.Dialer{Timeout: b.cfg.DialTimeout.D()}
			return d.DialContext(ctx, "tcp", b.addr)
		},
		Serve: b.serve,
		Lost: func(ctx context.Context, gen uint64, err error) bool {
			return b.emit(ctx, event{kind: evLost, gen: gen, err: err})
		},
		Unreachable: func(err error) {
			b.log.Info("cannot reach the simulator; retrying", "addr", b.addr, "err", err)
		},
	}
	l.Run(b.ctx)
}

// serve runs one connection and returns how many frames it delivered and
// why it ended (run's reconnect.Loop closes it).
func (b *Backend) serve(ctx context.Context, conn net.Conn, gen uint64) (int, error) {
	var e simspark.Effectors
	e.Scene = e.Intern(b.cfg.Scene)
	e.AddItem(simspark.EffScene)
	if b.cfg.Sync {
		e.AddItem(simspark.EffSyn)
	}
	buf, off := simspark.BeginFrame(nil)
	buf = simspark.EndFrame(e.Append(buf, replyFormat), off)
	conn.SetWriteDeadline(time.Now().Add(b.cfg.DialTimeout.D()))
	if _, err := conn.Write(buf); err != nil {
		return 0, fmt.Errorf("sim: sending the scene to %s: %w", b.addr, err)
	}
	conn.SetWriteDeadline(time.Time{})
	if !b.emit(ctx, event{kind: evConnected, gen: gen, conn: conn}) {
		return 0, ctx.Err()
	}
	fr := simspark.NewFrameReader(conn, 0)
	for n := 0; ; n++ {
		msg, err := fr.Next()
		if err != nil {
			return n, fmt.Errorf("sim: reading from %s: %w", b.addr, err)
		}
		if !b.emit(ctx, event{kind: evFrame, gen: gen, msg: msg}) {
			return n, ctx.Err()
		}
		select { // msg stays valid until Next has parsed it
		case <-b.release:
		case <-ctx.Done():
			return n, ctx.Err()
		}
	}
}

func (b *Backend) emit(ctx context.Context, ev event) bool { return reconnect.Send(ctx, b.events, ev) }

// Next implements hal.Clock. While the server runs it returns when the next
// perceptor message has arrived (Connected true, Time the sim time, Step one
// cycle). While the server is unreachable, still handshaking, or silent for
// more than ReadTimeout, it returns a tick one nominal period after the
// previous one (Connected false; sensor values keep their last state). A
// server silent for DeadTimeout is given up and dialled again. Time never
// runs backwards, also across reconnects.
func (b *Backend) Next(ctx context.Context) (hal.Tick, error) {
	if err := reconnect.Ready(ctx, b.closed, ErrClosed); err != nil {
		return hal.Tick{}, err
	}
	b.start()
	if b.replyDue && b.cfg.Sync && b.conn != nil {
		// Commit was skipped: a sync-mode server waits for (syn).
		b.eff.Reset()
		b.send(true)
	}
	b.replyDue = false
	// ReadTimeout counts from here: a slow tick must not make the server
	// look silent.
	waitStart := b.pace.Now()
	for {
		timeout := b.pace.Wait(b.pace.Deadline(waitStart))
		select {
		case <-ctx.Done():
			b.pace.Disarm()
			return hal.Tick{}, ctx.Err()
		case ev := <-b.events:
			b.pace.Disarm()
			switch ev.kind {
			case evConnected:
				b.attach(ev)
			case evLost:
				if ev.gen == b.gen && b.conn != nil {
					b.drop(ev.err)
				}
			case evFrame:
				if ev.gen != b.gen || b.conn == nil {
					b.releaseFrame()
					continue
				}
				err := b.p.Parse(ev.msg)
				b.releaseFrame()
				if err != nil {
					b.malformed(err)
					continue
				}
				if err := plausible(&b.p); err != nil {
					b.reject(err)
					continue
				}
				return b.connectedTick(), nil
			}
		case <-timeout:
			now := b.pace.Now()
			switch b.pace.Expire(now) {
			case pacing.Stalled:
				b.errors.Add(1)
				b.stalls.stalled(b.log, b.addr, now, now.Sub(b.pace.Heard()))
				return b.idleTick(now), nil
			case pacing.Dead:
				b.drop(fmt.Errorf("sim: no message from %s for %v: %w", b.addr, b.cfg.DeadTimeout.D(), errSilent))
			case pacing.NoFirst:
				b.drop(fmt.Errorf("sim: no first message from %s within %v: %w", b.addr, b.cfg.HandshakeTimeout.D(), errSilent))
			}
			if b.pace.Due(now) {
				return b.idleTick(now), nil
			}
		}
	}
}

func (b *Backend) releaseFrame() {
	select {
	case b.release <- struct{}{}:
	case <-b.ctx.Done():
	}
}

// attach takes over a new connection whose scene was sent.
func (b *Backend) attach(ev event) {
	if b.conn != nil {
		b.conn.Close()
	}
	b.conn, b.gen = ev.conn, ev.gen
	b.replyDue, b.phase = false, phaseInit
	b.pace.Opened(b.pace.Now())
	b.a.Reset()
	b.log.Debug("connected; scene sent", "addr", b.addr)
}

// drop gives up the current connection after err.
func (b *Backend) drop(err error) {
	b.errors.Add(1)
	if b.pace.IsLive() {
		b.log.Warn("lost the simulator", "addr", b.addr, "err", err)
	} else {
		b.log.Info("simulator connection failed", "addr", b.addr, "err", err)
	}
	b.conn.Close() // ends the connection goroutine's read
	b.conn, b.replyDue = nil, false
	b.pace.Lost()
}

// malformed counts and (at most once per second of tick time) logs a
// message that did not parse, which is skipped.
func (b *Backend) malformed(err error) {
	b.errors.Add(1)
	if last := b.pace.Last(); last >= b.logAt {
		b.log.Warn("skipping a malformed perceptor message", "err", err, "suppressed", b.suppressed)
		b.logAt, b.suppressed = last+time.Second, 0
	} else {
		b.suppressed++
	}
	if b.cfg.Sync && b.conn != nil {
		// The server still waits for this cycle's (syn).
		b.eff.Reset()
		b.send(true)
	}
}

// reject counts and (at most once a second of wall time, which goes on
// while every message is rejected) logs a message with an implausible
// value, which is left out as a whole: the sensor values stay those of
// the last good message.
func (b *Backend) reject(err error) {
	b.rejected.Add(1)
	if now := time.Now(); !now.Before(b.rejectLogAt) {
		b.log.Warn("skipping a perceptor message with an implausible value", "err", err, "suppressed", b.rejectSuppressed)
		b.rejectLogAt, b.rejectSuppressed = now.Add(time.Second), 0
	} else {
		b.rejectSuppressed++
	}
	if b.cfg.Sync && b.conn != nil {
		// The server still waits for this cycle's (syn).
		b.eff.Reset()
		b.send(true)
	}
}

func (b *Backend) connectedTick() hal.Tick {
	first := b.pace.Live()
	if first {
		if b.everLive {
			b.reconnects.Add(1)
			b.log.Info("reconnected to the simulator", "addr", b.addr)
		} else {
			b.log.Info("connected to the simulator", "addr", b.addr)
		}
		b.everLive = true
	}
	if b.pace.Recover() {
		b.log.Debug("the simulator is back", "addr", b.addr)
	}
	hasSee, _ := b.a.update(&b.p)
	b.replyDue = true
	defer b.renderCameras()
	cycle := time.Duration(math.Round(b.a.Cycle() * float64(time.Second)))
	if cycle <= 0 {
		cycle = b.pace.Period()
	}
	last := b.pace.Last()
	t := last + cycle
	if st, ok := b.a.SimTime(); ok {
		sim := time.Duration(math.Round(st * float64(time.Second)))
		if first {
			// A new connection: its clock may be minutes ahead (a sync-mode
			// server runs freely while no agent is connected) or start at 0
			// (a restarted server). Tick time continues from the last tick,
			// or, with a shared TimeBase, goes on the other robots' clock
			// if that does not take it backwards.
			b.offset = t - sim
			if b.base != nil {
				b.offset = b.base.offset(sim, last, t)
			}
		} else if d := sim + b.offset - last; d <= 0 || d > maxSimStep {
			// The server's clock went backwards or leapt forwards on the
			// same connection, or read the same time again (a float32
			// clock beyond 4096 s, about every 43rd step): continue one
			// cycle on.
			if d != 0 {
				b.log.Warn("the simulator's clock jumped; tick time continues", "addr", b.addr, "jump", d-cycle)
			}
			b.offset = t - sim
		}
		t = sim + b.offset
	}
	if st, ok := b.a.ServerTime(); ok && b.base != nil {
		// The other robots' clock, as they stamped it (TimeBase), also
		// where the server's clock is too coarse to count cycles by
		// (then tick time goes on one cycle a message).
		sim := time.Duration(math.Round(st * float64(time.Second)))
		if first {
			b.anchored = false
		}
		firstRead := !first && sim > b.lastSim
		var a time.Duration
		a, b.anchored = b.base.align(sim, t, last, cycle, firstRead, b.anchored)
		b.offset += a - t
		t = a
		b.lastSim = sim
	}
	if hasSee {
		// The added vision noise is drawn on tick time, which the robots
		// share on every server, from the epoch on (SetNoiseEpoch).
		ep, now := math.NaN(), math.NaN()
		if b.epoch != nil && !first {
			if e, ok := b.epoch(); ok {
				ep, now = e.Seconds(), t.Seconds()
			}
		}
		b.a.noiseEpoch(ep)
		b.a.updateVision(&b.p, now)
	}
	b.seq++
	now := b.pace.Now()
	b.pace.Ticked(t, now)
	b.pace.Hear(now)
	// Tick time follows the server's clock, which every robot on the
	// server reads alike, so their clocks agree; but that clock is a
	// float32 sent with two decimals, whose steps read 0, 10 or 20 ms (see
	// Adapter.measureCycle) while every message is one physics step. Step
	// says so.
	return hal.Tick{Seq: b.seq, Time: t, Period: cycle, Step: cycle, Connected: true}
}

// idleTick is a tick without a message. Before the first message ever,
// tick time all but stands still (1 ns a tick, so that it still
// increases): how long a robot waited for its server is wall time, which
// must not become simulation time (a run would then depend on the
// machine's load, and "after 3 s" could come before any message).
func (b *Backend) idleTick(now time.Time) hal.Tick {
	b.seq++
	t := b.pace.Last() + 1
	if b.everLive {
		t = b.pace.Last() + b.pace.Period()
	}
	b.pace.Ticked(t, now)
	b.a.markStale()
	return hal.Tick{Seq: b.seq, Time: t, Period: b.pace.Period(), Connected: false}
}

// Commit implements hal.Device: it answers the current message with init
// and beam, then beam, during the handshake and then with the joint velocities that
// steer every joint to its target, all in one frame ending with (syn) in
// sync mode. It sends nothing on a disconnected tick.
func (b *Backend) Commit(context.Context) error {
	if !b.replyDue || b.conn == nil {
		return nil
	}
	b.eff.Reset()
	switch b.phase {
	case phaseInit, phaseBeam:
		if b.phase == phaseInit {
			b.eff.HasUnum, b.eff.Unum = true, b.cfg.Player
			b.eff.HasTeam, b.eff.Team = true, b.eff.Intern(b.cfg.Team)
			b.eff.AddItem(simspark.EffInit)
		}
		b.eff.Beam = [3]float64{b.cfg.Beam.X, b.cfg.Beam.Y, b.cfg.Beam.Deg}
		b.eff.AddItem(simspark.EffBeam)
		b.phase++
	default:
		b.a.AppendJointVelocities(&b.eff)
	}
	return b.send(true)
}

// SafeState implements hal.Device: it sends a zero velocity for every
// joint (a SimSpark robot has no stiffness to turn off) and returns. The
// targets are forgotten until the next WriteJoints.
func (b *Backend) SafeState(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: safe state: %w", err)
	}
	b.eff.Reset()
	b.a.AppendStop(&b.eff)
	if b.conn == nil || b.phase != phaseRun {
		return nil
	}
	if err := b.send(b.replyDue); err != nil {
		return fmt.Errorf("sim: safe state: %w", err)
	}
	return nil
}

// send writes b.eff (plus (syn) in sync mode if syn) as one frame; the
// current message counts as answered.
func (b *Backend) send(syn bool) error {
	if syn && b.cfg.Sync {
		b.eff.AddItem(simspark.EffSyn)
	}
	b.replyDue = false
	if len(b.eff.Order) == 0 {
		return nil
	}
	buf, off := simspark.BeginFrame(b.wbuf[:0])
	b.wbuf = simspark.EndFrame(b.eff.Append(buf, replyFormat), off)
	b.conn.SetWriteDeadline(time.Now().Add(b.cfg.ReadTimeout.D()))
	if _, err := b.conn.Write(b.wbuf); err != nil {
		err = fmt.Errorf("sim: sending to %s: %w", b.addr, err)
		b.drop(err)
		return err
	}
	return nil
}

// Close implements hal.Device: it ends the connection goroutine and closes
// the connection. It does not imply SafeState.
func (b *Backend) Close() error {
	if !reconnect.Stop(&b.closed, b.started, b.pace.Timer(), b.cancel, b.done) {
		return nil
	}
	b.conn = nil
	if b.rig != nil {
		b.rig.close()
	}
	return nil
}

// ReadJoints implements hal.JointSensor.
func (b *Backend) ReadJoints(v *hal.JointSensors) { b.a.ReadJoints(v) }

// WriteJoints implements hal.JointActuator (see Adapter.WriteJoints).
func (b *Backend) WriteJoints(c *hal.JointCommand) { b.a.WriteJoints(c) }

// ReadIMU implements hal.IMUSensor.
func (b *Backend) ReadIMU(v *hal.IMU) { b.a.ReadIMU(v) }

// ReadBodyAngles implements hal.BodyAngleSensor.
func (b *Backend) ReadBodyAngles(v *hal.BodyAngles) { b.a.ReadBodyAngles(v) }

// ReadFSR implements hal.FSRSensor.
func (b *Backend) ReadFSR(v *hal.FSR) { b.a.ReadFSR(v) }

// ReadSonar implements hal.SonarSensor.
func (b *Backend) ReadSonar(v *hal.Sonar) { b.a.ReadSonar(v) }

// renderCameras renders the cameras for a message with a See block, at
// the tick time just set (rendered vision only).
func (b *Backend) renderCameras() {
	if b.rig == nil || !b.a.vision.Fresh {
		return
	}
	last := b.pace.Last()
	if err := b.rig.render(b.a, &b.p, last); err != nil {
		b.errors.Add(1)
		if last >= b.logAt {
			b.log.Warn("rendering the cameras failed", "err", err)
			b.logAt = last + time.Second
		}
	}
}

// Provides implements runner.Provider: with rendered vision the backend
// provides camera frames and no observations, else observations and no
// camera frames; every other capability it has.
func (b *Backend) Provides(entry string) bool {
	switch entry {
	case visionKey:
		return b.rig == nil
	case cameraKey:
		return b.rig != nil
	}
	return true
}

// ReadCamera implements hal.CameraSensor: both cameras' newest rendered
// frames (none with the server's vision).
func (b *Backend) ReadCamera(v *hal.CameraFrames) {
	if b.rig == nil {
		*v = hal.CameraFrames{}
		return
	}
	b.rig.read(v)
}

// Frames implements hal.CameraSensor: the rendered frames' pool (nil with
// the server's vision).
func (b *Backend) Frames() *hal.FramePool {
	if b.rig == nil {
		return nil
	}
	return b.rig.pool
}

// Vision returns where the backend's vision comes from.
func (b *Backend) Vision() VisionSource { return b.cfg.Vision.Source }

// ReadVision implements hal.VisionSensor.
func (b *Backend) ReadVision(v *hal.Vision) { b.a.ReadVision(v) }

// ReadGameState implements hal.GameStateSensor.
func (b *Backend) ReadGameState(v *hal.GameState) { b.a.ReadGameState(v) }

// ReadGroundTruth implements hal.GroundTruthSensor.
func (b *Backend) ReadGroundTruth(v *hal.GroundTruth) { b.a.ReadGroundTruth(v) }

// Interface checks.
var (
	_ hal.Device            = (*Backend)(nil)
	_ hal.JointSensor       = (*Backend)(nil)
	_ hal.JointActuator     = (*Backend)(nil)
	_ hal.IMUSensor         = (*Backend)(nil)
	_ hal.BodyAngleSensor   = (*Backend)(nil)
	_ hal.SonarSensor       = (*Backend)(nil)
	_ hal.FSRSensor         = (*Backend)(nil)
	_ hal.VisionSensor      = (*Backend)(nil)
	_ hal.CameraSensor      = (*Backend)(nil)
	_ hal.GameStateSensor   = (*Backend)(nil)
	_ hal.GroundTruthSensor = (*Backend)(nil)
	_ hal.StatsReporter     = (*Backend)(nil)
)

// BodyKind says the robot is the SimSpark NAO model.
func (b *Backend) BodyKind() body.Kind { return body.SimSparkNAO }
