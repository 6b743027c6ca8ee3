package motion

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/modules/motion/kinematics"
)

func TestParseKeyframes(t *testing.T) {
	tests := []struct {
		name, in string
		frames   int
		check    func(t *testing.T, k *Keyframes)
		err      string
	}{
		{"one frame", "100 HeadYaw=10", 1, func(t *testing.T, k *Keyframes) {
			f := k.Frames[0]
			if f.Duration != 100*time.Millisecond || !f.Set.Has(hal.HeadYaw) || f.Set.Has(hal.HeadPitch) || math.Abs(float64(f.Angle[hal.HeadYaw]-hal.Deg(10))) > 1e-12 || f.HasStiffness || f.Line != 1 {
				t.Fatalf("frame %+v", f)
			}
		}, ""},
		{"comments, blanks, decimals, stiffness, hands", "# a kick\n\n  12.5 LKneePitch=30.25 LHand=0.5 stiffness=0.8 # fast\n\t\n200\n", 2, func(t *testing.T, k *Keyframes) {
			f := k.Frames[0]
			if f.Duration != 12500*time.Microsecond || f.Angle[hal.LHand] != 0.5 || f.Stiffness != 0.8 || !f.HasStiffness || f.Line != 3 {
				t.Fatalf("frame %+v", f)
			}
			if k.Frames[1].Set != 0 || k.Frames[1].Line != 5 {
				t.Fatalf("second frame %+v", k.Frames[1])
			}
			if k.Duration() != 212500*time.Microsecond {
				t.Fatalf("duration %v", k.Duration())
			}
		}, ""},
		{"RHipYawPitch is LHipYawPitch", "10 RHipYawPitch=-20", 1, func(t *testing.T, k *Keyframes) {
			if !k.Frames[0].Set.Has(hal.LHipYawPitch) {
				t.Fatal("not set")
			}
		}, ""},
		{"CRLF line ends", "10 HeadYaw=1\r\n20 HeadYaw=2\r\n", 2, nil, ""},
		{"limit within slack", "10 LKneePitch=121.045", 1, nil, ""},
		{"empty", "", 0, nil, "x.kf:0: no keyframes"},
		{"only comments", "# nothing\n\n", 0, nil, "x.kf:2: no keyframes"},
		{"no duration", "HeadYaw=10", 0, nil, `x.kf:1: "HeadYaw=10": want a duration in milliseconds first`},
		{"zero duration", "# c\n0 HeadYaw=1", 0, nil, "x.kf:2: duration 0 ms: want more than 0 and at most 10000"},
		{"negative duration", "-5", 0, nil, "x.kf:1: duration -5 ms"},
		{"too long", "10001", 0, nil, "x.kf:1: duration 10001 ms"},
		{"NaN duration", "NaN HeadYaw=1", 0, nil, "want a duration"},
		{"hex duration", "0x10", 0, nil, "want a duration"},
		{"unknown joint", "10 HeadYaw=1\n10 LKnee=3", 0, nil, `x.kf:2: "LKnee=3": unknown joint "LKnee"`},
		{"not a number", "10 HeadYaw=ten", 0, nil, `x.kf:1: "HeadYaw=ten": "ten" is not a number`},
		{"infinite", "10 HeadYaw=Inf", 0, nil, "is not a number"},
		{"no value", "10 HeadYaw=", 0, nil, `want Joint=value`},
		{"no equals", "10 HeadYaw", 0, nil, `want Joint=value`},
		{"out of limits", "10\n10\n10 LKneePitch=130", 0, nil, `x.kf:3: "LKneePitch=130": outside the joint's limits [-5.29°, 121.04°]`},
		{"hand out of range", "10 RHand=2", 0, nil, "outside the hand's range"},
		{"joint twice", "10 HeadYaw=1 HeadYaw=2", 0, nil, "HeadYaw set twice"},
		{"alias twice", "10 LHipYawPitch=1 RHipYawPitch=1", 0, nil, "LHipYawPitch set twice"},
		{"stiffness out of range", "10 stiffness=1.5", 0, nil, "stiffness must be within 0..1"},
		{"stiffness twice", "10 stiffness=1 stiffness=0", 0, nil, "stiffness set twice"},
		{"action too long", strings.Repeat("10000\n", 7), 0, nil, "x.kf:7: the action lasts more than 1m0s"},
		{"too many frames", strings.Repeat("1\n", MaxKeyframes+1), 0, nil, "more than 1000 keyframes"},
		{"until_pitch and wait", "300 HeadYaw=1 until_pitch=65 wait=500\n10 until_pitch=-20", 2, func(t *testing.T, k *Keyframes) {
			f, g := k.Frames[0], k.Frames[1]
			if !f.HasUntil || math.Abs(f.UntilPitch.Degrees()-65) > 1e-9 || f.Wait != 500*time.Millisecond || f.Duration != 300*time.Millisecond {
				t.Fatalf("frame %+v", f)
			}
			if !g.HasUntil || math.Abs(g.UntilPitch.Degrees()+20) > 1e-9 || g.Wait != 0 {
				t.Fatalf("second frame %+v", g)
			}
		}, ""},
		{"wait without until_pitch", "10 wait=100", 0, nil, "x.kf:1: wait without until_pitch"},
		{"until_pitch beyond 90", "10 until_pitch=91", 0, nil, "within -90..90 degrees"},
		{"until_pitch twice", "10 until_pitch=1 until_pitch=2", 0, nil, "until_pitch set twice"},
		{"negative wait", "10 until_pitch=1 wait=-1", 0, nil, "wait is set once, 0..10000 ms"},
		{"wait too long", "10 until_pitch=1 wait=10001", 0, nil, "wait is set once"},
		{"until_pitch not a number", "10 until_pitch=NaN", 0, nil, "is not a number"},
		{"waits count towards the action", strings.Repeat("5000 until_pitch=1 wait=5000\n", 6) + "10", 0, nil, "x.kf:7: the action lasts more than 1m0s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParseKeyframes("x.kf", []byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(k.Frames) != tc.frames {
				t.Fatalf("%d frames, want %d", len(k.Frames), tc.frames)
			}
			if tc.check != nil {
				tc.check(t, k)
			}
		})
	}
}

