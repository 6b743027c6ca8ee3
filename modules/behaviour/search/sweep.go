package search

import (
	"fmt"
	"math"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Sweep is robotd's own ball search, "team sweep": a belief of where the
// ball may still be, on a fine grid over the whole field up to its lines,
// that the whole team feeds. Each cell holds the mass of the ball being
// there and not yet seen. Looking at a cell takes its mass away: the
// robot's own view every tick (a cone around its heading as wide as the
// head scan and the camera's field of view, as far as the ball is seen
// reliably), and every teammate's view from the poses in its team
// messages (along its path since its previous message). Unseen cells grow
// back towards the prior with a time constant (the ball may have been
// moved), and a ball seen by anyone puts mass where it was, so a lost ball
// is looked for there first. A robot goes to the viewpoint with the most
// unseen mass within reach per second of walking there and looking
// (Sarmiento et al.'s benefit-cost ratio over a fine belief instead of
// nine segments), leaving out what a teammate's target already covers;
// the viewpoints reach into the corners and along the lines, which the
// 2016 points never reach and the 2017 segment centres only from afar.
// There it turns towards the mass left in reach until little is left, and
// chooses again; while walking it chooses again every replan period, so
// what teammates report changes its course. It allocates nothing.
type Sweep struct {
	cfg  SweepConfig
	cols int
	rows int
	org  hal.Vec2 // the grid's -x,-y corner
	mass [sweepMaxCells]float64
	// viewpoints
	vps  [sweepMaxViews]hal.Vec2
	nvps int
}

const (
	sweepMaxCells = 32 * 24
	sweepMaxViews = 16 * 12
)

// SweepConfig configures the team sweep.
type SweepConfig struct {
	// Cell is the belief grid's cell size (m).
	Cell float64 `json:"cell"`
	// SeeDistance and SeeAngle bound what a robot is taken to have looked
	// at: cells within SeeDistance (m) and within SeeAngle (rad) of its
	// heading (the head scan's amplitude plus half the camera's field of
	// view, a little less for safety); SeeTime is the time constant with
	// which looking at a cell takes its mass.
	SeeDistance float64         `json:"see_distance"`
	SeeAngle    float64         `json:"see_angle"`
	SeeTime     config.Duration `json:"see_time"`
	// MateShare is the share of a teammate's reported view that counts
	// (its view between messages is interpolated, so less certain).
	MateShare float64 `json:"mate_share"`
	// Regrow is the time constant with which seen cells grow back to the
	// prior.
	Regrow config.Duration `json:"regrow"`
	// BallMass is the mass put into the cell where the ball was seen (the
	// prior of a cell is 1).
	BallMass float64 `json:"ball_mass"`
	// Inset is how far inside the lines the outermost viewpoints are, and
	// Spacing the spacing of the viewpoint lattice (m).
	Inset   float64 `json:"inset"`
	Spacing float64 `json:"spacing"`
	// Look is the time charged for looking at a viewpoint, added to the
	// walk there; MaxLook bounds the look; Done ends it when the mass left
	// in reach is below this share of what was there on arrival.
	Look    config.Duration `json:"look"`
	MaxLook config.Duration `json:"max_look"`
	Done    float64         `json:"done"`
	// Claim discounts cells within SeeDistance of a teammate's search
	// target by this share.
	Claim float64 `json:"claim"`
	// Keep: a new viewpoint must beat the current one's utility by this
	// factor to replace it while walking.
	Keep float64 `json:"keep"`
	// Replan is how often a robot walking to a viewpoint chooses again.
	Replan config.Duration `json:"replan"`
}

// DefaultSweepConfig returns the defaults: 0.5 m cells, a view 1.8 m deep
// (the simulated detector's reliable 2.5 m less a margin) and ±100° wide
// (a ±90° head scan with a 61° camera, less margin), taken with a 1.5 s
// time constant; a 45 s regrowth; viewpoints every metre, 0.5 m inside
// the lines.
func DefaultSweepConfig() SweepConfig {
	return SweepConfig{
		Cell: 0.5, SeeDistance: 1.8, SeeAngle: 100 * math.Pi / 180, SeeTime: config.Duration(1500 * time.Millisecond),
		MateShare: 0.7, Regrow: config.Duration(45 * time.Second), BallMass: 20,
		Inset: 0.5, Spacing: 1.0,
		Look: config.Duration(3 * time.Second), MaxLook: config.Duration(8 * time.Second), Done: 0.15,
		Claim: 0.8, Keep: 1.25, Replan: config.Duration(time.Second),
	}
}

// Validate checks the configuration against the field.
func (c *SweepConfig) Validate(d field.Dimensions) error {
	switch {
	case !(c.Cell >= 0.2 && c.Cell <= 2):
		return fmt.Errorf("search: sweep cell %v outside 0.2..2 m", c.Cell)
	case int(math.Ceil(float64(d.Length)/c.Cell))*int(math.Ceil(float64(d.Width)/c.Cell)) > sweepMaxCells:
		return fmt.Errorf("search: sweep cell %v m makes more than %d cells", c.Cell, sweepMaxCells)
	case !(c.SeeDistance > 0 && c.SeeDistance <= 6) || !(c.SeeAngle > 0 && c.SeeAngle <= math.Pi):
		return fmt.Errorf("search: sweep see_distance %v or see_angle %v out of range", c.SeeDistance, c.SeeAngle)
	case c.SeeTime <= 0 || c.Regrow <= 0 || c.Replan <= 0 || c.MaxLook <= 0 || c.Look < 0:
		return fmt.Errorf("search: sweep see_time, regrow, replan, max_look must be positive")
	case !(c.MateShare >= 0 && c.MateShare <= 1) || !(c.Claim >= 0 && c.Claim <= 1) || !(c.Done >= 0 && c.Done < 1):
		return fmt.Errorf("search: sweep mate_share, claim, done outside 0..1")
	case !(c.Keep >= 1) || !(c.BallMass >= 0):
		return fmt.Errorf("search: sweep keep below 1 or ball_mass negative")
	case !(c.Spacing >= 0.25) || !(c.Inset >= 0) || 2*c.Inset >= float64(d.Width):
		return fmt.Errorf("search: sweep spacing %v or inset %v out of range", c.Spacing, c.Inset)
	}
	nx := int(math.Floor((float64(d.Length)-2*c.Inset)/c.Spacing+1e-9)) + 1
	ny := int(math.Floor((float64(d.Width)-2*c.Inset)/c.Spacing+1e-9)) + 1
	if nx*ny > sweepMaxViews {
		return fmt.Errorf("search: sweep spacing %v m makes more than %d viewpoints", c.Spacing, sweepMaxViews)
	}
	return nil
}

// NewSweep returns a sweep over the field with the prior everywhere; cfg
// must be valid.
func NewSweep(cfg SweepConfig, d field.Dimensions) *Sweep {
	l, w := float64(d.Length), float64(d.Width)
	s := &Sweep{cfg: cfg, cols: int(math.Ceil(l/cfg.Cell - 1e-9)), rows: int(math.Ceil(w/cfg.Cell - 1e-9)),
		org: hal.Vec2{X: -l / 2, Y: -w / 2}}
	// The viewpoints: a lattice from inset to inset, centred.
	nx := int(math.Floor((l-2*cfg.Inset)/cfg.Spacing+1e-9)) + 1
	ny := int(math.Floor((w-2*cfg.Inset)/cfg.Spacing+1e-9)) + 1
	x0 := -float64(nx-1) * cfg.Spacing / 2
	y0 := -float64(ny-1) * cfg.Spacing / 2
	for j := range ny {
		for i := range nx {
			s.vps[s.nvps] = hal.Vec2{X: x0 + float64(i)*cfg.Spacing, Y: y0 + float64(j)*cfg.Spacing}
			s.nvps++
		}
	}
	s.Reset()
	return s
}

// Reset puts the prior everywhere.
func (s *Sweep) Reset() {
	for i := range s.cols * s.rows {
		s.mass[i] = 1
	}
}

// N is the number of cells; Cols and Rows the grid.
func (s *Sweep) N() int    { return s.cols * s.rows }
func (s *Sweep) Cols() int { return s.cols }
func (s *Sweep) Rows() int { return s.rows }

// Mass returns cell i's mass.
func (s *Sweep) Mass(i int) float64 { return s.mass[i] }

// centre returns the centre of cell i.
func (s *Sweep) centre(i int) hal.Vec2 {
	c, r := i%s.cols, i/s.cols
	return hal.Vec2{X: s.org.X + (float64(c)+0.5)*s.cfg.Cell, Y: s.org.Y + (float64(r)+0.5)*s.cfg.Cell}
}

// Index returns the cell that holds p (points off the field count for the
// nearest cell).
func (s *Sweep) Index(p hal.Vec2) int {
	c := int(math.Floor((p.X - s.org.X) / s.cfg.Cell))
	r := int(math.Floor((p.Y - s.org.Y) / s.cfg.Cell))
	c = min(max(c, 0), s.cols-1)
	r = min(max(r, 0), s.rows-1)
	return r*s.cols + c
}

// Regrow lets every cell grow back towards the prior for dt.
func (s *Sweep) Regrow(dt time.Duration) {
	a := decay(dt, s.cfg.Regrow)
	if a <= 0 {
		return
	}
	for i := range s.cols * s.rows {
		if s.mass[i] < 1 {
			s.mass[i] += (1 - s.mass[i]) * a
		}
	}
}

// Look takes the mass a robot at pose sees in dt, times share (1 for the
// robot's own view).
func (s *Sweep) Look(pose hal.Pose2, dt time.Duration, share float64) {
	a := decay(dt, s.cfg.SeeTime) * share
	if a <= 0 {
		return
	}
	px, py, h := float64(pose.X), float64(pose.Y), float64(pose.Heading)
	r := s.cfg.SeeDistance
	c0 := max(int(math.Floor((px-r-s.org.X)/s.cfg.Cell)), 0)
	c1 := min(int(math.Floor((px+r-s.org.X)/s.cfg.Cell)), s.cols-1)
	r0 := max(int(math.Floor((py-r-s.org.Y)/s.cfg.Cell)), 0)
	r1 := min(int(math.Floor((py+r-s.org.Y)/s.cfg.Cell)), s.rows-1)
	for row := r0; row <= r1; row++ {
		for col := c0; col <= c1; col++ {
			i := row*s.cols + col
			q := s.centre(i)
			v := q.Sub(pose.Pos())
			d := v.Len()
			if d > r {
				continue
			}
			// The cell under the robot's feet is always in view of a
			// scanning head looking down as it walks past.
			if d > s.cfg.Cell && math.Abs(math.Remainder(v.Angle()-h, 2*math.Pi)) > s.cfg.SeeAngle {
				continue
			}
			s.mass[i] *= 1 - a
		}
	}
}

// LookAlong takes the mass a teammate saw walking from a to b over dt
// (its view interpolated in steps of at most one cell), times MateShare.
func (s *Sweep) LookAlong(a, b hal.Pose2, dt time.Duration) {
	d := b.Pos().Dist(a.Pos())
	n := max(1, min(int(math.Ceil(d/s.cfg.Cell)), 16))
	step := dt / time.Duration(n)
	for k := 1; k <= n; k++ {
		f := float64(k) / float64(n)
		p := hal.Pose2{X: a.X + hal.Metres(f*float64(b.X-a.X)), Y: a.Y + hal.Metres(f*float64(b.Y-a.Y)), Heading: b.Heading}
		s.Look(p, step, s.cfg.MateShare)
	}
}

// BallAt puts mass where the ball was seen: a ball lost is looked for
// there first.
func (s *Sweep) BallAt(p hal.Vec2) {
	i := s.Index(p)
	s.mass[i] = max(s.mass[i], s.cfg.BallMass)
}

// Claims are the teammates' search targets that the team sweep leaves to
// them.
type Claims struct {
	N       int
	Targets [msg.MaxTeammates]hal.Vec2
}

// value returns the unseen mass within reach of viewpoint v, less what
// the teammates' targets cover.
func (s *Sweep) value(v hal.Vec2, claims *Claims) float64 {
	r := s.cfg.SeeDistance
	c0 := max(int(math.Floor((v.X-r-s.org.X)/s.cfg.Cell)), 0)
	c1 := min(int(math.Floor((v.X+r-s.org.X)/s.cfg.Cell)), s.cols-1)
	r0 := max(int(math.Floor((v.Y-r-s.org.Y)/s.cfg.Cell)), 0)
	r1 := min(int(math.Floor((v.Y+r-s.org.Y)/s.cfg.Cell)), s.rows-1)
	var sum float64
	for row := r0; row <= r1; row++ {
		for col := c0; col <= c1; col++ {
			i := row*s.cols + col
			q := s.centre(i)
			if q.Dist(v) > r {
				continue
			}
			m := s.mass[i]
			for k := range claims.N {
				t := claims.Targets[k]
				if q.Dist(t) <= r {
					m *= 1 - s.cfg.Claim
					break
				}
			}
			sum += m
		}
	}
	return sum
}

// InReach returns the unseen mass within reach of p.
func (s *Sweep) InReach(p hal.Vec2) float64 { return s.value(p, &Claims{}) }

// Utility returns the utility of viewpoint v for a robot at pose: its
// unseen mass (less the teammates' claims) per second of walking there
// and looking.
func (s *Sweep) Utility(travel *TravelConfig, pose hal.Pose2, v hal.Vec2, claims *Claims) float64 {
	t := *travel
	t.Search = s.cfg.Look
	return s.value(v, claims) / max(t.Time(pose, v), 0.5)
}

// Choose returns the viewpoint with the highest utility for a robot at
// pose; cur (if valid) is kept unless another beats it by the Keep factor.
func (s *Sweep) Choose(travel *TravelConfig, pose hal.Pose2, claims *Claims, cur hal.Vec2, curValid bool) hal.Vec2 {
	best, bestU := hal.Vec2{}, math.Inf(-1)
	for k := range s.nvps {
		if u := s.Utility(travel, pose, s.vps[k], claims); u > bestU {
			best, bestU = s.vps[k], u
		}
	}
	if curValid && s.Utility(travel, pose, cur, claims)*s.cfg.Keep >= bestU {
		return cur
	}
	return best
}

// Heading returns the direction (field frame) from p towards the mass in
// reach, weighted by mass: where a robot at p should look.
func (s *Sweep) Heading(p hal.Vec2) float64 {
	r := s.cfg.SeeDistance
	var sx, sy float64
	for i := range s.cols * s.rows {
		q := s.centre(i)
		v := q.Sub(p)
		d := v.Len()
		if d > r || d < 1e-6 {
			continue
		}
		sx += s.mass[i] * v.X / d
		sy += s.mass[i] * v.Y / d
	}
	return math.Atan2(sy, sx)
}

// Coarse writes the belief summed over cols × rows equal blocks, relative
// to the largest block, into out (row-major, row 0 at -y).
func (s *Sweep) Coarse(cols, rows int, out []float32) {
	var sums [msg.MaxSegments]float64
	for i := range s.cols * s.rows {
		c, r := i%s.cols, i/s.cols
		b := (r*rows/s.rows)*cols + c*cols/s.cols
		sums[b] += s.mass[i]
	}
	var mx float64
	for b := range cols * rows {
		mx = max(mx, sums[b])
	}
	for b := range cols * rows {
		out[b] = 0
		if mx > 0 {
			out[b] = float32(sums[b] / mx)
		}
	}
}
