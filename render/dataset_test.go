package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func readTruth(t *testing.T, dir string) []Truth {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Truth
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var tr Truth
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatal(err)
		}
		out = append(out, tr)
	}
	return out
}

func TestGenerateWritesFramesWithTruth(t *testing.T) {
	dir := t.TempDir()
	const n = 24
	if err := Generate(GenerateConfig{Dir: dir, N: n, Seed: 3, BottomWidth: 320}, nil); err != nil {
		t.Fatal(err)
	}
	truth := readTruth(t, dir)
	if len(truth) != n {
		t.Fatalf("%d truth lines, want %d", len(truth), n)
	}
	var ballsChecked, lines, inters, sharp, checked int
	for i, tr := range truth {
		data, err := os.ReadFile(filepath.Join(dir, tr.File))
		if err != nil {
			t.Fatal(err)
		}
		if len(data) != 2*tr.Width*tr.Height || tr.Index != i {
			t.Fatalf("frame %d: %d bytes for %d×%d", i, len(data), tr.Width, tr.Height)
		}
		if tr.Camera == "bottom" && tr.Width != 320 || tr.Camera == "top" && tr.Width != 640 {
			t.Errorf("frame %d: %s camera at width %d", i, tr.Camera, tr.Width)
		}
		b := tr.Ball
		if b.Present && (b.Distance < 0.29 || b.Distance > 6.01) {
			t.Errorf("frame %d: ball %.2f m away", i, b.Distance)
		}
		lines += len(tr.Lines)
		inters += len(tr.Intersections)
		// Every visible intersection and line end lies on paint: brighter
		// than the carpet around it (the frame's median Y below the
		// horizon is carpet). Motion blur smears distant lines into the
		// carpet: only sharp frames.
		f := &Frame{Width: tr.Width, Height: tr.Height, Data: data}
		carpet := medianLowerY(f)
		if tr.Options.YawRate != 0 || tr.Options.PitchRate != 0 {
			continue
		}
		sharp++
		// Beyond 5 m a 5 cm line is about a pixel wide, and noise can hide
		// it: only nearer points.
		near := func(x, y float64) bool {
			return math.Hypot(math.Hypot(x-tr.CameraPos[0], y-tr.CameraPos[1]), tr.CameraPos[2]) < 5
		}
		for _, x := range tr.Intersections {
			if !near(x.X, x.Y) {
				continue
			}
			if y := maxY(f, x.U, x.V, 1); float64(y) < carpet*1.25+8 {
				t.Errorf("frame %d: %s intersection at (%.0f, %.0f): Y %d, carpet %.0f", i, x.Kind, x.U, x.V, y, carpet)
			}
		}
		for _, l := range tr.Lines {
			for k, e := range [][2]float64{{l.Image[0], l.Image[1]}, {l.Image[2], l.Image[3]}} {
				if !near(l.Field[2*k], l.Field[2*k+1]) {
					continue
				}
				checked++
				if y := maxY(f, e[0], e[1], 1); float64(y) < carpet*1.25+8 {
					t.Errorf("frame %d: line end at (%.0f, %.0f): Y %d, carpet %.0f", i, e[0], e[1], y, carpet)
				}
			}
		}
		// A wholly visible ball of some size: its pixels hold the ball's
		// white and black, not the carpet's green.
		if b.InImage && b.Visible == b.Pixels && b.RadiusPx > 4 {
			f := &Frame{Width: tr.Width, Height: tr.Height, Data: data}
			var ball, green int
			r := int(b.RadiusPx * 0.6)
			for v := int(b.V) - r; v <= int(b.V)+r; v++ {
				for u := int(b.U) - r; u <= int(b.U)+r; u++ {
					if u < 0 || v < 0 || u >= tr.Width || v >= tr.Height {
						continue
					}
					y, cb, cr := f.YUV(u, v)
					if cb < 118 && cr < 118 {
						green++
					} else if y > 100 || y < 60 {
						ball++
					}
				}
			}
			if ball == 0 || green > ball/4 {
				t.Errorf("frame %d: ball at (%.0f, %.0f) r %.1f px: %d ball-coloured, %d green pixels", i, b.U, b.V, b.RadiusPx, ball, green)
			}
			ballsChecked++
		}
	}
	if ballsChecked < 5 || lines == 0 || inters == 0 || sharp < n/2 || checked < n {
		t.Errorf("%d balls checked, %d line parts, %d intersections, %d sharp frames of %d, %d line ends checked", ballsChecked, lines, inters, sharp, n, checked)
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := Generate(GenerateConfig{Dir: d, N: 3, Seed: 9, BottomWidth: 640}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"truth.jsonl", "frame_00000.yuyv", "frame_00002.yuyv"} {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
	if err := Generate(GenerateConfig{Dir: a, N: 1, BottomWidth: 100}, nil); err == nil {
		t.Error("bottom width 100 accepted")
	}
}

// maxY is the brightest Y within r pixels of (u, v).
func maxY(f *Frame, u, v float64, r int) byte {
	var m byte
	for y := int(v) - r; y <= int(v)+r; y++ {
		for x := int(u) - r; x <= int(u)+r; x++ {
			if x >= 0 && y >= 0 && x < f.Width && y < f.Height {
				m = max(m, f.Data[2*(y*f.Width+x)])
			}
		}
	}
	return m
}

// medianLowerY is the median Y of the frame's bottom quarter.
func medianLowerY(f *Frame) float64 {
	var hist [256]int
	n := 0
	for y := f.Height * 3 / 4; y < f.Height; y++ {
		for x := range f.Width {
			hist[f.Data[2*(y*f.Width+x)]]++
			n++
		}
	}
	c := 0
	for k, h := range hist {
		if c += h; c >= n/2 {
			return float64(k)
		}
	}
	return 255
}
