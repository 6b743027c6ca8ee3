package vision

// The ball and penalty mark check: B-Human's BallAndPenaltyMarkPerceptor
// (Code Release 2025, Src/Modules/Perception/MultiPerceptors/
// BallAndPenaltyMarkPerceptor.cpp, Src/Libs/ImageProcessing/
// PatchUtilities.cpp, Config/Scenarios/Default/
// ballAndPenaltyMarkPerceptor.cfg), with its network
// (modules/vision/nets). This product includes software developed by
// B-Human (http://www.b-human.de).
//
// Around each candidate spot a square of 3.5 projected ball radii (rounded
// up to the next multiple of 4 above) is sampled, nearest neighbour, into
// a 32×32 grey patch (the Y channel; 128 outside the image); its
// brightness is normalised so that the 21st brightest pixel (2 % of 1024)
// becomes 255, as uint8; the network takes those values, 0–255, as
// float32 and returns softmax probabilities of none, penalty mark and
// ball, then the ball's centre x, y and radius in patch pixels.

import (
	"errors"
	"fmt"
)

// patchNet is a network session: *nn.Session.
type patchNet interface {
	Input(i int) []float32
	Run() error
	Output(i int) []float32
}

// The network's patch.
const (
	patchSize = 32
	// ballAreaFactor is the patch's side in projected ball radii.
	ballAreaFactor = 3.5
	// normalizationOutlierRatio is the share of the brightest pixels
	// clipped by the brightness normalisation.
	normalizationOutlierRatio = 0.02
	// netOutputs are none, penalty mark, ball, x, y, radius.
	netOutputs = 6
)

// ErrBallModel is returned by New for a ball model it cannot use.
var ErrBallModel = errors.New("vision: ball model")

// newBallNet loads the ball model (nil: the embedded one) and opens a
// session; it is set by the file that links the inference engine.
var newBallNet func(model []byte) (patchNet, error)

// patchArea is B-Human's square side, px, for a projected radius r.
func patchArea(r float64) int {
	a := int(r * ballAreaFactor)
	return a + 4 - a%4
}

// extractPatch samples the grey patch around spot (su, sv) for a ball of
// projected radius r into p.patch (uint8) and returns the steps, image
// pixels per patch pixel across and down. sx > 1 widens the square
// sideways by that factor (a smeared ball); 1 is B-Human's patch.
func (p *Pipeline) extractPatch(su, sv int, r, sx float64) (float64, float64) {
	area := patchArea(r)
	areaX := area
	if sx > 1 {
		areaX = patchArea(r * sx)
	}
	ul, vt := su-areaX/2, sv-area/2
	step := float32(area) / patchSize
	stepX := float32(areaX) / patchSize
	// B-Human accumulates the position in float32.
	y := float32(vt)
	for j := range patchSize {
		yi := int(y)
		if y < 0 {
			yi = -1
		}
		x := float32(ul)
		row := p.patch[j*patchSize : (j+1)*patchSize]
		if yi < 0 || yi >= p.h {
			for i := range row {
				row[i] = 128
			}
		} else {
			base := yi * p.w * 2
			for i := range row {
				xi := int(x)
				if x < 0 || xi >= p.w {
					row[i] = 128
				} else {
					row[i] = p.img[base+xi*2]
				}
				x += stepX
			}
		}
		y += step
	}
	return float64(stepX), float64(step)
}

// normalizeBrightness scales the patch so that its brightest pixels (all
// but normalizationOutlierRatio of them) reach 255: B-Human's
// PatchUtilities::normalizeBrightness on uint8.
func normalizeBrightness(patch *[patchSize * patchSize]uint8) {
	var hist [256]int
	for _, v := range patch {
		hist[v]++
	}
	// The value at index k of the patch sorted in descending order.
	ratio := float32(normalizationOutlierRatio)
	k := int(float32(len(patch)-1) * ratio)
	mx, seen := 0, 0
	for v := 255; v >= 0; v-- {
		seen += hist[v]
		if seen > k {
			mx = v
			break
		}
	}
	if mx == 0 {
		clear(patch[:])
		return
	}
	for i, v := range patch {
		patch[i] = uint8(float32(min(int(v), mx)) * 255 / float32(mx))
	}
}

// netResult is one evaluation: the class probabilities and the ball's
// circle in the image.
type netResult struct {
	none, mark, ball float64
	u, v, r          float64
}

// runNet checks the spot (su, sv) with expected radius r, the patch
// widened by sx (1: B-Human's).
func (p *Pipeline) runNet(su, sv int, r, sx float64) (netResult, error) {
	stepX, step := p.extractPatch(su, sv, r, sx)
	normalizeBrightness(&p.patch)
	in := p.net.Input(0)
	for i, v := range p.patch {
		in[i] = float32(v)
	}
	p.res.Work.NetRuns++
	if err := p.net.Run(); err != nil {
		return netResult{}, err
	}
	o := p.net.Output(0)
	return netResult{
		none: float64(o[0]), mark: float64(o[1]), ball: float64(o[2]),
		u: (float64(o[3])-patchSize/2)*stepX + float64(su),
		v: (float64(o[4])-patchSize/2)*step + float64(sv),
		r: float64(o[5]) * step,
	}, nil
}

// checkNetShapes reports whether a model's input and output sizes are the
// ball net's.
func checkNetShapes(in, out []int) error {
	prod := func(s []int) int {
		n := 1
		for _, d := range s {
			n *= max(d, 1) // a free batch dimension is 1
		}
		return n
	}
	if prod(in) != patchSize*patchSize || (len(in) > 0 && in[len(in)-1] != 1) {
		return fmt.Errorf("%w: input shape %v, want [1 %d %d 1]", ErrBallModel, in, patchSize, patchSize)
	}
	if prod(out) != netOutputs {
		return fmt.Errorf("%w: output shape %v, want [1 %d]", ErrBallModel, out, netOutputs)
	}
	return nil
}
