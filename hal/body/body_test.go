package body

import (
	"math"
	"testing"

	"github.com/robotd/robotd/hal"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The SimSpark model's whole-body figures, as docs/simspark-nao-model.md
// derives them from the model files: 4.6071 kg, CoM (0, +0.0163, −0.0788)
// in the build frame at the zero pose, the torso centre 0.385 m above the
// soles.
func TestSimSparkWholeBody(t *testing.T) {
	m := SimSpark()
	if len(m.Parts) != 23 || len(m.Hinges) != 22 {
		t.Fatalf("%d parts, %d hinges; the type-0 model has 23 and 22", len(m.Parts), len(m.Hinges))
	}
	var mass float64
	var c hal.Vec3
	colliders := 0
	for _, p := range m.Parts {
		mass += p.Mass
		c.X += p.Mass * p.Pos.X
		c.Y += p.Mass * p.Pos.Y
		c.Z += p.Mass * p.Pos.Z
		if p.Collides {
			colliders++
		}
	}
	if !near(mass, 4.6071, 1e-9) {
		t.Errorf("mass %.4f kg, want 4.6071", mass)
	}
	if colliders != 13 {
		t.Errorf("%d colliders, want 13", colliders)
	}
	c = hal.Vec3{X: c.X / mass, Y: c.Y / mass, Z: c.Z / mass}
	if !near(c.X, 0.0163, 5e-5) || !near(c.Y, 0, 1e-12) || !near(c.Z, -0.0788, 5e-5) {
		t.Errorf("CoM %+v, want (0.0163, 0, -0.0788)", c)
	}
	if h := -(m.Leg.HipOffsetZ - m.Leg.Thigh - m.Leg.Tibia - m.Leg.FootHeight); !near(h, 0.385, 1e-12) {
		t.Errorf("torso centre %.4f m above the soles at the zero pose, want 0.385", h)
	}
	if !near(m.Mass.Total(), mass, 1e-12) {
		t.Errorf("mass model %.4f kg, parts %.4f", m.Mass.Total(), mass)
	}
	// The lumped model's CoM at the zero pose: within 2 mm of the parts'
	// (it lumps each arm onto its axis).
	mm := &m.Mass
	var w hal.Vec3
	add := func(s Segment, at hal.Vec3) {
		w.X += s.Mass * (at.X + s.CoM.X)
		w.Y += s.Mass * (at.Y + s.CoM.Y)
		w.Z += s.Mass * (at.Z + s.CoM.Z)
	}
	for _, side := range []float64{1, -1} {
		add(mm.Arm, hal.Vec3{X: mm.Shoulder.X, Y: side * mm.Shoulder.Y, Z: mm.Shoulder.Z})
		hip := hal.Vec3{X: m.Leg.HipOffsetX, Y: side * m.Leg.HipOffsetY, Z: m.Leg.HipOffsetZ}
		knee := hal.Vec3{X: hip.X, Y: hip.Y, Z: hip.Z - m.Leg.Thigh}
		ankle := hal.Vec3{X: hip.X, Y: hip.Y, Z: knee.Z - m.Leg.Tibia}
		add(mm.Hip, hip)
		add(mm.Thigh, hip)
		add(mm.Tibia, knee)
		add(mm.Ankle, ankle)
		add(mm.Foot, ankle)
	}
	add(mm.Torso, hal.Vec3{})
	add(mm.Head, hal.Vec3{})
	tot := mm.Total()
	lc := hal.Vec3{X: w.X / tot, Y: w.Y / tot, Z: w.Z / tot}
	if math.Abs(lc.X-c.X) > 0.002 || math.Abs(lc.Y) > 1e-9 || math.Abs(lc.Z-c.Z) > 0.002 {
		t.Errorf("mass model CoM %+v, parts %+v", lc, c)
	}
}

// TestSimSparkLeg: the leg lengths the kinematics get, from the hinges.
func TestSimSparkLeg(t *testing.T) {
	l := SimSpark().Leg
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"hip x", l.HipOffsetX, -0.005}, {"hip y", l.HipOffsetY, 0.055}, {"hip z", l.HipOffsetZ, -0.115},
		{"thigh", l.Thigh, 0.12}, {"tibia", l.Tibia, 0.10}, {"foot height", l.FootHeight, 0.05},
		{"sole forward", l.SoleForward, 0.03}, {"sole length", l.SoleLength, 0.16}, {"sole width", l.SoleWidth, 0.08},
	} {
		if !near(tc.got, tc.want, 1e-12) {
			t.Errorf("%s = %.4f, want %.4f", tc.name, tc.got, tc.want)
		}
	}
}

