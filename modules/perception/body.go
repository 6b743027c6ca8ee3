package perception

import (
	"math"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Classify says whether torso angles a mean a fall, and to which side.
func Classify(a hal.BodyAngles, limit hal.Radians) msg.Fall {
	p, r := float64(a.Pitch), float64(a.Roll)
	if math.Abs(p) < float64(limit) && math.Abs(r) < float64(limit) {
		return msg.Upright
	}
	if math.Abs(p) >= math.Abs(r) {
		if p > 0 {
			return msg.FallenFront
		}
		return msg.FallenBack
	}
	if r > 0 {
		return msg.FallenRight
	}
	return msg.FallenLeft
}

// DetectFall is the stateless fall test of one tick. The robot has fallen
// when the torso is tilted beyond cfg.FallAngle (see Classify); it is
// falling when it is tilted beyond cfg.FallingAngle and the gyro says it
// turns further that way at cfg.FallingRate or faster. A fall under way is
// reported as a fall too (fall != Upright), so that motion can react before
// the robot hits the ground; falling says it was the gyro that decided.
//
// The gyro is in the NAO body frame: +X rolls to the right (positive roll),
// +Y pitches forward (positive pitch).
func DetectFall(a hal.BodyAngles, gyro hal.Vec3, cfg BodyConfig) (fall msg.Fall, falling bool) {
	p, r := float64(a.Pitch), float64(a.Roll)
	lim, rate := float64(cfg.FallingAngle), float64(cfg.FallingRate)
	// The tipping axis: beyond the falling angle and turning further.
	var tipPitch, tipRoll bool
	if math.Abs(p) >= lim && p*gyro.Y > 0 && math.Abs(gyro.Y) >= rate {
		tipPitch = true
	}
	if math.Abs(r) >= lim && r*gyro.X > 0 && math.Abs(gyro.X) >= rate {
		tipRoll = true
	}
	falling = tipPitch || tipRoll
	if f := Classify(a, cfg.FallAngle); f != msg.Upright {
		return f, falling
	}
	switch {
	case tipPitch && (!tipRoll || math.Abs(p) >= math.Abs(r)):
		if p > 0 {
			return msg.FallenFront, true
		}
		return msg.FallenBack, true
	case tipRoll:
		if r > 0 {
			return msg.FallenRight, true
		}
		return msg.FallenLeft, true
	}
	return msg.Upright, false
}

// anglesFromAccel estimates the torso's roll and pitch from the measured
// specific force (gravity's reaction when the robot is not accelerating).
func anglesFromAccel(acc hal.Vec3) (hal.BodyAngles, bool) {
	g := math.Sqrt(acc.X*acc.X + acc.Y*acc.Y + acc.Z*acc.Z)
	if !(g > 0.5*float64(hal.Gravity) && g < 1.5*float64(hal.Gravity)) {
		return hal.BodyAngles{}, false
	}
	// Upright the specific force points up (+Z). Leaning forward tips the
	// body's -X towards up; leaning right tips +Y towards up.
	return hal.BodyAngles{
		Pitch: hal.Radians(math.Atan2(-acc.X, math.Hypot(acc.Y, acc.Z))),
		Roll:  hal.Radians(math.Atan2(acc.Y, acc.Z)),
	}, true
}

// bodyInputs is one tick's body sensors; the Has fields say which the robot
// has.
type bodyInputs struct {
	angles                                       hal.BodyAngles
	imu                                          hal.IMU
	fsr                                          hal.FSR
	sonar                                        hal.Sonar
	buttons                                      hal.Buttons
	hasAngles, hasIMU, hasFSR, hasSonar, hasBtns bool
}

// bodyTracker keeps the body state between ticks: the latched fall, ground
// contact hysteresis and the chest-button sequence.
type bodyTracker struct {
	cfg        BodyConfig
	fall       msg.Fall
	prevBtns   hal.Buttons
	contact    bool
	chestCount uint8
	chestLast  time.Duration
}

// update returns the body state and sensor summary of one tick.
func (b *bodyTracker) update(in *bodyInputs, now time.Duration, connected bool) (msg.BodyState, msg.BodySensors) {
	a := in.angles
	if !in.hasAngles && in.hasIMU {
		if est, ok := anglesFromAccel(in.imu.Accel); ok {
			a = est
		}
	}
	var gyro hal.Vec3
	if in.hasIMU {
		gyro = in.imu.Gyro
	}
	f, falling := DetectFall(a, gyro, b.cfg)
	switch {
	case f != msg.Upright:
		b.fall = f
	case b.fall != msg.Upright:
		// Latched until clearly upright again.
		up := float64(b.cfg.UprightAngle)
		if math.Abs(float64(a.Pitch)) < up && math.Abs(float64(a.Roll)) < up {
			b.fall = msg.Upright
		}
	}
	s := msg.BodySensors{
		Falling: falling, FallDirection: b.fall,
		HasIMU: in.hasIMU, HasFSR: in.hasFSR, HasSonar: in.hasSonar, HasButtons: in.hasBtns,
	}
	if in.hasFSR {
		var l, r float64
		for i := range 4 {
			l += in.fsr.Left[i]
			r += in.fsr.Right[i]
		}
		s.FootLoad = [2]float64{msg.LeftFoot: l, msg.RightFoot: r}
		if r > l {
			s.SupportFoot = msg.RightFoot
		}
		total := l + r
		switch {
		case total >= b.cfg.GroundContactKg:
			b.contact = true
		case total < b.cfg.GroundContactKg/2:
			b.contact = false
		}
		s.GroundContact = b.contact
	}
	if in.hasSonar {
		lim := float64(b.cfg.SonarMaxRange)
		if d := float64(in.sonar.Left); in.sonar.LeftValid && d > 0 && d <= lim {
			s.SonarLeft, s.SonarLeftValid = in.sonar.Left, true
		}
		if d := float64(in.sonar.Right); in.sonar.RightValid && d > 0 && d <= lim {
			s.SonarRight, s.SonarRightValid = in.sonar.Right, true
		}
	}
	if in.hasBtns {
		s.Buttons = in.buttons
		s.Pressed = in.buttons &^ b.prevBtns
		b.prevBtns = in.buttons
		gap := b.cfg.ChestPressGap.D()
		if s.Pressed.Pressed(hal.ChestButton) {
			if b.chestCount > 0 && now-b.chestLast > gap {
				b.chestCount = 0
			}
			if b.chestCount < math.MaxUint8 {
				b.chestCount++
			}
			b.chestLast = now
		} else if b.chestCount > 0 && !in.buttons.Pressed(hal.ChestButton) && now-b.chestLast > gap {
			s.ChestPresses = b.chestCount
			b.chestCount = 0
		}
	}
	return msg.BodyState{Angles: a, Fall: b.fall, Connected: connected}, s
}
