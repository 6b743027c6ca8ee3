// Package nao is robotd's NAO v6 backend: a hal.Device over LoLA's Unix
// socket (protocols.md §1). LoLA's sensor map, about every 12 ms, paces the
// tick; every map is decoded into HAL values (joints in LoLA order, the IMU
// in the NAO body frame with the accelerometer's gravity vector turned into
// specific force, body angles, FSR, touch and buttons, sonar, battery,
// temperatures and their status); each tick is answered with one full
// actuator map (Position, Stiffness, the LEDs and Sonar, 786 bytes).
//
// Safety: stiffness is 0 in every map sent before the modules' first joint
// command, after SafeState (for good: a shutdown never sends stiffness
// again), while the chest button's gesture (three presses) holds the robot
// limp, and in the map sent when LoLA stops answering. After every
// (re)connection the stiffness ramps up from 0 over Config.StiffnessRamp.
// When LoLA goes away, ticks go on at the nominal period with Connected
// false and the backend dials again with backoff.
package nao

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/tinylib/msgp/msgp"

	"github.com/robotd/robotd/backends/pacing"
	"github.com/robotd/robotd/backends/v4l2"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/internal/reconnect"
	"github.com/robotd/robotd/proto/lola"
)

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("nao: backend closed")

// errSilent marks a LoLA that stopped sending.
var errSilent = errors.New("LoLA silent")

// frame is one sensor map as read from the socket.
type frame struct {
	gen uint64
	at  time.Duration // arrival, since the backend started
	n   int
	buf []byte
}

type eventKind uint8

const (
	evConnected eventKind = iota + 1 // conn is up
	evLost                           // the connection ended with err
)

// event goes from the connection goroutine to the runner's.
type event struct {
	kind eventKind
	gen  uint64
	conn *net.UnixConn
	err  error
}

// numFrames is the number of sensor-map buffers: one being read, one
// waiting, one being decoded.
const numFrames = 3

// Backend is a NAO v6 through LoLA. It implements hal.Device, JointSensor,
// JointActuator, IMUSensor, BodyAngleSensor, SonarSensor, FSRSensor,
// ButtonSensor, LEDActuator, BatterySensor, StatsReporter and
// prometheus.Collector.
//
// One goroutine, started by the first Next and ended by Close, dials and
// reads sensor maps; everything else happens in the caller's goroutine.
// All methods but Stats, Describe and Collect are for one goroutine (the
// runner's).
type Backend struct {
	cfg Config
	log *slog.Logger
	c   counters

	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	events  chan event
	frames  chan *frame   // the newest unread sensor map
	free    chan *frame   // idle buffers
	rbuf    []byte        // the connection goroutine's read buffer
	pace    *pacing.Pacer // the link's state and the ticks' pacing and time
	started bool
	closed  bool

	conn        *net.UnixConn // the runner's view; nil while down
	gen         uint64
	everLive    bool
	connectedAt time.Duration // tick time the stiffness ramp starts from
	replyDue    bool          // the last map awaits its answer

	sensors lola.Sensors
	good    lola.Sensors // the last sensor map that decoded and was plausible
	st      state

	cmd     hal.JointCommand
	haveCmd bool
	leds    hal.LEDs
	act     lola.Actuators
	wbuf    []byte

	limp  bool // chest gesture
	safe  bool // SafeState was called: never stiff again
	chest chestGesture

	seq   uint64
	logAt time.Duration
	quiet int

	rejectLogAt time.Time
	rejectQuiet int

	cams *v4l2.Set
}

// Options are what a NAO backend takes besides its configuration.
type Options struct {
	// OpenCamera opens a camera's device node (nil: the kernel's).
	OpenCamera v4l2.Opener
	// Cameras are the cameras' models, calibration applied; a zero
	// CameraInfo is the nominal NAO v6 camera (body.NAOCamera).
	Cameras [hal.NumCameras]hal.CameraInfo
	// Clock is the backend's wall clock: tick time since start, the
	// ticks' pacing and the link's timeouts (nil: the system's).
	Clock pacing.Clock
}

