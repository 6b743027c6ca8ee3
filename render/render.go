package render

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal/geom"
)

// Options are the rendering's lighting, noise and blur.
type Options struct {
	// Brightness scales every colour (1: nominal; 0.4..1.6 is a dim to a
	// bright hall).
	Brightness float64 `json:"brightness"`
	// ColourTemperature is the light's colour temperature in kelvin (6500:
	// neutral white balance; lower is warmer, higher bluer), 2500..12000.
	ColourTemperature float64 `json:"colour_temperature"`
	// Noise is the sensor noise's standard deviation in Y (0..255 scale);
	// chroma gets half of it.
	Noise float64 `json:"noise"`
	// CarpetTexture is the carpet's brightness variation (0..1; 0.08 by
	// default in DefaultOptions).
	CarpetTexture float64 `json:"carpet_texture"`
	// YawRate and PitchRate are the camera's rotation rates (rad/s, about
	// its z and y axes) during the exposure, which blur the image.
	YawRate   float64 `json:"yaw_rate"`
	PitchRate float64 `json:"pitch_rate"`
	// Exposure is the exposure time (s) for the motion blur.
	Exposure float64 `json:"exposure"`
	// Seed seeds the noise; a frame's draws also depend on Frame.Seq.
	Seed uint64 `json:"seed"`
}

// DefaultOptions returns neutral light, mild noise and no blur.
func DefaultOptions() Options {
	return Options{Brightness: 1, ColourTemperature: 6500, Noise: 2, CarpetTexture: 0.08, Exposure: 0.01}
}

// Validate checks the options' ranges.
func (o *Options) Validate() error {
	switch {
	case !(o.Brightness >= 0.1 && o.Brightness <= 4):
		return fmt.Errorf("render: options: brightness %v is outside 0.1..4", o.Brightness)
	case !(o.ColourTemperature >= 2500 && o.ColourTemperature <= 12000):
		return fmt.Errorf("render: options: colour temperature %v K is outside 2500..12000", o.ColourTemperature)
	case !(o.Noise >= 0 && o.Noise <= 64):
		return fmt.Errorf("render: options: noise %v is outside 0..64", o.Noise)
	case !(o.CarpetTexture >= 0 && o.CarpetTexture <= 1):
		return fmt.Errorf("render: options: carpet texture %v is outside 0..1", o.CarpetTexture)
	case !(o.Exposure >= 0 && o.Exposure <= 0.1):
		return fmt.Errorf("render: options: exposure %v s is outside 0..0.1", o.Exposure)
	case math.IsNaN(o.YawRate) || math.IsNaN(o.PitchRate) || math.Abs(o.YawRate) > 50 || math.Abs(o.PitchRate) > 50:
		return fmt.Errorf("render: options: head rates %v, %v rad/s are outside ±50", o.YawRate, o.PitchRate)
	}
	return nil
}

// Frame is one YUYV image: per pair of pixels Y0 U Y1 V.
type Frame struct {
	Camera        CameraID
	Width, Height int
	// Seq numbers the frames of a renderer (it seeds their noise).
	Seq  uint64
	Data []byte
}

// NewFrame returns a frame for images of in's size.
func NewFrame(in Intrinsics) *Frame {
	return &Frame{Width: in.Width, Height: in.Height, Data: make([]byte, 2*in.Width*in.Height)}
}

// Stats describe the last frame rendered.
type Stats struct {
	// BallPixels is the number of pixels whose ray hits the ball;
	// BallVisible of those where nothing is in front of it.
	BallPixels, BallVisible int
}

// Colours, linear 0..255 under neutral light.
var (
	colCarpet   = [3]float32{45, 125, 50}
	colLine     = [3]float32{235, 235, 235}
	colFloor    = [3]float32{95, 90, 85}
	colWall     = [3]float32{170, 165, 150}
	colWallLow  = [3]float32{120, 118, 110}
	colWhite    = [3]float32{240, 240, 240}
	colBlack    = [3]float32{25, 25, 28}
	colRobot    = [3]float32{205, 205, 210}
	colRobotDk  = [3]float32{85, 85, 92}
	colJersey   = [2][3]float32{{40, 70, 200}, {200, 40, 40}}
	colGoalPost = [3]float32{245, 245, 245}
)

// sunDir is the main light's direction (towards the light).
var sunDir = geom.Vec3{X: 0.3, Y: 0.2, Z: 0.933}

