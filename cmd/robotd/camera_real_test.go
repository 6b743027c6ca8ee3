//go:build !sim

package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/robotd/robotd/backends/nao/naotest"
	"github.com/robotd/robotd/backends/v4l2"
	"github.com/robotd/robotd/backends/v4l2/v4l2test"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/internal/testimages"
	"github.com/robotd/robotd/modules/vision/camera"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/lola"
	"github.com/robotd/robotd/runner"
)

// visionCheck is what the stand-in vision stage found, on the board as
// "vision.check".
type visionCheck struct {
	// Frames counts new frames per camera; Matched those whose pixels
	// were the image fed as that frame; Lost those whose Ref did not
	// acquire.
	Frames, Matched, Lost [hal.NumCameras]int
	// Posed counts top frames whose joint angles are a LoLA map's (the
	// script's head yaw pattern, the sample's pitch) and whose torso
	// angles are the script's.
	Posed int
	// Ball is the last ball the stage reported, from the labelled pixel.
	Ball hal.Vec2
}

var visionCheckKey = blackboard.NewKey[visionCheck]("vision.check")

// labelVision stands in for the image-processing pipeline (package
// modules/vision), which is not here: it reads the cameras' frames from
// the blackboard, acquires their pixels, checks them against the images
// the test fed, and reports the hand-labelled ball of each top image,
// projected to the ground with the frame's camera matrix, as what it saw.
type labelVision struct {
	pool   *hal.FramePool
	expect func(cam hal.CameraID, seq uint64) (hash uint64, img *testimages.Image)
	posed  func(yaw, pitch hal.Radians, torso hal.BodyAngles) bool

	frames *blackboard.Reader[hal.CameraFrames]
	out    *blackboard.Writer[hal.Vision]
	check  *blackboard.Writer[visionCheck]
	st     visionCheck
	cf     hal.CameraFrames
}

func (v *labelVision) Name() string { return "vision" }

func (v *labelVision) Wire(b *blackboard.Board) error {
	var err error
	if v.frames, err = blackboard.Read(b, v.Name(), msg.CameraKey); err != nil {
		return err
	}
	if v.out, err = blackboard.Write(b, v.Name(), msg.VisionKey); err != nil {
		return err
	}
	v.check, err = blackboard.Write(b, v.Name(), visionCheckKey)
	return err
}

func (v *labelVision) Tick(hal.Tick) error {
	v.frames.Load(&v.cf)
	var seen hal.Vision
	for i := range v.cf.Cam {
		c := &v.cf.Cam[i]
		if !c.Valid || !c.New {
			continue
		}
		v.st.Frames[i]++
		f, ok := v.pool.Acquire(c.Ref)
		if !ok {
			v.st.Lost[i]++
			continue
		}
		h := fnv.New64a()
		h.Write(f.Data)
		want, img := v.expect(c.Camera, c.Seq)
		if h.Sum64() == want && f.Meta == c.Image {
			v.st.Matched[i]++
		}
		f.Release()
		if c.Camera != hal.CameraTop || img == nil {
			continue
		}
		if v.posed(c.Joints[hal.HeadYaw], c.Joints[hal.HeadPitch], c.Torso) && c.JointsTime > 0 {
			v.st.Posed++
		}
		m := camera.FromFrameLegs(c, body.NAO().Leg)
		ball := img.Labels.Balls[0]
		if x, y, ok := m.ImageToGround(ball.CX, ball.CY); ok {
			p := hal.Vec2{X: x, Y: y}
			seen.Fresh = true
			seen.Add(hal.Observation{Kind: hal.ObjBall, Pos: p, Distance: hal.Metres(math.Hypot(x, y)), Bearing: hal.Radians(math.Atan2(y, x))})
			v.st.Ball = p
		}
	}
	v.out.Set(seen)
	v.check.Set(v.st)
	return nil
}

