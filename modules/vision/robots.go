package vision

// The pipeline runs one detector (robotobstacles.go); DetectBelow does
// not allocate, its cost is BenchmarkRobotDetector's. The boxes belong to
// the detector until its next call; a detector is for one goroutine.
//
// The detector is B-Human's RobotDetector (Code Release 2025,
// github.com/bhuman/BHumanCodeRelease at d89d603f:
// Src/Modules/Perception/PlayersPerceptors/RobotDetector.cpp and .h,
// Config/NeuralNets/RobotDetector/4_anchor_boxes_20230629-220730.cfg,
// Src/Libs/ImageProcessing/LabelImage.cpp and Resize.cpp,
// Src/Modules/Perception/ImagePreprocessors/ECImageProvider.cpp), with its
// network (modules/vision/nets). This product includes software developed
// by B-Human (http://www.b-human.de).
//
// What the detector does, as B-Human's does:
//
//   - input: the frame shrunk to 80×60 with three channels Y, U, V as
//     0–255 (the network's first layer normalises): Y is averaged over
//     8×8 pixels (for 640×480; k×k for an image of 80k×60k), across as
//     the floor of the mean of 8 and down as a tree of rounded pairwise
//     means, as Resize::shrinkY does; U and V come from the 4:2:2 chroma,
//     first averaged over pairs of rows (ECImageProvider's
//     extractChromaticity, floor), then shrunk by shrinkY from the
//     half-size chroma image (4×4: rounded pairwise means both ways);
//   - output: 8×10 cells × 4 anchors × (confidence, y, x, height, width),
//     raw (the model has no activation); a prediction counts when its raw
//     confidence exceeds logit(Threshold) (B-Human: 0.6); then all five
//     go through the sigmoid; the centre is ((cell + σ) / cells) of the
//     image, the size anchor × 8^(2σ − 1) of the image (anchors in
//     robotAnchors, as width and height fractions of the image);
//   - boxes whose bottom is above the field boundary at their centre
//     column are dropped (DetectBelow only), then non-maximum suppression
//     (a box goes when another box with a higher confidence overlaps it
//     with IoU > NMSIoU, compared against all boxes, not greedily:
//     LabelImage::nonMaximumSuppression), then B-Human's
//     bigBoxSuppression (a box goes when it strictly contains another
//     remaining box);
//   - of B-Human's later obstacle checks (mergeObstacles, trimObstacle)
//     those that need no camera matrix: a box must be at least MinSize
//     pixels wide and high and narrower than MaxWidthRatio of the image.
//     Not done: trimObstacle's narrowing of the sides to the contrast
//     edges and the jersey classification.
//
// Boxes are clipped to the image and sorted by falling score.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/robotd/robotd/nn"
)

// The robot network's shapes (4_anchor_boxes_20230629-220730.cfg).
const (
	robotInW, robotInH   = 80, 60
	robotInC             = 3
	robotOutW, robotOutH = 10, 8
	robotAnchorCount     = 4
	robotParams          = 5
	robotPredictions     = robotOutW * robotOutH * robotAnchorCount
	// robotSizeFactor is B-Human's sizeConversionFactor: σ = 0 and 1
	// scale an anchor by 1/8 and 8.
	robotSizeFactor = 8.0
	// robotMaxScale is the largest supported shrink, log2: 1280×960.
	robotMaxScale = 4
)

// robotAnchors are the anchors' widths and heights as fractions of the
// image's width and height (B-Human's anchors x and y).
var robotAnchors = [robotAnchorCount][2]float64{
	{0.09658511133978298, 0.2370820816605168},
	{0.14000417622375075, 0.4056380034479811},
	{0.2177281673006002, 0.7012438628796819},
	{0.3954677177611361, 0.9756357911017483},
}

// ErrRobotModel is returned by NewRobotDetector for a model it cannot use.
var ErrRobotModel = errors.New("vision: robot model")

// RobotBox is a detected robot: its box in image pixels (X0, Y0 the upper
// left corner, X1, Y1 the lower right one, Y1 the feet) and the network's
// confidence, 0–1.
type RobotBox struct {
	X0, Y0, X1, Y1 float64
	Score          float64
}

