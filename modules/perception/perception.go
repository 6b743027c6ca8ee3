// Package perception turns sensor values into robotd's world model:
//
//   - the body state (msg.BodyStateKey: torso angles and the latched fall
//     state, from the body angles and the gyro) and a summary of the other
//     body sensors (msg.BodySensorsKey: fall onset, ground contact from the
//     FSRs, buttons, sonar);
//   - the ball model (msg.BallKey): a Kalman filter of the ball relative to
//     the robot, predicted through the robot's odometry, with outlier
//     rejection, and the ball on the field through the robot's pose;
//   - self-localisation (msg.RobotPoseKey): a particle filter on the SPL
//     field from seen field lines (midpoint and direction, matched to the
//     field line of about that direction nearest across it), L, T and X
//     intersections, the centre circle, penalty marks, goal posts and
//     odometry, every one matched to the field model by kind alone (a
//     post's ID only with LocalisationConfig.PostIDs), with hypotheses
//     injected from pairs of point observations so that it re-localises
//     after being moved or a fall;
//   - the team ball (msg.TeamBallKey): the robot's own ball fused with the
//     teammates' reports (msg.TeamBallReportsKey, optional).
//   - the obstacle model (msg.ObstaclesKey): the robots seen lately
//     (hal.ObjRobot observations of both cameras or a simulator's
//     perceptor), merged by distance, tracked through odometry and dropped
//     after a few seconds unseen (ObstacleConfig).
//
// The SPL field is point-symmetric: without the goal posts' IDs every
// observation fits the mirrored pose as well. The localisation therefore
// resolves the side as SPL teams do (B-Human's and HULKs' code releases):
// it starts from the robot's own half (the SPL start and the return from a
// penalty), tracks a single mode from then on, looks
// near its last estimate first when it has lost it (after a fall, or when
// landmarks keep disagreeing), and searches the whole field only when
// nothing nearby fits; a belief in the opponent half in a SET that
// followed READY (every robot is in its own half then), or one from which
// the robot's own ball lies where the teammates' ball is only from the
// mirrored pose, is mirrored after five frames of such evidence. Where
// posts carry IDs and PostIDs is set (the simulator's detected
// observations), a mirrored belief is also detected from them.
//
// In simulation, the pose and the ball can be taken from the simulator's
// ground truth instead (Config.GroundTruthPose, Config.GroundTruthBall;
// never the default).
//
// Odometry comes from motion's msg.MotionState (read with blackboard.Use:
// last tick's, as motion runs after behaviour, which runs after
// perception), or from an omnidirectional base's integrated odometry.
// Every tick is allocation-free; randomness comes from a generator seeded
// from Config.Seed.
package perception

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Config configures perception.
type Config struct {
	// FallAngle is the torso tilt beyond which the robot counts as fallen.
	FallAngle hal.Radians `json:"fall_angle"`
	// Body configures the rest of fall detection and the body sensors.
	Body BodySettings `json:"body"`
	// Ball configures the ball model.
	Ball BallConfig `json:"ball"`
	// Localisation configures self-localisation.
	Localisation LocalisationConfig `json:"localisation"`
	// TeamBall configures the team-ball fusion.
	TeamBall TeamBallConfig `json:"team_ball"`
	// Obstacles configures the obstacle model.
	Obstacles ObstacleConfig `json:"obstacles"`
	// GroundTruthPose publishes the simulator's true pose instead of the
	// localisation's (sim only; the filter keeps running).
	GroundTruthPose bool `json:"ground_truth_pose"`
	// GroundTruthBall publishes the simulator's true ball instead of the
	// ball model's (sim only).
	GroundTruthBall bool `json:"ground_truth_ball"`
	// BaseOdometry takes odometry from an omnidirectional base's integrated
	// odometry (hal.BaseState) instead of motion's state.
	BaseOdometry bool `json:"base_odometry"`
	// Seed seeds the random generator of the particle filter.
	Seed uint64 `json:"seed"`
}

// BodySettings configures fall detection (with Config.FallAngle) and the
// body-sensor summary.
type BodySettings struct {
	// FallingAngle is the tilt beyond which a gyro rate of FallingRate or
	// more towards that side counts as a fall under way.
	FallingAngle hal.Radians `json:"falling_angle"`
	// FallingRate is that gyro rate.
	FallingRate hal.RadPerSec `json:"falling_rate"`
	// UprightAngle is the tilt below which (on both axes) a fallen robot
	// counts as upright again.
	UprightAngle hal.Radians `json:"upright_angle"`
	// GroundContactKg is the total foot force above which the feet carry
	// the robot; contact is lost below half of it.
	GroundContactKg float64 `json:"ground_contact_kg"`
	// SonarMaxRange is the longest sonar echo reported.
	SonarMaxRange hal.Metres `json:"sonar_max_range"`
	// ChestPressGap is the longest pause between the presses of one
	// chest-button sequence.
	ChestPressGap config.Duration `json:"chest_press_gap"`
}

