package main

import (
	"fmt"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/backends/v4l2"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/robot"
)

// hooks are what a test replaces in an in-process daemon (runWith).
type hooks struct {
	// openCamera opens the cameras' device nodes (nil: the kernel's).
	openCamera v4l2.Opener
	// vision is the vision stage run on camera frames (nil: vision()).
	vision robot.Vision
}

// vision is the image-processing stage between the cameras and
// perception (robot.Vision): package modules/vision's pipeline with the
// robot's vision configuration, on the legs of its body (the camera
// matrix's hip height).
func (c *Config) vision() robot.Vision {
	if c.hooks.vision != nil {
		return c.hooks.vision
	}
	return robot.VisionOf(&c.Config)
}

// cameraInfos returns the NAO v6 cameras' models with the robot's
// calibration: the rotation offsets added to the mounting, and the
// intrinsics (given for 640 × 480) where set.
func (c *CameraConfig) cameraInfos() [hal.NumCameras]hal.CameraInfo {
	var out [hal.NumCameras]hal.CameraInfo
	for i, cal := range [hal.NumCameras]CameraCalibration{hal.CameraTop: c.Top, hal.CameraBottom: c.Bottom} {
		info := body.NAOCamera(hal.CameraID(i))
		m := &info.Mounting
		m.Roll, m.Pitch, m.Yaw = m.Roll+cal.Roll, m.Pitch+cal.Pitch, m.Yaw+cal.Yaw
		in := &info.Intrinsics
		for _, p := range []struct {
			dst *float64
			v   float64
		}{{&in.FX, cal.FocalX}, {&in.FY, cal.FocalY}, {&in.CX, cal.CentreX}, {&in.CY, cal.CentreY}} {
			if p.v > 0 {
				*p.dst = p.v
			}
		}
		out[i] = info
	}
	return out
}

// usbCameraFOV is the field of view assumed for a USB camera whose focal
// lengths the calibration does not give: a common webcam's (about
// 60° × 47°). Calibrate camera.top.focal_x and focal_y for a real one.
const usbCameraHFOV, usbCameraVFOV = 60, 47

// usbCameraInfo returns the model of a USB camera (a Robotino's) with the
// top camera's calibration: intrinsics for its image size, the rotation
// offsets as its mounting's rotation. Its position on the robot is not
// modelled.
func (c *CameraConfig) usbCameraInfo(capture v4l2.Config) hal.CameraInfo {
	info := hal.CameraInfo{Camera: hal.CameraTop,
		Intrinsics: hal.FromFOV(capture.Width, capture.Height, hal.Deg(usbCameraHFOV), hal.Deg(usbCameraVFOV)),
		Mounting:   hal.Mounting{Roll: c.Top.Roll, Pitch: c.Top.Pitch, Yaw: c.Top.Yaw}}
	in := &info.Intrinsics
	for _, p := range []struct {
		dst *float64
		v   float64
	}{{&in.FX, c.Top.FocalX}, {&in.FY, c.Top.FocalY}, {&in.CX, c.Top.CentreX}, {&in.CY, c.Top.CentreY}} {
		if p.v > 0 {
			*p.dst = p.v
		}
	}
	return info
}

// checkCameraSizes reports a camera whose frames are larger than the
// vision pipeline takes (vision.max_width × max_height): each of its
// frames would be refused and the robot would play blind. It checks the
// NAO's cameras, the Robotino's and the simulator's rendered ones, each
// unless turned off (no device; vision from the server).
func (c *Config) checkCameraSizes() error {
	v := c.Vision.WithDefaults()
	type cam struct {
		key  string
		w, h int
	}
	var cams []cam
	for _, x := range []struct {
		key string
		cfg v4l2.Config
	}{{"real.nao.cameras.top", c.Real.NAO.Cameras.Top}, {"real.nao.cameras.bottom", c.Real.NAO.Cameras.Bottom},
		{"real.robotino.camera", c.Real.Robotino.Camera}} {
		if x.cfg.Device != "" {
			cams = append(cams, cam{x.key, x.cfg.Width, x.cfg.Height})
		}
	}
	if sv := c.SimBackend().Vision; sv.Source == sim.SourceRendered {
		cams = append(cams, cam{"sim.vision.render (top)", 640, 480})
		if bw := sv.Render.BottomWidth; bw > 0 {
			cams = append(cams, cam{"sim.vision.render.bottom_width", bw, bw * 3 / 4})
		}
	}
	for _, x := range cams {
		if x.w > v.MaxWidth || x.h > v.MaxHeight {
			return fmt.Errorf("config: %s is %d×%d, larger than the vision pipeline's vision.max_width × vision.max_height %d×%d: every frame would be refused; raise those or lower the camera's size",
				x.key, x.w, x.h, v.MaxWidth, v.MaxHeight)
		}
	}
	return nil
}
