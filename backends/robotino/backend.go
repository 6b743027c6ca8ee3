// Package robotino is robotd's Festo Robotino 3 backend: a hal.Device over
// the base controller's serial link (protocols.md §2), with go.bug.st/serial
// for the port and periph.io's gpioioctl for an emergency-stop input and a
// status LED.
//
// Each tick sends one frame of SET_MOTOR_SPEED for the three drive motors
// (the body velocity through the §2.5 omni kinematics, within the speed
// limits) and one frame of sensor requests (Fawkes' set, §2.4), and ends
// when the reply has arrived and the period has passed. Replies give the
// encoders (and odometry, from the firmware, the encoders or the speeds),
// the measured body velocity, the gyro (firmware 1.x), the bumper, the
// power button and the battery.
//
// Safety: the motors are stopped — in the same tick, before the modules
// run — when the bumper is hit or the emergency-stop input goes active;
// they stay stopped until both are released and a zero velocity has been
// commanded. They are also stopped when no velocity was commanded for
// DeadmanTime, when a reply is late (ReadTimeout), and by SafeState, after
// which they never move again. The base keeps its last set-points by
// itself, so each of these sends zero set-points at once.
//
// Framing errors (garbage, bad lengths, bad escapes, truncated frames,
// checksum errors) are counted by kind in Prometheus metrics and skipped:
// the decoder resynchronises on the next start byte. CriticalErrors in a
// row, or a base silent for DeadTimeout, make the backend open the port
// anew; while the base is unreachable, ticks go on at the period with
// Connected false.
package robotino

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/backends/pacing"
	"github.com/robotd/robotd/backends/v4l2"

	"go.bug.st/serial"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/reconnect"
	proto "github.com/robotd/robotd/proto/robotino"
)

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("robotino: backend closed")

// errSilent marks a base that stopped answering.
var errSilent = errors.New("base silent")

// pollInterval is the serial read timeout: how often the reading goroutine
// checks for the end of the backend.
const pollInterval = 20 * time.Millisecond

// numBufs is the number of payload buffers between the reading goroutine
// and Next.
const numBufs = 8

// payload is one frame's payload as read.
type payload struct {
	gen uint64
	at  time.Duration
	n   int
	buf [proto.DefaultMaxPayload]byte
}

type eventKind uint8

const (
	evConnected eventKind = iota + 1 // port is open and the start-up exchange done
	evLost                           // the port failed with err
)

type event struct {
	kind   eventKind
	gen    uint64
	port   serial.Port
	dev    string
	hw, sw string
	err    error
}

// portReader lets one Decoder (and its counters) outlive the ports.
type portReader struct{ p io.Reader }

func (r *portReader) Read(b []byte) (int, error) { return r.p.Read(b) }

// Options are what a test may replace.
type Options struct {
	// GPIO, if not nil, is used instead of opening Config.GPIO.
	GPIO GPIO
	// OpenCamera opens the camera's device node (nil: the kernel's).
	OpenCamera v4l2.Opener
	// Camera is the camera's model (its intrinsics for
	// Config.Camera's image size, and mounting).
	Camera hal.CameraInfo
	// Clock is the backend's wall clock: tick time since start, the
	// ticks' pacing and the link's timeouts (nil: the system's).
	Clock pacing.Clock
}