// New returns a backend for cfg. It does not connect: the first Next
// starts dialling, and Next ticks (disconnected) until LoLA answers.
func New(cfg Config, log *slog.Logger) (*Backend, error) {
	return NewWithOptions(cfg, log, Options{})
}

// NewWithOptions is New with opts.
func NewWithOptions(cfg Config, log *slog.Logger, opts Options) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("nao: invalid configuration: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Backend{
		cfg: cfg, log: log.With("backend", "nao", "socket", cfg.Socket),
		ctx: ctx, cancel: cancel,
		done:   make(chan struct{}),
		events: make(chan event),
		frames: make(chan *frame, 1),
		free:   make(chan *frame, numFrames),
		rbuf:   make([]byte, 2*cfg.MaxPacket),
		pace:   pacing.NewPacer(cfg.Link, cfg.DeadTimeout.D(), opts.Clock),
		wbuf:   make([]byte, 0, lola.ActuatorPacketSize),
		chest:  chestGesture{n: cfg.ChestPresses, window: cfg.ChestWindow.D()},
	}
	for i := range opts.Cameras {
		if opts.Cameras[i] == (hal.CameraInfo{}) {
			opts.Cameras[i] = body.NAOCamera(hal.CameraID(i))
		}
	}
	cams, err := v4l2.NewSet(cfg.Cameras.configs(), opts.Cameras, opts.OpenCamera, b.log)
	if err != nil {
		return nil, fmt.Errorf("nao: cameras: %w", err)
	}
	b.cams = cams
	for range numFrames {
		b.free <- &frame{buf: make([]byte, cfg.MaxPacket)}
	}
	return b, nil
}

// Socket returns LoLA's socket path.
func (b *Backend) Socket() string { return b.cfg.Socket }

// Stats implements hal.StatsReporter: Errors counts malformed maps, stalls,
// lost connections, corrupt streams and failed writes; Reconnects counts
// connections that delivered maps after an earlier one had. Safe for
// concurrent use.
func (b *Backend) Stats() hal.BackendStats {
	c := &b.c
	return hal.BackendStats{
		Errors:     c.malformed.Load() + c.stalls.Load() + c.lost.Load() + c.writeErrs.Load() + c.corrupt.Load(),
		Reconnects: c.reconnect.Load(),
		Rejected:   c.rejected.Load(),
	}
}

// Limp reports whether stiffness is forced to 0 (chest gesture or
// SafeState).
func (b *Backend) Limp() bool { return b.limp || b.safe }

func (b *Backend) start() {
	if b.started {
		return
	}
	b.started = true
	t0 := b.pace.Now()
	b.pace.Start(t0)
	go b.run()
	b.cams.Start(b.ctx, v4l2.MonotonicClock(t0))
}

// run is the connection goroutine: dial, read maps until the connection
// ends, back off, repeat; until b.ctx is cancelled.
func (b *Backend) run() {
	defer close(b.done)
	l := reconnect.Loop[*net.UnixConn]{
		Backoff: b.cfg.Backoff(),
		Dial: func(ctx context.Context) (*net.UnixConn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", b.cfg.Socket)
			if err != nil {
				return nil, err
			}
			return c.(*net.UnixConn), nil
		},
		Serve: func(ctx context.Context, conn *net.UnixConn, gen uint64) (int, error) {
			if !b.emit(ctx, event{kind: evConnected, gen: gen, conn: conn}) {
				return 0, ctx.Err()
			}
			return b.read(ctx, conn, gen)
		},
		Lost: func(ctx context.Context, gen uint64, err error) bool {
			return b.emit(ctx, event{kind: evLost, gen: gen, err: err})
		},
		Unreachable: func(err error) { b.log.Info("cannot reach LoLA; retrying", "err", err) },
	}
	l.Run(b.ctx)
}