// Renderer renders frames of one image size. It is not safe for
// concurrent use; give each camera its own.
//
// Cost: the ground is computed row by row (a pixel's ray, its ground
// point and footprint are linear in u along a row, so a ground pixel costs
// one division), painted lines are looked up only where a coarse table of
// distances to the nearest line says one may be under the pixel, objects
// are ray-cast only inside their projected bounding boxes, and the depth
// and hit buffers are never cleared: an entry counts only if it was
// written in the current frame (hitGen).
type Renderer struct {
	in             Intrinsics
	fx, fy, cx, cy float64
	rgb, tmp       [][3]float32
	depth          []float32
	// hitGen[i] == gen marks the pixels where an object (not the ground)
	// is drawn in the current frame; depth[i], the drawn surface's depth
	// along the optical axis, is valid only there.
	hitGen []uint32
	gen    uint32
	lines  lineTable
	stats  Stats
	pose   geom.Pose3
	objs   [4 + 2 + MaxRobots]object
	nObj   int
}

// object is a capsule (a segment swept by a radius) or, with b == a, a
// sphere.
type object struct {
	kind    objKind
	a, b    geom.Vec3
	r       float64
	team    uint8
	u0, u1  int
	v0, v1  int
	ballRot geom.Mat3
}

type objKind uint8

const (
	objBall objKind = iota
	objPost
	objRobot
)

// NewRenderer returns a renderer for images of in's size.
func NewRenderer(in Intrinsics) (*Renderer, error) {
	if in.Width < 2 || in.Height < 1 || in.Width%2 != 0 || in.Width > 4096 || in.Height > 4096 {
		return nil, fmt.Errorf("render: image size %d×%d: want an even width, at most 4096×4096", in.Width, in.Height)
	}
	if !(in.FOVX > 0 && in.FOVX < math.Pi && in.FOVY > 0 && in.FOVY < math.Pi) {
		return nil, errors.New("render: field of view must be within (0, 180°)")
	}
	n := in.Width * in.Height
	r := &Renderer{in: in, rgb: make([][3]float32, n), tmp: make([][3]float32, n), depth: make([]float32, n), hitGen: make([]uint32, n)}
	r.fx, r.fy, r.cx, r.cy = in.focal()
	return r, nil
}

// Intrinsics returns the renderer's camera.
func (r *Renderer) Intrinsics() Intrinsics { return r.in }

// Stats returns the last frame's statistics.
func (r *Renderer) Stats() Stats { return r.stats }

// Render draws scene s seen from pose into dst (which must have the
// renderer's size) with the options o. It does not allocate (the first
// frame on a new field's dimensions builds the line table).
func (r *Renderer) Render(dst *Frame, s *Scene, pose *geom.Pose3, o *Options) error {
	if dst.Width != r.in.Width || dst.Height != r.in.Height || len(dst.Data) != 2*r.in.Width*r.in.Height {
		return fmt.Errorf("render: frame is %d×%d (%d bytes), renderer %d×%d", dst.Width, dst.Height, len(dst.Data), r.in.Width, r.in.Height)
	}
	if err := o.Validate(); err != nil {
		return err
	}
	r.pose = *pose
	r.stats = Stats{}
	r.gen++
	if r.gen == 0 { // wrapped: forget every old mark
		clear(r.hitGen)
		r.gen = 1
	}
	r.lines.build(&s.Field)
	r.ground(s, o)
	r.collect(s)
	for i := range r.nObj {
		r.draw(&r.objs[i])
	}
	r.blur(o)
	r.encode(dst, o)
	return nil
}

// hit reports whether an object is drawn at pixel i in the current frame.
func (r *Renderer) hit(i int) bool { return r.hitGen[i] == r.gen }