// TestSimSparkJoints: the HAL ranges follow the model's stops through the
// hinge signs, the left and right legs mirror, the head pitch has no stop,
// and the wrists and hands are absent.
func TestSimSparkJoints(t *testing.T) {
	m := SimSpark()
	deg := func(r hal.Radians) float64 { return float64(r) * 180 / math.Pi }
	for _, tc := range []struct {
		j        hal.Joint
		min, max float64
		enforced bool
	}{
		{hal.HeadYaw, -119.5, 119.5, true},
		{hal.HeadPitch, -29.5, 38.5, false},
		{hal.LKneePitch, -5.29, 121.04, true},
		{hal.RKneePitch, -5.29, 121.04, true},
		{hal.LHipPitch, -88, 27.73, true},
		{hal.LHipRoll, -21.74, 45.29, true},
		{hal.RHipRoll, -45.29, 21.74, true},
		{hal.LAnkleRoll, -44.06, 22.79, true},
		{hal.LShoulderPitch, -119.5, 119.5, true},
		{hal.LElbowRoll, -88.5, -2, true},
		{hal.RElbowRoll, 2, 88.5, true},
	} {
		j := m.Joints[tc.j]
		if !j.Present || !near(deg(j.Min), tc.min, 1e-9) || !near(deg(j.Max), tc.max, 1e-9) || j.Enforced != tc.enforced {
			t.Errorf("%s: %+v (%.2f…%.2f°), want %.2f…%.2f° enforced %v", tc.j, j, deg(j.Min), deg(j.Max), tc.min, tc.max, tc.enforced)
		}
		if !near(float64(j.MaxSpeed), 6.1395, 1e-4) {
			t.Errorf("%s: max speed %.4f, want 6.1395", tc.j, j.MaxSpeed)
		}
	}
	for _, j := range []hal.Joint{hal.LWristYaw, hal.RWristYaw, hal.LHand, hal.RHand} {
		if m.Joints[j].Present {
			t.Errorf("%s present in the SimSpark model", j)
		}
	}
	mirrors := 0
	for _, h := range m.Hinges {
		if h.Child < 0 || h.Parent < 0 || h.Child == h.Parent {
			t.Errorf("%s: child %d, parent %d", h.Effector, h.Child, h.Parent)
		}
		if n := math.Sqrt(h.Axis.X*h.Axis.X + h.Axis.Y*h.Axis.Y + h.Axis.Z*h.Axis.Z); !near(n, 1, 1e-4) {
			t.Errorf("%s: axis length %.5f", h.Effector, n)
		}
		if h.Mirror {
			mirrors++
		}
	}
	if mirrors != 1 {
		t.Errorf("%d mirrored hinges, want 1 (rle1)", mirrors)
	}
	// A left part sits at +y, its right twin at -y.
	l, r := m.Parts[m.PartIndex("lfoot")], m.Parts[m.PartIndex("rfoot")]
	if !(l.Pos.Y > 0) || l.Pos.Y != -r.Pos.Y || l.Pos.X != r.Pos.X {
		t.Errorf("feet at %+v and %+v", l.Pos, r.Pos)
	}
}

// TestCopies: a caller that changes its model does not change the next
// caller's.
func TestCopies(t *testing.T) {
	a := SimSpark()
	a.Parts[0].Mass = 99
	a.Joints[hal.HeadYaw].Max = 0
	b := SimSpark()
	if b.Parts[0].Mass == 99 || b.Joints[hal.HeadYaw].Max == 0 {
		t.Error("a model shares its tables with the next caller")
	}
}

func TestNAO(t *testing.T) {
	m := NAO()
	if !near(m.Mass.Total(), 5.3062, 0.3) {
		t.Errorf("NAO v6 mass %.3f kg, want about 5.3", m.Mass.Total())
	}
	for j := range m.Joints {
		if !m.Joints[j].Present || m.Joints[j].MaxSpeed <= 0 || m.Joints[j].Min >= m.Joints[j].Max {
			t.Errorf("%s: %+v", hal.Joint(j), m.Joints[j])
		}
	}
	if For(NAOv6).Leg != m.Leg || For(SimSparkNAO).Leg != SimSpark().Leg {
		t.Error("For returns another model")
	}
}

func TestKindText(t *testing.T) {
	for _, k := range []Kind{NAOv6, SimSparkNAO} {
		b, err := k.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Kind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("%s: read back %v, %v", b, back, err)
		}
	}
	var k Kind
	if err := k.UnmarshalText([]byte("nao-v5")); err == nil {
		t.Error("an unknown body kind was accepted")
	}
}

func TestNAOCamera(t *testing.T) {
	for _, id := range []hal.CameraID{hal.CameraTop, hal.CameraBottom} {
		c := NAOCamera(id)
		if c.Camera != id || math.Abs(float64(c.NeckHeight)-0.2115) > 1e-12 {
			t.Errorf("%v: neck %v above the hips", id, c.NeckHeight)
		}
		// 56.3° across 640 pixels, square pixels for 43.7° across 480.
		if in := c.Intrinsics; math.Abs(in.FX-in.FY) > 2 || math.Abs(2*math.Atan(320/in.FX)*180/math.Pi-56.3) > 1e-9 {
			t.Errorf("%v: intrinsics %+v", id, in)
		}
	}
}