// Backend is a Robotino 3 base. It implements hal.Device, OmniBase,
// BaseSensor, IMUSensor, BatterySensor, ButtonSensor, LEDActuator,
// StatsReporter and prometheus.Collector.
//
// One goroutine, started by the first Next and ended by Close, opens the
// port, does the start-up exchange and reads frames; everything else
// happens in the caller's goroutine. All methods but Stats, Describe and
// Collect are for one goroutine (the runner's).
type Backend struct {
	cfg     Config
	log     *slog.Logger
	kin     proto.Kinematics
	gpio    GPIO
	ownGPIO bool
	c       counters

	dec    *proto.Decoder
	pr     portReader
	consec int // framing errors in a row (reading goroutine)

	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	events  chan event
	frames  chan *payload
	free    chan *payload
	pace    *pacing.Pacer // the port's state and the ticks' pacing
	started bool
	closed  bool

	port        serial.Port // the runner's view; nil while down
	gen         uint64
	dev         string
	hw, sw      string
	everLive    bool
	replied     bool // a reply to the sensor requests arrived since the last tick
	outstanding bool // sensor requests were sent and not answered
	sentAt      time.Time

	rd      proto.Readings
	goodRd  proto.Readings // rd after the last plausible reply
	odo     odometry
	base    hal.BaseState
	imu     hal.IMU
	bat     hal.Battery
	buttons hal.Buttons

	vel      hal.BaseVelocity
	haveVel  bool
	velAt    time.Duration
	leds     hal.LEDs
	haveLEDs bool
	ledOn    bool
	ledSet   bool

	safe       bool
	bumper     bool // the bumper is pressed
	estop      bool // the emergency-stop input is active
	bumperStop bool // latched
	estopStop  bool // latched
	deadman    bool

	motor, req proto.Payload
	wbuf       []byte

	seq   uint64
	logAt time.Duration
	quiet int

	rejectLogAt time.Time // wall time of the next allowed rejection log
	rejectQuiet int

	cams *v4l2.Set
}

// counters are the backend's counts beyond the decoder's.
type counters struct {
	tagErrors  atomic.Uint64 // replies with malformed commands
	rejected   atomic.Uint64 // replies with implausible values
	timeouts   atomic.Uint64 // replies later than ReadTimeout
	lost       atomic.Uint64 // ports that failed or were given up
	writeErrs  atomic.Uint64
	reconnect  atomic.Uint64
	baseErrors atomic.Uint64 // ERROR texts from the base
	stopBumper atomic.Uint64
	stopEStop  atomic.Uint64
	stopDead   atomic.Uint64
	stopped    atomic.Bool
}

// New returns a backend for cfg. It opens the GPIO lines if configured
// (a missing chip is an error then) but not the serial port: the first
// Next starts opening it, and Next ticks (disconnected) until the base
// answers.
func New(cfg Config, log *slog.Logger, opts Options) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("robotino: invalid configuration: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kin, err := proto.NewKinematics(cfg.driveParams())
	if err != nil {
		return nil, fmt.Errorf("robotino: drive parameters: %w", err)
	}
	b := &Backend{
		cfg: cfg, log: log.With("backend", "robotino"), kin: kin, gpio: opts.GPIO,
		events: make(chan event),
		frames: make(chan *payload, numBufs),
		free:   make(chan *payload, numBufs),
		done:   make(chan struct{}),
		pace:   pacing.NewPacer(cfg.Link, 0, opts.Clock),
		wbuf:   make([]byte, 0, 256),
		odo:    odometry{kin: kin, source: cfg.Odometry, ticksPerRev: cfg.EncoderTicksPerRev},
	}
	if b.gpio == nil {
		g, err := OpenGPIO(cfg.GPIO)
		if err != nil {
			return nil, err
		}
		if g != nil {
			b.gpio, b.ownGPIO = g, true
		}
	}
	b.dec = proto.NewDecoder(&b.pr, proto.DecoderOptions{OnError: func(error) { b.consec++ }})
	for range numBufs {
		b.free <- new(payload)
	}
	b.imu.Accel = hal.Vec3{Z: float64(hal.Gravity)}
	cams, err := v4l2.NewSet([hal.NumCameras]v4l2.Config{hal.CameraTop: cfg.Camera},
		[hal.NumCameras]hal.CameraInfo{hal.CameraTop: opts.Camera}, opts.OpenCamera, b.log)
	if err != nil {
		if b.ownGPIO {
			_ = b.gpio.Close()
		}
		return nil, fmt.Errorf("robotino: camera: %w", err)
	}
	b.cams = cams
	b.ctx, b.cancel = context.WithCancel(context.Background())
	return b, nil
}

