package hal

import "time"

// Tick is one cycle of the control loop, as paced by the backend's sensor
// packets. Time is the backend's clock: simulation time in the simulator,
// packet time on the robot. It never runs backwards.
type Tick struct {
	// Seq counts ticks from 1.
	Seq uint64
	// Time is the backend's monotonic time of this tick's sensor packet.
	Time time.Duration
	// Period is the nominal cycle length (10 ms SimSpark SPL, 12 ms LoLA).
	Period time.Duration
	// Step, if not 0, is how much the world moved on since the last tick
	// when that is not Time's difference: a simulator's message is one
	// physics step however its clock reads. 0 means Time's difference.
	Step time.Duration
	// Connected is false while the hardware (or simulator) is unreachable.
	// The backend keeps pacing ticks then, so modules see the outage; all
	// sensor values keep their last known state.
	Connected bool
}

// JointSensors is the measured state of every joint, in LoLA order.
type JointSensors struct {
	// Present marks the joints this robot has.
	Present JointSet
	// Angle is the measured angle.
	Angle [NumJoints]Radians
	// Stiffness is the current stiffness 0..1, where the hardware reports it
	// (HasStiffness).
	Stiffness [NumJoints]float64
	// Temperature in °C, where the hardware reports it (HasTemperature).
	Temperature [NumJoints]float64
	// Current in A, where the hardware reports it (HasCurrent).
	Current [NumJoints]float64
	// TemperatureStatus is LoLA's 0 normal .. 3 critical.
	TemperatureStatus [NumJoints]uint8

	HasStiffness, HasTemperature, HasCurrent bool
}

// JointCommand is a position target and stiffness for every joint.
type JointCommand struct {
	Angle     [NumJoints]Radians
	Stiffness [NumJoints]float64
}

// IMU is the inertial measurement in the NAO body frame.
type IMU struct {
	// Gyro is the angular velocity in rad/s; a left turn gives +Z.
	Gyro Vec3
	// Accel is the specific force in m/s²: +9.81 on Z when upright and still.
	// (Raw LoLA reports the gravity vector instead; the backend negates it.)
	Accel Vec3
}

// BodyAngles is the torso orientation relative to upright.
type BodyAngles struct {
	// Roll is the rotation about +X (forward): positive when leaning to the
	// right, as in NAOqi.
	Roll Radians
	// Pitch is positive when leaning forward (NAOqi convention).
	Pitch Radians
}

// Sonar is the two sonar echo distances.
type Sonar struct {
	Left, Right Metres
	// Valid is false when there is no echo (nothing within range).
	LeftValid, RightValid bool
}

// FSR is the foot force sensors, in kg, per foot in the order FrontLeft,
// FrontRight, RearLeft, RearRight.
type FSR struct {
	Left, Right [4]float64
}

// Total returns the summed force of both feet in kg.
func (f *FSR) Total() float64 {
	var t float64
	for i := range 4 {
		t += f.Left[i] + f.Right[i]
	}
	return t
}

// Button is one button or touch pad, in LoLA Touch order (protocols.md §1.3).
type Button uint8

// The buttons and touch pads.
const (
	ChestButton Button = iota
	HeadFront
	HeadMiddle
	HeadRear
	LFootBumperLeft
	LFootBumperRight
	LHandBack
	LHandLeft
	LHandRight
	RFootBumperLeft
	RFootBumperRight
	RHandBack
	RHandLeft
	RHandRight
	NumButtons = 14
)

// Buttons is the set of pressed buttons, one bit per Button. A Robotino's
// bumper is reported as LFootBumperLeft.
type Buttons uint16

// Pressed reports whether b is pressed.
func (s Buttons) Pressed(b Button) bool { return s&(1<<b) != 0 }

// RGB is a colour with components 0..1.
type RGB struct{ R, G, B float64 }

// LEDs is every LED a NAO has. Robotino backends use Chest as their status LED.
type LEDs struct {
	Chest, LFoot, RFoot RGB
	// LEar and REar are intensities 0..1, index i at i·36° (clockwise seen
	// from outside the robot, 0° at the front). Backends reorder to the wire.
	LEar, REar [10]float64
	// LEye and REye are 8 colours each, index i at i·45°.
	LEye, REye [8]RGB
	// Skull is the 12 head LEDs in LoLA order.
	Skull [12]float64
}

// Battery is the battery state.
type Battery struct {
	// Charge is 0..1.
	Charge float64
	// Current in A, negative when discharging.
	Current float64
	// Temperature in °C.
	Temperature float64
	Charging    bool
}