// read reads sensor maps from conn until it fails, and returns how many it
// delivered. LoLA has no framing beyond msgpack (§1.1): a map ends where
// msgp.Skip says, so a robot's 896-byte maps and an emulator's longer
// float64 ones both work.
func (b *Backend) read(ctx context.Context, conn *net.UnixConn, gen uint64) (int, error) {
	n, have := 0, 0
	for {
		for have > 0 {
			rest, err := msgp.Skip(b.rbuf[:have])
			if errors.Is(err, msgp.ErrShortBytes) {
				break
			}
			if err != nil {
				b.c.corrupt.Add(1)
				return n, fmt.Errorf("nao: reading from %s: corrupt msgpack stream: %w", b.cfg.Socket, err)
			}
			size := have - len(rest)
			if size > b.cfg.MaxPacket {
				b.c.corrupt.Add(1)
				return n, fmt.Errorf("nao: reading from %s: a %d-byte message exceeds max_packet %d", b.cfg.Socket, size, b.cfg.MaxPacket)
			}
			if !b.deliver(ctx, gen, b.rbuf[:size]) {
				return n, ctx.Err()
			}
			n++
			have = copy(b.rbuf, b.rbuf[size:have])
		}
		if have >= b.cfg.MaxPacket {
			b.c.corrupt.Add(1)
			return n, fmt.Errorf("nao: reading from %s: no complete msgpack map in %d bytes", b.cfg.Socket, have)
		}
		m, err := conn.Read(b.rbuf[have:])
		have += m
		if err != nil {
			return n, fmt.Errorf("nao: reading from %s: %w", b.cfg.Socket, err)
		}
	}
}

// deliver hands one map to Next, replacing a waiting one that Next has not
// taken (LoLA's newest state is what counts).
func (b *Backend) deliver(ctx context.Context, gen uint64, msg []byte) bool {
	var f *frame
	select {
	case f = <-b.free:
	case <-ctx.Done():
		return false
	}
	f.gen, f.at, f.n = gen, b.pace.Since(), copy(f.buf, msg)
	for {
		select {
		case b.frames <- f:
			return true
		default:
		}
		select {
		case old := <-b.frames:
			b.free <- old
			b.c.skipped.Add(1)
		default:
		}
	}
}

func (b *Backend) emit(ctx context.Context, ev event) bool { return reconnect.Send(ctx, b.events, ev) }

// Next implements hal.Clock. While LoLA runs it returns when the next
// sensor map has arrived (Connected true, Time the map's arrival since
// start). While LoLA is unreachable or silent for more than ReadTimeout it
// returns a tick one nominal period after the previous one (Connected
// false; sensor values keep their last state). A LoLA silent for
// DeadTimeout is given up and dialled again. Time never runs backwards.
func (b *Backend) Next(ctx context.Context) (hal.Tick, error) {
	if err := reconnect.Ready(ctx, b.closed, ErrClosed); err != nil {
		return hal.Tick{}, err
	}
	b.start()
	b.replyDue = false // one answer per map: a map Commit skipped stays unanswered
	for {
		// Take what has arrived before judging silence: a slow tick must
		// not make LoLA look silent.
		select {
		case ev := <-b.events:
			b.handle(ev)
			continue
		case f := <-b.frames:
			at, ok := b.take(f)
			if !ok {
				continue
			}
			if err := ctx.Err(); err != nil {
				return hal.Tick{}, err
			}
			return b.connectedTick(at), nil
		default:
		}
		// ReadTimeout counts from the last map: LoLA's maps are read as they
		// come, and what arrived during a slow tick was taken above.
		timeout := b.pace.Wait(b.pace.Deadline(b.pace.Heard()))
		select {
		case <-ctx.Done():
			b.pace.Disarm()
			return hal.Tick{}, ctx.Err()
		case ev := <-b.events:
			b.pace.Disarm()
			b.handle(ev)
		case f := <-b.frames:
			b.pace.Disarm()
			at, ok := b.take(f)
			if !ok {
				continue
			}
			if err := ctx.Err(); err != nil {
				return hal.Tick{}, err
			}
			return b.connectedTick(at), nil
		case <-timeout:
			now := b.pace.Now()
			switch b.pace.Expire(now) {
			case pacing.Stalled:
				b.c.stalls.Add(1)
				b.log.Warn("LoLA is silent; stiffness 0 sent, ticking without it", "after", now.Sub(b.pace.Heard()).Round(time.Millisecond))
				_ = b.send(command{limp: true}) // best effort: LoLA reads it if it comes back
				return b.idleTick(now), nil
			case pacing.Dead:
				b.drop(fmt.Errorf("nao: no sensor map from %s for %v: %w", b.cfg.Socket, b.cfg.DeadTimeout.D(), errSilent))
			case pacing.NoFirst:
				b.drop(fmt.Errorf("nao: no first sensor map from %s within %v: %w", b.cfg.Socket, b.cfg.DeadTimeout.D(), errSilent))
			}
			if b.pace.Due(now) {
				return b.idleTick(now), nil
			}
		}
	}
}

