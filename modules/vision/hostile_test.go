package vision

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/vision/visiontest"
)

// hostileFrame paints the part of a normal frame below the given row with
// green/white checkers (or stripes) of period px: a goal net close up.
func hostileFrame(base Image, period int, stripes bool, fromRow int) Image {
	img := Image{Data: append([]byte(nil), base.Data...), Width: base.Width, Height: base.Height}
	for v := fromRow; v < img.Height; v++ {
		for u := 0; u < img.Width; u += 2 {
			i := (v*img.Width + u) * 2
			white := (u/period)%2 == 1
			if !stripes {
				white = white != ((v/period)%2 == 1)
			}
			if white {
				img.Data[i], img.Data[i+1], img.Data[i+2], img.Data[i+3] = 230, 128, 230, 128
			} else {
				img.Data[i], img.Data[i+1], img.Data[i+2], img.Data[i+3] = 90, 100, 90, 95
			}
			if period == 1 {
				// Within a pixel pair: the second pixel the other colour.
				if white {
					img.Data[i+2] = 90
				} else {
					img.Data[i+2] = 230
				}
			}
		}
	}
	return img
}

type hostileCase struct {
	name string
	img  Image
	cam  Projector
}

func hostileCases(t testing.TB) (normal []hostileCase, hostile []hostileCase) {
	img, cam := benchFrame()
	normal = append(normal, hostileCase{"synthetic", img, cam})
	l := loadLabels(t)
	for name, lab := range l.Images {
		c := lab.Camera
		normal = append(normal, hostileCase{name, loadPNG(t, filepath.Join(htwkDir, name)),
			visiontest.NewPinhole(640, 480, deg(c.HFOVDeg), [3]float64{0, 0, c.HeightM}, 0, deg(c.PitchDeg), deg(c.RollDeg))})
	}
	down := visiontest.NAOv6Top(0.5, 0, deg(70)) // looking at its feet
	flat := visiontest.NAOv6Top(0.5, 0, deg(-8)) // the horizon low in the image
	for _, period := range []int{1, 2, 3, 4, 6, 8, 12, 16} {
		for _, stripes := range []bool{false, true} {
			n := "checkers"
			if stripes {
				n = "stripes"
			}
			h := hostileFrame(img, period, stripes, 150)
			hostile = append(hostile, hostileCase{n + "-" + itoa(period), h, cam})
			if period == 4 {
				hostile = append(hostile, hostileCase{n + "-4-down", hostileFrame(img, period, stripes, 240), down})
				hostile = append(hostile, hostileCase{n + "-4-flat", hostileFrame(img, period, stripes, 240), flat})
			}
		}
	}
	return normal, hostile
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return string(rune('0'+i/10)) + string(rune('0'+i%10))
}

