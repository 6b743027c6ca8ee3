// Package sim is robotd's SimSpark / rcssserver3d backend (seed 003's
// "Simulation module", built on the measured facts of
// shared/traces/simspark): it connects to the server's agent port, turns
// perceptor messages into HAL values in the NAO frame, and turns absolute
// joint targets into the motor velocities the server wants, predicting the
// commands already in flight.
package sim

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/simspark"
)

// MaxSpeed is the server's clamp on a joint velocity command: 351.77 °/s.
const MaxSpeed = 6.1395 // rad/s

// Delay is the number of cycles between a command and its first effect: a
// command sent in reply to message k first shows in message k+2.
const Delay = 2

// jointMap gives, for each simulator joint, the NAO joint and the sign that
// turns a simulator angle into a NAO angle.
//
// Eleven joints are inverted, not the nine of rUNSWift's bridge: HeadPitch,
// both ShoulderPitch, HipPitch, KneePitch and AnklePitch, and both AnkleRoll.
// The
// ankle rolls' limits in the model (left [-44.06, 22.79]°, right [-22.79,
// 44.06]°) are the negatives of the NAO's (left [-22.80, 44.06]°), exactly as
// for the other inverted joints, while hip roll, shoulder roll and elbow roll
// keep the NAO's ranges and sign. RLJ1 (RHipYawPitch) has no NAO joint of
// its own: it is driven to mirror LHipYawPitch.
var jointMap = [simspark.NumJoints]struct {
	nao  hal.Joint
	sign float64
	ok   bool
}{
	simspark.HJ1:  {hal.HeadYaw, 1, true},
	simspark.HJ2:  {hal.HeadPitch, -1, true},
	simspark.LAJ1: {hal.LShoulderPitch, -1, true},
	simspark.LAJ2: {hal.LShoulderRoll, 1, true},
	simspark.LAJ3: {hal.LElbowYaw, 1, true},
	simspark.LAJ4: {hal.LElbowRoll, 1, true},
	simspark.RAJ1: {hal.RShoulderPitch, -1, true},
	simspark.RAJ2: {hal.RShoulderRoll, 1, true},
	simspark.RAJ3: {hal.RElbowYaw, 1, true},
	simspark.RAJ4: {hal.RElbowRoll, 1, true},
	simspark.LLJ1: {hal.LHipYawPitch, 1, true},
	simspark.LLJ2: {hal.LHipRoll, 1, true},
	simspark.LLJ3: {hal.LHipPitch, -1, true},
	simspark.LLJ4: {hal.LKneePitch, -1, true},
	simspark.LLJ5: {hal.LAnklePitch, -1, true},
	simspark.LLJ6: {hal.LAnkleRoll, -1, true},
	simspark.RLJ1: {hal.LHipYawPitch, 1, true}, // mirrors LHipYawPitch
	simspark.RLJ2: {hal.RHipRoll, 1, true},
	simspark.RLJ3: {hal.RHipPitch, -1, true},
	simspark.RLJ4: {hal.RKneePitch, -1, true},
	simspark.RLJ5: {hal.RAnklePitch, -1, true},
	simspark.RLJ6: {hal.RAnkleRoll, -1, true},
}

// NAOJoint returns the NAO joint a simulator joint drives and the sign from
// simulator to NAO angles. ok is false for joints robotd does not drive (the
// toes of the type-4 model).
func NAOJoint(j simspark.JointID) (hal.Joint, float64, bool) {
	m := jointMap[j]
	return m.nao, m.sign, m.ok
}

// SimJoints lists the 22 simulator joints of the NAO type-0 model.
var SimJoints = [...]simspark.JointID{
	simspark.HJ1, simspark.HJ2,
	simspark.LAJ1, simspark.LAJ2, simspark.LAJ3, simspark.LAJ4,
	simspark.RAJ1, simspark.RAJ2, simspark.RAJ3, simspark.RAJ4,
	simspark.LLJ1, simspark.LLJ2, simspark.LLJ3, simspark.LLJ4, simspark.LLJ5, simspark.LLJ6,
	simspark.RLJ1, simspark.RLJ2, simspark.RLJ3, simspark.RLJ4, simspark.RLJ5, simspark.RLJ6,
}