// ground fills every pixel with the carpet, its lines, the floor beyond
// it or the wall. The ground is the plane z = 0: every object stands on
// or above it, so it never hides one, and it needs no depth.
func (r *Renderer) ground(s *Scene, o *Options) {
	w, h := r.in.Width, r.in.Height
	p := r.pose.P
	// The world ray of pixel (u, v) is c0 + u·cu + v·cv (pixel centres).
	c0 := r.pose.R.Apply(geom.Vec3{X: 1, Y: (r.cx - 0.5) / r.fx, Z: (r.cy - 0.5) / r.fy})
	cu := r.pose.R.Apply(geom.Vec3{X: 0, Y: -1 / r.fx, Z: 0})
	cv := r.pose.R.Apply(geom.Vec3{X: 0, Y: 0, Z: -1 / r.fy})
	pix := 1 / r.fx // a pixel's angle, radians (small-angle)
	d := &s.Field
	hl, hw := float64(d.Length)/2, float64(d.Width)/2
	bx, by := hl+float64(d.Border), hw+float64(d.Border)
	tex := float32(o.CarpetTexture)
	ct := carpetTables()
	lt := &r.lines
	for v := range h {
		row := c0.Add(cv.Scale(float64(v)))
		out := r.rgb[v*w : (v+1)*w]
		for u := range w {
			dx := row.X + float64(u)*cu.X
			dy := row.Y + float64(u)*cu.Y
			dz := row.Z + float64(u)*cu.Z
			if dz >= -1e-9 || p.Z <= 0 {
				// Above the horizon: a wall, darker towards the floor.
				e := dz / math.Sqrt(dx*dx+dy*dy+dz*dz)
				out[u] = mix(colWallLow, colWall, float32(min(max(e*4, 0), 1)))
				continue
			}
			t := -p.Z / dz
			gx, gy := p.X+t*dx, p.Y+t*dy
			if gx > bx || gx < -bx || gy > by || gy < -by {
				out[u] = colFloor
				continue
			}
			c := colCarpet
			if tex > 0 {
				k := 1 + tex*carpetNoise(ct, gx, gy)
				c = [3]float32{c[0] * k, c[1] * k, c[2] * k}
			}
			// The pixel's footprint on the ground, for antialiased
			// lines: range·pixel angle / sin(elevation), that is
			// t·|d|²·pix/(-dz), the sine bounded below by 0.02.
			// near < foot is tested as near·den < t·|d|²·pix, without the
			// division (and the square root only at grazing rays).
			n2 := dx*dx + dy*dy + dz*dz
			den := -dz
			if dz*dz < 0.0004*n2 {
				den = 0.02 * math.Sqrt(n2)
			}
			if num := t * n2 * pix; lt.near(gx, gy)*den < num {
				foot := num / den
				if dist := lineDistance(d, gx, gy); dist < foot {
					a := float32(min(max(0.5-dist/foot, 0), 1))
					if dist <= -foot/2 {
						a = 1
					}
					c = mix(c, colLine, a)
				}
			}
			out[u] = c
		}
	}
}

// lineTable is a coarse table of lower bounds of the distance from a
// ground point to the nearest painted line's edge (lineDistance), in
// cells of lineCell: where the bound is at least a pixel's footprint, no
// line is under the pixel and lineDistance need not run.
type lineTable struct {
	dims   field.Dimensions
	built  bool
	x0, y0 float64
	nx, ny int
	lb     []float32
}

// lineCell is the table's cell size (m).
const lineCell = 0.05

// build (re)computes the table for field d, if it was built for another.
func (t *lineTable) build(d *field.Dimensions) {
	if t.built && t.dims == *d {
		return
	}
	t.dims, t.built = *d, true
	bx, by := float64(d.Length)/2+float64(d.Border), float64(d.Width)/2+float64(d.Border)
	t.x0, t.y0 = -bx-lineCell, -by-lineCell
	t.nx, t.ny = int(math.Ceil(2*(bx+lineCell)/lineCell))+1, int(math.Ceil(2*(by+lineCell)/lineCell))+1
	if cap(t.lb) < t.nx*t.ny {
		t.lb = make([]float32, t.nx*t.ny)
	}
	t.lb = t.lb[:t.nx*t.ny]
	// Within a cell the distance differs from the centre's by at most
	// half the cell's diagonal.
	half := lineCell * math.Sqrt2 / 2
	for i := range t.nx {
		for j := range t.ny {
			x, y := t.x0+(float64(i)+0.5)*lineCell, t.y0+(float64(j)+0.5)*lineCell
			t.lb[i*t.ny+j] = float32(lineDistance(d, x, y) - half - 1e-6)
		}
	}
}

// near returns a lower bound of lineDistance at (x, y) (-Inf outside the
// table).
func (t *lineTable) near(x, y float64) float64 {
	i, j := int((x-t.x0)*(1/lineCell)), int((y-t.y0)*(1/lineCell))
	if x < t.x0 || y < t.y0 || i >= t.nx || j >= t.ny {
		return math.Inf(-1)
	}
	return float64(t.lb[i*t.ny+j])
}