// TestHostileWorkBounded: frames of green/white checkers and stripes (1–16
// px, a goal net close up), also with a degenerate camera pose, cost at
// most twice the work of a normal frame in every bounded count: pixels
// classified, runs, ball candidates, network checks, RANSAC point tests.
func TestHostileWorkBounded(t *testing.T) {
	oneGoroutine(t)
	p := mustNew(t)
	normal, hostile := hostileCases(t)
	var base Work
	for _, c := range normal {
		r, err := p.Process(c.img, c.cam, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := r.Work
		base = Work{ScanPoints: max(base.ScanPoints, w.ScanPoints), Runs: max(base.Runs, w.Runs),
			RansacTests: max(base.RansacTests, w.RansacTests), NetRuns: max(base.NetRuns, w.NetRuns)}
	}
	t.Logf("normal (most of each count over a synthetic and three real frames): %+v", base)
	lim := workLimits(p.Config(), 640, 480)
	for _, c := range hostile {
		t0 := time.Now()
		r, err := p.Process(c.img, c.cam, nil)
		d := time.Since(t0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		w := r.Work
		t.Logf("%-18s %6v %+v", c.name, d.Round(time.Microsecond), w)
		if w.ScanPoints > lim.ScanPoints || w.Runs > lim.Runs || w.Candidates > lim.Candidates ||
			w.NetRuns > lim.NetRuns || w.RobotRuns > lim.RobotRuns || w.LinePoints > lim.LinePoints || w.RansacTests > lim.RansacTests {
			t.Errorf("%s: work %+v beyond the bounds %+v", c.name, w, lim)
		}
		// Against the normal frame: at most twice its scan, runs, RANSAC.
		if w.ScanPoints > 2*base.ScanPoints || w.Runs > 2*base.Runs || w.RansacTests > 2*base.RansacTests {
			t.Errorf("%s: work %+v, more than twice the normal frame's %+v", c.name, w, base)
		}
	}
	_ = hal.Vision{}
}

// BenchmarkHostile is the pipeline on the hostile frames, one after the
// other (time per frame).
func BenchmarkHostile(b *testing.B) {
	p, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	_, hostile := hostileCases(b)
	b.ReportAllocs()
	c0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		c := hostile[i%len(hostile)]
		if _, err := p.Process(c.img, c.cam, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// TestAbsurdImages: black, white, pure green, random noise, a luma ramp
// and chroma at its extremes, with ordinary and degenerate camera poses:
// a result within the work bounds, no panic, no ball.
func TestAbsurdImages(t *testing.T) {
	p := mustNew(t)
	w, h := 640, 480
	fill := func(f func(u, v int) (y, cu, cv byte)) Image {
		img := Image{Data: make([]byte, w*h*2), Width: w, Height: h}
		for v := range h {
			for u := 0; u < w; u += 2 {
				y, cu, cv := f(u, v)
				i := (v*w + u) * 2
				img.Data[i], img.Data[i+1], img.Data[i+2], img.Data[i+3] = y, cu, y, cv
			}
		}
		return img
	}
	var seed uint32 = 1
	rnd := func() byte { seed = seed*1664525 + 1013904223; return byte(seed >> 24) }
	imgs := map[string]Image{
		"black":  fill(func(int, int) (byte, byte, byte) { return 0, 128, 128 }),
		"white":  fill(func(int, int) (byte, byte, byte) { return 255, 128, 128 }),
		"green":  fill(func(int, int) (byte, byte, byte) { return 90, 90, 80 }),
		"noise":  fill(func(int, int) (byte, byte, byte) { return rnd(), rnd(), rnd() }),
		"ramp":   fill(func(u, v int) (byte, byte, byte) { return byte(v * 255 / h), byte(u * 255 / w), 128 }),
		"chroma": fill(func(u, v int) (byte, byte, byte) { return 128, byte(255 * (u / 64 % 2)), byte(255 * (v / 64 % 2)) }),
	}
	cams := map[string]Projector{
		"normal":        visiontest.NAOv6Top(0.5, 0, deg(20)),
		"straight down": visiontest.NAOv6Top(0.5, 0, deg(89.9)),
		"sky":           visiontest.NAOv6Top(0.5, 0, deg(-60)),
		"rolled":        visiontest.NewPinhole(w, h, deg(56.3), [3]float64{0, 0, 0.5}, 0, deg(20), deg(90)),
		"underground":   visiontest.NewPinhole(w, h, deg(56.3), [3]float64{0, 0, -0.5}, 0, deg(20), 0),
	}
	lim := workLimits(p.Config(), w, h)
	for in, img := range imgs {
		for cn, cam := range cams {
			var out hal.Vision
			r, err := p.Process(img, cam, &out)
			if err != nil {
				t.Errorf("%s, %s: %v", in, cn, err)
				continue
			}
			wk := r.Work
			if wk.ScanPoints > lim.ScanPoints || wk.Runs > lim.Runs || wk.NetRuns > lim.NetRuns || wk.RansacTests > lim.RansacTests {
				t.Errorf("%s, %s: work %+v beyond %+v", in, cn, wk, lim)
			}
			if len(r.Balls) > 0 {
				t.Errorf("%s, %s: balls %+v", in, cn, r.Balls)
			}
			for i := range out.N {
				o := out.Obs[i]
				if !finite(float64(o.Distance), float64(o.Bearing), o.Pos.X, o.Pos.Y) {
					t.Errorf("%s, %s: observation %+v not finite", in, cn, o)
				}
			}
		}
	}
}
