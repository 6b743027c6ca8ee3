package runner

import (
	"fmt"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// wireHAL registers the runner as the writer of a sensor entry for every
// sensing capability the backend has, and as a reader of a command entry for
// every actuating capability.
func (r *Runner) wireHAL() error {
	w, err := blackboard.Write(r.board, HALName, msg.TickKey)
	if err != nil {
		return fmt.Errorf("runner: wiring the backend: %w", err)
	}
	r.tickW = w
	d := r.dev
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	if c, ok := d.(hal.JointSensor); ok {
		add(sensor(r, msg.JointsKey, c.ReadJoints))
	}
	if c, ok := d.(hal.IMUSensor); ok {
		add(sensor(r, msg.IMUKey, c.ReadIMU))
	}
	if c, ok := d.(hal.BodyAngleSensor); ok {
		add(sensor(r, msg.BodyAnglesKey, c.ReadBodyAngles))
	}
	if c, ok := d.(hal.SonarSensor); ok {
		add(sensor(r, msg.SonarKey, c.ReadSonar))
	}
	if c, ok := d.(hal.FSRSensor); ok {
		add(sensor(r, msg.FSRKey, c.ReadFSR))
	}
	if c, ok := d.(hal.ButtonSensor); ok {
		add(sensor(r, msg.ButtonsKey, c.ReadButtons))
	}
	if c, ok := d.(hal.BatterySensor); ok {
		add(sensor(r, msg.BatteryKey, c.ReadBattery))
	}
	if c, ok := d.(hal.BaseSensor); ok {
		add(sensor(r, msg.BaseKey, c.ReadBase))
	}
	if c, ok := d.(hal.VisionSensor); ok {
		add(sensor(r, msg.VisionKey, c.ReadVision))
	}
	if c, ok := d.(hal.CameraSensor); ok {
		add(sensor(r, msg.CameraKey, c.ReadCamera))
	}
	if c, ok := d.(hal.GameStateSensor); ok {
		add(sensor(r, msg.GameStateKey, c.ReadGameState))
	}
	if c, ok := d.(hal.GroundTruthSensor); ok {
		add(sensor(r, msg.GroundTruthKey, c.ReadGroundTruth))
	}
	if c, ok := d.(hal.JointActuator); ok {
		add(sink(r, msg.JointCommandKey, c.WriteJoints))
	}
	if c, ok := d.(hal.LEDActuator); ok {
		add(sink(r, msg.LEDsKey, c.WriteLEDs))
	}
	if c, ok := d.(hal.OmniBase); ok {
		add(sink(r, msg.BaseVelocityKey, c.WriteBaseVelocity))
	}
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("runner: wiring the backend: %w", err)
		}
	}
	return nil
}

// Provider is implemented by a backend whose capabilities are known only
// at run time, such as a replay, which has what the recording has: the
// runner wires a capability's entry only if Provides(the entry's name).
type Provider interface {
	Provides(entry string) bool
}

// provides reports whether the backend has the capability of entry name.
func (r *Runner) provides(name string) bool {
	p, ok := r.dev.(Provider)
	return !ok || p.Provides(name)
}

// sensor publishes what read returns on k's entry at the start of each tick.
func sensor[T any](r *Runner, k blackboard.Key[T], read func(*T)) error {
	if !r.provides(k.Name()) {
		return nil
	}
	w, err := blackboard.Write(r.board, HALName, k)
	if err != nil {
		return err
	}
	var buf T
	r.sensors = append(r.sensors, func() {
		read(&buf)
		w.Set(buf)
	})
	return nil
}

// sink hands k's entry to write at the end of each tick in which it was
// written. In ticks where its producer did not run, the backend keeps the
// last command.
func sink[T any](r *Runner, k blackboard.Key[T], write func(*T)) error {
	if !r.provides(k.Name()) {
		return nil
	}
	rd, err := blackboard.ReadOptional(r.board, HALName, k)
	if err != nil {
		return err
	}
	var buf T
	r.sinks = append(r.sinks, func() {
		if m := rd.Load(&buf); m.Fresh {
			write(&buf)
		}
	})
	return nil
}
