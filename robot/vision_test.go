package robot

import (
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/internal/testimages"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/runner"
)

// TestPipelineVision runs modules/vision's pipeline as the robot build
// wires it, on real NAO images in the pool: each new frame is processed
// with its camera matrix, observations go to hal.vision, a frame that was
// recycled is skipped, and a tick allocates nothing.
func TestPipelineVision(t *testing.T) {
	imgs, err := testimages.HTWK()
	if err != nil {
		t.Fatal(err)
	}
	pool := hal.NewFramePool(3, 640*480*2)
	mod := DefaultVision()(pool)
	b := blackboard.New()
	camW, err := blackboard.Write(b, "hal", msg.CameraKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := mod.Wire(b); err != nil {
		t.Fatal(err)
	}
	visR, err := blackboard.Read(b, "perception", msg.VisionKey)
	if err != nil {
		t.Fatal(err)
	}
	var joints [hal.NumJoints]hal.Radians
	joints[hal.HeadPitch] = 0.35
	for _, leg := range [][3]hal.Joint{{hal.LHipPitch, hal.LKneePitch, hal.LAnklePitch}, {hal.RHipPitch, hal.RKneePitch, hal.RAnklePitch}} {
		joints[leg[0]], joints[leg[1]], joints[leg[2]] = -0.45, 0.9, -0.45
	}
	publish := func(k int) hal.CameraFrame {
		f, ok := pool.Get()
		if !ok {
			t.Fatal("pool exhausted")
		}
		f.SetLen(copy(f.Buffer(), imgs[k].YUYV))
		f.Meta = hal.Image{Camera: hal.CameraTop, Format: hal.FormatYUYV, Width: 640, Height: 480, Seq: uint64(k + 1)}
		r := pool.Publish(f)
		return hal.CameraFrame{Valid: true, New: true, Ref: r, Image: f.Meta, Info: body.NAOCamera(hal.CameraTop), Joints: joints}
	}
	var frames hal.CameraFrames
	var seen hal.Vision
	tick := uint64(0)
	step := func() error {
		tick++
		b.BeginTick(tick, time.Duration(tick)*12*time.Millisecond)
		camW.Set(frames)
		err := mod.Tick(hal.Tick{Seq: tick})
		visR.Load(&seen)
		return err
	}
	for k := range imgs {
		frames.Cam[hal.CameraTop] = publish(k)
		if err := step(); err != nil {
			t.Fatalf("%s: %v", imgs[k].Name, err)
		}
		if !seen.Fresh {
			t.Errorf("%s: no fresh observations", imgs[k].Name)
		}
		t.Logf("%s: %d observations", imgs[k].Name, seen.N)
		f, _ := pool.Acquire(frames.Cam[hal.CameraTop].Ref)
		f.Release()
		f.Release() // the producer's reference: the frame is recycled
	}
	// A frame recycled before the tick: skipped, nothing fresh.
	if err := step(); err != nil || seen.Fresh {
		t.Errorf("a recycled frame: err %v, fresh %v", err, seen.Fresh)
	}
	// Steady state: a new frame every tick, no allocation.
	frames.Cam[hal.CameraTop] = publish(1)
	if n := testing.AllocsPerRun(3, func() {
		if err := step(); err != nil || !seen.Fresh {
			t.Fatalf("err %v fresh %v", err, seen.Fresh)
		}
	}); n != 0 {
		t.Errorf("%v allocations per tick", n)
	}
}

// visionDev is a device with cameras and observations of its own; as a
// runner.Provider it says which of the two it provides (all when both
// provide flags are set, as without Provides).
type visionDev struct {
	hal.Device
	vision, camera bool
	pool           *hal.FramePool
}

func (d *visionDev) ReadVision(*hal.Vision)       {}
func (d *visionDev) ReadCamera(*hal.CameraFrames) {}
func (d *visionDev) Frames() *hal.FramePool       { return d.pool }
func (d *visionDev) Provides(entry string) bool {
	switch entry {
	case msg.VisionKey.Name():
		return d.vision
	case msg.CameraKey.Name():
		return d.camera
	}
	return true
}

// TestVisionModulesFollowTheProvider: the vision stage runs on a device
// that provides camera frames and no observations (a simulator rendering
// its cameras), and not on one that provides observations (a simulator's
// detected ones) or no frames.
func TestVisionModulesFollowTheProvider(t *testing.T) {
	pool := hal.NewFramePool(1, 16)
	var got *hal.FramePool
	newVision := func(p *hal.FramePool) runner.Module { got = p; return DefaultVision()(p) }
	for _, tc := range []struct {
		vision, camera bool
		want           int
	}{{false, true, 1}, {true, false, 0}, {true, true, 0}, {false, false, 0}} {
		got = nil
		mods := VisionModules(&visionDev{vision: tc.vision, camera: tc.camera, pool: pool}, newVision)
		if len(mods) != tc.want || (tc.want == 1 && got != pool) {
			t.Errorf("provides vision %v, camera %v: %d modules (pool %p), want %d", tc.vision, tc.camera, len(mods), got, tc.want)
		}
	}
}

// TestVisionOfUsesTheConfig: the vision stage of a robot runs the pipeline
// with the robot's vision configuration: frames wider than its max_width
// are refused with a clear error.
func TestVisionOfUsesTheConfig(t *testing.T) {
	for _, tc := range []struct {
		maxWidth int
		wantErr  bool
	}{{640, false}, {320, true}} {
		c := DefaultConfig()
		c.Vision.MaxWidth, c.Vision.MaxHeight = tc.maxWidth, tc.maxWidth*3/4
		pool := hal.NewFramePool(1, 640*480*2)
		mod := VisionOf(&c)(pool)
		b := blackboard.New()
		camW, err := blackboard.Write(b, "hal", msg.CameraKey)
		if err != nil {
			t.Fatal(err)
		}
		if err := mod.Wire(b); err != nil {
			t.Fatal(err)
		}
		f, _ := pool.Get()
		f.SetLen(640 * 480 * 2)
		f.Meta = hal.Image{Camera: hal.CameraTop, Format: hal.FormatYUYV, Width: 640, Height: 480, Seq: 1}
		var frames hal.CameraFrames
		frames.Cam[hal.CameraTop] = hal.CameraFrame{Valid: true, New: true, Ref: pool.Publish(f), Image: f.Meta, Info: body.NAOCamera(hal.CameraTop)}
		b.BeginTick(1, 10*time.Millisecond)
		camW.Set(frames)
		err = mod.Tick(hal.Tick{Seq: 1})
		if (err != nil) != tc.wantErr {
			t.Errorf("max_width %d, a 640-wide frame: err %v, want an error %v", tc.maxWidth, err, tc.wantErr)
		}
	}
}
