package vision

import (
	"fmt"
	"math"

	"github.com/robotd/robotd/hal"
)

// Pixel classes of the scan.
const (
	clsOther uint8 = iota
	clsField
	clsWhite
)

// run is a stretch of one class on a scan line: rows a..b (a ≤ b) of
// column at for vertical scans, columns a..b of row at for horizontal ones.
type run struct {
	at, a, b int32
	cls      uint8
}

func (r run) len() int32 { return r.b - r.a + 1 }

// linePoint is a white run's centre on the ground.
type linePoint struct {
	x, y, d float64
	tol     float64 // inlier distance at this point's distance
	used    bool
}

// Pipeline is one camera's image processing with its buffers. It is not
// safe for concurrent use; run one per camera.
type Pipeline struct {
	cfg Config

	// frame state
	img  []byte
	w, h int
	proj Projector
	res  Result

	// field colour
	hist          [32 * 32]uint16
	samples       []uint32 // packed Y<<16 | U<<8 | V
	fu, fv, fy    float64
	nu, nv        float64 // the image's grey (128, 128)
	gu, gv, gnorm float64 // field chroma minus grey, and its length
	greenMin      float64 // least projection on (gu, gv) for field
	perpMax       float64 // most chroma distance across that axis
	whiteY        int     // least luma of white
	// greenMin and perpMax per luma: chroma shrinks with brightness, so
	// darker field (vignetting, shadows) needs less of it, down to 45 % of
	// the field's luma; darker is never field.
	greenMinY, perpMaxY [256]float64

	// per row: projected ball radius and line height, px; 0 above horizon
	ballR, lineH []float32

	// scan grid
	cols                []int32 // column u of each vertical scan line
	colStart, colEnd    []int32 // runs of each column in vruns
	colTop              []int32 // topmost scanned row per column
	vruns               []run
	rows                []int32
	rowStart, rowEnd    []int32
	hruns               []run
	rawBoundary, boundV []float64
	boundU              []float64
	medBuf              [5]float64
	hullIdx             []int32
	points              []linePoint
	sortBuf             []float64
	idxBuf              []int32
	lines               [maxLines]Segment
	inters              [maxIntersections]Intersection
	marks               [maxMarks]hal.Vec2
	balls               [maxBalls]Ball
	obstacles           [maxObstacles]Obstacle
	regionBuf           [maxObstacles]Obstacle
	reportedBuf         [maxObstacles]RobotBox
	robots              *RobotDetector
	boundaryFn          func(u float64) float64
	lastRobots          []RobotBox // the last run's boxes, the detector's
	robotW, robotH      int        // their frame's size
	robotTick           uint64     // frames of that size: runs at multiples of RobotDetectorEvery
	cands               [maxBallCandidates]ballCand
	nCands              int
	net                 patchNet
	patch               [patchSize * patchSize]uint8
	candOut             [maxBallCandidates]Candidate
	rng                 uint64
	obstacleCols        []bool
	circle              hal.Vec2
	circleFound         bool
	hasCAxis            bool
	circleAxisAngle     float64
}

// New returns a pipeline with buffers for frames up to the configured size.
func New(cfg Config) (*Pipeline, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w, h := cfg.MaxWidth, cfg.MaxHeight
	ncol := w/cfg.ColumnSpacing + 1
	p := &Pipeline{cfg: cfg}
	p.samples = make([]uint32, 0, (w/cfg.FieldSampleStep+1)*(h/cfg.FieldSampleStep+1))
	p.ballR = make([]float32, h)
	p.lineH = make([]float32, h)
	p.cols = make([]int32, 0, ncol)
	p.colStart = make([]int32, ncol)
	p.colEnd = make([]int32, ncol)
	p.colTop = make([]int32, ncol)
	p.vruns = make([]run, 0, ncol*h/2+ncol)
	p.rows = make([]int32, 0, h)
	p.rowStart = make([]int32, h)
	p.rowEnd = make([]int32, h)
	p.hruns = make([]run, 0, w*h/4+h)
	p.rawBoundary = make([]float64, ncol)
	p.boundV = make([]float64, ncol)
	p.boundU = make([]float64, ncol)
	p.hullIdx = make([]int32, 0, ncol)
	p.points = make([]linePoint, 0, maxLinePoints)
	p.sortBuf = make([]float64, 0, maxLinePoints)
	p.idxBuf = make([]int32, 0, maxLinePoints)
	p.obstacleCols = make([]bool, ncol)
	if newBallNet != nil {
		net, err := newBallNet(cfg.BallModel)
		if err != nil {
			return nil, err
		}
		p.net = net
	}
	d, err := newRobotDetector(cfg)
	if err != nil {
		return nil, err
	}
	p.robots = d
	p.boundaryFn = p.boundaryAt
	return p, nil
}