// ReadCamera implements hal.CameraSensor: the camera's newest frame (a
// Robotino has no joints: its frames carry none).
func (b *Backend) ReadCamera(v *hal.CameraFrames) { b.cams.Read(v) }

// Frames implements hal.CameraSensor.
func (b *Backend) Frames() *hal.FramePool { return b.cams.Frames() }

// Stats implements hal.StatsReporter: Errors counts framing errors
// (garbage runs included), malformed replies, late replies, failed ports
// and writes; Reconnects counts ports that delivered replies after an
// earlier one had. Safe for concurrent use.
func (b *Backend) Stats() hal.BackendStats {
	d := b.dec.Stats()
	c := &b.c
	return hal.BackendStats{
		Errors:     d.Errors() + d.GarbageRuns + c.tagErrors.Load() + c.timeouts.Load() + c.lost.Load() + c.writeErrs.Load(),
		Reconnects: c.reconnect.Load(),
		Rejected:   c.rejected.Load(),
	}
}

// FrameStats returns the frame decoder's counters.
func (b *Backend) FrameStats() proto.Stats { return b.dec.Stats() }

// Device returns the serial device in use ("" while none is open).
func (b *Backend) Device() string { return b.dev }

// Versions returns the base's hardware and firmware versions as reported
// at start-up.
func (b *Backend) Versions() (hw, sw string) { return b.hw, b.sw }

// Stopped reports whether the motors are held stopped (bumper, emergency
// stop, dead-man or safe state).
func (b *Backend) Stopped() bool { return b.stopReason() != "" }

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

// run is the port goroutine: find and open the port, do the start-up
// exchange, read frames until the port fails, back off, repeat; until
// b.ctx is cancelled.
func (b *Backend) run() {
	defer close(b.done)
	l := reconnect.Loop[openPort]{
		Backoff: b.cfg.Backoff(),
		Dial: func(context.Context) (openPort, error) {
			dev, err := FindDevice(b.cfg)
			if err != nil {
				return openPort{}, err
			}
			port, err := serial.Open(dev, &serial.Mode{BaudRate: b.cfg.Baud})
			if err != nil {
				return openPort{}, fmt.Errorf("robotino: opening %s: %w", dev, err)
			}
			return openPort{port, dev}, nil
		},
		Serve: func(ctx context.Context, p openPort, gen uint64) (int, error) {
			return b.serve(ctx, p.Port, p.dev, gen)
		},
		Lost: func(ctx context.Context, gen uint64, err error) bool {
			return b.emit(ctx, event{kind: evLost, gen: gen, err: err})
		},
		Unreachable: func(err error) { b.log.Info("cannot open the base controller; retrying", "err", err) },
	}
	l.Run(b.ctx)
}

// openPort is an open serial port and its device path.
type openPort struct {
	serial.Port
	dev string
}

// serve runs one open port: start-up exchange, then frames to Next until
// the port fails. It returns how many frames it delivered and why it
// ended (run's reconnect.Loop closes the port).
func (b *Backend) serve(ctx context.Context, port serial.Port, dev string, gen uint64) (int, error) {
	if err := port.SetReadTimeout(pollInterval); err != nil {
		return 0, fmt.Errorf("robotino: %s: setting the read timeout: %w", dev, err)
	}
	b.pr.p = port
	b.dec.Reset()
	b.consec = 0
	hw, sw, err := b.handshake(ctx, port, dev)
	if err != nil {
		return 0, err
	}
	if !b.emit(ctx, event{kind: evConnected, gen: gen, port: port, dev: dev, hw: hw, sw: sw}) {
		return 0, ctx.Err()
	}
	n := 0
	for {
		p, err := b.dec.Next()
		if b.consec >= b.cfg.CriticalErrors {
			return n, fmt.Errorf("robotino: %s: %d framing errors in a row", dev, b.consec)
		}
		switch {
		case err == nil:
			b.consec = 0
			if !b.deliver(ctx, gen, p) {
				return n, ctx.Err()
			}
			n++
		case errors.Is(err, proto.ErrNoData):
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
		default:
			return n, fmt.Errorf("robotino: reading %s: %w", dev, err)
		}
	}
}