// handle applies a connection event.
func (b *Backend) handle(ev event) {
	switch ev.kind {
	case evConnected:
		if b.conn != nil {
			b.conn.Close()
		}
		b.conn, b.gen = ev.conn, ev.gen
		b.pace.Opened(b.pace.Now())
		b.replyDue = false
		b.log.Debug("connected to LoLA's socket")
	case evLost:
		if ev.gen == b.gen && b.conn != nil {
			b.drop(ev.err)
		}
	}
}

// take decodes a frame of the current connection into b.sensors and
// recycles its buffer; false if the frame is stale or malformed.
func (b *Backend) take(f *frame) (time.Duration, bool) {
	if f.gen != b.gen || b.conn == nil {
		b.free <- f
		return 0, false
	}
	err := lola.DecodeSensors(f.buf[:f.n], &b.sensors)
	at := f.at
	b.free <- f
	if err != nil {
		b.sensors = b.good
		b.malformed(err)
		return 0, false
	}
	if err := plausible(&b.sensors); err != nil {
		b.sensors = b.good
		b.reject(err)
		return 0, false
	}
	b.good = b.sensors
	return at, true
}

// reject counts and (at most once a second of wall time, which goes on
// while every map is rejected) logs a sensor map with an implausible
// value, which is left out as a whole.
func (b *Backend) reject(err error) {
	b.c.rejected.Add(1)
	if now := time.Now(); !now.Before(b.rejectLogAt) {
		b.log.Warn("skipping a LoLA sensor map with an implausible value", "err", err, "suppressed", b.rejectQuiet)
		b.rejectLogAt, b.rejectQuiet = now.Add(time.Second), 0
	} else {
		b.rejectQuiet++
	}
}

// drop gives up the current connection after err.
func (b *Backend) drop(err error) {
	b.c.lost.Add(1)
	if b.pace.IsLive() {
		b.log.Warn("lost LoLA", "err", err)
	} else {
		b.log.Info("LoLA connection failed", "err", err)
	}
	b.conn.Close() // ends the connection goroutine's read
	b.conn, b.replyDue = nil, false
	b.pace.Lost()
}

// malformed counts and (at most once per second of tick time) logs a map
// that did not decode, which is skipped.
func (b *Backend) malformed(err error) {
	b.c.malformed.Add(1)
	if last := b.pace.Last(); last >= b.logAt {
		b.log.Warn("skipping a malformed LoLA sensor map", "err", err, "suppressed", b.quiet)
		b.logAt, b.quiet = last+time.Second, 0
	} else {
		b.quiet++
	}
}