func mix(a, b [3]float32, t float32) [3]float32 {
	return [3]float32{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

// carpetNoise is the carpet's texture at (x, y): fine grain (1 cm) over
// a smooth variation (about 0.3 m), roughly in -1..1, from two tables
// (the grain repeats every 2.56 m, the variation every 10.24 m).
func carpetNoise(t *carpet, x, y float64) float32 {
	ix, iy := int(x*100+1e4), int(y*100+1e4) // 1 cm cells, positive on and around the field
	return t.fine[(ix&255)<<8|iy&255] + t.smooth[(ix>>2&255)<<8|iy>>2&255]
}

// carpet holds the carpet texture's tables.
type carpet struct{ fine, smooth [256 * 256]float32 }

// carpetTables returns the texture tables, computed once: 0.6 × a hash
// per 1 cm cell, and 0.8 × bilinear value noise on a 0.3 m grid sampled
// every 4 cm.
var carpetTables = sync.OnceValue(func() *carpet {
	c := &carpet{}
	for i := range 256 {
		for j := range 256 {
			c.fine[i<<8|j] = 0.6 * hash2(int32(i), int32(j))
			sx, sy := float64(i)*0.04/0.3, float64(j)*0.04/0.3
			x0, y0 := math.Floor(sx), math.Floor(sy)
			fx, fy := float32(sx-x0), float32(sy-y0)
			a, b := int32(x0), int32(y0)
			// The grid wraps with the table (10.24 m / 0.3 m is not whole:
			// wrap the cell indices so the variation is continuous).
			const cells = 34 // ≈ 10.24 / 0.3
			a0, a1, b0, b1 := a%cells, (a+1)%cells, b%cells, (b+1)%cells
			top := hash2(a0+7919, b0) + (hash2(a1+7919, b0)-hash2(a0+7919, b0))*fx
			bot := hash2(a0+7919, b1) + (hash2(a1+7919, b1)-hash2(a0+7919, b1))*fx
			c.smooth[i<<8|j] = 0.8 * (top + (bot-top)*fy)
		}
	}
	return c
})

// hash2 is a deterministic hash of a cell to -1..1.
func hash2(x, y int32) float32 {
	h := uint32(x)*0x8da6b343 ^ uint32(y)*0xd8163841
	h ^= h >> 13
	h *= 0x5bd1e995
	h ^= h >> 15
	return float32(h&0xffff)/32767.5 - 1
}

// lineDistance returns the signed distance from (x, y) to the nearest
// painted line's edge (negative inside a line): the field lines, the
// centre circle, the penalty marks and the centre mark (crosses of
// PenaltyMarkSize).
func lineDistance(d *field.Dimensions, x, y float64) float64 {
	const hwid = LineWidth / 2
	const arm = PenaltyMarkSize / 2
	ax, ay := math.Abs(x), math.Abs(y)
	hl, hw := float64(d.Length)/2, float64(d.Width)/2
	px, py := hl-float64(d.PenaltyAreaLength), float64(d.PenaltyAreaWidth)/2
	best := math.Inf(1)
	if ax <= hl+hwid {
		best = min(best, math.Abs(ay-hw)-hwid)
	}
	if ay <= hw+hwid {
		best = min(best, math.Abs(ax-hl)-hwid, ax-hwid)
	}
	if ay <= py+hwid {
		best = min(best, math.Abs(ax-px)-hwid)
	}
	if ax >= px-hwid && ax <= hl+hwid {
		best = min(best, math.Abs(ay-py)-hwid)
	}
	if ax < 1.5*float64(d.CentreCircleRadius) && ay < 1.5*float64(d.CentreCircleRadius) {
		best = min(best, math.Abs(math.Sqrt(x*x+y*y)-float64(d.CentreCircleRadius))-hwid)
		best = min(best, max(ax-arm, ay-hwid))
	}
	if s := hl - float64(d.PenaltyMarkDistance); math.Abs(ax-s) < 0.2 && ay < 0.2 {
		best = min(best, max(math.Abs(ax-s)-arm, ay-hwid), max(ay-arm, math.Abs(ax-s)-hwid))
	}
	return best
}

// collect lists the objects that may be in view with their image bounding
// boxes, the ball last.
func (r *Renderer) collect(s *Scene) {
	r.nObj = 0
	hl, gw := float64(s.Field.Length)/2+PostRadius, float64(s.Field.GoalWidth)/2
	for _, sx := range [2]float64{-1, 1} {
		for _, sy := range [2]float64{-1, 1} {
			r.add(object{kind: objPost, a: geom.Vec3{X: sx * hl, Y: sy * gw, Z: 0}, b: geom.Vec3{X: sx * hl, Y: sy * gw, Z: GoalHeight}, r: PostRadius})
		}
		r.add(object{kind: objPost, a: geom.Vec3{X: sx * hl, Y: -gw, Z: GoalHeight}, b: geom.Vec3{X: sx * hl, Y: gw, Z: GoalHeight}, r: PostRadius})
	}
	for i := range min(s.NRobots, MaxRobots) {
		rb := &s.Robots[i]
		r.add(object{kind: objRobot, a: rb.Foot, b: rb.Head, r: RobotRadius, team: rb.Team})
	}
	// The ball last, so that its statistics count what hides it.
	if !s.NoBall {
		rad := s.BallRadius
		if rad <= 0 {
			rad = float64(s.Field.BallRadius)
		}
		r.add(object{kind: objBall, a: s.Ball, b: s.Ball, r: rad, ballRot: s.BallRot})
	}
}

// add keeps o if its bounding box is in the image. The box is that of
// the corners of the axis-aligned boxes around the axis' ends, with the
// axis first clipped to the part at least nearClip(r) in front of the
// camera plane (where every corner is in front of the camera). A capsule
// whose whole axis is nearer than that but not behind the camera gets the
// whole image as its box; the part of an axis cut off by the clip (within
// a few radii of the camera plane, outside the field of view but at its
// very edges) is not drawn.
func (r *Renderer) add(o object) {
	if r.nObj >= len(r.objs) {
		return
	}
	ca := r.pose.R.ApplyT(o.a.Sub(r.pose.P))
	cb := r.pose.R.ApplyT(o.b.Sub(r.pose.P))
	if ca.X < -o.r && cb.X < -o.r {
		return // wholly behind the camera
	}
	// Outside one of the view frustum's side planes (through the camera,
	// at the field of view's edges): both ends more than the radius
	// beyond it.
	tx, ty := r.cx/r.fx, r.cy/r.fy
	nx, ny := math.Sqrt(1+tx*tx), math.Sqrt(1+ty*ty)
	for _, pl := range [4][3]float64{{-tx / nx, 1 / nx, 0}, {-tx / nx, -1 / nx, 0}, {-ty / ny, 0, 1 / ny}, {-ty / ny, 0, -1 / ny}} {
		da := pl[0]*ca.X + pl[1]*ca.Y + pl[2]*ca.Z
		db := pl[0]*cb.X + pl[1]*cb.Y + pl[2]*cb.Z
		if da > o.r && db > o.r {
			return
		}
	}
	w, h := r.in.Width, r.in.Height
	zn := nearClip(o.r)
	pa, pb := o.a, o.b
	full := false
	switch {
	case ca.X < zn && cb.X < zn:
		full = true
	case ca.X < zn:
		pa = o.a.Add(o.b.Sub(o.a).Scale((zn - ca.X) / (cb.X - ca.X)))
	case cb.X < zn:
		pb = o.b.Add(o.a.Sub(o.b).Scale((zn - cb.X) / (ca.X - cb.X)))
	}
	if full {
		o.u0, o.v0, o.u1, o.v1 = 0, 0, w, h
		r.objs[r.nObj] = o
		r.nObj++
		return
	}
	u0, v0 := math.Inf(1), math.Inf(1)
	u1, v1 := math.Inf(-1), math.Inf(-1)
	for k := range 16 {
		p := pa
		if k&8 != 0 {
			p = pb
		}
		p.X += o.r * float64(k&1*2-1)
		p.Y += o.r * float64(k>>1&1*2-1)
		p.Z += o.r * float64(k>>2&1*2-1)
		c := r.pose.R.ApplyT(p.Sub(r.pose.P))
		c.X = max(c.X, 0.01) // only rounding puts a corner nearer
		u := r.cx - r.fx*c.Y/c.X
		v := r.cy - r.fy*c.Z/c.X
		u0, u1, v0, v1 = min(u0, u), max(u1, u), min(v0, v), max(v1, v)
	}
	o.u0, o.v0 = max(int(math.Floor(max(u0, -1)))-1, 0), max(int(math.Floor(max(v0, -1)))-1, 0)
	o.u1, o.v1 = min(int(math.Ceil(min(u1, float64(w))))+2, w), min(int(math.Ceil(min(v1, float64(h))))+2, h)
	if o.u0 >= o.u1 || o.v0 >= o.v1 {
		return
	}
	r.objs[r.nObj] = o
	r.nObj++
}

// nearClip is the depth (along the optical axis) from which on the
// corners of the axis-aligned box of radius ra around an axis point are
// all in front of the camera: √3·ra and 2 cm.
func nearClip(ra float64) float64 { return math.Sqrt(3)*ra + 0.02 }

// draw shades o's visible pixels: it casts a ray per pixel of o's
// bounding box (stepped along the row) and keeps the hits nearer than
// what was drawn at the pixel before in this frame.
func (r *Renderer) draw(o *object) {
	w := r.in.Width
	c0 := r.pose.R.Apply(geom.Vec3{X: 1, Y: (r.cx - 0.5) / r.fx, Z: (r.cy - 0.5) / r.fy})
	cu := r.pose.R.Apply(geom.Vec3{X: 0, Y: -1 / r.fx, Z: 0})
	cv := r.pose.R.Apply(geom.Vec3{X: 0, Y: 0, Z: -1 / r.fy})
	cr := newCapsuleRay(r.pose.P, o.a, o.b, o.r)
	for v := o.v0; v < o.v1; v++ {
		row := c0.Add(cv.Scale(float64(v)))
		for u := o.u0; u < o.u1; u++ {
			// d's component along the optical axis is 1, so t is the
			// hit's depth along the optical axis.
			d := row.Add(cu.Scale(float64(u)))
			t, ok := cr.hit(d, d.Dot(d))
			if !ok {
				continue
			}
			if o.kind == objBall {
				r.stats.BallPixels++
			}
			i := v*w + u
			if r.hit(i) && float32(t) >= r.depth[i] {
				continue
			}
			if o.kind == objBall {
				r.stats.BallVisible++
			}
			r.depth[i] = float32(t)
			r.hitGen[i] = r.gen
			hit := r.pose.P.Add(d.Scale(t))
			r.rgb[i] = r.shade(o, hit)
		}
	}
}

// shade returns the colour of o at the surface point hit.
func (r *Renderer) shade(o *object, hit geom.Vec3) [3]float32 {
	// The surface normal: from the nearest point of the axis.
	ab := o.b.Sub(o.a)
	l2 := ab.Dot(ab)
	s := 0.0
	if l2 > 0 {
		s = min(max(hit.Sub(o.a).Dot(ab)/l2, 0), 1)
	}
	n := hit.Sub(o.a.Add(ab.Scale(s))).Scale(1 / o.r)
	light := float32(0.6 + 0.4*max(n.Dot(sunDir), 0))
	var c [3]float32
	switch o.kind {
	case objBall:
		c = colWhite
		ln := o.ballRot.ApplyT(n)
		for k := range icosa {
			if ln.Dot(icosa[k]) > 0.935 { // within about 20.8° of a pentagon's centre
				c = colBlack
				break
			}
		}
	case objPost:
		c = colGoalPost
	case objRobot:
		// Height along the robot's axis from its feet, metres.
		along := s*math.Sqrt(l2) + (RobotRadius - o.r)
		z := along + RobotRadius // from the ground when upright
		switch {
		case z < 0.12:
			c = colRobotDk
		case z > 0.30 && z < 0.42:
			c = colJersey[o.team&1]
		case z > 0.42 && z < 0.46:
			c = colRobotDk
		default:
			c = colRobot
		}
	}
	return [3]float32{c[0] * light, c[1] * light, c[2] * light}
}

// capsuleRay intersects rays from one origin with one capsule: the terms
// of capsule that do not depend on the ray's direction, computed once.
type capsuleRay struct {
	ba, oa          geom.Vec3
	baba, baoa, qc  float64
	sphA, sphB, cyl bool
	cA, cB, rr      float64
}

func newCapsuleRay(p, a, b geom.Vec3, ra float64) capsuleRay {
	ba, oa := b.Sub(a), p.Sub(a)
	ob := p.Sub(b)
	c := capsuleRay{ba: ba, oa: oa, baba: ba.Dot(ba), baoa: ba.Dot(oa), rr: ra * ra}
	c.qc = c.baba*oa.Dot(oa) - c.baoa*c.baoa - c.rr*c.baba
	c.cA, c.cB = oa.Dot(oa)-c.rr, ob.Dot(ob)-c.rr
	return c
}

// hit returns the nearest t > 0 at which the ray p + t·d meets the
// capsule, dd being d·d: the ray–capsule intersection after Íñigo Quílez
// for a direction of any length, with the constant terms taken from c.
func (c *capsuleRay) hit(d geom.Vec3, dd float64) (float64, bool) {
	bard := c.ba.Dot(d)
	doa := d.Dot(c.oa)
	dob := doa - bard // d·(p-b)
	if qa := c.baba*dd - bard*bard; c.baba > 0 && qa > 1e-9*c.baba*dd {
		qb := c.baba*doa - c.baoa*bard
		h := qb*qb - qa*c.qc
		if h < 0 {
			return 0, false // the infinite cylinder is missed
		}
		t := (-qb - math.Sqrt(h)) / qa
		y := c.baoa + t*bard
		if y > 0 && y < c.baba {
			return t, t > 0
		}
		if y <= 0 {
			return sphereT(doa, c.cA, dd)
		}
		return sphereT(dob, c.cB, dd)
	}
	t1, ok1 := sphereT(doa, c.cA, dd)
	t2, ok2 := sphereT(dob, c.cB, dd)
	switch {
	case ok1 && ok2:
		return min(t1, t2), true
	case ok1:
		return t1, true
	}
	return t2, ok2
}

// sphereT intersects the ray oc + t·d with a sphere around the origin:
// b = d·oc, c = oc·oc - ra², dd = d·d.
func sphereT(b, c, dd float64) (float64, bool) {
	h := b*b - dd*c
	if h < 0 {
		return 0, false
	}
	t := (-b - math.Sqrt(h)) / dd
	return t, t > 0
}

// blur smears the image along the camera's rotation during the exposure:
// a box filter over the pixels the scene moved across.
func (r *Renderer) blur(o *Options) {
	bu := o.YawRate * o.Exposure * r.fx
	bv := -o.PitchRate * o.Exposure * r.fy
	n := int(math.Ceil(max(math.Abs(bu), math.Abs(bv))))
	if n < 1 {
		return
	}
	n = min(n, 64)
	var du, dv [65]int
	for k := 0; k <= n; k++ {
		f := float64(k)/float64(n) - 0.5
		du[k], dv[k] = int(math.Round(f*bu)), int(math.Round(f*bv))
	}
	w, h := r.in.Width, r.in.Height
	inv := 1 / float32(n+1)
	for v := range h {
		for u := range w {
			var acc [3]float32
			inside := u+du[0] >= 0 && u+du[n] < w && u+du[0] < w && u+du[n] >= 0 &&
				v+dv[0] >= 0 && v+dv[n] < h && v+dv[0] < h && v+dv[n] >= 0
			for k := 0; k <= n; k++ {
				su, sv := u+du[k], v+dv[k]
				if !inside {
					su, sv = min(max(su, 0), w-1), min(max(sv, 0), h-1)
				}
				c := &r.rgb[sv*w+su]
				acc[0] += c[0]
				acc[1] += c[1]
				acc[2] += c[2]
			}
			r.tmp[v*w+u] = [3]float32{acc[0] * inv, acc[1] * inv, acc[2] * inv}
		}
	}
	r.rgb, r.tmp = r.tmp, r.rgb
}

// whiteBalance returns the RGB gains of light at colour temperature k
// under a camera balanced for 6500 K: interpolated in 1/k between
// approximate gains of a blackbody's colour (warmer light is redder and
// less blue).
func whiteBalance(k float64) [3]float32 {
	type g struct{ k, r, b float64 }
	tab := [...]g{{2500, 1.35, 0.55}, {3000, 1.25, 0.65}, {4000, 1.13, 0.80}, {5000, 1.05, 0.92},
		{6500, 1, 1}, {8000, 0.93, 1.08}, {12000, 0.83, 1.22}}
	x := 1 / k
	for i := 1; i < len(tab); i++ {
		a, b := tab[i-1], tab[i]
		if k <= b.k {
			t := (x - 1/a.k) / (1/b.k - 1/a.k)
			return [3]float32{float32(a.r + (b.r-a.r)*t), 1, float32(a.b + (b.b-a.b)*t)}
		}
	}
	l := tab[len(tab)-1]
	return [3]float32{float32(l.r), 1, float32(l.b)}
}

// rng is a splitmix64 generator.
type rng struct{ s uint64 }

func (g *rng) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	z := g.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// normals returns four standard-normal draws: table entries picked by the
// four 16-bit parts of one draw.
func (g *rng) normals() [4]float32 {
	x := g.next()
	t := normalTable()
	return [4]float32{t[x&0xffff], t[x>>16&0xffff], t[x>>32&0xffff], t[x>>48]}
}

// normalTable holds 65536 standard-normal values: the normal distribution's
// quantiles at (i+0.5)/65536, in an order scrambled by a fixed generator
// (the order does not matter for uniformly random indices).
var normalTable = sync.OnceValue(func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = float32(math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/(1<<16)-1))
	}
	return &t
})