// handshake is the start of Fawkes' sequence (§2.4): ask for the versions
// and wait for both, then clear the digital outputs, zero the odometry,
// set the emergency bumper and the acceleration limits, and stop the
// drive.
func (b *Backend) handshake(ctx context.Context, port serial.Port, dev string) (hw, sw string, err error) {
	var p proto.Payload
	p.VersionRequests()
	buf, err := p.AppendFrame(nil)
	if err == nil {
		_, err = port.Write(buf)
	}
	if err != nil {
		return "", "", fmt.Errorf("robotino: %s: asking for the versions: %w", dev, err)
	}
	deadline := b.pace.Now().Add(b.cfg.HandshakeTimeout.D())
	var rd proto.Readings
	var got proto.Field
	const want = proto.FieldHWVersion | proto.FieldSWVersion
	for !got.Has(want) {
		if !b.pace.Now().Before(deadline) {
			return "", "", fmt.Errorf("robotino: %s: no version reply within %v: %w", dev, b.cfg.HandshakeTimeout.D(), errSilent)
		}
		pl, err := b.dec.Next()
		switch {
		case err == nil:
			_ = rd.Parse(pl) // a malformed tag is counted once the base runs
			got |= rd.Updated
		case errors.Is(err, proto.ErrNoData):
			if ctx.Err() != nil {
				return "", "", ctx.Err()
			}
		default:
			return "", "", fmt.Errorf("robotino: %s: waiting for the versions: %w", dev, err)
		}
	}
	p.Reset()
	p.SetDigitalOutputs(0)
	p.SetOdometry(0, 0, 0)
	p.SetEmergencyBumper(b.cfg.EmergencyBumper)
	if a := float32(b.cfg.AccelLimit); a > 0 {
		for m := range 3 {
			p.SetMotorAccelLimits(m, -a, a)
		}
	}
	p.SetDriveSpeeds([3]int16{})
	if buf, err = p.AppendFrame(buf[:0]); err == nil {
		_, err = port.Write(buf)
	}
	if err != nil {
		return "", "", fmt.Errorf("robotino: %s: sending the start-up settings: %w", dev, err)
	}
	return rd.HWVersion.String(), rd.SWVersion.String(), nil
}

// deliver hands one payload to Next; it blocks while Next is behind, so
// that no reply (and no bumper hit) is lost.
func (b *Backend) deliver(ctx context.Context, gen uint64, p []byte) bool {
	var f *payload
	select {
	case f = <-b.free:
	case <-ctx.Done():
		return false
	}
	f.gen, f.at, f.n = gen, b.pace.Since(), copy(f.buf[:], p)
	select {
	case b.frames <- f:
		return true
	case <-ctx.Done():
		return false
	}
}

func (b *Backend) emit(ctx context.Context, ev event) bool { return reconnect.Send(ctx, b.events, ev) }

// Next implements hal.Clock. While the base answers it returns when the
// reply to the last sensor requests has arrived and the period has passed
// (Connected true). While the base is unreachable or its reply is later
// than ReadTimeout, it returns a tick every period (Connected false; the
// sensor values keep their last state). Time never runs backwards.
func (b *Backend) Next(ctx context.Context) (hal.Tick, error) {
	if err := reconnect.Ready(ctx, b.closed, ErrClosed); err != nil {
		return hal.Tick{}, err
	}
	b.start()
	for {
		b.takeWaiting() // before judging a reply late: a slow tick must not make the base look silent
		now := b.pace.Now()
		if b.replied && b.pace.Due(now) {
			return b.connectedTick(now), nil
		}
		if b.port != nil {
			if !b.outstanding && !b.replied {
				b.request(now)
			}
			if b.port != nil && b.pace.Late(b.sentAt, now) {
				b.noReply(now)
				continue
			}
		}
		if !b.replied && (b.port == nil || b.pace.IsStalled()) && b.pace.Due(now) {
			return b.idleTick(now), nil
		}
		timeout := b.pace.Wait(b.pace.ReplyDeadline(b.sentAt, b.port != nil && !b.replied))
		select {
		case <-ctx.Done():
			b.pace.Disarm()
			return hal.Tick{}, ctx.Err()
		case ev := <-b.events:
			b.pace.Disarm()
			b.handle(ev)
		case f := <-b.frames:
			b.pace.Disarm()
			b.take(f)
		case <-timeout:
		}
	}
}

