package render

import (
	"bufio"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal/geom"
)

// Truth is a rendered frame's ground truth, in the world frame (metres)
// and in pixels.
type Truth struct {
	Index  int    `json:"index"`
	File   string `json:"file"`
	Camera string `json:"camera"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// Robot is the observing robot's pose on the field (x, y, heading) and
	// HeadYaw, HeadPitch its head joints (NAO signs), NeckHeight the
	// HeadPitch joint's height.
	Robot      [3]float64 `json:"robot"`
	HeadYaw    float64    `json:"head_yaw"`
	HeadPitch  float64    `json:"head_pitch"`
	NeckHeight float64    `json:"neck_height"`
	// CameraPos and CameraRot are the camera's pose (geom.Pose3).
	CameraPos [3]float64 `json:"camera_pos"`
	CameraRot [9]float64 `json:"camera_rot"`
	Options   Options    `json:"options"`
	Ball      BallTruth  `json:"ball"`
	// Intersections, PenaltyMarks and Robots list those in the image and
	// not hidden.
	Intersections []PointTruth `json:"intersections"`
	PenaltyMarks  []PointTruth `json:"penalty_marks"`
	Robots        []PointTruth `json:"robots"`
	// Lines are the visible parts of the straight lines (sampled every
	// 5 cm along their centre line).
	Lines []LineTruth `json:"lines"`
	// CentreCircle is the visible fraction of the centre circle (sampled
	// every 2°), with the visible samples' pixel bounding box.
	CentreCircle CircleTruth `json:"centre_circle"`
}

// BallTruth is the ball's ground truth.
type BallTruth struct {
	Present bool       `json:"present"`
	Pos     [3]float64 `json:"pos"`
	// Distance is from the robot's feet on the ground; InImage is set when
	// the ball's centre projects into the image; U, V is that pixel and
	// RadiusPx its apparent radius.
	Distance float64 `json:"distance"`
	InImage  bool    `json:"in_image"`
	U        float64 `json:"u"`
	V        float64 `json:"v"`
	RadiusPx float64 `json:"radius_px"`
	// Pixels is how many pixels the ball would cover, Visible how many it
	// covers with what hides it.
	Pixels  int `json:"pixels"`
	Visible int `json:"visible"`
}

// PointTruth is a visible point feature.
type PointTruth struct {
	Kind string  `json:"kind,omitempty"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	U    float64 `json:"u"`
	V    float64 `json:"v"`
}

// LineTruth is a visible part of a straight line.
type LineTruth struct {
	Field [4]float64 `json:"field"` // x0, y0, x1, y1
	Image [4]float64 `json:"image"` // u0, v0, u1, v1
}

// CircleTruth is the centre circle's visibility.
type CircleTruth struct {
	Fraction float64    `json:"fraction"`
	Box      [4]float64 `json:"box,omitempty"` // u0, v0, u1, v1
}

// standHeight is the HeadPitch joint's height of a NAO v6 standing with
// straight legs: foot height 45.19 mm, tibia 102.9 mm, thigh 100 mm, hip
// offset 85 mm and neck offset 126.5 mm (Aldebaran's NAO v6 links).
const standHeight = 0.4596

// Sample is one scene to render for a data set.
type Sample struct {
	Scene   Scene
	Camera  CameraID
	Pose    geom.Pose3
	Options Options
	Robot   [3]float64
	Yaw     float64
	Pitch   float64
}

