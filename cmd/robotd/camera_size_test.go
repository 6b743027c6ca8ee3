package main

import (
	"strings"
	"testing"

	"github.com/robotd/robotd/backends/sim"
)

// TestCameraLargerThanVision: a camera larger than the vision pipeline's
// frames is refused at configuration time (-print-config too), with the
// keys to change, instead of every frame being refused at run time.
func TestCameraLargerThanVision(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	c.Real.NAO.Cameras.Top.Width, c.Real.NAO.Cameras.Top.Height = 1280, 960
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "real.nao.cameras.top") || !strings.Contains(err.Error(), "vision.max_width") {
		t.Errorf("1280×960 top camera with a 640×480 pipeline: err %v", err)
	}
	c.Vision.MaxWidth, c.Vision.MaxHeight = 1280, 960
	if err := c.Validate(); err != nil {
		t.Errorf("pipeline raised to 1280×960: %v", err)
	}
	// A camera turned off is not checked.
	c = DefaultConfig()
	c.Real.NAO.Cameras.Bottom.Width, c.Real.NAO.Cameras.Bottom.Height, c.Real.NAO.Cameras.Bottom.Device = 1280, 960, ""
	if err := c.Validate(); err != nil {
		t.Errorf("camera off: %v", err)
	}
	// The simulator's rendered frames: 640×480 on top.
	c = DefaultConfig()
	c.Sim.Vision.Source = sim.SourceRendered
	c.Vision.MaxWidth, c.Vision.MaxHeight = 320, 240
	c.Real.NAO.Cameras.Top.Device, c.Real.NAO.Cameras.Bottom.Device, c.Real.Robotino.Camera.Device = "", "", ""
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "sim.vision.render") {
		t.Errorf("rendered 640×480 with a 320×240 pipeline: err %v", err)
	}
}
