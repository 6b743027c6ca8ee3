// Package render draws the camera images of a NAO v6 in the embedded
// simulator: YUYV (4:2:2) frames of the true scene, the SPL field with its
// lines, the goals, the SPL black-and-white ball and other robots, seen
// from the top or bottom camera of a robot's head.
//
// A frame is rendered by casting one ray per pixel at the ground plane (the
// carpet, its lines, the floor beyond it, the wall above the horizon), then
// drawing the objects (ball, goal posts and bars, robots) inside their
// projected bounding boxes with a depth test. Lighting (brightness, colour
// temperature), sensor noise and motion blur from the head's rotation are
// options; every random draw comes from a generator seeded by
// Options.Seed and the frame's sequence number, so the same inputs give
// the same bytes. A Renderer owns its buffers: rendering does not allocate.
//
// Conventions: world frame x towards the opponent (right-hand) goal, y to
// the left, z up, metres, origin at the centre spot. The camera frame is
// the NAO's: x along the optical axis, y to the left, z up. Image pixels
// run u to the right and v down; the image is upright (the top camera's
// sensor is mounted upside down on the robot; its flip is done by the
// sensor, so the frames a robot receives are upright too).
package render

import "math"

// Vec3 is a point or direction, metres.
type Vec3 [3]float64

// Mat3 is a rotation, row-major: m[3*r+c]. A pose's Rot maps camera
// coordinates into the world (its columns are the camera's axes).
type Mat3 [9]float64

// Identity is the identity rotation.
var Identity = Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}

func (a Vec3) add(b Vec3) Vec3      { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a Vec3) sub(b Vec3) Vec3      { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a Vec3) scale(s float64) Vec3 { return Vec3{a[0] * s, a[1] * s, a[2] * s} }
func (a Vec3) dot(b Vec3) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Apply returns m·v.
func (m *Mat3) Apply(v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

// ApplyT returns mᵀ·v (the inverse rotation).
func (m *Mat3) ApplyT(v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[3]*v[1] + m[6]*v[2],
		m[1]*v[0] + m[4]*v[1] + m[7]*v[2],
		m[2]*v[0] + m[5]*v[1] + m[8]*v[2],
	}
}

// Mul returns m·n.
func (m *Mat3) Mul(n *Mat3) Mat3 {
	var r Mat3
	for i := range 3 {
		for j := range 3 {
			r[3*i+j] = m[3*i]*n[j] + m[3*i+1]*n[3+j] + m[3*i+2]*n[6+j]
		}
	}
	return r
}

// RotZ is a rotation by a about z (yaw, counter-clockwise seen from above).
func RotZ(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{c, -s, 0, s, c, 0, 0, 0, 1}
}

// RotY is a rotation by a about y; in the NAO's frames a positive angle
// tilts the x axis down (HeadPitch's sign).
func RotY(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{c, 0, s, 0, 1, 0, -s, 0, c}
}

// RotX is a rotation by a about x (roll).
func RotX(a float64) Mat3 {
	s, c := math.Sincos(a)
	return Mat3{1, 0, 0, 0, c, -s, 0, s, c}
}

// CameraID names one of the NAO's two cameras.
type CameraID uint8

const (
	// Top is the forehead camera.
	Top CameraID = iota
	// Bottom is the mouth camera.
	Bottom
)

func (c CameraID) String() string {
	if c == Bottom {
		return "bottom"
	}
	return "top"
}

// Mount is where a camera sits in the head: its position relative to the
// HeadPitch joint in the head frame (x forward, y left, z up) and its tilt
// down about the head's y axis.
type Mount struct {
	Pos  Vec3
	Tilt float64
}

// NAOMount returns the NAO v6 camera mounting (Aldebaran's NAO v6 video
// camera documentation, "Position"): top (58.71, 0, 63.64) mm tilted 1.2°
// down, bottom (50.71, 0, 17.74) mm tilted 39.7° down.
func NAOMount(c CameraID) Mount {
	if c == Bottom {
		return Mount{Pos: Vec3{0.05071, 0, 0.01774}, Tilt: 39.7 * math.Pi / 180}
	}
	return Mount{Pos: Vec3{0.05871, 0, 0.06364}, Tilt: 1.2 * math.Pi / 180}
}

// Intrinsics is a pinhole camera: image size and field of view.
type Intrinsics struct {
	Width, Height int
	// FOVX and FOVY are the full horizontal and vertical fields of view,
	// radians.
	FOVX, FOVY float64
}

// NAO v6 image sizes and field of view (OV5640 behind the NAO's lens:
// 56.3° × 43.7°, Aldebaran's NAO v6 video camera documentation).
const (
	NAOFOVX = 56.3 * math.Pi / 180
	NAOFOVY = 43.7 * math.Pi / 180
)

// NAOIntrinsics returns the NAO v6 camera at w × h (640 × 480 for the top
// camera; 320 × 240 or 640 × 480 for the bottom one).
func NAOIntrinsics(w, h int) Intrinsics {
	return Intrinsics{Width: w, Height: h, FOVX: NAOFOVX, FOVY: NAOFOVY}
}

// focal returns the focal lengths in pixels and the principal point.
func (in *Intrinsics) focal() (fx, fy, cx, cy float64) {
	fx = float64(in.Width) / 2 / math.Tan(in.FOVX/2)
	fy = float64(in.Height) / 2 / math.Tan(in.FOVY/2)
	return fx, fy, float64(in.Width) / 2, float64(in.Height) / 2
}

// Pose is a camera's position and orientation in the world.
type Pose struct {
	Pos Vec3
	// Rot maps camera coordinates (x optical axis, y left, z up) into the
	// world.
	Rot Mat3
}

// HeadCamera returns the pose of camera c of a head whose HeadPitch joint
// is at neck with orientation head (head frame to world, NAO axes: x
// forward, y left, z up).
func HeadCamera(neck Vec3, head Mat3, c CameraID) Pose {
	m := NAOMount(c)
	tilt := RotY(m.Tilt)
	return Pose{Pos: neck.add(head.Apply(m.Pos)), Rot: head.Mul(&tilt)}
}

// HeadOrientation returns the head's orientation for a robot standing
// upright with the given heading and head yaw and pitch (NAO joint signs:
// yaw left positive, pitch down positive).
func HeadOrientation(heading, yaw, pitch float64) Mat3 {
	z := RotZ(heading + yaw)
	y := RotY(pitch)
	return z.Mul(&y)
}

// Project returns the pixel (u, v) of the world point p seen by a camera
// at pose with intrinsics in, and whether p is in front of the camera.
func Project(pose *Pose, in *Intrinsics, p Vec3) (u, v float64, ok bool) {
	c := pose.Rot.ApplyT(p.sub(pose.Pos))
	if c[0] <= 1e-6 {
		return 0, 0, false
	}
	fx, fy, cx, cy := in.focal()
	return cx - fx*c[1]/c[0], cy - fy*c[2]/c[0], true
}

// Ray returns the world direction (not normalised; its component along
// the optical axis is 1) through pixel (u, v).
func Ray(pose *Pose, in *Intrinsics, u, v float64) Vec3 {
	fx, fy, cx, cy := in.focal()
	return pose.Rot.Apply(Vec3{1, (cx - u) / fx, (cy - v) / fy})
}
