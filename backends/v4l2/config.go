package v4l2

import (
	"errors"
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

// Validate reports every problem, each naming its key.
func (c Config) Validate() error {
	if c.Device == "" {
		return nil
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Width < 16 || c.Width > 4096 || c.Width%2 != 0 {
		bad("width %d: want an even number in 16..4096", c.Width)
	}
	if c.Height < 16 || c.Height > 4096 {
		bad("height %d: want 16..4096", c.Height)
	}
	if c.FPS < 1 || c.FPS > 120 {
		bad("fps %d: want 1..120", c.FPS)
	}
	if c.Buffers < 2 || c.Buffers > 32 {
		bad("buffers %d: want 2..32", c.Buffers)
	}
	if c.StallTimeout.D() <= 0 {
		bad("stall_timeout %v must be positive", c.StallTimeout.D())
	}
	if c.Backoff.D() <= 0 {
		bad("backoff %v must be positive", c.Backoff.D())
	}
	switch c.Flip {
	case FlipNone, FlipXU, FlipControls:
	default:
		bad("flip %q: want %q, %q or %q", c.Flip, FlipNone, FlipXU, FlipControls)
	}
	k := c.Controls
	if k.Exposure < MinExposure || k.Exposure > MaxExposure {
		bad("controls.exposure %d: want %d..%d (100 µs)", k.Exposure, MinExposure, MaxExposure)
	}
	if k.Gain < MinGain || k.Gain > MaxGain {
		bad("controls.gain %d: want %d..%d", k.Gain, MinGain, MaxGain)
	}
	if k.WhiteBalance < MinWhiteBalance || k.WhiteBalance > MaxWhiteBalance {
		bad("controls.white_balance %d: want %d..%d K", k.WhiteBalance, MinWhiteBalance, MaxWhiteBalance)
	}
	return errors.Join(errs...)
}

// FrameSize is the bytes of one YUYV image.
func (c Config) FrameSize() int { return c.Width * c.Height * 2 }
