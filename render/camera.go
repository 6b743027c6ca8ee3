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

import (
	"math"

	"github.com/robotd/robotd/hal/geom"
)

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
	Pos  geom.Vec3
	Tilt float64
}

// NAOMount returns the NAO v6 camera mounting (Aldebaran's NAO v6 video
// camera documentation, "Position"): top (58.71, 0, 63.64) mm tilted 1.2°
// down, bottom (50.71, 0, 17.74) mm tilted 39.7° down.
func NAOMount(c CameraID) Mount {
	if c == Bottom {
		return Mount{Pos: geom.Vec3{X: 0.05071, Y: 0, Z: 0.01774}, Tilt: 39.7 * math.Pi / 180}
	}
	return Mount{Pos: geom.Vec3{X: 0.05871, Y: 0, Z: 0.06364}, Tilt: 1.2 * math.Pi / 180}
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

// HeadCamera returns the pose of camera c of a head whose HeadPitch joint
// is at neck with orientation head (head frame to world, NAO axes: x
// forward, y left, z up).
func HeadCamera(neck geom.Vec3, head geom.Mat3, c CameraID) geom.Pose3 {
	m := NAOMount(c)
	tilt := geom.RotY(m.Tilt)
	return geom.Pose3{P: neck.Add(head.Apply(m.Pos)), R: head.Mul(tilt)}
}

// HeadOrientation returns the head's orientation for a robot standing
// upright with the given heading and head yaw and pitch (NAO joint signs:
// yaw left positive, pitch down positive).
func HeadOrientation(heading, yaw, pitch float64) geom.Mat3 {
	z := geom.RotZ(heading + yaw)
	y := geom.RotY(pitch)
	return z.Mul(y)
}

// Project returns the pixel (u, v) of the world point p seen by a camera
// at pose with intrinsics in, and whether p is in front of the camera.
func Project(pose *geom.Pose3, in *Intrinsics, p geom.Vec3) (u, v float64, ok bool) {
	c := pose.R.ApplyT(p.Sub(pose.P))
	if c.X <= 1e-6 {
		return 0, 0, false
	}
	fx, fy, cx, cy := in.focal()
	return cx - fx*c.Y/c.X, cy - fy*c.Z/c.X, true
}

// Ray returns the world direction (not normalised; its component along
// the optical axis is 1) through pixel (u, v).
func Ray(pose *geom.Pose3, in *Intrinsics, u, v float64) geom.Vec3 {
	fx, fy, cx, cy := in.focal()
	return pose.R.Apply(geom.Vec3{X: 1, Y: (cx - u) / fx, Z: (cy - v) / fy})
}
