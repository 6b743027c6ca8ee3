package v4l2

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/robotd/robotd/hal"
)

// Set is a robot's cameras as a backend provides them (hal.CameraSensor):
// one Capture per configured camera, all into one pool, each running in
// its own goroutine; the backend's goroutine reads the newest frames and
// pairs each with the robot's posture at its exposure.
//
// Read holds a reference to every frame it put on the blackboard until
// the next Read, so that modules can acquire the frames during the tick.
type Set struct {
	pool *hal.FramePool
	caps [hal.NumCameras]*Capture
	info [hal.NumCameras]hal.CameraInfo
	cfgs [hal.NumCameras]Config

	held    [hal.NumCameras]*hal.Frame
	lastSeq [hal.NumCameras]uint64
	hist    History
	wg      sync.WaitGroup
}

// poolFrames is the pool's size: per camera the newest frame, the one on
// the blackboard, one a reader may still hold, and one being filled.
const poolFrames = 4

// NewSet returns the cameras of cfgs (a camera whose Device is "" is
// left out) with their models info, Intrinsics scaled to each camera's
// image size. open nil opens the kernel's device nodes.
func NewSet(cfgs [hal.NumCameras]Config, info [hal.NumCameras]hal.CameraInfo, open Opener, log *slog.Logger) (*Set, error) {
	size, n := 0, 0
	for i, c := range cfgs {
		if c.Device == "" {
			continue
		}
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("v4l2: %s camera: %w", hal.CameraID(i), err)
		}
		size = max(size, c.FrameSize())
		n++
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Set{cfgs: cfgs}
	for i := range info {
		s.info[i] = info[i]
		s.info[i].Camera = hal.CameraID(i)
		s.info[i].Intrinsics = info[i].Intrinsics.Scaled(cfgs[i].Width, cfgs[i].Height)
	}
	s.pool = hal.NewFramePool(max(1, n*poolFrames), size)
	for i, c := range cfgs {
		if c.Device == "" {
			continue
		}
		capt, err := NewCapture(hal.CameraID(i), c, s.pool, open, nil, log)
		if err != nil {
			return nil, err
		}
		s.caps[i] = capt
	}
	return s, nil
}

// Start starts a goroutine per camera, capturing until ctx is done;
// clock maps the driver's timestamps to the backend's clock.
// Call it once.
func (s *Set) Start(ctx context.Context, clock Clock) {
	for _, capt := range s.caps {
		if capt == nil {
			continue
		}
		if clock != nil {
			capt.clock = clock
		}
		s.wg.Go(func() { capt.Run(ctx) })
	}
}

// Wait waits for the captures' goroutines (after their context ended)
// and releases the frames Read holds.
func (s *Set) Wait() {
	s.wg.Wait()
	for i, f := range s.held {
		if f != nil {
			f.Release()
			s.held[i] = nil
		}
	}
}

// Frames returns the pool.
func (s *Set) Frames() *hal.FramePool { return s.pool }

// Capture returns camera id's capture, nil if it has none.
func (s *Set) Capture(id hal.CameraID) *Capture { return s.caps[id] }

// Record adds the robot's posture at time t (the backend's clock) to the
// history frames are paired with. Call it from Read's goroutine.
func (s *Set) Record(t time.Duration, joints *[hal.NumJoints]hal.Radians, torso hal.BodyAngles) {
	s.hist.Add(t, joints, torso)
}

// Read fills v with every camera's newest frame: New if it arrived since
// the last Read, with the posture recorded nearest to its exposure.
func (s *Set) Read(v *hal.CameraFrames) {
	for i := range v.Cam {
		out := &v.Cam[i]
		c := s.caps[i]
		if c == nil {
			*out = hal.CameraFrame{Info: s.info[i]}
			continue
		}
		f, ok := c.Acquire()
		if !ok {
			*out = hal.CameraFrame{Info: s.info[i]}
			continue
		}
		if old := s.held[i]; old != nil {
			old.Release()
		}
		s.held[i] = f
		out.Valid, out.New = true, s.lastSeq[i] != f.Meta.Seq
		s.lastSeq[i] = f.Meta.Seq
		out.Ref, out.Image, out.Info = f.Ref(), f.Meta, s.info[i]
		out.JointsTime = s.hist.At(f.Meta.Exposure, &out.Joints, &out.Torso)
	}
}

// historyLen is how many postures History keeps: 0.5 s of LoLA's 12 ms
// cycle, more than a frame's latency.
const historyLen = 42

// History is the robot's recent postures, to pair images with the joint
// angles and torso orientation at their exposure. The zero value is
// empty. It is for one goroutine.
type History struct {
	n, next int
	t       [historyLen]time.Duration
	joints  [historyLen][hal.NumJoints]hal.Radians
	torso   [historyLen]hal.BodyAngles
}

// Add records the posture at time t; times must not decrease.
func (h *History) Add(t time.Duration, joints *[hal.NumJoints]hal.Radians, torso hal.BodyAngles) {
	h.t[h.next], h.joints[h.next], h.torso[h.next] = t, *joints, torso
	h.next = (h.next + 1) % historyLen
	h.n = min(h.n+1, historyLen)
}

// At copies the recorded posture nearest in time to t into joints and
// torso and returns its time; with nothing recorded it leaves them and
// returns 0.
func (h *History) At(t time.Duration, joints *[hal.NumJoints]hal.Radians, torso *hal.BodyAngles) time.Duration {
	if h.n == 0 {
		return 0
	}
	best, bestD := -1, time.Duration(0)
	for k := range h.n {
		i := (h.next - 1 - k + historyLen) % historyLen
		d := h.t[i] - t
		if d < 0 {
			d = -d
		}
		if best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	*joints, *torso = h.joints[best], h.torso[best]
	return h.t[best]
}