// BodyConfig is the whole fall and body-sensor configuration, as
// DetectFall takes it.
type BodyConfig struct {
	// FallAngle is Config.FallAngle.
	FallAngle hal.Radians
	BodySettings
}

// BallConfig configures the ball model.
type BallConfig struct {
	// Friction is the rate at which a rolling ball slows, 1/s (v decays as
	// exp(-Friction·t)).
	Friction float64 `json:"friction"`
	// AccelNoise is the process noise, m/s².
	AccelNoise float64 `json:"accel_noise"`
	// DistanceNoise is an observation's standard deviation along the line
	// of sight, as a fraction of its distance, plus MinNoise.
	DistanceNoise float64 `json:"distance_noise"`
	// BearingNoise is an observation's bearing standard deviation.
	BearingNoise hal.Radians `json:"bearing_noise"`
	// MinNoise is added to both standard deviations.
	MinNoise hal.Metres `json:"min_noise"`
	// MaxDistance ignores observations farther away (0: none).
	MaxDistance hal.Metres `json:"max_distance"`
	// Gate is the squared Mahalanobis distance beyond which an observation
	// is rejected.
	Gate float64 `json:"gate"`
	// ReinitAfter is the number of consecutive rejected observations, each
	// within ReinitDistance of the previous one, after which the filter
	// restarts at the latest.
	ReinitAfter    int        `json:"reinit_after"`
	ReinitDistance hal.Metres `json:"reinit_distance"`
	// LostAfter is the time unseen after which the ball is lost.
	LostAfter config.Duration `json:"lost_after"`
}

// LocalisationConfig configures self-localisation.
type LocalisationConfig struct {
	// Particles is the number of particles, 1..MaxParticles.
	Particles int `json:"particles"`
	// InitialOwnHalf starts the robot somewhere in its own half (the SPL
	// start and penalty positions); else anywhere on the field.
	InitialOwnHalf bool `json:"initial_own_half"`
	// PostIDs uses a goal post's ID where the source gives one (the
	// simulator's detected observations do); false treats every post as
	// ambiguous, as on a real field, whose posts look alike. Either way
	// lines, L/T/X intersections, the centre circle and the penalty marks
	// are matched by kind alone.
	PostIDs bool `json:"post_ids"`
	// DistanceNoise, BearingNoise and MinNoise are a landmark observation's
	// standard deviations, as for the ball.
	DistanceNoise float64     `json:"distance_noise"`
	BearingNoise  hal.Radians `json:"bearing_noise"`
	MinNoise      hal.Metres  `json:"min_noise"`
	// MaxLandmarkDistance ignores landmarks farther away (0: none).
	MaxLandmarkDistance hal.Metres `json:"max_landmark_distance"`
	// OutlierLikelihood is the least likelihood of one observation, relative
	// to a perfect match: misdetections cost no more than this.
	OutlierLikelihood float64 `json:"outlier_likelihood"`
	// OdometryTransNoise and OdometryRotNoise are odometry's standard
	// deviation as a fraction of the motion; OdometryDrift is the heading
	// noise per metre walked (rad/m).
	OdometryTransNoise float64 `json:"odometry_trans_noise"`
	OdometryRotNoise   float64 `json:"odometry_rot_noise"`
	OdometryDrift      float64 `json:"odometry_drift"`
	// ResampleThreshold resamples when the effective number of particles
	// falls below this fraction of them.
	ResampleThreshold float64 `json:"resample_threshold"`
	// ResampleJitter and ResampleHeadingJitter spread resampled particles.
	ResampleJitter        hal.Metres  `json:"resample_jitter"`
	ResampleHeadingJitter hal.Radians `json:"resample_heading_jitter"`
	// MaxInjection is the largest fraction of particles replaced by
	// hypotheses from landmarks in one frame.
	MaxInjection float64 `json:"max_injection"`
	// MinCandidateScore is the least per-observation likelihood of such a
	// hypothesis.
	MinCandidateScore float64 `json:"min_candidate_score"`
	// GoodQuality and BadQuality bound the estimate's per-observation
	// likelihood (geometric mean, 1 for a perfect fit): GoodFrames frames
	// with two landmarks or more at or above GoodQuality make the robot
	// localised; BadFrames such frames in a row below BadQuality make it
	// search again (it was moved): near the lost estimate first, then the
	// whole field.
	GoodQuality float64 `json:"good_quality"`
	BadQuality  float64 `json:"bad_quality"`
	GoodFrames  int     `json:"good_frames"`
	BadFrames   int     `json:"bad_frames"`
	// After getting up from a fall, every particle gets AfterFallHeadingNoise
	// and AfterFallPositionNoise, and for AfterFallWindow hypotheses within
	// AfterFallRadius of the estimate (any heading) are injected.
	AfterFallHeadingNoise  hal.Radians     `json:"after_fall_heading_noise"`
	AfterFallPositionNoise hal.Metres      `json:"after_fall_position_noise"`
	AfterFallRadius        hal.Metres      `json:"after_fall_radius"`
	AfterFallWindow        config.Duration `json:"after_fall_window"`
}

