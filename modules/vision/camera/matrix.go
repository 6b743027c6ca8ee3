// Package camera is the camera matrix: where a camera is and where it
// looks, from the robot's kinematics at the moment an image was exposed,
// and the projections between image pixels and the ground plane that
// follow from it, including the horizon.
//
// Frames. The robot frame has its origin on the ground below the middle of
// the hips, x forward, y left, z up (hal.Observation's frame); its heading
// is the torso's. The chain from it to a camera is: up by the hip height,
// the torso's roll and pitch (hal.BodyAngles, R = Rx(roll)·Ry(pitch)), up
// by the neck height, HeadYaw about z, HeadPitch about y, the camera's
// mounting position in the head, and its mounting rotation
// Rz(yaw)·Ry(pitch)·Rx(roll), calibration included. A camera's own frame
// is the same kind (x along the optical axis, y left, z up); a pixel (u, v)
// is the ray (1, -(u-CX)/FX, -(v-CY)/FY) in it (hal.Intrinsics).
//
// Everything here is allocation-free value arithmetic.
package camera

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
)

// Posture is what the camera's pose depends on besides its model.
type Posture struct {
	HeadYaw, HeadPitch hal.Radians
	// Torso is the torso's orientation.
	Torso hal.BodyAngles
	// HipHeight is the height of the hips' axis above the ground.
	HipHeight hal.Metres
}

// PostureOf returns the posture a frame was taken in, with the hip height
// given (from the stance or the leg kinematics).
func PostureOf(f *hal.CameraFrame, hipHeight hal.Metres) Posture {
	return Posture{HeadYaw: f.Joints[hal.HeadYaw], HeadPitch: f.Joints[hal.HeadPitch], Torso: f.Torso, HipHeight: hipHeight}
}

// Matrix is one camera's pose in the robot frame with its intrinsics.
type Matrix struct {
	// Rot turns camera-frame vectors into robot-frame ones.
	Rot geom.Mat3
	// Pos is the camera's optical centre in the robot frame.
	Pos hal.Vec3
	In  hal.Intrinsics
}

// New returns the camera matrix of the camera info describes, in posture p.
func New(info hal.CameraInfo, p Posture) Matrix {
	torso := geom.RotX(float64(p.Torso.Roll)).Mul(geom.RotY(float64(p.Torso.Pitch)))
	head := torso.Mul(geom.RotZ(float64(p.HeadYaw))).Mul(geom.RotY(float64(p.HeadPitch)))
	mo := info.Mounting
	rot := head.Mul(geom.RotZ(float64(mo.Yaw))).Mul(geom.RotY(float64(mo.Pitch))).Mul(geom.RotX(float64(mo.Roll)))
	neck := geom.Vec3{Z: float64(p.HipHeight)}.Add(torso.Apply(geom.Vec3{Z: float64(info.NeckHeight)}))
	return Matrix{Rot: rot, Pos: neck.Add(head.Apply(mo.Pos)), In: info.Intrinsics}
}

// FromFrame returns the camera matrix of the frame f, with the hip height
// given.
func FromFrame(f *hal.CameraFrame, hipHeight hal.Metres) Matrix {
	return New(f.Info, PostureOf(f, hipHeight))
}

// Height returns the camera's height above the ground.
func (m *Matrix) Height() float64 { return m.Pos.Z }

// Ray returns the direction, in the robot frame, of pixel (u, v).
func (m *Matrix) Ray(u, v float64) hal.Vec3 {
	return m.Rot.Apply(geom.Vec3{X: 1, Y: -(u - m.In.CX) / m.In.FX, Z: -(v - m.In.CY) / m.In.FY})
}

// minDown is the least downward slope of a ray that meets the ground:
// beyond about 1000 camera heights away a point is the horizon.
const minDown = 1e-3

// ImageToGround returns where pixel (u, v) sees the ground plane, in the
// robot frame; ok is false for a pixel at or above the horizon.
func (m *Matrix) ImageToGround(u, v float64) (x, y float64, ok bool) {
	return m.ImageToPlane(u, v, 0)
}

