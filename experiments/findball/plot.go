package findball

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"time"

	"github.com/robotd/robotd/field"
)

// Plots are drawn with the standard library only: an RGBA canvas, lines
// and discs blended over it, and a 3×5 pixel font for labels.

// RouteScale is the route plot's pixels per metre; the plot covers the
// carpet (the field and its border), so it is
// RouteScale·(length + 2·border) by RouteScale·(width + 2·border) pixels.
const RouteScale = 100

// RouteSize returns the route plot's size in pixels.
func RouteSize() (w, h int) {
	d := field.SPL()
	return int(math.Round(RouteScale * float64(d.Length+2*d.Border))), int(math.Round(RouteScale * float64(d.Width+2*d.Border)))
}

// Colours of the plots.
var (
	carpet     = color.RGBA{0x2f, 0x7d, 0x32, 0xff}
	lineWhite  = color.RGBA{0xff, 0xff, 0xff, 0xff}
	ballOrange = color.RGBA{0xff, 0x8c, 0x00, 0xff}
	textBlack  = color.RGBA{0x10, 0x10, 0x10, 0xff}
	paper      = color.RGBA{0xff, 0xff, 0xff, 0xff}
	gridGrey   = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	// robotColours are the robots' route colours, in the order of
	// Config.Starts (thesis figures: one colour per robot).
	robotColours = []color.RGBA{
		{0xe5, 0x39, 0x35, 0xff}, // red
		{0x1e, 0x88, 0xe5, 0xff}, // blue
		{0xfd, 0xd8, 0x35, 0xff}, // yellow
		{0x8e, 0x24, 0xaa, 0xff}, // purple
		{0x00, 0xac, 0xc1, 0xff}, // cyan
		{0xf4, 0x51, 0x1e, 0xff}, // orange
	}
	// strategyColours colour the strategies in the find-time plot.
	strategyColours = []color.RGBA{
		{0xe5, 0x39, 0x35, 0xff},
		{0x1e, 0x88, 0xe5, 0xff},
		{0x43, 0xa0, 0x47, 0xff},
		{0x8e, 0x24, 0xaa, 0xff},
	}
)

// canvas is an RGBA image with blending primitives.
type canvas struct{ img *image.RGBA }

func newCanvas(w, h int, bg color.RGBA) *canvas {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, w, h))}
	c.fill(0, 0, w, h, bg, 1)
	return c
}

// blend paints c over pixel (x, y) with opacity a.
func (c *canvas) blend(x, y int, col color.RGBA, a float64) {
	if !(image.Point{x, y}.In(c.img.Rect)) || a <= 0 {
		return
	}
	a = min(a, 1)
	i := c.img.PixOffset(x, y)
	p := c.img.Pix[i : i+4 : i+4]
	p[0] = uint8(float64(p[0])*(1-a) + float64(col.R)*a + 0.5)
	p[1] = uint8(float64(p[1])*(1-a) + float64(col.G)*a + 0.5)
	p[2] = uint8(float64(p[2])*(1-a) + float64(col.B)*a + 0.5)
	p[3] = 0xff
}

func (c *canvas) fill(x0, y0, x1, y1 int, col color.RGBA, a float64) {
	for y := max(y0, 0); y < min(y1, c.img.Rect.Dy()); y++ {
		for x := max(x0, 0); x < min(x1, c.img.Rect.Dx()); x++ {
			c.blend(x, y, col, a)
		}
	}
}

// line draws an anti-aliased line of the given width (pixels) from
// (x0, y0) to (x1, y1), with opacity a.
func (c *canvas) line(x0, y0, x1, y1, width float64, col color.RGBA, a float64) {
	r := width / 2
	minX, maxX := int(math.Floor(min(x0, x1)-r-1)), int(math.Ceil(max(x0, x1)+r+1))
	minY, maxY := int(math.Floor(min(y0, y1)-r-1)), int(math.Ceil(max(y0, y1)+r+1))
	dx, dy := x1-x0, y1-y0
	l2 := dx*dx + dy*dy
	for y := max(minY, 0); y <= min(maxY, c.img.Rect.Dy()-1); y++ {
		for x := max(minX, 0); x <= min(maxX, c.img.Rect.Dx()-1); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			t := 0.0
			if l2 > 0 {
				t = min(max(((px-x0)*dx+(py-y0)*dy)/l2, 0), 1)
			}
			d := math.Hypot(px-(x0+t*dx), py-(y0+t*dy))
			if cov := r + 0.5 - d; cov > 0 {
				c.blend(x, y, col, a*min(cov, 1))
			}
		}
	}
}

