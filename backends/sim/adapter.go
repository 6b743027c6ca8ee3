// Package sim is robotd's SimSpark / rcssserver3d backend: the thesis'
// "Simulation module", rebuilt on the measured facts of
// internal/traces/testdata.
//
// The package has two layers. Adapter is pure: it turns one parsed
// perceptor message into HAL values in the NAO frame (joint angles, IMU,
// body angles, foot forces, sonars, vision, game state, ground truth) and
// turns absolute joint targets into the motor velocities the server wants,
// predicting the commands already in flight. It does no I/O, keeps no clock
// and does not allocate per cycle. Backend is the TCP client around it: it
// implements hal.Device, runs the scene/init/beam handshake, answers every
// message (with (syn) in sync mode), and keeps ticking on a wall-clock timer
// while the server is away, reconnecting with exponential backoff.
package sim

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/proto/simspark"
)

// MaxSpeed is the server's clamp on a joint velocity command, 351.77 °/s
// (measured: a command of 8 rad/s moves 3.517° per 10 ms cycle).
const MaxSpeed = 6.1395 // rad/s

// Delay is the actuation delay in messages: a command sent in reply to
// message k first shows in the angle of message k+2 (measured on he1, he2,
// lae1 and lle4, in real-time and sync mode, at 10 and 20 ms).
const Delay = 2

// jointMap gives, for each simulator joint, the NAO joint and the sign that
// turns a simulator angle into a NAO angle.
//
// Nine joints are inverted, as the thesis found: HeadPitch, both
// ShoulderPitch, HipPitch, KneePitch and AnklePitch. They are exactly the
// joints whose hinge axis in the model is the simulator's x axis (the
// robot's right), which is the NAO's -y; every other axis maps onto a NAO
// axis with the same sign.
//
// Ankle roll is NOT inverted, checked as follows. In naoleg.rsg the ankle
// roll (lj6, foot relative to ankle) and the hip roll (lj2, hip2 relative to
// hip1) are built by the same hinge template with the same axis (0 1 0),
// the simulator's forward axis = the NAO's x, so both measure the same
// rotation sense. The hip roll's sign is confirmed by the traces: with
// lle2 = rle2 = +1 rad/s the robot falls to its right (imu_fall_right:
// GYR y peaks at +500 °/s, final ACC x = -9.47), as a NAO does with both
// hip rolls positive (both legs swing to the left under the torso); and
// the joint that stops early is the one at the NAO limit: in
// imu_fall_left llj2 stops at the model's -21.74° (LHipRoll's NAO minimum;
// it reads -21.77° for one cycle, then -21.20°) while rlj2 runs on to
// -22.92°, and in imu_fall_right rlj2 stops at +21.74° while llj2 reaches
// +22.35° (TestHipRollSignFromTraces). The ankle-roll limits of the model
// (left [-44.06, 22.79]°) are the mirror of the NAO v5's (LAnkleRoll
// [-22.79, 44.06]°): the model's range differs, not its sign. A NAO-style
// foot-flat pose (hip roll +a, ankle roll -a) therefore keeps the foot flat
// in the simulator too, without any sign change; inverting ankle roll would
// tilt the foot by 2a. This agrees with rUNSWift, which did not negate it.
// No trace moves an ankle roll, so this rests on the model file and the
// hip-roll traces.
//
// RLJ1 (RHipYawPitch) has no joint of its own in LoLA order: it reports
// nothing and is commanded to mirror LHipYawPitch (same sign: the model
// gives both the NAO's range [-65.62, 42.44]°).
//
// The map is the body table's (package body): each hinge's HAL joint and
// sign.
var jointMap = func() (m [simspark.NumJoints]struct {
	nao  hal.Joint
	sign float64
	ok   bool
}) {
	model := body.SimSpark()
	for _, h := range model.Hinges {
		id, ok := simspark.JointByEffectorName([]byte(h.Effector))
		if !ok || !h.HasJoint {
			continue
		}
		m[id].nao, m[id].sign, m[id].ok = h.Joint, h.Sign, true
	}
	return m
}()

