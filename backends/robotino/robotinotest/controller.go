// Package robotinotest has fakes for Robotino tests: a fake base controller
// at the master end of a pseudo-terminal pair, which speaks the framed
// protocol of protocols.md §2 to whatever opens the slave end (the
// backend, through go.bug.st/serial, exactly as it opens the real
// CDC-ACM device), and a fake GPIO.
//
// The controller answers as the firmware does (§2.3): the version requests
// with version strings, every request frame with one reply frame holding
// the requested readings in order followed by POWER_SOURCE_READINGS and
// POWER_BUTTON; it checks the length of every set command as the firmware
// does and answers a wrong one with an ERROR text. It records every frame
// it receives, byte for byte.
package robotinotest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"

	proto "github.com/robotd/robotd/proto/robotino"
)

// State is what the fake base reports, and what the host set.
type State struct {
	// Reported.
	Speeds        [proto.NumMotors]int16 // rpm (overwritten by the set-points with Options.EchoSpeeds)
	Positions     [proto.NumMotors]int32 // encoder ticks
	Currents      [proto.NumMotors]float32
	Odometry      proto.Odometry
	Gyro          proto.GyroZ
	Bumper        bool
	PowerButton   bool
	DigitalInputs uint8
	Power         proto.PowerSource

	// Set by the host.
	SetPoints       [proto.NumMotors]int16
	DigitalOutputs  uint8
	EmergencyBumper bool
	AccelLimits     [proto.NumMotors][2]float32
	OdometrySet     int // SET_ODOMETRY commands received
}

// Frame is one frame the host sent.
type Frame struct {
	// Raw is the frame as it was on the wire, start byte to checksum.
	Raw []byte
	// Payload is the unescaped payload.
	Payload []byte
	// Replies is the number of replies to sensor requests the controller
	// had sent when the frame arrived.
	Replies int
}

// Commands splits the payload into its commands (§2.2).
func (f Frame) Commands() ([]proto.Command, error) {
	var out []proto.Command
	p := f.Payload
	for len(p) > 0 {
		c, rest, err := proto.NextCommand(p)
		if err != nil {
			return out, err
		}
		out = append(out, c)
		p = rest
	}
	return out, nil
}

// MotorSpeeds returns the SET_MOTOR_SPEED values of the frame and which
// motors they were for (bit i = motor i).
func (f Frame) MotorSpeeds() (rpm [proto.NumMotors]int16, set uint8) {
	cmds, _ := f.Commands()
	for _, c := range cmds {
		if c.Tag != proto.TagSetMotorSpeed {
			continue
		}
		if m, v, err := proto.DecodeSetMotorSpeed(c.Value); err == nil {
			rpm[m], set = v, set|1<<m
		}
	}
	return rpm, set
}

// Options configure a Controller.
type Options struct {
	// HWVersion and SWVersion are the version strings ("3.0.0" and
	// "1.1.1", the firmware Fawkes was tested with, if empty).
	HWVersion, SWVersion string
	// EchoSpeeds reports the set-points as the measured motor speeds.
	EchoSpeeds bool
	// NoGyro leaves GET_GYRO_Z_ANGLE unanswered, as firmware 2.x does.
	NoGyro bool
	// AckSetFrames answers frames of set commands only with the power
	// readings (POWER_SOURCE_READINGS, POWER_BUTTON).
	AckSetFrames bool
	// OnRequest, if set, is called before the reply to the n-th frame of
	// sensor requests (n from 1, GET_ALL_MOTOR_READINGS marks one), with
	// the state to report, which it may change.
	OnRequest func(n int, st *State)
}

// View is what a Wait condition sees.
type View struct {
	Frames  []Frame
	Replies int // replies to sensor requests sent
	Errors  []error
}

// Controller is a fake Robotino base controller on a pseudo-terminal.
type Controller struct {
	opts   Options
	master *os.File
	slave  int
	path   string
	link   string

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	changed chan struct{}
	st      State
	frames  []Frame
	replies int
	errs    []error
	inject  []byte
	silent  bool
}

