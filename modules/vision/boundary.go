package vision

import (
	"math"
	"slices"
)

// fieldBoundary finds, per vertical scan line, the top of the field: the
// row above which field pixels stop outnumbering the rest (scanning from
// the bottom, field counts +1 per pixel, other −1, white enclosed by field
// 0, other white −1; the boundary is where that sum peaks). The columns'
// rows are median-filtered over five columns and the boundary is their
// upper envelope (a field seen from inside is a convex polygon, whose
// edges stay straight in the image; occlusions only lower single columns).
func (p *Pipeline) fieldBoundary() {
	n := len(p.cols)
	p.boundU = p.boundU[:n]
	p.boundV = p.boundV[:n]
	for ci := range n {
		p.boundU[ci] = float64(p.cols[ci])
		p.rawBoundary[ci] = math.NaN()
		rs := p.vruns[p.colStart[ci]:p.colEnd[ci]]
		score, best, fieldPx := 0, math.MinInt, 0
		for i, r := range rs {
			l := int(r.len())
			switch r.cls {
			case clsField:
				score += l
				fieldPx += l
			case clsWhite:
				enclosed := i > 0 && i+1 < len(rs) && rs[i-1].cls == clsField && rs[i+1].cls == clsField
				if !enclosed {
					score -= l
				}
			default:
				score -= l
			}
			if r.cls == clsField && score > best && l >= 2 {
				best = score
				p.rawBoundary[ci] = float64(r.a)
			}
		}
		// A column whose field pixels do not even make 4 px has no field.
		if fieldPx < 4 {
			p.rawBoundary[ci] = math.NaN()
		}
	}
	// Median of five, ignoring columns without field.
	for ci := range n {
		k := 0
		for j := ci - 2; j <= ci+2; j++ {
			if j >= 0 && j < n && !math.IsNaN(p.rawBoundary[j]) {
				p.medBuf[k] = p.rawBoundary[j]
				k++
			}
		}
		if k == 0 || math.IsNaN(p.rawBoundary[ci]) {
			p.boundV[ci] = math.NaN()
			continue
		}
		m := p.medBuf[:k]
		slices.Sort(m)
		p.boundV[ci] = m[k/2]
	}
	// Upper envelope (smallest rows) by the monotone chain.
	p.hullIdx = p.hullIdx[:0]
	for ci := range n {
		if math.IsNaN(p.boundV[ci]) {
			continue
		}
		for len(p.hullIdx) >= 2 {
			a, b := p.hullIdx[len(p.hullIdx)-2], p.hullIdx[len(p.hullIdx)-1]
			ax, ay := p.boundU[a], p.boundV[a]
			bx, by := p.boundU[b], p.boundV[b]
			cx, cy := p.boundU[ci], p.boundV[ci]
			// b lies on or below the chord a–c (larger row): drop it.
			cross := (bx-ax)*(cy-ay) - (by-ay)*(cx-ax)
			if cross <= 0 {
				p.hullIdx = p.hullIdx[:len(p.hullIdx)-1]
				continue
			}
			break
		}
		p.hullIdx = append(p.hullIdx, int32(ci))
	}
	// An end edge that few columns support (a dark image corner, a robot
	// at the image's edge) is replaced by the next edge's extension.
	if h := len(p.hullIdx); h >= 3 && !p.edgeSupported(p.hullIdx[0], p.hullIdx[1]) {
		p.hullIdx = p.hullIdx[1:]
	}
	if h := len(p.hullIdx); h >= 3 && !p.edgeSupported(p.hullIdx[h-2], p.hullIdx[h-1]) {
		p.hullIdx = p.hullIdx[:h-1]
	}
	if len(p.hullIdx) >= 2 {
		n0, n1 := p.hullIdx[0], p.hullIdx[1]
		slope := (p.boundV[n1] - p.boundV[n0]) / (p.boundU[n1] - p.boundU[n0])
		for ci := range int(n0) {
			p.boundV[ci] = p.boundV[n0] + slope*(p.boundU[ci]-p.boundU[n0])
		}
		h := len(p.hullIdx)
		m0, m1 := p.hullIdx[h-2], p.hullIdx[h-1]
		slope = (p.boundV[m1] - p.boundV[m0]) / (p.boundU[m1] - p.boundU[m0])
		for ci := int(m1) + 1; ci < n; ci++ {
			p.boundV[ci] = p.boundV[m1] + slope*(p.boundU[ci]-p.boundU[m1])
		}
	}
	if len(p.hullIdx) == 0 {
		for ci := range n {
			p.boundV[ci] = float64(p.h)
		}
		p.res.BoundaryU, p.res.BoundaryV = p.boundU, p.boundV
		return
	}
	k := 0
	for ci := range n {
		for k+1 < len(p.hullIdx) && int(p.hullIdx[k+1]) <= ci {
			k++
		}
		a := p.hullIdx[k]
		switch {
		case ci <= int(p.hullIdx[0]) || k+1 >= len(p.hullIdx):
			// Extrapolated above, or a hull vertex.
		default:
			b := p.hullIdx[k+1]
			t := (p.boundU[ci] - p.boundU[a]) / (p.boundU[b] - p.boundU[a])
			p.boundV[ci] = p.boundV[a] + t*(p.boundV[b]-p.boundV[a])
		}
	}
	p.res.BoundaryU, p.res.BoundaryV = p.boundU, p.boundV
}

// edgeSupported reports whether at least half the columns from hull
// vertex a to b have their (median-filtered) boundary within 6 px of the
// edge.
func (p *Pipeline) edgeSupported(a, b int32) bool {
	n, k := 0, 0
	for ci := a; ci <= b; ci++ {
		v := p.boundV[ci]
		if math.IsNaN(v) {
			continue
		}
		t := (p.boundU[ci] - p.boundU[a]) / (p.boundU[b] - p.boundU[a])
		e := p.boundV[a] + t*(p.boundV[b]-p.boundV[a])
		n++
		if math.Abs(v-e) <= 6 {
			k++
		}
	}
	return 2*k >= n
}

// boundaryAt is the boundary row at column u (the scan lines are evenly
// spaced: no search).
func (p *Pipeline) boundaryAt(u float64) float64 {
	n := len(p.boundU)
	if n == 0 {
		return float64(p.h)
	}
	cs := float64(p.cfg.ColumnSpacing)
	f := (u - p.boundU[0]) / cs
	switch {
	case !(f > 0):
		return p.boundV[0]
	case f >= float64(n-1):
		return p.boundV[n-1]
	}
	i := int(f)
	t := f - float64(i)
	return p.boundV[i] + t*(p.boundV[i+1]-p.boundV[i])
}