// RandomSample draws a scene for a data set: a robot anywhere on the
// field, the ball 0.3–6 m from it in view of the chosen camera (the bottom
// camera for most balls nearer than 1 m; in one frame in ten the ball is
// out of view or absent, to count false detections), 0–4 other robots and
// in four frames in ten one more beside the line of sight, partly hiding
// the ball, and random lighting, noise and head motion.
func RandomSample(g *rand.Rand, d field.Dimensions) Sample {
	s := Sample{Scene: NewScene(d)}
	hl, hw := float64(d.Length)/2, float64(d.Width)/2
	for {
		s.Robot = [3]float64{(2*g.Float64() - 1) * hl, (2*g.Float64() - 1) * hw, (2*g.Float64() - 1) * math.Pi}
		dist := 0.3 + 5.7*g.Float64()
		bearing := (2*g.Float64() - 1) * 1.6
		bx := s.Robot[0] + dist*math.Cos(s.Robot[2]+bearing)
		by := s.Robot[1] + dist*math.Sin(s.Robot[2]+bearing)
		if math.Abs(bx) > hl+0.3 || math.Abs(by) > hw+0.3 {
			continue
		}
		r := float64(d.BallRadius)
		s.Scene.Ball, s.Scene.BallRot = geom.Vec3{X: bx, Y: by, Z: r}, RollingBallRot(bx, by, r)
		s.Camera = Top
		if dist < 0.6 || (dist < 1.0 && g.Float64() < 0.7) {
			s.Camera = Bottom
		}
		// Aim the head near the ball (within the image).
		s.Yaw = clampF(bearing+(2*g.Float64()-1)*0.35, -2.08, 2.08)
		m := NAOMount(s.Camera)
		want := math.Atan2(standHeight+m.Pos.Z-r, dist) - m.Tilt // pitch that centres the ball
		s.Pitch = clampF(want+(2*g.Float64()-1)*0.3, -0.67, 0.51)
		switch u := g.Float64(); {
		case u < 0.05:
			s.Scene.NoBall = true
		case u < 0.10:
			s.Yaw = clampF(bearing+math.Pi*(0.6+0.3*g.Float64()), -2.08, 2.08)
		}
		// Other robots, not on top of the observer or the ball.
		for range g.IntN(5) {
			x, y := (2*g.Float64()-1)*hl, (2*g.Float64()-1)*hw
			if math.Hypot(x-s.Robot[0], y-s.Robot[1]) > 0.4 && math.Hypot(x-bx, y-by) > 0.2 {
				s.Scene.AddRobot(StandingRobot(x, y, uint8(g.IntN(2))))
			}
		}
		if dist > 0.8 && g.Float64() < 0.4 {
			// Partly hidden: the robot's edge crosses the line of sight to
			// the ball where the ball's edge does (|side| = RobotRadius ±
			// f·BallRadius hides part of it, from a sliver to nearly all).
			f := 0.35 + 0.5*g.Float64()
			side := RobotRadius + 0.9*(2*g.Float64()-1)*f*r
			if g.IntN(2) == 0 {
				side = -side
			}
			ux, uy := (bx-s.Robot[0])/dist, (by-s.Robot[1])/dist
			x, y := s.Robot[0]+f*(bx-s.Robot[0])-side*uy, s.Robot[1]+f*(by-s.Robot[1])+side*ux
			s.Scene.AddRobot(StandingRobot(x, y, uint8(g.IntN(2))))
		}
		break
	}
	head := HeadOrientation(s.Robot[2], s.Yaw, s.Pitch)
	s.Pose = HeadCamera(geom.Vec3{X: s.Robot[0], Y: s.Robot[1], Z: standHeight}, head, s.Camera)
	s.Options = DefaultOptions()
	s.Options.Brightness = 0.6 + 0.8*g.Float64()
	s.Options.ColourTemperature = 3000 + 6000*g.Float64()
	s.Options.Noise = 8 * g.Float64()
	s.Options.CarpetTexture = 0.04 + 0.1*g.Float64()
	if g.Float64() < 0.3 {
		s.Options.YawRate = (2*g.Float64() - 1) * 2
		s.Options.PitchRate = (2*g.Float64() - 1) * 0.5
		s.Options.Exposure = 0.005 + 0.015*g.Float64()
	}
	s.Options.Seed = g.Uint64()
	return s
}