// Config returns the pipeline's configuration with defaults filled in.
func (p *Pipeline) Config() Config { return p.cfg }

// Process finds what the image shows, writes the observations to out
// (replacing its content; out.Fresh is true on success) and returns the
// detailed result, valid until the next call.
func (p *Pipeline) Process(img Image, proj Projector, out *hal.Vision) (*Result, error) {
	if out != nil {
		out.N, out.Fresh = 0, false
	}
	if img.Width <= 0 || img.Height <= 0 || img.Width%2 != 0 || img.Width > p.cfg.MaxWidth || img.Height > p.cfg.MaxHeight || img.Width < 16 || img.Height < 16 {
		return nil, fmt.Errorf("%w: %d×%d (even width 16–%d, height 16–%d)", ErrImageSize, img.Width, img.Height, p.cfg.MaxWidth, p.cfg.MaxHeight)
	}
	if len(img.Data) < img.Width*img.Height*2 {
		return nil, fmt.Errorf("%w: %d bytes for %d×%d", ErrShortBuffer, len(img.Data), img.Width, img.Height)
	}
	if proj == nil {
		return nil, ErrNoProjector
	}
	p.img, p.w, p.h, p.proj = img.Data, img.Width, img.Height, proj
	p.res = Result{BoundaryU: p.boundU[:0], BoundaryV: p.boundV[:0], Lines: p.lines[:0],
		Intersections: p.inters[:0], Marks: p.marks[:0], Balls: p.balls[:0], Obstacles: p.obstacles[:0],
		Candidates: p.candOut[:0]}
	p.rng = 0x9e3779b97f4a7c15
	p.circleFound, p.hasCAxis = false, false

	p.rowTables()
	if p.estimateField() {
		p.res.FieldFound = true
		p.scanColumns()
		p.fieldBoundary()
		p.scanRows()
		p.findObstacles()
		p.findRobots()
		p.findBalls()
		p.collectLinePoints()
		p.findCircle()
		p.findLines()
		p.findIntersections()
		p.findMarks()
	}
	if out != nil {
		p.observations(out)
		out.Fresh = true
	}
	p.img, p.proj = nil, nil
	return &p.res, nil
}

// pix returns the YUV of pixel (u, v), which must be inside the image.
func (p *Pipeline) pix(u, v int) (y, cu, cv int) {
	i := (v*p.w + u) * 2
	j := (v*p.w + u&^1) * 2
	return int(p.img[i]), int(p.img[j+1]), int(p.img[j+3])
}

// classify returns the class of pixel (u, v): its own luma, and the
// chroma of its 4×2 neighbourhood (two YUYV pairs on two rows), which
// halves the sensor's chroma noise in the dark.
func (p *Pipeline) classify(u, v int) uint8 {
	p.res.Work.ScanPoints++
	y, cu, cv := p.pix(u, v)
	u2 := u ^ 2 // the neighbouring pair
	if u2 >= p.w {
		u2 = u
	}
	v2 := v + 1
	if v2 >= p.h {
		v2 = v - 1
	}
	j1 := (v*p.w + u2&^1) * 2
	j2 := (v2*p.w + u&^1) * 2
	j3 := (v2*p.w + u2&^1) * 2
	cu = (cu + int(p.img[j1+1]) + int(p.img[j2+1]) + int(p.img[j3+1]) + 2) >> 2
	cv = (cv + int(p.img[j1+3]) + int(p.img[j2+3]) + int(p.img[j3+3]) + 2) >> 2
	return p.classOf(y, cu, cv)
}

