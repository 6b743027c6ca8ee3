package visiontest

import (
	"math"
	"math/rand/v2"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
)

// Scene is a synthetic SPL field for tests, in the field frame (origin at
// the centre spot, x towards the opponent goal).
type Scene struct {
	Field field.Dimensions
	// Robot is the observing robot's pose on the field.
	Robot hal.Pose2
	// Ball is the ball's position; BallVisible places it.
	Ball        hal.Vec2
	BallVisible bool
	// Obstacles are other robots, drawn as grey and white cylinders of
	// 0.12 m radius and 0.55 m height standing at these points.
	Obstacles []hal.Vec2
	// Light scales brightness (1 is nominal); Noise is the luma noise's
	// standard deviation; Seed seeds it.
	Light, Noise float64
	Seed         uint64
}

// YUV colours of the scene (full-range BT.601 of sRGB: carpet (40, 130,
// 50), white lines, black ball patches, a dark hall).
var (
	carpet = [3]float64{94, 103, 90}
	white  = [3]float64{215, 128, 128}
	black  = [3]float64{35, 128, 128}
	hall   = [3]float64{70, 126, 136}
	grey   = [3]float64{110, 128, 128}
)

// icosa are the directions of a soccer ball's twelve black pentagons.
var icosa = func() (v [12][3]float64) {
	p := (1 + math.Sqrt(5)) / 2
	i := 0
	for _, s1 := range []float64{-1, 1} {
		for _, s2 := range []float64{-p, p} {
			for k, q := range [3][3]float64{{0, s1, s2}, {s1, s2, 0}, {s2, 0, s1}} {
				_ = k
				n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2])
				v[i] = [3]float64{q[0] / n, q[1] / n, q[2] / n}
				i++
			}
		}
	}
	return v
}()

// Render draws the scene as the camera c of the robot at s.Robot sees it,
// into dst (YUYV, c.Width×c.Height×2 bytes).
func (s *Scene) Render(c *Pinhole, dst []byte) {
	light := s.Light
	if light == 0 {
		light = 1
	}
	rng := rand.New(rand.NewPCG(s.Seed, 7))
	sh, ch := math.Sincos(float64(s.Robot.Heading))
	w := c.Width
	for v := range c.Height {
		for u := 0; u < w; u += 2 {
			var yy [2]float64
			var cu, cv float64
			for k := range 2 {
				dx, dy, dz := c.Ray(float64(u+k), float64(v))
				// Robot frame to field frame.
				fdx, fdy := ch*dx-sh*dy, sh*dx+ch*dy
				ox := float64(s.Robot.X) + ch*c.Pos[0] - sh*c.Pos[1]
				oy := float64(s.Robot.Y) + sh*c.Pos[0] + ch*c.Pos[1]
				col := s.shade(ox, oy, c.Pos[2], fdx, fdy, dz)
				yy[k] = col[0] * light
				cu += col[1] / 2
				cv += col[2] / 2
			}
			i := (v*w + u) * 2
			for k := range 2 {
				y := yy[k]
				if s.Noise > 0 {
					y += rng.NormFloat64() * s.Noise
				}
				dst[i+2*k] = clamp8(y)
			}
			dst[i+1], dst[i+3] = clamp8(cu), clamp8(cv)
		}
	}
}

func clamp8(f float64) byte {
	switch {
	case f < 0:
		return 0
	case f > 255:
		return 255
	}
	return byte(f + 0.5)
}

// shade is the colour the ray from (ox, oy, oz) along (dx, dy, dz) sees.
func (s *Scene) shade(ox, oy, oz, dx, dy, dz float64) [3]float64 {
	best := math.Inf(1)
	col := hall
	R := float64(s.Field.BallRadius)
	if s.BallVisible {
		// Ray–sphere.
		px, py, pz := ox-s.Ball.X, oy-s.Ball.Y, oz-R
		b := px*dx + py*dy + pz*dz
		n2 := dx*dx + dy*dy + dz*dz
		cc := px*px + py*py + pz*pz - R*R
		disc := b*b - n2*cc
		if disc >= 0 {
			t := (-b - math.Sqrt(disc)) / n2
			if t > 0 && t < best {
				best = t
				nx, ny, nz := (px+t*dx)/R, (py+t*dy)/R, (pz+t*dz)/R
				col = white
				for _, q := range icosa {
					if nx*q[0]+ny*q[1]+nz*q[2] > math.Cos(0.36) {
						col = black
						break
					}
				}
				sh := 0.75 + 0.25*nz
				col = [3]float64{col[0] * sh, col[1], col[2]}
			}
		}
	}
	for _, o := range s.Obstacles {
		// Ray–vertical cylinder of radius 0.12, height 0.55.
		const rc, hc = 0.12, 0.55
		px, py := ox-o.X, oy-o.Y
		a := dx*dx + dy*dy
		b := px*dx + py*dy
		cc := px*px + py*py - rc*rc
		disc := b*b - a*cc
		if a < 1e-12 || disc < 0 {
			continue
		}
		t := (-b - math.Sqrt(disc)) / a
		z := oz + t*dz
		if t > 0 && t < best && z >= 0 && z <= hc {
			best = t
			switch {
			case z < 0.1 || (z > 0.3 && z < 0.4):
				col = grey
			default:
				col = [3]float64{170, 128, 128}
			}
		}
	}
	if dz < 0 {
		t := -oz / dz
		if t < best {
			x, y := ox+t*dx, oy+t*dy
			col = s.ground(x, y)
		}
	}
	return col
}

// ground is the colour of the field at (x, y).
func (s *Scene) ground(x, y float64) [3]float64 {
	f := s.Field
	L, W := float64(f.Length)/2, float64(f.Width)/2
	b := float64(f.Border)
	if math.Abs(x) > L+b || math.Abs(y) > W+b {
		return hall
	}
	const hw = 0.025
	ax, ay := math.Abs(x), math.Abs(y)
	onSeg := func(x0, y0, x1, y1 float64) bool {
		return ax >= math.Min(x0, x1)-hw && ax <= math.Max(x0, x1)+hw && ay >= math.Min(y0, y1)-hw && ay <= math.Max(y0, y1)+hw
	}
	pl, pw := L-float64(f.PenaltyAreaLength), float64(f.PenaltyAreaWidth)/2
	pm := L - float64(f.PenaltyMarkDistance)
	line := onSeg(L, 0, L, W) || onSeg(0, W, L, W) || // goal and side lines
		math.Abs(x) <= hw && ay <= W+hw || // halfway line
		onSeg(pl, 0, pl, pw) || onSeg(pl, pw, L, pw) || // penalty area
		math.Abs(math.Hypot(x, y)-float64(f.CentreCircleRadius)) <= hw ||
		(math.Abs(ax-pm) <= 0.05 && ay <= hw) || (math.Abs(ax-pm) <= hw && ay <= 0.05) // penalty marks
	if line {
		return white
	}
	return carpet
}