// GroundToImage returns the pixel at which the ground point (x, y) of the
// robot frame appears; ok is false for a point behind the camera. The
// pixel may lie outside the image (see InImage).
func (m *Matrix) GroundToImage(x, y float64) (u, v float64, ok bool) {
	return m.PointToImage(hal.Vec3{X: x, Y: y})
}

// PointToImage returns the pixel at which the robot-frame point p appears;
// ok is false for a point behind the camera.
func (m *Matrix) PointToImage(p hal.Vec3) (u, v float64, ok bool) {
	c := m.Rot.ApplyT(geom.Vec3{X: p.X - m.Pos.X, Y: p.Y - m.Pos.Y, Z: p.Z - m.Pos.Z})
	if c.X <= 1e-9 {
		return 0, 0, false
	}
	return m.In.CX - m.In.FX*c.Y/c.X, m.In.CY - m.In.FY*c.Z/c.X, true
}

// InImage reports whether pixel (u, v) lies within the image.
func (m *Matrix) InImage(u, v float64) bool {
	return u >= 0 && v >= 0 && u < float64(m.In.Width) && v < float64(m.In.Height)
}

// HorizonY returns the row of the horizon (the image of the ground plane's
// points at infinity) in column u: the pixels below it (greater v) see
// the ground. It is -Inf when the whole column sees the ground (the camera
// looks straight down) and +Inf when none of it does.
func (m *Matrix) HorizonY(u float64) float64 {
	// The ray of (u, v) is level where row 2 of Rot dotted with
	// (1, -(u-CX)/FX, -(v-CY)/FY) is 0.
	r := m.Rot.Row(2)
	a := r.X - r.Y*(u-m.In.CX)/m.In.FX
	if math.Abs(r.Z) < 1e-12 {
		if a < 0 {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	return m.In.CY + m.In.FY*a/r.Z
}

// SizeAt returns the size in pixels, at the image centre's scale, of an
// object of size s metres at distance d metres from the camera: for sizing
// candidates such as the ball.
func (m *Matrix) SizeAt(s, d float64) float64 {
	if d <= 0 {
		return 0
	}
	return m.In.FX * s / d
}

// ImageToPlane returns where pixel (u, v) sees the horizontal plane at
// height z (a ball's centre at its radius); ok is false for a ray that
// does not go down to it.
func (m *Matrix) ImageToPlane(u, v, z float64) (x, y float64, ok bool) {
	d := m.Ray(u, v)
	h := m.Pos.Z - z
	if n := math.Hypot(d.X, d.Y); d.Z >= -minDown*n || h <= 0 {
		return 0, 0, false
	}
	t := -h / d.Z
	return m.Pos.X + t*d.X, m.Pos.Y + t*d.Y, true
}

// FromWorldPose returns the matrix of a pinhole camera at pose (world
// frame; the columns of pose.R are the camera's x right, y down, z forward
// axes) in the frame of a robot at robot (x, y, heading), for an image of
// w×h pixels with the horizontal and vertical fields of view fovX and fovY
// (radians). Pixel u covers [u, u+1), its centre at u + 0.5: the principal
// point is at (w/2 − 0.5, h/2 − 0.5), as simulated renderers draw.
func FromWorldPose(pose *geom.Pose3, robot [3]float64, w, h int, fovX, fovY float64) Matrix {
	s, c := math.Sincos(robot[2])
	// Rz(-heading) maps world directions into the robot frame.
	toRobot := func(v [3]float64) hal.Vec3 {
		return hal.Vec3{X: c*v[0] + s*v[1], Y: -s*v[0] + c*v[1], Z: v[2]}
	}
	var m Matrix
	for col := range 3 {
		axis := toRobot([3]float64{pose.R[col], pose.R[3+col], pose.R[6+col]})
		m.Rot[col], m.Rot[3+col], m.Rot[6+col] = axis.X, axis.Y, axis.Z
	}
	m.Pos = toRobot([3]float64{pose.P.X - robot[0], pose.P.Y - robot[1], pose.P.Z})
	fx := float64(w) / 2 / math.Tan(fovX/2)
	fy := float64(h) / 2 / math.Tan(fovY/2)
	m.In = hal.Intrinsics{Width: w, Height: h, FX: fx, FY: fy, CX: float64(w)/2 - 0.5, CY: float64(h)/2 - 0.5}
	return m
}
