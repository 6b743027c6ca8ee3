package render

import (
	"bytes"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal/geom"
)

// standing returns the top or bottom camera of a robot standing at (x, y)
// with the given heading and head angles (the head joint 0.46 m up, a NAO
// v6 with straight legs).
func standing(x, y, heading, yaw, pitch float64, c CameraID) geom.Pose3 {
	return HeadCamera(geom.Vec3{X: x, Y: y, Z: 0.46}, HeadOrientation(heading, yaw, pitch), c)
}

func render(t testing.TB, s *Scene, pose geom.Pose3, o Options, w, h int) (*Renderer, *Frame) {
	t.Helper()
	in := NAOIntrinsics(w, h)
	r, err := NewRenderer(in)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFrame(in)
	if err := r.Render(f, s, &pose, &o); err != nil {
		t.Fatal(err)
	}
	return r, f
}

func TestProjectAndRayAgree(t *testing.T) {
	in := NAOIntrinsics(640, 480)
	for _, c := range []CameraID{Top, Bottom} {
		pose := standing(-1, 0.5, 0.7, -0.4, 0.2, c)
		for _, px := range [][2]float64{{0, 0}, {320, 240}, {639.5, 10}, {17, 470}} {
			d := Ray(&pose, &in, px[0], px[1])
			u, v, ok := Project(&pose, &in, pose.P.Add(d.Scale(3)))
			if !ok || math.Abs(u-px[0]) > 1e-9 || math.Abs(v-px[1]) > 1e-9 {
				t.Errorf("%v: pixel %v → ray → (%v, %v, %v)", c, px, u, v, ok)
			}
		}
		// The image's centre column and the field of view's edges.
		d := Ray(&pose, &in, 0, 240)
		e := Ray(&pose, &in, 640, 240)
		a := math.Acos(d.Dot(e) / math.Sqrt(d.Dot(d)*e.Dot(e)))
		if math.Abs(a-NAOFOVX) > 1e-9 {
			t.Errorf("%v: horizontal field of view %.3f°, want 56.3°", c, a*180/math.Pi)
		}
	}
	// The mounting: the top camera's optical axis is 1.2° below the head's
	// x axis, the bottom one's 39.7°; the top camera is 46 mm above the
	// bottom one.
	top, bot := standing(0, 0, 0, 0, 0, Top), standing(0, 0, 0, 0, 0, Bottom)
	for _, tc := range []struct {
		p    geom.Pose3
		tilt float64
	}{{top, 1.2}, {bot, 39.7}} {
		ax := tc.p.R.Apply(geom.Vec3{X: 1, Y: 0, Z: 0})
		if got := -math.Asin(ax.Z) * 180 / math.Pi; math.Abs(got-tc.tilt) > 1e-9 {
			t.Errorf("optical axis %.3f° down, want %v°", got, tc.tilt)
		}
	}
	if dz := top.P.Z - bot.P.Z; math.Abs(dz-(0.06364-0.01774)) > 1e-12 {
		t.Errorf("top camera %.4f m above the bottom one", dz)
	}
}

// isGreen, isWhite classify a YUYV pixel.
func isGreen(y, cb, cr byte) bool { return cb < 120 && cr < 120 && y > 40 && y < 160 }
func isWhite(y, cb, cr byte) bool { return y > 180 && absd(cb, 128) < 16 && absd(cr, 128) < 16 }
func isDark(y, _, _ byte) bool    { return y < 60 }