// sameFrames compares two actions frame by frame, angles to within the
// format's 0.0001°.
func sameFrames(a, b *Keyframes) bool {
	if len(a.Frames) != len(b.Frames) {
		return false
	}
	for i := range a.Frames {
		f, g := &a.Frames[i], &b.Frames[i]
		if f.Duration != g.Duration || f.Set != g.Set || f.HasStiffness != g.HasStiffness || f.Stiffness != g.Stiffness ||
			f.HasUntil != g.HasUntil || f.Wait != g.Wait || math.Abs(float64(f.UntilPitch-g.UntilPitch)) > 1e-4*math.Pi/180 {
			return false
		}
		for j := range f.Angle {
			if math.Abs(float64(f.Angle[j]-g.Angle[j])) > 1e-4*math.Pi/180 {
				return false
			}
		}
	}
	return true
}

func TestFormatAndMirror(t *testing.T) {
	for _, name := range []string{"getup_front.kf", "getup_back.kf", "kick_left.kf", "kick_right.kf"} {
		k, err := Action(name)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseKeyframes(name, k.Format())
		if err != nil || !sameFrames(k, again) {
			t.Fatalf("%s: Format does not parse back to the same frames (%v)", name, err)
		}
		if m := k.Mirror("m").Mirror("mm"); !sameFrames(k, m) {
			t.Fatalf("%s: mirrored twice differs", name)
		}
	}
	l, _ := Action("kick_left.kf")
	r, _ := Action("kick_right.kf")
	if !sameFrames(l.Mirror("r"), r) {
		t.Fatal("kick_right.kf is not kick_left.kf mirrored")
	}
	m := l.Mirror("r").Frames[0]
	if m.Angle[hal.RHipRoll] != -l.Frames[0].Angle[hal.LHipRoll] || m.Angle[hal.RKneePitch] != l.Frames[0].Angle[hal.LKneePitch] {
		t.Fatal("mirror: rolls flip, pitches stay")
	}
}

