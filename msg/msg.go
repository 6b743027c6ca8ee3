// Package msg holds the value types modules exchange through the blackboard
// and the keys of robotd's blackboard entries.
//
// Entries named "hal.*" are sensor values the runner publishes from the
// backend at the start of every tick; entries named "cmd.*" are commands the
// runner hands to the backend at the end of the tick. Everything else is
// written by exactly one module, named by the entry's prefix.
package msg

import (
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
)

// Sensor entries, written by the runner from the backend's capabilities.
var (
	TickKey        = blackboard.NewKey[hal.Tick]("hal.tick")
	JointsKey      = blackboard.NewKey[hal.JointSensors]("hal.joints")
	IMUKey         = blackboard.NewKey[hal.IMU]("hal.imu")
	BodyAnglesKey  = blackboard.NewKey[hal.BodyAngles]("hal.body_angles")
	SonarKey       = blackboard.NewKey[hal.Sonar]("hal.sonar")
	FSRKey         = blackboard.NewKey[hal.FSR]("hal.fsr")
	ButtonsKey     = blackboard.NewKey[hal.Buttons]("hal.buttons")
	BatteryKey     = blackboard.NewKey[hal.Battery]("hal.battery")
	BaseKey        = blackboard.NewKey[hal.BaseState]("hal.base")
	VisionKey      = blackboard.NewKey[hal.Vision]("hal.vision")
	GameStateKey   = blackboard.NewKey[hal.GameState]("hal.game_state")
	GroundTruthKey = blackboard.NewKey[hal.GroundTruth]("hal.ground_truth")
	// CameraKey is the newest frame of each camera: its pixels' Ref in the
	// backend's frame pool (hal.CameraSensor.Frames) and the posture it was
	// taken in. The pixels themselves never travel through the board.
	CameraKey = blackboard.NewKey[hal.CameraFrames]("hal.camera")
)

// Command entries, handed to the backend at the end of each tick.
var (
	JointCommandKey = blackboard.NewKey[hal.JointCommand]("cmd.joints")
	LEDsKey         = blackboard.NewKey[hal.LEDs]("cmd.leds")
	BaseVelocityKey = blackboard.NewKey[hal.BaseVelocity]("cmd.base_velocity")
)

// Module entries.
var (
	BodyStateKey     = blackboard.NewKey[BodyState]("perception.body")
	MotionRequestKey = blackboard.NewKey[MotionRequest]("behaviour.motion_request")
	MotionStateKey   = blackboard.NewKey[MotionState]("motion.state")
)

// Fall says whether and how the robot has fallen.
type Fall uint8

// Fall states.
const (
	Upright Fall = iota
	FallenFront
	FallenBack
	FallenLeft
	FallenRight
)

// String names the fall state.
func (f Fall) String() string {
	switch f {
	case Upright:
		return "upright"
	case FallenFront:
		return "fallen-front"
	case FallenBack:
		return "fallen-back"
	case FallenLeft:
		return "fallen-left"
	case FallenRight:
		return "fallen-right"
	}
	return "unknown"
}

// BodyState is perception's view of the robot's own body.
type BodyState struct {
	// Angles is the torso's roll and pitch.
	Angles hal.BodyAngles
	// Fall is set once the torso is beyond the fall angle.
	Fall Fall
	// Connected mirrors the backend's link state; while false every other
	// field is stale.
	Connected bool
}

// MotionKind is what motion is asked to do or is doing.
type MotionKind uint8

// Motion kinds.
const (
	MotionNone MotionKind = iota
	// MotionStand holds the stand pose.
	MotionStand
	// MotionWalk walks with Walk's speeds or to Walk's target.
	MotionWalk
	// MotionKick kicks with Kick's foot in Kick's direction.
	MotionKick
	// MotionGetUp stands up after a fall.
	MotionGetUp
	// MotionRelax sits down and goes limp.
	MotionRelax
	// MotionSit sits down with stiffness, then goes limp (safety's: a low
	// battery, the safe stop).
	MotionSit
)

// String names the motion kind.
func (k MotionKind) String() string {
	switch k {
	case MotionNone:
		return "none"
	case MotionStand:
		return "stand"
	case MotionWalk:
		return "walk"
	case MotionKick:
		return "kick"
	case MotionGetUp:
		return "getup"
	case MotionRelax:
		return "relax"
	case MotionSit:
		return "sit"
	}
	return "unknown"
}

// WalkRequest is an omnidirectional walk: speeds, or a target relative to
// the robot.
type WalkRequest struct {
	Forward, Left hal.MetresPerSec
	Turn          hal.RadPerSec
	// ToTarget selects walking to Target instead of at the speeds.
	ToTarget bool
	Target   hal.Pose2
}

// Foot is a foot.
type Foot uint8

// The feet.
const (
	LeftFoot Foot = iota
	RightFoot
)

// KickRequest is a kick.
type KickRequest struct {
	Foot Foot
	// Direction is the desired ball direction relative to the robot.
	Direction hal.Radians
}

// HeadMode is what the head does.
type HeadMode uint8

// Head modes.
const (
	HeadHold HeadMode = iota
	HeadLookAt
	HeadScan
)

// HeadRequest is what the head should do, independently of the body.
type HeadRequest struct {
	Mode HeadMode
	// Yaw and Pitch are the target for HeadLookAt.
	Yaw, Pitch hal.Radians
}

// MotionRequest is behaviour's request to motion.
type MotionRequest struct {
	Kind MotionKind
	Walk WalkRequest
	Kick KickRequest
	Head HeadRequest
}

// MotionState is motion's report of what it does.
type MotionState struct {
	Active MotionKind
	// Interruptible is false while a motion that must finish (a kick, a
	// get-up) runs.
	Interruptible bool
	// Settled is true once the active motion has reached its pose (e.g. the
	// stand pose is held).
	Settled bool
	// Odometry is the body's motion since the last tick, in the previous
	// tick's robot frame.
	Odometry hal.Pose2
	// NeedsHelp is true once get-ups have failed motion.get_up.max_tries
	// times in a row: motion has stopped trying and lies relaxed until the
	// robot is upright again, has been penalised and unpenalised, or its
	// chest button is pressed (the SPL's "incapable" robot asks for help).
	NeedsHelp bool
}