// TeamBallConfig configures the team-ball fusion.
type TeamBallConfig struct {
	// MaxAge is the age beyond which a report is left out.
	MaxAge config.Duration `json:"max_age"`
	// MinPoseConfidence is the least pose confidence of a reporter.
	MinPoseConfidence float64 `json:"min_pose_confidence"`
	// MinNoise is added to every report's standard deviation.
	MinNoise hal.Metres `json:"min_noise"`
	// AgeNoise is the growth of a report's standard deviation with its
	// age, m/s.
	AgeNoise float64 `json:"age_noise"`
	// Gate is the squared Mahalanobis distance within which two reports
	// agree.
	Gate float64 `json:"gate"`
	// Friction is the ball's rolling friction for predicting reports, 1/s.
	Friction float64 `json:"friction"`
}

// ballFriction is the default rolling friction: the SimSpark SPL fork's
// ball rolls 1.64 m from 2 m/s (internal/traces/testdata).
const ballFriction = 1.2

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		FallAngle: hal.Deg(50),
		Body: BodySettings{
			FallingAngle: hal.Deg(30), FallingRate: 1.0, UprightAngle: hal.Deg(25),
			GroundContactKg: 1.0, SonarMaxRange: 2.5,
			ChestPressGap: config.Duration(500 * time.Millisecond),
		},
		Ball: BallConfig{
			Friction: ballFriction, AccelNoise: 1.0,
			DistanceNoise: 0.04, BearingNoise: hal.Deg(2), MinNoise: 0.02,
			Gate: 13.8, ReinitAfter: 3, ReinitDistance: 0.5,
			LostAfter: config.Duration(3 * time.Second),
		},
		Localisation: LocalisationConfig{
			Particles: 300, InitialOwnHalf: true, PostIDs: true,
			DistanceNoise: 0.05, BearingNoise: hal.Deg(2.5), MinNoise: 0.05,
			OutlierLikelihood:  0.02,
			OdometryTransNoise: 0.15, OdometryRotNoise: 0.15, OdometryDrift: 0.1,
			ResampleThreshold: 0.5, ResampleJitter: 0.01, ResampleHeadingJitter: 0.01,
			MaxInjection: 0.3, MinCandidateScore: 0.15,
			GoodQuality: 0.3, BadQuality: 0.1, GoodFrames: 5, BadFrames: 10,
			AfterFallHeadingNoise: 0.6, AfterFallPositionNoise: 0.15, AfterFallRadius: 1.0,
			AfterFallWindow: config.Duration(5 * time.Second),
		},
		TeamBall: TeamBallConfig{
			MaxAge: config.Duration(3 * time.Second), MinPoseConfidence: 0.2,
			MinNoise: 0.1, AgeNoise: 0.5, Gate: 9.21, Friction: ballFriction,
		},
		Obstacles: DefaultObstacleConfig(),
	}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the perception section.