// NAOJoint returns the NAO joint that simulator joint j drives and the sign
// from simulator to NAO angles. ok is false for joints robotd does not
// drive (the toes of the type-4 model).
func NAOJoint(j simspark.JointID) (n hal.Joint, sign float64, ok bool) {
	if j >= simspark.NumJoints {
		return 0, 0, false
	}
	m := jointMap[j]
	return m.nao, m.sign, m.ok
}

// SimJoints returns the 22 joints of the NAO type-0 model, in the order the
// backend sends them.
func SimJoints() [22]simspark.JointID { return simJoints }

var simJoints = [22]simspark.JointID{
	simspark.HJ1, simspark.HJ2,
	simspark.LAJ1, simspark.LAJ2, simspark.LAJ3, simspark.LAJ4,
	simspark.RAJ1, simspark.RAJ2, simspark.RAJ3, simspark.RAJ4,
	simspark.LLJ1, simspark.LLJ2, simspark.LLJ3, simspark.LLJ4, simspark.LLJ5, simspark.LLJ6,
	simspark.RLJ1, simspark.RLJ2, simspark.RLJ3, simspark.RLJ4, simspark.RLJ5, simspark.RLJ6,
}

// ToNAOFrame maps a vector in the simulator's torso frame (x right, y
// forward, z up) to the NAO body frame (x forward, y left, z up):
// nao = (sim_y, -sim_x, sim_z).
func ToNAOFrame(v [3]float64) hal.Vec3 { return hal.Vec3{X: v[1], Y: -v[0], Z: v[2]} }

// IMUFromSim converts the GYR (deg/s) and ACC (m/s², specific force)
// perceptors into the HAL's IMU: rad/s and m/s² in the NAO frame.
func IMUFromSim(gyrDegPerSec, acc [3]float64) hal.IMU {
	g := ToNAOFrame(gyrDegPerSec)
	const d2r = math.Pi / 180
	return hal.IMU{Gyro: hal.Vec3{X: g.X * d2r, Y: g.Y * d2r, Z: g.Z * d2r}, Accel: ToNAOFrame(acc)}
}

// Controller turns absolute joint targets into motor velocities, one
// simulator joint at a time. A velocity command persists until changed and
// takes effect Delay messages after the one it replies to: with a delay of
// 2, when the reply to message k is computed, the reply to message k-1 is
// still in flight and will move the joint by v(k-1)·dt between messages k
// and k+1. Step predicts the angle the commands in flight lead to and asks
// for the velocity that lands exactly on the target one cycle later (a
// dead-beat controller, clamped at MaxSpeed). Unlike the thesis' table 3.3
// controller, which ignores the commands in flight, it does not oscillate,
// and a target that moves at a speed below MaxSpeed is followed at that
// speed.
//
// The delay is 2 messages on the recorded servers, but a prediction that
// counts one command in flight too few makes the dead-beat loop unstable
// (its characteristic polynomial z³ − z + 1 has a root at −1.32): the joint
// then swings at the motor limit whatever speed the targets ask for.
// Observe therefore measures the delay: every message it compares each
// joint's motion with the command of two and of three messages before and
// keeps the delay that explains the motion better (averaged over all
// joints and about 20 messages). When a joint has rested for 10 cycles or
// more, the server starts it one cycle late (ODE auto-disable); those
// single late starts do not move the average, and the controller, which
// predicts from measured angles each cycle, arrives a cycle later without
// overshoot.
//
// The gain is the measured cycle dt (the joint moves v·dt per cycle), not
// the thesis' fitted 1.22173.
type Controller struct {
	// inForce is the velocity in force per joint: the last command sent
	// (the reply to the current message once Step or Stop ran). before
	// and before2 are the ones in force one and two messages earlier.
	inForce, before, before2 [simspark.NumJoints]float64
	// last is the previous message's angles.
	last     [simspark.NumJoints]float64
	observed int
	// misfit are running means of how badly a delay of 2 and of 3
	// explains the joints' motion (rad per message); delay3 is the choice.
	misfit   [2]float64
	informed int // messages that told the delays apart
	delay3   bool
}

