//go:build !purego

#include "textflag.h"

// SSE (SSE1/SSE2 only, the amd64 baseline, so the kernels run on every
// x86-64 CPU including the NAO v6's Atom E3845). Bounds are checked by the
// Go callers in simd_amd64.go.

// func relu4(x *float32, n int)
// x[i] = max(x[i], 0) for i < n; n is a multiple of 4.
TEXT ·relu4(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	SHRQ $2, CX
	JEQ doneRelu
	XORPS X1, X1
loopRelu:
	MOVUPS (DI), X0
	MAXPS X1, X0
	MOVUPS X0, (DI)
	ADDQ $16, DI
	DECQ CX
	JNZ loopRelu
doneRelu:
	RET

// func max4(out, a *float32, n int)
// out[i] = max(out[i], a[i]) for i < n; n is a multiple of 4.
TEXT ·max4(SB), NOSPLIT, $0-24
	MOVQ out+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JEQ doneMax
loopMax:
	MOVUPS (DI), X0
	MOVUPS (SI), X1
	MAXPS X1, X0
	MOVUPS X0, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ loopMax
doneMax:
	RET

// func dwTaps(out, in, w *float32, c, nky, nkx, inSY, inSX, wSY, wSX int)
// Depthwise accumulation for one output pixel, channels [0,c), c a multiple
// of 4:
//   out[ch] += sum_{ky<nky, kx<nkx} in[ky*inSY + kx*inSX + ch] * w[ky*wSY + kx*wSX + ch]
// Strides are in elements. Channels go in blocks of 16 (four independent
// accumulators), then blocks of 4.
TEXT ·dwTaps(SB), NOSPLIT, $0-80
	MOVQ out+0(FP), DI
	MOVQ wSX+72(FP), R8
	SHLQ $2, R8           // weight stride between taps, bytes
	MOVQ inSY+48(FP), R11
	SHLQ $2, R11
	MOVQ inSX+56(FP), R12
	SHLQ $2, R12
	MOVQ wSY+64(FP), R13
	SHLQ $2, R13
	XORQ AX, AX           // channel index
dwBlock16:
	LEAQ 16(AX), BX
	CMPQ BX, c+24(FP)
	JGT dwBlock4
	MOVUPS 0(DI)(AX*4), X0
	MOVUPS 16(DI)(AX*4), X1
	MOVUPS 32(DI)(AX*4), X2
	MOVUPS 48(DI)(AX*4), X3
	MOVQ in+8(FP), SI
	LEAQ (SI)(AX*4), SI
	MOVQ w+16(FP), DX
	LEAQ (DX)(AX*4), DX
	MOVQ nky+32(FP), R9
dw16Row:
	MOVQ SI, BX
	MOVQ DX, CX
	MOVQ nkx+40(FP), R10
dw16Tap:
	MOVUPS 0(BX), X4
	MOVUPS 0(CX), X8
	MULPS X8, X4
	ADDPS X4, X0
	MOVUPS 16(BX), X5
	MOVUPS 16(CX), X9
	MULPS X9, X5
	ADDPS X5, X1
	MOVUPS 32(BX), X6
	MOVUPS 32(CX), X10
	MULPS X10, X6
	ADDPS X6, X2
	MOVUPS 48(BX), X7
	MOVUPS 48(CX), X11
	MULPS X11, X7
	ADDPS X7, X3
	ADDQ R12, BX
	ADDQ R8, CX
	DECQ R10
	JNZ dw16Tap
	ADDQ R11, SI
	ADDQ R13, DX
	DECQ R9
	JNZ dw16Row
	MOVUPS X0, 0(DI)(AX*4)
	MOVUPS X1, 16(DI)(AX*4)
	MOVUPS X2, 32(DI)(AX*4)
	MOVUPS X3, 48(DI)(AX*4)
	ADDQ $16, AX
	JMP dwBlock16
dwBlock4:
	CMPQ AX, c+24(FP)
	JGE dwDone
	MOVUPS (DI)(AX*4), X0
	MOVQ in+8(FP), SI
	LEAQ (SI)(AX*4), SI
	MOVQ w+16(FP), DX
	LEAQ (DX)(AX*4), DX
	MOVQ nky+32(FP), R9
dw4Row:
	MOVQ SI, BX
	MOVQ DX, CX
	MOVQ nkx+40(FP), R10
dw4Tap:
	MOVUPS (BX), X2
	MOVUPS (CX), X3
	MULPS X3, X2
	ADDPS X2, X0
	ADDQ R12, BX
	ADDQ R8, CX
	DECQ R10
	JNZ dw4Tap
	ADDQ R11, SI
	ADDQ R13, DX
	DECQ R9
	JNZ dw4Row
	MOVUPS X0, (DI)(AX*4)
	ADDQ $4, AX
	JMP dwBlock4
dwDone:
	RET
