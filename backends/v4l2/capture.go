// Package v4l2 captures YUYV images from Video4Linux2 devices in pure Go
// (ioctl and mmap through golang.org/x/sys/unix): the NAO v6's two
// OV5640 cameras behind uvcvideo, and any UVC camera, such as a
// Robotino's.
//
// A Capture streams one camera in its own goroutine (Run, under a
// context): mmap buffers are filled by the driver in turn; after each
// wait every ready buffer is dequeued, the newest one's image is copied
// into a frame of the pool (hal.FramePool) and published, and every
// buffer goes straight back to the driver. The copy (one per captured
// frame, not per reader or tick) keeps the driver's buffers out of the
// readers' hands, so a camera can be reset, its buffers unmapped, while a
// module still reads its last frame.
//
// After every open the capture sets the format, the frame rate, the
// controls of Config.Controls and the flip; a camera that delivers
// nothing for Config.StallTimeout, or fails, is closed and opened again
// after Config.Backoff.
package v4l2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/framepool"
)

// The NAO v6 camera's UVC extension unit (as B-Human's and HULKs' NAO v6
// camera drivers use it): unit 3; selectors 12 and 13 flip the image
// horizontally and vertically (2 bytes, little-endian 0 or 1), selector
// 14 reads and writes the sensor's registers (5 bytes: 1 to write or 0 to
// read, the 16-bit address and value big-endian).
const (
	xuUnit          = 3
	xuHFlip         = 12
	xuVFlip         = 13
	xuRegister      = 14
	xuRegisterBytes = 5
)

// Opener opens a device node.
type Opener func(path string) (Device, error)

// OpenFile opens a kernel device (Open).
func OpenFile(path string) (Device, error) { return Open(path) }

// Clock maps a buffer's timestamp to the backend's clock. monotonic says
// whether ts is on CLOCK_MONOTONIC; if not, the clock uses the time of
// the call.
type Clock func(ts time.Duration, monotonic bool) time.Duration

// MonotonicClock returns a Clock that measures time from start, as the
// backends' tick clocks do (Go's monotonic clock is CLOCK_MONOTONIC on
// Linux, the clock of uvcvideo's timestamps).
func MonotonicClock(start time.Time) Clock {
	return func(ts time.Duration, monotonic bool) time.Duration {
		since := time.Since(start)
		if !monotonic {
			return since
		}
		var now unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
			return since
		}
		// CLOCK_MONOTONIC at start is now's reading less the time since.
		return ts - (time.Duration(now.Nano()) - since)
	}
}

// Stats counts what a capture did since it started.
type Stats struct {
	// Frames counts published frames.
	Frames uint64
	// Skipped counts frames left out because a newer one was ready.
	Skipped uint64
	// Dropped counts frames lost because every pool frame was in use.
	Dropped uint64
	// Corrupt counts buffers of the wrong size.
	Corrupt uint64
	// Resets counts closes and reopens after a stall or an error.
	Resets uint64
	// Streaming is true while the device streams.
	Streaming bool
}

// Capture streams one camera into a pool.
type Capture struct {
	cam   hal.CameraID
	cfg   Config
	open  Opener
	pool  *hal.FramePool
	clock Clock
	log   *slog.Logger

	latest framepool.Latest[hal.Image]
	seq    uint64

	frames, skipped, dropped, corrupt, resets atomic.Uint64
	streaming                                 atomic.Bool

	logMu sync.Mutex
	logAt time.Time
}

// NewCapture returns a capture of camera cam with cfg into pool, whose
// frames must hold cfg.FrameSize() bytes.
func NewCapture(cam hal.CameraID, cfg Config, pool *hal.FramePool, open Opener, clock Clock, log *slog.Logger) (*Capture, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("v4l2: %s camera: %w", cam, err)
	}
	if cfg.Device == "" {
		return nil, fmt.Errorf("v4l2: %s camera: no device", cam)
	}
	if f, ok := pool.Get(); ok {
		size := len(f.Buffer())
		pool.Discard(f)
		if size < cfg.FrameSize() {
			return nil, fmt.Errorf("v4l2: %s camera: pool frames of %d bytes cannot hold %d×%d YUYV", cam, size, cfg.Width, cfg.Height)
		}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if open == nil {
		open = OpenFile
	}
	if clock == nil {
		clock = MonotonicClock(time.Now())
	}
	return &Capture{cam: cam, cfg: cfg, open: open, pool: pool, clock: clock,
		log: log.With("camera", cam.String(), "device", cfg.Device)}, nil
}