// misfitRate is the weight of one message in Controller.misfit, and
// minInformed the number of telling messages before the delay is judged.
const (
	misfitRate  = 0.05
	minInformed = 20
)

// Reset forgets the commands in flight (after a reconnect or a stop). The
// delay estimate is kept: it is the server's.
func (c *Controller) Reset() {
	c.inForce, c.before, c.before2 = [simspark.NumJoints]float64{}, [simspark.NumJoints]float64{}, [simspark.NumJoints]float64{}
	c.observed = 0
}

// Observe takes a message's joint angles (rad, simulator signs), before
// the replies to it are computed; dt is the measured cycle (s).
func (c *Controller) Observe(angles *[simspark.NumJoints]float64, dt float64) {
	if c.observed > 0 {
		// The motion since the last message is the command in force two
		// (delay 2) or three (delay 3) messages ago: before and before2,
		// until the shift below.
		var fit2, fit3 float64
		n := 0
		for j := range angles {
			if math.Abs(c.before[j]-c.before2[j]) < 0.05 {
				continue // both delays predict the same motion
			}
			moved := angles[j] - c.last[j]
			fit2 += math.Abs(moved - c.before[j]*dt)
			fit3 += math.Abs(moved - c.before2[j]*dt)
			n++
		}
		if n > 0 {
			c.misfit[0] += misfitRate * (fit2/float64(n) - c.misfit[0])
			c.misfit[1] += misfitRate * (fit3/float64(n) - c.misfit[1])
			c.informed++
			switch {
			case c.informed < minInformed:
			case !c.delay3 && c.misfit[1] < 0.5*c.misfit[0]:
				c.delay3 = true
			case c.delay3 && c.misfit[0] < 0.5*c.misfit[1]:
				c.delay3 = false
			}
		}
	}
	c.last = *angles
	c.observed++
	c.before2, c.before = c.before, c.inForce
}

// Delay returns the measured actuation delay in messages (2 or 3).
func (c *Controller) Delay() int {
	if c.delay3 {
		return 3
	}
	return 2
}

// Step returns the velocity (rad/s) to send for joint j, now at angle (rad,
// simulator sign), to reach target (rad, simulator sign); dt is the
// measured cycle length in seconds. It records the command as in force.
// Observe must have been given this message's angles.
func (c *Controller) Step(j simspark.JointID, angle, target, dt float64) float64 {
	predicted := angle + c.before[j]*dt // where the reply in flight leaves it
	if c.delay3 {
		predicted += c.before2[j] * dt // and the one before it
	}
	v := (target - predicted) / dt
	v = min(max(v, -MaxSpeed), MaxSpeed)
	c.inForce[j] = v
	return v
}

// Stop records that joint j is commanded to stop and returns 0.
func (c *Controller) Stop(j simspark.JointID) float64 {
	c.inForce[j] = 0
	return 0
}

// InFlight returns the velocity in force for joint j.
func (c *Controller) InFlight(j simspark.JointID) float64 { return c.inForce[j] }

// AngleFilter is the simulated angle sensor of the thesis (§3.2.4): a complementary
// filter over gyro and accelerometer. It keeps the direction of "up" in the
// body frame, turns it with the gyro each cycle, and pulls it towards the
// accelerometer's specific-force direction with time constant Tau,
// ignoring the accelerometer while it reads far from 1 g (teleports,
// impacts). Working on the up vector instead of on two angles keeps it
// right through a fall, where integrating roll and pitch rates separately
// breaks down.
//
// It starts from a settled accelerometer: readings near 1 g whose
// directions stay within settleAngle of their mean for Settle seconds;
// "up" is then their mean direction. One reading near 1 g is not enough:
// a robot that rcssserver3d has just created and beamed lands and
// bounces, and its accelerometer can read 1 g sideways for a cycle (the
// UNSW fork, measured: (11.4, 0, −0.9) m/s², 30 ms after the beam, under
// a robot that stood), which taken as "up" says the robot lies on its
// back until the correction (about Tau) undoes it.
type AngleFilter struct {
	// Tau is the accelerometer's correction time constant in seconds.
	Tau float64
	// Settle is how long the accelerometer must read a steady 1 g before
	// the filter starts from it, in seconds (0: from its first reading
	// near 1 g).
	Settle float64
	up     geom.Vec3
	init   bool
	// While not init: the sum of the steady readings' directions and how
	// long they have lasted.
	sum    geom.Vec3
	steady float64
}