// RobotConfig tunes the robot detector. Zero values take the defaults of
// DefaultRobotConfig; Validate states the ranges.
type RobotConfig struct {
	// Threshold is the least confidence of a robot (B-Human's
	// objectThreshold, 0.6).
	Threshold float64 `json:"threshold"`
	// NMSIoU is the overlap above which the less confident of two boxes
	// goes (B-Human's nonMaximumSuppressionIoUThreshold, 0.3).
	NMSIoU float64 `json:"nms_iou"`
	// MaxBoxes bounds the boxes reported, the most confident.
	MaxBoxes int `json:"max_boxes"`
	// MinSize is the least width and height of a box, px (B-Human's
	// minPixel, 20).
	MinSize float64 `json:"min_size"`
	// MaxWidthRatio is the fraction of the image's width a box must be
	// narrower than (B-Human's upper camera: one half).
	MaxWidthRatio float64 `json:"max_width_ratio"`
	// KeepEnclosing keeps boxes that contain another box; false is
	// B-Human's bigBoxSuppression.
	KeepEnclosing bool `json:"keep_enclosing"`
}

// DefaultRobotConfig returns B-Human's settings.
func DefaultRobotConfig() RobotConfig {
	return RobotConfig{
		Threshold:     0.6,
		NMSIoU:        0.3,
		MaxBoxes:      16,
		MinSize:       20,
		MaxWidthRatio: 0.5,
	}
}

// WithDefaults returns the configuration with its zero fields filled from
// DefaultRobotConfig.
func (c RobotConfig) WithDefaults() RobotConfig {
	d := DefaultRobotConfig()
	if c.Threshold == 0 {
		c.Threshold = d.Threshold
	}
	if c.NMSIoU == 0 {
		c.NMSIoU = d.NMSIoU
	}
	if c.MaxBoxes == 0 {
		c.MaxBoxes = d.MaxBoxes
	}
	if c.MinSize == 0 {
		c.MinSize = d.MinSize
	}
	if c.MaxWidthRatio == 0 {
		c.MaxWidthRatio = d.MaxWidthRatio
	}
	return c
}

// Validate reports the first field out of range: Threshold in (0, 1),
// NMSIoU in (0, 1], MaxBoxes 1–320, MinSize 0–480 px, MaxWidthRatio in
// (0, 1].
func (c RobotConfig) Validate() error {
	switch {
	case !(c.Threshold > 0 && c.Threshold < 1):
		return fmt.Errorf("vision robot config: threshold %g not in (0, 1)", c.Threshold)
	case !(c.NMSIoU > 0 && c.NMSIoU <= 1):
		return fmt.Errorf("vision robot config: nms_iou %g not in (0, 1]", c.NMSIoU)
	case c.MaxBoxes < 1 || c.MaxBoxes > robotPredictions:
		return fmt.Errorf("vision robot config: max_boxes %d not in [1, %d]", c.MaxBoxes, robotPredictions)
	case !(c.MinSize >= 0 && c.MinSize <= 480):
		return fmt.Errorf("vision robot config: min_size %g not in [0, 480]", c.MinSize)
	case !(c.MaxWidthRatio > 0 && c.MaxWidthRatio <= 1):
		return fmt.Errorf("vision robot config: max_width_ratio %g not in (0, 1]", c.MaxWidthRatio)
	}
	return nil
}

// RobotDetector runs B-Human's robot network on YUYV frames. All buffers
// are allocated by NewRobotDetector; Detect does not allocate. It is for
// one goroutine.
type RobotDetector struct {
	cfg     RobotConfig
	sess    *nn.Session
	in, out []float32
	// logitThreshold is the raw confidence a prediction must exceed.
	logitThreshold float32

	// The shrink: horizontal results of one row, chroma rows, and the
	// pending rows of the vertical mean trees per level.
	hrow       [robotInW]uint8
	urow, vrow [robotInW]uint8
	ytree      robotMeanTree
	utree      robotMeanTree
	vtree      robotMeanTree

	cands [robotPredictions]RobotBox
	keep  [robotPredictions]bool
	boxes [robotPredictions]RobotBox
}

