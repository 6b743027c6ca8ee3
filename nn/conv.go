package nn

// Convolution kernels over NHWC data, direct (no im2col buffer). For every
// output pixel the accumulator row holds all output channels of a group; the
// innermost loop runs over output channels, with the weights packed so that
// this loop reads them contiguously.

type convGeom struct {
	n, h, w, c             int // input
	oh, ow, m              int // output
	kh, kw, sh, sw, dh, dw int
	pt, pl                 int
	group                  int
}

// convStep is a grouped convolution (group == 1 is the common case).
// Weights are packed as [group][kh][kw][c/group][m/group].
type convStep struct {
	stepIO
	g    convGeom
	w    []float32
	bias []float32 // [m], never nil after build
	act  activation
}

func (s *convStep) run(b [][]float32) {
	src, dst := b[s.in[0]], b[s.out]
	g := &s.g
	if g.group == 1 && g.dw == 1 {
		s.runDense(src, dst)
		return
	}
	C, M := g.c, g.m
	cg, mg := C/g.group, M/g.group
	for n := 0; n < g.n; n++ {
		for oy := 0; oy < g.oh; oy++ {
			ky0, ky1 := kernelRange(oy, g.sh, g.pt, g.dh, g.kh, g.h)
			orow := dst[((n*g.oh+oy)*g.ow)*M:][:g.ow*M]
			for ox := 0; ox < g.ow; ox++ {
				out := orow[ox*M:][:M]
				copy(out, s.bias)
				kx0, kx1 := kernelRange(ox, g.sw, g.pl, g.dw, g.kw, g.w)
				for ky := ky0; ky < ky1; ky++ {
					iy := oy*g.sh - g.pt + ky*g.dh
					row := src[((n*g.h+iy)*g.w)*C:][:g.w*C]
					for gi := 0; gi < g.group; gi++ {
						acc := out[gi*mg : (gi+1)*mg]
						wg := s.w[gi*g.kh*g.kw*cg*mg:]
						for kx := kx0; kx < kx1; kx++ {
							ix := ox*g.sw - g.pl + kx*g.dw
							axpyPanel(acc, row[ix*C+gi*cg:][:cg], wg[(ky*g.kw+kx)*cg*mg:], mg)
						}
					}
				}
			}
			s.act.apply(orow)
		}
	}
}

// runDense is the group == 1, unit horizontal dilation case: the taps of one
// kernel row read one contiguous run of input pixels, so a whole output
// pixel (all kernel rows) is one tile call, and interior pixels go several
// at a time.
func (s *convStep) runDense(src, dst []float32) {
	g := &s.g
	C, M := g.c, g.m
	// interior output columns: full kernel width inside the input
	oxLo, oxHi := g.ow, 0
	for ox := 0; ox < g.ow; ox++ {
		if kx0, kx1 := kernelRange(ox, g.sw, g.pl, 1, g.kw, g.w); kx0 == 0 && kx1 == g.kw {
			oxLo, oxHi = min(oxLo, ox), ox+1
		}
	}
	wsy := g.kw * C * M
	xsy := g.dh * g.w * C
	for n := 0; n < g.n; n++ {
		for oy := 0; oy < g.oh; oy++ {
			orow := dst[((n*g.oh+oy)*g.ow)*M:][:g.ow*M]
			for ox := 0; ox < g.ow; ox++ {
				copy(orow[ox*M:(ox+1)*M], s.bias)
			}
			ky0, ky1 := kernelRange(oy, g.sh, g.pt, g.dh, g.kh, g.h)
			if ky1 <= ky0 {
				s.act.apply(orow)
				continue
			}
			iy0 := oy*g.sh - g.pt + ky0*g.dh
			img := src[((n*g.h+iy0)*g.w)*C:]
			wr := s.w[ky0*wsy:]
			j := 0
			for _, width := range [...]int{16, 8, 4, 0} {
				for ; (width > 0 && j+width <= M) || (width == 0 && j < M); j += width {
					wd, np := width, tilePixels(width)
					if width == 0 {
						wd, np = M-j, 1
					}
					for ox := 0; ox < g.ow; {
						if np > 1 && ox >= oxLo && ox+np <= oxHi {
							ix := ox*g.sw - g.pl
							s.tile(wd, np, orow[ox*M+j:], img[ix*C:], wr[j:], g.kw*C, ky1-ky0, xsy, wsy, M, g.sw*C, M)
							ox += np
							continue
						}
						kx0, kx1 := kernelRange(ox, g.sw, g.pl, 1, g.kw, g.w)
						if kx1 > kx0 {
							ix := ox*g.sw - g.pl + kx0
							s.tile(wd, 1, orow[ox*M+j:], img[ix*C:], wr[kx0*C*M+j:], (kx1-kx0)*C, ky1-ky0, xsy, wsy, M, 0, 0)
						}
						ox++
					}
					if width == 0 {
						j = M
					}
				}
			}
			s.act.apply(orow)
		}
	}
}

