package motion

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// TestHeadScan: the scan sweeps to ±amplitude (90° by default) and back,
// never beyond, and no head joint ever moves faster than the limit, however
// fast the scan is asked to be.
func TestHeadScan(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*HeadConfig)
		amp  float64 // expected amplitude
		vmax float64 // expected per-second limit on yaw
	}{
		{"defaults", func(*HeadConfig) {}, math.Pi / 2, 1.5},
		{"scan faster than the limit", func(c *HeadConfig) { c.ScanSpeed = 10 }, math.Pi / 2, 3},
		{"small and slow", func(c *HeadConfig) { c.ScanAmplitude, c.ScanSpeed = 0.5, 0.4 }, 0.5, 0.4},
		{"beyond the joint", func(c *HeadConfig) { c.ScanAmplitude = 3 }, float64(hal.Joints[hal.HeadYaw].Max), 1.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultHeadConfig()
			tc.cfg(&cfg)
			h := NewHead(cfg)
			h.Reset(0.3, -0.5)
			var out hal.JointCommand
			h.Step(0.01, msg.HeadRequest{Mode: msg.HeadHold}, &out)
			prev := out.Angle
			lo, hi, flips, lastDir := 0.0, 0.0, 0, 0.0
			for i := range 3000 {
				h.Step(0.01, msg.HeadRequest{Mode: msg.HeadScan}, &out)
				dy := float64(out.Angle[hal.HeadYaw] - prev[hal.HeadYaw])
				dp := float64(out.Angle[hal.HeadPitch] - prev[hal.HeadPitch])
				if math.Abs(dy) > tc.vmax*0.01+1e-12 || math.Abs(dp) > float64(cfg.MaxSpeed)*0.01+1e-12 {
					t.Fatalf("tick %d: head moved by %.4f, %.4f rad in 10 ms", i, dy, dp)
				}
				if dy != 0 && math.Signbit(dy) != math.Signbit(lastDir) {
					flips++
					lastDir = dy
				}
				y := float64(out.Angle[hal.HeadYaw])
				lo, hi = min(lo, y), max(hi, y)
				prev = out.Angle
			}
			if math.Abs(hi-tc.amp) > 1e-9 || math.Abs(lo+tc.amp) > 1e-9 || flips < 4 {
				t.Fatalf("swept %.4f..%.4f with %d turns, want ±%.4f", lo, hi, flips, tc.amp)
			}
			if math.Abs(float64(out.Angle[hal.HeadPitch]-cfg.ScanPitch)) > 1e-9 {
				t.Fatalf("pitch %v, want %v", out.Angle[hal.HeadPitch], cfg.ScanPitch)
			}
		})
	}
}

// TestHeadLookAt: a look-at moves at the speed limit, from anywhere to
// anywhere, and stops at the target clamped to the joints' limits.
func TestHeadLookAt(t *testing.T) {
	cfg := DefaultHeadConfig()
	h := NewHead(cfg)
	var out hal.JointCommand
	targets := []msg.HeadRequest{
		{Mode: msg.HeadLookAt, Yaw: 2, Pitch: 0.3},
		{Mode: msg.HeadLookAt, Yaw: -5, Pitch: -2}, // clamped
		{Mode: msg.HeadScan},
		{Mode: msg.HeadLookAt, Yaw: 0, Pitch: 0},
		{Mode: msg.HeadLookAt, Yaw: hal.Radians(math.NaN()), Pitch: 0.1},
	}
	var prev [hal.NumJoints]hal.Radians
	for _, req := range targets {
		for range 200 {
			h.Step(0.01, req, &out)
			for _, j := range []hal.Joint{hal.HeadYaw, hal.HeadPitch} {
				if d := math.Abs(float64(out.Angle[j] - prev[j])); d > float64(cfg.MaxSpeed)*0.01+1e-12 || math.IsNaN(d) {
					t.Fatalf("%+v: %s moved %.4f in a tick", req, j, d)
				}
			}
			prev = out.Angle
		}
		if req.Mode == msg.HeadLookAt && !math.IsNaN(float64(req.Yaw)) {
			if out.Angle[hal.HeadYaw] != hal.HeadYaw.Clamp(req.Yaw) || out.Angle[hal.HeadPitch] != hal.HeadPitch.Clamp(req.Pitch) {
				t.Fatalf("%+v: at %v, %v", req, out.Angle[hal.HeadYaw], out.Angle[hal.HeadPitch])
			}
		}
	}
}

// TestScanStepsPerTickStep: a simulator's tick whose clock read 20 ms for a
// 10 ms physics step (Tick.Step 10 ms) moves the scanning head one 10 ms
// step, not two.
func TestScanStepsPerTickStep(t *testing.T) {
	for _, tc := range []struct {
		name string
		step time.Duration
		want float64 // rad the yaw moves on the long tick
	}{
		{"step given", 10 * time.Millisecond, 0.015},
		{"no step: the time's difference", 0, 0.030},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpt{})
			h.req = msg.MotionRequest{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadScan}}
			h.tick.Step = tc.step
			for range 20 {
				h.step()
			}
			before := h.cmd.Angle[hal.HeadYaw]
			h.tick.Time += 10 * time.Millisecond // the clock reads 20 ms
			h.step()
			if got := float64(h.cmd.Angle[hal.HeadYaw] - before); math.Abs(math.Abs(got)-tc.want) > 1e-6 {
				t.Fatalf("the head moved %.4f rad on the long tick, want %.3f", got, tc.want)
			}
		})
	}
}