func clampF(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

// TruthOf returns the ground truth of the frame r rendered last, of
// sample s.
func (r *Renderer) TruthOf(s *Sample) Truth {
	t := Truth{
		Camera: s.Camera.String(), Width: r.in.Width, Height: r.in.Height,
		Robot: s.Robot, HeadYaw: s.Yaw, HeadPitch: s.Pitch, NeckHeight: standHeight,
		CameraPos: s.Pose.P.Array(), CameraRot: s.Pose.R, Options: s.Options,
		Intersections: []PointTruth{}, PenaltyMarks: []PointTruth{}, Robots: []PointTruth{}, Lines: []LineTruth{},
	}
	d := &s.Scene.Field
	if !s.Scene.NoBall {
		b := s.Scene.Ball
		t.Ball = BallTruth{Present: true, Pos: b.Array(), Distance: math.Hypot(b.X-s.Robot[0], b.Y-s.Robot[1])}
		st := r.Stats()
		t.Ball.Pixels, t.Ball.Visible = st.BallPixels, st.BallVisible
		if u, v, ok := Project(&s.Pose, &r.in, b); ok && u >= 0 && v >= 0 && u < float64(r.in.Width) && v < float64(r.in.Height) {
			c := s.Pose.R.ApplyT(b.Sub(s.Pose.P))
			t.Ball.InImage, t.Ball.U, t.Ball.V = true, u, v
			t.Ball.RadiusPx = r.fx * s.Scene.BallRadius / math.Sqrt(c.Dot(c))
		}
	}
	// A ground point is visible when no object is drawn over its pixel; a
	// robot's foot point when nothing nearer than the robot hides it.
	const tol = 0.03
	vis := func(p geom.Vec3, extra float64) (float64, float64, bool) {
		if extra == 0 {
			return r.VisibleGround(p)
		}
		c := p.Sub(s.Pose.P)
		return r.Visible(p, extra+tol+0.06*math.Sqrt(c.Dot(c)))
	}
	for _, x := range Intersections(*d) {
		if u, v, ok := vis(geom.Vec3{X: x.X, Y: x.Y, Z: 0}, 0); ok {
			t.Intersections = append(t.Intersections, PointTruth{x.Kind.String(), x.X, x.Y, u, v})
		}
	}
	for _, p := range PenaltyMarks(*d) {
		if u, v, ok := vis(geom.Vec3{X: p[0], Y: p[1], Z: 0}, 0); ok {
			t.PenaltyMarks = append(t.PenaltyMarks, PointTruth{"", p[0], p[1], u, v})
		}
	}
	for i := range s.Scene.NRobots {
		rb := &s.Scene.Robots[i]
		if u, v, ok := vis(geom.Vec3{X: rb.Foot.X, Y: rb.Foot.Y, Z: 0}, RobotRadius); ok {
			t.Robots = append(t.Robots, PointTruth{"", rb.Foot.X, rb.Foot.Y, u, v})
		}
	}
	for _, sg := range Lines(*d) {
		l := math.Hypot(sg.X1-sg.X0, sg.Y1-sg.Y0)
		n := int(l/0.05) + 1
		in := false
		var cur LineTruth
		flush := func() {
			if in && math.Hypot(cur.Field[2]-cur.Field[0], cur.Field[3]-cur.Field[1]) > 0.1 {
				t.Lines = append(t.Lines, cur)
			}
			in = false
		}
		for k := 0; k <= n; k++ {
			f := float64(k) / float64(n)
			x, y := sg.X0+f*(sg.X1-sg.X0), sg.Y0+f*(sg.Y1-sg.Y0)
			u, v, ok := vis(geom.Vec3{X: x, Y: y, Z: 0}, 0)
			if !ok {
				flush()
				continue
			}
			if !in {
				in = true
				cur.Field[0], cur.Field[1], cur.Image[0], cur.Image[1] = x, y, u, v
			}
			cur.Field[2], cur.Field[3], cur.Image[2], cur.Image[3] = x, y, u, v
		}
		flush()
	}
	seen := 0
	box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	rad := float64(d.CentreCircleRadius)
	for k := range 180 {
		a := float64(k) * 2 * math.Pi / 180
		if u, v, ok := vis(geom.Vec3{X: rad * math.Cos(a), Y: rad * math.Sin(a), Z: 0}, 0); ok {
			seen++
			box = [4]float64{min(box[0], u), min(box[1], v), max(box[2], u), max(box[3], v)}
		}
	}
	t.CentreCircle.Fraction = float64(seen) / 180
	if seen > 0 {
		t.CentreCircle.Box = box
	}
	return t
}

// SampleSource returns the random source of a data set's scenes: the
// samples RandomSample draws from SampleSource(seed) are the frames
// Generate writes with that seed.
func SampleSource(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x7265_6e64_6572)) }

