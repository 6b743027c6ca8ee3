package nao

import (
	"errors"
	"fmt"

	"github.com/robotd/robotd/proto/lola"
)

// ErrImplausible marks a sensor map with a value that is NaN, infinite or
// beyond anything a NAO v6 reports.
var ErrImplausible = errors.New("implausible sensor value")

// Bounds of plausible LoLA sensor values, generous beyond the NAO v6's
// hardware (joint ranges within ±2.1 rad, gyroscope ±500 °/s,
// accelerometer ±2 g, FSR up to 25 kg; Aldebaran's NAO v6 documentation,
// "Sensors" and "Joints"), so that only corrupt or hostile values exceed
// them.
var plausibleBounds = [...]struct {
	name   string
	lo, hi float32
	get    func(s *lola.Sensors) []float32
}{
	{"Position", -10, 10, func(s *lola.Sensors) []float32 { return s.Position[:] }},
	{"Stiffness", -1, 2, func(s *lola.Sensors) []float32 { return s.Stiffness[:] }},
	{"Temperature", -100, 500, func(s *lola.Sensors) []float32 { return s.Temperature[:] }},
	{"Current", -100, 100, func(s *lola.Sensors) []float32 { return s.Current[:] }},
	{"Accelerometer", -1000, 1000, func(s *lola.Sensors) []float32 { return s.Accelerometer[:] }},
	{"Gyroscope", -100, 100, func(s *lola.Sensors) []float32 { return s.Gyroscope[:] }},
	{"Angles", -10, 10, func(s *lola.Sensors) []float32 { return s.Angles[:] }},
	{"Battery", -1e5, 1e5, func(s *lola.Sensors) []float32 { return s.Battery[:] }},
	{"Sonar", -100, 100, func(s *lola.Sensors) []float32 { return s.Sonar[:] }},
	{"FSR", -100, 1000, func(s *lola.Sensors) []float32 { return s.FSR[:] }},
	{"Touch", -10, 10, func(s *lola.Sensors) []float32 { return s.Touch[:] }},
}

// plausible checks every number of a decoded sensor map: finite and within
// plausibleBounds (NaN fails every comparison).
func plausible(s *lola.Sensors) error {
	for _, b := range plausibleBounds {
		for i, v := range b.get(s) {
			if !(v >= b.lo && v <= b.hi) {
				return fmt.Errorf("nao: %s[%d] = %g, outside %g..%g: %w", b.name, i, v, b.lo, b.hi, ErrImplausible)
			}
		}
	}
	return nil
}