// Camera returns which camera this is.
func (c *Capture) Camera() hal.CameraID { return c.cam }

// Config returns the capture's configuration.
func (c *Capture) Config() Config { return c.cfg }

// Acquire returns the newest frame with a reference the caller must
// Release, or false before the first.
func (c *Capture) Acquire() (*hal.Frame, bool) { return c.latest.Acquire() }

// Stats returns the counters. Safe for concurrent use.
func (c *Capture) Stats() Stats {
	return Stats{Frames: c.frames.Load(), Skipped: c.skipped.Load(), Dropped: c.dropped.Load(),
		Corrupt: c.corrupt.Load(), Resets: c.resets.Load(), Streaming: c.streaming.Load()}
}

// errStalled ends a stream that delivers nothing.
var errStalled = errors.New("no frame")

// Run captures until ctx is done: open, stream, and on a stall or an
// error close, wait Backoff and open again. On return it has closed the
// device and released the newest frame.
func (c *Capture) Run(ctx context.Context) {
	defer c.latest.Set(nil)
	first := true
	for ctx.Err() == nil {
		if !first {
			c.resets.Add(1)
			select {
			case <-ctx.Done():
				return
			case <-time.After(c.cfg.Backoff.D()):
			}
		}
		first = false
		dev, err := c.open(c.cfg.Device)
		if err != nil {
			c.warn("cannot open the camera; retrying", err)
			continue
		}
		err = c.stream(ctx, dev)
		c.streaming.Store(false)
		if cerr := dev.Close(); cerr != nil {
			c.warn("closing the camera", cerr)
		}
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, errStalled):
			c.log.Warn("the camera stopped delivering frames; resetting it", "after", c.cfg.StallTimeout.D())
		case err != nil:
			c.warn("camera failed; resetting it", err)
		}
	}
}

// warn logs at most once a second (a camera that is gone fails every
// Backoff).
func (c *Capture) warn(msg string, err error) {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	if now := time.Now(); now.After(c.logAt) {
		c.logAt = now.Add(time.Second)
		c.log.Warn(msg+" (logged at most once a second)", "err", err)
	}
}

// setup configures an open device and starts streaming; it returns the
// mapped buffers.
func (c *Capture) setup(dev Device) ([][]byte, error) {
	caps, err := dev.Capabilities()
	if err != nil {
		return nil, err
	}
	if !caps.Capture || !caps.Streaming {
		return nil, fmt.Errorf("v4l2: %s (%s, driver %s) cannot stream video capture", c.cfg.Device, caps.Card, caps.Driver)
	}
	f, err := dev.SetFormat(c.cfg.Width, c.cfg.Height, PixYUYV)
	if err != nil {
		return nil, err
	}
	if f.Width != c.cfg.Width || f.Height != c.cfg.Height || f.PixelFormat != PixYUYV {
		return nil, fmt.Errorf("v4l2: %s gives %d×%d in format %#x, not %d×%d YUYV", c.cfg.Device,
			f.Width, f.Height, f.PixelFormat, c.cfg.Width, c.cfg.Height)
	}
	if f.BytesPerLine != 0 && f.BytesPerLine != 2*c.cfg.Width {
		return nil, fmt.Errorf("v4l2: %s pads its lines to %d bytes; %d expected", c.cfg.Device, f.BytesPerLine, 2*c.cfg.Width)
	}
	if err := dev.SetFrameRate(c.cfg.FPS); err != nil {
		c.warn("the camera refused the frame rate", err)
	}
	for _, err := range c.applyControls(dev) {
		c.warn("the camera refused a control", err)
	}
	n, err := dev.RequestBuffers(c.cfg.Buffers)
	if err != nil {
		return nil, err
	}
	if n < 2 {
		return nil, fmt.Errorf("v4l2: %s gave %d buffers; at least 2 needed", c.cfg.Device, n)
	}
	bufs := make([][]byte, n)
	for i := range bufs {
		if bufs[i], err = dev.Map(i); err != nil {
			return nil, err
		}
		if err := dev.Queue(i); err != nil {
			return nil, err
		}
	}
	if err := dev.StreamOn(); err != nil {
		return nil, err
	}
	return bufs, nil
}

