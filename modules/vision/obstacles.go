package vision

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// findObstacles looks, per vertical scan line, for the lowest stretch of
// non-field runs below the field boundary that is taller than five ball
// radii and not mostly white (a line seen along its length is white);
// neighbouring such columns with feet at similar rows form an obstacle,
// placed at its foot point.
func (p *Pipeline) findObstacles() {
	foot := p.rawBoundary // reused: the raw boundary is not needed any more
	for ci := range p.cols {
		foot[ci] = -1
		p.obstacleCols[ci] = false
		rs := p.vruns[p.colStart[ci]:p.colEnd[ci]]
		u := float64(p.cols[ci])
		bnd := p.boundaryAt(u)
		for i := 0; i < len(rs); {
			if rs[i].cls == clsField {
				i++
				continue
			}
			j := i
			var other, total int32
			for j < len(rs) && (rs[j].cls != clsField || (rs[j].len() <= 2 && j+1 < len(rs))) {
				if rs[j].cls == clsOther {
					other += rs[j].len()
				}
				total += rs[j].len()
				j++
			}
			bot, top := rs[i].b, rs[j-1].a
			if i == 0 && bot < int32(p.h-1) {
				// The stretch begins where this column's scan does: its
				// foot is below, unknown.
				foot[ci] = -2
				break
			}
			i = j
			br := float64(p.ballR[bot])
			if br == 0 || float64(bot) < bnd+2*br {
				break
			}
			if float64(bot-top+1) >= 5*br && other*10 >= total*3 {
				foot[ci] = float64(bot)
				p.obstacleCols[ci] = true
				break
			}
		}
	}
	// Clusters: flagged columns with similar feet, stepping over columns
	// whose foot is unknown.
	for ci := 0; ci < len(p.cols); {
		if !p.obstacleCols[ci] {
			ci++
			continue
		}
		last, k := ci, ci+1
		for ; k < len(p.cols) && (p.obstacleCols[k] || foot[k] == -2); k++ {
			if !p.obstacleCols[k] {
				continue
			}
			if math.Abs(foot[k]-foot[last]) > math.Max(8, 2*float64(p.ballR[int(foot[last])])) {
				break
			}
			last = k
		}
		p.addObstacle(ci, last+1, foot)
		ci = last + 1
	}
}

func (p *Pipeline) addObstacle(ci, cj int, foot []float64) {
	if len(p.res.Obstacles) >= maxObstacles {
		return
	}
	fv := 0.0
	for k := ci; k < cj; k++ {
		fv = math.Max(fv, foot[k])
	}
	// Widen by half the gap to the next scanned columns either side.
	for ci > 0 && foot[ci-1] == -2 {
		ci--
	}
	for cj < len(p.cols) && foot[cj] == -2 {
		cj++
	}
	u0, u1 := float64(p.cols[ci]), float64(p.cols[cj-1])
	xa, ya, oka := p.proj.ImageToGround(u0, fv)
	xb, yb, okb := p.proj.ImageToGround(u1, fv)
	xc, yc, okc := p.proj.ImageToGround((u0+u1)/2, fv)
	if !oka || !okb || !okc || !finite(xa, ya, xb, yb, xc, yc) {
		return
	}
	w := math.Hypot(xb-xa, yb-ya)
	if w < 0.05 || math.Hypot(xc, yc) > float64(p.cfg.MaxDistance) {
		return
	}
	cs := float64(p.cfg.ColumnSpacing)
	p.res.Obstacles = append(p.res.Obstacles, Obstacle{Pos: hal.Vec2{X: xc, Y: yc}, Width: w,
		U0: int(u0 - cs/2), U1: int(u1 + cs/2), V: int(fv)})
}

// inObstacle reports whether pixel (u, v) lies on an obstacle: within its
// columns and above its foot.
func (p *Pipeline) inObstacle(u, v float64) bool {
	for _, o := range p.res.Obstacles {
		if u >= float64(o.U0) && u <= float64(o.U1) && v <= float64(o.V)+2 {
			return true
		}
	}
	return false
}