// takeWaiting handles the events and frames that have arrived, without
// waiting.
func (b *Backend) takeWaiting() {
	for {
		select {
		case ev := <-b.events:
			b.handle(ev)
		case f := <-b.frames:
			b.take(f)
		default:
			return
		}
	}
}

// noReply handles a reply later than ReadTimeout: stop the motors, ask
// again, and give the port up after DeadTimeout of silence.
func (b *Backend) noReply(now time.Time) {
	if b.pace.Dead(now) {
		b.drop(fmt.Errorf("robotino: no reply from %s for %v: %w", b.dev, b.cfg.DeadTimeout.D(), errSilent))
		return
	}
	if b.pace.Stall() {
		b.c.timeouts.Add(1)
		b.log.Warn("the base does not answer; motors stopped, ticking without it", "device", b.dev, "after", now.Sub(b.sentAt).Round(time.Millisecond))
	}
	_ = b.sendStop(false)
	b.request(now)
}

// handle applies a port event.
func (b *Backend) handle(ev event) {
	switch ev.kind {
	case evConnected:
		if b.port != nil {
			b.port.Close()
		}
		b.port, b.gen, b.dev, b.hw, b.sw = ev.port, ev.gen, ev.dev, ev.hw, ev.sw
		b.replied, b.outstanding = false, false
		b.pace.Opened(b.pace.Now())
		b.odo.reset()
		b.log.Info("base controller opened", "device", ev.dev, "hardware", ev.hw, "firmware", ev.sw)
	case evLost:
		if ev.gen == b.gen && b.port != nil {
			b.drop(ev.err)
		}
	}
}

// take parses one payload of the current port and recycles its buffer.
func (b *Backend) take(f *payload) {
	if f.gen != b.gen || b.port == nil {
		b.free <- f
		return
	}
	err := b.rd.Parse(f.buf[:f.n])
	at := f.at
	b.free <- f
	u := b.rd.Updated
	b.pace.Hear(b.pace.Now())
	if err != nil {
		b.c.tagErrors.Add(1)
		b.note("skipping malformed commands in a reply", err)
	}
	if err := plausible(&b.rd); err != nil {
		// The whole reply is left out: the readings stay those of the
		// last plausible one.
		// The base did answer: the request is not outstanding.
		b.rd = b.goodRd
		b.reject(err)
		if u.Has(proto.FieldMotorPositions) {
			b.replied, b.outstanding = true, false
		}
		return
	}
	b.goodRd = b.rd
	if u.Has(proto.FieldError) {
		b.c.baseErrors.Add(1)
		b.note("the base reports an error", errors.New(string(b.rd.Error.Bytes())))
	}
	if u&(proto.FieldMotorSpeeds|proto.FieldMotorPositions) != 0 {
		b.odo.motors(&b.rd.Motors, at)
	}
	if u.Has(proto.FieldOdometry) {
		b.odo.firmware(b.rd.Odometry)
	}
	if u.Has(proto.FieldBumper) {
		b.bumper = b.rd.Bumper
		if b.bumper && !b.bumperStop {
			b.bumperStop = true
			b.c.stopBumper.Add(1)
			b.log.Warn("bumper hit; motors stopped")
			_ = b.sendStop(false)
		}
	}
	if u.Has(proto.FieldMotorPositions) {
		b.replied, b.outstanding = true, false
		if b.pace.Recover() {
			b.log.Info("the base answers again", "device", b.dev)
		}
	}
}

