package v4l2

import (
	"fmt"
	"time"

	"github.com/robotd/robotd/config"
)

// Flip modes: how a camera mounted upside down is turned the right way up.
const (
	FlipNone = "none"
	// FlipXU uses the NAO v6 camera's UVC extension unit (unit 3,
	// selectors 12 and 13), as the top camera needs.
	FlipXU = "xu"
	// FlipControls uses the standard V4L2_CID_HFLIP and V4L2_CID_VFLIP.
	FlipControls = "controls"
)

// Config configures one camera's capture.
type Config struct {
	// Device is the device node ("" turns the camera off).
	Device string `json:"device"`
	// Width and Height are the image size in pixels (YUYV).
	Width  int `json:"width"`
	Height int `json:"height"`
	// FPS is the frame rate asked for.
	FPS int `json:"fps"`
	// Buffers is the number of mmap buffers the driver fills in turn.
	Buffers int `json:"buffers"`
	// StallTimeout is how long the camera may deliver nothing while
	// streaming before it is reset (closed and opened again).
	StallTimeout config.Duration `json:"stall_timeout"`
	// Backoff is the wait before opening again after a failure.
	Backoff config.Duration `json:"backoff"`
	// Flip turns the image by 180°: none, xu or controls.
	Flip string `json:"flip"`
	// Controls are the image controls applied after every open.
	Controls Controls `json:"controls"`
}

// Controls are the camera's exposure, gain and white balance.
type Controls struct {
	// AutoExposure lets the camera choose the exposure time (uvcvideo's
	// aperture-priority mode); else Exposure and Gain apply.
	AutoExposure bool `json:"auto_exposure"`
	// Exposure is the exposure time in UVC's unit, 100 µs
	// (V4L2_CID_EXPOSURE_ABSOLUTE).
	Exposure int `json:"exposure"`
	// Gain is the sensor gain (V4L2_CID_GAIN), in the driver's unit.
	Gain int `json:"gain"`
	// AutoWhiteBalance lets the camera choose the white balance; else
	// WhiteBalance applies.
	AutoWhiteBalance bool `json:"auto_white_balance"`
	// WhiteBalance is the colour temperature in K
	// (V4L2_CID_WHITE_BALANCE_TEMPERATURE).
	WhiteBalance int `json:"white_balance"`
}

// The controls' ranges. Exposure up to 1 s and white balance over
// 2500..6500 K are what UVC cameras and the NAO v6's OV5640 firmware
// accept; gain's unit is the driver's (0..1023 on the NAO v6).
const (
	MinExposure, MaxExposure         = 1, 10000
	MinGain, MaxGain                 = 0, 1023
	MinWhiteBalance, MaxWhiteBalance = 2500, 6500
)

// DefaultControls are automatic exposure and white balance, with manual
// values of 10 ms, gain 32 and 5000 K for when they are turned off.
func DefaultControls() Controls {
	return Controls{AutoExposure: true, Exposure: 100, Gain: 32, AutoWhiteBalance: true, WhiteBalance: 5000}
}

// DefaultConfig returns a 640 × 480 YUYV camera at 30 fps on device.
func DefaultConfig(device string) Config {
	return Config{
		Device: device, Width: 640, Height: 480, FPS: 30, Buffers: 4,
		StallTimeout: config.Duration(time.Second), Backoff: config.Duration(500 * time.Millisecond),
		Flip: FlipNone, Controls: DefaultControls(),
	}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the camera's section.
func (c Config) Rules() config.Rules {
	return config.Rules{
		"device":                      config.Text(0, 4096).Doc("path", "the video device node; \"\" turns the camera off"),
		"width":                       config.Int(16, 4096).Doc("px", "the image width asked for (even)"),
		"height":                      config.Int(16, 4096).Doc("px", "the image height asked for"),
		"fps":                         config.Int(1, 120).Doc("1/s", "the frame rate asked of the driver"),
		"buffers":                     config.Int(2, 32).Doc("", "how many capture buffers the driver fills in turn"),
		"stall_timeout":               config.Durations(time.Millisecond, time.Minute).Doc("", "how long a streaming camera may deliver no frame before it is closed and opened again"),
		"backoff":                     config.Durations(time.Millisecond, time.Minute).Doc("", "the wait before opening the camera again after a failure"),
		"flip":                        config.OneOf(FlipNone, FlipXU, FlipControls).Doc("", "how the image is turned by 180°: not at all, by the NAO camera's extension unit, or by the V4L2 flip controls"),
		"controls.auto_exposure":      config.Bool().Doc("", "lets the camera choose its exposure time; else exposure and gain apply"),
		"controls.exposure":           config.Int(MinExposure, MaxExposure).Doc("100 µs", "the exposure time when auto_exposure is off"),
		"controls.gain":               config.Int(MinGain, MaxGain).Doc("", "the sensor gain, in the driver's unit, when auto_exposure is off"),
		"controls.auto_white_balance": config.Bool().Doc("", "lets the camera choose its white balance; else white_balance applies"),
		"controls.white_balance":      config.Int(MinWhiteBalance, MaxWhiteBalance).Doc("K", "the colour temperature when auto_white_balance is off"),
	}
}

// Validate checks a camera that is on (device set) against Rules, and
// that its width is even; errors name the key.
func (c Config) Validate() error {
	if c.Device == "" {
		return nil
	}
	if err := config.CheckSection("", c, c.Rules()); err != nil {
		return err
	}
	if c.Width%2 != 0 {
		return fmt.Errorf("width %d: want an even number (YUYV)", c.Width)
	}
	return nil
}

// FrameSize is the bytes of one YUYV image.
func (c Config) FrameSize() int { return c.Width * c.Height * 2 }