func (b *Backend) connectedTick(at time.Duration) hal.Tick {
	t := b.pace.Monotonic(at)
	if b.pace.Live() {
		b.connectedAt = t
		if b.everLive {
			b.c.reconnect.Add(1)
			b.log.Info("reconnected to LoLA")
		} else {
			b.log.Info("connected to LoLA",
				"body", string(b.sensors.RobotConfig[lola.ConfigBodyID].Bytes()),
				"body_version", string(b.sensors.RobotConfig[lola.ConfigBodyVersion].Bytes()),
				"head", string(b.sensors.RobotConfig[lola.ConfigHeadID].Bytes()),
				"head_version", string(b.sensors.RobotConfig[lola.ConfigHeadVersion].Bytes()))
		}
		b.everLive = true
	}
	if b.pace.Recover() {
		b.connectedAt = t
		b.log.Info("LoLA is back")
	}
	b.c.packets.Add(1)
	convert(&b.cfg, &b.sensors, &b.st)
	b.cams.Record(t, &b.st.joints.Angle, b.st.angles)
	if b.chest.update(b.st.buttons.Pressed(hal.ChestButton), t) {
		switch {
		case !b.limp:
			b.limp = true
			b.log.Warn("chest button pressed; stiffness off", "presses", b.cfg.ChestPresses)
		case b.cfg.ChestRelease:
			b.limp = false
			b.connectedAt = t // ramp up again
			b.log.Warn("chest button pressed; stiffness back on", "presses", b.cfg.ChestPresses)
		}
		b.c.limp.Store(b.limp || b.safe)
	}
	b.replyDue = true
	b.seq++
	now := b.pace.Now()
	b.pace.Ticked(t, now)
	b.pace.Hear(now)
	return hal.Tick{Seq: b.seq, Time: t, Period: b.pace.Period(), Connected: true}
}

func (b *Backend) idleTick(now time.Time) hal.Tick {
	b.seq++
	t := b.pace.Monotonic(b.pace.At(now))
	b.pace.Ticked(t, now)
	return hal.Tick{Seq: b.seq, Time: t, Period: b.pace.Period(), Connected: false}
}

// commandState is what the next map carries.
func (b *Backend) commandState() command {
	c := command{limp: b.limp || b.safe || !b.haveCmd, stiffnessCap: 1}
	if r := b.cfg.StiffnessRamp.D(); r > 0 {
		c.stiffnessCap = min(1, float64(b.pace.Last()-b.connectedAt)/float64(r))
	}
	return c
}

// Commit implements hal.Device: it answers the current sensor map with one
// actuator map (every key of §1.4, joints in LoLA order). It sends nothing
// on a disconnected tick, for a map already answered, or once ctx is done.
func (b *Backend) Commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nao: commit: %w", err)
	}
	if !b.replyDue || b.conn == nil {
		return nil
	}
	b.replyDue = false
	return b.send(b.commandState())
}

// send writes one actuator map.
func (b *Backend) send(cmd command) error {
	if b.conn == nil {
		return nil
	}
	var jc *hal.JointCommand
	if b.haveCmd {
		jc = &b.cmd
	}
	fillActuators(&b.act, cmd, jc, &b.st.joints.Angle, &b.leds, b.cfg.Sonar)
	b.wbuf = lola.AppendActuators(b.wbuf[:0], &b.act)
	b.conn.SetWriteDeadline(time.Now().Add(b.cfg.WriteTimeout.D()))
	if _, err := b.conn.Write(b.wbuf); err != nil {
		b.c.writeErrs.Add(1)
		err = fmt.Errorf("nao: sending an actuator map to %s: %w", b.cfg.Socket, err)
		b.drop(err)
		return err
	}
	b.c.commands.Add(1)
	return nil
}

// SafeState implements hal.Device: from now on every map has stiffness 0
// (with the measured angles as targets). It sends one such map at once if
// LoLA is connected, then answers up to Config.SafeConfirm further sensor
// maps the same way until LoLA reports every joint's stiffness at 0, all
// within ctx. It returns an error if it could not send, LoLA did not
// confirm in time, or LoLA, once reached, is not connected now; with no
// connection ever made there is nothing to do.
func (b *Backend) SafeState(ctx context.Context) error {
	b.safe = true
	b.c.limp.Store(true)
	if b.conn == nil {
		if b.everLive {
			return errors.New("nao: safe state: LoLA is not connected, stiffness 0 cannot be sent")
		}
		return nil // never connected: nothing was ever stiffened
	}
	limp := command{limp: true}
	if err := b.send(limp); err != nil {
		return fmt.Errorf("nao: safe state: %w", err)
	}
	for range b.cfg.SafeConfirm {
		if err := b.waitMap(ctx); err != nil {
			return fmt.Errorf("nao: safe state: waiting for LoLA to report stiffness 0: %w", err)
		}
		convert(&b.cfg, &b.sensors, &b.st)
		if err := b.send(limp); err != nil {
			return fmt.Errorf("nao: safe state: %w", err)
		}
		if stiffnessOff(&b.st.joints) {
			return nil
		}
	}
	if b.cfg.SafeConfirm > 0 {
		return fmt.Errorf("nao: safe state: LoLA still reports stiffness after %d maps", b.cfg.SafeConfirm)
	}
	return nil
}