// disc draws a filled anti-aliased disc.
func (c *canvas) disc(cx, cy, r float64, col color.RGBA, a float64) {
	for y := int(cy - r - 1); y <= int(cy+r+1); y++ {
		for x := int(cx - r - 1); x <= int(cx+r+1); x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			if cov := r + 0.5 - d; cov > 0 {
				c.blend(x, y, col, a*min(cov, 1))
			}
		}
	}
}

// ring draws a circle's outline.
func (c *canvas) ring(cx, cy, r, width float64, col color.RGBA, a float64) {
	for y := int(cy - r - width - 1); y <= int(cy+r+width+1); y++ {
		for x := int(cx - r - width - 1); x <= int(cx+r+width+1); x++ {
			d := math.Abs(math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) - r)
			if cov := width/2 + 0.5 - d; cov > 0 {
				c.blend(x, y, col, a*min(cov, 1))
			}
		}
	}
}

// font3x5 is a 3×5 pixel font: five rows of three bits per glyph.
var font3x5 = map[rune][5]uint8{
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 7, 1, 7}, '4': {5, 5, 7, 1, 1},
	'5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 1, 1}, '8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7},
	'A': {2, 5, 7, 5, 5}, 'B': {6, 5, 6, 5, 6}, 'C': {3, 4, 4, 4, 3}, 'D': {6, 5, 5, 5, 6}, 'E': {7, 4, 6, 4, 7},
	'F': {7, 4, 6, 4, 4}, 'G': {3, 4, 5, 5, 3}, 'H': {5, 5, 7, 5, 5}, 'I': {7, 2, 2, 2, 7}, 'J': {1, 1, 1, 5, 2},
	'K': {5, 5, 6, 5, 5}, 'L': {4, 4, 4, 4, 7}, 'M': {5, 7, 7, 5, 5}, 'N': {6, 5, 5, 5, 5}, 'O': {2, 5, 5, 5, 2},
	'P': {6, 5, 6, 4, 4}, 'Q': {2, 5, 5, 6, 3}, 'R': {6, 5, 6, 5, 5}, 'S': {3, 4, 2, 1, 6}, 'T': {7, 2, 2, 2, 2},
	'U': {5, 5, 5, 5, 7}, 'V': {5, 5, 5, 5, 2}, 'W': {5, 5, 7, 7, 5}, 'X': {5, 5, 2, 5, 5}, 'Y': {5, 5, 2, 2, 2},
	'Z': {7, 1, 2, 4, 7}, '.': {0, 0, 0, 0, 2}, '-': {0, 0, 7, 0, 0}, '%': {5, 1, 2, 4, 5}, '/': {1, 1, 2, 4, 4},
	':': {0, 2, 0, 2, 0}, '(': {2, 4, 4, 4, 2}, ')': {2, 1, 1, 1, 2}, '=': {0, 7, 0, 7, 0}, '+': {0, 2, 7, 2, 0},
	',': {0, 0, 0, 2, 4}, ' ': {},
}

// text draws s (upper-cased) with its top left at (x, y), each font pixel
// scale pixels wide; it returns the width drawn.
func (c *canvas) text(x, y int, s string, scale int, col color.RGBA) int {
	cx := x
	for _, r := range strings.ToUpper(s) {
		g, ok := font3x5[r]
		if !ok {
			g = font3x5['-']
		}
		for row := range 5 {
			for bit := range 3 {
				if g[row]&(4>>bit) != 0 {
					c.fill(cx+bit*scale, y+row*scale, cx+(bit+1)*scale, y+(row+1)*scale, col, 1)
				}
			}
		}
		cx += 4 * scale
	}
	return cx - x
}

func textWidth(s string, scale int) int { return len([]rune(s)) * 4 * scale }

// fieldCanvas draws the SPL field; to maps field coordinates (m) to
// pixels.
func fieldCanvas() (*canvas, func(x, y float64) (float64, float64)) {
	d := field.SPL()
	w, h := RouteSize()
	c := newCanvas(w, h, carpet)
	L, W, B := float64(d.Length), float64(d.Width), float64(d.Border)
	to := func(x, y float64) (float64, float64) {
		return (x + L/2 + B) * RouteScale, (W/2 + B - y) * RouteScale
	}
	lw := 0.05 * RouteScale
	seg := func(x0, y0, x1, y1 float64) {
		a, b := to(x0, y0)
		e, f := to(x1, y1)
		c.line(a, b, e, f, lw, lineWhite, 1)
	}
	seg(-L/2, -W/2, L/2, -W/2)
	seg(-L/2, W/2, L/2, W/2)
	seg(-L/2, -W/2, -L/2, W/2)
	seg(L/2, -W/2, L/2, W/2)
	seg(0, -W/2, 0, W/2)
	pl, pw := float64(d.PenaltyAreaLength), float64(d.PenaltyAreaWidth)/2
	for _, s := range []float64{-1, 1} {
		seg(s*L/2, -pw, s*(L/2-pl), -pw)
		seg(s*L/2, pw, s*(L/2-pl), pw)
		seg(s*(L/2-pl), -pw, s*(L/2-pl), pw)
		// Penalty mark and goal (posts and net behind the line).
		mx, my := to(s*(L/2-float64(d.PenaltyMarkDistance)), 0)
		c.line(mx-5, my, mx+5, my, lw, lineWhite, 1)
		c.line(mx, my-5, mx, my+5, lw, lineWhite, 1)
		g := float64(d.GoalWidth) / 2
		a, b := to(s*L/2, -g)
		e, f := to(s*(L/2+0.5), g)
		c.fill(int(min(a, e)), int(min(b, f)), int(max(a, e)), int(max(b, f)), color.RGBA{0xcc, 0xcc, 0xcc, 0xff}, 0.5)
		for _, py := range []float64{-g, g} {
			px, qy := to(s*L/2, py)
			c.disc(px, qy, 0.05*RouteScale, lineWhite, 1)
		}
	}
	cx, cy := to(0, 0)
	c.ring(cx, cy, float64(d.CentreCircleRadius)*RouteScale, lw, lineWhite, 1)
	c.line(cx-5, cy, cx+5, cy, lw, lineWhite, 1)
	return c, to
}