func (c *Config) Rules() config.Rules {
	r := config.Rules{
		"fall_angle":                             config.Between(0, math.Pi, true, false).Doc("rad", "the torso tilt beyond which the robot counts as fallen"),
		"body.falling_angle":                     config.Between(0, math.Pi, true, false).Doc("rad", "the tilt beyond which a gyro rate of falling_rate or more towards that side counts as a fall under way"),
		"body.falling_rate":                      config.Between(0, 10, true, false).Doc("rad/s", "the gyro rate towards the side of a tilt beyond falling_angle that counts as a fall under way"),
		"body.upright_angle":                     config.Between(0, math.Pi, true, false).Doc("rad", "the tilt below which (on both axes) a fallen robot counts as upright again"),
		"body.ground_contact_kg":                 config.Between(0, 100, true, false).Doc("kg", "the total foot force above which the feet carry the robot; contact is lost below half of it"),
		"body.sonar_max_range":                   config.Between(0, 10, true, false).Doc("m", "the longest sonar echo reported"),
		"body.chest_press_gap":                   config.Durations(time.Nanosecond, 10*time.Second).Doc("", "the longest pause between the presses of one chest-button sequence"),
		"ball.friction":                          config.Range(0, 100).Doc("1/s", "the rate at which a rolling ball slows (its speed decays as exp(−friction·t))"),
		"ball.accel_noise":                       config.Between(0, 100, true, false).Doc("m/s²", "the ball model's process noise"),
		"ball.distance_noise":                    config.Range(0, 10).Doc("fraction of distance", "an observation's standard deviation along the line of sight, as a fraction of its distance (plus min_noise)"),
		"ball.bearing_noise":                     config.Range(0, math.Pi).Doc("rad", "an observation's standard deviation in bearing"),
		"ball.min_noise":                         config.Between(0, 10, true, false).Doc("m", "added to an observation's standard deviations along and across the line of sight"),
		"ball.max_distance":                      config.Range(0, 100).Doc("m", "ignores ball observations farther away (0: no limit)"),
		"ball.gate":                              config.Between(0, 1000, true, false).Doc("squared Mahalanobis distance", "rejects an observation farther than this from the prediction"),
		"ball.reinit_after":                      config.Int(1, 10_000).Doc("", "how many rejected observations in a row, each within reinit_distance of the previous one, restart the filter at the latest"),
		"ball.reinit_distance":                   config.Between(0, 100, true, false).Doc("m", "the distance within which consecutive rejected observations count towards reinit_after"),
		"ball.lost_after":                        config.Durations(time.Nanosecond, time.Hour).Doc("", "how long the ball may go unseen before it counts as lost"),
		"localisation.particles":                 config.Int(1, MaxParticles).Doc("", "the number of particles"),
		"localisation.initial_own_half":          config.Bool().Doc("", "starts the robot somewhere in its own half (the SPL start and penalty positions); else anywhere on the field"),
		"localisation.post_ids":                  config.Bool().Doc("", "uses a goal post's ID where the source gives one; false treats every post as ambiguous"),
		"localisation.distance_noise":            config.Range(0, 10).Doc("fraction of distance", "a landmark observation's standard deviation along the line of sight, as a fraction of its distance (plus min_noise)"),
		"localisation.bearing_noise":             config.Range(0, math.Pi).Doc("rad", "a landmark observation's standard deviation in bearing"),
		"localisation.min_noise":                 config.Between(0, 10, true, false).Doc("m", "added to a landmark observation's standard deviations along and across the line of sight"),
		"localisation.max_landmark_distance":     config.Range(0, 100).Doc("m", "ignores landmarks farther away (0: no limit)"),
		"localisation.outlier_likelihood":        config.Between(0, 1, true, true).Doc("fraction", "the least likelihood of one observation, relative to a perfect match: misdetections cost no more than this"),
		"localisation.odometry_trans_noise":      config.Range(0, 10).Doc("fraction of motion", "odometry's translation standard deviation, as a fraction of the distance moved"),
		"localisation.odometry_rot_noise":        config.Range(0, 10).Doc("fraction of motion", "odometry's rotation standard deviation, as a fraction of the angle turned"),
		"localisation.odometry_drift":            config.Range(0, 10).Doc("rad/m", "the heading standard deviation added per metre walked"),
		"localisation.resample_threshold":        config.Between(0, 1, true, false).Doc("fraction", "resamples when the effective number of particles falls below this fraction of them"),
		"localisation.resample_jitter":           config.Range(0, 10).Doc("m", "the position noise given to resampled particles"),
		"localisation.resample_heading_jitter":   config.Range(0, math.Pi).Doc("rad", "the heading noise given to resampled particles"),
		"localisation.max_injection":             config.Range(0, 1).Doc("fraction", "the largest fraction of particles replaced by hypotheses from landmarks in one frame"),
		"localisation.min_candidate_score":       config.Between(0, 1, false, true).Doc("fraction", "the least per-observation likelihood of a hypothesis from landmarks for it to be injected"),
		"localisation.good_quality":              config.Between(0, 1, true, true).Doc("fraction", "the per-observation likelihood (geometric mean; 1: a perfect fit) at or above which a frame is good"),
		"localisation.bad_quality":               config.Between(0, 1, true, true).Doc("fraction", "the per-observation likelihood below which a frame is bad"),
		"localisation.good_frames":               config.Int(1, 10_000).Doc("", "how many good frames with two landmarks or more make the robot localised"),
		"localisation.bad_frames":                config.Int(1, 10_000).Doc("", "how many bad frames with two landmarks or more in a row make the robot search again, near the lost estimate first"),
		"localisation.after_fall_heading_noise":  config.Range(0, math.Pi).Doc("rad", "the heading noise every particle gets when the robot has got up from a fall"),
		"localisation.after_fall_position_noise": config.Range(0, 10).Doc("m", "the position noise every particle gets when the robot has got up from a fall"),
		"localisation.after_fall_radius":         config.Between(0, 100, true, false).Doc("m", "how far from the estimate hypotheses (of any heading) are injected after a fall"),
		"localisation.after_fall_window":         config.Durations(0, time.Hour).Doc("", "how long after getting up from a fall hypotheses near the estimate are injected"),
		"team_ball.max_age":                      config.Durations(time.Nanosecond, time.Hour).Doc("", "leaves out a teammate's ball report older than this"),
		"team_ball.min_pose_confidence":          config.Range(0, 1).Doc("fraction", "the least pose confidence a teammate needs for its ball report to count"),
		"team_ball.min_noise":                    config.Between(0, 10, true, false).Doc("m", "added to every ball report's standard deviation"),
		"team_ball.age_noise":                    config.Range(0, 100).Doc("m/s", "how fast a ball report's standard deviation grows with its age"),
		"team_ball.gate":                         config.Between(0, 1000, true, false).Doc("squared Mahalanobis distance", "two ball reports closer than this agree"),
		"team_ball.friction":                     config.Range(0, 100).Doc("1/s", "the rate at which a reported rolling ball is taken to slow"),
		"ground_truth_pose":                      config.Bool().Doc("", "publishes the simulator's true pose instead of the localisation's (sim only; the filter keeps running)"),
		"ground_truth_ball":                      config.Bool().Doc("", "publishes the simulator's true ball instead of the ball model's (sim only)"),
		"base_odometry":                          config.Bool().Doc("", "takes odometry from an omnidirectional base's own odometry instead of motion's"),
		"seed":                                   config.Uint().Doc("", "seeds the particle filter's random generator"),
	}
	for k, v := range obstacleRules() {
		r[k] = v
	}
	return r
}

