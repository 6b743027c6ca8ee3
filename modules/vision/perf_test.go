package vision

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/vision/visiontest"
)

// benchFrame is a busy synthetic frame: centre circle, lines, a ball and a
// robot, with noise.
func benchFrame() (Image, *visiontest.Pinhole) {
	return scene(visiontest.Scene{Robot: hal.Pose2{X: -1.6, Y: 0.3, Heading: -0.2}, Ball: hal.Vec2{X: -0.8, Y: -0.2}, BallVisible: true,
		Obstacles: []hal.Vec2{{X: 0.3, Y: -0.9}}, Noise: 4, Seed: 9}, 0, deg(18))
}

// TestProcessDoesNotAllocate: after the first frame, Process allocates
// nothing, on synthetic and real frames.
func TestProcessDoesNotAllocate(t *testing.T) {
	oneGoroutine(t)
	p := mustNew(t)
	img, cam := benchFrame()
	real := loadPNG(t, filepath.Join(htwkDir, "ChinaTest2015GAB03B_AnyBallTest3_00070111_U.png"))
	realCam := visiontest.NewPinhole(640, 480, deg(60.97), [3]float64{0, 0, 0.5}, 0, deg(10.6), 0)
	var out hal.Vision
	for _, f := range []struct {
		img Image
		cam Projector
	}{{img, cam}, {real, realCam}} {
		if _, err := p.Process(f.img, f.cam, &out); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(5, func() { _, _ = p.Process(f.img, f.cam, &out) }); a != 0 {
			t.Errorf("%v allocations per frame, want 0", a)
		}
	}
}

// TestMemory: a pipeline's buffers for 640×480 stay far below the 20 MB
// budget; the resident set grows by about as much once frames ran.
func TestMemory(t *testing.T) {
	oneGoroutine(t)
	img, cam := benchFrame()
	var a, b runtime.MemStats
	runtime.GC()
	rss0 := vmRSS()
	runtime.ReadMemStats(&a)
	p := mustNew(t)
	runtime.ReadMemStats(&b)
	for range 20 {
		if _, err := p.Process(img, cam, nil); err != nil {
			t.Fatal(err)
		}
	}
	rss1 := vmRSS()
	extra := b.TotalAlloc - a.TotalAlloc
	t.Logf("pipeline buffers: %.2f MB; resident set %+.2f MB after 20 frames", float64(extra)/1e6, float64(rss1-rss0)/1e6)
	if extra > 20e6 {
		t.Errorf("pipeline allocates %.1f MB, budget 20 MB", float64(extra)/1e6)
	}
	runtime.KeepAlive(p)
}

// vmRSS is the process's resident set, bytes (Linux /proc).
func vmRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, res int64
	if _, err := fmt.Sscan(string(b), &size, &res); err != nil {
		return 0
	}
	return res * int64(os.Getpagesize())
}

func TestInputErrors(t *testing.T) {
	cam := visiontest.NAOv6Top(0.5, 0, deg(20))
	p := mustNew(t)
	ok := make([]byte, 640*480*2)
	tests := []struct {
		name string
		img  Image
		proj Projector
		want error
	}{
		{"zero size", Image{Data: ok}, cam, ErrImageSize},
		{"odd width", Image{Data: ok, Width: 639, Height: 480}, cam, ErrImageSize},
		{"too wide", Image{Data: make([]byte, 1280*480*2), Width: 1280, Height: 480}, cam, ErrImageSize},
		{"negative", Image{Data: ok, Width: -640, Height: 480}, cam, ErrImageSize},
		{"truncated", Image{Data: ok[:640*480*2-1], Width: 640, Height: 480}, cam, ErrShortBuffer},
		{"nil data", Image{Width: 640, Height: 480}, cam, ErrShortBuffer},
		{"no projector", Image{Data: ok, Width: 640, Height: 480}, nil, ErrNoProjector},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := hal.Vision{Fresh: true, N: 3}
			_, err := p.Process(tc.img, tc.proj, &out)
			if !errors.Is(err, tc.want) {
				t.Errorf("err %v, want %v", err, tc.want)
			}
			if out.Fresh || out.N != 0 {
				t.Errorf("failed frame left output fresh %v, %d observations", out.Fresh, out.N)
			}
		})
	}
	// A smaller frame (the bottom camera's 320×240) is fine.
	small := visiontest.NewPinhole(320, 240, deg(56.3), [3]float64{0.05, 0, 0.45}, 0, deg(40), 0)
	if _, err := p.Process(Image{Data: ok[:320*240*2], Width: 320, Height: 240}, small, nil); err != nil {
		t.Errorf("320×240: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	bad := []func(*Config){
		func(c *Config) { c.MaxWidth = 641 },
		func(c *Config) { c.ColumnSpacing = 100 },
		func(c *Config) { c.FieldGreenRatio = 1.5 },
		func(c *Config) { c.MaxLines = 99 },
		func(c *Config) { c.BallSizeTolerance = -1 },
		func(c *Config) { c.Field.BallRadius = 2 },
	}
	for i, f := range bad {
		c := DefaultConfig()
		f(&c)
		if _, err := New(c); err == nil {
			t.Errorf("case %d: invalid config accepted", i)
		}
	}
}