func (p *Pipeline) classOf(y, cu, cv int) uint8 {
	if y >= p.whiteY {
		return clsWhite
	}
	du, dv := float64(cu)-p.nu, float64(cv)-p.nv
	along := du*p.gu + dv*p.gv
	if along < p.greenMinY[y] {
		return clsOther
	}
	if math.Abs(du*p.gv-dv*p.gu) > p.perpMaxY[y] {
		return clsOther
	}
	return clsField
}

// rowTables projects, for every row, the ball's radius and a line's height
// at the image's centre column.
func (p *Pipeline) rowTables() {
	R := float64(p.cfg.Field.BallRadius)
	lw := float64(p.cfg.LineWidth)
	uc := float64(p.w) / 2
	maxD := float64(p.cfg.MaxDistance)
	for v := range p.h {
		p.ballR[v], p.lineH[v] = 0, 0
		if float64(v) <= p.proj.HorizonY(uc) {
			continue
		}
		x, y, ok := p.proj.ImageToGround(uc, float64(v))
		d := math.Hypot(x, y)
		if !ok || !finite(x, y) || d < 1e-3 || d > 2*maxD {
			continue
		}
		r := p.radiusAt(x, y, d, R)
		u2, v2, ok2 := p.proj.GroundToImage(x*(d+lw)/d, y*(d+lw)/d)
		_ = u2
		if !ok2 || !finite(r, v2) {
			continue
		}
		p.ballR[v] = float32(r)
		p.lineH[v] = float32(math.Abs(float64(v) - v2))
	}
}

// radiusAt is the image size of a length R seen across the viewing
// direction at ground point (x, y), distance d: the ball's radius for R the
// ball's radius.
func (p *Pipeline) radiusAt(x, y, d, R float64) float64 {
	u0, v0, ok0 := p.proj.GroundToImage(x, y)
	u1, v1, ok1 := p.proj.GroundToImage(x-R*y/d, y+R*x/d)
	if !ok0 || !ok1 {
		return math.NaN()
	}
	return math.Hypot(u1-u0, v1-v0)
}

// expectedRadius is the ball's projected radius at pixel (u, v), px; 0
// above the horizon.
func (p *Pipeline) expectedRadius(u, v float64) float64 {
	x, y, ok := p.proj.ImageToGround(u, v)
	d := math.Hypot(x, y)
	if !ok || !finite(x, y) || d < 1e-3 {
		return 0
	}
	r := p.radiusAt(x, y, d, float64(p.cfg.Field.BallRadius))
	if !finite(r) {
		return 0
	}
	return r
}