// NewRobotDetector loads the robot network (ONNX; nets.RobotDetector() is
// B-Human's) and allocates the detector. The model must take [1,60,80,3]
// and give [1,8,10,4,5] (or the same number of values).
func NewRobotDetector(model []byte, cfg RobotConfig) (d *RobotDetector, err error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(model) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrRobotModel)
	}
	defer func() {
		// A model the loader does not survive is a bad model, not a crash.
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("%w: %v", ErrRobotModel, r)
		}
	}()
	m, err := nn.LoadONNX(model)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRobotModel, err)
	}
	ins, outs := m.Inputs(), m.Outputs()
	if len(ins) != 1 || len(outs) != 1 {
		return nil, fmt.Errorf("%w: %d inputs and %d outputs, want 1 and 1", ErrRobotModel, len(ins), len(outs))
	}
	if err := checkRobotShapes(ins[0].Shape, outs[0].Shape); err != nil {
		return nil, err
	}
	s, err := m.NewSession()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRobotModel, err)
	}
	d = &RobotDetector{cfg: cfg, sess: s, in: s.Input(0), out: s.Output(0)}
	if len(d.in) != robotInW*robotInH*robotInC || len(d.out) != robotPredictions*robotParams {
		return nil, fmt.Errorf("%w: session buffers of %d and %d values, want %d and %d", ErrRobotModel,
			len(d.in), len(d.out), robotInW*robotInH*robotInC, robotPredictions*robotParams)
	}
	d.logitThreshold = float32(math.Log(cfg.Threshold / (1 - cfg.Threshold)))
	return d, nil
}

// checkRobotShapes reports whether a model's input and output shapes are
// the robot network's: NHWC [1,60,80,3] in (a free batch counts as 1),
// [1,8,10,4,5] out (any shape of as many values).
func checkRobotShapes(in, out []int) error {
	prod := func(s []int) int {
		n := 1
		for _, d := range s {
			n *= max(d, 1)
		}
		return n
	}
	if len(in) != 4 || in[1] != robotInH || in[2] != robotInW || in[3] != robotInC {
		return fmt.Errorf("%w: input shape %v, want [1 %d %d %d]", ErrRobotModel, in, robotInH, robotInW, robotInC)
	}
	if prod(out) != robotPredictions*robotParams {
		return fmt.Errorf("%w: output shape %v, want [1 %d %d %d %d]", ErrRobotModel, out, robotOutH, robotOutW, robotAnchorCount, robotParams)
	}
	return nil
}

// Config returns the configuration in use, defaults filled in.
func (d *RobotDetector) Config() RobotConfig { return d.cfg }

// robotScale returns log2 of the shrink factor of a w×h frame: w = 80k and
// h = 60k with k = 2, 4, 8 or 16.
func robotScale(w, h int) (int, bool) {
	for s := 1; s <= robotMaxScale; s++ {
		if w == robotInW<<s && h == robotInH<<s {
			return s, true
		}
	}
	return 0, false
}

// Detect finds the robots in a YUYV frame of 640×480 (or 160×120, 320×240,
// 1280×960). The boxes belong to the detector until the next call.
func (d *RobotDetector) Detect(img Image) ([]RobotBox, error) {
	return d.DetectBelow(img, nil)
}

// DetectBelow is Detect dropping, as B-Human does before the non-maximum
// suppression, the boxes whose bottom is above the field boundary
// (boundaryY(u), the boundary's row at column u) at their centre column.
// boundaryY nil drops none.
func (d *RobotDetector) DetectBelow(img Image, boundaryY func(u float64) float64) ([]RobotBox, error) {
	s, ok := robotScale(img.Width, img.Height)
	if !ok {
		return nil, fmt.Errorf("%w: %d×%d for the robot detector (80k×60k, k = 2, 4, 8 or 16: 640×480)", ErrImageSize, img.Width, img.Height)
	}
	if len(img.Data) < img.Width*img.Height*2 {
		return nil, fmt.Errorf("%w: %d bytes for %d×%d", ErrShortBuffer, len(img.Data), img.Width, img.Height)
	}
	d.shrink(img, s)
	if err := d.run(); err != nil {
		return nil, err
	}
	n := d.decode(float64(img.Width), float64(img.Height), boundaryY)
	return d.suppress(n, float64(img.Width), float64(img.Height)), nil
}