// FuzzProcess: any bytes and any size give a result or a clear error,
// never a panic.
func FuzzProcess(f *testing.F) {
	img, _ := benchFrame()
	f.Add(img.Data[:4096], 64, 32, 20.0)
	f.Add([]byte{1, 2, 3}, 640, 480, 18.0)
	f.Add(make([]byte, 32*32*2), 32, 32, 90.0)
	f.Add(make([]byte, 100), -2, 7, -30.0)
	p, err := New(Config{MaxWidth: 128, MaxHeight: 96})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, w, h int, pitchDeg float64) {
		cam := visiontest.NewPinhole(max(w, 1), max(h, 1), deg(56), [3]float64{0, 0, 0.5}, 0, deg(pitchDeg), 0)
		var out hal.Vision
		r, err := p.Process(Image{Data: data, Width: w, Height: h}, cam, &out)
		valid := w >= 16 && h >= 16 && w%2 == 0 && w <= 128 && h <= 96 && len(data) >= w*h*2
		if valid != (err == nil) {
			t.Fatalf("%d×%d, %d bytes: err %v", w, h, len(data), err)
		}
		if err == nil && (r == nil || out.N > hal.MaxObservations) {
			t.Fatalf("bad result %v, %d observations", r, out.N)
		}
	})
}

// BenchmarkProcess is the whole pipeline on one 640×480 YUYV frame.
func BenchmarkProcess(b *testing.B) {
	img, cam := benchFrame()
	bench(b, img, cam)
}

// BenchmarkProcessReal is the pipeline on a real NAO frame.
func BenchmarkProcessReal(b *testing.B) {
	img := loadPNG(b, filepath.Join(htwkDir, "ChinaTest2015GAB03B_AnyBallTest3_00070111_U.png"))
	cam := visiontest.NewPinhole(640, 480, deg(60.97), [3]float64{0, 0, 0.5}, 0, deg(10.6), 0)
	bench(b, img, cam)
}

// BenchmarkProcessNoRobots and BenchmarkProcessRealNoRobots are the
// same frames without the robot detector.
func BenchmarkProcessNoRobots(b *testing.B) {
	img, cam := benchFrame()
	benchWith(b, Config{NoRobotDetector: true}, img, cam)
}

func BenchmarkProcessRealNoRobots(b *testing.B) {
	img := loadPNG(b, filepath.Join(htwkDir, "ChinaTest2015GAB03B_AnyBallTest3_00070111_U.png"))
	cam := visiontest.NewPinhole(640, 480, deg(60.97), [3]float64{0, 0, 0.5}, 0, deg(10.6), 0)
	benchWith(b, Config{NoRobotDetector: true}, img, cam)
}

func bench(b *testing.B, img Image, cam Projector) { benchWith(b, Config{}, img, cam) }

func benchWith(b *testing.B, cfg Config, img Image, cam Projector) {
	p, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var out hal.Vision
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		if _, err := p.Process(img, cam, &out); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time per frame: on a shared machine ns/op includes waiting for a
	// core.
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system CPU time, ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
