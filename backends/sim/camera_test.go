package sim

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/traces"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/simspark"
)

// TestRenderedCamerasAgreeWithTheServer replays the real server's head
// sweep (vision_headsweep.txt: a standing robot turning its head, the
// ball 2 m ahead) through the adapter and the rendered cameras. Every See
// block gives a new 640 × 480 top and 320 × 240 bottom frame whose pixels
// can be acquired; and where the ball is drawn in the top image agrees
// with the direction the server's own vision perceptor reports for it
// (the two come from different data: the image from mypos, myorien,
// ballpos and the joint angles, the perceptor's angle from the server).
func TestRenderedCamerasAgreeWithTheServer(t *testing.T) {
	a, rig := newTestRig(t)
	var diffs []float64
	var sees, frames int
	// The replay is deterministic, so is the median: under the race
	// detector fewer frames give a noisier one, allowed 4°.
	stride, minBall, tol := 2, 15, 3.0
	if raceBuild {
		stride, minBall, tol = 6, 5, 4.0
	}
	var fr hal.CameraFrames
	tick := time.Duration(0)
	replay(t, "vision_headsweep.txt", func(m traces.Message, p *simspark.Perception) {
		tick += 10 * time.Millisecond
		a.Update(p)
		if !a.vision.Fresh {
			rig.read(&fr)
			for i := range fr.Cam {
				if fr.Cam[i].New {
					t.Fatalf("cycle %d: camera %d has a new frame without a See block", m.Cycle, i)
				}
			}
			return
		}
		sees++
		if sees%stride != 1 {
			return // every stride-th See block keeps the test short
		}
		if err := rig.render(a, p, tick); err != nil {
			t.Fatal(err)
		}
		rig.read(&fr)
		for i, want := range [hal.NumCameras][2]int{{640, 480}, {320, 240}} {
			c := &fr.Cam[i]
			if !c.Valid || !c.New || c.Width != want[0] || c.Height != want[1] || c.Format != hal.FormatYUYV || c.Exposure != tick {
				t.Fatalf("cycle %d: camera %d frame %+v", m.Cycle, i, c.Image)
			}
			f, ok := rig.pool.Acquire(c.Ref)
			if !ok || len(f.Data) != 2*want[0]*want[1] || f.Meta.Seq != c.Seq {
				t.Fatalf("cycle %d: camera %d: frame %v not acquirable (%v)", m.Cycle, i, c.Ref, ok)
			}
			f.Release()
			frames++
		}
		// The server's horizontal angle of the ball against the image.
		var pol simspark.Polar
		seen := false
		for _, it := range p.See.Order {
			if it.Kind == simspark.SeeObject && string(p.Bytes(p.See.Objects[it.Index].Name)) == "B" {
				pol, seen = p.See.Objects[it.Index].Pol, true
			}
		}
		if !seen || m.Cycle < 10 {
			return
		}
		top := &rig.cams[hal.CameraTop]
		u, _, ok := top.r.Visible(rig.scene.Ball, 0.05)
		if !ok {
			return
		}
		in := top.info.Intrinsics
		angle := math.Atan((in.CX-u)/in.FX) * 180 / math.Pi
		diffs = append(diffs, angle-pol[1])
	})
	if sees < 50 || frames != 2*((sees+stride-1)/stride) || len(diffs) < minBall {
		t.Fatalf("%d See blocks, %d frames, %d with the ball in the top image", sees, frames, len(diffs))
	}
	// The server's angles have a standard deviation of about 3.3° (seen
	// from the head body's centre, 4 to 6 cm from the cameras): the median
	// agrees within 3°.
	if md := median(diffs); math.Abs(md) > tol {
		t.Errorf("ball bearing in the image minus the server's: median %.2f° over %d frames", md, len(diffs))
	}
	t.Logf("%d See blocks; ball bearing in the image minus the server's: median %+.2f° over %d frames", sees, median(diffs), len(diffs))
	if rig.pool.Free() != rig.pool.Len()-int(hal.NumCameras) {
		t.Errorf("%d of %d frames free, want all but the newest of each camera", rig.pool.Free(), rig.pool.Len())
	}
}

// TestProvidesOneVisionSource: the backend provides the server's
// observations or the rendered frames, never both.
func TestProvidesOneVisionSource(t *testing.T) {
	for _, src := range []VisionSource{SourceServer, SourceRendered} {
		cfg := DefaultConfig()
		cfg.Vision.Source = src
		b, err := New(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		vis, cam := b.Provides(msg.VisionKey.Name()), b.Provides(msg.CameraKey.Name())
		if vis == cam || cam != (src == SourceRendered) || !b.Provides(msg.JointsKey.Name()) {
			t.Errorf("%v: provides vision %v, camera %v", src, vis, cam)
		}
		if (b.Frames() != nil) != (src == SourceRendered) {
			t.Errorf("%v: frame pool %v", src, b.Frames())
		}
		b.Close()
	}
}

func TestVisionSourceText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want VisionSource
		ok   bool
	}{{"server", SourceServer, true}, {"rendered", SourceRendered, true}, {"", SourceServer, true}, {"camera", 0, false}} {
		var s VisionSource
		err := s.UnmarshalText([]byte(tc.in))
		if (err == nil) != tc.ok || (tc.ok && s != tc.want) {
			t.Errorf("%q: %v, %v", tc.in, s, err)
		}
		if tc.ok && tc.in != "" {
			if b, _ := s.MarshalText(); string(b) != tc.in {
				t.Errorf("%v marshals to %q", s, b)
			}
		}
	}
	cfg := DefaultConfig()
	cfg.Vision.Source = SourceRendered
	cfg.Vision.Render.BottomWidth = 400
	if err := cfg.Validate(); err == nil {
		t.Error("bottom width 400 accepted")
	}
	cfg.Vision.Render = DefaultRenderConfig()
	cfg.Vision.Render.Options.Noise = -1
	if err := cfg.Validate(); err == nil {
		t.Error("negative noise accepted")
	}
}

// TestRigRenderDoesNotAllocate: rendering both cameras for a See block does
// not allocate.
func TestRigRenderDoesNotAllocate(t *testing.T) {
	a, rig := newTestRig(t)
	var last simspark.Perception
	replay(t, "vision_headsweep.txt", func(m traces.Message, p *simspark.Perception) {
		a.Update(p)
		if a.vision.Fresh && len(last.Order) == 0 {
			if err := last.Parse(m.Payload); err != nil {
				t.Fatal(err)
			}
		}
	})
	var fr hal.CameraFrames
	n := testing.AllocsPerRun(3, func() {
		rig.render(a, &last, time.Second)
		rig.read(&fr)
	})
	if n != 0 {
		t.Errorf("%v allocations per See block", n)
	}
}

// newTestRig returns an adapter of player T 1 and a camera rig with the
// default render settings, closed when the test ends.
func newTestRig(t *testing.T) (*Adapter, *cameraRig) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Team, cfg.Player = "T", 1
	rig, err := newCameraRig(DefaultRenderConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rig.close)
	return NewAdapter(cfg), rig
}