// reject counts and (at most once a second of wall time) logs a reply
// with an implausible value.
func (b *Backend) reject(err error) {
	b.c.rejected.Add(1)
	if now := time.Now(); !now.Before(b.rejectLogAt) {
		b.log.Warn("skipping a reply with an implausible value", "err", err, "suppressed", b.rejectQuiet)
		b.rejectLogAt, b.rejectQuiet = now.Add(time.Second), 0
	} else {
		b.rejectQuiet++
	}
}

// note logs a problem at most once per second of tick time.
func (b *Backend) note(msg string, err error) {
	if last := b.pace.Last(); last >= b.logAt {
		b.log.Warn(msg, "err", err, "suppressed", b.quiet)
		b.logAt, b.quiet = last+time.Second, 0
	} else {
		b.quiet++
	}
}

// drop gives up the port after err.
func (b *Backend) drop(err error) {
	b.c.lost.Add(1)
	if b.pace.IsLive() {
		b.log.Warn("lost the base controller", "device", b.dev, "err", err)
	} else {
		b.log.Info("base controller failed", "device", b.dev, "err", err)
	}
	b.port.Close() // ends the reading goroutine's reads
	b.port = nil
	b.replied, b.outstanding = false, false
	b.pace.Lost()
}

func (b *Backend) connectedTick(now time.Time) hal.Tick {
	if b.pace.Live() {
		if b.everLive {
			b.c.reconnect.Add(1)
			b.log.Info("reconnected to the base controller", "device", b.dev)
		} else {
			b.log.Info("connected to the base controller", "device", b.dev)
		}
		b.everLive = true
	}
	b.replied = false
	return b.tick(now, true)
}

func (b *Backend) idleTick(now time.Time) hal.Tick { return b.tick(now, false) }

func (b *Backend) tick(now time.Time, connected bool) hal.Tick {
	b.seq++
	t := b.pace.Monotonic(b.pace.At(now))
	b.pace.Ticked(t, now)
	b.readEStop()
	b.fill()
	return hal.Tick{Seq: b.seq, Time: t, Period: b.pace.Period(), Connected: connected}
}

// readEStop samples the emergency-stop input; an active one stops the
// motors at once.
func (b *Backend) readEStop() {
	if b.gpio == nil {
		return
	}
	active, err := b.gpio.EStop()
	if err != nil {
		active = true
		b.note("reading the emergency-stop input; treating it as active", err)
	}
	b.estop = active
	if active && !b.estopStop {
		b.estopStop = true
		b.c.stopEStop.Add(1)
		b.log.Warn("emergency stop; motors stopped")
		_ = b.sendStop(false)
	}
}

// fill converts the readings into HAL values.
func (b *Backend) fill() {
	m := &b.rd.Motors
	v := b.kin.BodyVelocity([3]float64{float64(m.Speed[0]), float64(m.Speed[1]), float64(m.Speed[2])})
	b.base = hal.BaseState{
		Odometry:      b.odo.pose,
		Velocity:      hal.BaseVelocity{VX: hal.MetresPerSec(v.VX), VY: hal.MetresPerSec(v.VY), Omega: hal.RadPerSec(v.Omega)},
		Bumper:        b.bumper,
		EmergencyStop: b.estop,
	}
	b.imu.Gyro.Z = float64(b.rd.Gyro.Rate) * b.cfg.GyroScale
	p := &b.rd.Power
	b.bat = hal.Battery{
		Charge:   min(1, max(0, (float64(p.BatteryVoltage)-b.cfg.BatteryEmpty)/(b.cfg.BatteryFull-b.cfg.BatteryEmpty))),
		Current:  -float64(p.SystemCurrent),
		Charging: p.ExternalPower,
	}
	var btn hal.Buttons
	if b.bumper {
		btn |= 1 << hal.LFootBumperLeft
	}
	if b.rd.PowerButton {
		btn |= 1 << hal.ChestButton
	}
	b.buttons = btn
}

