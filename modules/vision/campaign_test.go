package vision

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/vision/visiontest"
)

var campaignFrames = flag.Int("vision.frames", 0, "frames of the ball campaign (TestBallCampaign); 0 skips it")

// TestBallCampaign measures ball recall, false balls and position error
// over random synthetic frames: robot anywhere on the field, the ball on
// the field 0.3 to 6 m ahead within the view, the head pitched to look at it (as a
// robot tracking the ball does), light 0.6–1.3, luma noise 2–8, an
// obstacle robot beside the ball's line of sight in a third of the frames,
// no ball in a fifth. It takes about 0.1 s per frame, so it runs only
// when asked: go test ./modules/vision -run BallCampaign -v -args -vision.frames=300
func TestBallCampaign(t *testing.T) {
	n := *campaignFrames
	if n <= 0 {
		t.Skip("long measurement: set -vision.frames=N")
	}
	rng := rand.New(rand.NewPCG(20, 26))
	p := mustNew(t)
	var near, nearHit, far, farHit, falseBalls, noBall, badPos int
	var errs []float64
	var fm featureStats
	for i := 0; i < n; {
		pose := hal.Pose2{X: hal.Metres(rng.Float64()*8 - 4), Y: hal.Metres(rng.Float64()*5 - 2.5), Heading: hal.Radians(rng.Float64()*2*math.Pi - math.Pi)}
		d := 0.3 + rng.Float64()*5.7
		bearing := (rng.Float64()*2 - 1) * deg(22)
		s, c := math.Sincos(float64(pose.Heading) + bearing)
		ball := hal.Vec2{X: float64(pose.X) + d*c, Y: float64(pose.Y) + d*s}
		if math.Abs(ball.X) > 4.5 || math.Abs(ball.Y) > 3 {
			// The ball stays on the field: draw again.
			continue
		}
		withBall := rng.Float64() >= 0.2
		sc := visiontest.Scene{Robot: pose, Ball: ball, BallVisible: withBall,
			Light: 0.6 + rng.Float64()*0.7, Noise: 2 + rng.Float64()*6, Seed: uint64(i)}
		if rng.Float64() < 1.0/3 {
			// A robot 0.3–0.5 m beside the line of sight, at the ball's
			// distance or nearer.
			od := d * (0.5 + rng.Float64()*0.5)
			side := 0.3 + rng.Float64()*0.2
			if rng.IntN(2) == 0 {
				side = -side
			}
			sc.Obstacles = []hal.Vec2{{X: float64(pose.X) + od*c - side*s, Y: float64(pose.Y) + od*s + side*c}}
		}
		pitch := math.Max(deg(5), math.Min(deg(45), math.Atan2(0.45, d))) + (rng.Float64()*2-1)*deg(3)
		img, cam := scene(sc, 0, pitch)
		i++
		r, err := p.Process(img, cam, nil)
		if err != nil {
			t.Fatal(err)
		}
		fm.add(r, cam, pose)
		want := toRobot(pose, ball)
		hit := false
		for _, b := range r.Balls {
			e := dist(b.Pos, want)
			if withBall && e <= math.Max(0.1*d, 0.1) && !hit {
				hit = true
				errs = append(errs, e/d)
				continue
			}
			if withBall && e <= 0.5 && !hit {
				badPos++
				hit = true
				continue
			}
			falseBalls++
		}
		if withBall && !hit && testing.Verbose() {
			u, v, _ := cam.PointToImage(want.X, want.Y, 0.05)
			t.Logf("miss d=%.2f img (%.0f,%.0f) r_exp %.1f obst %v light %.2f noise %.1f pitch %.1f balls %+v", d, u, v, 598*0.05/math.Hypot(want.X, want.Y), len(sc.Obstacles) > 0, sc.Light, sc.Noise, pitch*180/math.Pi, r.Balls)
		}
		switch {
		case !withBall:
			noBall++
		case d <= 4:
			near++
			if hit {
				nearHit++
			}
		default:
			far++
			if hit {
				farHit++
			}
		}
	}
	med, p95 := quantile(errs, 0.5), quantile(errs, 0.95)
	t.Logf("frames %d: recall ≤4 m %d/%d = %.1f %%, 4–6 m %d/%d = %.1f %%; false balls %d (%.2f per 100 frames); ball found but >10 %% off: %d; error/distance median %.3f, 95th %.3f; %d frames without ball",
		n, nearHit, near, 100*float64(nearHit)/float64(max(near, 1)), farHit, far, 100*float64(farHit)/float64(max(far, 1)),
		falseBalls, 100*float64(falseBalls)/float64(n), badPos, med, p95, noBall)
	fm.report(t, n)
}

// featureStats counts the field features against the drawn field: a
// feature is visible when it projects at least 10 px inside the image
// within 4 m (obstacles that hide one are not accounted for); found when a
// detection of its kind lies within 0.3 m (the circle: 0.25 m).
type featureStats struct {
	lVis, lHit, tVis, tHit, cVis, cHit, xVis, xHit int
	mVis, mHit, falseMarks                         int
	falseInter, falseCircle, xs                    int
	segs, goodSegs                                 int
	interErr, circleErr                            []float64
}

