package nn

import (
	"errors"
	"fmt"
)

// Layouts. Every value has a logical shape (the shape ONNX defines) and a
// physical layout: a permutation p of its axes such that the data is stored
// contiguously (row-major) with physical shape [shape[p[0]], shape[p[1]], ...].
// A nil layout is the identity ("plain"). Image tensors, which ONNX defines as
// NCHW, are stored NHWC (layout [0 2 3 1]) so that the channel loop of Conv,
// pooling and BatchNormalization is the innermost, contiguous one. A
// Transpose node therefore never moves data: it only changes the layout of
// its output. Data is moved only when an op needs another layout than the
// one its input has (for example Reshape and MatMul need plain data).

// maxRank is the highest tensor rank supported.
const maxRank = 8

// maxElems bounds the element count of any single tensor (128 MiB of
// float32), so corrupted shapes are rejected instead of exhausting memory.
const maxElems = 1 << 25

var errTooLarge = errors.New("tensor too large")

// numel returns the product of shape, checking for negative dimensions and
// overflow beyond maxElems.
func numel(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if d != 0 && n > maxElems/d {
			return 0, fmt.Errorf("shape %v: %w", shape, errTooLarge)
		}
		n *= d
	}
	return n, nil
}

func isIdentity(p []int) bool {
	for i, v := range p {
		if v != i {
			return false
		}
	}
	return true
}

func identity(r int) []int {
	p := make([]int, r)
	for i := range p {
		p[i] = i
	}
	return p
}

// normLayout returns nil for an identity layout.
func normLayout(p []int) []int {
	if p == nil || isIdentity(p) {
		return nil
	}
	return p
}

func layoutOf(p []int, r int) []int {
	if p == nil {
		return identity(r)
	}
	return p
}

// sameData reports whether two layouts of the same logical shape store the
// data in the same order: true when the axes longer than 1 appear in the same
// order in both.
func sameData(shape, a, b []int) bool {
	r := len(shape)
	a, b = layoutOf(a, r), layoutOf(b, r)
	i, j := 0, 0
	for {
		for i < r && shape[a[i]] == 1 {
			i++
		}
		for j < r && shape[b[j]] == 1 {
			j++
		}
		if i == r || j == r {
			return i == r && j == r
		}
		if a[i] != b[j] {
			return false
		}
		i++
		j++
	}
}

// physStrides returns, for each logical axis, its element stride in storage
// of the given layout.
func physStrides(shape, layout []int) []int {
	r := len(shape)
	p := layoutOf(layout, r)
	st := make([]int, r)
	s := 1
	for j := r - 1; j >= 0; j-- {
		st[p[j]] = s
		s *= shape[p[j]]
	}
	return st
}

func physShape(shape, layout []int) []int {
	r := len(shape)
	p := layoutOf(layout, r)
	ps := make([]int, r)
	for j := range ps {
		ps[j] = shape[p[j]]
	}
	return ps
}

func composePerm(a, b []int) []int { // result[i] = a[b[i]]
	out := make([]int, len(b))
	for i := range b {
		out[i] = a[b[i]]
	}
	return out
}

func invertPerm(p []int) []int {
	out := make([]int, len(p))
	for i, v := range p {
		out[v] = i
	}
	return out
}

func validPerm(p []int, r int) bool {
	if len(p) != r {
		return false
	}
	seen := make([]bool, r)
	for _, v := range p {
		if v < 0 || v >= r || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// nditer describes a walk over a dense destination of the given shape with
// up to three strided operands (source strides per destination axis).
// Axes of size 1 are dropped and adjacent axes that are contiguous for all
// operands are merged, which leaves one or two axes in the common cases.
type nditer struct {
	rank  int
	shape [maxRank]int
	st    [2][maxRank]int // strides of operands 0 and 1
}

// step0 advances idx over the outer axes (all but the innermost) and off
// along operand 0's strides; it is false when the walk is done.
func (it *nditer) step0(idx *[maxRank]int, off *int) bool {
	for k := it.rank - 2; k >= 0; k-- {
		idx[k]++
		*off += it.st[0][k]
		if idx[k] < it.shape[k] {
			return true
		}
		*off -= it.st[0][k] * it.shape[k]
		idx[k] = 0
	}
	return false
}

func newIter(shape []int, strides ...[]int) (nditer, error) {
	var it nditer
	if len(shape) > maxRank {
		return it, fmt.Errorf("rank %d exceeds %d", len(shape), maxRank)
	}
	var dims []int
	for i, d := range shape {
		if d != 1 {
			dims = append(dims, i)
		}
	}
	for _, i := range dims {
		r := it.rank
		if r > 0 {
			// merge with the previous axis if contiguous in every operand
			ok := true
			for k, s := range strides {
				if it.st[k][r-1] != s[i]*shape[i] {
					ok = false
				}
			}
			if ok {
				it.shape[r-1] *= shape[i]
				for k, s := range strides {
					it.st[k][r-1] = s[i]
				}
				continue
			}
		}
		it.shape[r] = shape[i]
		for k, s := range strides {
			it.st[k][r] = s[i]
		}
		it.rank++
	}
	if it.rank == 0 {
		it.rank = 1
		it.shape[0] = 1
	}
	return it, nil
}

// copyStrided copies src (viewed through it.st[0], starting at off) into the
// dense dst.
func copyStrided(it *nditer, dst, src []float32, off int) {
	r := it.rank
	n := it.shape[r-1]
	s := it.st[0][r-1]
	var idx [maxRank]int
	o := 0
	for {
		// inner axis
		if s == 1 {
			copy(dst[o:o+n], src[off:off+n])
		} else {
			d := dst[o : o+n]
			j := off
			for i := range d {
				d[i] = src[j]
				j += s
			}
		}
		o += n
		if !it.step0(&idx, &off) {
			return
		}
	}
}

// permuteData returns the data of a tensor with the given logical shape,
// stored in layout from, re-stored in layout to.
func permuteData(data []float32, shape, from, to []int) ([]float32, error) {
	out := make([]float32, len(data))
	if len(data) == 0 {
		return out, nil
	}
	st := physStrides(shape, from)
	r := len(shape)
	p := layoutOf(to, r)
	dshape := make([]int, r)
	sst := make([]int, r)
	for j := 0; j < r; j++ {
		dshape[j] = shape[p[j]]
		sst[j] = st[p[j]]
	}
	it, err := newIter(dshape, sst)
	if err != nil {
		return nil, err
	}
	copyStrided(&it, out, data, 0)
	return out, nil
}

// broadcastShape returns the numpy-style broadcast of two shapes.
func broadcastShape(a, b []int) ([]int, error) {
	r := max(len(a), len(b))
	out := make([]int, r)
	for i := 0; i < r; i++ {
		da, db := 1, 1
		if j := i - (r - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (r - len(b)); j >= 0 {
			db = b[j]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

// bcastStrides returns the strides of an operand with logical shape s and
// layout l, broadcast to the logical output shape out (0 for broadcast
// axes), listed in the physical axis order of the output layout outL.
func bcastStrides(s, l, out, outL []int) []int {
	r := len(out)
	st := physStrides(s, l)
	ls := make([]int, r)
	for i := 0; i < r; i++ {
		j := i - (r - len(s))
		if j >= 0 && s[j] == out[i] {
			ls[i] = st[j]
		}
	}
	p := layoutOf(outL, r)
	res := make([]int, r)
	for j := 0; j < r; j++ {
		res[j] = ls[p[j]]
	}
	return res
}
