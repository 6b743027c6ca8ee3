package lola

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ParseSensorsJSON reads a sensor map rendered as JSON, the form of the
// real-robot sample in proto/lola/testdata/: each key of §1.2 with its
// values as numbers (strings for RobotConfig). Every key must have its
// full length; unknown keys are errors.
func ParseSensorsJSON(b []byte) (Sensors, error) {
	var j struct {
		RobotConfig                                        []string
		Accelerometer, Angles, Battery, Current, FSR       []float64
		Gyroscope, Position, Sonar, Stiffness, Temperature []float64
		Touch, Status                                      []float64
	}
	var s Sensors
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return s, fmt.Errorf("lola: decoding a JSON sensor map: %w", err)
	}
	var errs []error
	copyF := func(name string, dst []float32, src []float64) {
		if len(src) != len(dst) {
			errs = append(errs, fmt.Errorf("lola: JSON sensor map: %s has %d values, want %d", name, len(src), len(dst)))
			return
		}
		for i, v := range src {
			dst[i] = float32(v)
		}
	}
	copyF("Position", s.Position[:], j.Position)
	copyF("Stiffness", s.Stiffness[:], j.Stiffness)
	copyF("Temperature", s.Temperature[:], j.Temperature)
	copyF("Current", s.Current[:], j.Current)
	copyF("Accelerometer", s.Accelerometer[:], j.Accelerometer)
	copyF("Gyroscope", s.Gyroscope[:], j.Gyroscope)
	copyF("Angles", s.Angles[:], j.Angles)
	copyF("Battery", s.Battery[:], j.Battery)
	copyF("Sonar", s.Sonar[:], j.Sonar)
	copyF("FSR", s.FSR[:], j.FSR)
	copyF("Touch", s.Touch[:], j.Touch)
	var status [NumJoints]float32
	copyF("Status", status[:], j.Status)
	for i, v := range status {
		s.Status[i] = uint8(v)
	}
	if len(j.RobotConfig) != len(s.RobotConfig) {
		errs = append(errs, fmt.Errorf("lola: JSON sensor map: RobotConfig has %d strings, want %d", len(j.RobotConfig), len(s.RobotConfig)))
	}
	for i, v := range j.RobotConfig {
		if i < len(s.RobotConfig) && !s.RobotConfig[i].Set(v) {
			errs = append(errs, fmt.Errorf("lola: JSON sensor map: RobotConfig[%d] too long", i))
		}
	}
	return s, errors.Join(errs...)
}
