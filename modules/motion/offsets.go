package motion

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/robotd/robotd/hal"
)

// MaxJointOffset bounds a joint offset: a calibration larger than this is a
// typo or a broken joint, not a calibration.
const MaxJointOffset hal.Radians = 0.2

// Validate checks the configuration's per-robot parts; errors name the key.
func (c *Config) Validate() error {
	var errs []error
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