// estimateField finds the field colour: the densest chroma of a sparse
// grid below the horizon. It reports false when that is not green enough
// to be a field.
func (p *Pipeline) estimateField() bool {
	clear(p.hist[:])
	p.samples = p.samples[:0]
	st := p.cfg.FieldSampleStep
	for u := st / 2; u < p.w; u += st {
		hz := p.proj.HorizonY(float64(u))
		top := 0
		if finite(hz) && hz > 0 {
			top = int(math.Ceil(math.Min(hz, float64(p.h)))) + 1
		}
		for v := p.h - 1 - st/2; v >= top; v -= st {
			y, cu, cv := p.pix(u, v)
			p.hist[(cu>>3)*32+cv>>3]++
			p.samples = append(p.samples, uint32(y)<<16|uint32(cu)<<8|uint32(cv))
		}
	}
	if len(p.samples) < 16 {
		return false
	}
	p.nu, p.nv = 128, 128
	// The densest chroma; when that is grey (a floor or wall beyond the
	// field filling much of the image), again without the grey samples.
	var n, su, sv, sy, syy float64
	for attempt := range 2 {
		grey := 0.0
		if attempt == 1 {
			grey = 2 * p.cfg.MinFieldSaturation
			clear(p.hist[:])
			for _, s := range p.samples {
				if cu, cv := float64(s>>8&0xff)-p.nu, float64(s&0xff)-p.nv; cu*cu+cv*cv >= grey*grey {
					p.hist[(s>>11&0x1f)*32+s>>3&0x1f]++
				}
			}
		}
		best, bi, bj := -1, 0, 0
		for i := range 32 {
			for j := range 32 {
				s := 0
				for di := -1; di <= 1; di++ {
					for dj := -1; dj <= 1; dj++ {
						a, b := i+di, j+dj
						if a >= 0 && a < 32 && b >= 0 && b < 32 {
							s += int(p.hist[a*32+b])
						}
					}
				}
				if s > best {
					best, bi, bj = s, i, j
				}
			}
		}
		if best*10 < len(p.samples) {
			return false
		}
		n, su, sv, sy, syy = 0, 0, 0, 0, 0
		for _, s := range p.samples {
			y, cu, cv := float64(s>>16), float64(s>>8&0xff), float64(s&0xff)
			if (cu-p.nu)*(cu-p.nu)+(cv-p.nv)*(cv-p.nv) < grey*grey {
				continue
			}
			if di, dj := int(s>>11&0x1f)-bi, int(s>>3&0x1f)-bj; di >= -1 && di <= 1 && dj >= -1 && dj <= 1 {
				n++
				su += cu
				sv += cv
				sy += y
				syy += y * y
			}
		}
		if n == 0 {
			return false
		}
		if math.Hypot(su/n-p.nu, sv/n-p.nv) >= p.cfg.MinFieldSaturation {
			break
		}
	}
	p.fu, p.fv, p.fy = su/n, sv/n, sy/n
	ystd := math.Sqrt(math.Max(0, syy/n-p.fy*p.fy))
	p.gu, p.gv = p.fu-p.nu, p.fv-p.nv
	p.gnorm = math.Hypot(p.gu, p.gv)
	p.res.Field = Colour{Y: p.fy, U: p.fu, V: p.fv}
	if p.gnorm < p.cfg.MinFieldSaturation {
		return false
	}
	// Spread across the hue axis of the pixels near the field colour.
	var np, sp float64
	for _, s := range p.samples {
		du, dv := float64(s>>8&0xff)-p.nu, float64(s&0xff)-p.nv
		along := (du*p.gu + dv*p.gv) / p.gnorm
		if along < 0.5*p.gnorm {
			continue
		}
		perp := (du*p.gv - dv*p.gu) / p.gnorm
		if math.Abs(perp) < 2*p.gnorm {
			np++
			sp += perp * perp
		}
	}
	perpStd := 2.0
	if np > 0 {
		perpStd = math.Max(perpStd, math.Sqrt(sp/np))
	}
	// classOf compares unnormalised products: scale by gnorm.
	p.greenMin = p.cfg.FieldGreenRatio * p.gnorm * p.gnorm
	p.perpMax = math.Max(3*perpStd, 0.6*p.gnorm) * p.gnorm
	// White is brighter than the field by its contrast, but never beyond
	// 60 % of the way from the field's luma to 255: a bright or uneven
	// field (a wide luma spread) would otherwise put the threshold above
	// anything the camera can deliver, and then nothing is white.
	p.whiteY = int(math.Ceil(p.fy + math.Max(p.cfg.MinWhiteContrast, 2.5*ystd)))
	p.whiteY = min(p.whiteY, int(math.Ceil(p.fy+math.Max(8, 0.6*(255-p.fy)))), 255)
	for y := range 256 {
		k := math.Min(1, float64(y)/p.fy)
		p.greenMinY[y], p.perpMaxY[y] = k*p.greenMin, k*p.perpMax
		if k < 0.45 {
			// Far darker than the field: a black ball patch whose pixel
			// pair shares its chroma with the carpet beside it.
			p.greenMinY[y], p.perpMaxY[y] = math.Inf(1), 0
		}
	}
	return true
}

// scanColumns splits the vertical scan lines into runs. Column i scans
// from the lowest row where the ball's projected size asks for its
// spacing up to the horizon; between samples the step follows a line's
// projected height, and class changes are located to the pixel.
func (p *Pipeline) scanColumns() {
	cs := p.cfg.ColumnSpacing
	p.cols = p.cols[:0]
	p.vruns = p.vruns[:0]
	for u := cs / 2; u < p.w; u += cs {
		p.cols = append(p.cols, int32(u))
	}
	for ci, u32 := range p.cols {
		u := int(u32)
		level := 8
		if ci != 0 {
			level = 1
			for k := ci; k%2 == 0 && level < 8; k /= 2 {
				level *= 2
			}
		}
		hz := p.proj.HorizonY(float64(u))
		top := 0
		if finite(hz) && hz > 0 {
			top = int(math.Ceil(math.Min(hz, float64(p.h)))) + 1
		}
		if top > p.h-1 {
			top = p.h
		}
		// Lowest row this column covers: where the ball spans fewer than
		// three spacings of the next-coarser level.
		bot := p.h - 1
		if level < 8 {
			for bot >= top {
				need := float64(p.ballR[bot]) * 2 / 3
				if need < float64(cs*level*2) {
					break
				}
				bot--
			}
		}
		p.colTop[ci] = int32(top)
		p.colStart[ci] = int32(len(p.vruns))
		if bot >= top {
			p.scanColumn(u, top, bot)
		}
		p.colEnd[ci] = int32(len(p.vruns))
	}
}