// run runs the network; a panic in it (a model the loader accepted but
// cannot run) is an error.
func (d *RobotDetector) run() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: running: %v", ErrRobotModel, r)
		}
	}()
	if err := d.sess.Run(); err != nil {
		return fmt.Errorf("vision: robot network: %w", err)
	}
	return nil
}

// robotMeanTree averages 2^levels rows of robotInW values as a tree of rounded
// pairwise means ((a+b+1)/2, _mm_avg_epu8), the rows pushed in order.
type robotMeanTree struct {
	levels  int
	pending [robotMaxScale][robotInW]uint8
	full    [robotMaxScale]bool
	out     [robotInW]uint8
}

func (t *robotMeanTree) reset(levels int) {
	t.levels = levels
	t.full = [robotMaxScale]bool{}
}

// push adds a row; after 2^levels rows the mean is in t.out.
func (t *robotMeanTree) push(row *[robotInW]uint8) {
	if t.levels == 0 {
		t.out = *row
		return
	}
	cur := row
	for l := 0; l < t.levels; l++ {
		if !t.full[l] {
			t.pending[l] = *cur
			t.full[l] = true
			return
		}
		t.full[l] = false
		p := &t.pending[l]
		for i := range p {
			p[i] = uint8((uint16(p[i]) + uint16(cur[i]) + 1) >> 1)
		}
		cur = p
	}
	t.out = *cur
}

// robotShrinkRun reduces n = 2^s values (v[0], v[step], …) to one as
// Resize::shrinkY does across: means of 8 truncated while at least three
// halvings are left, then rounded pairwise means.
func robotShrinkRun(v []byte, step, s int) uint8 {
	var a [1 << robotMaxScale]uint16
	n := 1 << s
	for i := range n {
		a[i] = uint16(v[i*step])
	}
	left := s
	for ; left > 2; left -= 3 {
		n /= 8
		for i := range n {
			a[i] = (a[8*i] + a[8*i+1] + a[8*i+2] + a[8*i+3] + a[8*i+4] + a[8*i+5] + a[8*i+6] + a[8*i+7]) >> 3
		}
	}
	for ; left > 0; left-- {
		n /= 2
		for i := range n {
			a[i] = (a[2*i] + a[2*i+1] + 1) >> 1
		}
	}
	return uint8(a[0])
}

// shrink fills the network's input from a frame of 80·2^s × 60·2^s.
func (d *RobotDetector) shrink(img Image, s int) {
	if s == 3 {
		d.shrink640(img)
		return
	}
	w := img.Width
	k := 1 << s
	rowBytes := 2 * w
	in := d.in
	for oy := range robotInH {
		d.ytree.reset(s)
		d.utree.reset(s - 1)
		d.vtree.reset(s - 1)
		base := oy * k * rowBytes
		for r := 0; r < k; r += 2 {
			a := img.Data[base+r*rowBytes : base+(r+1)*rowBytes]
			b := img.Data[base+(r+1)*rowBytes : base+(r+2)*rowBytes]
			d.lumaRow(a, s)
			d.ytree.push(&d.hrow)
			d.lumaRow(b, s)
			d.ytree.push(&d.hrow)
			d.chromaRows(a, b, s-1)
			d.utree.push(&d.urow)
			d.vtree.push(&d.vrow)
		}
		o := in[oy*robotInW*robotInC : (oy+1)*robotInW*robotInC]
		for x := range robotInW {
			o[3*x] = float32(d.ytree.out[x])
			o[3*x+1] = float32(d.utree.out[x])
			o[3*x+2] = float32(d.vtree.out[x])
		}
	}
}

// SWAR constants: 16-bit lanes of a uint64.
const (
	robotLanesLo  = 0x00FF00FF00FF00FF // the low byte of each lane
	robotLanesSum = 0x0001000100010001 // multiplying sums the lanes into the top one
	robotPairOne  = 0x0000000000010001 // 1 in lanes 0 and 1
	robotPairLo   = 0x0000000000FF00FF
)

