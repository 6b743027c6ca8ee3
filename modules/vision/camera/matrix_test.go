package camera

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
)

const hip = 0.22 // m, a typical stance

func upright(yaw, pitch hal.Radians) Posture {
	return Posture{HeadYaw: yaw, HeadPitch: pitch, HipHeight: hip}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestKnownGeometry checks the matrix against hand-computed NAO v6 cases:
// upright, head straight, the optical centre of each camera sees the
// ground at (mount x + height / tan(tilt), 0), and the camera's height is
// hip + neck + mount z.
func TestKnownGeometry(t *testing.T) {
	for _, tc := range []struct {
		cam          hal.CameraID
		mx, mz, tilt float64
	}{
		{hal.CameraTop, 0.05871, 0.06364, 1.2},
		{hal.CameraBottom, 0.05071, 0.01774, 39.7},
	} {
		info := body.NAOCamera(tc.cam)
		m := New(info, upright(0, 0))
		h := hip + 0.2115 + tc.mz
		if !near(m.Height(), h, 1e-12) || !near(m.Pos.X, tc.mx, 1e-12) || m.Pos.Y != 0 {
			t.Errorf("%v: camera at %+v, want (%v, 0, %v)", tc.cam, m.Pos, tc.mx, h)
		}
		x, y, ok := m.ImageToGround(info.Intrinsics.CX, info.Intrinsics.CY)
		want := tc.mx + h/math.Tan(tc.tilt*math.Pi/180)
		if !ok || !near(x, want, 1e-9) || !near(y, 0, 1e-12) {
			t.Errorf("%v: centre pixel sees (%v, %v) %v, want (%v, 0)", tc.cam, x, y, ok, want)
		}
		// The horizon is level, FY·tan(tilt) above the centre.
		hy := info.Intrinsics.CY - info.Intrinsics.FY*math.Tan(tc.tilt*math.Pi/180)
		for _, u := range []float64{0, 320, 639} {
			if got := m.HorizonY(u); !near(got, hy, 1e-9) {
				t.Errorf("%v: horizon at u=%v is %v, want %v", tc.cam, u, got, hy)
			}
		}
	}
	// The field of view: the image's left edge at the centre row is 28.15°
	// to the left of the optical axis.
	m := New(body.NAOCamera(hal.CameraTop), upright(0, 0))
	d := m.Rot.ApplyT(m.Ray(0, 240)) // in the camera's frame
	if a := math.Atan2(d.Y, d.X) * 180 / math.Pi; !near(a, 56.3/2, 1e-9) {
		t.Errorf("left edge at %v°, want %v°", a, 56.3/2)
	}
}

// TestHeadTurnsTheView: a ground point straight ahead of the head's yaw
// appears in the middle column, on either side.
func TestHeadTurnsTheView(t *testing.T) {
	for _, yaw := range []float64{-1, -0.3, 0.4, 1.2} {
		m := New(body.NAOCamera(hal.CameraBottom), upright(hal.Radians(yaw), 0.2))
		s, c := math.Sincos(yaw)
		u, _, ok := m.GroundToImage(0.6*c, 0.6*s)
		if !ok || !near(u, 320, 1e-6) {
			t.Errorf("yaw %v: point on the head's axis at u=%v %v, want 320", yaw, u, ok)
		}
		x, y, ok := m.ImageToGround(320, 300)
		if !ok || math.Signbit(y) != math.Signbit(yaw) || x <= 0 {
			t.Errorf("yaw %v: a centre pixel sees (%v, %v) %v: wrong side", yaw, x, y, ok)
		}
	}
	// Pitching the head down brings the centre pixel's ground point nearer.
	m1, m3 := New(body.NAOCamera(hal.CameraTop), upright(0, 0.1)), New(body.NAOCamera(hal.CameraTop), upright(0, 0.3))
	far, _, _ := m1.ImageToGround(320, 240)
	nearer, _, _ := m3.ImageToGround(320, 240)
	if !(nearer < far) {
		t.Errorf("head pitch 0.3 sees %v m ahead, 0.1 sees %v m", nearer, far)
	}
}

// TestTorsoTilt: leaning forward looks down (nearer), leaning right tilts
// the horizon so that it rises on the right... and a robot lying down sees
// the ground everywhere or nowhere, consistently.
func TestTorsoTilt(t *testing.T) {
	info := body.NAOCamera(hal.CameraTop)
	base := New(info, upright(0, 0.3))
	x0, _, _ := base.ImageToGround(320, 240)
	p := upright(0, 0.3)
	p.Torso.Pitch = 0.1
	lean := New(info, p)
	x1, _, _ := lean.ImageToGround(320, 240)
	if !(x1 < x0) {
		t.Errorf("leaning forward: centre at %v m, upright %v m", x1, x0)
	}
	// Leaning right (positive roll) turns the camera clockwise about its
	// axis as seen from behind: the ground's horizon then rises to the
	// left in the image (smaller v at the left).
	p = upright(0, 0)
	p.Torso.Roll = 0.1
	m := New(info, p)
	if l, r := m.HorizonY(0), m.HorizonY(639); !(l > r) {
		t.Errorf("leaning right: horizon %v at the left, %v at the right", l, r)
	}
	// Looking straight down: the whole image sees the ground.
	p = upright(0, 0)
	p.Torso.Pitch = hal.Radians(math.Pi/2) - info.Mounting.Pitch
	down := New(info, p)
	if h := down.HorizonY(320); !math.IsInf(h, -1) {
		t.Errorf("looking straight down: horizon at %v, want -Inf", h)
	}
	if _, _, ok := down.ImageToGround(0, 0); !ok {
		t.Error("looking straight down, a corner pixel does not see the ground")
	}
}

// TestRoundTrips: for random postures, pixels below the horizon go to the
// ground and back to themselves, and ground points in view come back to
// themselves; pixels above the horizon never see the ground.
func TestRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	uni := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	trips := 0
	for range 300 {
		cam := hal.CameraID(rng.IntN(2))
		info := body.NAOCamera(cam)
		info.Mounting.Roll, info.Mounting.Yaw = hal.Radians(uni(-0.05, 0.05)), hal.Radians(uni(-0.05, 0.05))
		if rng.IntN(2) == 0 {
			info.Intrinsics = info.Intrinsics.Scaled(320, 240)
		}
		p := Posture{
			HeadYaw: hal.Radians(uni(-2, 2)), HeadPitch: hal.Radians(uni(-0.67, 0.51)),
			Torso:     hal.BodyAngles{Roll: hal.Radians(uni(-0.3, 0.3)), Pitch: hal.Radians(uni(-0.3, 0.3))},
			HipHeight: hal.Metres(uni(0.15, 0.25)),
		}
		m := New(info, p)
		w, h := float64(info.Intrinsics.Width), float64(info.Intrinsics.Height)
		for range 20 {
			u, v := uni(0, w), uni(0, h)
			x, y, ok := m.ImageToGround(u, v)
			if hy := m.HorizonY(u); v < hy-1 && ok {
				t.Fatalf("%+v: pixel (%v, %v) above the horizon %v sees the ground at (%v, %v)", p, u, v, hy, x, y)
			}
			if !ok {
				continue
			}
			u2, v2, ok2 := m.GroundToImage(x, y)
			if !ok2 || !near(u, u2, 1e-6) || !near(v, v2, 1e-6) {
				t.Fatalf("%+v: (%v, %v) → (%v, %v) → (%v, %v) %v", p, u, v, x, y, u2, v2, ok2)
			}
			x2, y2, _ := m.ImageToGround(u2, v2)
			if !near(x, x2, 1e-6*(1+math.Abs(x))) || !near(y, y2, 1e-6*(1+math.Abs(y))) {
				t.Fatalf("%+v: ground (%v, %v) came back as (%v, %v)", p, x, y, x2, y2)
			}
			trips++
		}
	}
	if trips < 1000 {
		t.Fatalf("only %d round trips: the postures rarely see the ground", trips)
	}
}

