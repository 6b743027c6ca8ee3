package v4l2_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/robotd/robotd/backends/v4l2"
	"github.com/robotd/robotd/backends/v4l2/v4l2test"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
)

func TestHistoryNearest(t *testing.T) {
	var h v4l2.History
	var j [hal.NumJoints]hal.Radians
	var torso hal.BodyAngles
	if h.At(time.Second, &j, &torso) != 0 {
		t.Fatal("an empty history gave a posture")
	}
	for k := range 100 { // more than it keeps: the oldest go
		j[hal.HeadYaw] = hal.Radians(k)
		h.Add(time.Duration(k)*12*time.Millisecond, &j, hal.BodyAngles{Pitch: hal.Radians(k) / 100})
	}
	for _, tc := range []struct {
		at   time.Duration
		want int
	}{{99 * 12 * time.Millisecond, 99}, {90*12*time.Millisecond + 5*time.Millisecond, 90}, {90*12*time.Millisecond + 7*time.Millisecond, 91},
		{time.Hour, 99}, {0, 100 - 42}} {
		var got [hal.NumJoints]hal.Radians
		var gt hal.BodyAngles
		ts := h.At(tc.at, &got, &gt)
		if int(got[hal.HeadYaw]) != tc.want || ts != time.Duration(tc.want)*12*time.Millisecond || gt.Pitch != hal.Radians(tc.want)/100 {
			t.Errorf("At(%v) = sample %v at %v, want sample %d", tc.at, got[hal.HeadYaw], ts, tc.want)
		}
	}
}

// TestSetPairsFramesWithPostures runs a top and a bottom camera of
// different sizes as a backend would and reads them as the runner does.
func TestSetPairsFramesWithPostures(t *testing.T) {
	defer goleak.VerifyNone(t)
	top, bottom := testConfig(), testConfig()
	bottom.Width, bottom.Height = 16, 16
	cams := [2]*v4l2test.Camera{v4l2test.New(v4l2test.Options{}), v4l2test.New(v4l2test.Options{})}
	open := func(path string) (v4l2.Device, error) {
		if path == "/dev/bottom" {
			return cams[1].Open(path)
		}
		return cams[0].Open(path)
	}
	bottom.Device = "/dev/bottom"
	info := [hal.NumCameras]hal.CameraInfo{body.NAOCamera(hal.CameraTop), body.NAOCamera(hal.CameraBottom)}
	s, err := v4l2.NewSet([hal.NumCameras]v4l2.Config{top, bottom}, info, open, nil)
	if err != nil {
		t.Fatal(err)
	}
	var v hal.CameraFrames
	s.Read(&v)
	if v.Cam[0].Valid || v.Cam[1].Valid || v.Cam[1].Info.Camera != hal.CameraBottom {
		t.Fatalf("before start: %+v", v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx, identity)
	var j [hal.NumJoints]hal.Radians
	for k := range 10 {
		j[hal.HeadPitch] = hal.Radians(k) / 10
		s.Record(time.Duration(k)*10*time.Millisecond, &j, hal.BodyAngles{Roll: hal.Radians(k) / 100})
	}
	waitFor(t, "top", func() bool {
		return cams[0].Feed(v4l2test.Image{Data: image(1), Timestamp: 31 * time.Millisecond}) == 1
	})
	waitFor(t, "bottom", func() bool {
		return cams[1].Feed(v4l2test.Image{Data: bytes.Repeat([]byte{2}, 16*16*2), Timestamp: 78 * time.Millisecond}) == 1
	})
	waitFor(t, "both frames", func() bool {
		return s.Capture(hal.CameraTop).Stats().Frames == 1 && s.Capture(hal.CameraBottom).Stats().Frames == 1
	})
	s.Read(&v)
	for i, want := range []struct {
		sample int
		size   int
	}{{3, w * h * 2}, {8, 16 * 16 * 2}} {
		c := v.Cam[i]
		if !c.Valid || !c.New || c.Camera != hal.CameraID(i) || c.JointsTime != time.Duration(want.sample)*10*time.Millisecond ||
			c.Joints[hal.HeadPitch] != hal.Radians(want.sample)/10 || c.Torso.Roll != hal.Radians(want.sample)/100 {
			t.Errorf("camera %d: %+v, want the posture of sample %d", i, c, want.sample)
		}
		if c.Info.Intrinsics.Width != c.Width || c.Info.Intrinsics.Height != c.Height {
			t.Errorf("camera %d: intrinsics for %d×%d on a %d×%d image", i, c.Info.Intrinsics.Width, c.Info.Intrinsics.Height, c.Width, c.Height)
		}
		f, ok := s.Frames().Acquire(c.Ref)
		if !ok || len(f.Data) != want.size || f.Data[0] != byte(i+1) {
			t.Errorf("camera %d: the Ref on the board does not give its pixels", i)
			continue
		}
		f.Release()
	}
	s.Read(&v)
	if v.Cam[0].New || !v.Cam[0].Valid {
		t.Errorf("a frame read twice is still New: %+v", v.Cam[0])
	}
	cancel()
	s.Wait()
	if s.Frames().Free() != s.Frames().Len() {
		t.Errorf("%d of %d frames free after Wait", s.Frames().Free(), s.Frames().Len())
	}
}