// robotAvgPair is the rounded mean of lanes 0 and 1 of x and y (_mm_avg_epu8).
func robotAvgPair(x, y uint64) uint64 { return (x + y + robotPairOne) >> 1 & robotPairLo }

// shrink640 is shrink for 640×480, the same values, 8 bytes at a time:
// per output pixel, 8 rows of 16 bytes (8 pixels, 4 YUYV pairs).
func (d *RobotDetector) shrink640(img Image) {
	const rowBytes = 2 * 640
	in := d.in[:robotInW*robotInH*robotInC]
	for oy := range robotInH {
		blk := img.Data[oy*8*rowBytes : (oy+1)*8*rowBytes]
		o := in[oy*robotInW*robotInC : (oy+1)*robotInW*robotInC]
		for x := range robotInW {
			var y [8]uint64 // per row: the floor of the mean of 8 lumas
			var c [4]uint64 // per row pair: U, V in lanes 0, 1
			for r := 0; r < 8; r += 2 {
				p := (*[16]byte)(blk[r*rowBytes+16*x:])
				q := (*[16]byte)(blk[(r+1)*rowBytes+16*x:])
				pa, pb := binary.LittleEndian.Uint64(p[:8]), binary.LittleEndian.Uint64(p[8:])
				qa, qb := binary.LittleEndian.Uint64(q[:8]), binary.LittleEndian.Uint64(q[8:])
				y[r] = ((pa&robotLanesLo + pb&robotLanesLo) * robotLanesSum) >> 51
				y[r+1] = ((qa&robotLanesLo + qb&robotLanesLo) * robotLanesSum) >> 51
				// Lanes U0 V0 U1 V1 (and U2 V2 U3 V3) of the two rows,
				// the floor of their mean (extractChromaticity).
				ca := (pa>>8&robotLanesLo + qa>>8&robotLanesLo) >> 1 & robotLanesLo
				cb := (pb>>8&robotLanesLo + qb>>8&robotLanesLo) >> 1 & robotLanesLo
				c[r/2] = robotAvgPair(robotAvgPair(ca, ca>>32), robotAvgPair(cb, cb>>32))
			}
			y01, y23 := (y[0]+y[1]+1)>>1, (y[2]+y[3]+1)>>1
			y45, y67 := (y[4]+y[5]+1)>>1, (y[6]+y[7]+1)>>1
			o[3*x] = float32((((y01 + y23 + 1) >> 1) + ((y45 + y67 + 1) >> 1) + 1) >> 1)
			uv := robotAvgPair(robotAvgPair(c[0], c[1]), robotAvgPair(c[2], c[3]))
			o[3*x+1] = float32(uv & 0xFF)
			o[3*x+2] = float32(uv >> 16 & 0xFF)
		}
	}
}

// lumaRow shrinks one YUYV row's lumas across into d.hrow.
func (d *RobotDetector) lumaRow(row []byte, s int) {
	k := 1 << s
	for x := range robotInW {
		d.hrow[x] = robotShrinkRun(row[x*2*k:], 2, s)
	}
}

// chromaRows forms the chroma of two YUYV rows (the floor of their mean,
// per pixel pair) and shrinks it across by 2^s into d.urow and d.vrow.
func (d *RobotDetector) chromaRows(a, b []byte, s int) {
	k := 1 << s // pixel pairs per output column
	var cu, cv [1 << robotMaxScale]byte
	for x := range robotInW {
		pa, pb := a[x*4*k:], b[x*4*k:]
		for i := range k {
			cu[i] = byte((uint(pa[4*i+1]) + uint(pb[4*i+1])) >> 1)
			cv[i] = byte((uint(pa[4*i+3]) + uint(pb[4*i+3])) >> 1)
		}
		d.urow[x] = robotShrinkRun(cu[:], 1, s)
		d.vrow[x] = robotShrinkRun(cv[:], 1, s)
	}
}

func robotSigmoid(x float32) float64 { return 1 / (1 + math.Exp(-float64(x))) }

