package robotino

import (
	"errors"
	"fmt"

	proto "github.com/robotd/robotd/proto/robotino"
)

// ErrImplausible marks a reply with a value that is NaN, infinite or beyond
// anything a Robotino 3 base reports.
var ErrImplausible = errors.New("implausible sensor value")

// Bounds of plausible readings, generous beyond the Robotino 3's hardware
// (24 V lead or lithium batteries, motor currents of a few amperes, IR
// sensors and analogue inputs of 0..10 V; Festo's Robotino 3 manual,
// "Technical data"), so that only corrupt or hostile values exceed them.
const (
	maxCurrent  = 100 // A
	maxVoltage  = 100 // V
	maxOdoPos   = 1e5 // m
	maxOdoPhi   = 1e6 // rad (the firmware accumulates it)
	maxGyroRate = 1e4 // the firmware's unit, before gyro_scale
	maxGyroAng  = 1e6
)

// plausible checks the floating-point fields of r that the last Parse
// updated: finite and within the bounds above (NaN fails every
// comparison).
func plausible(r *proto.Readings) error {
	u := r.Updated
	if u.Has(proto.FieldMotorCurrents) {
		for i, v := range r.Motors.Current {
			if err := within("motor current", i, v, maxCurrent); err != nil {
				return err
			}
		}
	}
	if u.Has(proto.FieldOdometry) {
		o := r.Odometry
		if err := within("odometry x", 0, o.X, maxOdoPos); err != nil {
			return err
		}
		if err := within("odometry y", 0, o.Y, maxOdoPos); err != nil {
			return err
		}
		if err := within("odometry phi", 0, o.Phi, maxOdoPhi); err != nil {
			return err
		}
	}
	if u.Has(proto.FieldGyro) {
		if err := within("gyro rate", 0, r.Gyro.Rate, maxGyroRate); err != nil {
			return err
		}
		if err := within("gyro angle", 0, r.Gyro.Angle, maxGyroAng); err != nil {
			return err
		}
	}
	if u.Has(proto.FieldPowerSource) {
		if err := within("battery voltage", 0, r.Power.BatteryVoltage, maxVoltage); err != nil {
			return err
		}
		if err := within("system current", 0, r.Power.SystemCurrent, maxCurrent); err != nil {
			return err
		}
	}
	if u.Has(proto.FieldDistanceSensors) {
		for i, v := range r.DistanceSensors {
			if err := within("distance sensor", i, v, maxVoltage); err != nil {
				return err
			}
		}
	}
	if u.Has(proto.FieldAnalogInputs) {
		for i, v := range r.AnalogInputs {
			if err := within("analog input", i, v, maxVoltage); err != nil {
				return err
			}
		}
	}
	return nil
}

func within(what string, i int, v float32, bound float32) error {
	if v >= -bound && v <= bound {
		return nil
	}
	return fmt.Errorf("robotino: %s %d = %g, outside ±%g: %w", what, i, v, bound, ErrImplausible)
}
