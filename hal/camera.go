package hal

import (
	"math"
	"time"

	"github.com/robotd/robotd/hal/framepool"
)

// CameraID is which camera of the robot a frame comes from.
type CameraID uint8

// The cameras. A robot with one camera (a Robotino's USB camera) has only
// CameraTop.
const (
	CameraTop CameraID = iota
	CameraBottom
	// NumCameras bounds the cameras of one robot.
	NumCameras
)

// String names the camera.
func (c CameraID) String() string {
	switch c {
	case CameraTop:
		return "top"
	case CameraBottom:
		return "bottom"
	}
	return "unknown"
}

// PixelFormat is an image's pixel layout.
type PixelFormat uint8

// Pixel formats.
const (
	FormatNone PixelFormat = iota
	// FormatYUYV is YUV 4:2:2, two pixels in four bytes Y0 U Y1 V (V4L2's
	// V4L2_PIX_FMT_YUYV), what the NAO's and most UVC cameras deliver.
	FormatYUYV
)

// Intrinsics is a pinhole camera model for images of Width × Height pixels:
// pixel (u, v), u right and v down from the top-left corner, sees the ray
// ((u-CX)/FX, (v-CY)/FY, 1) in the optical frame (x right, y down, z along
// the optical axis).
type Intrinsics struct {
	Width, Height int
	// FX and FY are the focal lengths in pixels.
	FX, FY float64
	// CX and CY are the optical centre in pixels.
	CX, CY float64
}

// FromFOV returns the intrinsics of an ideal camera of w × h pixels with
// the horizontal and vertical fields of view hfov and vfov, its optical
// centre in the middle of the image.
func FromFOV(w, h int, hfov, vfov Radians) Intrinsics {
	return Intrinsics{
		Width: w, Height: h,
		FX: float64(w) / 2 / math.Tan(float64(hfov)/2),
		FY: float64(h) / 2 / math.Tan(float64(vfov)/2),
		CX: float64(w) / 2, CY: float64(h) / 2,
	}
}

// Scaled returns the intrinsics for the same camera delivering w × h
// pixels (the NAO's bottom camera at 320 × 240, for example).
func (in Intrinsics) Scaled(w, h int) Intrinsics {
	if in.Width <= 0 || in.Height <= 0 {
		return in
	}
	sx, sy := float64(w)/float64(in.Width), float64(h)/float64(in.Height)
	return Intrinsics{Width: w, Height: h, FX: in.FX * sx, FY: in.FY * sy, CX: in.CX * sx, CY: in.CY * sy}
}

// Mounting is where a camera sits in the head: its position in the head
// frame (the frame after HeadYaw and HeadPitch, origin at the head joints,
// x forward, y left, z up) and its rotation against that frame. Pitch
// positive tilts the optical axis down (NAOqi's sign for HeadPitch).
type Mounting struct {
	Pos              Vec3 // metres
	Roll, Pitch, Yaw Radians
}

// CameraInfo is one camera's model: where it sits and how it images.
type CameraInfo struct {
	Camera     CameraID
	Intrinsics Intrinsics
	Mounting   Mounting
	// NeckHeight is the height of the head joints above the hips' axis
	// (the hip pitch joints) when the torso is upright.
	NeckHeight Metres
}

// Image is what the producer of a frame knows about it: which camera, its
// size and layout, its sequence number and when it was exposed. It is the
// metadata of the pixels in the pool (CameraFrames.Pool).
type Image struct {
	Camera        CameraID
	Format        PixelFormat
	Width, Height int
	// Seq counts the camera's frames from 1; a gap means frames were
	// dropped.
	Seq uint64
	// Exposure is when the image was taken, on the backend's clock (the
	// clock of Tick.Time).
	Exposure time.Duration
}

// FramePool holds the pixels of camera frames (see package framepool).
type FramePool = framepool.Pool[Image]

// Frame is one camera image in the pool: Data holds its pixels.
type Frame = framepool.Frame[Image]

// FrameRef names a frame in the pool.
type FrameRef = framepool.Ref

// CameraFrame is the newest frame of one camera as the blackboard carries
// it: the pool Ref of its pixels, its Image, and the robot's posture when
// it was exposed, everything a camera matrix needs.
type CameraFrame struct {
	// Valid is false while the camera has delivered nothing (or is gone).
	Valid bool
	// New is true when the frame arrived since the previous tick.
	New bool
	Ref FrameRef
	Image
	// Info is the camera's model (intrinsics for Width × Height, mounting,
	// calibration applied).
	Info CameraInfo
	// Joints are the measured joint angles nearest in time to Exposure, and
	// Torso the torso's orientation then; JointsTime is their time on the
	// backend's clock. A robot without joints leaves them zero.
	Joints     [NumJoints]Radians
	Torso      BodyAngles
	JointsTime time.Duration
}

// CameraFrames is the newest frame of every camera.
type CameraFrames struct {
	Cam [NumCameras]CameraFrame
}

// CameraSensor reads the newest frame of every camera. The frames on the
// blackboard stay referenced by the backend until the next ReadCamera, so
// a module can Acquire them from Frames during the tick they were read in
// (and later, while they have not been replaced); it must Release what it
// acquires.
type CameraSensor interface {
	ReadCamera(*CameraFrames)
	// Frames returns the pool that holds the pixels.
	Frames() *FramePool
}

// NewFramePool returns a pool of n frames of size bytes.
func NewFramePool(n, size int) *FramePool { return framepool.New[Image](n, size) }
