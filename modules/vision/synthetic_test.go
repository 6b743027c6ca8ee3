package vision

import (
	"math"
	"testing"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/vision/visiontest"
)

// Synthetic frames: an SPL field drawn for the NAO v6 top camera at 0.5 m
// (visiontest), with the truth known in the robot frame.

func TestSyntheticCircleAndBall(t *testing.T) {
	pose := hal.Pose2{X: -1.6}
	ball := hal.Vec2{X: -0.8, Y: -0.2}
	img, cam := scene(visiontest.Scene{Robot: pose, Ball: ball, BallVisible: true, Noise: 4, Seed: 1}, 0, deg(18))
	p := mustNew(t)
	var out hal.Vision
	r, err := p.Process(img, cam, &out)
	if err != nil {
		t.Fatal(err)
	}
	wantBall := toRobot(pose, ball)
	if len(r.Balls) != 1 {
		t.Fatalf("balls %+v, want one at %+v", r.Balls, wantBall)
	}
	if e := dist(r.Balls[0].Pos, wantBall); e > 0.05*math.Hypot(wantBall.X, wantBall.Y) {
		t.Errorf("ball at %+v, %.3f m from %+v", r.Balls[0].Pos, e, wantBall)
	}
	wantC := toRobot(pose, hal.Vec2{})
	if !r.CircleFound || dist(r.Circle, wantC) > 0.15 {
		t.Errorf("centre circle found %v at %+v, want %+v", r.CircleFound, r.Circle, wantC)
	}
	// The halfway line runs across the view at x = 1.6.
	if !hasLine(r.Lines, wantC, math.Pi/2, 0.1, 0.5) {
		t.Errorf("no halfway line through %+v among %+v", wantC, r.Lines)
	}
	// The halfway line crosses the circle at (1.6, ±0.75): X intersections.
	for _, y := range []float64{0.75, -0.75} {
		found := false
		for _, in := range r.Intersections {
			found = found || in.Kind == hal.ObjXCrossing && dist(in.Pos, hal.Vec2{X: wantC.X, Y: y}) < 0.15
		}
		if !found {
			t.Errorf("no X intersection at (%.2f, %.2f) among %+v", wantC.X, y, r.Intersections)
		}
	}
	kinds := map[hal.ObjectKind]int{}
	for i := range out.N {
		kinds[out.Obs[i].Kind]++
	}
	if kinds[hal.ObjBall] != 1 || kinds[hal.ObjCentreCircle] != 1 || kinds[hal.ObjLine] < 1 {
		t.Errorf("observation kinds %v", kinds)
	}
	for i := range out.N {
		o := out.Obs[i]
		if o.Kind == hal.ObjCentreCircle && math.Abs(math.Sin(float64(o.Orientation)-math.Pi/2)) > math.Sin(deg(8)) {
			t.Errorf("circle's axis %.1f°, want the halfway line's ±90°", float64(o.Orientation)*180/math.Pi)
		}
		if o.DistanceSigma <= 0 || o.BearingSigma <= 0 {
			t.Errorf("observation %+v without uncertainty", o)
		}
	}
}

func TestSyntheticPenaltyArea(t *testing.T) {
	f := field.SPL()
	L, pl, pw := float64(f.Length)/2, float64(f.Length)/2-float64(f.PenaltyAreaLength), float64(f.PenaltyAreaWidth)/2
	tests := []struct {
		name  string
		pose  hal.Pose2
		pitch float64
		want  map[hal.ObjectKind][]hal.Vec2 // field frame
		tol   float64
	}{
		{"corner and T", hal.Pose2{X: 2.4, Heading: 0.6}, 15,
			map[hal.ObjectKind][]hal.Vec2{hal.ObjCorner: {{X: pl, Y: pw}}, hal.ObjTJunction: {{X: L, Y: pw}}}, 0.2},
		{"penalty mark", hal.Pose2{X: 2.4}, 25,
			map[hal.ObjectKind][]hal.Vec2{hal.ObjPenaltySpot: {{X: L - float64(f.PenaltyMarkDistance)}}}, 0.1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img, cam := scene(visiontest.Scene{Robot: tc.pose, Noise: 3, Seed: 2}, 0, deg(tc.pitch))
			p := mustNew(t)
			var out hal.Vision
			if _, err := p.Process(img, cam, &out); err != nil {
				t.Fatal(err)
			}
			for kind, pts := range tc.want {
				for _, fp := range pts {
					w := toRobot(tc.pose, fp)
					best := math.Inf(1)
					for i := range out.N {
						if out.Obs[i].Kind == kind {
							best = math.Min(best, dist(out.Obs[i].Pos, w))
						}
					}
					if best > tc.tol {
						t.Errorf("kind %d at %+v: nearest found %.3f m away; observations %+v", kind, w, best, out.Obs[:out.N])
					}
				}
			}
			for i := range out.N {
				if out.Obs[i].Kind == hal.ObjBall || out.Obs[i].Kind == hal.ObjCentreCircle {
					t.Errorf("false %d at %+v", out.Obs[i].Kind, out.Obs[i].Pos)
				}
			}
		})
	}
}