func absd(a, b byte) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func TestFieldLinesBallAndCarpetWhereTheyProject(t *testing.T) {
	s := NewScene(field.SPL())
	s.Ball = geom.Vec3{X: 1.0, Y: -0.3, Z: 0.05}
	pose := standing(-1, 0, 0, 0, 0.25, Top)
	o := DefaultOptions()
	o.Noise = 0
	r, f := render(t, &s, pose, o, 640, 480)
	in := r.Intrinsics()
	at := func(p geom.Vec3) (int, int) {
		u, v, ok := Project(&pose, &in, p)
		if !ok || u < 0 || v < 0 || u >= 640 || v >= 480 {
			t.Fatalf("%v projects to (%v, %v) outside the image", p, u, v)
		}
		return int(u), int(v)
	}
	checks := []struct {
		name string
		p    geom.Vec3
		is   func(y, cb, cr byte) bool
	}{
		{"halfway line", geom.Vec3{X: 0, Y: 0.4, Z: 0}, isWhite},
		{"centre circle", geom.Vec3{X: 0.375, Y: 0.6495, Z: 0}, isWhite},
		{"carpet", geom.Vec3{X: 1.5, Y: 0.5, Z: 0}, isGreen},
		{"carpet inside the circle", geom.Vec3{X: 0.3, Y: 0.3, Z: 0}, isGreen},
	}
	for _, c := range checks {
		u, v := at(c.p)
		if y, cb, cr := f.YUV(u, v); !c.is(y, cb, cr) {
			t.Errorf("%s at pixel (%d, %d): YUV %d %d %d", c.name, u, v, y, cb, cr)
		}
	}
	// The ball: its projected disc holds white and black pixels, and it is
	// wholly visible.
	st := r.Stats()
	if st.BallPixels == 0 || st.BallVisible != st.BallPixels {
		t.Fatalf("ball stats %+v", st)
	}
	bu, bv := at(s.Ball)
	var white, dark int
	for v := bv - 6; v <= bv+6; v++ {
		for u := bu - 6; u <= bu+6; u++ {
			y, cb, cr := f.YUV(u, v)
			if isWhite(y, cb, cr) || y > 170 {
				white++
			}
			if isDark(y, cb, cr) {
				dark++
			}
		}
	}
	if white == 0 || dark == 0 {
		t.Errorf("ball at (%d, %d): %d white and %d dark pixels", bu, bv, white, dark)
	}
	// Its apparent radius: 2 m away, 5 cm: about fx·r/d pixels.
	fx := 320 / math.Tan(NAOFOVX/2)
	d := s.Ball.Sub(pose.P)
	want := math.Pi * math.Pow(fx*0.05/math.Sqrt(d.Dot(d)), 2)
	if got := float64(st.BallPixels); math.Abs(got-want) > 0.25*want {
		t.Errorf("ball covers %v pixels, want about %.0f", got, want)
	}
}

func TestRobotOccludesBall(t *testing.T) {
	s := NewScene(field.SPL())
	s.Ball = geom.Vec3{X: 2, Y: 0, Z: 0.05}
	pose := standing(0, 0, 0, 0, 0.1, Top)
	s.AddRobot(StandingRobot(1.2, 0.1, 1))
	r, _ := render(t, &s, pose, DefaultOptions(), 640, 480)
	st := r.Stats()
	if st.BallPixels == 0 || st.BallVisible == 0 || st.BallVisible >= st.BallPixels {
		t.Fatalf("partly hidden ball: %+v", st)
	}
	if _, _, ok := r.Visible(s.Ball, 0.06); ok {
		t.Errorf("the ball's centre is behind the robot but Visible says it is seen")
	}
	if _, _, ok := r.Visible(geom.Vec3{X: 1.5, Y: -0.5, Z: 0}, 0.05); !ok {
		t.Errorf("a carpet point in the open is not visible")
	}
}

func TestDeterministicAndSeeded(t *testing.T) {
	s := NewScene(field.SPL())
	s.AddRobot(StandingRobot(1, 1, 0))
	pose := standing(-2, -1, 0.4, 0.2, 0.3, Top)
	o := DefaultOptions()
	o.Noise, o.Seed = 5, 7
	_, a := render(t, &s, pose, o, 640, 480)
	_, b := render(t, &s, pose, o, 640, 480)
	if !bytes.Equal(a.Data, b.Data) {
		t.Fatal("the same inputs gave different frames")
	}
	o.Seed = 8
	_, c := render(t, &s, pose, o, 640, 480)
	if bytes.Equal(a.Data, c.Data) {
		t.Fatal("another seed gave the same noise")
	}
}

func meanYUV(f *Frame) (y, cb, cr float64) {
	n := 0
	for i := 0; i+3 < len(f.Data); i += 4 {
		y += float64(f.Data[i]) + float64(f.Data[i+2])
		cb += 2 * float64(f.Data[i+1])
		cr += 2 * float64(f.Data[i+3])
		n += 2
	}
	return y / float64(n), cb / float64(n), cr / float64(n)
}

