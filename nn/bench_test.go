package nn

import (
	"testing"
)

func benchNet(b *testing.B, name string, input string) {
	m := loadModel(b, name, 1)
	s, err := m.NewSession()
	if err != nil {
		b.Fatal(err)
	}
	in := refInput{Name: m.Inputs()[0].Name, Files: []string{input}}
	in.fill(b, s.Input(0))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBallPatch: one 32x32 grey patch through the B-Human multihead
// ball/penalty-mark net.
func BenchmarkBallPatch(b *testing.B) {
	benchNet(b, "BallAndPenaltyMarkPerceptor__multihead.onnx", "patch32_f1_ball.u8")
}

// BenchmarkRobotDetector: one 80x60 RGB image.
func BenchmarkRobotDetector(b *testing.B) {
	benchNet(b, "RobotDetector__4_anchor_boxes_model_no_activation_20230629-220730.onnx", "rgb80x60_f1.u8")
}

// BenchmarkBOP: one 320x240 YUYV-pair image.
func BenchmarkBOP(b *testing.B) {
	benchNet(b, "BOP__net.onnx", "yuyv320x240_f1.u8")
}

// BenchmarkFieldBoundary: one 40x30 RGB image.
func BenchmarkFieldBoundary(b *testing.B) {
	benchNet(b, "FieldBoundary__net.onnx", "rgb40x30_f1.u8")
}
