package motion

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// HeadConfig configures the head.
type HeadConfig struct {
	// MaxSpeed bounds the head joints' speed in every mode.
	MaxSpeed hal.RadPerSec `json:"max_speed"`
	// ScanAmplitude is the yaw a scan sweeps to on either side (clamped to
	// the joint's limits).
	ScanAmplitude hal.Radians `json:"scan_amplitude"`
	// ScanSpeed is the yaw speed of a scan (never more than MaxSpeed).
	ScanSpeed hal.RadPerSec `json:"scan_speed"`
	// ScanPitch is the pitch held during a scan.
	ScanPitch hal.Radians `json:"scan_pitch"`
}

// DefaultHeadConfig returns the head's defaults: ±90° scans at 1.5 rad/s,
// every move at most 3 rad/s.
func DefaultHeadConfig() HeadConfig {
	return HeadConfig{MaxSpeed: 3, ScanAmplitude: math.Pi / 2, ScanSpeed: 1.5, ScanPitch: 0.25}
}

// Head is the head generator: hold, look at a yaw and pitch, or scan from
// side to side, always within the speed limit and the joints' limits.
type Head struct {
	cfg        HeadConfig
	yaw, pitch hal.Radians
	dir        hal.Radians // +1 or -1: the scan's direction
}

// NewHead returns a head generator at yaw 0, pitch 0.
func NewHead(cfg HeadConfig) *Head { return &Head{cfg: cfg, dir: 1} }

// Reset makes the generator continue from the given head angles.
func (h *Head) Reset(yaw, pitch hal.Radians) {
	h.yaw, h.pitch = hal.HeadYaw.Clamp(yaw), hal.HeadPitch.Clamp(pitch)
}

// Step moves the head for dt seconds as req asks and writes the two head
// joints' targets into out (not their stiffness).
func (h *Head) Step(dt float64, req msg.HeadRequest, out *hal.JointCommand) {
	lim := hal.Radians(float64(h.cfg.MaxSpeed) * dt)
	toward := func(cur, goal, step hal.Radians) hal.Radians {
		switch d := goal - cur; {
		case step < 0 || math.IsNaN(float64(goal)):
			return cur
		case d > step:
			return cur + step
		case d < -step:
			return cur - step
		}
		return goal
	}
	switch req.Mode {
	case msg.HeadLookAt:
		h.yaw = toward(h.yaw, hal.HeadYaw.Clamp(req.Yaw), lim)
		h.pitch = toward(h.pitch, hal.HeadPitch.Clamp(req.Pitch), lim)
	case msg.HeadScan:
		amp := hal.HeadYaw.Clamp(hal.Radians(math.Abs(float64(h.cfg.ScanAmplitude))))
		speed := hal.Radians(float64(min(h.cfg.ScanSpeed, h.cfg.MaxSpeed)) * dt)
		goal := h.dir * amp
		h.yaw = toward(h.yaw, goal, speed)
		if h.yaw == goal {
			h.dir = -h.dir
		}
		h.pitch = toward(h.pitch, hal.HeadPitch.Clamp(h.cfg.ScanPitch), lim)
	}
	h.yaw, h.pitch = hal.HeadYaw.Clamp(h.yaw), hal.HeadPitch.Clamp(h.pitch)
	out.Angle[hal.HeadYaw], out.Angle[hal.HeadPitch] = h.yaw, h.pitch
}
