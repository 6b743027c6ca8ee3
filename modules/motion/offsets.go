package motion

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
)

// MaxJointOffset bounds a joint offset: a calibration larger than this is a
// typo or a broken joint, not a calibration.
const MaxJointOffset hal.Radians = 0.2

// Rules returns the allowed values and the documentation of every
// setting, keyed within the motion section.
func (c *Config) Rules() config.Rules {
	return config.Rules{
		"joint_offsets":                   config.Each(config.Range(-float64(MaxJointOffset), float64(MaxJointOffset))).Doc("rad", "this robot's joint calibration: an offset per joint, by LoLA's joint name"),
		"body":                            config.OneOf("nao-v6", "simspark-nao").Doc("", "the body motion drives (the robot's wiring sets it from the backend)"),
		"stance.hip_height":               config.Range(0, 1).Doc("m", "the NAO v6 stand pose's hip joint height above the soles"),
		"stance.foot_separation":          config.Range(0, 1).Doc("m", "the NAO v6 stand pose's lateral distance between the soles' centres"),
		"stance.torso_offset_x":           config.Range(-1, 1).Doc("m", "how far the NAO v6's torso centre is ahead of the feet's midpoint in the stand pose"),
		"simspark_stance.hip_height":      config.Range(0, 1).Doc("m", "the SimSpark NAO stand pose's hip joint height above the soles"),
		"simspark_stance.foot_separation": config.Range(0, 1).Doc("m", "the SimSpark NAO stand pose's lateral distance between the soles' centres"),
		"simspark_stance.torso_offset_x":  config.Range(-1, 1).Doc("m", "how far the SimSpark NAO's torso centre is ahead of the feet's midpoint in the stand pose"),
		"arms.shoulder_pitch":             config.Range(-math.Pi, math.Pi).Doc("rad", "the arms' shoulder pitch in the stand pose and while walking"),
		"arms.shoulder_roll":              config.Range(-math.Pi, math.Pi).Doc("rad", "the arms' shoulder roll in the stand pose and while walking"),
		"arms.elbow_yaw":                  config.Range(-math.Pi, math.Pi).Doc("rad", "the arms' elbow yaw in the stand pose and while walking"),
		"arms.elbow_roll":                 config.Range(-math.Pi, math.Pi).Doc("rad", "the arms' elbow roll in the stand pose and while walking"),
		"stiffness":                       config.Range(0, 1).Doc("fraction", "the stiffness of a standing robot, and of the arms and head while walking"),
		"max_speed":                       config.Range(0.01, 20).Doc("rad/s", "the largest joint speed while moving into the stand pose"),
		"tolerance":                       config.Range(0, 1).Doc("rad", "how close to the stand pose every joint must be for the stand to be settled"),
		"walk.step_period":                config.Durations(50*time.Millisecond, 5*time.Second).Doc("", "one step's duration"),
		"walk.step_height":                config.Range(0, 0.2).Doc("m", "the swing foot's lift at mid swing"),
		"walk.swing_inward":               config.Range(-0.1, 0.1).Doc("m", "how much closer to the support foot the swing foot is at mid swing than where it lifted off and lands"),
		"walk.double_support":             config.Range(0, 1).Doc("fraction", "the fraction of a step with both feet on the ground (half at its start, half at its end)"),
		"walk.sway":                       config.Range(0, 10).Doc("fraction", "where the zero-moment point is to be at mid step, as a fraction of the way from the walk frame to the support foot's centre (1: right under it)"),
		"walk.sway_lead":                  config.Range(-1, 1).Doc("", "how far, as a fraction of a step, the sway runs ahead of the step (for the commands' delay and the body's lag)"),
		"walk.max_forward":                config.Range(0, 1).Doc("m/s", "the walk's largest forward speed"),
		"walk.max_backward":               config.Range(0, 1).Doc("m/s", "the walk's largest backward speed"),
		"walk.max_left":                   config.Range(0, 1).Doc("m/s", "the walk's largest sideways speed"),
		"walk.max_turn":                   config.Range(0, 10).Doc("rad/s", "the walk's largest turn rate"),
		"walk.acc_forward":                config.Range(0, 100).Doc("m/s²", "the forward acceleration limit, applied once per step"),
		"walk.acc_left":                   config.Range(0, 100).Doc("m/s²", "the sideways acceleration limit, applied once per step"),
		"walk.acc_turn":                   config.Range(0, 100).Doc("rad/s²", "the turn acceleration limit, applied once per step"),
		"walk.stiffness":                  config.Range(0, 1).Doc("fraction", "the legs' stiffness while walking"),
		"walk.gyro.filter":                config.Durations(0, time.Second).Doc("", "the time constant of the gyro's first-order low-pass filter"),
		"walk.gyro.ankle_pitch":           config.Range(-10, 10).Doc("", "the ankle pitch correction per pitch rate (gyro y)"),
		"walk.gyro.hip_pitch":             config.Range(-10, 10).Doc("", "the hip pitch correction per pitch rate (gyro y)"),
		"walk.gyro.ankle_roll":            config.Range(-10, 10).Doc("", "the ankle roll correction per roll rate (gyro x)"),
		"walk.gyro.hip_roll":              config.Range(-10, 10).Doc("", "the hip roll correction per roll rate (gyro x)"),
		"walk.gyro.max":                   config.Range(0, 10).Doc("rad", "the largest correction of any one joint"),
		"walk.gyro.heading_gain":          config.Range(0, 10).Doc("", "the turn rate (rad/s) added per radian the gyro's yaw differs from the step plan's, to undo slips"),
		"walk.gyro.max_heading":           config.Range(0, 10).Doc("rad/s", "the largest turn rate of the heading correction"),
		"walk.target.gain":                config.Range(0, 100).Doc("", "the speed (m/s) asked per metre to the target"),
		"walk.target.turn_gain":           config.Range(0, 100).Doc("", "the turn rate (rad/s) asked per radian of heading error"),
		"walk.target.face_distance":       config.Range(0, 100).Doc("m", "farther from the target than this the robot faces it and walks forwards; nearer it walks sideways as needed and turns to the target's heading"),
		"walk.target.tolerance":           config.Range(0, 10).Doc("m", "how close to the target counts as reached"),
		"walk.target.angle_tolerance":     config.Range(0, math.Pi).Doc("rad", "how close to the target's heading counts as reached"),
		"head.max_speed":                  config.Range(0, 20).Doc("rad/s", "the head joints' largest speed in every mode"),
		"head.scan_amplitude":             config.Range(0, math.Pi).Doc("rad", "the yaw a scan sweeps to on either side (clamped to the joint's limits)"),
		"head.scan_speed":                 config.Range(0, 20).Doc("rad/s", "the yaw speed of a scan (at most head.max_speed)"),
		"head.scan_pitch":                 config.Range(-math.Pi/2, math.Pi/2).Doc("rad", "the pitch held during a scan"),
		"kick.stiffness":                  config.Range(0, 1).Doc("fraction", "the kick keyframes' stiffness before the file sets one"),
		"kick.max_direction":              config.Range(0, math.Pi).Doc("rad", "the largest kick direction asked for: the kicking foot's swing and yaw are turned by it"),
		"kick.left_file":                  config.Text(0, 4096).Doc("", "a keyframe file to use instead of the embedded kick_left.kf (empty: the embedded one)"),
		"kick.right_file":                 config.Text(0, 4096).Doc("", "a keyframe file to use instead of the embedded kick_right.kf (empty: the embedded one)"),
		"get_up.stiffness":                config.Range(0, 1).Doc("fraction", "the get-up keyframes' stiffness before the file sets one"),
		"get_up.fall_angle":               config.Range(0, math.Pi).Doc("rad", "the tilt beyond which motion takes the robot as fallen when perception gives no body state"),
		"get_up.front_file":               config.Text(0, 4096).Doc("", "a keyframe file to use instead of the embedded getup_front.kf (empty: the embedded one)"),
		"get_up.back_file":                config.Text(0, 4096).Doc("", "a keyframe file to use instead of the embedded getup_back.kf (empty: the embedded one)"),
		"get_up.side_file":                config.Text(0, 4096).Doc("", "a keyframe file to use instead of the embedded getup_side.kf, which rolls the robot from its left side onto its front (mirrored from the right side; empty: the embedded one)"),
		"get_up.max_tries":                config.Int(1, 100).Doc("", "how many get-ups in a row may fail (end lying, or upright for less than get_up.stable_time) before motion stops trying, lies relaxed and says it needs help"),
		"get_up.stable_time":              config.Durations(0, 30*time.Second).Doc("", "how long the robot must stay upright after a get-up for it to count as a success"),
	}
}

