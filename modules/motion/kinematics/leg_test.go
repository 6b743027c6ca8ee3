package kinematics

import (
	"math"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/hal/geom"
)

const (
	posTol = 0.001               // 1 mm
	angTol = 0.5 * math.Pi / 180 // 0.5°
)

// poseErr returns the position error, the yaw error and the sole's tilt of
// the achieved sole pose against the target.
func poseErr(got geom.Pose3, want FootPose) (pos, yaw, tilt float64) {
	f, tilt := Flat(got)
	pos = math.Sqrt((f.X-want.X)*(f.X-want.X) + (f.Y-want.Y)*(f.Y-want.Y) + (f.Z-want.Z)*(f.Z-want.Z))
	return pos, math.Abs(geom.WrapAngle(f.Yaw - want.Yaw)), tilt
}

// grid calls f for feet over the workspace a walk and a kick use.
func grid(f func(x, y, z, yaw float64)) {
	for x := -0.10; x <= 0.1001; x += 0.025 {
		for y := -0.03; y <= 0.0801; y += 0.0275 {
			for z := -0.33; z <= -0.2199; z += 0.0275 {
				for yaw := -0.5; yaw <= 0.501; yaw += 0.25 {
					f(x, y, z, yaw)
				}
			}
		}
	}
}

// TestLegIKRoundTrip: each leg alone, with its own hip yaw-pitch, reaches
// every reachable flat pose exactly.
func TestLegIKRoundTrip(t *testing.T) {
	g := NAOv6()
	for _, s := range []Side{Left, Right} {
		t.Run(s.String(), func(t *testing.T) {
			n, worstPos, worstYaw := 0, 0.0, 0.0
			grid(func(x, y, z, yaw float64) {
				p := FootPose{X: x, Y: s.Sign() * (g.HipOffsetY + y), Z: z, Yaw: yaw}
				a, ok := g.LegIK(s, p)
				if !ok {
					return
				}
				n++
				pos, dyaw, tilt := poseErr(g.FK(s, &a), p)
				worstPos, worstYaw = max(worstPos, pos), max(worstYaw, dyaw)
				if pos > posTol || dyaw > angTol || tilt > angTol {
					t.Errorf("%+v: position off by %.2g m, yaw by %.2g rad, tilt %.2g rad", p, pos, dyaw, tilt)
				}
			})
			if n < 800 {
				t.Fatalf("only %d reachable poses in the grid", n)
			}
			t.Logf("%d poses: worst position error %.2g m, yaw %.2g rad", n, worstPos, worstYaw)
		})
	}
}

// TestLegsIKSharedHipYawPitch: both legs with one hip yaw-pitch value. For
// any pair of feet, the legs reach both targets exactly once the torso is
// turned by the returned yaw; for pairs the NAO reaches with the torso
// unturned (made here by forward kinematics), that yaw is 0 and
// FK(LegsIK(p)) = p.
func TestLegsIKSharedHipYawPitch(t *testing.T) {
	g := NAOv6()
	tests := []struct {
		name string
		// pair makes the targets from grid values.
		pair func(x, y, z, yaw float64) (l, r FootPose)
		// reachable: the pair is made by FK, torsoYaw must be 0.
		reachable bool
	}{
		{"mirror stance", func(x, y, z, yaw float64) (FootPose, FootPose) {
			return FootPose{x, g.HipOffsetY + y, z, yaw}, FootPose{x, -g.HipOffsetY - y, z, -yaw}
		}, false},
		{"step: left ahead, right behind", func(x, y, z, yaw float64) (FootPose, FootPose) {
			return FootPose{x, g.HipOffsetY + y, z, yaw}, FootPose{-x / 2, -g.HipOffsetY + y/2, z + 0.02, -yaw / 2}
		}, false},
		{"common yaw", func(x, y, z, yaw float64) (FootPose, FootPose) {
			return FootPose{x, g.HipOffsetY + y, z, yaw + 0.2}, FootPose{x, -g.HipOffsetY, z, 0.2}
		}, false},
		{"reachable with the torso unturned", func(x, y, z, yaw float64) (FootPose, FootPose) {
			// Solve the legs for a shared hip yaw-pitch of yaw/2 and take
			// the poses forward kinematics gives.
			h := yaw / 2
			al, _ := g.LegIKWithHipYawPitch(Left, FootPose{x, g.HipOffsetY + y, z, 0}, h)
			ar, _ := g.LegIKWithHipYawPitch(Right, FootPose{-x, -g.HipOffsetY + y/2, z + 0.01, 0}, h)
			l, _ := Flat(g.FK(Left, &al))
			r, _ := Flat(g.FK(Right, &ar))
			return l, r
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, worstPos, worstYaw, worstTurn := 0, 0.0, 0.0, 0.0
			grid(func(x, y, z, yaw float64) {
				if y < 0 || math.Abs(yaw) > 0.3 {
					return // feet apart, turns a walk makes
				}
				l, r := tc.pair(x, y, z, yaw)
				legs, turnYaw, ok := g.LegsIK(l, r)
				if !ok {
					return
				}
				n++
				if legs[Left][HipYawPitch] != legs[Right][HipYawPitch] {
					t.Fatalf("hip yaw-pitch differs: %v vs %v", legs[Left][HipYawPitch], legs[Right][HipYawPitch])
				}
				lt, rt := turn(l, -turnYaw), turn(r, -turnYaw)
				if tc.reachable {
					worstTurn = max(worstTurn, math.Abs(turnYaw))
					if math.Abs(turnYaw) > angTol {
						t.Errorf("%+v %+v: torso turned by %.3g rad, want 0", l, r, turnYaw)
					}
					lt, rt = l, r
				}
				for s, want := range [2]FootPose{lt, rt} {
					pos, dyaw, tilt := poseErr(g.FK(Side(s), &legs[s]), want)
					worstPos, worstYaw = max(worstPos, pos), max(worstYaw, dyaw)
					if pos > posTol || dyaw > angTol || tilt > angTol {
						t.Errorf("%v foot %+v: position off by %.2g m, yaw by %.2g rad, tilt %.2g rad", Side(s), want, pos, dyaw, tilt)
					}
				}
			})
			if n < 200 {
				t.Fatalf("only %d reachable pairs", n)
			}
			t.Logf("%d pairs: worst position error %.2g m, yaw %.2g rad, torso turn %.2g rad", n, worstPos, worstYaw, worstTurn)
		})
	}
}

