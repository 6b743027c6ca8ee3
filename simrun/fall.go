package simrun

import (
	"context"
	"math"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/hal"
)

// Fall is a commanded fall: how a robot is laid down on a server whose
// trainer cannot turn a robot over (the UNSW fork's agent command takes a
// position and a yaw only). The robot's own joints tip it over: its ankle
// pitches for a fall to the front or back, as the recorded
// imu_fall_forward/backward runs did with both ankle pitches at ±1 rad/s
// for 40 cycles, and its hip and ankle rolls for a fall to the side, as
// imu_fall_left/right did with both hip rolls; the same command drives the
// embedded simulator.
type Fall uint8

// Falls.
const (
	FallNone Fall = iota
	FallFront
	FallBack
	// FallLeft and FallRight lay the robot on its left or right side.
	FallLeft
	FallRight
)

// String names the fall.
func (f Fall) String() string {
	switch f {
	case FallNone:
		return "none"
	case FallFront:
		return "front"
	case FallBack:
		return "back"
	case FallLeft:
		return "left"
	case FallRight:
		return "right"
	}
	return "unknown"
}

// FallByName returns the fall named by String (front, back, left, right).
func FallByName(name string) (Fall, bool) {
	for f := FallFront; f <= FallRight; f++ {
		if f.String() == name {
			return f, true
		}
	}
	return FallNone, false
}

// LayDownOn lays the robot down as f says where it stands (see Fall and
// LayDown); FallNone does nothing.
func (r *Robot) LayDownOn(f Fall) {
	if f != FallNone && f <= FallRight {
		r.dev.req.Store(uint32(f))
	}
}

// fallPose is the joint pose that tips the standing robot over: ankles
// pitched almost as far as they go towards the fall, the torso bent the
// same way, knees and rolls straight, so that the body turns about the
// front or back edge of the soles. A fall to the side is sidePose's.
func fallPose(f Fall, c *hal.JointCommand) {
	if f == FallLeft || f == FallRight {
		sidePose(f, c)
		return
	}
	// Toes up tips the shins forward, and a positive hip pitch bends the
	// torso forward over the thighs; the back fall is the mirror image.
	lean, hip := hal.Radians(-1.0), hal.Radians(0.5)
	if f == FallBack {
		lean, hip = 0.9, -0.5
	}
	for _, j := range []hal.Joint{hal.LAnklePitch, hal.RAnklePitch} {
		c.Angle[j], c.Stiffness[j] = lean, 1
	}
	for _, j := range []hal.Joint{hal.LHipPitch, hal.RHipPitch} {
		c.Angle[j], c.Stiffness[j] = hip, 1
	}
	for _, j := range []hal.Joint{hal.LKneePitch, hal.RKneePitch, hal.LHipRoll, hal.RHipRoll, hal.LAnkleRoll, hal.RAnkleRoll, hal.LHipYawPitch} {
		c.Angle[j], c.Stiffness[j] = 0, 1
	}
}

// sidePose tips the robot to its left (FallLeft) or right: both hip rolls
// swing the legs to the other side under the torso, as in the recorded
// imu_fall_left/right runs (hip rolls positive: a fall to the right,
// backends/sim's adapter), and both ankle rolls tilt the shins the way of
// the fall over the feet, knees and pitches straight, so that the body
// turns about the outer edge of one sole.
func sidePose(f Fall, c *hal.JointCommand) {
	hip, ankle := hal.Radians(-0.38), hal.Radians(0.38)
	if f == FallRight {
		hip, ankle = -hip, -ankle
	}
	for _, j := range []hal.Joint{hal.LHipRoll, hal.RHipRoll} {
		c.Angle[j], c.Stiffness[j] = j.Clamp(hip), 1
	}
	for _, j := range []hal.Joint{hal.LAnkleRoll, hal.RAnkleRoll} {
		c.Angle[j], c.Stiffness[j] = j.Clamp(ankle), 1
	}
}

// fallDuration is how long the fall pose overrides the modules' leg
// commands at most: long enough for the robot to land (the recorded falls
// took under a second), after which motion finds it lying.
const fallDuration = 1500 * time.Millisecond

// fallenPitch ends the fall pose early: once the torso is tilted this far
// (rad, pitched for a fall to the front or back, rolled for one to the
// side) the robot is as good as down, and the legs are the modules' again,
// as they are in a fall nobody commanded (a get-up starts while the robot
// still lands).
const fallenPitch = 1.2

// fallDevice is the robot's backend with a commanded fall on top: while a
// fall runs, WriteJoints replaces the leg joints' commands with the fall
// pose. Everything else is the backend's (its methods are promoted).
type fallDevice struct {
	*sim.Backend
	req   atomic.Uint32 // a Fall asked for by LayDown, taken by Next
	fall  Fall
	until time.Duration
	now   time.Duration
	cmd   hal.JointCommand
	// planned is a fall to start plannedAt after the first connected
	// tick (at connAt); FallNone once started.
	planned   Fall
	plannedAt time.Duration
	connAt    time.Duration
	connected bool
}

func (d *fallDevice) Next(ctx context.Context) (hal.Tick, error) {
	t, err := d.Backend.Next(ctx)
	if err != nil {
		return t, err
	}
	d.now = t.Time
	if t.Connected && !d.connected {
		d.connAt, d.connected = t.Time, true
	}
	if d.planned != FallNone && d.connected && t.Time-d.connAt >= d.plannedAt {
		d.req.Store(uint32(d.planned))
		d.planned = FallNone
	}
	if f := Fall(d.req.Swap(0)); f != FallNone && t.Connected {
		d.fall, d.until = f, t.Time+fallDuration
	} else if f != FallNone {
		d.req.CompareAndSwap(0, uint32(f)) // not connected: keep it for later
	}
	if d.fall != FallNone {
		var a hal.BodyAngles
		d.Backend.ReadBodyAngles(&a)
		tilt := a.Pitch
		if d.fall == FallLeft || d.fall == FallRight {
			tilt = a.Roll
		}
		if t.Time >= d.until || math.Abs(float64(tilt)) >= fallenPitch {
			d.fall = FallNone
		}
	}
	return t, nil
}

func (d *fallDevice) WriteJoints(c *hal.JointCommand) {
	if d.fall == FallNone {
		d.Backend.WriteJoints(c)
		return
	}
	d.cmd = *c
	fallPose(d.fall, &d.cmd)
	d.Backend.WriteJoints(&d.cmd)
}