// Validate checks the configuration: every setting against Rules, then
// upright_angle against the fall angles and bad_quality against
// good_quality. Wire calls it.
func (c *Config) Validate() error {
	if err := config.CheckSection("perception", c, c.Rules()); err != nil {
		return fmt.Errorf("perception: config: %w", err)
	}
	if c.Body.UprightAngle > min(c.FallAngle, c.Body.FallingAngle) {
		return fmt.Errorf("perception: config: body.upright_angle %v is above fall_angle or body.falling_angle", c.Body.UprightAngle)
	}
	if l := &c.Localisation; l.BadQuality >= l.GoodQuality {
		return fmt.Errorf("perception: config: localisation.bad_quality %v is not below good_quality %v", l.BadQuality, l.GoodQuality)
	}
	return nil
}

// maxDt bounds the time step of one tick (after an outage).
const maxDt = 0.5

// Module is the perception module.
type Module struct {
	cfg Config
	pcg *rand.PCG // the source of the localiser's random draws
	// returns counts the returns from a penalty (they reseed pcg).
	returns uint64
	body    bodyTracker
	ball    ballFilter
	loc     *localiser
	obst    obstacleTracker

	// Inputs.
	angles  *blackboard.Reader[hal.BodyAngles]
	imu     *blackboard.Reader[hal.IMU]
	fsr     *blackboard.Reader[hal.FSR]
	sonar   *blackboard.Reader[hal.Sonar]
	buttons *blackboard.Reader[hal.Buttons]
	vision  *blackboard.Reader[hal.Vision]
	game    *blackboard.Reader[hal.GameState]
	gc      *blackboard.Reader[msg.GameControl]
	truth   *blackboard.Reader[hal.GroundTruth]
	motion  *blackboard.Reader[msg.MotionState]
	base    *blackboard.Reader[hal.BaseState]
	team    *blackboard.Reader[msg.TeamBallReports]

	// Outputs.
	bodyW     *blackboard.Writer[msg.BodyState]
	sensorsW  *blackboard.Writer[msg.BodySensors]
	ballW     *blackboard.Writer[msg.Ball]
	poseW     *blackboard.Writer[msg.RobotPose]
	teamBallW *blackboard.Writer[msg.TeamBall]
	obstW     *blackboard.Writer[msg.Obstacles]

	// State between ticks.
	started   bool
	start     time.Duration
	last      time.Duration
	odoTick   uint64
	baseOdo   hal.Pose2
	baseValid bool
	fallen    bool
	penalised bool
	// state is the last game state; setFromReady is true in a SET that
	// followed READY (every robot in its own half, by the rules).
	state        msg.GameStateKind
	setFromReady bool
	truthBall    hal.Vec2
	truthTime    time.Duration
	truthOK      bool

	// Scratch, kept here so that Tick does not allocate.
	in      bodyInputs
	vis     hal.Vision
	gs      hal.GameState
	gcv     msg.GameControl
	gt      hal.GroundTruth
	ms      msg.MotionState
	bs      hal.BaseState
	reports msg.TeamBallReports
	obs     msg.Obstacles
}