// TestLegsIKTorsoYaw: for a mirror stance the torso's yaw is the feet's mean
// yaw and each foot gets half the relative yaw.
func TestLegsIKTorsoYaw(t *testing.T) {
	g := NAOv6()
	// Turning a mirror stance about the torso axis keeps it a mirror
	// stance, so the split is exact.
	legs, ty, ok := g.LegsIK(turn(FootPose{0.02, 0.06, -0.29, 0.3}, 0.1), turn(FootPose{0.02, -0.06, -0.29, -0.3}, 0.1))
	if !ok {
		t.Fatal("unreachable")
	}
	if math.Abs(ty-0.1) > 1e-9 {
		t.Fatalf("torso yaw %v, want 0.1", ty)
	}
	f, _ := Flat(g.FK(Left, &legs[Left]))
	if math.Abs(f.Yaw-0.3) > 1e-9 {
		t.Fatalf("left yaw relative to the torso %v, want 0.3", f.Yaw)
	}
}

// TestLegsMirror: the right leg's solution is the left one's mirror image:
// same pitches and hip yaw-pitch, opposite rolls.
func TestLegsMirror(t *testing.T) {
	g := NAOv6()
	a, _ := g.LegIK(Left, FootPose{0.03, 0.07, -0.28, 0.2})
	b, _ := g.LegIK(Right, FootPose{0.03, -0.07, -0.28, -0.2})
	want := LegAngles{a[0], -a[1], a[2], a[3], a[4], -a[5]}
	for i := range b {
		if math.Abs(b[i]-want[i]) > 1e-12 {
			t.Fatalf("right %v, want the left's mirror %v", b, want)
		}
	}
}

