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
		"joint_offsets":                   config.Each(config.Range(-float64(MaxJointOffset), float64(MaxJointOffset))).Doc("rad", "this robot's joint calibration by joint name (names as in LoLA), at most MaxJointOffset each"),
		"body":                            config.OneOf("nao-v6", "simspark-nao").Doc("", "the body motion drives (the robot's wiring sets it from the backend)"),
		"stance.hip_height":               config.Range(0, 1).Doc("m", "the height of the hip joints above the soles"),
		"stance.foot_separation":          config.Range(0, 1).Doc("m", "the lateral distance between the soles' centres"),
		"stance.torso_offset_x":           config.Range(-1, 1).Doc("m", "how far the torso centre is ahead of the feet's midpoint (moves the centre of mass forward over the feet)"),
		"simspark_stance.hip_height":      config.Range(0, 1).Doc("fraction", "the height of the hip joints above the soles"),
		"simspark_stance.foot_separation": config.Range(0, 1).Doc("fraction", "the lateral distance between the soles' centres"),
		"simspark_stance.torso_offset_x":  config.Range(-1, 1).Doc("m", "how far the torso centre is ahead of the feet's midpoint (moves the centre of mass forward over the feet)"),
		"arms.shoulder_pitch":             config.Range(-math.Pi, math.Pi).Doc("rad", "the arms' shoulder pitch in the stand pose and while walking"),
		"arms.shoulder_roll":              config.Range(-math.Pi, math.Pi).Doc("rad", "the arms' shoulder roll in the stand pose and while walking"),
		"arms.elbow_yaw":                  config.Range(-math.Pi, math.Pi).Doc("rad", "the arms' elbow yaw in the stand pose and while walking"),
		"arms.elbow_roll":                 config.Range(-math.Pi, math.Pi).Doc("rad", "the arms' elbow roll in the stand pose and while walking"),
		"stiffness":                       config.Range(0, 1).Doc("fraction", "the stiffness of a standing robot, and of the arms and head while walking"),
		"max_speed":                       config.Range(0.01, 20).Doc("rad/s", "bounds every joint's speed while moving into the stand pose"),
		"tolerance":                       config.Range(0, 1).Doc("fraction", "how close every joint must be for the stand to be settled"),
		"walk.step_period":                config.Durations(50*time.Millisecond, 5*time.Second).Doc("", "one step's duration"),
		"walk.step_height":                config.Range(0, 0.2).Doc("m", "the swing foot's lift at mid swing"),
		"walk.swing_inward":               config.Range(-0.1, 0.1).Doc("m", "how much closer to the support foot the swing foot is at mid swing than where it lifted off and lands"),
		"walk.double_support":             config.Range(0, 1).Doc("fraction", "the fraction of a step with both feet on the ground (half at its start, half at its end)"),
		"walk.sway":                       config.Range(0, 10).Doc("fraction", "where the zero-moment point is to be at mid step, as a fraction of the way from the walk frame to the support foot's centre (1: right under it)"),
		"walk.sway_lead":                  config.Range(-1, 1).Doc("", "how far, as a fraction of a step, the sway runs ahead of the step: the commands' delay plus the body's lag in responding"),
		"walk.max_forward":                config.Range(0, 1).Doc("m/s", "the walk's largest forward speed"),
		"walk.max_backward":               config.Range(0, 1).Doc("m/s", "the walk's largest backward speed"),
		"walk.max_left":                   config.Range(0, 1).Doc("m/s", "the walk's largest sideways speed"),
		"walk.max_turn":                   config.Range(0, 10).Doc("rad/s", "the walk's largest turn rate"),
		"walk.acc_forward":                config.Range(0, 100).Doc("m/s²", "the forward acceleration limit, applied once per step"),
		"walk.acc_left":                   config.Range(0, 100).Doc("m/s²", "the sideways acceleration limit, applied once per step"),
		"walk.acc_turn":                   config.Range(0, 100).Doc("rad/s²", "the turn acceleration limit, applied once per step"),
		"walk.stiffness":                  config.Range(0, 1).Doc("fraction", "the legs' stiffness while walking"),
		"walk.gyro.filter":                config.Durations(0, time.Second).Doc("", "the time constant of the gyro's first-order low-pass"),
		"walk.gyro.ankle_pitch":           config.Range(-10, 10).Doc("", "the ankle pitch correction per pitch rate (gyro y)"),
		"walk.gyro.hip_pitch":             config.Range(-10, 10).Doc("", "the hip pitch correction per pitch rate (gyro y)"),
		"walk.gyro.ankle_roll":            config.Range(-10, 10).Doc("", "the ankle roll correction per roll rate (gyro x)"),
		"walk.gyro.hip_roll":              config.Range(-10, 10).Doc("", "the hip roll correction per roll rate (gyro x)"),
		"walk.gyro.max":                   config.Range(0, 10).Doc("rad", "bounds each correction"),
		"walk.gyro.heading_gain":          config.Range(0, 10).Doc("", "turns the difference between the yaw the gyro measured and the yaw the step plan made since the walk started (rad) into a turn rate (rad/s) that the next steps add to undo it: feet that slip or twist turn the robot, and this turns it back"),
		"walk.gyro.max_heading":           config.Range(0, 10).Doc("rad/s", "bounds the heading correction's turn rate"),
		"walk.target.gain":                config.Range(0, 100).Doc("", "turns the distance to the target (m) into a speed (m/s)"),
		"walk.target.turn_gain":           config.Range(0, 100).Doc("", "turns the heading error (rad) into a turn rate (rad/s)"),
		"walk.target.face_distance":       config.Range(0, 100).Doc("m", "FaceDistance: farther than this the robot turns towards the target and walks forwards; nearer it walks sideways as needed and turns to the target's heading"),
		"walk.target.tolerance":           config.Range(0, 10).Doc("m", "how close to the target counts as reached"),
		"walk.target.angle_tolerance":     config.Range(0, math.Pi).Doc("rad", "how close to the target's heading counts as reached"),
		"head.max_speed":                  config.Range(0, 20).Doc("rad/s", "bounds the head joints' speed in every mode"),
		"head.scan_amplitude":             config.Range(0, math.Pi).Doc("rad", "the yaw a scan sweeps to on either side (clamped to the joint's limits)"),
		"head.scan_speed":                 config.Range(0, 20).Doc("rad/s", "the yaw speed of a scan (never more than MaxSpeed)"),
		"head.scan_pitch":                 config.Range(-math.Pi/2, math.Pi/2).Doc("rad", "the pitch held during a scan"),
		"kick.stiffness":                  config.Range(0, 1).Doc("fraction", "the kick keyframes' stiffness before the file sets one"),
		"kick.max_direction":              config.Range(0, math.Pi).Doc("rad", "bounds the requested direction: the kicking foot's swing and yaw are turned by it (about the foot's start), the rest of the kick is unchanged"),
		"kick.left_file":                  config.Text(0, 4096).Doc("", "a keyframe file instead of the embedded kick_left.kf (\"\" keeps it)"),
		"kick.right_file":                 config.Text(0, 4096).Doc("", "a keyframe file instead of the embedded kick_right.kf (\"\" keeps it)"),
		"get_up.stiffness":                config.Range(0, 1).Doc("fraction", "the get-up keyframes' stiffness before the file sets one"),
		"get_up.fall_angle":               config.Range(0, math.Pi).Doc("rad", "FallAngle classifies a fall from hal.BodyAngles when there is no perception body state"),
		"get_up.front_file":               config.Text(0, 4096).Doc("", "a keyframe file instead of the embedded getup_front.kf (\"\" keeps it)"),
		"get_up.back_file":                config.Text(0, 4096).Doc("", "a keyframe file instead of the embedded getup_back.kf (\"\" keeps it)"),
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
