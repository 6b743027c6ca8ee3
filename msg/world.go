package msg

import (
	"math"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
)

// World-model entries written by perception, and the team-communication
// input that perception reads.
var (
	// BallKey is perception's ball model.
	BallKey = blackboard.NewKey[Ball]("perception.ball")
	// RobotPoseKey is perception's self-localisation.
	RobotPoseKey = blackboard.NewKey[RobotPose]("perception.pose")
	// BodySensorsKey is perception's summary of the body's other sensors
	// (fall onset, ground contact, buttons, sonar); BodyStateKey carries the
	// latched fall state.
	BodySensorsKey = blackboard.NewKey[BodySensors]("perception.body_sensors")
	// TeamBallKey is the ball fused from this robot's and its teammates'
	// reports.
	TeamBallKey = blackboard.NewKey[TeamBall]("perception.team_ball")
	// TeamBallReportsKey is the teammates' latest ball reports, written by
	// team communication. Perception reads it optionally: without a writer
	// the team ball is this robot's own ball.
	TeamBallReportsKey = blackboard.NewKey[TeamBallReports]("teamcomm.ball_reports")
)

// EstimateSource says where an estimate comes from.
type EstimateSource uint8

// Estimate sources.
const (
	// SourceNone: there is no estimate.
	SourceNone EstimateSource = iota
	// SourceFilter: perception's filters (the normal case).
	SourceFilter
	// SourceGroundTruth: the simulator's ground truth (a sim-only option).
	SourceGroundTruth
)

// String names the source.
func (s EstimateSource) String() string {
	switch s {
	case SourceNone:
		return "none"
	case SourceFilter:
		return "filter"
	case SourceGroundTruth:
		return "ground-truth"
	}
	return "unknown"
}

// Cov2 is a symmetric 2×2 covariance of a ground position, in m².
type Cov2 [2][2]float64

// Cov3 is a symmetric 3×3 covariance of a pose (x, y in m, heading in rad).
type Cov3 [3][3]float64

// Ball is perception's ball model. Positions and velocities relative to the
// robot are in the robot's current frame on the ground (x forward, y left,
// origin between the feet); field positions are in the team's own frame
// (see package field).
type Ball struct {
	// Valid is true once the ball has been seen (and stays true while it is
	// predicted, see Lost).
	Valid bool
	// Seen is true when a ball observation was accepted this tick.
	Seen bool
	// Lost is true when the ball has not been seen for longer than
	// perception's configured time, or never.
	Lost bool
	// SinceSeen is the time since the ball was last seen (since start if
	// never).
	SinceSeen time.Duration
	// Pos is the ball's position relative to the robot.
	Pos hal.Vec2
	// Vel is the ball's velocity over the ground in m/s, in the robot frame.
	Vel hal.Vec2
	// Cov is the covariance of Pos.
	Cov Cov2
	// FieldValid is true when the robot's pose is known well enough for
	// FieldPos and FieldVel (RobotPose.Valid).
	FieldValid bool
	// FieldPos and FieldVel are Pos and Vel on the field.
	FieldPos hal.Vec2
	FieldVel hal.Vec2
	// Source says where the estimate comes from.
	Source EstimateSource
}

// RobotPose is perception's self-localisation on the field.
type RobotPose struct {
	// Valid is true once the localisation has an estimate.
	Valid bool
	// Pose is the robot's pose in the team's own field frame.
	Pose hal.Pose2
	// Cov is the covariance of (x, y, heading) of the estimate's mode.
	Cov Cov3
	// Confidence is 0..1: how much of the belief is in the estimate's mode,
	// how well recent landmarks agree with it, how tight it is, and how
	// recently landmarks were seen.
	Confidence float64
	// MirrorWeight is the share of the belief near the pose mirrored through
	// the centre spot (the field's symmetry), 0..1. A high value means the
	// robot may be on the wrong side.
	MirrorWeight float64
	// SinceLandmark is the time since the last landmark was used.
	SinceLandmark time.Duration
	// Resets counts re-localisations from landmark hypotheses (after being
	// moved, a fall or a penalty).
	Resets uint32
	// Source says where the estimate comes from.
	Source EstimateSource
}