func (p *Pipeline) rowStep(v int) int {
	s := int(p.lineH[v] / 2)
	if s < 1 {
		return 1
	}
	if s > 16 {
		return 16
	}
	return s
}

func (p *Pipeline) scanColumn(u, top, bot int) {
	v := bot
	cls := p.classify(u, v)
	runBot := v
	for v > top && !p.scanExhausted() {
		nv := v - p.rowStep(v)
		if nv < top {
			nv = top
		}
		c := p.classify(u, nv)
		if c != cls {
			hi, lo := p.edge(v, nv, cls, u, true) // hi has cls
			if len(p.vruns) < cap(p.vruns) {
				p.vruns = append(p.vruns, run{at: int32(u), a: int32(hi), b: int32(runBot), cls: cls})
			}
			runBot = lo
			cls = p.classify(u, lo)
		}
		v = nv
	}
	if len(p.vruns) < cap(p.vruns) {
		p.vruns = append(p.vruns, run{at: int32(u), a: int32(top), b: int32(runBot), cls: cls})
	}
	p.res.Work.Runs = len(p.vruns) + len(p.hruns)
}

// edge bisects a scan line between a (class cls) and b (another class):
// the column at when vertical, else the row at. It returns the last
// position with cls and the next one, which has another class.
func (p *Pipeline) edge(a, b int, cls uint8, at int, vertical bool) (in, out int) {
	for a-b > 1 || b-a > 1 {
		m := (a + b) / 2
		var c uint8
		if vertical {
			c = p.classify(at, m)
		} else {
			c = p.classify(m, at)
		}
		if c == cls {
			a = m
		} else {
			b = m
		}
	}
	return a, b
}

// scanRows splits horizontal scan lines below the field boundary into
// runs; their spacing is a third of the ball's projected radius.
func (p *Pipeline) scanRows() {
	p.rows = p.rows[:0]
	p.hruns = p.hruns[:0]
	minB := float64(p.h)
	for _, b := range p.boundV {
		minB = math.Min(minB, b)
	}
	if !(minB >= 0) {
		minB = 0
	}
	for v := p.h - 1 - 2; v > int(minB); {
		r := float64(p.ballR[v])
		if r == 0 || p.scanExhausted() {
			break
		}
		ri := len(p.rows)
		p.rows = append(p.rows, int32(v))
		p.rowStart[ri] = int32(len(p.hruns))
		step := int(r / 2)
		step = max(1, min(step, 8))
		u := 0
		cls := p.classify(u, v)
		runL := 0
		for u < p.w-1 && !p.scanExhausted() {
			nu := min(u+step, p.w-1)
			c := p.classify(nu, v)
			if c != cls {
				lo, hi := p.edge(u, nu, cls, v, false) // lo has cls
				if len(p.hruns) < cap(p.hruns) {
					p.hruns = append(p.hruns, run{at: int32(v), a: int32(runL), b: int32(lo), cls: cls})
				}
				runL = hi
				cls = p.classify(hi, v)
			}
			u = nu
		}
		if len(p.hruns) < cap(p.hruns) {
			p.hruns = append(p.hruns, run{at: int32(v), a: int32(runL), b: int32(p.w - 1), cls: cls})
		}
		p.rowEnd[ri] = int32(len(p.hruns))
		p.res.Work.Runs = len(p.vruns) + len(p.hruns)
		// A third of the ball's radius: lines running away from the robot
		// (steep in the image) get a point every few rows.
		sp := int(math.Max(2, math.Min(16, r/3)))
		v -= sp
	}
}
