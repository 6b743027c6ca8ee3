package v4l2_test

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/robotd/robotd/backends/v4l2"
	"github.com/robotd/robotd/backends/v4l2/v4l2test"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
)

const w, h = 32, 24 // small images keep the tests fast

func testConfig() v4l2.Config {
	c := v4l2.DefaultConfig("/dev/fake")
	c.Width, c.Height = w, h
	c.StallTimeout = config.Duration(300 * time.Millisecond)
	c.Backoff = config.Duration(5 * time.Millisecond)
	return c
}

// identity is a Clock that keeps the driver's timestamps.
func identity(ts time.Duration, _ bool) time.Duration { return ts }

func image(v byte) []byte { return bytes.Repeat([]byte{v}, w*h*2) }

// waitFor polls cond until it holds; the deadline only guards a hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

type rig struct {
	cam    *v4l2test.Camera
	pool   *hal.FramePool
	cap    *v4l2.Capture
	cancel context.CancelFunc
	done   chan struct{}
}

func start(t *testing.T, cfg v4l2.Config, opts v4l2test.Options) *rig {
	t.Helper()
	r := &rig{cam: v4l2test.New(opts), pool: hal.NewFramePool(4, cfg.FrameSize()), done: make(chan struct{})}
	var err error
	r.cap, err = v4l2.NewCapture(hal.CameraTop, cfg, r.pool, r.cam.Open, identity, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { defer close(r.done); r.cap.Run(ctx) }()
	t.Cleanup(r.stop)
	return r
}

func (r *rig) stop() {
	r.cancel()
	<-r.done
}

// deliver feeds imgs to the camera once it streams with enough buffers
// queued (a reset in between makes it try again).
func (r *rig) deliver(t *testing.T, imgs ...v4l2test.Image) {
	t.Helper()
	waitFor(t, "the camera to take the images", func() bool { return r.cam.Feed(imgs...) == len(imgs) })
}

// feed delivers imgs once the camera streams with a buffer free, and
// waits until the capture has published frames up to want.
func (r *rig) feed(t *testing.T, want uint64, imgs ...v4l2test.Image) {
	t.Helper()
	r.deliver(t, imgs...)
	waitFor(t, "the frames", func() bool { return r.cap.Stats().Frames >= want })
}

func TestCaptureKeepsTheNewest(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := start(t, testConfig(), v4l2test.Options{Driver: "uvcvideo"})
	r.feed(t, 1, v4l2test.Image{Data: image(1), Timestamp: time.Second, Monotonic: true})
	// Three ready at once: only the newest is published.
	r.feed(t, 2,
		v4l2test.Image{Data: image(2), Timestamp: 2 * time.Second},
		v4l2test.Image{Data: image(3), Timestamp: 3 * time.Second},
		v4l2test.Image{Data: image(4), Timestamp: 4 * time.Second, Monotonic: true})
	f, ok := r.cap.Acquire()
	if !ok {
		t.Fatal("no frame")
	}
	want := hal.Image{Camera: hal.CameraTop, Format: hal.FormatYUYV, Width: w, Height: h, Seq: 2, Exposure: 4 * time.Second}
	if f.Meta != want || !bytes.Equal(f.Data, image(4)) {
		t.Errorf("newest frame %+v (data[0] %d), want %+v with image 4", f.Meta, f.Data[0], want)
	}
	// The frame is the pool's: a Ref finds it.
	if g, ok := r.pool.Acquire(f.Ref()); !ok || g != f {
		t.Error("the published frame cannot be acquired by its Ref")
	} else {
		g.Release()
	}
	f.Release()
	st := r.cap.Stats()
	if st.Frames != 2 || st.Skipped != 2 || st.Dropped != 0 || st.Corrupt != 0 || !st.Streaming {
		t.Errorf("stats %+v", st)
	}
	// Every buffer went back to the driver.
	waitFor(t, "all buffers queued", func() bool { return r.cam.Queued() == 4 })
	r.stop()
	if errs := r.cam.Errors(); len(errs) > 0 {
		t.Fatalf("protocol violations: %v", errs)
	}
	if r.pool.Free() != r.pool.Len() {
		t.Errorf("%d of %d pool frames free after Run returned", r.pool.Free(), r.pool.Len())
	}
}

func TestControlsAndFlip(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, tc := range []struct {
		name     string
		edit     func(*v4l2.Config)
		controls []v4l2test.Control
		xu       []v4l2test.XUCall
	}{
		{"auto, no flip", func(*v4l2.Config) {}, []v4l2test.Control{
			{ID: v4l2.CIDExposureAuto, Value: v4l2.ExposureAperturePriority},
			{ID: v4l2.CIDAutoWhiteBalance, Value: 1}}, nil},
		{"manual, NAO top camera flip", func(c *v4l2.Config) {
			c.Controls = v4l2.Controls{Exposure: 120, Gain: 40, WhiteBalance: 4200}
			c.Flip = v4l2.FlipXU
		}, []v4l2test.Control{
			{ID: v4l2.CIDExposureAuto, Value: v4l2.ExposureManual}, {ID: v4l2.CIDExposureAbsolute, Value: 120},
			{ID: v4l2.CIDGain, Value: 40}, {ID: v4l2.CIDAutoWhiteBalance, Value: 0},
			{ID: v4l2.CIDWhiteBalanceTemperature, Value: 4200}},
			[]v4l2test.XUCall{{Unit: 3, Selector: 12, Query: 0x01, Data: []byte{1, 0}}, {Unit: 3, Selector: 13, Query: 0x01, Data: []byte{1, 0}}}},
		{"standard flip controls", func(c *v4l2.Config) { c.Flip = v4l2.FlipControls }, []v4l2test.Control{
			{ID: v4l2.CIDExposureAuto, Value: v4l2.ExposureAperturePriority}, {ID: v4l2.CIDAutoWhiteBalance, Value: 1},
			{ID: v4l2.CIDHFlip, Value: 1}, {ID: v4l2.CIDVFlip, Value: 1}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			tc.edit(&cfg)
			r := start(t, cfg, v4l2test.Options{})
			r.feed(t, 1, v4l2test.Image{Data: image(9)})
			r.stop()
			if got := r.cam.Controls(); !slices.Equal(got, tc.controls) {
				t.Errorf("controls %+v, want %+v", got, tc.controls)
			}
			if got := r.cam.XUCalls(); !slices.EqualFunc(got, tc.xu, func(a, b v4l2test.XUCall) bool {
				return a.Unit == b.Unit && a.Selector == b.Selector && a.Query == b.Query && bytes.Equal(a.Data, b.Data)
			}) {
				t.Errorf("extension unit %+v, want %+v", got, tc.xu)
			}
		})
	}
}

// TestResetWhenFramesStop: a camera that stops delivering is closed and
// opened again, with its controls set anew, and frames flow again; a
// frame a reader held across the reset is unchanged although the fake
// overwrote the driver's buffers when they were unmapped.
func TestResetWhenFramesStop(t *testing.T) {
	defer goleak.VerifyNone(t)
	cfg := testConfig()
	cfg.StallTimeout = config.Duration(40 * time.Millisecond)
	r := start(t, cfg, v4l2test.Options{})
	r.feed(t, 1, v4l2test.Image{Data: image(5)})
	held, ok := r.cap.Acquire()
	if !ok {
		t.Fatal("no frame")
	}
	waitFor(t, "a reset", func() bool { return r.cap.Stats().Resets >= 1 && r.cam.Opens() >= 2 })
	r.feed(t, 2, v4l2test.Image{Data: image(6)})
	if !bytes.Equal(held.Data, image(5)) || held.Meta.Seq != 1 {
		t.Errorf("a held frame changed across the reset: seq %d data[0] %d", held.Meta.Seq, held.Data[0])
	}
	held.Release()
	if f, ok := r.cap.Acquire(); !ok || f.Meta.Seq != 2 || !bytes.Equal(f.Data, image(6)) {
		t.Errorf("after the reset: %+v", f)
	} else {
		f.Release()
	}
	if n := len(r.cam.Controls()); n < 4 {
		t.Errorf("%d controls set over two opens; each open sets 2", n)
	}
	r.stop()
	if errs := r.cam.Errors(); len(errs) > 0 {
		t.Fatalf("protocol violations: %v", errs)
	}
}

func TestRefusedAndBrokenCameras(t *testing.T) {
	defer goleak.VerifyNone(t)
	t.Run("open fails, then works", func(t *testing.T) {
		r := start(t, testConfig(), v4l2test.Options{FailOpens: 3})
		r.feed(t, 1, v4l2test.Image{Data: image(1)})
		if st := r.cap.Stats(); st.Resets < 3 {
			t.Errorf("stats %+v after 3 failed opens", st)
		}
	})
	t.Run("controls refused: frames still flow", func(t *testing.T) {
		cfg := testConfig()
		cfg.Flip = v4l2.FlipXU
		r := start(t, cfg, v4l2test.Options{RefuseControls: true})
		r.feed(t, 1, v4l2test.Image{Data: image(1)})
	})
	t.Run("wrong size or no streaming: never streams", func(t *testing.T) {
		for _, o := range []v4l2test.Options{{Width: 320, Height: 240}, {NoStreaming: true}} {
			r := start(t, testConfig(), o)
			waitFor(t, "reopens", func() bool { return r.cam.Opens() >= 3 })
			if r.cam.Streaming() || r.cap.Stats().Streaming {
				t.Errorf("%+v: streams", o)
			}
			r.stop()
		}
	})
	t.Run("a buffer of the wrong size is not published", func(t *testing.T) {
		r := start(t, testConfig(), v4l2test.Options{})
		r.deliver(t, v4l2test.Image{Data: image(1), BytesUsed: 100})
		waitFor(t, "the corrupt count", func() bool { return r.cap.Stats().Corrupt == 1 })
		if _, ok := r.cap.Acquire(); ok {
			t.Error("a short buffer was published")
		}
	})
	t.Run("pool exhausted: frames dropped, not overwritten", func(t *testing.T) {
		r := start(t, testConfig(), v4l2test.Options{})
		r.feed(t, 1, v4l2test.Image{Data: image(1)})
		var held []*hal.Frame
		for {
			f, ok := r.pool.Get()
			if !ok {
				break
			}
			held = append(held, f) // the test takes every free frame
		}
		r.deliver(t, v4l2test.Image{Data: image(2)})
		waitFor(t, "the drop", func() bool { return r.cap.Stats().Dropped == 1 })
		if f, ok := r.cap.Acquire(); !ok || !bytes.Equal(f.Data, image(1)) {
			t.Error("the newest frame changed while the pool was exhausted")
		} else {
			f.Release()
		}
		for _, f := range held {
			r.pool.Discard(f)
		}
	})
}

// TestBothCamerasInParallel runs two captures, each in its own goroutine
// under one context, into one pool, and checks each camera's frames.
func TestBothCamerasInParallel(t *testing.T) {
	defer goleak.VerifyNone(t)
	cfg := testConfig()
	pool := hal.NewFramePool(8, cfg.FrameSize())
	cams := [2]*v4l2test.Camera{v4l2test.New(v4l2test.Options{}), v4l2test.New(v4l2test.Options{})}
	var caps [2]*v4l2.Capture
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, id := range []hal.CameraID{hal.CameraTop, hal.CameraBottom} {
		c, err := v4l2.NewCapture(id, cfg, pool, cams[i].Open, identity, nil)
		if err != nil {
			t.Fatal(err)
		}
		caps[i] = c
		wg.Go(func() { c.Run(ctx) })
	}
	for round := range 20 {
		for i := range cams {
			waitFor(t, "the camera to take the image", func() bool { return cams[i].Feed(v4l2test.Image{Data: image(byte(10*i + round))}) == 1 })
		}
		for i := range cams {
			waitFor(t, "frames", func() bool { return caps[i].Stats().Frames >= uint64(round+1) })
		}
	}
	for i, c := range caps {
		f, ok := c.Acquire()
		if !ok || f.Meta.Camera != c.Camera() || !bytes.Equal(f.Data, image(byte(10*i+19))) {
			t.Errorf("camera %d: %+v", i, f)
			continue
		}
		f.Release()
	}
	cancel()
	wg.Wait()
	if pool.Free() != pool.Len() {
		t.Errorf("%d of %d frames free after both stopped", pool.Free(), pool.Len())
	}
}

func TestConfigValidate(t *testing.T) {
	if err := v4l2.DefaultConfig("/dev/video0").Validate(); err != nil {
		t.Fatal(err)
	}
	if err := v4l2.DefaultConfig("").Validate(); err != nil {
		t.Fatalf("an unused camera: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*v4l2.Config)
	}{
		{"odd width", func(c *v4l2.Config) { c.Width = 641 }},
		{"height", func(c *v4l2.Config) { c.Height = 0 }},
		{"fps", func(c *v4l2.Config) { c.FPS = 0 }},
		{"buffers", func(c *v4l2.Config) { c.Buffers = 1 }},
		{"stall", func(c *v4l2.Config) { c.StallTimeout = 0 }},
		{"flip", func(c *v4l2.Config) { c.Flip = "upside-down" }},
		{"exposure", func(c *v4l2.Config) { c.Controls.Exposure = 0 }},
		{"gain", func(c *v4l2.Config) { c.Controls.Gain = 5000 }},
		{"white balance", func(c *v4l2.Config) { c.Controls.WhiteBalance = 9000 }},
	} {
		c := v4l2.DefaultConfig("/dev/video0")
		tc.edit(&c)
		if c.Validate() == nil {
			t.Errorf("%s: accepted %+v", tc.name, c)
		}
	}
	pool := hal.NewFramePool(2, 100)
	if _, err := v4l2.NewCapture(hal.CameraTop, v4l2.DefaultConfig("/dev/video0"), pool, nil, nil, nil); err == nil {
		t.Error("a pool too small for 640×480 was accepted")
	}
}