// stopReason says why the motors are held stopped, or "".
func (b *Backend) stopReason() string {
	switch {
	case b.safe:
		return "safe state"
	case b.estopStop:
		return "emergency stop"
	case b.bumperStop:
		return "bumper"
	case !b.haveVel:
		return "no command yet"
	case b.pace.Last()-b.velAt > b.cfg.DeadmanTime.D():
		return "dead-man"
	}
	return ""
}

// setpoints returns this tick's drive motor speeds.
func (b *Backend) setpoints() [3]int16 {
	reason := b.stopReason()
	dead := reason == "dead-man"
	if dead && !b.deadman {
		b.c.stopDead.Add(1)
		b.log.Warn("no velocity commanded; motors stopped", "for", b.cfg.DeadmanTime.D())
	}
	b.deadman = dead
	b.c.stopped.Store(reason != "")
	if reason != "" {
		return [3]int16{}
	}
	rpm, _ := b.kin.MotorSetpoints(b.limit(b.vel))
	return rpm
}

// limit applies MaxSpeed and MaxOmega (a non-finite velocity is zero).
func (b *Backend) limit(v hal.BaseVelocity) proto.Velocity {
	vx, vy, w := float64(v.VX), float64(v.VY), float64(v.Omega)
	for _, x := range []float64{vx, vy, w} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return proto.Velocity{}
		}
	}
	if s := math.Hypot(vx, vy); s > b.cfg.MaxSpeed {
		vx, vy = vx*b.cfg.MaxSpeed/s, vy*b.cfg.MaxSpeed/s
	}
	w = min(max(w, -b.cfg.MaxOmega), b.cfg.MaxOmega)
	return proto.Velocity{VX: vx, VY: vy, Omega: w}
}

// request sends the sensor requests.
func (b *Backend) request(now time.Time) {
	b.req.Reset()
	b.req.SensorRequests(proto.PollOptions{NoGyro: !b.cfg.Gyro})
	b.wbuf, _ = b.req.AppendFrame(b.wbuf[:0])
	if b.write(b.wbuf) == nil {
		b.outstanding, b.sentAt = true, now
	}
}

// sendStop sends zero set-points for the drive motors (and the fourth
// motor if all).
func (b *Backend) sendStop(all bool) error {
	if b.port == nil {
		return nil
	}
	b.motor.Reset()
	b.motor.SetDriveSpeeds([3]int16{})
	if all {
		b.motor.SetMotorSpeed(3, 0)
	}
	b.wbuf, _ = b.motor.AppendFrame(b.wbuf[:0])
	return b.write(b.wbuf)
}

func (b *Backend) write(p []byte) error {
	if _, err := b.port.Write(p); err != nil {
		b.c.writeErrs.Add(1)
		err = fmt.Errorf("robotino: writing to %s: %w", b.dev, err)
		b.drop(err)
		return err
	}
	return nil
}

// Commit implements hal.Device: it sends the drive set-points (one frame
// of three SET_MOTOR_SPEED, §2.2's example layout) and, unless a request
// is still unanswered, the next sensor requests (a second frame). It
// sends nothing while the port is down or once ctx is done.
func (b *Backend) Commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("robotino: commit: %w", err)
	}
	b.updateLED()
	if b.port == nil {
		return nil
	}
	b.motor.Reset()
	b.motor.SetDriveSpeeds(b.setpoints())
	buf, _ := b.motor.AppendFrame(b.wbuf[:0])
	ask := !b.outstanding
	if ask {
		b.req.Reset()
		b.req.SensorRequests(proto.PollOptions{NoGyro: !b.cfg.Gyro})
		buf, _ = b.req.AppendFrame(buf)
	}
	b.wbuf = buf
	if err := b.write(buf); err != nil {
		return err
	}
	if ask {
		b.outstanding, b.sentAt = true, b.pace.Now()
	}
	return nil
}