// New returns a perception module.
func New(cfg Config) *Module {
	pcg := rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)
	rng := rand.New(pcg)
	m := &Module{cfg: cfg, pcg: pcg}
	m.body.cfg = BodyConfig{FallAngle: cfg.FallAngle, BodySettings: cfg.Body}
	m.ball.cfg = cfg.Ball
	m.ball.odoTrans, m.ball.odoRot = cfg.Localisation.OdometryTransNoise, cfg.Localisation.OdometryRotNoise
	m.loc = newLocaliser(cfg.Localisation, field.SPL(), rng)
	m.obst.cfg = cfg.Obstacles
	return m
}

// Name implements runner.Module.
func (m *Module) Name() string { return "perception" }

// Wire implements runner.Module. It fails on an invalid configuration
// (see Config.Validate). Every sensor is optional (a robot without
// a camera has no ball and no localisation); odometry is motion's state,
// used without ordering (motion runs after perception), or the base's.
func (m *Module) Wire(b *blackboard.Board) error {
	if err := m.cfg.Validate(); err != nil {
		return err
	}
	name := m.Name()
	var err error
	optional(b, name, msg.BodyAnglesKey, &m.angles, &err)
	optional(b, name, msg.IMUKey, &m.imu, &err)
	optional(b, name, msg.FSRKey, &m.fsr, &err)
	optional(b, name, msg.SonarKey, &m.sonar, &err)
	optional(b, name, msg.ButtonsKey, &m.buttons, &err)
	optional(b, name, msg.VisionKey, &m.vision, &err)
	optional(b, name, msg.GameStateKey, &m.game, &err)
	optional(b, name, msg.GameControlKey, &m.gc, &err)
	optional(b, name, msg.TeamBallReportsKey, &m.team, &err)
	if m.cfg.GroundTruthPose || m.cfg.GroundTruthBall {
		optional(b, name, msg.GroundTruthKey, &m.truth, &err)
	}
	if m.cfg.BaseOdometry {
		optional(b, name, msg.BaseKey, &m.base, &err)
	} else if err == nil {
		m.motion, err = blackboard.Use(b, name, msg.MotionStateKey)
	}
	if err != nil {
		return err
	}
	if m.bodyW, err = blackboard.Write(b, name, msg.BodyStateKey); err != nil {
		return err
	}
	if m.sensorsW, err = blackboard.Write(b, name, msg.BodySensorsKey); err != nil {
		return err
	}
	if m.ballW, err = blackboard.Write(b, name, msg.BallKey); err != nil {
		return err
	}
	if m.poseW, err = blackboard.Write(b, name, msg.RobotPoseKey); err != nil {
		return err
	}
	if m.teamBallW, err = blackboard.Write(b, name, msg.TeamBallKey); err != nil {
		return err
	}
	m.obstW, err = blackboard.Write(b, name, msg.ObstaclesKey)
	return err
}

// optional registers an optional read of k into dst unless *err is set.
func optional[T any](b *blackboard.Board, name string, k blackboard.Key[T], dst **blackboard.Reader[T], err *error) {
	if *err != nil {
		return
	}
	*dst, *err = blackboard.ReadOptional(b, name, k)
}