// decode turns the predictions above the threshold into boxes in d.cands
// and returns their number.
func (d *RobotDetector) decode(w, h float64, boundaryY func(u float64) float64) int {
	n := 0
	for cy := range robotOutH {
		for cx := range robotOutW {
			for b := range robotAnchorCount {
				p := d.out[((cy*robotOutW+cx)*robotAnchorCount+b)*robotParams:][:robotParams]
				if !(p[0] > d.logitThreshold) {
					continue
				}
				ym := (float64(cy) + robotSigmoid(p[1])) / robotOutH * h
				xm := (float64(cx) + robotSigmoid(p[2])) / robotOutW * w
				bh := robotAnchors[b][1] * math.Pow(robotSizeFactor, 2*robotSigmoid(p[3])-1) * h
				bw := robotAnchors[b][0] * math.Pow(robotSizeFactor, 2*robotSigmoid(p[4])-1) * w
				box := RobotBox{X0: xm - bw/2, Y0: ym - bh/2, X1: xm + bw/2, Y1: ym + bh/2, Score: robotSigmoid(p[0])}
				if boundaryY != nil && boundaryY(xm) > box.Y1 {
					continue
				}
				d.cands[n] = box
				n++
			}
		}
	}
	return n
}

// robotBoxArea and robotIoU are LabelImage::Annotation's getArea and getIou.
func robotBoxArea(a RobotBox) float64 { return (a.X1 - a.X0) * (a.Y1 - a.Y0) }

func robotIoU(a, b RobotBox) float64 {
	ix := max(0, min(a.X1, b.X1)-max(a.X0, b.X0))
	iy := max(0, min(a.Y1, b.Y1)-max(a.Y0, b.Y0))
	in := ix * iy
	return in / (robotBoxArea(a) + robotBoxArea(b) - in + 1e-6)
}

// robotContains reports whether b lies strictly inside a
// (LabelImage::Annotation::isInside, a the annotation).
func robotContains(a, b RobotBox) bool {
	return a.X1 > b.X1 && a.Y1 > b.Y1 && a.X0 < b.X0 && a.Y0 < b.Y0
}

// suppress runs B-Human's non-maximum and big box suppression on the n
// candidates, clips, filters by size, and returns the boxes by falling
// score.
func (d *RobotDetector) suppress(n int, w, h float64) []RobotBox {
	c := d.cands[:n]
	keep := d.keep[:n]
	for i := range c {
		keep[i] = true
		for j := range c {
			if robotIoU(c[i], c[j]) > d.cfg.NMSIoU && c[i].Score < c[j].Score {
				keep[i] = false
				break
			}
		}
	}
	m := 0
	for i := range c {
		if keep[i] {
			c[m] = c[i]
			m++
		}
	}
	c = c[:m]
	keep = keep[:m]
	for i := range c {
		keep[i] = true
		if d.cfg.KeepEnclosing {
			continue
		}
		for j := range c {
			if robotContains(c[i], c[j]) {
				keep[i] = false
				break
			}
		}
	}
	out := d.boxes[:0]
	for i, b := range c {
		if !keep[i] {
			continue
		}
		b.X0, b.X1 = max(b.X0, 0), min(b.X1, w)
		b.Y0, b.Y1 = max(b.Y0, 0), min(b.Y1, h)
		bw, bh := b.X1-b.X0, b.Y1-b.Y0
		if bw < d.cfg.MinSize || bh < d.cfg.MinSize || bw >= d.cfg.MaxWidthRatio*w {
			continue
		}
		// Insertion by falling score.
		out = append(out, b)
		for j := len(out) - 1; j > 0 && out[j].Score > out[j-1].Score; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	if len(out) > d.cfg.MaxBoxes {
		out = out[:d.cfg.MaxBoxes]
	}
	return out
}

// OnRobot reports whether pixel (u, v) lies in one of the boxes and the
// highest score of those it lies in: a ball candidate there needs the ball
// network's RobotBallScore.
func OnRobot(boxes []RobotBox, u, v float64) (score float64, ok bool) {
	for _, b := range boxes {
		if u >= b.X0 && u <= b.X1 && v >= b.Y0 && v <= b.Y1 && (!ok || b.Score > score) {
			score, ok = b.Score, true
		}
	}
	return score, ok
}
