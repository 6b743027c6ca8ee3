// Package hal is the contract between robotd's modules and the hardware: one
// small interface per capability, the value types those capabilities carry,
// typed units, and the NAO joint table. It does no I/O.
//
// Frames and units are fixed here once, so that every backend converts into
// them and no module ever has to know which backend it runs on:
//   - angles in radians, angular velocities in rad/s, lengths in metres,
//     accelerations in m/s², time as time.Duration;
//   - the body frame is the NAO's: x forward, y left, z up.
package hal

import "math"

// Radians is an angle in radians.
type Radians float64

// Degrees converts the angle to degrees.
func (r Radians) Degrees() float64 { return float64(r) * 180 / math.Pi }

// Deg returns the angle d (in degrees) in radians.
func Deg(d float64) Radians { return Radians(d * math.Pi / 180) }

// RadPerSec is an angular velocity in rad/s.
type RadPerSec float64

// Metres is a length in metres.
type Metres float64

// MetresPerSec is a linear speed in m/s.
type MetresPerSec float64

// MetresPerSec2 is an acceleration in m/s².
type MetresPerSec2 float64

// Vec3 is a vector in the NAO body frame (x forward, y left, z up), in the
// unit its field documents.
type Vec3 struct{ X, Y, Z float64 }

// Vec2 is a point or vector on the ground plane, in metres unless documented
// otherwise.
type Vec2 struct{ X, Y float64 }

// Pose2 is a pose on the ground plane: position in metres, heading in radians
// (counter-clockwise from the x axis).
type Pose2 struct {
	X, Y    Metres
	Heading Radians
}

// Gravity is standard gravity in m/s².
const Gravity MetresPerSec2 = 9.80665
