//go:build !purego

package nn

//go:generate go run ./internal/gentile

// SSE kernels, see simd_amd64.s and the generated tile_amd64.s. The Go wrappers check every bound the
// assembly relies on, so a wrong call panics instead of touching memory
// outside the slices.

//go:noescape
func tile16x1(out, x, w *float32, kc, nky, xsy, wsy, ldw, xdx, odx int)

//go:noescape
func tile16x2(out, x, w *float32, kc, nky, xsy, wsy, ldw, xdx, odx int)

//go:noescape
func tile8x1(out, x, w *float32, kc, nky, xsy, wsy, ldw, xdx, odx int)

//go:noescape
func tile8x4(out, x, w *float32, kc, nky, xsy, wsy, ldw, xdx, odx int)

//go:noescape
func tile4x1(out, x, w *float32, kc, nky, xsy, wsy, ldw, xdx, odx int)

//go:noescape
func tile4x4(out, x, w *float32, kc, nky, xsy, wsy, ldw, xdx, odx int)

//go:noescape
func relu4(x *float32, n int)

//go:noescape
func max4(out, a *float32, n int)

//go:noescape
func dwTaps(out, in, w *float32, c, nky, nkx, inSY, inSX, wSY, wSX int)

// tile computes, for p < np and j < width,
//
//	out[p*odx+j] += sum_{r<nky} sum_{i<kc} x[p*xdx+r*xsy+i] * w[r*wsy+i*ldw+j]
//
// with np = tilePixels(width) or 1. width is 16, 8 or 4.
func tile(width, np int, out, x, w []float32, kc, nky, xsy, wsy, ldw, xdx, odx int) {
	if kc <= 0 || nky <= 0 {
		return
	}
	if len(out) < (np-1)*odx+width || len(x) < (np-1)*xdx+(nky-1)*xsy+kc ||
		len(w) < (nky-1)*wsy+(kc-1)*ldw+width {
		panic("nn: tile: operand too short")
	}
	o, a, b := &out[0], &x[0], &w[0]
	switch {
	case width == 16 && np == 1:
		tile16x1(o, a, b, kc, nky, xsy, wsy, ldw, xdx, odx)
	case width == 16 && np == 2:
		tile16x2(o, a, b, kc, nky, xsy, wsy, ldw, xdx, odx)
	case width == 8 && np == 1:
		tile8x1(o, a, b, kc, nky, xsy, wsy, ldw, xdx, odx)
	case width == 8 && np == 4:
		tile8x4(o, a, b, kc, nky, xsy, wsy, ldw, xdx, odx)
	case width == 4 && np == 1:
		tile4x1(o, a, b, kc, nky, xsy, wsy, ldw, xdx, odx)
	case width == 4 && np == 4:
		tile4x4(o, a, b, kc, nky, xsy, wsy, ldw, xdx, odx)
	default:
		panic("nn: tile: unsupported shape")
	}
}

// relu sets negative elements of x to 0.
func relu(x []float32) {
	n4 := len(x) &^ 3
	if n4 > 0 {
		relu4(&x[0], n4)
	}
	for i := n4; i < len(x); i++ {
		if x[i] < 0 {
			x[i] = 0
		}
	}
}

// maxInto computes out[i] = max(out[i], a[i]).
func maxInto(out, a []float32) {
	n := len(out)
	a = a[:n]
	n4 := n &^ 3
	if n4 > 0 {
		max4(&out[0], &a[0], n4)
	}
	for i := n4; i < n; i++ {
		if a[i] > out[i] {
			out[i] = a[i]
		}
	}
}

// depthwiseTaps computes, for channels ch < len(out),
// out[ch] += sum_{ky<nky,kx<nkx} in[ky*inSY+kx*inSX+ch] * w[ky*wSY+kx*len(out)+ch].
func depthwiseTaps(out, in, w []float32, nky, nkx, inSY, inSX, wSY int) {
	c := len(out)
	if c == 0 || nky <= 0 || nkx <= 0 {
		return
	}
	if len(in) < (nky-1)*inSY+(nkx-1)*inSX+c || len(w) < (nky-1)*wSY+(nkx-1)*c+c {
		panic("nn: depthwiseTaps: operand too short")
	}
	c4 := c &^ 3
	if c4 > 0 {
		dwTaps(&out[0], &in[0], &w[0], c4, nky, nkx, inSY, inSX, wSY, c)
	}
	if c4 < c {
		depthwiseTapsGo(out[c4:], in[c4:], w[c4:], c, nky, nkx, inSY, inSX, wSY)
	}
}
