package v4l2

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Device is a V4L2 capture device as the capture loop uses it. *File is
// the kernel's; package v4l2test has a fake.
type Device interface {
	// Capabilities reports the driver's name and whether it can capture
	// video by streaming.
	Capabilities() (Caps, error)
	// SetFormat asks for width × height in pixel format pix and returns
	// what the driver chose.
	SetFormat(width, height int, pix uint32) (Format, error)
	// SetFrameRate asks for fps frames per second.
	SetFrameRate(fps int) error
	// SetControl sets a control (V4L2_CID_*).
	SetControl(id uint32, value int32) error
	// XU runs a UVC extension-unit query (UVC_SET_CUR or UVC_GET_CUR) of
	// len(data) bytes on unit's selector.
	XU(unit, selector, query uint8, data []byte) error
	// RequestBuffers asks for n mmap buffers and returns how many the
	// driver gave; 0 frees them.
	RequestBuffers(n int) (int, error)
	// Map maps buffer i into memory (VIDIOC_QUERYBUF, mmap). Close unmaps.
	Map(i int) ([]byte, error)
	// Queue hands buffer i to the driver to fill.
	Queue(i int) error
	// Dequeue takes a filled buffer back; it returns ErrNoFrame at once if
	// none is ready.
	Dequeue() (Buffer, error)
	// Wait blocks until a buffer can be dequeued or timeout passes, and
	// reports which.
	Wait(timeout time.Duration) (bool, error)
	StreamOn() error
	StreamOff() error
	Close() error
}

// ErrNoFrame is Dequeue's error when no filled buffer is ready.
var ErrNoFrame = errors.New("v4l2: no frame ready")

// Caps is what VIDIOC_QUERYCAP reports.
type Caps struct {
	Driver, Card, Bus string
	// Capture and Streaming: the device captures video and streams it.
	Capture, Streaming bool
}

// Format is a negotiated image format.
type Format struct {
	Width, Height int
	PixelFormat   uint32
	BytesPerLine  int
	SizeImage     int
}

// Buffer is a dequeued buffer.
type Buffer struct {
	Index     int
	BytesUsed int
	Sequence  uint32
	// Timestamp is when the driver took the frame, on CLOCK_MONOTONIC if
	// Monotonic.
	Timestamp time.Duration
	Monotonic bool
}

// File is a V4L2 device node.
type File struct {
	path string
	fd   int
	maps [][]byte
}

// Open opens a device node for non-blocking streaming.
func Open(path string) (*File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("v4l2: opening %s: %w", path, err)
	}
	return &File{path: path, fd: fd}, nil
}

func (f *File) ioctl(req uintptr, arg unsafe.Pointer, what string) error {
	for {
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(f.fd), req, uintptr(arg))
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return fmt.Errorf("v4l2: %s on %s: %w", what, f.path, e)
	}
}

func cstr(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\x00")
	return s
}

// Capabilities implements Device.
func (f *File) Capabilities() (Caps, error) {
	var c capability
	if err := f.ioctl(vidiocQuerycap, unsafe.Pointer(&c), "VIDIOC_QUERYCAP"); err != nil {
		return Caps{}, err
	}
	return capsOf(&c), nil
}

// capsOf reads a v4l2_capability: the device's own capabilities where the
// driver reports them (V4L2_CAP_DEVICE_CAPS), else the node's.
func capsOf(c *capability) Caps {
	caps := c.Capabilities
	if caps&capDeviceCaps != 0 {
		caps = c.DeviceCaps
	}
	return Caps{Driver: cstr(c.Driver[:]), Card: cstr(c.Card[:]), Bus: cstr(c.BusInfo[:]),
		Capture: caps&capVideoCapture != 0, Streaming: caps&capStreaming != 0}
}

// SetFormat implements Device.
func (f *File) SetFormat(w, h int, pix uint32) (Format, error) {
	v := format{Type: bufTypeVideoCapture}
	v.Pix.Width, v.Pix.Height, v.Pix.PixelFormat, v.Pix.Field = uint32(w), uint32(h), pix, fieldNone
	if err := f.ioctl(vidiocSFmt, unsafe.Pointer(&v), "VIDIOC_S_FMT"); err != nil {
		return Format{}, err
	}
	return Format{Width: int(v.Pix.Width), Height: int(v.Pix.Height), PixelFormat: v.Pix.PixelFormat,
		BytesPerLine: int(v.Pix.BytesPerLine), SizeImage: int(v.Pix.SizeImage)}, nil
}

// SetFrameRate implements Device.
func (f *File) SetFrameRate(fps int) error {
	p := streamParm{Type: bufTypeVideoCapture, TimePerFrame: fract{1, uint32(fps)}}
	return f.ioctl(vidiocSParm, unsafe.Pointer(&p), "VIDIOC_S_PARM")
}

