package robotino_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/robotd/robotd/backends/robotino"
	"github.com/robotd/robotd/backends/robotino/robotinotest"
	"github.com/robotd/robotd/backends/v4l2"
	"github.com/robotd/robotd/backends/v4l2/v4l2test"
	"github.com/robotd/robotd/hal"
)

// TestUSBCamera: a Robotino's USB camera is captured by the same code as
// the NAO's, started with the backend and stopped by Close.
func TestUSBCamera(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	link := filepath.Join(t.TempDir(), "ttyRobotino")
	ctl, err := robotinotest.Start(context.Background(), link, robotinotest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	cam := v4l2test.New(v4l2test.Options{Driver: "uvcvideo", Card: "USB camera"})
	cfg := testConfig(link)
	cfg.Camera = v4l2.DefaultConfig("/dev/video0")
	cfg.Camera.Width, cfg.Camera.Height = 320, 240
	info := hal.CameraInfo{Intrinsics: hal.FromFOV(320, 240, hal.Deg(60), hal.Deg(47))}
	b, err := robotino.New(cfg, slog.New(slog.DiscardHandler), robotino.Options{GPIO: &robotinotest.GPIO{},
		OpenCamera: func(path string) (v4l2.Device, error) { return cam.Open(path) }, Camera: info})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	img := bytes.Repeat([]byte{0x80, 0x10}, 320*240)
	var v hal.CameraFrames
	for {
		if _, err := b.Next(ctx); err != nil {
			t.Fatalf("Next: %v", err)
		}
		cam.Feed(v4l2test.Image{Data: img})
		b.ReadCamera(&v)
		if v.Cam[hal.CameraTop].Valid {
			break
		}
	}
	c := v.Cam[hal.CameraTop]
	if c.Width != 320 || c.Height != 240 || c.Info.Intrinsics != info.Intrinsics || v.Cam[hal.CameraBottom].Valid {
		t.Errorf("frames %+v", v)
	}
	f, ok := b.Frames().Acquire(c.Ref)
	if !ok || !bytes.Equal(f.Data, img) {
		t.Fatal("the frame's pixels are not the camera's")
	}
	f.Release()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if b.Frames().Free() != b.Frames().Len() {
		t.Errorf("%d of %d frames free after Close", b.Frames().Free(), b.Frames().Len())
	}
}
