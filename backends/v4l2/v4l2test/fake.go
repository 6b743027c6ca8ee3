// Package v4l2test is a fake V4L2 camera for tests: a v4l2.Device that
// behaves like a streaming driver (buffers queued, filled in order,
// dequeued, queued again) and checks that its user follows the protocol,
// fed with images by the test.
package v4l2test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/robotd/robotd/backends/v4l2"
)

// ErrInvalid is what the fake returns for a call the kernel would refuse
// with EINVAL.
var ErrInvalid = errors.New("v4l2test: invalid argument")

// Options shape the fake camera.
type Options struct {
	// Driver and Card name it; NoStreaming makes it a device that cannot
	// stream.
	Driver, Card string
	NoStreaming  bool
	// Width and Height are the only size it gives (0: whatever is asked).
	Width, Height int
	// MaxBuffers caps the buffers it gives (0: 8).
	MaxBuffers int
	// FailOpens makes the first FailOpens opens fail.
	FailOpens int
	// RefuseControls makes every SetControl and XU fail.
	RefuseControls bool
}

// Control is one control set, in order.
type Control struct {
	ID    uint32
	Value int32
}

// XUCall is one extension-unit query.
type XUCall struct {
	Unit, Selector, Query uint8
	Data                  []byte
}

// Camera is a fake camera: each Open makes a new device on it, as
// reopening a real camera does.
type Camera struct {
	opts Options

	mu       sync.Mutex
	opens    int
	dev      *device // the open device, if any
	controls []Control
	xu       []XUCall
	errs     []error
	seq      uint32
}

// New returns a fake camera.
func New(opts Options) *Camera {
	if opts.MaxBuffers == 0 {
		opts.MaxBuffers = 8
	}
	return &Camera{opts: opts}
}

// Open implements v4l2.Opener.
func (c *Camera) Open(path string) (v4l2.Device, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opens++
	if c.opens <= c.opts.FailOpens {
		return nil, fmt.Errorf("v4l2test: opening %s: no such device (open %d)", path, c.opens)
	}
	if c.dev != nil {
		c.errs = append(c.errs, fmt.Errorf("open %d: opened while the previous device is open", c.opens))
	}
	d := &device{cam: c, ready: make(chan struct{}, 1)}
	c.dev = d
	return d, nil
}

// Opens returns how many times the camera was opened.
func (c *Camera) Opens() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens
}

// Controls returns the controls set, over all opens.
func (c *Camera) Controls() []Control {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.controls)
}

// XUCalls returns the extension-unit queries, over all opens.
func (c *Camera) XUCalls() []XUCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.xu)
}

// Errors returns the protocol violations the fake saw.
func (c *Camera) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.errs)
}

// Streaming reports whether a device streams now.
func (c *Camera) Streaming() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dev != nil && c.dev.streaming
}

// Image is one image to deliver.
type Image struct {
	Data []byte
	// Timestamp is the buffer's timestamp; Monotonic its clock.
	Timestamp time.Duration
	Monotonic bool
	// BytesUsed overrides len(Data) as the size the driver reports.
	BytesUsed int
}

// Feed fills queued buffers with the images, in order, and makes them
// ready at once, as a driver that filled them while its user was busy. It
// returns how many it delivered: all, or none if fewer buffers are queued
// or no device streams (a driver would lose them).
func (c *Camera) Feed(imgs ...Image) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.dev
	if d == nil || !d.streaming || len(d.queued) < len(imgs) {
		return 0
	}
	n := 0
	for _, img := range imgs {
		if len(d.queued) == 0 {
			break
		}
		i := d.queued[0]
		d.queued = d.queued[1:]
		copy(d.bufs[i], img.Data)
		used := len(img.Data)
		if img.BytesUsed != 0 {
			used = img.BytesUsed
		}
		c.seq++
		d.filled = append(d.filled, v4l2.Buffer{Index: i, BytesUsed: used, Sequence: c.seq, Timestamp: img.Timestamp, Monotonic: img.Monotonic})
		n++
	}
	if n > 0 {
		select {
		case d.ready <- struct{}{}:
		default:
		}
	}
	return n
}

// Queued returns how many buffers the open device's driver holds to fill
// (-1 with no device streaming).
func (c *Camera) Queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dev == nil || !c.dev.streaming {
		return -1
	}
	return len(c.dev.queued)
}

// device is one open of the camera.
type device struct {
	cam       *Camera
	ready     chan struct{}
	bufs      [][]byte
	mapped    []bool
	queued    []int
	filled    []v4l2.Buffer
	format    v4l2.Format
	streaming bool
	closed    bool
}

func (d *device) fail(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	d.cam.errs = append(d.cam.errs, err)
	return fmt.Errorf("%w: %w", ErrInvalid, err)
}