// waitMap waits for the next sensor map of the current connection.
func (b *Backend) waitMap(ctx context.Context) error {
	for {
		if b.conn == nil {
			return errors.New("connection lost")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-b.events:
			b.handle(ev)
		case f := <-b.frames:
			if _, ok := b.take(f); ok {
				return nil
			}
		}
	}
}

func stiffnessOff(j *hal.JointSensors) bool {
	for _, s := range j.Stiffness {
		if s > 0.01 {
			return false
		}
	}
	return true
}

// Close implements hal.Device: it ends the connection goroutine and closes
// the connection. It does not imply SafeState.
func (b *Backend) Close() error {
	if !reconnect.Stop(&b.closed, b.started, b.pace.Timer(), b.cancel, b.done) {
		return nil
	}
	b.cams.Wait()
	if b.conn != nil {
		b.conn.Close()
		b.conn = nil
	}
	return nil
}

// ReadJoints implements hal.JointSensor.
func (b *Backend) ReadJoints(v *hal.JointSensors) { *v = b.st.joints }

// WriteJoints implements hal.JointActuator: the targets and stiffness for
// the next Commit (clamped to the joint limits and 0..1 there).
func (b *Backend) WriteJoints(c *hal.JointCommand) { b.cmd, b.haveCmd = *c, true }

// ReadIMU implements hal.IMUSensor.
func (b *Backend) ReadIMU(v *hal.IMU) { *v = b.st.imu }

// ReadBodyAngles implements hal.BodyAngleSensor.
func (b *Backend) ReadBodyAngles(v *hal.BodyAngles) { *v = b.st.angles }

// ReadSonar implements hal.SonarSensor.
func (b *Backend) ReadSonar(v *hal.Sonar) { *v = b.st.sonar }

// ReadFSR implements hal.FSRSensor.
func (b *Backend) ReadFSR(v *hal.FSR) { *v = b.st.fsr }

// ReadButtons implements hal.ButtonSensor.
func (b *Backend) ReadButtons(v *hal.Buttons) { *v = b.st.buttons }

// ReadBattery implements hal.BatterySensor.
func (b *Backend) ReadBattery(v *hal.Battery) { *v = b.st.battery }

// ReadCamera implements hal.CameraSensor: each camera's newest frame with
// the joint angles and torso orientation of the sensor map nearest its
// exposure.
func (b *Backend) ReadCamera(v *hal.CameraFrames) { b.cams.Read(v) }

// Frames implements hal.CameraSensor.
func (b *Backend) Frames() *hal.FramePool { return b.cams.Frames() }

// WriteLEDs implements hal.LEDActuator.
func (b *Backend) WriteLEDs(v *hal.LEDs) { b.leds = *v }

// Interface checks.
var (
	_ hal.Device          = (*Backend)(nil)
	_ hal.JointSensor     = (*Backend)(nil)
	_ hal.JointActuator   = (*Backend)(nil)
	_ hal.IMUSensor       = (*Backend)(nil)
	_ hal.BodyAngleSensor = (*Backend)(nil)
	_ hal.SonarSensor     = (*Backend)(nil)
	_ hal.FSRSensor       = (*Backend)(nil)
	_ hal.ButtonSensor    = (*Backend)(nil)
	_ hal.LEDActuator     = (*Backend)(nil)
	_ hal.BatterySensor   = (*Backend)(nil)
	_ hal.StatsReporter   = (*Backend)(nil)
	_ hal.CameraSensor    = (*Backend)(nil)
)

// BodyKind says the robot is a NAO v6.
func (b *Backend) BodyKind() body.Kind { return body.NAOv6 }
