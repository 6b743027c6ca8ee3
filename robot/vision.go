package robot

import (
	"fmt"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/modules/vision"
	"github.com/robotd/robotd/modules/vision/camera"
	"github.com/robotd/robotd/msg"
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
// own (hal.VisionSensor, a simulator's), else none. A backend that decides
// its capabilities at run time (runner.Provider) is asked: a simulator
// rendering camera images provides frames and no observations.
func VisionModules(dev hal.Device, newVision Vision) []runner.Module {
	cam, ok := dev.(hal.CameraSensor)
	if !ok || newVision == nil || !provides(dev, msg.CameraKey.Name()) {
		return nil
	}
	if _, seen := dev.(hal.VisionSensor); seen && provides(dev, msg.VisionKey.Name()) {
		return nil
	}
	return []runner.Module{newVision(cam.Frames())}
}

// provides reports whether dev has the capability of entry name: what it
// says if it is a runner.Provider, else yes.
func provides(dev hal.Device, name string) bool {
	p, ok := dev.(runner.Provider)
	return !ok || p.Provides(name)
}

// PipelineVision is the Vision of package modules/vision: per camera a
// vision.Pipeline run on each new frame with the frame's camera matrix
// (modules/vision/camera, the hip height from the leg angles and leg).
// The observations of the frames new in a tick go to msg.VisionKey.
func PipelineVision(cfg vision.Config, leg body.Leg) Vision {
	return func(frames *hal.FramePool) runner.Module {
		return &pipelineVision{cfg: cfg, leg: leg, pool: frames}
	}
}

// DefaultVision is PipelineVision with the pipeline's defaults on the NAO
// v6's legs.
func DefaultVision() Vision { return PipelineVision(vision.DefaultConfig(), body.For(body.NAOv6).Leg) }

// VisionOf is the vision stage of a robot configured by c: PipelineVision
// with c.Vision on the legs of c's body (the simulated NAO's in a
// simulator).
func VisionOf(c *Config) Vision { return PipelineVision(c.Vision, body.For(c.Motion.Body).Leg) }

// pipelineVision is PipelineVision's module.
type pipelineVision struct {
	cfg  vision.Config
	leg  body.Leg
	pool *hal.FramePool

	pipes  [hal.NumCameras]*vision.Pipeline
	mats   [hal.NumCameras]camera.Matrix
	per    hal.Vision
	out    hal.Vision
	frames hal.CameraFrames
	in     *blackboard.Reader[hal.CameraFrames]
	w      *blackboard.Writer[hal.Vision]
}

func (m *pipelineVision) Name() string { return "vision" }

func (m *pipelineVision) Wire(b *blackboard.Board) error {
	for i := range m.pipes {
		p, err := vision.New(m.cfg)
		if err != nil {
			return fmt.Errorf("vision: %w", err)
		}
		m.pipes[i] = p
	}
	var err error
	if m.in, err = blackboard.Read(b, m.Name(), msg.CameraKey); err != nil {
		return err
	}
	m.w, err = blackboard.Write(b, m.Name(), msg.VisionKey)
	return err
}

// Tick runs the pipeline on every camera's new frame. It does not
// allocate.
func (m *pipelineVision) Tick(hal.Tick) error {
	m.in.Load(&m.frames)
	m.out.N, m.out.Fresh = 0, false
	var errs error
	for i := range m.frames.Cam {
		c := &m.frames.Cam[i]
		if !c.Valid || !c.New || c.Format != hal.FormatYUYV {
			continue
		}
		f, ok := m.pool.Acquire(c.Ref)
		if !ok {
			continue // replaced meanwhile: the next tick has a newer one
		}
		m.mats[i] = camera.FromFrameLegs(c, m.leg)
		_, err := m.pipes[i].Process(vision.Image{Data: f.Data, Width: c.Width, Height: c.Height}, &m.mats[i], &m.per)
		f.Release()
		if err != nil {
			errs = fmt.Errorf("vision: %s camera: %w", c.Camera, err)
			continue
		}
		m.out.Fresh = true
		for k := range m.per.N {
			m.out.Add(m.per.Obs[k])
		}
	}
	m.w.Set(m.out)
	return errs
}