// TestShippedActions: the embedded get-ups and kicks parse, every target is
// within its joint's limits, the get-ups finish within 10 s in the stand
// pose, and the kicks start and end in the stance.
func TestShippedActions(t *testing.T) {
	stand := DefaultConfig().StandPose
	tests := []struct {
		name       string
		maxLength  time.Duration
		endsInPose hal.JointSet
	}{
		{"getup_front.kf", 6 * time.Second, hal.AllJoints &^ (1<<hal.LWristYaw | 1<<hal.RWristYaw | 1<<hal.LHand | 1<<hal.RHand)},
		{"getup_back.kf", 6 * time.Second, hal.AllJoints &^ (1<<hal.LWristYaw | 1<<hal.RWristYaw | 1<<hal.LHand | 1<<hal.RHand)},
		{"kick_left.kf", 3 * time.Second, legJoints},
		{"kick_right.kf", 3 * time.Second, legJoints},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := Action(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if d := k.Duration(); d > tc.maxLength {
				t.Fatalf("lasts %v, want at most %v", d, tc.maxLength)
			}
			// Play it from the stand pose and look at every target.
			var p Player
			p.Reset(k, &stand, 1)
			var out hal.JointCommand
			for i := 0; !p.Step(0.01, &out); i++ {
				for j := range out.Angle {
					if a := out.Angle[j]; a < hal.Joints[j].Min || a > hal.Joints[j].Max || math.IsNaN(float64(a)) {
						t.Fatalf("tick %d: %s = %.3f outside [%.3f, %.3f]", i, hal.Joint(j), a, hal.Joints[j].Min, hal.Joints[j].Max)
					}
					if s := out.Stiffness[j]; s < 0 || s > 1 {
						t.Fatalf("stiffness %v", s)
					}
				}
			}
			for j := range hal.Joint(hal.NumJoints) {
				if tc.endsInPose.Has(j) && math.Abs(float64(out.Angle[j]-stand[j])) > hal.Deg(0.5).Degrees()*math.Pi/180 {
					t.Errorf("ends with %s at %.2f°, the stand pose has %.2f°", j, out.Angle[j].Degrees(), stand[j].Degrees())
				}
			}
		})
	}
}

var legJoints = func() hal.JointSet {
	var s hal.JointSet
	for j := hal.LHipYawPitch; j <= hal.RAnkleRoll; j++ {
		s |= 1 << j
	}
	return s
}()

