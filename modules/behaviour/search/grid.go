// Package search is the ball search of the thesis: the 2016 baseline (eight
// hard-coded points, table 2.1) and the 2017 component (chapter 4): a grid
// of field segments sized from the ball detector's reliable distance, a
// positional distribution of the ball over it estimated by a
// CompositeDistributionGenerator (ball seen, entropy, mislocalisation
// reset, robot position, penalised), combined with the teammates' by a
// TeamDistributionGenerator, and a SimpleStrategy that picks the segment
// with the highest utility (the Sarmiento heuristic P/time, divided by the
// number of teammates already visiting it: DistributedUtilityCalculator).
//
// Walking there, scanning and spinning is behaviour's (the FindBall skill);
// this package only estimates and chooses. Everything here works on fixed
// arrays and allocates nothing.
package search

import (
	"fmt"
	"math"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Grid is the field divided into Cols × Rows equal segments (the thesis
// §4.2.1): row-major, row 0 at -y, column 0 at -x.
type Grid struct {
	Cols, Rows   int
	CellX, CellY float64
	// Origin is the grid's -x,-y corner.
	Origin hal.Vec2
}

// NewGrid divides a field into the fewest segments whose centres are
// within reach of every point of their segment: the half diagonal of a
// segment is at most reach (the reliable detection distance less a margin
// for error in estimating it). Among equally many segments it takes the
// squarest. It fails when even MaxSegments segments are too large.
func NewGrid(d field.Dimensions, reach float64) (Grid, error) {
	l, w := float64(d.Length), float64(d.Width)
	if reach <= 0 || l <= 0 || w <= 0 {
		return Grid{}, fmt.Errorf("search: grid: reach %.2f m over a %.1f × %.1f m field", reach, l, w)
	}
	best, bestN, bestAspect := Grid{}, math.MaxInt, math.Inf(1)
	for c := 1; c <= msg.MaxSegments; c++ {
		for r := 1; c*r <= msg.MaxSegments; r++ {
			cx, cy := l/float64(c), w/float64(r)
			if math.Hypot(cx/2, cy/2) > reach+1e-9 {
				continue
			}
			aspect := math.Max(cx/cy, cy/cx)
			if n := c * r; n < bestN || n == bestN && aspect < bestAspect {
				best, bestN, bestAspect = Grid{Cols: c, Rows: r, CellX: cx, CellY: cy, Origin: hal.Vec2{X: -l / 2, Y: -w / 2}}, n, aspect
			}
		}
	}
	if bestN == math.MaxInt {
		return Grid{}, fmt.Errorf("search: grid: a reach of %.2f m needs more than %d segments on a %.1f × %.1f m field", reach, msg.MaxSegments, l, w)
	}
	return best, nil
}

// N returns the number of segments.
func (g *Grid) N() int { return g.Cols * g.Rows }

// Index returns the segment that contains p (points off the field count
// for the nearest segment).
func (g *Grid) Index(p hal.Vec2) int {
	c := int(math.Floor((p.X - g.Origin.X) / g.CellX))
	r := int(math.Floor((p.Y - g.Origin.Y) / g.CellY))
	c = min(max(c, 0), g.Cols-1)
	r = min(max(r, 0), g.Rows-1)
	return r*g.Cols + c
}

// Centre returns the centre of segment i.
func (g *Grid) Centre(i int) hal.Vec2 {
	c, r := i%g.Cols, i/g.Cols
	return hal.Vec2{X: g.Origin.X + (float64(c)+0.5)*g.CellX, Y: g.Origin.Y + (float64(r)+0.5)*g.CellY}
}

// Dist is a probability distribution over a grid's segments: P[:N].
type Dist struct {
	N int
	P [msg.MaxSegments]float64
}

// Uniform makes d uniform over n segments.
func (d *Dist) Uniform(n int) {
	d.N = n
	for i := range d.P {
		d.P[i] = 0
	}
	for i := range n {
		d.P[i] = 1 / float64(n)
	}
}

// Normalise scales d to sum to 1; a distribution without mass (or with a
// non-finite one) becomes uniform.
func (d *Dist) Normalise() {
	var s float64
	for i := range d.N {
		s += d.P[i]
	}
	if !(s > 0) || math.IsInf(s, 0) {
		d.Uniform(d.N)
		return
	}
	for i := range d.N {
		d.P[i] /= s
	}
}

// Max returns the largest probability.
func (d *Dist) Max() float64 {
	var m float64
	for i := range d.N {
		m = max(m, d.P[i])
	}
	return m
}
