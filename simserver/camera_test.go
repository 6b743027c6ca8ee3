package simserver

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/render"
)

// TestCameraViewFollowsTheHead: a robot standing at (-2, 0) facing the
// ball on the centre spot has its top camera 6 cm ahead of and above the
// neck; the ball projects onto the image's centre column; turning the head
// left moves the ball right in the image, pitching it down moves the ball
// up, and the other robot is in the scene.
func TestCameraViewFollowsTheHead(t *testing.T) {
	s := newSim(t, nil)
	s.add("Red", 1, -2, 0, 0)
	s.add("Blue", 1, 1, 1, 180)
	s.step(40)
	var v CameraView
	s.w.CameraView(s.w.Agents()[0], &v)
	if v.Team != "Red" || v.Unum != 1 || v.Scene.NRobots != 1 {
		t.Fatalf("view of %s %d with %d robots", v.Team, v.Unum, v.Scene.NRobots)
	}
	// The cameras sit on the simulated body's HeadPitch hinge (the
	// SimSpark model's, 5 mm below its head centre, which the server
	// reports 0.54 m up) with the NAO v6's mounting.
	top := v.Top.P
	neck := s.w.Agents()[0].r.world(model.neck)
	if math.Abs(neck.Z-0.535) > 0.01 || math.Abs(top.X-(-2+0.05871)) > 0.01 || math.Abs(top.Y) > 0.01 || math.Abs(top.Z-(neck.Z+0.06364)) > 1e-6 {
		t.Errorf("top camera at %.3f, neck at %.3f; want 5.871 cm ahead of and 6.364 cm above the neck at about 0.535 m", top, neck)
	}
	if b := v.Bottom.P; !(b.Z < top.Z-0.04) {
		t.Errorf("bottom camera at %.3f, top at %.3f", b, top)
	}
	rb := v.Scene.Robots[0]
	if math.Hypot(rb.Foot.X+1, rb.Foot.Y+1) > 0.05 || rb.Foot.Z > 0.2 || math.Abs(rb.Head.Z-(render.RobotHeight-render.RobotRadius)) > 0.03 {
		t.Errorf("the other robot's capsule: %+v", rb)
	}
	in := render.NAOIntrinsics(640, 480)
	u0, v0, ok := render.Project(&v.Top, &in, v.Scene.Ball)
	if !ok || math.Abs(u0-320) > 2 || v0 < 240 || v0 > 480 {
		t.Fatalf("ball at pixel (%.1f, %.1f), want on the centre column below the centre", u0, v0)
	}
	// Head left (positive yaw) and down: the fork's he1 is yaw, he2 pitch
	// with up positive.
	s.agents = s.agents[:1]
	s.act(0, "(he1 2)(he2 -2)")
	s.step(8)
	s.act(0, "(he1 0)(he2 0)")
	s.step(3)
	s.w.CameraView(s.w.Agents()[0], &v)
	u1, v1, _ := render.Project(&v.Top, &in, v.Scene.Ball)
	if !(u1 > u0+20 && v1 < v0-20) {
		t.Errorf("after turning the head left and down the ball moved from (%.0f, %.0f) to (%.0f, %.0f)", u0, v0, u1, v1)
	}
	r, err := render.NewRenderer(in)
	if err != nil {
		t.Fatal(err)
	}
	f := render.NewFrame(in)
	o := render.DefaultOptions()
	a := s.w.Agents()[0]
	if n := testing.AllocsPerRun(2, func() {
		s.w.CameraView(a, &v)
		if err := v.Render(r, f, o); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("a camera view and its rendering allocate %v times", n)
	}
}

// TestServerCameras: a server keeping camera views renders a connected
// robot's top and bottom images from them; the ball on the centre spot is
// in the top image of a robot at (-2, 0) facing it.
func TestServerCameras(t *testing.T) {
	cfg := syncConfig()
	if _, err := NewCameras(startServer(t, cfg), "T", 1, render.NAOIntrinsics(640, 480), render.NAOIntrinsics(320, 240), render.DefaultOptions()); err == nil {
		t.Fatal("cameras on a server without camera views")
	}
	cfg.CameraViews = true
	s := startServer(t, cfg)
	cams, err := NewCameras(s, "T", 1, render.NAOIntrinsics(640, 480), render.NAOIntrinsics(320, 240), render.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	top := render.NewFrame(render.NAOIntrinsics(640, 480))
	if _, ok, err := cams.Capture(top); ok || err != nil {
		t.Fatalf("a view before the robot connected: %v %v", ok, err)
	}
	ag := startBackground(t, s.AgentAddr(), "T", 1, -2, 0)
	ag.waitFor(t, "init", func(m string) bool { return strings.Contains(m, "(team left)") })
	deadline := time.Now().Add(10 * time.Second)
	var v *CameraView
	for {
		var ok bool
		if v, ok, err = cams.Capture(top); err != nil {
			t.Fatal(err)
		} else if ok && math.Abs(v.Top.P.X+2) < 0.1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no camera view of the beamed robot")
		}
		time.Sleep(time.Millisecond)
	}
	if v.Cycle <= 0 || top.Seq != uint64(v.Cycle) {
		t.Errorf("view of cycle %d, frame seq %d", v.Cycle, top.Seq)
	}
	in := render.NAOIntrinsics(640, 480)
	u, vv, ok := render.Project(&v.Top, &in, v.Scene.Ball)
	if !ok {
		t.Fatal("ball behind the camera")
	}
	y, cb, cr := top.YUV(int(u), int(vv))
	if y < 150 && y > 70 || cb < 118 && cr < 118 {
		t.Errorf("ball pixel (%.0f, %.0f) is YUV %d %d %d: not the ball's white or black", u, vv, y, cb, cr)
	}
	bot := render.NewFrame(render.NAOIntrinsics(320, 240))
	bot.Camera = render.Bottom
	if _, ok, err := cams.Capture(bot); !ok || err != nil {
		t.Fatalf("bottom camera: %v %v", ok, err)
	}
}