// TestPlayer: linear interpolation from the start pose, unset joints hold,
// stiffness from the default until a keyframe sets it, done after the
// action's duration.
func TestPlayer(t *testing.T) {
	k, err := ParseKeyframes("t.kf", []byte("100 HeadYaw=10\n100 HeadPitch=-10 stiffness=0.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	var start [hal.NumJoints]hal.Radians
	start[hal.HeadYaw], start[hal.LKneePitch] = hal.Deg(-10), 1
	var p Player
	p.Reset(k, &start, 0.9)
	var out hal.JointCommand
	steps := 0
	for ; !p.Step(0.01, &out); steps++ {
		if steps == 4 { // 50 ms: halfway to the first frame
			if d := out.Angle[hal.HeadYaw].Degrees(); math.Abs(d) > 1e-9 || out.Stiffness[0] != 0.9 {
				t.Fatalf("at 50 ms HeadYaw %v° stiffness %v", d, out.Stiffness[0])
			}
		}
		if out.Angle[hal.LKneePitch] != 1 {
			t.Fatal("an unset joint moved")
		}
	}
	if steps != 19 || out.Angle[hal.HeadYaw] != hal.Deg(10) || math.Abs(out.Angle[hal.HeadPitch].Degrees()+10) > 1e-9 || out.Stiffness[5] != 0.5 {
		t.Fatalf("after %d steps: %v %v %v", steps, out.Angle[hal.HeadYaw].Degrees(), out.Angle[hal.HeadPitch].Degrees(), out.Stiffness[5])
	}
	if !p.Step(0.01, &out) || !p.Done() {
		t.Fatal("not done")
	}
}

// TestPlayerUntilPitch: a keyframe with until_pitch ends when the torso's
// pitch reaches it, early (the next keyframe starts from the pose reached)
// or after holding its pose for at most wait; without a pitch it lasts its
// duration.
func TestPlayerUntilPitch(t *testing.T) {
	k, err := ParseKeyframes("t.kf", []byte("100 HeadYaw=10 until_pitch=30 wait=50\n100 HeadPitch=10\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		pitch func(step int) (hal.Radians, bool)
		steps int     // steps until done
		yaw   float64 // HeadYaw (degrees) at the end
	}{
		{"no pitch: the durations", func(int) (hal.Radians, bool) { return 0, false }, 19, 10},
		{"reached at once", func(int) (hal.Radians, bool) { return hal.Deg(31), true }, 10, 1},
		{"reached halfway", func(i int) (hal.Radians, bool) { return hal.Deg(float64(i) * 10), true }, 13, 4},
		{"reached while holding", func(i int) (hal.Radians, bool) { return hal.Deg(float64(i) * 2.5), true }, 22, 10},
		{"never reached: wait, then on", func(int) (hal.Radians, bool) { return hal.Deg(29), true }, 24, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var start [hal.NumJoints]hal.Radians
			var p Player
			p.Reset(k, &start, 1)
			var out hal.JointCommand
			steps := 0
			for {
				p.SetPitch(tc.pitch(steps))
				if p.Step(0.01, &out) {
					break
				}
				if steps++; steps > 100 {
					t.Fatal("not done after 100 steps")
				}
			}
			if steps != tc.steps || math.Abs(out.Angle[hal.HeadYaw].Degrees()-tc.yaw) > 1e-6 || math.Abs(out.Angle[hal.HeadPitch].Degrees()-10) > 1e-6 {
				t.Fatalf("done after %d steps with HeadYaw %.3f°, HeadPitch %.3f°; want %d steps, HeadYaw %g°, HeadPitch 10°",
					steps, out.Angle[hal.HeadYaw].Degrees(), out.Angle[hal.HeadPitch].Degrees(), tc.steps, tc.yaw)
			}
		})
	}
	// A negative until_pitch is reached from above: a backward lean.
	back, err := ParseKeyframes("b.kf", []byte("100 HeadYaw=10 until_pitch=-30\n"))
	if err != nil {
		t.Fatal(err)
	}
	var start [hal.NumJoints]hal.Radians
	var p Player
	p.Reset(back, &start, 1)
	var out hal.JointCommand
	p.SetPitch(hal.Deg(-29), true)
	if p.Step(0.01, &out) {
		t.Fatal("-29° ended a keyframe waiting for -30°")
	}
	p.SetPitch(hal.Deg(-31), true)
	if !p.Step(0.01, &out) {
		t.Fatal("-31° did not end a keyframe waiting for -30°")
	}
}

// kickRun is a kick played from the stand pose: the kicking sole's path
// relative to the support sole, from the commanded legs' forward
// kinematics.
type kickRun struct {
	lift  float64 // highest kicking sole, relative to the support sole
	speed float64 // fastest kicking sole (commanded), m/s
	dir   float64 // its direction relative to the support foot
}

func playKick(t *testing.T, foot kinematics.Side, dir float64) kickRun {
	t.Helper()
	cfg := DefaultConfig()
	name := "kick_left.kf"
	if foot == kinematics.Right {
		name = "kick_right.kf"
	}
	kf, err := Action(name)
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Geometry()
	stand := cfg.StandPose
	var k kick
	k.geom = g
	k.Reset(kf, foot, dir, &stand, 1)
	var out hal.JointCommand
	var run kickRun
	var prev geom.Pose3
	supportSide := foot.Other()
	for i := 0; ; i++ {
		done := k.Step(0.01, &out)
		legs := kinematics.LegsFrom(&out.Angle)
		rel := g.FK(supportSide, &legs[supportSide]).Inv().Mul(g.FK(foot, &legs[foot]))
		run.lift = max(run.lift, rel.P.Z)
		if i > 0 {
			v := rel.P.Sub(prev.P).Scale(100)
			if s := math.Hypot(v.X, v.Y); s > run.speed {
				run.speed, run.dir = s, math.Atan2(v.Y, v.X)
			}
		}
		prev = rel
		if done || i > 1000 {
			break
		}
	}
	return run
}

// TestKickSwings: both kicks, straight and turned, lift the kicking foot
// and swing it forward fast in the requested direction. (Whether the robot
// stays up and where the ball goes is the physics-mode scenario's,
// TestKick.)
func TestKickSwings(t *testing.T) {
	for _, foot := range []kinematics.Side{kinematics.Left, kinematics.Right} {
		for _, dir := range []float64{0, 0.4, -0.4} {
			r := playKick(t, foot, dir)
			if r.lift < 0.025 || r.speed < 1.0 {
				t.Errorf("%v kick towards %.1f: foot lifted %.3f m, fastest %.2f m/s", foot, dir, r.lift, r.speed)
			}
			if math.Abs(geom.WrapAngle(r.dir-dir)) > 0.05 {
				t.Errorf("%v kick towards %.1f: foot moves fastest towards %.3f", foot, dir, r.dir)
			}
			t.Logf("%v kick towards %+.1f: lift %.3f m, foot speed %.2f m/s towards %+.3f", foot, dir, r.lift, r.speed, r.dir)
		}
	}
}

// FuzzKeyframes: the parser never panics, and whatever it accepts is within
// the format's limits and survives Format and a second parse.
func FuzzKeyframes(f *testing.F) {
	for _, name := range []string{"getup_front.kf", "getup_back.kf", "kick_left.kf"} {
		data, err := actions.ReadFile("actions/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("10 HeadYaw=1e1 stiffness=0"))
	f.Add([]byte("10 HeadYaw=1 until_pitch=-45.5 wait=2.5"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseKeyframes("f.kf", data)
		if err != nil {
			if k != nil {
				t.Fatal("error with a result")
			}
			if !strings.HasPrefix(err.Error(), "f.kf:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(k.Frames) == 0 || len(k.Frames) > MaxKeyframes || k.Duration() > MaxKeyframesDuration {
			t.Fatalf("%d frames, %v", len(k.Frames), k.Duration())
		}
		for _, fr := range k.Frames {
			if fr.Duration <= 0 || fr.Duration > MaxKeyframeDuration || fr.Stiffness < 0 || fr.Stiffness > 1 {
				t.Fatalf("frame %+v", fr)
			}
			for j := range fr.Angle {
				a := fr.Angle[j]
				if set := fr.Set.Has(hal.Joint(j)); math.IsNaN(float64(a)) || set && (a < hal.Joints[j].Min || a > hal.Joints[j].Max) || !set && a != 0 {
					t.Fatalf("%s = %v", hal.Joint(j), a)
				}
			}
		}
		again, err := ParseKeyframes("f.kf", k.Format())
		if err != nil {
			t.Fatalf("formatted action does not parse: %v\n%s", err, k.Format())
		}
		if !sameFrames(k, again) {
			t.Fatalf("formatted action parses differently:\n%s", k.Format())
		}
	})
}
