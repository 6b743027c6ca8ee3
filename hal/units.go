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

import (
	"math"

	"github.com/robotd/robotd/hal/geom"
)

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
// unit its field documents: package geom's vector, with its arithmetic.
type Vec3 = geom.Vec3

// Vec2 is a point or vector on the ground plane, in metres unless documented
// otherwise.
//
// Its methods are plain component arithmetic in a fixed order of
// operations, so that results are reproducible bit for bit.
type Vec2 struct{ X, Y float64 }

// Add returns v+w.
func (v Vec2) Add(w Vec2) Vec2 { return Vec2{X: v.X + w.X, Y: v.Y + w.Y} }

// Sub returns v-w.
func (v Vec2) Sub(w Vec2) Vec2 { return Vec2{X: v.X - w.X, Y: v.Y - w.Y} }

// Scale returns v·k.
func (v Vec2) Scale(k float64) Vec2 { return Vec2{X: v.X * k, Y: v.Y * k} }

// Dot returns v·w, v.X*w.X + v.Y*w.Y.
func (v Vec2) Dot(w Vec2) float64 { return v.X*w.X + v.Y*w.Y }

// Cross returns the z component of v×w, v.X*w.Y - v.Y*w.X: positive when
// w lies counter-clockwise of v.
func (v Vec2) Cross(w Vec2) float64 { return v.X*w.Y - v.Y*w.X }

// Len returns |v| as math.Hypot computes it.
func (v Vec2) Len() float64 { return math.Hypot(v.X, v.Y) }

// Dist returns |v-w| as math.Hypot computes it.
func (v Vec2) Dist(w Vec2) float64 { return math.Hypot(v.X-w.X, v.Y-w.Y) }

// Angle returns v's direction, counter-clockwise from the x axis, in
// [-π, π] (math.Atan2; 0 for the zero vector).
func (v Vec2) Angle() float64 { return math.Atan2(v.Y, v.X) }

// Perp returns v turned counter-clockwise by 90°.
func (v Vec2) Perp() Vec2 { return Vec2{X: -v.Y, Y: v.X} }

// Rotate returns v turned counter-clockwise by a.
func (v Vec2) Rotate(a Radians) Vec2 { return v.RotateSC(math.Sincos(float64(a))) }

// RotateSC returns v turned counter-clockwise by the angle whose sine is s
// and cosine c (math.Sincos), for turning several vectors by one angle.
func (v Vec2) RotateSC(s, c float64) Vec2 { return Vec2{X: c*v.X - s*v.Y, Y: s*v.X + c*v.Y} }

// Pose2 is a pose on the ground plane: position in metres, heading in radians
// (counter-clockwise from the x axis).
type Pose2 struct {
	X, Y    Metres
	Heading Radians
}

// Wrap returns the angle in (-π, π] (geom.WrapAngle); ±Inf give 0 and NaN
// stays NaN.
func (r Radians) Wrap() Radians {
	if math.IsInf(float64(r), 0) {
		return 0
	}
	return Radians(geom.WrapAngle(float64(r)))
}

// Pos returns the pose's position.
func (p Pose2) Pos() Vec2 { return Vec2{X: float64(p.X), Y: float64(p.Y)} }

// Pose2Of returns the ground-plane pose p (metres, radians) as a Pose2.
func Pose2Of(p geom.Pose2) Pose2 {
	return Pose2{X: Metres(p.X), Y: Metres(p.Y), Heading: Radians(p.H)}
}

// Geom returns the pose as geom's (metres and radians as float64).
func (p Pose2) Geom() geom.Pose2 {
	return geom.Pose2{X: float64(p.X), Y: float64(p.Y), H: float64(p.Heading)}
}

// Compose returns the pose b, given in p's frame, in the frame p is given
// in (p ⊕ b, geom.Pose2.Mul): where a robot at p ends up after moving by b.
func (p Pose2) Compose(b Pose2) Pose2 {
	m := p.Geom().Mul(b.Geom())
	return Pose2{X: Metres(m.X), Y: Metres(m.Y), Heading: (p.Heading + b.Heading).Wrap()}
}

// Relative returns the pose b in p's frame (p⁻¹ ⊕ b, geom.Pose2.Rel): how
// a robot moved from p to b, or where b is as seen from p.
func (p Pose2) Relative(b Pose2) Pose2 {
	r := p.Geom().Rel(b.Geom())
	return Pose2{X: Metres(r.X), Y: Metres(r.Y), Heading: (b.Heading - p.Heading).Wrap()}
}

// Global returns the point v, given in p's frame, in the frame p is given
// in (a ball seen by a robot at p, on the field).
func (p Pose2) Global(v Vec2) Vec2 {
	x, y := p.Geom().Apply(v.X, v.Y)
	return Vec2{X: x, Y: y}
}

// Local returns the point v, given in the frame p is given in, in p's
// frame (a field point as a robot at p sees it).
func (p Pose2) Local(v Vec2) Vec2 {
	x, y := p.Geom().ApplyInv(v.X, v.Y)
	return Vec2{X: x, Y: y}
}

// Gravity is standard gravity in m/s².
const Gravity MetresPerSec2 = 9.80665