// SetControl implements Device.
func (f *File) SetControl(id uint32, value int32) error {
	c := control{ID: id, Value: value}
	return f.ioctl(vidiocSCtrl, unsafe.Pointer(&c), fmt.Sprintf("VIDIOC_S_CTRL %#x=%d", id, value))
}

// XU implements Device.
func (f *File) XU(unit, selector, query uint8, data []byte) error {
	if len(data) == 0 || len(data) > 0xffff {
		return fmt.Errorf("v4l2: extension unit %d selector %d: %d bytes", unit, selector, len(data))
	}
	q := xuQuery{Unit: unit, Selector: selector, Query: query, Size: uint16(len(data)), Data: uintptr(unsafe.Pointer(&data[0]))}
	err := f.ioctl(uvciocCtrlQuery, unsafe.Pointer(&q), fmt.Sprintf("UVCIOC_CTRL_QUERY unit %d selector %d", unit, selector))
	runtime.KeepAlive(data) // q holds it only as a number
	return err
}

// RequestBuffers implements Device.
func (f *File) RequestBuffers(n int) (int, error) {
	r := requestBuffers{Count: uint32(n), Type: bufTypeVideoCapture, Memory: memoryMmap}
	if err := f.ioctl(vidiocReqbufs, unsafe.Pointer(&r), "VIDIOC_REQBUFS"); err != nil {
		return 0, err
	}
	return int(r.Count), nil
}

// Map implements Device.
func (f *File) Map(i int) ([]byte, error) {
	b := buffer{Index: uint32(i), Type: bufTypeVideoCapture, Memory: memoryMmap}
	if err := f.ioctl(vidiocQuerybuf, unsafe.Pointer(&b), "VIDIOC_QUERYBUF"); err != nil {
		return nil, err
	}
	m, err := unix.Mmap(f.fd, int64(uint32(b.Offset)), int(b.Length), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("v4l2: mapping buffer %d of %s: %w", i, f.path, err)
	}
	f.maps = append(f.maps, m)
	return m, nil
}

// Queue implements Device.
func (f *File) Queue(i int) error {
	b := buffer{Index: uint32(i), Type: bufTypeVideoCapture, Memory: memoryMmap}
	return f.ioctl(vidiocQbuf, unsafe.Pointer(&b), "VIDIOC_QBUF")
}

// Dequeue implements Device.
func (f *File) Dequeue() (Buffer, error) {
	b := buffer{Type: bufTypeVideoCapture, Memory: memoryMmap}
	err := f.ioctl(vidiocDqbuf, unsafe.Pointer(&b), "VIDIOC_DQBUF")
	if errors.Is(err, unix.EAGAIN) {
		return Buffer{}, ErrNoFrame
	}
	if err != nil {
		return Buffer{}, err
	}
	return bufferOf(&b), nil
}

// bufferOf reads a dequeued v4l2_buffer.
func bufferOf(b *buffer) Buffer {
	return Buffer{
		Index: int(b.Index), BytesUsed: int(b.BytesUsed), Sequence: b.Sequence,
		Timestamp: time.Duration(b.Sec)*time.Second + time.Duration(b.Usec)*time.Microsecond,
		Monotonic: b.Flags&bufFlagTimestampMask == bufFlagTimestampMonotonic,
	}
}

// Wait implements Device.
func (f *File) Wait(timeout time.Duration) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(f.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(timeout.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("v4l2: poll on %s: %w", f.path, err)
		}
		if n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			return false, fmt.Errorf("v4l2: poll on %s: device error (revents %#x)", f.path, fds[0].Revents)
		}
		return n > 0, nil
	}
}

// StreamOn implements Device.
func (f *File) StreamOn() error {
	t := int32(bufTypeVideoCapture)
	return f.ioctl(vidiocStreamon, unsafe.Pointer(&t), "VIDIOC_STREAMON")
}

// StreamOff implements Device.
func (f *File) StreamOff() error {
	t := int32(bufTypeVideoCapture)
	return f.ioctl(vidiocStreamoff, unsafe.Pointer(&t), "VIDIOC_STREAMOFF")
}

// Close unmaps the buffers and closes the node.
func (f *File) Close() error {
	var errs []error
	for _, m := range f.maps {
		if err := unix.Munmap(m); err != nil {
			errs = append(errs, fmt.Errorf("v4l2: unmapping a buffer of %s: %w", f.path, err))
		}
	}
	f.maps = nil
	if err := unix.Close(f.fd); err != nil {
		errs = append(errs, fmt.Errorf("v4l2: closing %s: %w", f.path, err))
	}
	return errors.Join(errs...)
}
