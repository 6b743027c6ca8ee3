// Package loopback is a backend for tests and demos: the commands of one tick
// become the sensor state of the next (a joint commanded to 0.3 rad reads
// 0.3 rad on the next tick; a commanded base velocity integrates into
// odometry). The robot is a NAO standing upright unless a test changes its
// state with Update. It is paced by any hal.Clock: a fake clock in tests,
// WallClock in demos.
package loopback

import (
	"context"
	"math"
	"sync"

	"github.com/robotd/robotd/hal"
)

// State is everything the loopback robot senses.
type State struct {
	Joints     hal.JointSensors
	IMU        hal.IMU
	BodyAngles hal.BodyAngles
	Sonar      hal.Sonar
	FSR        hal.FSR
	Buttons    hal.Buttons
	Battery    hal.Battery
	Base       hal.BaseState
	Vision     hal.Vision
	Game       hal.GameState
}

// Backend is the loopback robot. It implements hal.Device and every sensing
// and actuating capability.
type Backend struct {
	clock hal.Clock

	mu         sync.Mutex
	tick       hal.Tick
	st         State
	cmd        hal.JointCommand
	hasCmd     bool
	leds       hal.LEDs
	vel        hal.BaseVelocity
	safeStates int
	commits    uint64
}

// New returns a loopback robot paced by clock.
func New(clock hal.Clock) *Backend {
	b := &Backend{clock: clock}
	st := &b.st
	st.Joints.Present = hal.AllJoints
	st.Joints.HasStiffness = true
	st.IMU.Accel.Z = float64(hal.Gravity)
	for i := range 4 {
		st.FSR.Left[i], st.FSR.Right[i] = 5.5/8, 5.5/8
	}
	st.Battery = hal.Battery{Charge: 1, Temperature: 30}
	st.Game = hal.GameState{Phase: hal.PhasePlaying, LeftSide: true}
	return b
}

// Update lets a test change what the robot senses, under the backend's lock.
func (b *Backend) Update(f func(*State)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.st)
}

// Snapshot returns a copy of the current state, the last joint command and
// LEDs, and how often SafeState ran.
func (b *Backend) Snapshot() (st State, cmd hal.JointCommand, leds hal.LEDs, safeStates int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.st, b.cmd, b.leds, b.safeStates
}

// Next implements hal.Clock.
func (b *Backend) Next(ctx context.Context) (hal.Tick, error) {
	t, err := b.clock.Next(ctx)
	if err != nil {
		return t, err
	}
	b.mu.Lock()
	b.tick = t
	b.mu.Unlock()
	return t, nil
}

// Commit applies this tick's commands: they become the next tick's state.
func (b *Backend) Commit(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.commits++
	if b.hasCmd {
		for j := range hal.NumJoints {
			b.st.Joints.Angle[j] = hal.Joint(j).Clamp(b.cmd.Angle[j])
			b.st.Joints.Stiffness[j] = min(max(b.cmd.Stiffness[j], 0), 1)
		}
	}
	dt := b.tick.Period.Seconds()
	o := &b.st.Base.Odometry
	c, s := math.Cos(float64(o.Heading)), math.Sin(float64(o.Heading))
	vx, vy := float64(b.vel.VX), float64(b.vel.VY)
	o.X += hal.Metres((c*vx - s*vy) * dt)
	o.Y += hal.Metres((s*vx + c*vy) * dt)
	o.Heading += hal.Radians(float64(b.vel.Omega) * dt)
	b.st.Base.Velocity = b.vel
	return nil
}

// SafeState makes every joint limp and stops the base.
func (b *Backend) SafeState(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for j := range hal.NumJoints {
		b.cmd.Stiffness[j] = 0
		b.st.Joints.Stiffness[j] = 0
	}
	b.vel = hal.BaseVelocity{}
	b.st.Base.Velocity = b.vel
	b.safeStates++
	return nil
}

// Close implements hal.Device.
func (b *Backend) Close() error { return nil }

// ReadJoints implements hal.JointSensor.
func (b *Backend) ReadJoints(v *hal.JointSensors) { b.mu.Lock(); *v = b.st.Joints; b.mu.Unlock() }

// ReadIMU implements hal.IMUSensor.
func (b *Backend) ReadIMU(v *hal.IMU) { b.mu.Lock(); *v = b.st.IMU; b.mu.Unlock() }

// ReadBodyAngles implements hal.BodyAngleSensor.
func (b *Backend) ReadBodyAngles(v *hal.BodyAngles) { b.mu.Lock(); *v = b.st.BodyAngles; b.mu.Unlock() }

// ReadSonar implements hal.SonarSensor.
func (b *Backend) ReadSonar(v *hal.Sonar) { b.mu.Lock(); *v = b.st.Sonar; b.mu.Unlock() }

// ReadFSR implements hal.FSRSensor.
func (b *Backend) ReadFSR(v *hal.FSR) { b.mu.Lock(); *v = b.st.FSR; b.mu.Unlock() }

// ReadButtons implements hal.ButtonSensor.
func (b *Backend) ReadButtons(v *hal.Buttons) { b.mu.Lock(); *v = b.st.Buttons; b.mu.Unlock() }

// ReadBattery implements hal.BatterySensor.
func (b *Backend) ReadBattery(v *hal.Battery) { b.mu.Lock(); *v = b.st.Battery; b.mu.Unlock() }

// ReadBase implements hal.BaseSensor.
func (b *Backend) ReadBase(v *hal.BaseState) { b.mu.Lock(); *v = b.st.Base; b.mu.Unlock() }

// ReadVision implements hal.VisionSensor.
func (b *Backend) ReadVision(v *hal.Vision) { b.mu.Lock(); *v = b.st.Vision; b.mu.Unlock() }

// ReadGameState implements hal.GameStateSensor.
func (b *Backend) ReadGameState(v *hal.GameState) { b.mu.Lock(); *v = b.st.Game; b.mu.Unlock() }

// WriteJoints implements hal.JointActuator.
func (b *Backend) WriteJoints(c *hal.JointCommand) {
	b.mu.Lock()
	b.cmd = *c
	b.hasCmd = true
	b.mu.Unlock()
}

// WriteLEDs implements hal.LEDActuator.
func (b *Backend) WriteLEDs(l *hal.LEDs) { b.mu.Lock(); b.leds = *l; b.mu.Unlock() }

// WriteBaseVelocity implements hal.OmniBase.
func (b *Backend) WriteBaseVelocity(v *hal.BaseVelocity) { b.mu.Lock(); b.vel = *v; b.mu.Unlock() }
