// Package simspark is the wire codec of SimSpark / rcssserver3d
// (protocols.md §3, internal/traces/testdata), shared by robotd's SimSpark
// client backend and its embedded SimSpark-compatible simulator:
//
//   - framing: a 4-byte big-endian length, then the payload (FrameReader,
//     AppendFrame, BeginFrame/EndFrame);
//   - a streaming, byte-level S-expression Scanner with a nesting limit;
//   - perceptor messages (server → agent) parsed into a reusable
//     Perception, effector messages (agent → server) into Effectors, and
//     trainer commands (monitor port) into a TrainerMessage;
//   - encoders for all three that append to a caller's buffer.
//
// Values stay in the server's units and frames: degrees (HJ, vision
// angles, myorien), deg/s (GYR), m/s² (ACC), metres, seconds, and rad/s
// for joint effectors. Converting to the NAO frame is the backend's job.
//
// Parsing into a reused struct allocates nothing in steady state: strings
// are copied into the struct's arena and referred to by Span. Malformed
// input gives a *SyntaxError naming the problem and its byte offset; no
// input makes a parser panic. Unknown perceptors, See items, effectors and
// trainer commands are kept verbatim so that they survive a round trip,
// and each struct records the order of its items, so parse → encode →
// parse gives back an identical struct (with Format{ExactDecimals}), and
// Format{ServerDecimals} reproduces the server's own bytes.
//
// The package has no global mutable state; a struct may not be used by
// two goroutines at once.
package simspark
