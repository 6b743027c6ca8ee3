package motion

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/motion/kinematics"
	"github.com/robotd/robotd/modules/motion/walk"
)

// kickPose is one key pose of the left kick in Cartesian terms, relative to
// the default stance: the torso's sideways shift and the kicking foot's
// offset from where it stands.
type kickPose struct {
	ms         float64
	shift      float64 // torso towards the support (right) foot, m
	dx, dy, dz float64 // kicking foot forward, inwards and up, m
	stiffness  float64
	smooth     bool // ease in and out: the weight shifts
	comment    string
}

// leftKick is how kick_left.kf was made: weight onto the right foot, lift
// the left, wind up, swing it forward fast, bring it back, put it down,
// weight back to both feet.
var leftKick = []kickPose{
	{ms: 500, shift: 0.06, comment: "weight onto the right foot", stiffness: 0.9, smooth: true},
	{ms: 300, shift: 0.06, dy: 0.025, dz: 0.03, comment: "lift the left foot"},
	{ms: 250, shift: 0.06, dx: -0.04, dy: 0.025, dz: 0.03, comment: "wind up", stiffness: 1},
	{ms: 100, shift: 0.06, dx: 0.10, dy: 0.025, dz: 0.03, comment: "kick"},
	{ms: 300, shift: 0.06, dy: 0.025, dz: 0.03, comment: "bring the foot back", stiffness: 0.9},
	{ms: 300, shift: 0.06, comment: "put it down"},
	{ms: 500, comment: "weight back onto both feet", smooth: true},
}

// kickFile renders leftKick through the IK into a keyframe file.
func kickFile(t *testing.T) []byte {
	g := kinematics.NAOv6()
	st := walk.DefaultStance()
	l0, r0 := st.Feet(&g)
	out := []byte("# kick_left.kf: a left-foot kick, made by TestGenerateActions from Cartesian\n" +
		"# key poses through the leg IK (default stance: hips 0.21 m above the soles).\n" +
		"# Format: see keyframe.go. Only leg joints are set; the rest hold the stand pose.\n")
	for _, p := range leftKick {
		l, r := l0, r0
		l.Y += p.shift
		r.Y += p.shift
		l.X += p.dx
		l.Y -= p.dy
		l.Z += p.dz
		legs, _, ok := g.LegsIK(l, r)
		if !ok {
			t.Fatalf("%s: unreachable", p.comment)
		}
		var a [hal.NumJoints]hal.Radians
		legs.Put(&a)
		f := Keyframe{Duration: time.Duration(p.ms * float64(time.Millisecond))}
		for s := range 2 {
			for i := range 6 {
				j := kinematics.Joint(kinematics.Side(s), i)
				f.Set |= 1 << j
				f.Angle[j] = hal.Radians(float64(int64(a[j].Degrees()*100+0.5*sign(a[j].Degrees())))/100) * hal.Deg(1)
			}
		}
		if p.stiffness > 0 {
			f.Stiffness, f.HasStiffness = p.stiffness, true
		}
		f.Smooth = p.smooth
		k := Keyframes{Name: p.comment, Frames: []Keyframe{f}}
		out = append(out, k.Format()...)
	}
	return out
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// TestGenerateActions rewrites the generated actions (the kicks) when
// MOTION_GENERATE=1; otherwise it checks that the shipped files are what
// the generator makes.
func TestGenerateActions(t *testing.T) {
	left := kickFile(t)
	k, err := ParseKeyframes("kick_left.kf", left)
	if err != nil {
		t.Fatal(err)
	}
	right := k.Mirror("kick_right.kf").Format()
	right = append([]byte("# kick_right.kf: kick_left.kf mirrored (TestGenerateActions).\n"), right...)
	if os.Getenv("MOTION_GENERATE") == "1" {
		for name, data := range map[string][]byte{"kick_left.kf": left, "kick_right.kf": right} {
			if err := os.WriteFile(filepath.Join("actions", name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for name, data := range map[string][]byte{"kick_left.kf": left, "kick_right.kf": right} {
		got, err := os.ReadFile(filepath.Join("actions", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(data) {
			t.Errorf("actions/%s differs from the generator's output; run MOTION_GENERATE=1 go test -run TestGenerateActions ./modules/motion/", name)
		}
	}
}