func TestLightingNoiseAndBlur(t *testing.T) {
	s := NewScene(field.SPL())
	pose := standing(-1, 0, 0, 0, 0.3, Top)
	base := DefaultOptions()
	base.Noise = 0
	_, f0 := render(t, &s, pose, base, 320, 240)
	y0, cb0, cr0 := meanYUV(f0)

	dim := base
	dim.Brightness = 0.5
	_, f1 := render(t, &s, pose, dim, 320, 240)
	if y1, _, _ := meanYUV(f1); math.Abs(y1-0.5*y0) > 0.05*y0 {
		t.Errorf("half brightness: mean Y %.1f, want about %.1f", y1, y0/2)
	}
	warm := base
	warm.ColourTemperature = 3000
	_, f2 := render(t, &s, pose, warm, 320, 240)
	if _, cb2, cr2 := meanYUV(f2); !(cr2 > cr0+3 && cb2 < cb0-3) {
		t.Errorf("3000 K light: mean Cb/Cr %.1f/%.1f, neutral %.1f/%.1f: want redder, less blue", cb2, cr2, cb0, cr0)
	}
	noisy := base
	noisy.Noise = 8
	_, f3 := render(t, &s, pose, noisy, 320, 240)
	var sd float64
	for i := 0; i < len(f3.Data); i += 2 {
		d := float64(f3.Data[i]) - float64(f0.Data[i])
		sd += d * d
	}
	if sd = math.Sqrt(sd / float64(len(f3.Data)/2)); math.Abs(sd-8) > 1 {
		t.Errorf("noise σ 8: measured %.2f", sd)
	}
	// Motion blur softens the halfway line's edges: fewer pixels differ
	// strongly from their right neighbour.
	blur := base
	blur.YawRate, blur.Exposure = 3, 0.03
	_, f4 := render(t, &s, pose, blur, 320, 240)
	if a, b := edges(f0), edges(f4); b >= a/2 {
		t.Errorf("blur: %d strong horizontal edges, sharp %d", b, a)
	}
}

func edges(f *Frame) int {
	n := 0
	for i := 0; i+2 < len(f.Data); i += 2 {
		if absd(f.Data[i], f.Data[i+2]) > 40 {
			n++
		}
	}
	return n
}