// encode converts the image to YUYV (BT.601, full range) with the light's
// brightness and colour and the sensor noise.
func (r *Renderer) encode(dst *Frame, o *Options) {
	wb := whiteBalance(o.ColourTemperature)
	br := float32(o.Brightness)
	gain := [3]float32{wb[0] * br, wb[1] * br, wb[2] * br}
	sig := float32(o.Noise)
	g := rng{s: o.Seed*0x2545f4914f6cdd1d ^ dst.Seq*0x9e3779b97f4a7c15 ^ uint64(dst.Camera)<<56}
	data := dst.Data
	for i := 0; i+1 < len(r.rgb); i += 2 {
		a, b := &r.rgb[i], &r.rgb[i+1]
		ar, ag, ab := a[0]*gain[0], a[1]*gain[1], a[2]*gain[2]
		br, bg, bb := b[0]*gain[0], b[1]*gain[1], b[2]*gain[2]
		y0 := 0.299*ar + 0.587*ag + 0.114*ab
		y1 := 0.299*br + 0.587*bg + 0.114*bb
		mr, mg, mb := (ar+br)/2, (ag+bg)/2, (ab+bb)/2
		cb := 128 - 0.168736*mr - 0.331264*mg + 0.5*mb
		cr := 128 + 0.5*mr - 0.418688*mg - 0.081312*mb
		if sig > 0 {
			n := g.normals()
			y0 += sig * n[0]
			y1 += sig * n[1]
			cb += sig / 2 * n[2]
			cr += sig / 2 * n[3]
		}
		data[2*i] = clamp8(y0)
		data[2*i+1] = clamp8(cb)
		data[2*i+2] = clamp8(y1)
		data[2*i+3] = clamp8(cr)
	}
}

