package vision

import (
	"fmt"

	"github.com/robotd/robotd/modules/vision/nets"
	"github.com/robotd/robotd/nn"
)

func init() { newBallNet = loadBallNet }

// loadBallNet loads the ball model (nil: the embedded one, B-Human's
// multihead) and opens its session, checking its input and output shapes.
func loadBallNet(model []byte) (patchNet, error) {
	if model == nil {
		model = nets.BallAndPenaltyMark()
	}
	m, err := nn.LoadONNX(model)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBallModel, err)
	}
	ins, outs := m.Inputs(), m.Outputs()
	if len(ins) != 1 || len(outs) != 1 {
		return nil, fmt.Errorf("%w: %d inputs and %d outputs, want 1 and 1", ErrBallModel, len(ins), len(outs))
	}
	if err := checkNetShapes(ins[0].Shape, outs[0].Shape); err != nil {
		return nil, err
	}
	s, err := m.NewSession()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBallModel, err)
	}
	if len(s.Input(0)) != patchSize*patchSize || len(s.Output(0)) != netOutputs {
		return nil, fmt.Errorf("%w: session buffers %d and %d, want %d and %d", ErrBallModel, len(s.Input(0)), len(s.Output(0)), patchSize*patchSize, netOutputs)
	}
	return s, nil
}
