// Package visiontest has test helpers for the vision pipeline: an ideal
// pinhole camera that implements vision.Projector, and a drawer of
// synthetic SPL scenes in YUYV for that camera. Tests only; the robot's
// camera matrix comes from kinematics.
package visiontest

import "math"

// Pinhole is an ideal camera without distortion, placed in the robot frame
// (x forward, y left, z up, metres, origin on the ground between the
// feet).
type Pinhole struct {
	Width, Height int
	// F is the focal length, px; Cx, Cy the principal point.
	F, Cx, Cy float64
	// Pos is the optical centre in the robot frame.
	Pos [3]float64
	// R maps camera directions (forward, left, up) to the robot frame.
	R [3][3]float64
}

// NewPinhole returns a camera of the given size and horizontal field of
// view (radians) at pos, turned by yaw (left positive), tilted down by
// pitch and rolled by roll (clockwise in the image positive), radians.
func NewPinhole(w, h int, hfov float64, pos [3]float64, yaw, pitch, roll float64) *Pinhole {
	c := &Pinhole{Width: w, Height: h, Cx: float64(w) / 2, Cy: float64(h) / 2, Pos: pos}
	c.F = float64(w) / 2 / math.Tan(hfov/2)
	sy, cy := math.Sincos(yaw)
	sp, cp := math.Sincos(pitch)
	sr, cr := math.Sincos(roll)
	rz := [3][3]float64{{cy, -sy, 0}, {sy, cy, 0}, {0, 0, 1}}
	ry := [3][3]float64{{cp, 0, sp}, {0, 1, 0}, {-sp, 0, cp}}
	rx := [3][3]float64{{1, 0, 0}, {0, cr, -sr}, {0, sr, cr}}
	c.R = mul(rz, mul(ry, rx))
	return c
}

// NAOv6Top is the NAO v6 top camera (640×480, 56.3° horizontal field of
// view; Aldebaran NAO v6 documentation, "Video camera") of a robot standing
// with its camera height m above the ground, 58.71 mm ahead of the neck,
// tilted down by pitch (the mounting's 1.2° included) and turned by yaw.
func NAOv6Top(height, yaw, pitch float64) *Pinhole {
	sy, cy := math.Sincos(yaw)
	return NewPinhole(640, 480, 56.3*math.Pi/180, [3]float64{0.05871 * cy, 0.05871 * sy, height}, yaw, pitch, 0)
}

func mul(a, b [3][3]float64) (c [3][3]float64) {
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

// Ray is the robot-frame direction of pixel (u, v)'s viewing ray.
func (c *Pinhole) Ray(u, v float64) (dx, dy, dz float64) {
	f, l, up := 1.0, -(u-c.Cx)/c.F, -(v-c.Cy)/c.F
	r := &c.R
	return r[0][0]*f + r[0][1]*l + r[0][2]*up, r[1][0]*f + r[1][1]*l + r[1][2]*up, r[2][0]*f + r[2][1]*l + r[2][2]*up
}

// ImageToPlane intersects pixel (u, v)'s ray with the plane at height z.
func (c *Pinhole) ImageToPlane(u, v, z float64) (x, y float64, ok bool) {
	dx, dy, dz := c.Ray(u, v)
	if z >= c.Pos[2] || dz >= -1e-9 {
		return 0, 0, false
	}
	t := (z - c.Pos[2]) / dz
	return c.Pos[0] + t*dx, c.Pos[1] + t*dy, true
}

// ImageToGround intersects pixel (u, v)'s ray with the ground.
func (c *Pinhole) ImageToGround(u, v float64) (x, y float64, ok bool) {
	return c.ImageToPlane(u, v, 0)
}

// PointToImage projects a robot-frame point.
func (c *Pinhole) PointToImage(x, y, z float64) (u, v float64, ok bool) {
	px, py, pz := x-c.Pos[0], y-c.Pos[1], z-c.Pos[2]
	r := &c.R
	f := r[0][0]*px + r[1][0]*py + r[2][0]*pz
	l := r[0][1]*px + r[1][1]*py + r[2][1]*pz
	up := r[0][2]*px + r[1][2]*py + r[2][2]*pz
	if f <= 1e-6 {
		return 0, 0, false
	}
	return c.Cx - c.F*l/f, c.Cy - c.F*up/f, true
}

// GroundToImage projects a ground point.
func (c *Pinhole) GroundToImage(x, y float64) (u, v float64, ok bool) {
	return c.PointToImage(x, y, 0)
}

// HorizonY is the row of the horizon at column u.
func (c *Pinhole) HorizonY(u float64) float64 {
	r := &c.R
	if math.Abs(r[2][2]) < 1e-9 {
		return math.Inf(-1)
	}
	l := -(u - c.Cx) / c.F
	return c.Cy + c.F*(r[2][0]+r[2][1]*l)/r[2][2]
}