// TestIKClampsGracefully: out-of-reach and non-finite targets never give
// NaN; out-of-reach feet go as far as the leg reaches towards the target.
func TestIKClampsGracefully(t *testing.T) {
	g := NAOv6()
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		name string
		p    FootPose
	}{
		{"far below", FootPose{0, 0.05, -1, 0}},
		{"far ahead", FootPose{1, 0.05, -0.2, 0}},
		{"on the hip", FootPose{0, 0.05, -0.085 - 0.04519, 0}},
		{"above the hip", FootPose{0, 0.05, 0.3, 0}},
		{"sideways and turned", FootPose{0, 0.5, -0.3, 3}},
		{"NaN", FootPose{nan, 0.05, -0.3, 0}},
		{"Inf", FootPose{0, 0.05, -inf, 0}},
		{"NaN yaw", FootPose{0, 0.05, -0.3, nan}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range []Side{Left, Right} {
				p := tc.p
				p.Y *= s.Sign()
				a, ok := g.LegIK(s, p)
				if ok {
					t.Errorf("%v: ok for an unreachable target", s)
				}
				b, _ := g.LegIKWithHipYawPitch(s, p, 0.1)
				legs, ty, _ := g.LegsIK(p, FootPose{0, -0.05, -0.3, 0})
				for _, v := range [...]float64{a[0], a[1], a[2], a[3], a[4], a[5], b[0], b[1], b[2], b[3], b[4], b[5], ty,
					legs[0][0], legs[0][1], legs[0][2], legs[0][3], legs[0][4], legs[0][5],
					legs[1][0], legs[1][1], legs[1][2], legs[1][3], legs[1][4], legs[1][5]} {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("%v: non-finite angle in %v %v %v", s, a, b, legs)
					}
				}
			}
		})
	}
	// Out of reach: the ankle ends on the line from the hip to the target,
	// at full reach.
	p := FootPose{0.5, 0.05, -0.5, 0}
	a, _ := g.LegIK(Left, p)
	f := g.Frames(Left, &a)
	hip, ankle := f.Thigh.P, f.Foot.P
	want := geom.Vec3{X: p.X, Y: p.Y, Z: p.Z + g.FootHeight}.Sub(hip)
	got := ankle.Sub(hip)
	if d := got.Norm(); math.Abs(d-g.Thigh-g.Tibia) > 1e-6 {
		t.Fatalf("reach %v, want %v", d, g.Thigh+g.Tibia)
	}
	if c := (got.X*want.X + got.Y*want.Y + got.Z*want.Z) / got.Norm() / want.Norm(); c < 1-1e-9 {
		t.Fatalf("ankle not towards the target: cos %v", c)
	}
}

// TestLegJointMapping: Put and LegsFrom agree with the hal table.
func TestLegJointMapping(t *testing.T) {
	var a [hal.NumJoints]hal.Radians
	legs := Legs{{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {0.1, -0.2, 0.33, 0.44, 0.55, -0.66}}
	legs.Put(&a)
	if a[hal.LHipYawPitch] != 0.1 || a[hal.RHipRoll] != -0.2 || a[hal.RAnkleRoll] != -0.66 || a[hal.LKneePitch] != 0.4 {
		t.Fatalf("Put: %v", a)
	}
	if got := LegsFrom(&a); got != legs {
		t.Fatalf("LegsFrom = %v, want %v", got, legs)
	}
}

// TestCoMStanding: standing symmetric, the centre of mass is in the middle,
// a little ahead of the ankles, and below the torso centre.
func TestCoMStanding(t *testing.T) {
	g := NAOv6()
	var a [hal.NumJoints]hal.Radians
	legs, _, _ := g.LegsIK(FootPose{0, 0.05, -0.3, 0}, FootPose{0, -0.05, -0.3, 0})
	legs.Put(&a)
	a[hal.LShoulderPitch], a[hal.RShoulderPitch] = math.Pi/2, math.Pi/2
	c := g.CoM(&a)
	if math.Abs(c.Y) > 1e-12 || c.X < -0.02 || c.X > 0.03 || c.Z > 0 || c.Z < -0.1 {
		t.Fatalf("CoM %v", c)
	}
	if m := g.Mass.Total(); m < 5 || m > 5.6 {
		t.Fatalf("mass %v", m)
	}
}

// TestCoMSimSparkZeroPose: on the SimSpark model at the zero pose (legs
// straight, arms forward) the mass model's centre of mass is the parts'
// (0.0163, 0, -0.0788) m of docs/simspark-nao-model.md, within 2 mm.
func TestCoMSimSparkZeroPose(t *testing.T) {
	m := body.SimSpark()
	g := For(&m)
	var a [hal.NumJoints]hal.Radians
	c := g.CoM(&a)
	if math.Abs(c.X-0.0163) > 0.002 || math.Abs(c.Y) > 1e-12 || math.Abs(c.Z+0.0788) > 0.002 {
		t.Fatalf("CoM %v, want (0.0163, 0, -0.0788)", c)
	}
	// The soles: 0.385 m below the torso centre, 0.03 m ahead of the ankles.
	legs := LegsFrom(&a)
	sole := g.FK(Left, &legs[Left])
	if math.Abs(sole.P.Z+0.385) > 1e-9 || math.Abs(sole.P.Y-0.055) > 1e-9 {
		t.Fatalf("left sole at %v", sole.P)
	}
}

func BenchmarkLegsIK(b *testing.B) {
	g := NAOv6()
	l, r := FootPose{0.04, 0.06, -0.3, 0.2}, FootPose{-0.03, -0.04, -0.29, -0.1}
	b.ReportAllocs()
	for b.Loop() {
		g.LegsIK(l, r)
	}
}

func BenchmarkLegsIKStraight(b *testing.B) {
	g := NAOv6()
	l, r := FootPose{0.04, 0.06, -0.3, 0}, FootPose{-0.03, -0.04, -0.29, 0}
	b.ReportAllocs()
	for b.Loop() {
		g.LegsIK(l, r)
	}
}