// BaseVelocity is a commanded omnidirectional base velocity in the robot frame.
type BaseVelocity struct {
	VX, VY MetresPerSec
	Omega  RadPerSec
}

// BaseState is what an omnidirectional base reports.
type BaseState struct {
	// Odometry is the integrated pose since start.
	Odometry Pose2
	// Velocity is the measured body velocity.
	Velocity BaseVelocity
	// Bumper is true while the bumper is pressed.
	Bumper bool
	// EmergencyStop is true while an emergency-stop input is active.
	EmergencyStop bool
}

// ObjectKind is what a vision observation is of.
type ObjectKind uint8

// The kinds of things vision reports.
const (
	ObjNone ObjectKind = iota
	ObjBall
	ObjGoalPost
	ObjCorner
	ObjTJunction
	ObjCentreCircle
	ObjPenaltySpot
	ObjRobot
	// ObjLine is a seen part of a straight field line: Pos is its
	// midpoint, Orientation its direction (modulo π) and End one of its
	// end points (the other is 2·Pos − End; End is zero where the source
	// gives no extent), in the robot frame.
	ObjLine
	// ObjXCrossing is where two field lines cross (an X intersection: the
	// centre circle on the halfway line).
	ObjXCrossing
)

// TeamUnknown is Observation.Team for a robot whose team the source cannot
// tell (an image-based obstacle detector, for example).
const TeamUnknown uint8 = 2

// Observation is one thing seen this tick, relative to the robot's feet on
// the ground plane (x forward, y left).
type Observation struct {
	Kind ObjectKind
	// ID distinguishes landmarks of the same kind where the source knows it
	// (e.g. which goal post), else 0. Robots carry their player number.
	ID uint8
	// Team is 0 for own team, 1 for the opponents, TeamUnknown when the
	// source cannot tell (robots only).
	Team uint8
	// Pos is the ground position relative to the feet.
	Pos Vec2
	// Distance and Bearing are Pos in polar form (bearing CCW from forward).
	Distance Metres
	Bearing  Radians
	// Orientation is the feature's orientation where the source gives it.
	Orientation Radians
	// End is one end point of a line (ObjLine only; Pos is its midpoint).
	End Vec2
	// DistanceSigma and BearingSigma are the one-sigma uncertainty of
	// Distance and Bearing; zero when the source does not say.
	DistanceSigma Metres
	BearingSigma  Radians
}

// MaxObservations bounds the observations of one tick.
const MaxObservations = 32

// Vision is this tick's observations. Fresh is false when the camera produced
// no frame this tick (SimSpark sends vision every third cycle).
type Vision struct {
	Fresh bool
	N     int
	Obs   [MaxObservations]Observation
}

// Add appends an observation, dropping it when full; it reports whether it
// was kept.
func (v *Vision) Add(o Observation) bool {
	if v.N >= MaxObservations {
		return false
	}
	v.Obs[v.N] = o
	v.N++
	return true
}

// GroundTruth is the simulator's true state, for sim-only ground-truth modes
// (never the default in any module).
type GroundTruth struct {
	Valid bool
	Pose  Pose2
	// HeadHeight is the camera's height above the ground (the SimSpark
	// fork's mypos z: the head's centre, 0.54 m on a standing robot).
	HeadHeight Metres
	Ball       Vec2
	BallValid  bool
	// ServerTime is the simulator's own clock as it last reported it (s;
	// a SimSpark server's "(time (now t))", a float32 sent with two
	// decimals), 0 if it reports none.
	ServerTime float64
}

// GamePhase is the SPL game state.
type GamePhase uint8

// Game phases (SPL GameController states).
const (
	PhaseInitial GamePhase = iota
	PhaseReady
	PhaseSet
	PhasePlaying
	PhaseFinished
)

// GameState is the referee's view of the game.
type GameState struct {
	Phase GamePhase
	// Penalised is true while this robot is penalised.
	Penalised bool
	// OurKickOff is true when our team has the kick-off.
	OurKickOff bool
	// LeftSide is true when our team defends the left (-x) goal.
	LeftSide           bool
	ScoreOwn, ScoreOpp int
	// GameTime is the game clock.
	GameTime time.Duration
	// PlayMode is the simulator's raw play-mode code, for diagnostics.
	PlayMode uint8
}

// BackendStats counts a backend's problems since start.
type BackendStats struct {
	// Errors counts malformed packets, checksum errors, failed writes.
	Errors uint64
	// Reconnects counts successful reconnections.
	Reconnects uint64
	// Rejected counts sensor messages left out for implausible values
	// (NaN, ±Inf, or beyond what the hardware or simulator can report).
	Rejected uint64
}