// Start opens a pseudo-terminal and serves on its master end until Close
// or ctx ends. If link is not empty it is made a symbolic link to the
// slave end (replacing an old link), a stable device path across
// restarts.
func Start(ctx context.Context, link string, o Options) (*Controller, error) {
	if o.HWVersion == "" {
		o.HWVersion = "3.0.0"
	}
	if o.SWVersion == "" {
		o.SWVersion = "1.1.1"
	}
	master, path, slave, err := openPTY()
	if err != nil {
		return nil, err
	}
	if link != "" {
		os.Remove(link)
		if err := os.Symlink(path, link); err != nil {
			master.Close()
			closeFD(slave)
			return nil, fmt.Errorf("robotinotest: linking %s to %s: %w", link, path, err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &Controller{
		opts: o, master: master, slave: slave, path: path, link: link,
		ctx: ctx, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{}),
		st: State{Power: proto.PowerSource{BatteryVoltage: 24, SystemCurrent: 1.5, NumChargers: 0, BatteryType: proto.BatteryLead}},
	}
	context.AfterFunc(ctx, func() { master.Close() })
	go c.serve()
	return c, nil
}

// Path returns the slave end's path (/dev/pts/N).
func (c *Controller) Path() string { return c.path }

// Link returns the symbolic link to the slave end ("" if none).
func (c *Controller) Link() string { return c.link }

// Close kills the controller as an unplugged base: the master end closes
// (the host's reads fail) and the link goes away.
func (c *Controller) Close() error {
	c.cancel()
	<-c.done
	closeFD(c.slave)
	if c.link != "" {
		if dst, err := os.Readlink(c.link); err == nil && dst == c.path {
			os.Remove(c.link)
		}
	}
	return nil
}

// Update changes the reported state.
func (c *Controller) Update(f func(*State)) {
	c.mu.Lock()
	f(&c.st)
	c.mu.Unlock()
	c.notify()
}

// State returns a copy of the state.
func (c *Controller) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

// Inject queues bytes to be sent before the next reply (garbage, broken
// frames).
func (c *Controller) Inject(b []byte) {
	c.mu.Lock()
	c.inject = append(c.inject, b...)
	c.mu.Unlock()
}

// Silence stops (true) or resumes (false) all replies; the controller
// keeps reading.
func (c *Controller) Silence(on bool) {
	c.mu.Lock()
	c.silent = on
	c.mu.Unlock()
}

// Frames returns a copy of the frames received.
func (c *Controller) Frames() []Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.frames)
}

// MotorFrames returns the frames that carried SET_MOTOR_SPEED.
func (c *Controller) MotorFrames() []Frame {
	var out []Frame
	for _, f := range c.Frames() {
		if _, set := f.MotorSpeeds(); set != 0 {
			out = append(out, f)
		}
	}
	return out
}

// Replies returns the number of replies to sensor requests sent.
func (c *Controller) Replies() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.replies
}

// Errors returns what the controller found wrong with the host's frames.
func (c *Controller) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.errs)
}

// Wait waits until cond holds or ctx ends. cond sees the controller's
// records without copying; it must not keep them.
func (c *Controller) Wait(ctx context.Context, cond func(v View) bool) error {
	for {
		c.mu.Lock()
		ok, ch := cond(View{Frames: c.frames, Replies: c.replies, Errors: c.errs}), c.changed
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("robotinotest: waiting: %w", ctx.Err())
		}
	}
}