func (fs *featureStats) add(r *Result, cam *visiontest.Pinhole, pose hal.Pose2) {
	f := field.SPL()
	visible := func(p hal.Vec2) (hal.Vec2, bool) {
		q := toRobot(pose, p)
		u, v, ok := cam.GroundToImage(q.X, q.Y)
		return q, ok && math.Hypot(q.X, q.Y) <= 4 && u >= 10 && v >= 10 && u < float64(cam.Width-10) && v < float64(cam.Height-10)
	}
	match := func(kind hal.ObjectKind, q hal.Vec2, tol float64) (float64, bool) {
		best := math.Inf(1)
		for _, in := range r.Intersections {
			if in.Kind == kind {
				best = math.Min(best, dist(in.Pos, q))
			}
		}
		return best, best <= tol
	}
	var truth []struct {
		k hal.ObjectKind
		q hal.Vec2
	}
	for _, c := range f.Corners() {
		q, vis := visible(c)
		truth = append(truth, struct {
			k hal.ObjectKind
			q hal.Vec2
		}{hal.ObjCorner, q})
		if vis {
			fs.lVis++
			if e, ok := match(hal.ObjCorner, q, 0.3); ok {
				fs.lHit++
				fs.interErr = append(fs.interErr, e)
			}
		}
	}
	for _, c := range f.TJunctions() {
		q, vis := visible(c)
		truth = append(truth, struct {
			k hal.ObjectKind
			q hal.Vec2
		}{hal.ObjTJunction, q})
		if vis {
			fs.tVis++
			if e, ok := match(hal.ObjTJunction, q, 0.3); ok {
				fs.tHit++
				fs.interErr = append(fs.interErr, e)
			}
		}
	}
	for _, c := range [2]hal.Vec2{{Y: float64(f.CentreCircleRadius)}, {Y: -float64(f.CentreCircleRadius)}} {
		q, vis := visible(c)
		truth = append(truth, struct {
			k hal.ObjectKind
			q hal.Vec2
		}{hal.ObjXCrossing, q})
		if vis {
			fs.xVis++
			if _, ok := match(hal.ObjXCrossing, q, 0.3); ok {
				fs.xHit++
			}
		}
	}
	for _, in := range r.Intersections {
		if in.Kind == hal.ObjXCrossing {
			fs.xs++
		}
		ok := false
		for _, tr := range truth {
			if tr.k == in.Kind && dist(tr.q, in.Pos) <= 0.5 {
				ok = true
			}
		}
		if !ok {
			fs.falseInter++
		}
	}
	pm := float64(f.Length)/2 - float64(f.PenaltyMarkDistance)
	var marks [2]hal.Vec2
	for i, m := range [2]hal.Vec2{{X: pm}, {X: -pm}} {
		q, vis := visible(m)
		marks[i] = q
		if vis {
			fs.mVis++
			for _, fm := range r.Marks {
				if dist(fm, q) <= 0.2 {
					fs.mHit++
					break
				}
			}
		}
	}
	for _, fm := range r.Marks {
		if dist(fm, marks[0]) > 0.5 && dist(fm, marks[1]) > 0.5 {
			fs.falseMarks++
		}
	}
	c := toRobot(pose, hal.Vec2{})
	if q, vis := visible(hal.Vec2{}); vis {
		fs.cVis++
		if r.CircleFound && dist(r.Circle, q) <= 0.25 {
			fs.cHit++
			fs.circleErr = append(fs.circleErr, dist(r.Circle, q))
		}
	}
	if r.CircleFound && dist(r.Circle, c) > 0.5 {
		fs.falseCircle++
	}
	// A segment is good when both ends lie within 0.1 m of one drawn line
	// (in the robot frame).
	L, W := float64(f.Length)/2, float64(f.Width)/2
	px, py := L-float64(f.PenaltyAreaLength), float64(f.PenaltyAreaWidth)/2
	lines := [][4]float64{{-L, W, L, W}, {-L, -W, L, -W}, {L, -W, L, W}, {-L, -W, -L, W}, {0, -W, 0, W},
		{px, -py, px, py}, {-px, -py, -px, py}, {px, py, L, py}, {px, -py, L, -py}, {-px, py, -L, py}, {-px, -py, -L, -py}}
	for _, sg := range r.Lines {
		fs.segs++
		for _, l := range lines {
			a, b := toRobot(pose, hal.Vec2{X: l[0], Y: l[1]}), toRobot(pose, hal.Vec2{X: l[2], Y: l[3]})
			if segDist(sg.A, a, b) <= 0.1 && segDist(sg.B, a, b) <= 0.1 {
				fs.goodSegs++
				break
			}
		}
	}
}

func segDist(p, a, b hal.Vec2) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	t := math.Max(0, math.Min(1, ((p.X-a.X)*dx+(p.Y-a.Y)*dy)/(dx*dx+dy*dy)))
	return math.Hypot(p.X-a.X-t*dx, p.Y-a.Y-t*dy)
}

func (fs *featureStats) report(t *testing.T, n int) {
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	t.Logf("intersections ≤4 m: L %d/%d = %.1f %%, T %d/%d = %.1f %%, X %d/%d = %.1f %% (within 0.3 m, kind right), L/T error median %.3f m; false or misclassified %d (%.2f per frame) of %d X and the L/T",
		fs.lHit, fs.lVis, pct(fs.lHit, fs.lVis), fs.tHit, fs.tVis, pct(fs.tHit, fs.tVis), fs.xHit, fs.xVis, pct(fs.xHit, fs.xVis), quantile(fs.interErr, 0.5), fs.falseInter, float64(fs.falseInter)/float64(n), fs.xs)
	t.Logf("penalty marks ≤4 m: %d/%d = %.1f %% (within 0.2 m); false marks %d", fs.mHit, fs.mVis, pct(fs.mHit, fs.mVis), fs.falseMarks)
	t.Logf("centre circle ≤4 m: %d/%d = %.1f %% (within 0.25 m), error median %.3f m; false circles %d; line segments %d, %.1f %% on a drawn line (both ends within 0.1 m)",
		fs.cHit, fs.cVis, pct(fs.cHit, fs.cVis), quantile(fs.circleErr, 0.5), fs.falseCircle, fs.segs, pct(fs.goodSegs, fs.segs))
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[int(q*float64(len(s)-1))]
}