// Validate checks every setting against Rules, the joint offsets one by
// one (each must name a joint and be within MaxJointOffset, as Rules
// says); errors name the key.
func (c *Config) Validate() error {
	var errs []error
	rules := c.Rules()
	delete(rules, "joint_offsets") // checked below, by joint name
	if err := config.CheckSection("motion", c, rules); err != nil {
		errs = append(errs, err)
	}
	names := make([]string, 0, len(c.JointOffsets))
	for n := range c.JointOffsets {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		v := c.JointOffsets[n]
		if _, ok := hal.JointByName(n); !ok {
			errs = append(errs, fmt.Errorf("motion.joint_offsets.%s: no such joint (names as in LoLA: LKneePitch, ...)", n))
		} else if math.IsNaN(float64(v)) || math.Abs(float64(v)) > float64(MaxJointOffset) {
			errs = append(errs, fmt.Errorf("motion.joint_offsets.%s: %v rad outside ±%v", n, v, MaxJointOffset))
		}
	}
	return errors.Join(errs...)
}

// offsets returns the joint offsets by joint.
func (c *Config) offsets() [hal.NumJoints]hal.Radians {
	var o [hal.NumJoints]hal.Radians
	for n, v := range c.JointOffsets {
		if j, ok := hal.JointByName(n); ok {
			o[j] = v
		}
	}
	return o
}