// TestBehind: points behind the camera have no pixel.
func TestBehind(t *testing.T) {
	m := New(body.NAOCamera(hal.CameraTop), upright(0, 0))
	if _, _, ok := m.GroundToImage(-2, 0); ok {
		t.Error("a point behind the robot has a pixel")
	}
	if _, _, ok := m.ImageToGround(320, 0); ok {
		t.Error("the top row of an upright top camera sees the ground")
	}
}

func TestAllocationFree(t *testing.T) {
	f := &hal.CameraFrame{Info: body.NAOCamera(hal.CameraTop)}
	f.Joints[hal.HeadPitch] = 0.2
	var sink float64
	if n := testing.AllocsPerRun(100, func() {
		m := FromFrame(f, hip)
		x, y, _ := m.ImageToGround(100, 400)
		u, v, _ := m.GroundToImage(x, y)
		sink += u + v + m.HorizonY(10)
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
	_ = sink
}

func BenchmarkImageToGround(b *testing.B) {
	m := New(body.NAOCamera(hal.CameraTop), upright(0.2, 0.2))
	b.ReportAllocs()
	var s float64
	for b.Loop() {
		x, y, _ := m.ImageToGround(300, 400)
		s += x + y
	}
	_ = s
}

func TestHipHeight(t *testing.T) {
	leg := body.NAO().Leg
	var j [hal.NumJoints]hal.Radians
	straight := leg.FootHeight + leg.Tibia + leg.Thigh
	if h := float64(HipHeight(leg, &j)); !near(h, straight, 1e-12) {
		t.Errorf("straight legs: %v, want %v", h, straight)
	}
	// The stand: hip -0.45, knee 0.9, ankle -0.45: both links lean 0.45.
	for _, side := range [][3]hal.Joint{{hal.LHipPitch, hal.LKneePitch, hal.LAnklePitch}, {hal.RHipPitch, hal.RKneePitch, hal.RAnklePitch}} {
		j[side[0]], j[side[1]], j[side[2]] = -0.45, 0.9, -0.45
	}
	stand := leg.FootHeight + (leg.Tibia+leg.Thigh)*math.Cos(0.45)
	if h := float64(HipHeight(leg, &j)); !near(h, stand, 1e-12) {
		t.Errorf("stand: %v, want %v", h, stand)
	}
	// Lifting the right foot (knee bent further) leaves the height to the
	// left leg.
	j[hal.RHipPitch], j[hal.RKneePitch], j[hal.RAnklePitch] = -0.8, 1.4, -0.6
	if h := float64(HipHeight(leg, &j)); !near(h, stand, 1e-12) {
		t.Errorf("right foot lifted: %v, want the stand's %v", h, stand)
	}
	// A lower stance lowers the camera with it.
	f := &hal.CameraFrame{Info: body.NAOCamera(hal.CameraBottom), Joints: j}
	m := FromFrameLegs(f, leg)
	if !near(m.Height(), stand+0.2115+0.01774, 1e-9) {
		t.Errorf("camera height %v", m.Height())
	}
}

// TestImageToPlane: a point at height z projected into the image comes
// back from its pixel on the plane at z.
func TestImageToPlane(t *testing.T) {
	m := New(body.NAOCamera(hal.CameraTop), upright(0.3, 0.25))
	for _, p := range []hal.Vec3{{X: 1, Y: 0.2, Z: 0.05}, {X: 3, Y: -1, Z: 0.05}, {X: 0.6, Z: 0.3}} {
		u, v, ok := m.PointToImage(p)
		if !ok {
			t.Fatalf("%+v not in front", p)
		}
		x, y, ok := m.ImageToPlane(u, v, p.Z)
		if !ok || !near(x, p.X, 1e-9) || !near(y, p.Y, 1e-9) {
			t.Errorf("%+v → (%v, %v) → (%v, %v) %v", p, u, v, x, y, ok)
		}
	}
	if _, _, ok := m.ImageToPlane(320, 400, 2); ok {
		t.Error("a plane above the camera was hit")
	}
}
