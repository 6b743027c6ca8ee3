package motion

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/modules/motion/kinematics"
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
	// lArm and rArm, if not 0, are the shoulder pitches (degrees): the
	// arms swing against the kicking leg, so that the swing does not turn
	// the body about the support foot.
	lArm, rArm float64
	// ankle pitches the kicking foot's toes down (degrees) from flat: a
	// wind-up higher than a flat foot allows, or a toe that meets the ball.
	ankle float64
	// stretch asks for the foot beyond the leg's reach: the IK puts it as
	// far along that line as the leg goes (the leg straight).
	stretch bool
}

// leftKick is how the NAO v6's kick_left.kf was made: weight onto the
// right foot, lift the left, wind up, swing it forward fast, bring it back,
// put it down, weight back to both feet.
var leftKick = []kickPose{
	{ms: 500, shift: 0.06, comment: "weight onto the right foot", stiffness: 0.9, smooth: true},
	{ms: 300, shift: 0.06, dy: 0.025, dz: 0.03, comment: "lift the left foot"},
	{ms: 250, shift: 0.06, dx: -0.04, dy: 0.025, dz: 0.03, comment: "wind up", stiffness: 1},
	{ms: 100, shift: 0.06, dx: 0.10, dy: 0.025, dz: 0.03, comment: "kick"},
	{ms: 300, shift: 0.06, dy: 0.025, dz: 0.03, comment: "bring the foot back", stiffness: 0.9},
	{ms: 300, shift: 0.06, comment: "put it down"},
	{ms: 500, comment: "weight back onto both feet", smooth: true},
}

// leftKickSimSpark is the SimSpark NAO model's left kick: the same shape
// with a higher wind-up (toes pointed down, which a flat foot's ankle could
// not reach), a longer and faster swing low through the 5 cm ball, and the
// arms swinging against the kicking leg so that the swing does not turn the
// body about the support foot. The wind-up and kick poses are the best of a
// search on the UNSW rcssserver3d (sync mode, ball 0.2 m ahead, distance
// from the server's ground truth); the kick's distance there changes by
// tenths of a metre with millimetres of these poses.
var leftKickSimSpark = []kickPose{
	{ms: 500, shift: 0.0631, comment: "weight onto the right foot", stiffness: 0.9, smooth: true},
	{ms: 300, shift: 0.0631, dy: 0.025, dz: 0.03, comment: "lift the left foot"},
	{ms: 250, shift: 0.0631, dx: -0.0519, dy: 0.025, dz: 0.06, ankle: 21.3615, comment: "wind up", stiffness: 1, lArm: 50, rArm: 110},
	{ms: 98.8615, shift: 0.0631, dx: 0.2037, dy: 0.025, dz: 0.0375, ankle: 0.046, comment: "kick", lArm: 86.7948, rArm: 34.9954, stretch: true},
	{ms: 300, shift: 0.0631, dy: 0.025, dz: 0.03, comment: "bring the foot back", stiffness: 0.9, lArm: 83.08, rArm: 83.08},
	{ms: 300, shift: 0.0631, comment: "put it down"},
	{ms: 500, comment: "weight back onto both feet", smooth: true},
}

// kickFile renders a body's left kick through its leg IK into a keyframe
// file.
func kickFile(t *testing.T, k body.Kind) []byte {
	c := DefaultConfig()
	c.Body = k
	g := c.Geometry()
	st := c.BodyStance()
	poses := leftKick
	if k == body.SimSparkNAO {
		poses = leftKickSimSpark
	}
	l0, r0 := st.Feet(&g)
	out := []byte(fmt.Sprintf("# kick_left.kf (%v): a left-foot kick, made by TestGenerateActions from\n"+
		"# Cartesian key poses through the leg IK (stance: hips %.2f m above the soles).\n"+
		"# Format: see keyframe.go. Only leg joints are set; the rest hold the stand pose.\n", k, st.HipHeight))
	for _, p := range poses {
		l, r := l0, r0
		l.Y += p.shift
		r.Y += p.shift
		l.X += p.dx
		l.Y -= p.dy
		l.Z += p.dz
		legs, _, ok := g.LegsIK(l, r)
		if !ok && !p.stretch {
			t.Fatalf("%s: unreachable", p.comment)
		}
		var a [hal.NumJoints]hal.Radians
		legs[kinematics.Left][kinematics.AnklePitch] += p.ankle * math.Pi / 180
		legs.Put(&a)
		f := Keyframe{Duration: time.Duration(p.ms * float64(time.Millisecond))}
		for s := range 2 {
			for i := range 6 {
				j := kinematics.Joint(kinematics.Side(s), i)
				f.Set |= 1 << j
				f.Angle[j] = hal.Radians(float64(int64(a[j].Degrees()*100+0.5*sign(a[j].Degrees())))/100) * hal.Deg(1)
			}
		}
		for _, a := range []struct {
			j hal.Joint
			v float64
		}{{hal.LShoulderPitch, p.lArm}, {hal.RShoulderPitch, p.rArm}} {
			if a.v != 0 {
				f.Set |= 1 << a.j
				f.Angle[a.j] = hal.Deg(a.v)
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
	for _, b := range []body.Kind{body.NAOv6, body.SimSparkNAO} {
		dir := actionDir(b)
		left := kickFile(t, b)
		k, err := ParseKeyframes("kick_left.kf", left)
		if err != nil {
			t.Fatal(err)
		}
		right := k.Mirror("kick_right.kf").Format()
		right = append([]byte("# kick_right.kf: kick_left.kf mirrored (TestGenerateActions).\n"), right...)
		if os.Getenv("MOTION_GENERATE") == "1" {
			for name, data := range map[string][]byte{"kick_left.kf": left, "kick_right.kf": right} {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		for name, data := range map[string][]byte{"kick_left.kf": left, "kick_right.kf": right} {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(data) {
				t.Errorf("%s/%s differs from the generator's output; run MOTION_GENERATE=1 go test -run TestGenerateActions ./modules/motion/", dir, name)
			}
		}
	}
}
