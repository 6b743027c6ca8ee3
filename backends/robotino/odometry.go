package robotino

import (
	"math"
	"time"

	"github.com/robotd/robotd/hal"
	proto "github.com/robotd/robotd/proto/robotino"
)

// odometry integrates the base's pose from one of the three sources of
// Config.Odometry. The pose survives reconnections: each new connection
// only sets a new baseline.
type odometry struct {
	kin         proto.Kinematics
	source      string
	ticksPerRev float64
	pose        hal.Pose2

	havePos bool
	pos     [3]int32
	haveT   bool
	t       time.Duration
	haveFw  bool
	offset  hal.Pose2
}

// reset starts a new baseline (a new connection): the next reading moves
// nothing.
func (o *odometry) reset() { o.havePos, o.haveT, o.haveFw = false, false, false }

// motors takes one ALL_MOTOR_READINGS at time t (encoders and speeds).
func (o *odometry) motors(m *proto.MotorReadings, t time.Duration) {
	switch o.source {
	case OdometryEncoders:
		var rev [3]float64
		for i := range 3 {
			rev[i] = float64(m.Position[i]-o.pos[i]) / o.ticksPerRev // int32 difference wraps correctly
			o.pos[i] = m.Position[i]
		}
		if !o.havePos {
			o.havePos = true
			return
		}
		// A displacement of rev motor revolutions is, through the linear
		// §2.5 model, what a motor speed of 60·rev rpm does in 1 s.
		d := o.kin.BodyVelocity([3]float64{60 * rev[0], 60 * rev[1], 60 * rev[2]})
		o.move(d.VX, d.VY, d.Omega)
	case OdometrySpeeds:
		dt := (t - o.t).Seconds()
		o.t = t
		if !o.haveT {
			o.haveT = true
			return
		}
		v := o.kin.BodyVelocity([3]float64{float64(m.Speed[0]), float64(m.Speed[1]), float64(m.Speed[2])})
		o.move(v.VX*dt, v.VY*dt, v.Omega*dt)
	}
}

// firmware takes one ODOMETRY reading.
func (o *odometry) firmware(f proto.Odometry) {
	if o.source != OdometryFirmware {
		return
	}
	fw := hal.Pose2{X: hal.Metres(f.X), Y: hal.Metres(f.Y), Heading: hal.Radians(f.Phi)}
	if !o.haveFw {
		// offset ⊕ fw = pose
		o.haveFw = true
		th := o.pose.Heading - fw.Heading
		s, c := math.Sincos(float64(th))
		o.offset = hal.Pose2{
			X:       o.pose.X - hal.Metres(c*float64(fw.X)-s*float64(fw.Y)),
			Y:       o.pose.Y - hal.Metres(s*float64(fw.X)+c*float64(fw.Y)),
			Heading: th,
		}
	}
	o.pose = o.offset.Compose(fw)
}

// move adds a displacement (dx, dy, dθ) in the robot frame, taking the
// heading halfway through the step.
func (o *odometry) move(dx, dy, dth float64) {
	s, c := math.Sincos(float64(o.pose.Heading) + dth/2)
	o.pose.X += hal.Metres(c*dx - s*dy)
	o.pose.Y += hal.Metres(s*dx + c*dy)
	o.pose.Heading = (o.pose.Heading + hal.Radians(dth)).Wrap()
}
