//go:build !amd64 || purego

package nn

// Portable forms of the kernels in simd_amd64.s.

func tile(width, np int, out, x, w []float32, kc, nky, xsy, wsy, ldw, xdx, odx int) {
	tileGo(width, np, out, x, w, kc, nky, xsy, wsy, ldw, xdx, odx)
}

// relu sets negative elements of x to 0.
func relu(x []float32) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}

// maxInto computes out[i] = max(out[i], a[i]).
func maxInto(out, a []float32) {
	a = a[:len(out)]
	for i, v := range a {
		if v > out[i] {
			out[i] = v
		}
	}
}

// depthwiseTaps computes, for channels ch < len(out),
// out[ch] += sum_{ky<nky,kx<nkx} in[ky*inSY+kx*inSX+ch] * w[ky*wSY+kx*len(out)+ch].
func depthwiseTaps(out, in, w []float32, nky, nkx, inSY, inSX, wSY int) {
	depthwiseTapsGo(out, in, w, len(out), nky, nkx, inSY, inSX, wSY)
}
