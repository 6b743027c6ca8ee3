package nn

import (
	"math"
)

// A step is one kernel invocation of the execution plan. Steps read and
// write session buffers by index; they never allocate.
type step interface {
	run(b [][]float32)
	// bufs returns the buffers the step reads and the one it writes.
	bufs() (in []int, out int)
}

type stepIO struct {
	in  []int
	out int
}

func (s *stepIO) bufs() ([]int, int) { return s.in, s.out }

// Activation fused into the step that produces a value.
type actKind uint8

const (
	actNone actKind = iota
	actRelu
	actClip
	actLeaky
	actSigmoid
	actTanh
)

type activation struct {
	kind   actKind
	lo, hi float32 // Clip bounds
	alpha  float32 // LeakyRelu slope
}

func (a *activation) apply(x []float32) {
	switch a.kind {
	case actNone:
	case actRelu:
		relu(x)
	case actClip:
		lo, hi := a.lo, a.hi
		for i, v := range x {
			if v < lo {
				x[i] = lo
			} else if v > hi {
				x[i] = hi
			}
		}
	case actLeaky:
		al := a.alpha
		for i, v := range x {
			if v < 0 {
				x[i] = v * al
			}
		}
	case actSigmoid:
		for i, v := range x {
			x[i] = sigmoid(v)
		}
	case actTanh:
		for i, v := range x {
			x[i] = float32(math.Tanh(float64(v)))
		}
	}
}

func sigmoid(v float32) float32 {
	if v >= 0 {
		return float32(1 / (1 + math.Exp(-float64(v))))
	}
	e := math.Exp(float64(v))
	return float32(e / (1 + e))
}

// ---- unary activation as its own step ----

type actStep struct {
	stepIO
	act activation
}

func (s *actStep) run(b [][]float32) {
	src, dst := b[s.in[0]], b[s.out]
	copy(dst, src)
	s.act.apply(dst)
}

// ---- layout change / slice ----

type copyStep struct {
	stepIO
	it  nditer
	off int
}

func (s *copyStep) run(b [][]float32) {
	copyStrided(&s.it, b[s.out], b[s.in[0]], s.off)
}

// ---- broadcasting binary op ----

type binOp uint8

const (
	opAdd binOp = iota
	opSub
	opMul
	opDiv
	opMax
	opMin
)

type binaryStep struct {
	stepIO
	op  binOp
	it  nditer // operand strides: 0 = A, 1 = B
	act activation
}

func binInner(op binOp, d, a, b []float32, sa, sb int) {
	n := len(d)
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:n], b[:n]
		switch op {
		case opAdd:
			for i := range d {
				d[i] = a[i] + b[i]
			}
		case opSub:
			for i := range d {
				d[i] = a[i] - b[i]
			}
		case opMul:
			for i := range d {
				d[i] = a[i] * b[i]
			}
		case opDiv:
			for i := range d {
				d[i] = a[i] / b[i]
			}
		case opMax:
			for i := range d {
				d[i] = max(a[i], b[i])
			}
		case opMin:
			for i := range d {
				d[i] = min(a[i], b[i])
			}
		}
	case sa == 1 && sb == 0:
		a = a[:n]
		v := b[0]
		switch op {
		case opAdd:
			for i := range d {
				d[i] = a[i] + v
			}
		case opSub:
			for i := range d {
				d[i] = a[i] - v
			}
		case opMul:
			for i := range d {
				d[i] = a[i] * v
			}
		case opDiv:
			for i := range d {
				d[i] = a[i] / v
			}
		case opMax:
			for i := range d {
				d[i] = max(a[i], v)
			}
		case opMin:
			for i := range d {
				d[i] = min(a[i], v)
			}
		}
	default:
		ia, ib := 0, 0
		for i := range d {
			x, y := a[ia], b[ib]
			switch op {
			case opAdd:
				d[i] = x + y
			case opSub:
				d[i] = x - y
			case opMul:
				d[i] = x * y
			case opDiv:
				d[i] = x / y
			case opMax:
				d[i] = max(x, y)
			case opMin:
				d[i] = min(x, y)
			}
			ia += sa
			ib += sb
		}
	}
}

