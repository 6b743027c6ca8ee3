package v4l2

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
)

// hostile is a driver that returns whatever buffers the fuzzer makes up:
// indices out of range, sizes that do not fit, any timestamp.
type hostile struct {
	bufs   [][]byte
	script []Buffer
	queued map[int]bool
	cancel context.CancelFunc
	errs   []error
}

func (d *hostile) Capabilities() (Caps, error) { return Caps{Capture: true, Streaming: true}, nil }
func (d *hostile) SetFormat(w, h int, pix uint32) (Format, error) {
	return Format{Width: w, Height: h, PixelFormat: pix}, nil
}
func (d *hostile) SetFrameRate(int) error               { return nil }
func (d *hostile) SetControl(uint32, int32) error       { return nil }
func (d *hostile) XU(uint8, uint8, uint8, []byte) error { return nil }
func (d *hostile) RequestBuffers(n int) (int, error)    { return len(d.bufs), nil }
func (d *hostile) Map(i int) ([]byte, error)            { return d.bufs[i], nil }
func (d *hostile) StreamOn() error                      { return nil }
func (d *hostile) StreamOff() error                     { return nil }
func (d *hostile) Close() error                         { return nil }
func (d *hostile) Wait(time.Duration) (bool, error) {
	if len(d.script) == 0 {
		d.cancel()
		return false, nil
	}
	return true, nil
}

func (d *hostile) Queue(i int) error {
	if i < 0 || i >= len(d.bufs) || d.queued[i] {
		d.errs = append(d.errs, fmt.Errorf("queued buffer %d (of %d, queued %v)", i, len(d.bufs), d.queued[i]))
		return fmt.Errorf("bad queue of %d", i)
	}
	d.queued[i] = true
	return nil
}

func (d *hostile) Dequeue() (Buffer, error) {
	if len(d.script) == 0 {
		return Buffer{}, ErrNoFrame
	}
	b := d.script[0]
	d.script = d.script[1:]
	if b.Index >= 0 && b.Index < len(d.bufs) {
		d.queued[b.Index] = false
	}
	return b, nil
}

// FuzzHostileDriver: whatever buffers a driver hands back, the stream loop
// does not panic, never queues a buffer twice or one that does not exist,
// and publishes only whole images.
func FuzzHostileDriver(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0x00, 0x0c, 0, 0, 1, 0, 0, 0})
	f.Add([]byte{7, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, raw []byte) {
		const w, h = 16, 16
		cfg := DefaultConfig("/dev/hostile")
		cfg.Width, cfg.Height = w, h
		d := &hostile{queued: map[int]bool{}}
		for range 3 {
			d.bufs = append(d.bufs, make([]byte, w*h*2))
		}
		for len(raw) >= 12 {
			d.script = append(d.script, Buffer{
				Index:     int(int8(raw[0])),
				BytesUsed: int(binary.LittleEndian.Uint32(raw[4:])) % (2 * w * h * 2),
				Sequence:  uint32(raw[1]),
				Timestamp: time.Duration(binary.LittleEndian.Uint32(raw[8:])) * time.Microsecond,
				Monotonic: raw[2]&1 == 1,
			})
			raw = raw[12:]
		}
		pool := hal.NewFramePool(2, w*h*2)
		c, err := NewCapture(hal.CameraTop, cfg, pool, nil, func(ts time.Duration, _ bool) time.Duration { return ts }, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		d.cancel = cancel
		_ = c.stream(ctx, d)
		cancel()
		if len(d.errs) > 0 {
			t.Fatalf("the loop misused the driver: %v", d.errs)
		}
		if fr, ok := c.Acquire(); ok {
			if len(fr.Data) != w*h*2 || fr.Meta.Width != w {
				t.Fatalf("published %d bytes as %+v", len(fr.Data), fr.Meta)
			}
			fr.Release()
		}
		c.latest.Set(nil)
		if pool.Free() != pool.Len() {
			t.Fatalf("%d of %d frames free", pool.Free(), pool.Len())
		}
	})
}