// Tick implements runner.Module.
func (m *Module) Tick(t hal.Tick) error {
	if !m.started {
		m.started, m.start, m.last = true, t.Time, t.Time
	}
	dt := min(max((t.Time-m.last).Seconds(), 0), maxDt)
	m.last = t.Time

	// Body.
	in := &m.in
	in.hasAngles = m.angles != nil && m.angles.Load(&in.angles).Valid()
	in.hasIMU = m.imu != nil && m.imu.Load(&in.imu).Valid()
	in.hasFSR = m.fsr != nil && m.fsr.Load(&in.fsr).Valid()
	in.hasSonar = m.sonar != nil && m.sonar.Load(&in.sonar).Valid()
	in.hasBtns = m.buttons != nil && m.buttons.Load(&in.buttons).Valid()
	bs, sensors := m.body.update(in, t.Time, t.Connected)
	m.bodyW.Set(bs)
	m.sensorsW.Set(sensors)
	fallen := bs.Fall != msg.Upright

	// Game state, as the GameController says (else the simulator's play
	// modes). A penalised robot is off the field, and one coming back from
	// a penalty has been carried to its own half (SPL rules, "Penalties"):
	// while penalised it takes no landmarks, no ball and no obstacles, and
	// it forgets the ball and the obstacles it knew when the penalty
	// begins and when it ends, as they are relative to where it stood.
	gcOK := m.gc != nil && m.gc.Load(&m.gcv).Valid()
	hsOK := m.game != nil && m.game.Load(&m.gs).Valid()
	game := msg.ResolveGame(&m.gcv, gcOK, &m.gs, hsOK)
	gsValid := game.Source != msg.GameSourceNone
	penalised := gsValid && game.Penalised
	if gsValid {
		switch {
		case game.State == msg.StateSet && m.state == msg.StateReady:
			m.setFromReady = true
		case game.State != msg.StateSet:
			m.setFromReady = false
		}
		m.state = game.State
	}
	if m.penalised != penalised {
		m.ball.forget()
		m.obst.forget()
	}
	if m.penalised && !penalised {
		// What the robot draws from here on depends on its seed and
		// what it perceives after the penalty, not on how long it stood
		// before it (a run repeats on another simulator whose robots
		// joined in a different number of ticks).
		m.returns++
		m.pcg.Seed(m.cfg.Seed, m.cfg.Seed^0x9e3779b97f4a7c15^m.returns*0xbf58476d1ce4e5b9)
		m.loc.returnFromPenalty()
	}
	m.penalised = penalised

	// Odometry, world model.
	odo := m.odometry()
	observed := false
	switch {
	case fallen:
		// Odometry and vision are unreliable while falling and lying.
		m.ball.predict(dt, hal.Pose2{})
		m.obst.predict(hal.Pose2{})
	case m.fallen:
		m.loc.spread(t.Time)
		fallthrough
	default:
		if !penalised {
			m.loc.predict(odo)
		}
		m.ball.predict(dt, odo)
		m.obst.predict(odo)
		if t.Connected && m.vision != nil && m.vision.Load(&m.vis).Fresh && m.vis.Fresh {
			if !penalised {
				observed = m.loc.observe(&m.vis, t.Time)
				m.ball.update(&m.vis, t.Time)
				m.obst.update(&m.vis, t.Time)
			}
		}
	}
	m.fallen = fallen
	if !observed {
		m.loc.estimate(false)
	}

	pose := m.loc.pose(t.Time)
	ball := m.ball.state(t.Time, m.start)
	m.groundTruth(t.Time, dt, &pose, &ball)
	if pose.Valid && ball.Valid {
		ball.FieldValid = true
		ball.FieldPos = pose.Pose.Global(ball.Pos)
		ball.FieldVel = ball.Vel.Rotate(pose.Pose.Heading)
	}
	m.poseW.Set(pose)
	m.ballW.Set(ball)
	m.obst.age(t.Time)
	m.obst.publish(t.Time, &m.obs)
	m.obstW.Set(m.obs)

	// Team ball.
	own, hasOwn := ball.TeamReport(&pose, t.Time)
	var reports *msg.TeamBallReports
	if m.team != nil && m.team.Load(&m.reports).Valid() {
		reports = &m.reports
	}
	if observed && !penalised {
		m.resolveSymmetry(gsValid, &ball, reports, t.Time)
	}
	tb := FuseTeamBall(own, hasOwn, reports, t.Time, m.cfg.TeamBall)
	if tb.Valid && pose.Valid {
		tb.Relative, tb.RelativeValid = pose.Pose.Local(tb.Pos), true
	}
	m.teamBallW.Set(tb)
	return nil
}