// RoutePlot draws the routes of every robot in every given trial over the
// field, as the thesis' figures 5.2 and 5.3: one colour per robot, faint
// lines that darken where routes overlap, the ball positions (orange,
// numbered) and the starts (squares in the robots' colours). trials maps
// a trial ID to its samples.
func RoutePlot(w io.Writer, cfg *Config, title string, trials func(fn func(samples []Sample) error) error) error {
	c, to := fieldCanvas()
	idx := map[int]int{}
	for i, s := range cfg.Starts {
		idx[s.Player] = i
	}
	alpha := 0.12
	err := trials(func(samples []Sample) error {
		for i := 1; i < len(samples); i++ {
			a, b := samples[i-1], samples[i]
			if a.Player != b.Player {
				continue
			}
			col := robotColours[idx[a.Player]%len(robotColours)]
			x0, y0 := to(a.X, a.Y)
			x1, y1 := to(b.X, b.Y)
			c.line(x0, y0, x1, y1, 2.5, col, alpha)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, b := range cfg.Balls {
		x, y := to(b.X, b.Y)
		c.disc(x, y, 0.08*RouteScale, textBlack, 1)
		c.disc(x, y, 0.065*RouteScale, ballOrange, 1)
		label := fmt.Sprint(i + 1)
		c.text(int(x)-textWidth(label, 2)/2+1, int(y)-5, label, 2, textBlack)
	}
	for i, s := range cfg.Starts {
		x, y := to(s.X, s.Y)
		col := robotColours[i%len(robotColours)]
		c.fill(int(x)-9, int(y)-9, int(x)+9, int(y)+9, textBlack, 1)
		c.fill(int(x)-7, int(y)-7, int(x)+7, int(y)+7, col, 1)
		c.text(int(x)-2, int(y)-4, fmt.Sprint(s.Player), 2, textBlack)
	}
	// Title and legend on the border.
	c.text(8, 8, title, 3, lineWhite)
	lx := 8
	_, h := RouteSize()
	for i, s := range cfg.Starts {
		col := robotColours[i%len(robotColours)]
		c.fill(lx, h-22, lx+14, h-8, col, 1)
		lx += 18
		lx += c.text(lx, h-20, fmt.Sprintf("ROBOT %d", s.Player), 2, lineWhite) + 14
	}
	c.text(lx, h-20, "BALL POSITIONS: ORANGE", 2, lineWhite)
	return encodePNG(w, c.img)
}

func encodePNG(w io.Writer, img image.Image) error {
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("experiment: writing a PNG: %w", err)
	}
	return nil
}

// Find-time plot layout.
const (
	TimePlotW, TimePlotH = 960, 540
	plotLeft, plotRight  = 70, 70
	plotTop, plotBottom  = 50, 60
)

// TimePlot draws the find-time distribution of each strategy: a
// histogram of the find times (10 s bins up to the limit, then the trials
// not found, side by side per strategy) and each strategy's cumulative
// find rate over time (the line, right axis).
func TimePlot(w io.Writer, cfg *Config, results []Result) error {
	c := newCanvas(TimePlotW, TimePlotH, paper)
	strategies := make([]string, 0, len(cfg.Strategies))
	for _, s := range cfg.Strategies {
		strategies = append(strategies, s.Name)
	}
	limit := cfg.Limit.D()
	bin := 10 * time.Second
	if limit > 10*time.Minute {
		bin = limit / 18
	}
	nb := int((limit + bin - 1) / bin)
	counts := make([][]int, len(strategies)) // [strategy][bin], last = not found
	tests := make([]int, len(strategies))
	var found [][]time.Duration
	found = make([][]time.Duration, len(strategies))
	maxCount := 1
	for i, s := range strategies {
		counts[i] = make([]int, nb+1)
		for _, r := range results {
			if r.Strategy != s {
				continue
			}
			tests[i]++
			k := nb
			if r.Found {
				k = min(int(r.Time/bin), nb-1)
				found[i] = append(found[i], r.Time)
			}
			counts[i][k]++
			maxCount = max(maxCount, counts[i][k])
		}
	}
	x0, x1 := plotLeft, TimePlotW-plotRight
	y0, y1 := plotTop, TimePlotH-plotBottom
	slots := nb + 2 // the bins, a gap, not found
	slotW := float64(x1-x0) / float64(slots)
	// Grid and axes.
	ticks := niceTicks(maxCount)
	top := ticks[len(ticks)-1]
	yOf := func(v float64) float64 { return float64(y1) - v/float64(top)*float64(y1-y0) }
	for _, t := range ticks {
		y := yOf(float64(t))
		c.line(float64(x0), y, float64(x1), y, 1, gridGrey, 1)
		l := fmt.Sprint(t)
		c.text(x0-8-textWidth(l, 2), int(y)-5, l, 2, textBlack)
	}
	for _, p := range []int{0, 25, 50, 75, 100} {
		y := yOf(float64(p) / 100 * float64(top))
		c.text(x1+8, int(y)-5, fmt.Sprintf("%d%%", p), 2, textBlack)
	}
	c.line(float64(x0), float64(y0), float64(x0), float64(y1), 2, textBlack, 1)
	c.line(float64(x0), float64(y1), float64(x1), float64(y1), 2, textBlack, 1)
	for k := 0; k <= nb; k += max(1, nb/9) {
		x := float64(x0) + float64(k)*slotW
		c.line(x, float64(y1), x, float64(y1)+6, 2, textBlack, 1)
		l := fmt.Sprint(int((time.Duration(k) * bin).Seconds()))
		c.text(int(x)-textWidth(l, 2)/2, y1+10, l, 2, textBlack)
	}
	nfx := float64(x0) + float64(nb+1)*slotW
	c.text(int(nfx), y1+10, "NOT", 2, textBlack)
	c.text(int(nfx), y1+22, "FOUND", 2, textBlack)
	c.text((x0+x1)/2-textWidth("FIND TIME (S)", 2)/2, y1+34, "FIND TIME (S)", 2, textBlack)
	c.text(8, 14, "TRIALS", 2, textBlack)
	c.text(TimePlotW-textWidth("FOUND", 2)-8, 14, "FOUND", 2, textBlack)
	// Bars.
	barW := slotW * 0.8 / float64(max(1, len(strategies)))
	for i := range strategies {
		col := strategyColours[i%len(strategyColours)]
		for k, n := range counts[i] {
			if n == 0 {
				continue
			}
			slot := k
			if k == nb {
				slot = nb + 1
			}
			bx := float64(x0) + float64(slot)*slotW + slotW*0.1 + float64(i)*barW
			c.fill(int(bx), int(yOf(float64(n))), int(bx+barW), y1, col, 0.75)
		}
	}
	// Cumulative find rate.
	for i := range strategies {
		if tests[i] == 0 {
			continue
		}
		col := strategyColours[i%len(strategyColours)]
		px, py := float64(x0), float64(y1)
		n := 0
		steps := int(limit / (100 * time.Millisecond))
		fs := found[i]
		for s := 1; s <= steps; s++ {
			at := time.Duration(s) * 100 * time.Millisecond
			for _, f := range fs {
				if f > at-100*time.Millisecond && f <= at {
					n++
				}
			}
			x := float64(x0) + at.Seconds()/bin.Seconds()*slotW
			y := yOf(float64(n) / float64(tests[i]) * float64(top))
			c.line(px, py, x, y, 2.5, col, 1)
			px, py = x, y
		}
	}
	// Title and legend.
	c.text(x0, 14, "FIND-TIME DISTRIBUTION", 3, textBlack)
	lx := x0 + textWidth("FIND-TIME DISTRIBUTION", 3) + 30
	for i, s := range strategies {
		col := strategyColours[i%len(strategyColours)]
		c.fill(lx, 14, lx+14, 28, col, 1)
		lx += 18
		lx += c.text(lx, 16, fmt.Sprintf("%s (%d)", s, tests[i]), 2, textBlack) + 16
	}
	return encodePNG(w, c.img)
}

// niceTicks returns 0 and round steps up to at least max.
func niceTicks(max int) []int {
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000} {
		step = s
		if max/s <= 6 {
			break
		}
	}
	var t []int
	for v := 0; ; v += step {
		t = append(t, v)
		if v >= max {
			return t
		}
	}
}