// TestRealDaemonSeesThroughFakeCameras is the robot build with cameras:
// robotd on the fake LoLA with two fake V4L2 cameras fed the three real
// NAO images (top) and plain images (bottom). Every frame reaches the
// blackboard (hal.camera) with its pixels intact in the pool and the
// joint and torso angles of a LoLA sensor map, the vision stage plugged
// in through robot.Vision gets them, and what it reports reaches
// perception's ball model.
func TestRealDaemonSeesThroughFakeCameras(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	imgs, err := testimages.HTWK()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "robotd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "robocup")

	// LoLA turns the head a little with every map, so that a frame's
	// angles tell which map they came from; the torso leans.
	const yaw0, yawStep, pitch = 0.3, 1e-5, 0.1
	torso := hal.BodyAngles{Roll: 0.02, Pitch: 0.05}
	srv, err := naotest.Start(ctx, sock, naotest.Options{LockStep: true, Script: func(seq uint64, s *lola.Sensors) {
		s.Position[hal.HeadYaw] = float32(yaw0 + yawStep*float64(seq))
		s.Position[hal.HeadPitch] = pitch
		s.Angles = [2]float32{float32(torso.Roll), float32(torso.Pitch)}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	posed := func(yaw, p hal.Radians, tr hal.BodyAngles) bool {
		k := (float64(yaw) - yaw0) / yawStep
		return k >= 0.5 && math.Abs(k-math.Round(k)) < 0.05 && p == hal.Radians(float32(pitch)) &&
			tr.Roll == hal.Radians(float32(torso.Roll)) && tr.Pitch == hal.Radians(float32(torso.Pitch))
	}

	// The cameras. The test feeds one frame at a time and waits for it
	// on the board, so frame n of a camera is the n-th image fed to it:
	// one of the real images (top) or a plain image of value n (bottom).
	cams := [hal.NumCameras]*v4l2test.Camera{v4l2test.New(v4l2test.Options{Driver: "uvcvideo"}), v4l2test.New(v4l2test.Options{Driver: "uvcvideo"})}
	open := func(path string) (v4l2.Device, error) {
		switch path {
		case "/dev/video-top":
			return cams[hal.CameraTop].Open(path)
		case "/dev/video-bottom":
			return cams[hal.CameraBottom].Open(path)
		}
		return nil, fmt.Errorf("no camera at %s", path)
	}
	hashOf := func(b []byte) uint64 { h := fnv.New64a(); h.Write(b); return h.Sum64() }
	plain := func(n int) []byte {
		b := make([]byte, 640*480*2)
		for i := range b {
			b[i] = byte(n)
		}
		return b
	}
	var mu sync.Mutex
	var fed [hal.NumCameras][]int // per camera and frame: the image index (top) or value (bottom)
	expect := func(cam hal.CameraID, seq uint64) (uint64, *testimages.Image) {
		mu.Lock()
		defer mu.Unlock()
		if seq == 0 || seq > uint64(len(fed[cam])) {
			return 0, nil
		}
		k := fed[cam][seq-1]
		if cam == hal.CameraTop {
			return hashOf(imgs[k].YUYV), &imgs[k]
		}
		return hashOf(plain(k)), nil
	}
	var pool *hal.FramePool
	h := hooks{openCamera: open, vision: func(frames *hal.FramePool) runner.Module {
		mu.Lock()
		pool = frames
		mu.Unlock()
		return &labelVision{pool: frames, expect: expect, posed: posed}
	}}
	d := startRealDaemonWith(t, fmt.Sprintf(`{"real": {"kind": "nao", "nao": {"socket": %q, "stiffness_ramp": "1ns",
		"cameras": {"top": {"stall_timeout": "10s"}, "bottom": {"stall_timeout": "10s"}}}}}`, sock), h)
	if err := srv.WaitCommands(ctx, 10); err != nil {
		t.Fatalf("%v\n%s", err, d.stderr.String())
	}
	mu.Lock()
	if pool == nil {
		t.Fatal("the daemon did not build the vision stage")
	}
	mu.Unlock()

	var check visionCheck
	// show feeds image k (top) or value k (bottom) as the camera's next
	// frame and waits until the vision stage has had it.
	show := func(cam hal.CameraID, k int) {
		t.Helper()
		data := plain(k)
		if cam == hal.CameraTop {
			data = imgs[k].YUYV
		}
		mu.Lock()
		fed[cam] = append(fed[cam], k)
		n := len(fed[cam])
		mu.Unlock()
		deadline := time.Now().Add(30 * time.Second)
		for cams[cam].Feed(v4l2test.Image{Data: data}) != 1 {
			if time.Now().After(deadline) {
				t.Fatalf("the %s camera never took frame %d\n%s", cam, n, d.stderr.String())
			}
			time.Sleep(time.Millisecond)
		}
		for {
			d.entry(visionCheckKey.Name(), &check)
			if check.Frames[cam] >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("frame %d of the %s camera never reached the vision stage: %+v\n%s", n, cam, check, d.stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	const rounds = 6
	for n := range rounds {
		show(hal.CameraTop, n%len(imgs))
		show(hal.CameraBottom, n+1)
	}
	t.Logf("vision stage: %+v", check)
	for i := range hal.NumCameras {
		if check.Frames[i] != rounds || check.Matched[i] != rounds || check.Lost[i] != 0 {
			t.Errorf("%s camera: %d frames, %d with the pixels fed, %d lost; want %d, all matching", hal.CameraID(i), check.Frames[i], check.Matched[i], check.Lost[i], rounds)
		}
	}
	if check.Posed != rounds {
		t.Errorf("%d of %d top frames carry a LoLA map's joint and torso angles", check.Posed, rounds)
	}

	// The board's hal.camera: the newest frames, with their angles.
	var frames hal.CameraFrames
	d.entry(msg.CameraKey.Name(), &frames)
	var tick hal.Tick
	d.entry(msg.TickKey.Name(), &tick)
	for i, c := range frames.Cam {
		if !c.Valid || c.Seq != rounds || c.Width != 640 || c.Height != 480 || c.Format != hal.FormatYUYV || c.Camera != hal.CameraID(i) {
			t.Errorf("hal.camera[%d] = valid %v seq %d %d×%d format %d camera %v", i, c.Valid, c.Seq, c.Width, c.Height, c.Format, c.Camera)
		}
		if !posed(c.Joints[hal.HeadYaw], c.Joints[hal.HeadPitch], c.Torso) || c.JointsTime <= 0 || c.JointsTime > tick.Time {
			t.Errorf("hal.camera[%d]: head %v %v, torso %+v at %v (tick %v): not a LoLA map's", i, c.Joints[hal.HeadYaw], c.Joints[hal.HeadPitch], c.Torso, c.JointsTime, tick.Time)
		}
		if c.Info.Mounting != body.NAOCamera(hal.CameraID(i)).Mounting || c.Info.Intrinsics.Width != 640 {
			t.Errorf("hal.camera[%d]: camera model %+v", i, c.Info)
		}
	}

	// Perception takes the vision stage's ball: keep showing the first
	// image until the ball model holds it.
	var ball msg.Ball
	for tries := 0; ; tries++ {
		show(hal.CameraTop, 0)
		d.entry(msg.BallKey.Name(), &ball)
		// Nothing else reports a ball: a valid ball model in the direction
		// the vision stage saw it is the stage's. (Behaviour walks towards
		// it, and the odometry of that walk, which the fake LoLA does
		// not make, moves the estimate between frames.)
		bearing := math.Remainder(math.Atan2(ball.Pos.Y, ball.Pos.X)-math.Atan2(check.Ball.Y, check.Ball.X), 2*math.Pi)
		if ball.Valid && math.Abs(bearing) < 0.3 {
			t.Logf("perception's ball at (%.2f, %.2f) m; the vision stage saw it at (%.2f, %.2f) m", ball.Pos.X, ball.Pos.Y, check.Ball.X, check.Ball.Y)
			break
		}
		if tries == 300 {
			t.Fatalf("perception's ball %+v never came near the vision stage's (%.2f, %.2f)\n%s", ball, check.Ball.X, check.Ball.Y, d.stderr.String())
		}
	}
	if v, _ := d.metric(`robotd_camera_frames_total{camera="top"}`); v < rounds {
		t.Errorf("robotd_camera_frames_total{camera=\"top\"} = %v", v)
	}
	if errs := append(cams[hal.CameraTop].Errors(), cams[hal.CameraBottom].Errors()...); len(errs) > 0 {
		t.Fatalf("the fake cameras saw protocol violations: %v", errs)
	}

	// Shutdown ends both cameras' goroutines (goleak, above) and releases
	// every frame.
	d.cancel()
	select {
	case code := <-d.done:
		d.done <- code // for the cleanup
		if code != exitOK {
			t.Fatalf("exit %d\n%s", code, d.stderr.String())
		}
	case <-ctx.Done():
		t.Fatalf("robotd did not stop: %v", ctx.Err())
	}
	mu.Lock()
	defer mu.Unlock()
	if pool.Free() != pool.Len() {
		t.Errorf("%d of %d camera frames free after shutdown", pool.Free(), pool.Len())
	}
}
