// Package replay plays a recording (package record) back: Backend is a
// hal.Device whose ticks and sensor values are the recorded "hal.*" entries,
// paced as fast as the modules run, and Checker compares the blackboard
// after every replayed tick with the recorded one, bit for bit.
//
// Backend implements every capability, and tells the runner which ones it
// has (runner.Provider): the sensors whose entries the recorded backend
// wrote, and the commands the recording has. So the replayed board has the
// recorded one's entries: a capability the recorded robot lacked is not
// there (a module that reads it optionally sees it unwritten, as it did).
// Commands are kept (Commands) and go nowhere: what the modules commanded
// is on the blackboard, where the checker sees it. Feed stands in for the
// modules whose input came over the network.
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	"github.com/robotd/robotd/record/codec"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/record"
)

// input is one recorded sensor entry.
type input[T any] struct {
	name  string
	idx   int // in the recording's schema; -1 if not recorded
	codec *codec.Codec[T]
	val   T
	// written is the tick the recorded value was written in.
	written uint64
}

func bind[T any](b *Backend, in *input[T], k blackboard.Key[T]) error {
	in.name = k.Name()
	b.sensors = append(b.sensors, k.Name())
	in.idx = b.schema.Index(k.Name())
	if in.idx < 0 {
		b.missing = append(b.missing, k.Name())
		return nil
	}
	c, err := codec.NewCodec[T]()
	if err != nil {
		return err
	}
	e := b.schema.Entries()[in.idx]
	if err := c.Check(&e.Layout); err != nil {
		return fmt.Errorf("replay: recorded entry %q cannot be read by this build: %w", k.Name(), err)
	}
	in.codec = c
	b.decoders = append(b.decoders, in.decode)
	return nil
}

func (in *input[T]) decode(r *codec.Record) error {
	v := r.Entries[in.idx].Value
	in.written = r.Entries[in.idx].Tick
	n, err := in.codec.Decode(v, &in.val)
	if err != nil {
		return fmt.Errorf("replay: entry %q: %w", in.name, err)
	}
	if n != len(v) {
		return fmt.Errorf("replay: entry %q: %d bytes left over", in.name, len(v)-n)
	}
	return nil
}

// Backend replays a recording's sensor values.
type Backend struct {
	src      *record.Reader
	schema   *codec.Schema
	split    codec.Record
	cur      record.Record
	decoders []func(*codec.Record) error
	missing  []string
	sensors  []string // the names of the sensor entries (and fed ones)
	stopped  atomic.Bool
	ticks    uint64
	gaps     uint64

	tick    input[hal.Tick]
	joints  input[hal.JointSensors]
	imu     input[hal.IMU]
	angles  input[hal.BodyAngles]
	sonar   input[hal.Sonar]
	fsr     input[hal.FSR]
	buttons input[hal.Buttons]
	battery input[hal.Battery]
	base    input[hal.BaseState]
	vision  input[hal.Vision]
	camera  input[hal.CameraFrames]
	// frames is an empty pool: a recording holds the cameras' frames
	// (hal.camera) but not their pixels, so no recorded Ref acquires.
	frames *hal.FramePool
	game   input[hal.GameState]
	truth  input[hal.GroundTruth]

	cmds Commands
}

// Commands are the last commands the modules handed to the backend.
type Commands struct {
	Joints       hal.JointCommand
	LEDs         hal.LEDs
	BaseVelocity hal.BaseVelocity
}