func (s *binaryStep) run(b [][]float32) {
	dst, A, B := b[s.out], b[s.in[0]], b[s.in[1]]
	it := &s.it
	r := it.rank
	n := it.shape[r-1]
	sa, sb := it.st[0][r-1], it.st[1][r-1]
	var idx [maxRank]int
	o, oa, ob := 0, 0, 0
	for {
		binInner(s.op, dst[o:o+n], A[oa:], B[ob:], sa, sb)
		o += n
		k := r - 2
		for ; k >= 0; k-- {
			idx[k]++
			oa += it.st[0][k]
			ob += it.st[1][k]
			if idx[k] < it.shape[k] {
				break
			}
			oa -= it.st[0][k] * it.shape[k]
			ob -= it.st[1][k] * it.shape[k]
			idx[k] = 0
		}
		if k < 0 {
			break
		}
	}
	s.act.apply(dst)
}

// ---- per-channel affine (BatchNormalization not fused into a Conv) ----

type affineStep struct {
	stepIO
	scale, shift []float32 // per channel; channel is the innermost physical axis
	act          activation
}

func (s *affineStep) run(b [][]float32) {
	src, dst := b[s.in[0]], b[s.out]
	c := len(s.scale)
	sc, sh := s.scale, s.shift
	for o := 0; o+c <= len(dst); o += c {
		x := src[o : o+c]
		y := dst[o : o+c]
		sc := sc[:len(y)]
		sh := sh[:len(y)]
		x = x[:len(y)]
		for i := range y {
			y[i] = x[i]*sc[i] + sh[i]
		}
	}
	s.act.apply(dst)
}

// ---- concat ----

type concatStep struct {
	stepIO
	outer  int
	chunks []int // per input: elements per outer index
}

func (s *concatStep) run(b [][]float32) {
	dst := b[s.out]
	o := 0
	for i := 0; i < s.outer; i++ {
		for k, in := range s.in {
			c := s.chunks[k]
			copy(dst[o:o+c], b[in][i*c:(i+1)*c])
			o += c
		}
	}
}

// ---- constant pad ----

type padStep struct {
	stepIO
	value float32
	it    nditer // walks the input rows; st[0] = output strides
	base  int    // output offset of input element 0
	inner int    // input elements per inner row
}

func (s *padStep) run(b [][]float32) {
	src, dst := b[s.in[0]], b[s.out]
	v := s.value
	for i := range dst {
		dst[i] = v
	}
	if len(src) == 0 {
		return
	}
	it := &s.it
	r := it.rank
	n := it.shape[r-1]
	var idx [maxRank]int
	off := s.base
	o := 0
	for {
		copy(dst[off:off+n], src[o:o+n])
		o += n
		if !it.step0(&idx, &off) {
			return
		}
	}
}

// ---- softmax ----

type softmaxStep struct {
	stepIO
	outer, axis, inner int
}

func (s *softmaxStep) run(b [][]float32) {
	src, dst := b[s.in[0]], b[s.out]
	n, in := s.axis, s.inner
	for o := 0; o < s.outer; o++ {
		for j := 0; j < in; j++ {
			base := o*n*in + j
			m := float32(math.Inf(-1))
			for k := 0; k < n; k++ {
				m = max(m, src[base+k*in])
			}
			var sum float64
			for k := 0; k < n; k++ {
				e := math.Exp(float64(src[base+k*in] - m))
				dst[base+k*in] = float32(e)
				sum += e
			}
			inv := 1 / sum
			for k := 0; k < n; k++ {
				dst[base+k*in] = float32(float64(dst[base+k*in]) * inv)
			}
		}
	}
}

// ---- matrix multiply: out[r][n] = sum_k a[r][k] * w[k][n] + bias[n] ----

type gemmStep struct {
	stepIO
	rows, k, n int
	w          []float32 // [k][n], nil when B is a runtime input (in[1])
	bias       []float32 // [n] or nil
	biasFull   []float32 // [rows][n] or nil
	act        activation
}