// ToNAOFrame maps a simulator torso-frame vector (x right, y forward, z up)
// to the NAO body frame (x forward, y left, z up).
func ToNAOFrame(v [3]float64) hal.Vec3 { return hal.Vec3{X: v[1], Y: -v[0], Z: v[2]} }

// IMU converts GYR (deg/s) and ACC (m/s²) into the HAL's IMU.
func IMU(gyr, acc [3]float64) hal.IMU {
	g := ToNAOFrame(gyr)
	const d2r = math.Pi / 180
	return hal.IMU{Gyro: hal.Vec3{X: g.X * d2r, Y: g.Y * d2r, Z: g.Z * d2r}, Accel: ToNAOFrame(acc)}
}

// Controller turns absolute joint targets into motor velocities, one
// simulator joint at a time. It knows the velocity in force (commands
// persist until changed) and the two-cycle delay, so it predicts where the
// joint will be when the next command takes effect and asks for exactly the
// velocity that lands on the target then: a dead-beat controller that does
// not oscillate, unlike the proportional one of seed 003's table 3.3.
type Controller struct {
	// sent is the velocity in force per joint (the last command sent).
	sent [simspark.NumJoints]float64
}

// Reset forgets the commands in flight (after a reconnect).
func (c *Controller) Reset() { c.sent = [simspark.NumJoints]float64{} }

// Step returns the velocity (rad/s) to send for joint j, now at angle
// (rad, simulator sign), to reach target: dt is the measured cycle length.
func (c *Controller) Step(j simspark.JointID, angle, target, dt float64) float64 {
	predicted := angle + c.sent[j]*dt // where the command in flight leaves it
	v := (target - predicted) / dt
	v = min(max(v, -MaxSpeed), MaxSpeed)
	c.sent[j] = v
	return v
}

// Sent returns the velocity in force for j.
func (c *Controller) Sent(j simspark.JointID) float64 { return c.sent[j] }

// AngleFilter is seed 003 §3.2.4's simulated angle sensor: a complementary
// filter that integrates the gyro and pulls towards the tilt the
// accelerometer implies, ignoring the accelerometer while it reads far from
// 1 g (teleports, impacts).
type AngleFilter struct {
	// Alpha is the gyro's weight per cycle (0.98).
	Alpha float64
	a     hal.BodyAngles
	init  bool
}

// Update advances the filter by dt seconds and returns the angles.
func (f *AngleFilter) Update(imu hal.IMU, dt float64) hal.BodyAngles {
	ax, ay, az := imu.Accel.X, imu.Accel.Y, imu.Accel.Z
	norm := math.Sqrt(ax*ax + ay*ay + az*az)
	accOK := math.Abs(norm-float64(hal.Gravity)) < 0.3*float64(hal.Gravity)
	var accRoll, accPitch float64
	if accOK {
		accRoll = math.Atan2(ay, az)
		accPitch = math.Atan2(-ax, math.Hypot(ay, az))
	}
	if !f.init {
		if !accOK {
			return f.a
		}
		f.a = hal.BodyAngles{Roll: hal.Radians(accRoll), Pitch: hal.Radians(accPitch)}
		f.init = true
		return f.a
	}
	roll := float64(f.a.Roll) + imu.Gyro.X*dt
	pitch := float64(f.a.Pitch) + imu.Gyro.Y*dt
	if accOK {
		roll = f.Alpha*roll + (1-f.Alpha)*accRoll
		pitch = f.Alpha*pitch + (1-f.Alpha)*accPitch
	}
	f.a = hal.BodyAngles{Roll: hal.Radians(roll), Pitch: hal.Radians(pitch)}
	return f.a
}

// Reset restarts the filter from the next accelerometer reading.
func (f *AngleFilter) Reset() { f.a, f.init = hal.BodyAngles{}, false }