func (d *device) lock() func() {
	d.cam.mu.Lock()
	return d.cam.mu.Unlock
}

func (d *device) Capabilities() (v4l2.Caps, error) {
	defer d.lock()()
	o := d.cam.opts
	return v4l2.Caps{Driver: o.Driver, Card: o.Card, Bus: "fake", Capture: true, Streaming: !o.NoStreaming}, nil
}

func (d *device) SetFormat(w, h int, pix uint32) (v4l2.Format, error) {
	defer d.lock()()
	if d.streaming || len(d.bufs) > 0 {
		return v4l2.Format{}, d.fail("VIDIOC_S_FMT with buffers allocated (EBUSY)")
	}
	if o := d.cam.opts; o.Width != 0 {
		w, h = o.Width, o.Height
	}
	d.format = v4l2.Format{Width: w, Height: h, PixelFormat: pix, BytesPerLine: 2 * w, SizeImage: 2 * w * h}
	return d.format, nil
}

func (d *device) SetFrameRate(int) error { return nil }

func (d *device) SetControl(id uint32, v int32) error {
	defer d.lock()()
	if d.cam.opts.RefuseControls {
		return fmt.Errorf("v4l2test: control %#x: %w", id, ErrInvalid)
	}
	d.cam.controls = append(d.cam.controls, Control{id, v})
	return nil
}

func (d *device) XU(unit, sel, query uint8, data []byte) error {
	defer d.lock()()
	if d.cam.opts.RefuseControls {
		return fmt.Errorf("v4l2test: extension unit %d: %w", unit, ErrInvalid)
	}
	d.cam.xu = append(d.cam.xu, XUCall{unit, sel, query, slices.Clone(data)})
	return nil
}

func (d *device) RequestBuffers(n int) (int, error) {
	defer d.lock()()
	if d.format.SizeImage == 0 {
		return 0, d.fail("VIDIOC_REQBUFS before VIDIOC_S_FMT")
	}
	if d.streaming {
		return 0, d.fail("VIDIOC_REQBUFS while streaming (EBUSY)")
	}
	n = min(n, d.cam.opts.MaxBuffers)
	d.bufs = make([][]byte, n)
	for i := range d.bufs {
		d.bufs[i] = make([]byte, d.format.SizeImage)
	}
	d.mapped = make([]bool, n)
	return n, nil
}

func (d *device) Map(i int) ([]byte, error) {
	defer d.lock()()
	if i < 0 || i >= len(d.bufs) {
		return nil, d.fail("VIDIOC_QUERYBUF of buffer %d of %d", i, len(d.bufs))
	}
	d.mapped[i] = true
	return d.bufs[i], nil
}

func (d *device) Queue(i int) error {
	defer d.lock()()
	if i < 0 || i >= len(d.bufs) || !d.mapped[i] {
		return d.fail("VIDIOC_QBUF of buffer %d (of %d, mapped: %v)", i, len(d.bufs), i >= 0 && i < len(d.mapped) && d.mapped[i])
	}
	if slices.Contains(d.queued, i) || slices.ContainsFunc(d.filled, func(b v4l2.Buffer) bool { return b.Index == i }) {
		return d.fail("VIDIOC_QBUF of buffer %d, which the driver holds", i)
	}
	d.queued = append(d.queued, i)
	return nil
}

func (d *device) Dequeue() (v4l2.Buffer, error) {
	defer d.lock()()
	if !d.streaming {
		return v4l2.Buffer{}, d.fail("VIDIOC_DQBUF while not streaming")
	}
	if len(d.filled) == 0 {
		return v4l2.Buffer{}, v4l2.ErrNoFrame
	}
	b := d.filled[0]
	d.filled = d.filled[1:]
	return b, nil
}

func (d *device) Wait(timeout time.Duration) (bool, error) {
	unlock := d.lock()
	n := len(d.filled)
	unlock()
	if n > 0 {
		return true, nil
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-d.ready:
		defer d.lock()()
		return len(d.filled) > 0, nil
	case <-t.C:
		return false, nil
	}
}

func (d *device) StreamOn() error {
	defer d.lock()()
	if len(d.bufs) == 0 {
		return d.fail("VIDIOC_STREAMON without buffers")
	}
	d.streaming = true
	return nil
}

func (d *device) StreamOff() error {
	defer d.lock()()
	d.streaming = false
	d.queued, d.filled = nil, nil // the driver drops every buffer
	return nil
}

// Close unmaps the buffers: the fake overwrites them, so a reader that
// still pointed into them would see it.
func (d *device) Close() error {
	defer d.lock()()
	if d.closed {
		return d.fail("closed twice")
	}
	d.closed, d.streaming = true, false
	for _, b := range d.bufs {
		for i := range b {
			b[i] = 0xEE
		}
	}
	if d.cam.dev == d {
		d.cam.dev = nil
	}
	return nil
}