func (s *gemmStep) run(b [][]float32) {
	a, dst := b[s.in[0]], b[s.out]
	w := s.w
	if w == nil {
		w = b[s.in[1]]
	}
	N, K := s.n, s.k
	for r := 0; r < s.rows; r++ {
		out := dst[r*N : (r+1)*N]
		switch {
		case s.biasFull != nil:
			copy(out, s.biasFull[r*N:(r+1)*N])
		case s.bias != nil:
			copy(out, s.bias)
		default:
			clear(out)
		}
		axpyPanel(out, a[r*K:(r+1)*K], w, N)
		s.act.apply(out)
	}
}

// ---- pooling (NHWC) ----

type poolStep struct {
	stepIO
	isMax                  bool
	countPad               bool // AveragePool count_include_pad
	n, h, w, c             int
	oh, ow                 int
	kh, kw, sh, sw, dh, dw int
	pt, pl                 int
}

func (s *poolStep) run(b [][]float32) {
	src, dst := b[s.in[0]], b[s.out]
	C := s.c
	for n := 0; n < s.n; n++ {
		for oy := 0; oy < s.oh; oy++ {
			for ox := 0; ox < s.ow; ox++ {
				out := dst[((n*s.oh+oy)*s.ow+ox)*C:][:C]
				cnt := 0
				first := true
				for ky := 0; ky < s.kh; ky++ {
					iy := oy*s.sh - s.pt + ky*s.dh
					if iy < 0 || iy >= s.h {
						continue
					}
					for kx := 0; kx < s.kw; kx++ {
						ix := ox*s.sw - s.pl + kx*s.dw
						if ix < 0 || ix >= s.w {
							continue
						}
						in := src[((n*s.h+iy)*s.w+ix)*C:][:C]
						cnt++
						switch {
						case first:
							copy(out, in)
							first = false
						case s.isMax:
							maxInto(out, in)
						default:
							for i, v := range in {
								out[i] += v
							}
						}
					}
				}
				if first { // window entirely in padding
					clear(out)
					continue
				}
				if !s.isMax {
					if s.countPad {
						cnt = s.kh * s.kw
					}
					inv := 1 / float32(cnt)
					for i := range out {
						out[i] *= inv
					}
				}
			}
		}
	}
}

// tilePixels returns how many output pixels the tile kernel of a width
// handles at once.
func tilePixels(width int) int {
	switch width {
	case 16:
		return 2
	default:
		return 4
	}
}

// tileGo is the portable form of tile (any width).
func tileGo(width, np int, out, x, w []float32, kc, nky, xsy, wsy, ldw, xdx, odx int) {
	for p := 0; p < np; p++ {
		o := out[p*odx : p*odx+width]
		for r := 0; r < nky; r++ {
			xr := x[p*xdx+r*xsy : p*xdx+r*xsy+kc]
			wr := w[r*wsy:]
			for i, v := range xr {
				wi := wr[i*ldw : i*ldw+width]
				for j := range o {
					o[j] += v * wi[j]
				}
			}
		}
	}
}

// axpyPanel computes out[j] += sum_i x[i] * w[i*ldw+j] for j < len(out).
func axpyPanel(out, x, w []float32, ldw int) {
	m := len(out)
	j := 0
	for _, width := range [...]int{16, 8, 4} {
		for ; j+width <= m; j += width {
			tile(width, 1, out[j:], x, w[j:], len(x), 1, 0, 0, ldw, 0, 0)
		}
	}
	if j < m {
		tileGo(m-j, 1, out[j:], x, w[j:], len(x), 1, 0, 0, ldw, 0, 0)
	}
}

// depthwiseTapsGo is the portable form of depthwiseTaps; wSX is the weight
// stride between taps of a row.
func depthwiseTapsGo(out, in, w []float32, wSX, nky, nkx, inSY, inSX, wSY int) {
	for ky := 0; ky < nky; ky++ {
		for kx := 0; kx < nkx; kx++ {
			a := in[ky*inSY+kx*inSX:][:len(out)]
			b := w[ky*wSY+kx*wSX:][:len(out)]
			for i := range out {
				out[i] += a[i] * b[i]
			}
		}
	}
}