// GenerateConfig configures Generate.
type GenerateConfig struct {
	Dir  string
	N    int
	Seed uint64
	// BottomWidth is the bottom camera's width: 320 (320 × 240) or 640.
	BottomWidth int
	// PNG also writes each frame as a PNG image, for viewing.
	PNG bool
}

// Generate renders cfg.N random samples (RandomSample) into cfg.Dir:
// frame_NNNNN.yuyv (raw YUYV), optionally frame_NNNNN.png, and
// truth.jsonl with one Truth per line. The same seed gives the same files.
func Generate(cfg GenerateConfig, progress func(done int)) error {
	if cfg.N < 1 {
		return fmt.Errorf("render: generate: %d frames", cfg.N)
	}
	if cfg.BottomWidth != 320 && cfg.BottomWidth != 640 {
		return fmt.Errorf("render: generate: bottom camera width %d: want 320 or 640", cfg.BottomWidth)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return fmt.Errorf("render: generate: %w", err)
	}
	topIn, botIn := NAOIntrinsics(640, 480), NAOIntrinsics(cfg.BottomWidth, cfg.BottomWidth*3/4)
	top, err := NewRenderer(topIn)
	if err != nil {
		return err
	}
	bot, err := NewRenderer(botIn)
	if err != nil {
		return err
	}
	topF, botF := NewFrame(topIn), NewFrame(botIn)
	topF.Camera, botF.Camera = Top, Bottom
	tf, err := os.Create(filepath.Join(cfg.Dir, "truth.jsonl"))
	if err != nil {
		return fmt.Errorf("render: generate: %w", err)
	}
	defer tf.Close()
	bw := bufio.NewWriter(tf)
	enc := json.NewEncoder(bw)
	g := SampleSource(cfg.Seed)
	d := field.SPL()
	for i := range cfg.N {
		s := RandomSample(g, d)
		r, f := top, topF
		if s.Camera == Bottom {
			r, f = bot, botF
		}
		f.Seq = uint64(i)
		if err := r.Render(f, &s.Scene, &s.Pose, &s.Options); err != nil {
			return fmt.Errorf("render: generate: frame %d: %w", i, err)
		}
		t := r.TruthOf(&s)
		t.Index, t.File = i, fmt.Sprintf("frame_%05d.yuyv", i)
		if err := os.WriteFile(filepath.Join(cfg.Dir, t.File), f.Data, 0o644); err != nil {
			return fmt.Errorf("render: generate: %w", err)
		}
		if cfg.PNG {
			if err := writePNG(filepath.Join(cfg.Dir, fmt.Sprintf("frame_%05d.png", i)), f); err != nil {
				return err
			}
		}
		if err := enc.Encode(&t); err != nil {
			return fmt.Errorf("render: generate: truth of frame %d: %w", i, err)
		}
		if progress != nil {
			progress(i + 1)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("render: generate: %w", err)
	}
	return tf.Close()
}

func writePNG(path string, f *Frame) error {
	w, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if err := png.Encode(w, f.Image()); err != nil {
		w.Close()
		return fmt.Errorf("render: %s: %w", path, err)
	}
	return w.Close()
}