func (s *convStep) tile(width, np int, out, x, w []float32, kc, nky, xsy, wsy, ldw, xdx, odx int) {
	if width == 16 || width == 8 || width == 4 {
		tile(width, np, out, x, w, kc, nky, xsy, wsy, ldw, xdx, odx)
		return
	}
	tileGo(width, np, out, x, w, kc, nky, xsy, wsy, ldw, xdx, odx)
}

// kernelRange returns the kernel taps [k0,k1) whose input coordinate
// o*stride - pad + k*dil lies in [0,size).
func kernelRange(o, stride, pad, dil, k, size int) (int, int) {
	base := o*stride - pad
	k0 := 0
	if base < 0 {
		k0 = (-base + dil - 1) / dil
	}
	k1 := k
	if last := base + (k-1)*dil; last >= size {
		k1 = (size - base + dil - 1) / dil
	}
	if k1 < k0 {
		k1 = k0
	}
	return k0, k1
}

// dwConvStep is a depthwise convolution: group == c, output channel
// m = ci*mult + j reads input channel ci only. Weights are packed [kh][kw][m].
type dwConvStep struct {
	stepIO
	g    convGeom
	mult int
	w    []float32
	bias []float32
	act  activation
}

func (s *dwConvStep) run(b [][]float32) {
	src, dst := b[s.in[0]], b[s.out]
	g := &s.g
	C, M := g.c, g.m
	for n := 0; n < g.n; n++ {
		for oy := 0; oy < g.oh; oy++ {
			ky0, ky1 := kernelRange(oy, g.sh, g.pt, g.dh, g.kh, g.h)
			orow := dst[((n*g.oh+oy)*g.ow)*M:][:g.ow*M]
			for ox := 0; ox < g.ow; ox++ {
				out := orow[ox*M:][:M]
				copy(out, s.bias)
				kx0, kx1 := kernelRange(ox, g.sw, g.pl, g.dw, g.kw, g.w)
				if s.mult == 1 {
					if kx1 > kx0 && ky1 > ky0 {
						iy := oy*g.sh - g.pt + ky0*g.dh
						ix := ox*g.sw - g.pl + kx0*g.dw
						in := src[((n*g.h+iy)*g.w+ix)*C:]
						depthwiseTaps(out, in, s.w[(ky0*g.kw+kx0)*M:], ky1-ky0, kx1-kx0,
							g.dh*g.w*C, g.dw*C, g.kw*M)
					}
					continue
				}
				for ky := ky0; ky < ky1; ky++ {
					iy := oy*g.sh - g.pt + ky*g.dh
					row := src[((n*g.h+iy)*g.w)*C:]
					for kx := kx0; kx < kx1; kx++ {
						ix := ox*g.sw - g.pl + kx*g.dw
						in := row[ix*C:][:C]
						wk := s.w[(ky*g.kw+kx)*M:][:M]
						{
							for i := range out {
								out[i] += in[i/s.mult] * wk[i]
							}
						}
					}
				}
			}
			s.act.apply(orow)
		}
	}
}
