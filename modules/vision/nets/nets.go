// Package nets embeds the neural networks the vision pipeline runs on the
// robot, as ONNX files: B-Human's ball and penalty mark classifier
// (BallAndPenaltyMarkPerceptor/multihead.onnx: a [1,32,32,1] grey patch →
// [1,6], softmax over none/penalty mark/ball, then the ball's centre x, y
// and radius in patch pixels) and its robot detector. Origin: SOURCE.txt;
// licence: License-BHuman.md.
//
// This product includes software developed by B-Human
// (http://www.b-human.de).
//
// B-Human's licence asks teams that use its code at a RoboCup competition
// to announce that on the SPL mailing list one month before the
// competition.
package nets

import _ "embed"

//go:embed BallAndPenaltyMarkPerceptor__multihead.onnx
var ballAndPenaltyMark []byte

//go:embed RobotDetector__4_anchor_boxes_model_no_activation_20230629-220730.onnx
var robotDetector []byte

// BallAndPenaltyMark is B-Human's multihead ball and penalty mark
// classifier (Code Release 2025). The slice is shared: do not modify it.
func BallAndPenaltyMark() []byte { return ballAndPenaltyMark }

// RobotDetector is B-Human's robot detector (Code Release 2025,
// 4 anchor boxes, [1,60,80,3] → [1,8,10,4,5]). The slice is shared: do
// not modify it.
func RobotDetector() []byte { return robotDetector }