// applyControls sets the controls and the flip; it returns what failed.
func (c *Capture) applyControls(dev Device) []error {
	var errs []error
	set := func(id uint32, v int) {
		if err := dev.SetControl(id, int32(v)); err != nil {
			errs = append(errs, err)
		}
	}
	k := c.cfg.Controls
	if k.AutoExposure {
		set(CIDExposureAuto, ExposureAperturePriority)
	} else {
		set(CIDExposureAuto, ExposureManual)
		set(CIDExposureAbsolute, k.Exposure)
		set(CIDGain, k.Gain)
	}
	if k.AutoWhiteBalance {
		set(CIDAutoWhiteBalance, 1)
	} else {
		set(CIDAutoWhiteBalance, 0)
		set(CIDWhiteBalanceTemperature, k.WhiteBalance)
	}
	switch c.cfg.Flip {
	case FlipXU:
		for _, sel := range []uint8{xuHFlip, xuVFlip} {
			if err := dev.XU(xuUnit, sel, uvcSetCur, []byte{1, 0}); err != nil {
				errs = append(errs, err)
			}
		}
	case FlipControls:
		set(CIDHFlip, 1)
		set(CIDVFlip, 1)
	}
	return errs
}

// stream configures dev and delivers its frames until ctx is done, the
// camera stalls or fails.
func (c *Capture) stream(ctx context.Context, dev Device) (err error) {
	bufs, err := c.setup(dev)
	if err != nil {
		return err
	}
	defer func() {
		if serr := dev.StreamOff(); serr != nil && err == nil && ctx.Err() == nil {
			err = serr
		}
	}()
	c.streaming.Store(true)
	c.log.Info("camera streaming", "width", c.cfg.Width, "height", c.cfg.Height, "fps", c.cfg.FPS, "buffers", len(bufs))
	poll := min(c.cfg.StallTimeout.D(), 50*time.Millisecond)
	last := time.Now()
	for ctx.Err() == nil {
		ready, err := dev.Wait(poll)
		if err != nil {
			return err
		}
		if !ready {
			if time.Since(last) >= c.cfg.StallTimeout.D() {
				return errStalled
			}
			continue
		}
		newest := Buffer{Index: -1}
		for {
			b, err := dev.Dequeue()
			if errors.Is(err, ErrNoFrame) {
				break
			}
			if err != nil {
				return err
			}
			if b.Index < 0 || b.Index >= len(bufs) {
				c.corrupt.Add(1)
				return fmt.Errorf("v4l2: %s returned buffer %d of %d", c.cfg.Device, b.Index, len(bufs))
			}
			if b.Index == newest.Index {
				c.corrupt.Add(1)
				return fmt.Errorf("v4l2: %s returned buffer %d twice", c.cfg.Device, b.Index)
			}
			if newest.Index >= 0 {
				c.skipped.Add(1)
				if err := dev.Queue(newest.Index); err != nil {
					return err
				}
			}
			newest = b
		}
		if newest.Index < 0 {
			if time.Since(last) >= c.cfg.StallTimeout.D() {
				return errStalled
			}
			continue
		}
		if c.deliver(bufs[newest.Index], newest) {
			last = time.Now()
		}
		if err := dev.Queue(newest.Index); err != nil {
			return err
		}
	}
	return nil
}

// deliver copies a filled buffer into a pool frame and publishes it; it
// reports whether the buffer held an image.
func (c *Capture) deliver(buf []byte, b Buffer) bool {
	size := c.cfg.FrameSize()
	if b.BytesUsed != size || len(buf) < size {
		c.corrupt.Add(1)
		return false
	}
	f, ok := c.pool.Get()
	if !ok {
		c.dropped.Add(1)
		return true
	}
	f.SetLen(copy(f.Buffer(), buf[:size]))
	c.seq++
	f.Meta = hal.Image{Camera: c.cam, Format: hal.FormatYUYV, Width: c.cfg.Width, Height: c.cfg.Height,
		Seq: c.seq, Exposure: c.clock(b.Timestamp, b.Monotonic)}
	c.pool.Publish(f)
	c.latest.Set(f)
	c.frames.Add(1)
	return true
}