func TestRejectsBadInput(t *testing.T) {
	if _, err := NewRenderer(NAOIntrinsics(641, 480)); err == nil {
		t.Error("odd width accepted")
	}
	r, _ := NewRenderer(NAOIntrinsics(320, 240))
	s := NewScene(field.SPL())
	pose := standing(0, 0, 0, 0, 0, Top)
	o := DefaultOptions()
	if err := r.Render(NewFrame(NAOIntrinsics(640, 480)), &s, &pose, &o); err == nil {
		t.Error("a frame of another size accepted")
	}
	for _, bad := range []func(*Options){
		func(o *Options) { o.Brightness = 0 },
		func(o *Options) { o.ColourTemperature = 100 },
		func(o *Options) { o.Noise = math.NaN() },
		func(o *Options) { o.YawRate = math.Inf(1) },
	} {
		o := DefaultOptions()
		bad(&o)
		if err := r.Render(NewFrame(NAOIntrinsics(320, 240)), &s, &pose, &o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

func TestRenderDoesNotAllocate(t *testing.T) {
	in := NAOIntrinsics(320, 240)
	r, _ := NewRenderer(in)
	f := NewFrame(in)
	s := NewScene(field.SPL())
	s.AddRobot(StandingRobot(1, 0, 0))
	pose := standing(0, 0, 0, 0, 0.2, Top)
	o := DefaultOptions()
	o.YawRate = 1
	if n := testing.AllocsPerRun(3, func() { r.Render(f, &s, &pose, &o) }); n != 0 {
		t.Errorf("Render allocates %v times per frame", n)
	}
}

func benchRender(b *testing.B, w, h int, c CameraID, blur bool) {
	in := NAOIntrinsics(w, h)
	r, _ := NewRenderer(in)
	f := NewFrame(in)
	s := NewScene(field.SPL())
	s.Ball = geom.Vec3{X: 1, Y: 0.2, Z: 0.05}
	s.AddRobot(StandingRobot(2, -0.5, 1))
	s.AddRobot(StandingRobot(1.5, 1, 0))
	pose := standing(-1, 0, 0, 0.2, 0.2, c)
	o := DefaultOptions()
	if blur {
		o.YawRate = 2
	}
	b.ReportAllocs()
	r.Render(f, &s, &pose, &o) // builds the line table
	cpu0 := cpuTime()
	for b.Loop() {
		f.Seq++
		if err := r.Render(f, &s, &pose, &o); err != nil {
			b.Fatal(err)
		}
	}
	// The process's CPU time per frame: on a loaded machine the wall
	// time per frame (ns/op) also counts the time the benchmark waits.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/frame")
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkRenderTop640(b *testing.B)        { benchRender(b, 640, 480, Top, false) }
func BenchmarkRenderBottom320(b *testing.B)     { benchRender(b, 320, 240, Bottom, false) }
func BenchmarkRenderTop640Blurred(b *testing.B) { benchRender(b, 640, 480, Top, true) }

// TestObjectsPartlyBehindTheCameraAreBoxed: a goal seen along its
// crossbar, which runs from behind the camera to in front of it, is
// ray-cast only in the box of its part in front of the camera, and is
// still drawn there.
func TestObjectsPartlyBehindTheCameraAreBoxed(t *testing.T) {
	s := NewScene(field.SPL())
	s.NoBall = true
	hl := float64(s.Field.Length) / 2
	// Standing on the goal line, 1 m beside the goal, looking along the
	// goal line at the far post's side: the near post and half the
	// crossbar are behind the camera plane's sides.
	pose := standing(hl-0.1, float64(s.Field.GoalWidth)/2+0.05, -math.Pi/2, 0, 0, Top)
	r, _ := render(t, &s, pose, DefaultOptions(), 640, 480)
	drawn := 0
	for i := range r.nObj {
		o := &r.objs[i]
		if area := (o.u1 - o.u0) * (o.v1 - o.v0); area >= 640*480/2 {
			t.Errorf("object %d (kind %d) is cast over %d pixels", i, o.kind, area)
		}
		drawn++
	}
	if drawn == 0 {
		t.Fatal("no object in view")
	}
	hits := 0
	for i := range r.hitGen {
		if r.hit(i) {
			hits++
		}
	}
	if hits < 500 {
		t.Errorf("only %d pixels of the goal drawn", hits)
	}
}

// TestCapsuleRayMatchesTheReference: the renderer's intersection (per-object
// constants, directions of any length) hits where the unit-direction
// reference does, at the same distance.
func TestCapsuleRayMatchesTheReference(t *testing.T) {
	g := rng{s: 7}
	f := func() float64 { return float64(g.next()>>11)/(1<<53)*4 - 2 }
	hits := 0
	for range 20000 {
		p := geom.Vec3{X: f(), Y: f(), Z: f()}
		a := geom.Vec3{X: f(), Y: f(), Z: f()}
		b := a
		if g.next()%4 != 0 {
			b = geom.Vec3{X: f(), Y: f(), Z: f()}
		}
		ra := 0.05 + 0.5*(f()+2)/4
		d := geom.Vec3{X: f(), Y: f(), Z: f()}
		n := math.Sqrt(d.Dot(d))
		if n < 1e-3 {
			continue
		}
		tr, okr := capsule(p, d.Scale(1/n), a, b, ra)
		cr := newCapsuleRay(p, a, b, ra)
		tc, okc := cr.hit(d, d.Dot(d))
		if okr != okc || (okr && math.Abs(tc*n-tr) > 1e-6*(1+tr)) {
			t.Fatalf("p %v d %v a %v b %v r %v: reference %v %v, renderer %v %v", p, d, a, b, ra, tr, okr, tc*n, okc)
		}
		if okr {
			hits++
		}
	}
	if hits < 300 {
		t.Fatalf("only %d hits", hits)
	}
}

// capsule intersects the ray p + t·d (d a unit vector) with the capsule
// of radius ra around the segment a–b (a sphere when a == b); it returns
// the nearest t > 0 (after Íñigo Quílez's ray-capsule intersection).
func capsule(p, d, a, b geom.Vec3, ra float64) (float64, bool) {
	ba := b.Sub(a)
	oa := p.Sub(a)
	baba := ba.Dot(ba)
	bard := ba.Dot(d)
	baoa := ba.Dot(oa)
	qa := baba - bard*bard
	if baba > 0 && qa > 1e-9*baba {
		qb := baba*d.Dot(oa) - baoa*bard
		qc := baba*oa.Dot(oa) - baoa*baoa - ra*ra*baba
		h := qb*qb - qa*qc
		if h < 0 {
			return 0, false // the infinite cylinder is missed
		}
		t := (-qb - math.Sqrt(h)) / qa
		y := baoa + t*bard
		if y > 0 && y < baba {
			return t, t > 0
		}
		if y <= 0 {
			return sphere(oa, d, ra)
		}
		return sphere(p.Sub(b), d, ra)
	}
	// A sphere, or a ray along the axis: the nearer cap.
	t1, ok1 := sphere(oa, d, ra)
	t2, ok2 := sphere(p.Sub(b), d, ra)
	switch {
	case ok1 && ok2:
		return min(t1, t2), true
	case ok1:
		return t1, true
	}
	return t2, ok2
}

// sphere intersects the ray oc + t·d (from the sphere's centre) with a
// sphere of radius ra.
func sphere(oc, d geom.Vec3, ra float64) (float64, bool) {
	b := d.Dot(oc)
	c := oc.Dot(oc) - ra*ra
	h := b*b - c
	if h < 0 {
		return 0, false
	}
	t := -b - math.Sqrt(h)
	return t, t > 0
}
