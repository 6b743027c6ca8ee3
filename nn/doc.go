// Package nn is a small pure-Go inference engine for the convolutional
// networks robotd runs on the NAO: it loads ONNX models, plans their
// execution once, and runs them on float32 data without allocating.
//
// It is written in Go only (no cgo), so the static, cgo-free robot build
// can use it. On amd64 the innermost loops (convolution tiles, depthwise
// taps, ReLU, max) are SSE assembly using only the amd64 baseline
// instruction set, which the NAO v6's Atom E3845 has; the build tag
// "purego" or any other architecture selects portable Go loops with the
// same results up to float rounding.
//
// # Use
//
//	m, err := nn.LoadONNX(data)  // parse, check, fold, plan; immutable
//	s, err := m.NewSession()     // all buffers for one inference
//	copy(s.Input(0), patch)      // or s.SetInput(0, patch)
//	err = s.Run()                // no allocation
//	out := s.Output(0)
//
// A Model is safe for concurrent use; a Session is not: use one Session per
// goroutine. A symbolic (dynamic) batch dimension of a graph input is set to
// 1, or to n with LoadONNXBatch(data, n).
//
// # Layout conventions
//
// Inputs and outputs are dense row-major arrays over the shapes the graph
// declares (Model.Inputs, Model.Outputs): the B-Human nets take NHWC images,
// for example [1,32,32,1] for a grey 32x32 patch, and tf2onnx inserts the
// Transpose to ONNX's NCHW itself. Internally every 4-D tensor that Conv,
// pooling or BatchNormalization touches is stored NHWC (channels innermost),
// so a Transpose node costs nothing: it only relabels the layout of its
// output. Data is moved only where an op needs a different layout than the
// one its input has (Reshape, MatMul and graph outputs need plain row-major
// data), and not at all when the reordering only moves axes of size 1.
//
// # Supported operators
//
// Following the ONNX operator specification
// (https://github.com/onnx/onnx/blob/main/docs/Operators.md), float32 only:
//
//   - Conv (2-D; groups including depthwise with a channel multiplier,
//     strides, pads, dilations, auto_pad), with a following
//     BatchNormalization folded into its weights and a following activation
//     fused into it
//   - BatchNormalization (inference form), MaxPool, AveragePool (2-D;
//     pads, strides, dilations, ceil_mode, count_include_pad),
//     GlobalAveragePool, GlobalMaxPool
//   - Relu, LeakyRelu, Sigmoid, Tanh, Clip (attribute and input forms)
//   - Add, Sub, Mul, Div, Max, Min, Sum with numpy-style broadcasting
//   - MatMul (constant or runtime 2-D B), Gemm (alpha, beta, transA,
//     transB, broadcast C), Softmax (opset < 13 and >= 13 semantics)
//   - Concat, Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Identity,
//     Dropout (inference: identity), Pad (constant mode), Slice
//   - Constant, Shape, Gather, Cast and integer Add/Sub/Mul/Div/Concat/
//     Slice, evaluated at load time, so that shape computations such as
//     Shape→Gather→Cast→Slice→Concat→Reshape fold into a constant.
//
// All shapes are static after loading; tensor shapes are inferred and
// checked at load time, weights are packed for the kernels, and
// intermediate buffers whose lifetimes do not overlap share memory.
//
// Models from other opsets or with other operators load with an error that
// names the node and the operator. A corrupted or truncated file, a tensor
// whose data does not match its shape, or a graph whose shapes do not fit
// gives an error, never a panic (FuzzLoadONNX). ReLU and max on amd64 do not
// propagate NaN inputs the way ONNX specifies (MAXPS semantics); valid image
// input never contains NaN.
//
// The networks under testdata are B-Human's (see
// testdata/bhuman-nets-2025/SOURCE.txt): "This product includes software
// developed by B-Human (http://www.b-human.de)". The test images are cut
// from Nao-Team HTWK frames (testdata/inputs/SOURCE.txt): "This product
// includes software developed by Nao-Team HTWK (www.htwk-robots.de)".
package nn