// BodySensors is perception's summary of the body's sensors beyond the
// torso angles.
type BodySensors struct {
	// Falling is true while the robot is tipping over: tilted beyond the
	// falling angle and rotating further that way. FallDirection says where.
	Falling bool
	// FallDirection is the direction of the fall under way or of the fall
	// state (Upright when neither).
	FallDirection Fall
	// GroundContact is true while the feet carry the robot's weight (FSR).
	GroundContact bool
	// FootLoad is the force on each foot in kg, indexed by Foot.
	FootLoad [2]float64
	// SupportFoot is the foot carrying more weight.
	SupportFoot Foot
	// Buttons is the set of buttons held down.
	Buttons hal.Buttons
	// Pressed is the set of buttons that went down this tick.
	Pressed hal.Buttons
	// ChestPresses is the number of chest-button presses in a sequence that
	// completed this tick (presses closer together than the configured gap),
	// else 0.
	ChestPresses uint8
	// Sonar distances of the nearest echo, valid when within range.
	SonarLeft, SonarRight           hal.Metres
	SonarLeftValid, SonarRightValid bool
	// Which sensors this robot has (their values are zero otherwise).
	HasIMU, HasFSR, HasSonar, HasButtons bool
}

// TeamReport is the ball as this robot's team-ball report (Player 0) at
// time now, given the robot's pose p: the ball on the field, with the pose's
// uncertainty added to the ball's. ok is false when there is nothing to
// report: the ball is lost or not on the field, or the pose is not valid.
// Team communication sends it (with the player number set); perception
// fuses it into the team ball.
func (b *Ball) TeamReport(p *RobotPose, now time.Duration) (r TeamBallReport, ok bool) {
	if !b.Valid || b.Lost || !b.FieldValid || !p.Valid {
		return r, false
	}
	// The ball's covariance turned into the field frame.
	s, c := math.Sincos(float64(p.Pose.Heading))
	a, o, d := b.Cov[0][0], b.Cov[0][1], b.Cov[1][1]
	xx := c*c*a - 2*c*s*o + s*s*d
	xy := c*s*a + (c*c-s*s)*o - c*s*d
	yy := s*s*a + 2*c*s*o + c*c*d
	// The pose's position uncertainty adds to it, and so does its heading
	// uncertainty, in proportion to the ball's distance (spread over both
	// axes).
	r2 := b.Pos.X*b.Pos.X + b.Pos.Y*b.Pos.Y
	h := r2 * p.Cov[2][2] / 2
	return TeamBallReport{
		Pos: b.FieldPos, Vel: b.FieldVel,
		Cov: Cov2{
			{xx + p.Cov[0][0] + h, xy + p.Cov[0][1]},
			{xy + p.Cov[1][0], yy + p.Cov[1][1] + h},
		},
		Age: b.SinceSeen, Received: now, PoseConfidence: p.Confidence,
	}, true
}

// MaxTeamBallReports bounds the teammates' ball reports in one
// TeamBallReports.
const MaxTeamBallReports = 8

// TeamBallReport is one robot's ball, in the team's own field frame.
type TeamBallReport struct {
	// Player is the reporting robot's player number; 0 is this robot.
	Player uint8
	// Pos is the ball's field position, Vel its velocity in m/s.
	Pos, Vel hal.Vec2
	// Cov is the covariance of Pos (zero: the fusion uses its own minimum).
	Cov Cov2
	// Age is how long ago the reporter had last seen the ball when it sent
	// the report.
	Age time.Duration
	// Received is the tick time at which the report arrived.
	Received time.Duration
	// PoseConfidence is the reporter's localisation confidence, 0..1.
	PoseConfidence float64
}

// TeamBallReports is the latest ball report of up to MaxTeamBallReports
// teammates: Reports[:N] are valid.
type TeamBallReports struct {
	N       int
	Reports [MaxTeamBallReports]TeamBallReport
}

// TeamBall is the team's ball: the largest set of mutually consistent
// reports (this robot's own among them), fused.
type TeamBall struct {
	// Valid is true when at least one usable report was fused.
	Valid bool
	// Pos, Vel and Cov are the fused ball on the field.
	Pos, Vel hal.Vec2
	Cov      Cov2
	// Relative is Pos relative to the robot (valid with RelativeValid, i.e.
	// when the robot's pose is valid).
	Relative      hal.Vec2
	RelativeValid bool
	// Count is the number of reports fused; Usable the number that were
	// recent and confident enough to be considered.
	Count, Usable int
	// Contributors has bit p set for each player p fused; bit 0 is this
	// robot.
	Contributors uint32
}