func (c *Controller) notify() {
	c.mu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

func (c *Controller) fail(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
	c.notify()
}

// serve reads the host's bytes, splits frames and answers them.
func (c *Controller) serve() {
	defer close(c.done)
	dec := proto.NewDecoder(nil, proto.DecoderOptions{})
	var raw []byte
	buf := make([]byte, 1024)
	for {
		n, err := c.master.Read(buf)
		for _, b := range buf[:n] {
			if b == proto.StartByte {
				raw = raw[:0]
			}
			raw = append(raw, b)
			_, p, ferr := dec.Feed([]byte{b})
			if ferr != nil {
				c.fail(fmt.Errorf("robotinotest: host sent a bad frame: %w", ferr))
				continue
			}
			if p != nil {
				c.handle(Frame{Raw: slices.Clone(raw), Payload: slices.Clone(p)})
			}
		}
		if err != nil {
			return
		}
	}
}

// setLen is the value length the firmware accepts for each set command it
// validates (§2.3).
var setLen = map[proto.Tag]int{
	proto.TagSetMotorSpeed: 3, proto.TagSetAllDigitalOutputs: 1, proto.TagSetOdometry: 12,
	proto.TagSetEmergencyBumper: 1, proto.TagSetMotorAccelLimits: 9,
}

// handle records a frame and answers it.
func (c *Controller) handle(f Frame) {
	cmds, err := f.Commands()
	if err != nil {
		c.fail(fmt.Errorf("robotinotest: frame % x: %w", f.Raw, err))
	}
	f32 := func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }
	c.mu.Lock()
	f.Replies = c.replies
	c.frames = append(c.frames, f)
	var reply proto.Payload
	requests, sensorRequest, bad := false, false, false
	for _, cmd := range cmds {
		v := cmd.Value
		if n, ok := setLen[cmd.Tag]; ok && len(v) != n {
			reply.ReplyText(proto.TagError, fmt.Sprintf("invalid length %d for tag %d", len(v), cmd.Tag))
			bad = true
			c.errs = append(c.errs, fmt.Errorf("robotinotest: %v with %d bytes, want %d", cmd.Tag, len(v), n))
			continue
		}
		switch cmd.Tag {
		case proto.TagSetMotorSpeed:
			if m, rpm, err := proto.DecodeSetMotorSpeed(v); err == nil {
				c.st.SetPoints[m] = rpm
			} else {
				c.errs = append(c.errs, err)
			}
		case proto.TagSetAllDigitalOutputs:
			c.st.DigitalOutputs = v[0]
		case proto.TagSetOdometry:
			c.st.Odometry = proto.Odometry{X: f32(v), Y: f32(v[4:]), Phi: f32(v[8:])}
			c.st.OdometrySet++
		case proto.TagSetEmergencyBumper:
			c.st.EmergencyBumper = v[0] != 0
		case proto.TagSetMotorAccelLimits:
			if v[0] < proto.NumMotors {
				c.st.AccelLimits[v[0]] = [2]float32{f32(v[1:]), f32(v[5:])}
			}
		case proto.TagGetAllMotorReadings:
			requests, sensorRequest = true, true
		case proto.TagGetHWVersion, proto.TagGetSWVersion, proto.TagGetDistanceSensorReadings, proto.TagGetAllAnalogInputs,
			proto.TagGetAllDigitalInputs, proto.TagGetBumper, proto.TagGetOdometry, proto.TagGetGyroZAngle,
			proto.TagGetAllMotorCurrentReadings, proto.TagGetPowerButton:
			requests = true
		default:
			c.errs = append(c.errs, fmt.Errorf("robotinotest: unexpected command %v", cmd.Tag))
		}
	}
	silent := c.silent
	c.mu.Unlock()
	if silent {
		c.notify()
		return
	}
	if sensorRequest && c.opts.OnRequest != nil {
		c.mu.Lock()
		n := c.replies + 1
		st := c.st
		c.mu.Unlock()
		c.opts.OnRequest(n, &st)
		c.mu.Lock()
		st.SetPoints = c.st.SetPoints
		c.st = st
		c.mu.Unlock()
	}
	c.mu.Lock()
	if c.opts.EchoSpeeds {
		c.st.Speeds = c.st.SetPoints
	}
	st := c.st
	for _, cmd := range cmds {
		switch cmd.Tag {
		case proto.TagGetHWVersion:
			reply.ReplyText(proto.TagHWVersion, c.opts.HWVersion)
		case proto.TagGetSWVersion:
			reply.ReplyText(proto.TagSWVersion, c.opts.SWVersion)
		case proto.TagGetAllMotorReadings:
			reply.ReplyMotorReadings(proto.MotorReadings{Speed: st.Speeds, Position: st.Positions, Current: st.Currents})
		case proto.TagGetDistanceSensorReadings:
			reply.ReplyFloats(proto.TagDistanceSensorReadings, make([]float32, 9))
		case proto.TagGetAllAnalogInputs:
			reply.ReplyFloats(proto.TagAllAnalogInputs, make([]float32, 8))
		case proto.TagGetAllMotorCurrentReadings:
			reply.ReplyFloats(proto.TagAllMotorCurrentReadings, st.Currents[:])
		case proto.TagGetAllDigitalInputs:
			reply.ReplyFlag(proto.TagAllDigitalInputs, st.DigitalInputs)
		case proto.TagGetBumper:
			reply.ReplyFlag(proto.TagBumper, b2u(st.Bumper))
		case proto.TagGetOdometry:
			reply.ReplyOdometry(st.Odometry)
		case proto.TagGetGyroZAngle:
			if !c.opts.NoGyro {
				reply.ReplyGyroZ(st.Gyro)
			}
		}
	}
	answer := requests || bad || c.opts.AckSetFrames
	if answer {
		reply.ReplyPowerSource(st.Power)
		reply.ReplyFlag(proto.TagPowerButton, b2u(st.PowerButton))
	}
	out := append([]byte(nil), c.inject...)
	c.inject = c.inject[:0]
	if sensorRequest {
		c.replies++
	}
	c.mu.Unlock()
	if answer {
		var err error
		if out, err = reply.AppendFrame(out); err != nil {
			c.fail(fmt.Errorf("robotinotest: building a reply: %w", err))
			return
		}
	}
	if len(out) > 0 {
		if _, err := c.master.Write(out); err != nil && !errors.Is(err, os.ErrClosed) {
			c.fail(fmt.Errorf("robotinotest: writing: %w", err))
		}
	}
	c.notify()
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// GPIO is a fake of the backend's GPIO: an emergency-stop input the test
// sets and a status LED it reads. Safe for concurrent use.
type GPIO struct {
	mu     sync.Mutex
	estop  bool
	err    error
	led    bool
	sets   int
	closed bool
}

// SetEStop sets the emergency-stop input (active or not) and an error its
// reads return.
func (g *GPIO) SetEStop(active bool, err error) {
	g.mu.Lock()
	g.estop, g.err = active, err
	g.mu.Unlock()
}

// LED returns the LED's state and how often it was set.
func (g *GPIO) LED() (on bool, sets int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.led, g.sets
}

// EStop implements robotino.GPIO.
func (g *GPIO) EStop() (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.estop, g.err
}

// SetLED implements robotino.GPIO.
func (g *GPIO) SetLED(on bool) error {
	g.mu.Lock()
	g.led = on
	g.sets++
	g.mu.Unlock()
	return nil
}

// Close implements robotino.GPIO.
func (g *GPIO) Close() error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	return nil
}