// updateLED drives the status LED.
func (b *Backend) updateLED() {
	if b.gpio == nil {
		return
	}
	on := b.port != nil && b.pace.IsLive() && !b.safe && !b.estopStop && !b.bumperStop
	if b.haveLEDs {
		c := b.leds.Chest
		on = c.R >= 0.5 || c.G >= 0.5 || c.B >= 0.5
	}
	if b.safe {
		on = false
	}
	if b.ledSet && on == b.ledOn {
		return
	}
	if err := b.gpio.SetLED(on); err != nil {
		b.note("setting the status LED", err)
		return
	}
	b.ledOn, b.ledSet = on, true
}

// SafeState implements hal.Device: it sends zero set-points for all four
// motors at once and switches the status LED off; the motors stay stopped
// for good. It returns an error if the base, once reached, is not
// reachable now (the base keeps its last set-points by itself).
func (b *Backend) SafeState(ctx context.Context) error {
	b.safe = true
	b.c.stopped.Store(true)
	b.updateLED()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("robotino: safe state: %w", err)
	}
	if b.port == nil {
		if b.everLive {
			return errors.New("robotino: safe state: the base controller is not reachable; it keeps its last set-points")
		}
		return nil // never connected: nothing was ever set moving
	}
	if err := b.sendStop(true); err != nil {
		return fmt.Errorf("robotino: safe state: %w", err)
	}
	return nil
}

// Close implements hal.Device: it ends the port goroutine, closes the
// port and the GPIO lines it opened. It does not imply SafeState.
func (b *Backend) Close() error {
	if !reconnect.Stop(&b.closed, b.started, b.pace.Timer(), b.cancel, b.done) {
		return nil
	}
	b.cams.Wait()
	var err error
	if b.port != nil {
		err = b.port.Close()
		b.port = nil
	}
	if b.ownGPIO {
		err = errors.Join(err, b.gpio.Close())
	}
	if err != nil {
		return fmt.Errorf("robotino: close: %w", err)
	}
	return nil
}

// WriteBaseVelocity implements hal.OmniBase: the body velocity for the next
// Commit. A zero velocity also releases a bumper or emergency stop whose
// cause is gone.
func (b *Backend) WriteBaseVelocity(v *hal.BaseVelocity) {
	b.vel, b.haveVel, b.velAt = *v, true, b.pace.Last()
	if *v != (hal.BaseVelocity{}) {
		return
	}
	if b.bumperStop && !b.bumper {
		b.bumperStop = false
		b.log.Info("bumper released and zero velocity commanded; motors free")
	}
	if b.estopStop && !b.estop {
		b.estopStop = false
		b.log.Info("emergency stop released and zero velocity commanded; motors free")
	}
}

// ReadBase implements hal.BaseSensor.
func (b *Backend) ReadBase(v *hal.BaseState) { *v = b.base }

// ReadIMU implements hal.IMUSensor: the gyro's z rate (firmware 1.x; 0
// otherwise). A Robotino has no accelerometer: Accel is gravity, upright.
func (b *Backend) ReadIMU(v *hal.IMU) { *v = b.imu }

// ReadBattery implements hal.BatterySensor.
func (b *Backend) ReadBattery(v *hal.Battery) { *v = b.bat }

// ReadButtons implements hal.ButtonSensor: the bumper as LFootBumperLeft,
// the power button as ChestButton.
func (b *Backend) ReadButtons(v *hal.Buttons) { *v = b.buttons }

// WriteLEDs implements hal.LEDActuator: the chest colour drives the status
// LED.
func (b *Backend) WriteLEDs(v *hal.LEDs) { b.leds, b.haveLEDs = *v, true }

// Interface checks.
var (
	_ hal.Device        = (*Backend)(nil)
	_ hal.OmniBase      = (*Backend)(nil)
	_ hal.BaseSensor    = (*Backend)(nil)
	_ hal.IMUSensor     = (*Backend)(nil)
	_ hal.BatterySensor = (*Backend)(nil)
	_ hal.ButtonSensor  = (*Backend)(nil)
	_ hal.LEDActuator   = (*Backend)(nil)
	_ hal.StatsReporter = (*Backend)(nil)
)