// Symmetry evidence (the SPL teams' way: B-Human, HULKs): the field's
// lines fit the pose mirrored through the centre spot as well as the
// pose itself, so the side comes from what the field cannot tell.
const (
	// teamBallFar and teamBallNear: the own ball, placed on the field
	// through the estimate, lies farther than teamBallFar from the
	// teammates' ball while through the mirrored estimate it lies within
	// teamBallNear.
	teamBallFar, teamBallNear = 1.0, 0.5
	// setHalfMargin is how far beyond the halfway line an estimate in a
	// SET after READY may lie (robots are in their own half then).
	setHalfMargin = 0.5
)

// resolveSymmetry collects evidence that the estimate is the mirror image
// of the truth: in a SET that followed READY the estimate is in the
// opponent half, or the own ball, seen now, is where the teammates' ball
// is only from the mirrored pose. Evidence in mirrorAfter vision frames in
// a row mirrors the belief.
func (m *Module) resolveSymmetry(gsValid bool, ball *msg.Ball, reports *msg.TeamBallReports, now time.Duration) {
	l := m.loc
	if !l.valid {
		return
	}
	x, y := float64(l.est.X), float64(l.est.Y)
	evidence, against := false, false
	if gsValid && m.setFromReady && l.localised {
		evidence = x > setHalfMargin
		against = x < -setHalfMargin
	}
	if ball.Seen && reports != nil && l.localised {
		others := FuseTeamBall(msg.TeamBallReport{}, false, reports, now, m.cfg.TeamBall)
		if others.Valid {
			s, c := math.Sincos(float64(l.est.Heading))
			bx, by := x+c*ball.Pos.X-s*ball.Pos.Y, y+s*ball.Pos.X+c*ball.Pos.Y
			d := hal.Vec2{X: bx, Y: by}.Dist(others.Pos)
			dm := hal.Vec2{X: -bx, Y: -by}.Dist(others.Pos)
			switch {
			case d > teamBallFar && dm < teamBallNear:
				evidence = true
			case d < teamBallNear:
				against = true
			}
		}
	}
	l.symmetryEvidence(evidence && !against)
}

// odometry returns the robot's motion since the odometry was last taken, in
// the robot frame of then.
func (m *Module) odometry() hal.Pose2 {
	if m.cfg.BaseOdometry {
		if m.base == nil || !m.base.Load(&m.bs).Valid() {
			return hal.Pose2{}
		}
		cur := m.bs.Odometry
		prev, ok := m.baseOdo, m.baseValid
		m.baseOdo, m.baseValid = cur, true
		if !ok {
			return hal.Pose2{}
		}
		return prev.Relative(cur)
	}
	meta := m.motion.Load(&m.ms)
	if !meta.Valid() || meta.Tick == m.odoTick {
		return hal.Pose2{}
	}
	m.odoTick = meta.Tick
	return m.ms.Odometry
}

// groundTruth replaces the pose and ball by the simulator's truth where so
// configured and available.
func (m *Module) groundTruth(now time.Duration, dt float64, pose *msg.RobotPose, ball *msg.Ball) {
	if m.truth == nil || !m.truth.Load(&m.gt).Valid() || !m.gt.Valid {
		m.truthOK = false
		return
	}
	if m.cfg.GroundTruthPose {
		*pose = msg.RobotPose{Valid: true, Pose: m.gt.Pose, Confidence: 1, Resets: pose.Resets,
			SinceLandmark: pose.SinceLandmark, Source: msg.SourceGroundTruth}
	}
	if !m.cfg.GroundTruthBall {
		return
	}
	if !m.gt.BallValid {
		m.truthOK = false
		*ball = msg.Ball{Lost: true, SinceSeen: now - m.start, Source: msg.SourceGroundTruth}
		return
	}
	var vel hal.Vec2
	if m.truthOK && dt > 0 && now > m.truthTime {
		h := (now - m.truthTime).Seconds()
		vel = hal.Vec2{X: (m.gt.Ball.X - m.truthBall.X) / h, Y: (m.gt.Ball.Y - m.truthBall.Y) / h}
	}
	m.truthBall, m.truthTime, m.truthOK = m.gt.Ball, now, true
	*ball = msg.Ball{
		Valid: true, Seen: true, Source: msg.SourceGroundTruth,
		Pos: m.gt.Pose.Local(m.gt.Ball), Vel: vel.Rotate(-m.gt.Pose.Heading),
	}
}
