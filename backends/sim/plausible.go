package sim

import (
	"fmt"
	"math"

	"github.com/robotd/robotd/proto/simspark"
)

// Bounds of plausible perceptor values. They are far beyond what
// rcssserver3d reports for a NAO (its gyro and accelerometer follow the
// physics, its joint angles stay within the joints' ranges, its field is
// 9 m by 6 m; docs: simspark wiki, "Perceptors"), so that only corrupt or
// hostile values exceed them.
const (
	maxSimTime = 1e7  // s: about 115 days
	maxGyro    = 1e5  // deg/s
	maxAccel   = 1e4  // m/s², about 1000 g
	maxJoint   = 3600 // deg: ten turns
	maxForce   = 1e5  // N on one foot
	maxPoint   = 1e3  // m: a position, a distance, a centre of pressure
	maxAngle   = 3600 // deg: a direction
	maxHear    = 1e7  // s: a heard message's time
	maxTouch   = 1e6  // a touch reading
)

// plausible checks every number of a parsed perceptor message: finite and
// within the bounds above. The adapter never sees a message that is not,
// so one corrupt value cannot poison its filters.
func plausible(p *simspark.Perception) error {
	// rcssserver3d's TimePerceptor is in every message (and so in the
	// embedded simulator's); a message without it carries nothing to act
	// on and does not count as the server's.
	if !p.Has(simspark.KindTime) {
		return fmt.Errorf("sim: no (time (now t)): %w", ErrImplausible)
	}
	if !in(p.Time, 0, maxSimTime) {
		return implausible("time", p.Time)
	}
	if !in(p.GS.Time, -maxSimTime, maxSimTime) {
		return implausible("GS t", p.GS.Time)
	}
	for i, v := range p.GYR.V {
		if !in(v, -maxGyro, maxGyro) {
			return implausible(gyrNames[i], v)
		}
	}
	for i, v := range p.ACC.V {
		if !in(v, -maxAccel, maxAccel) {
			return implausible(accNames[i], v)
		}
	}
	for _, j := range p.Joints {
		if !in(j.Deg, -maxJoint, maxJoint) {
			return implausible("HJ ax", j.Deg)
		}
	}
	for _, f := range p.FRP {
		for k := range 3 {
			if !in(f.F[k], -maxForce, maxForce) {
				return implausible("FRP f", f.F[k])
			}
			if !in(f.C[k], -maxPoint, maxPoint) {
				return implausible("FRP c", f.C[k])
			}
		}
	}
	for _, t := range p.Touch {
		if !in(t.Val, -maxTouch, maxTouch) {
			return implausible("TCH val", t.Val)
		}
	}
	for _, h := range p.Hear {
		if !in(h.Time, -maxHear, maxHear) || !in(h.Dir, -maxAngle, maxAngle) {
			return implausible("hear", h.Time+h.Dir)
		}
	}
	s := &p.See
	for _, o := range s.Objects {
		if err := polar("See pol", o.Pol); err != nil {
			return err
		}
	}
	for _, l := range s.Lines {
		if err := polar("See L", l.A); err != nil {
			return err
		}
		if err := polar("See L", l.B); err != nil {
			return err
		}
	}
	for _, b := range s.Parts {
		if err := polar("See P", b.Pol); err != nil {
			return err
		}
	}
	for _, f := range s.Features {
		for _, v := range f.V {
			if !in(v, -maxPoint, maxPoint) {
				return implausible("See feature", v)
			}
		}
	}
	for k := range 3 {
		if !in(s.MyPos[k], -maxPoint, maxPoint) {
			return implausible("See mypos", s.MyPos[k])
		}
		if !in(s.BallPos[k], -maxPoint, maxPoint) {
			return implausible("See ballpos", s.BallPos[k])
		}
	}
	if !in(s.MyOrien, -maxAngle, maxAngle) {
		return implausible("See myorien", s.MyOrien)
	}
	return nil
}

var (
	gyrNames = [3]string{"GYR rt x", "GYR rt y", "GYR rt z"}
	accNames = [3]string{"ACC a x", "ACC a y", "ACC a z"}
)

func polar(what string, p simspark.Polar) error {
	if !in(p[0], 0, maxPoint) {
		return implausible(what+" distance", p[0])
	}
	if !in(p[1], -maxAngle, maxAngle) || !in(p[2], -maxAngle, maxAngle) {
		return implausible(what+" angle", p[1]+p[2])
	}
	return nil
}

// in reports whether v is a number within [lo, hi] (false for NaN).
func in(v, lo, hi float64) bool { return v >= lo && v <= hi }

// ErrImplausible marks a perceptor message with a value that is not finite
// or beyond any real reading.
var ErrImplausible = fmt.Errorf("implausible sensor value")

func implausible(what string, v float64) error {
	if math.IsNaN(v) {
		return fmt.Errorf("sim: %s is NaN: %w", what, ErrImplausible)
	}
	return fmt.Errorf("sim: %s = %g: %w", what, v, ErrImplausible)
}