func clamp8(v float32) byte {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return byte(v + 0.5)
}

// Visible returns the pixel of the world point p in the last frame and
// whether it is in the image and not hidden behind anything nearer than
// its own depth less tol (metres; depths along the optical axis).
func (r *Renderer) Visible(p geom.Vec3, tol float64) (u, v float64, ok bool) {
	c := r.pose.R.ApplyT(p.Sub(r.pose.P))
	if c.X <= 1e-3 {
		return 0, 0, false
	}
	u, v = r.cx-r.fx*c.Y/c.X, r.cy-r.fy*c.Z/c.X
	if u < 0 || v < 0 || u >= float64(r.in.Width) || v >= float64(r.in.Height) {
		return u, v, false
	}
	i := int(v)*r.in.Width + int(u)
	if !r.hit(i) {
		return u, v, true // the ground hides nothing above it
	}
	return u, v, float64(r.depth[i]) >= c.X-tol // depths along the optical axis
}

// VisibleGround returns the pixel of the ground point p in the last frame
// and whether it is in the image with no object drawn over it.
func (r *Renderer) VisibleGround(p geom.Vec3) (u, v float64, ok bool) {
	c := r.pose.R.ApplyT(p.Sub(r.pose.P))
	if c.X <= 1e-3 {
		return 0, 0, false
	}
	u, v = r.cx-r.fx*c.Y/c.X, r.cy-r.fy*c.Z/c.X
	if u < 0 || v < 0 || u >= float64(r.in.Width) || v >= float64(r.in.Height) {
		return u, v, false
	}
	return u, v, !r.hit(int(v)*r.in.Width + int(u))
}

// RGB returns pixel (u, v) of the last frame before encoding (linear
// 0..255, neutral light), for tests.
func (r *Renderer) RGB(u, v int) [3]float32 { return r.rgb[v*r.in.Width+u] }
