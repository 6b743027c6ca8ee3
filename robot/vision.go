package robot

import (
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/runner"
)

// Vision is the image-processing stage between a robot's cameras and
// perception, as package robot wires it: given the pool that holds the
// cameras' pixels, it builds a module that reads msg.CameraKey (each
// camera's newest frame: its pool Ref, size, exposure time, and the joint
// angles and torso orientation then), acquires the frames' pixels from
// the pool (releasing them when done), and writes what it sees to
// msg.VisionKey, which perception and behaviour read.
type Vision func(frames *hal.FramePool) runner.Module

// VisionModules returns the vision stage for dev: newVision's module if
// dev has cameras (hal.CameraSensor) and reports no observations of its
// own (hal.VisionSensor, a simulator's), else none.
func VisionModules(dev hal.Device, newVision Vision) []runner.Module {
	cam, ok := dev.(hal.CameraSensor)
	if !ok || newVision == nil {
		return nil
	}
	if _, seen := dev.(hal.VisionSensor); seen {
		return nil
	}
	return []runner.Module{newVision(cam.Frames())}
}