// New returns a backend replaying src from its current position. It fails
// if the recording has no "hal.tick" entry or records a sensor entry with a
// layout this build's type does not have. The backend closes src on Close.
func New(src *record.Reader) (*Backend, error) {
	b := &Backend{src: src, schema: src.Schema(), frames: hal.NewFramePool(1, 0)}
	errs := []error{
		bind(b, &b.tick, msg.TickKey),
		bind(b, &b.joints, msg.JointsKey),
		bind(b, &b.imu, msg.IMUKey),
		bind(b, &b.angles, msg.BodyAnglesKey),
		bind(b, &b.sonar, msg.SonarKey),
		bind(b, &b.fsr, msg.FSRKey),
		bind(b, &b.buttons, msg.ButtonsKey),
		bind(b, &b.battery, msg.BatteryKey),
		bind(b, &b.base, msg.BaseKey),
		bind(b, &b.vision, msg.VisionKey),
		bind(b, &b.camera, msg.CameraKey),
		bind(b, &b.game, msg.GameStateKey),
		bind(b, &b.truth, msg.GroundTruthKey),
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if b.tick.idx < 0 {
		return nil, fmt.Errorf("replay: the recording has no %q entry", msg.TickKey.Name())
	}
	return b, nil
}

// Provides implements runner.Provider: the backend has a sensing
// capability if the recording's backend wrote its entry, and an actuating
// one if the recording has its command entry. So a replay's board has the
// recorded board's entries, no more (a sensor entry the recorded backend
// lacked stays unwritten, as it was).
func (b *Backend) Provides(entry string) bool {
	i := b.schema.Index(entry)
	if i < 0 {
		return false
	}
	if slices.Contains(b.sensors, entry) {
		return b.schema.Entries()[i].Writer == "hal"
	}
	return true
}

// Schema returns the recording's schema.
func (b *Backend) Schema() *codec.Schema { return b.schema }

// Missing lists the sensor entries the recording does not have; their
// capabilities read zero values.
func (b *Backend) Missing() []string { return b.missing }

// Next implements hal.Clock: it reads the next record and returns its tick.
// At the end of the recording, or after Stop, it returns io.EOF.
func (b *Backend) Next(ctx context.Context) (hal.Tick, error) {
	if err := ctx.Err(); err != nil {
		return hal.Tick{}, err
	}
	if b.stopped.Load() {
		return hal.Tick{}, io.EOF
	}
	if !b.src.Next() {
		if err := b.src.Err(); err != nil {
			return hal.Tick{}, fmt.Errorf("replay: reading the recording: %w", err)
		}
		return hal.Tick{}, io.EOF
	}
	prev := b.cur.Dropped
	b.cur = b.src.Record()
	if b.ticks > 0 && b.cur.Dropped != prev {
		b.gaps++
	}
	if err := b.schema.Split(b.cur.Data, &b.split); err != nil {
		return hal.Tick{}, fmt.Errorf("replay: record %d: %w", b.ticks+1, err)
	}
	for _, d := range b.decoders {
		if err := d(&b.split); err != nil {
			return hal.Tick{}, err
		}
	}
	b.ticks++
	return b.tick.val, nil
}

// Current returns the blackboard record of the tick being replayed, valid
// until the next call of Next.
func (b *Backend) Current() []byte { return b.cur.Data }

// Record returns the record of the tick being replayed (see Current).
func (b *Backend) Record() record.Record { return b.cur }

// Ticks returns the number of ticks replayed.
func (b *Backend) Ticks() uint64 { return b.ticks }

// Gaps returns the number of places where the recorder had dropped records.
func (b *Backend) Gaps() uint64 { return b.gaps }

// Stop makes the next Next return io.EOF, which ends runner.Run cleanly.
func (b *Backend) Stop() { b.stopped.Store(true) }

// Commit implements hal.Device; commands go nowhere.
func (b *Backend) Commit(context.Context) error { return nil }

// SafeState implements hal.Device; there is no hardware.
func (b *Backend) SafeState(context.Context) error { return nil }

// Close closes the recording.
func (b *Backend) Close() error { return b.src.Close() }

// ReadJoints implements hal.JointSensor.
func (b *Backend) ReadJoints(v *hal.JointSensors) { *v = b.joints.val }

// ReadIMU implements hal.IMUSensor.
func (b *Backend) ReadIMU(v *hal.IMU) { *v = b.imu.val }

// ReadBodyAngles implements hal.BodyAngleSensor.
func (b *Backend) ReadBodyAngles(v *hal.BodyAngles) { *v = b.angles.val }

// ReadSonar implements hal.SonarSensor.
func (b *Backend) ReadSonar(v *hal.Sonar) { *v = b.sonar.val }

// ReadFSR implements hal.FSRSensor.
func (b *Backend) ReadFSR(v *hal.FSR) { *v = b.fsr.val }

// ReadButtons implements hal.ButtonSensor.
func (b *Backend) ReadButtons(v *hal.Buttons) { *v = b.buttons.val }

// ReadBattery implements hal.BatterySensor.
func (b *Backend) ReadBattery(v *hal.Battery) { *v = b.battery.val }

// ReadBase implements hal.BaseSensor.
func (b *Backend) ReadBase(v *hal.BaseState) { *v = b.base.val }

// ReadVision implements hal.VisionSensor.
func (b *Backend) ReadVision(v *hal.Vision) { *v = b.vision.val }

// ReadCamera implements hal.CameraSensor: the recorded frames' metadata.
func (b *Backend) ReadCamera(v *hal.CameraFrames) { *v = b.camera.val }

// Frames implements hal.CameraSensor: a pool without the recording's
// pixels (a recording has none), in which no recorded Ref acquires.
func (b *Backend) Frames() *hal.FramePool { return b.frames }

// ReadGameState implements hal.GameStateSensor.
func (b *Backend) ReadGameState(v *hal.GameState) { *v = b.game.val }

// ReadGroundTruth implements hal.GroundTruthSensor.
func (b *Backend) ReadGroundTruth(v *hal.GroundTruth) { *v = b.truth.val }

// WriteJoints implements hal.JointActuator.
func (b *Backend) WriteJoints(c *hal.JointCommand) { b.cmds.Joints = *c }

// WriteLEDs implements hal.LEDActuator.
func (b *Backend) WriteLEDs(l *hal.LEDs) { b.cmds.LEDs = *l }

// WriteBaseVelocity implements hal.OmniBase.
func (b *Backend) WriteBaseVelocity(v *hal.BaseVelocity) { b.cmds.BaseVelocity = *v }

// Commands returns the last commands handed to the backend. Call it from
// the tick goroutine or after the run.
func (b *Backend) Commands() Commands { return b.cmds }

// Result is what a replay found.
type Result struct {
	// Ticks is the number of ticks replayed and compared.
	Ticks uint64
	// Entries is the number of entries compared in every tick.
	Entries int
	// First is the first difference; nil if the replay was bit-exact.
	First *codec.Difference
	// Extra lists the entries only the replay has (not compared).
	Extra []string
	// Gaps counts places where the recorder had dropped records: the
	// modules saw a jump there that the recorded run did not see.
	Gaps uint64
	// Truncated lists the recording's segments that ended mid-stream.
	Truncated []string
	// Skipped lists the segments, or their rests, that could not be read
	// and were left out.
	Skipped []record.Skip
}

func (r Result) String() string {
	var s string
	if r.First != nil {
		s = r.First.String()
	} else {
		s = fmt.Sprintf("%d ticks, %d entries, bit-exact", r.Ticks, r.Entries)
	}
	for _, sk := range r.Skipped {
		s += "\nskipped " + sk.String()
	}
	return s
}

// Checker compares the replayed board with the recording after every tick
// and stops the replay at the first difference. It implements
// runner.Recorder.
type Checker struct {
	b     *Backend
	got   *codec.Schema
	cmp   *codec.Comparer
	buf   []byte
	ticks uint64
	first *codec.Difference
	err   error
}

// NewChecker returns a checker of board, replayed on b. Take it after the
// runner is started (so the board's wiring is complete). writers orders the
// comparison, and so which difference is reported first: pass "hal" and
// the runner's module order, so that the first difference is the earliest
// in the tick's data flow.
func NewChecker(b *Backend, board *blackboard.Board, writers []string) *Checker {
	got := codec.SchemaOf(board)
	return &Checker{b: b, got: got, cmp: codec.NewComparer(b.schema, got, writers)}
}

// RecordTick implements runner.Recorder: it compares the board with the
// record of the tick just replayed.
func (c *Checker) RecordTick(uint64) {
	if c.first != nil || c.err != nil {
		return
	}
	c.buf = c.got.AppendRecord(c.buf[:0])
	c.ticks++
	d, err := c.cmp.Compare(c.b.Current(), c.buf)
	if err != nil {
		c.err = fmt.Errorf("replay: comparing tick %d: %w", c.b.tick.val.Seq, err)
		c.b.Stop()
		return
	}
	if d != nil {
		c.first = d
		c.b.Stop()
	}
}

// Result returns what the replay found so far, or an error if a record
// could not be compared.
func (c *Checker) Result() (Result, error) {
	return Result{
		Ticks:     c.ticks,
		Entries:   c.cmp.Compared(),
		First:     c.first,
		Extra:     c.cmp.Extra(),
		Gaps:      c.b.gaps,
		Truncated: c.b.src.Truncated(),
		Skipped:   c.b.src.Skipped(),
	}, c.err
}

// Feed is a module that writes entries as recorded. In a replay it stands
// in for a module whose input came from outside the recording: the
// network's (team messages, GameController packets), which a replay cannot
// receive again. It takes the recorded module's name, so that the replayed
// board's writers match the recording's, and writes an entry in the ticks
// the recorded module wrote it, so that the entry's Meta matches too.
type Feed struct {
	b       *Backend
	name    string
	entries []feedEntry
	errs    []error
}

type feedEntry interface {
	wire(board *blackboard.Board, module string) error
	tick(seq uint64)
}

type fed[T any] struct {
	key blackboard.Key[T]
	in  input[T]
	w   *blackboard.Writer[T]
}

func (f *fed[T]) wire(board *blackboard.Board, module string) error {
	var err error
	f.w, err = blackboard.Write(board, module, f.key)
	return err
}

func (f *fed[T]) tick(seq uint64) {
	if f.in.written == seq {
		f.w.Set(f.in.val)
	}
}

// NewFeed returns a module named name, replaying b's recording, that
// writes nothing until entries are added (AddFeed).
func NewFeed(b *Backend, name string) *Feed { return &Feed{b: b, name: name} }

// AddFeed makes f write entry k as recorded. The error, if any, is also
// returned by f's Wire: the recording does not have k, or has it with a
// layout this build's type does not have.
func AddFeed[T any](f *Feed, k blackboard.Key[T]) error {
	if f.b.schema.Index(k.Name()) < 0 {
		err := fmt.Errorf("replay: the recording has no %q entry for %s", k.Name(), f.name)
		f.errs = append(f.errs, err)
		return err
	}
	e := &fed[T]{key: k}
	if err := bind(f.b, &e.in, k); err != nil {
		f.errs = append(f.errs, err)
		return err
	}
	f.entries = append(f.entries, e)
	return nil
}

// Name implements runner.Module.
func (f *Feed) Name() string { return f.name }

// Wire implements runner.Module.
func (f *Feed) Wire(board *blackboard.Board) error {
	if err := errors.Join(f.errs...); err != nil {
		return err
	}
	for _, e := range f.entries {
		if err := e.wire(board, f.name); err != nil {
			return err
		}
	}
	return nil
}

// Tick implements runner.Module: it writes the entries the recorded module
// wrote in the tick being replayed.
func (f *Feed) Tick(t hal.Tick) error {
	for _, e := range f.entries {
		e.tick(f.b.split.Tick)
	}
	return nil
}