// settleAngle is how far (rad) the accelerometer's direction may stray
// from the mean of a settling window: about 11°, above the sway of a robot
// that stands, sits or walks, far below a bounce.
const settleAngle = 0.2

// Update advances the filter by dt seconds with one IMU reading (NAO frame)
// and returns the body angles.
//
// A reading with a value that is not finite, or a step that would leave
// the estimate so, is ignored: the estimate stays as it was.
func (f *AngleFilter) Update(imu hal.IMU, dt float64) hal.BodyAngles {
	prev, prevInit, prevSum, prevSteady := f.up, f.init, f.sum, f.steady
	f.update(imu, dt)
	if !f.up.Finite() || !f.sum.Finite() || math.IsNaN(f.steady) {
		f.up, f.init, f.sum, f.steady = prev, prevInit, prevSum, prevSteady
	}
	return f.Angles()
}

func (f *AngleFilter) update(imu hal.IMU, dt float64) {
	a := imu.Accel
	n := math.Sqrt(a.X*a.X + a.Y*a.Y + a.Z*a.Z)
	accOK := math.Abs(n-float64(hal.Gravity)) < 0.3*float64(hal.Gravity)
	switch {
	case !f.init && !accOK:
		f.sum, f.steady = geom.Vec3{}, 0
	case !f.init:
		u := a.Scale(1 / n)
		if f.steady > 0 {
			if m := f.sum.Unit(); m.Dot(u) < math.Cos(settleAngle) {
				f.sum, f.steady = geom.Vec3{}, 0
			}
		}
		f.sum = f.sum.Add(u)
		if f.steady += dt; f.steady >= f.Settle {
			f.up, f.init = f.sum.Unit(), true
			f.sum, f.steady = geom.Vec3{}, 0
		}
	default:
		w := imu.Gyro
		if wn := math.Sqrt(w.X*w.X + w.Y*w.Y + w.Z*w.Z); wn > 0 {
			// The body turns by w·dt, so a world-fixed vector turns by
			// -w·dt in body coordinates.
			r := geom.RotAxis(w.Scale(1/wn), -wn*dt)
			f.up = r.Apply(f.up)
		}
		if accOK {
			k := dt / (f.Tau + dt)
			f.up = f.up.Scale(1 - k).Add(a.Scale(k / n))
		}
		if l := math.Sqrt(f.up.X*f.up.X + f.up.Y*f.up.Y + f.up.Z*f.up.Z); l > 0 {
			f.up = f.up.Scale(1 / l)
		}
	}
}

// Angles returns the current estimate. With up = Rᵀ·ẑ for R = Ry(pitch)·
// Rx(roll): roll is positive leaning right and pitch positive leaning
// forward, as hal.BodyAngles wants.
func (f *AngleFilter) Angles() hal.BodyAngles {
	u := f.up
	if !f.init {
		return hal.BodyAngles{}
	}
	return hal.BodyAngles{
		Roll:  hal.Radians(math.Atan2(u.Y, u.Z)),
		Pitch: hal.Radians(math.Atan2(-u.X, math.Hypot(u.Y, u.Z))),
	}
}

// Reset restarts the filter: it starts again from the next settled
// accelerometer readings.
func (f *AngleFilter) Reset() { f.up, f.init, f.sum, f.steady = geom.Vec3{}, false, geom.Vec3{}, 0 }