func TestSyntheticBallDistances(t *testing.T) {
	oneGoroutine(t)
	p := mustNew(t)
	for _, d := range []float64{0.5, 1, 2, 3, 4} {
		pose := hal.Pose2{X: -2.5, Y: 1.5}
		ball := hal.Vec2{X: -2.5 + d, Y: 1.5 - 0.15*d}
		// Look at the ball: near balls need the head down.
		pitch := math.Atan2(0.45, d)
		img, cam := scene(visiontest.Scene{Robot: pose, Ball: ball, BallVisible: true, Noise: 4, Light: 0.8, Seed: uint64(d * 10)}, 0, pitch)
		r, err := p.Process(img, cam, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := toRobot(pose, ball)
		if len(r.Balls) != 1 {
			t.Errorf("d=%g: %d balls %+v, want one at %+v", d, len(r.Balls), r.Balls, want)
			continue
		}
		if e := dist(r.Balls[0].Pos, want); e > 0.1*math.Hypot(want.X, want.Y) {
			t.Errorf("d=%g: ball at %+v, %.3f m off", d, r.Balls[0].Pos, e)
		}
	}
}

// TestMaxBallDistance: a ball beyond max_ball_distance is found but not
// reported; one within it is.
func TestMaxBallDistance(t *testing.T) {
	p, err := New(Config{MaxBallDistance: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d    float64
		want int
	}{{2, 1}, {3, 0}} {
		pose := hal.Pose2{X: -2.5, Y: 1.5}
		ball := hal.Vec2{X: -2.5 + tc.d, Y: 1.5}
		img, cam := scene(visiontest.Scene{Robot: pose, Ball: ball, BallVisible: true, Noise: 4, Light: 0.8, Seed: 3}, 0, math.Atan2(0.45, tc.d))
		var out hal.Vision
		r, err := p.Process(img, cam, &out)
		if err != nil {
			t.Fatal(err)
		}
		balls := 0
		for i := range out.N {
			if out.Obs[i].Kind == hal.ObjBall {
				balls++
			}
		}
		if len(r.Balls) != 1 || balls != tc.want {
			t.Errorf("ball at %g m: %d found, %d reported; want 1 found, %d reported", tc.d, len(r.Balls), balls, tc.want)
		}
	}
}

func TestSyntheticObstacle(t *testing.T) {
	pose := hal.Pose2{X: -1, Y: -2}
	rob := hal.Vec2{X: 0.5, Y: -2.2}
	img, cam := scene(visiontest.Scene{Robot: pose, Obstacles: []hal.Vec2{rob}, Noise: 3, Seed: 3}, 0, deg(15))
	p := mustNew(t)
	var out hal.Vision
	r, err := p.Process(img, cam, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := toRobot(pose, rob)
	// The foot point is the obstacle's near side: 0.12 m (its radius)
	// closer than its centre.
	near := hal.Vec2{X: want.X * (1 - 0.12/math.Hypot(want.X, want.Y)), Y: want.Y * (1 - 0.12/math.Hypot(want.X, want.Y))}
	if len(r.Obstacles) != 1 || dist(r.Obstacles[0].Pos, near) > 0.15 {
		t.Fatalf("obstacles %+v, want one near %+v", r.Obstacles, near)
	}
	if r.Obstacles[0].Width < 0.12 || r.Obstacles[0].Width > 0.4 {
		t.Errorf("obstacle width %.2f m, drawn 0.24 m", r.Obstacles[0].Width)
	}
	for i := range out.N {
		if o := out.Obs[i]; o.Kind == hal.ObjBall {
			t.Errorf("false ball at %+v", o.Pos)
		}
		if o := out.Obs[i]; o.Kind == hal.ObjRobot && o.Team != hal.TeamUnknown {
			t.Errorf("obstacle with team %d, want unknown", o.Team)
		}
	}
}

// TestNoField: an image without field colour gives no observations.
func TestNoField(t *testing.T) {
	cam := visiontest.NAOv6Top(0.5, 0, deg(20))
	img := Image{Data: make([]byte, 640*480*2), Width: 640, Height: 480}
	for i := 0; i < len(img.Data); i += 4 {
		img.Data[i], img.Data[i+1], img.Data[i+2], img.Data[i+3] = byte(100+i%50), 128, byte(100+i%30), 128
	}
	p := mustNew(t)
	var out hal.Vision
	r, err := p.Process(img, cam, &out)
	if err != nil {
		t.Fatal(err)
	}
	if r.FieldFound || out.N != 0 || !out.Fresh {
		t.Errorf("grey image: field %v, %d observations, fresh %v", r.FieldFound, out.N, out.Fresh)
	}
}

func TestIntersectionKinds(t *testing.T) {
	seg := func(ax, ay, bx, by float64) Segment {
		return Segment{A: hal.Vec2{X: ax, Y: ay}, B: hal.Vec2{X: bx, Y: by}, Inliers: 10}
	}
	tests := []struct {
		name string
		a, b Segment
		kind hal.ObjectKind // ObjNone: no intersection
		at   hal.Vec2
	}{
		{"L", seg(1, 0, 3, 0), seg(1, 0, 1, 2), hal.ObjCorner, hal.Vec2{X: 1}},
		{"L with gap", seg(1.1, 0, 3, 0), seg(1, 0.15, 1, 2), hal.ObjCorner, hal.Vec2{X: 1}},
		{"T", seg(1, -1, 1, 1), seg(1, 0, 3, 0), hal.ObjTJunction, hal.Vec2{X: 1}},
		{"straight lines crossing", seg(0, -1, 2, 1), seg(0, 1, 2, -1), hal.ObjNone, hal.Vec2{}},
		{"parallel", seg(0, 0, 2, 0), seg(0, 1, 2, 1), hal.ObjNone, hal.Vec2{}},
		{"apart", seg(0, 0, 1, 0), seg(2, 1, 2, 3), hal.ObjNone, hal.Vec2{}},
		{"corner at the image border", seg(6, 0, 4, 0), seg(6, 0, 6, 2), hal.ObjNone, hal.Vec2{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t)
			// A camera 6 m up looking straight down sees all of it; the field
			// boundary is the image's top.
			p.w, p.h = 640, 480
			p.proj = visiontest.NewPinhole(640, 480, deg(90), [3]float64{1.5, 0, 6}, 0, deg(90), 0)
			p.boundU, p.boundV = append(p.boundU[:0], 0, 640), append(p.boundV[:0], 0, 0)
			p.res = Result{Lines: append(p.lines[:0], tc.a, tc.b), Intersections: p.inters[:0]}
			p.findIntersections()
			if tc.kind == hal.ObjNone {
				if len(p.res.Intersections) != 0 {
					t.Errorf("got %+v, want none", p.res.Intersections)
				}
				return
			}
			if len(p.res.Intersections) != 1 {
				t.Fatalf("got %+v, want one %d", p.res.Intersections, tc.kind)
			}
			in := p.res.Intersections[0]
			if in.Kind != tc.kind || dist(in.Pos, tc.at) > 0.01 {
				t.Errorf("got %+v, want kind %d at %+v", in, tc.kind, tc.at)
			}
		})
	}
}

func hasLine(ls []Segment, through hal.Vec2, angle, tol, minLen float64) bool {
	for _, l := range ls {
		dx, dy := l.B.X-l.A.X, l.B.Y-l.A.Y
		n := math.Hypot(dx, dy)
		if n < minLen {
			continue
		}
		if math.Abs(math.Sin(math.Atan2(dy, dx)-angle)) > math.Sin(deg(5)) {
			continue
		}
		if math.Abs(-(through.X-l.A.X)*dy+(through.Y-l.A.Y)*dx)/n <= tol {
			return true
		}
	}
	return false
}

func mustNew(t testing.TB) *Pipeline {
	t.Helper()
	p, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUncertaintyGrowsWithDistance: a ball's one-sigma distance error
// follows the projection: a pixel covers more ground further away.
func TestUncertaintyGrowsWithDistance(t *testing.T) {
	p := mustNew(t)
	prev := 0.0
	for _, d := range []float64{0.8, 1.5, 3, 5} {
		pose := hal.Pose2{X: -3}
		img, cam := scene(visiontest.Scene{Robot: pose, Ball: hal.Vec2{X: -3 + d, Y: 0.4}, BallVisible: true, Seed: 5}, 0, math.Atan2(0.45, d))
		var out hal.Vision
		if _, err := p.Process(img, cam, &out); err != nil {
			t.Fatal(err)
		}
		var sd float64
		for i := range out.N {
			if out.Obs[i].Kind == hal.ObjBall {
				sd = float64(out.Obs[i].DistanceSigma)
			}
		}
		if sd <= prev || sd > 0.25*d {
			t.Errorf("d=%g m: distance sigma %.3f m (previous %.3f)", d, sd, prev)
		}
		prev = sd
	}
}
