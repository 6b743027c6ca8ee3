package simserver

import (
	"math"
	"strings"
	"testing"

	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/proto/simspark"
)

// jointAt returns agent i's reading of a joint (deg) in its last message.
func (s *sim) jointAt(i int, id simspark.JointID) float64 {
	s.t.Helper()
	for _, j := range s.perception(i).Joints {
		if j.ID == id {
			return j.Deg
		}
	}
	s.t.Fatalf("no %s in %s", id, s.last[i])
	return 0
}

// TestJointModel checks the joint integration measured on the fork, one
// behaviour per case: commands answering message k (here: replies after
// message k) show from message k+2.
func TestJointModel(t *testing.T) {
	type check struct {
		after int     // messages after the first command's message
		deg   float64 // expected reading
	}
	cases := []struct {
		name    string
		cycle   float64
		joint   simspark.JointID
		replies []string // replies after consecutive messages, from the first command on
		checks  []check
	}{
		{"delay two cycles, gain dt", 0.01, simspark.HJ1, []string{"(he1 1)"},
			[]check{{1, 0}, {2, 0.57}, {3, 1.15}}},
		{"velocity persists", 0.01, simspark.HJ1, []string{"(he1 1)", "", "", "", "(he1 0)"},
			[]check{{5, 2.29}, {6, 2.29}, {7, 2.29}, {20, 2.29}}},
		{"clamped at 351.77 deg/s", 0.01, simspark.HJ1, []string{"(he1 8)"},
			[]check{{2, 3.52}, {3, 7.03}}},
		{"20 ms cycle doubles the gain", 0.02, simspark.HJ1, []string{"(he1 1)"},
			[]check{{2, 1.15}, {3, 2.29}}},
		{"knee overshoots its stop once", 0.01, simspark.LLJ4,
			[]string{"(lle4 1)", "", "", "", "", "", "", "", "", "", "(lle4 0)"},
			[]check{{10, 5.16}, {11, 5.73}, {12, 5.16}, {20, 5.16}}},
		{"head pitch has no stop", 0.01, simspark.HJ2, []string{"(he2 5)", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "(he2 0)"},
			[]check{{31, 85.93}, {40, 85.93}}},
		{"elbow rolls rest at their stop", 0.01, simspark.LAJ4, []string{""},
			[]check{{1, -2}}},
		{"start after rest shows a cycle later", 0.01, simspark.HJ1,
			append(append([]string{"(he1 1)", "(he1 0)"}, make([]string, 12)...), "(he1 1)"),
			[]check{{2, 0.57}, {15, 0.57}, {16, 0.57}, {17, 1.15}}},
		{"one-cycle command after rest is lost", 0.01, simspark.HJ1,
			append(append([]string{"(he1 1)", "(he1 0)"}, make([]string, 12)...), "(he1 1)", "(he1 0)"),
			[]check{{16, 0.57}, {17, 0.57}, {25, 0.57}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSim(t, func(cfg *Config) { cfg.Cycle = cycleDuration(c.cycle) })
			s.add("T", 1, -2, 0, 0)
			s.step(40) // land and settle
			last := 0
			for _, ch := range c.checks {
				last = max(last, ch.after)
			}
			got := map[int]float64{}
			for m := 0; m <= last; m++ {
				if m < len(c.replies) && c.replies[m] != "" {
					s.act(0, c.replies[m])
				}
				s.step(1)
				got[m+1] = s.jointAt(0, c.joint)
			}
			for _, ch := range c.checks {
				if math.Abs(got[ch.after]-ch.deg) > 0.011 {
					t.Errorf("message k+%d: %s = %.2f, want %.2f", ch.after, c.joint, got[ch.after], ch.deg)
				}
			}
		})
	}
}

// TestBallRollsLikeTheFork: (ball (pos -1 0 0.05)(vel 2 0 0)) rolls 1.64 m
// and stops after about 2.6 s.
func TestBallRollsLikeTheFork(t *testing.T) {
	s := newSim(t, nil)
	v := geom.Vec3{X: 2, Y: 0, Z: 0}
	s.w.ball.set(geom.Vec3{X: -1, Y: 0, Z: 0.05}, &v)
	stop := 0.0
	for k := 1; k <= 500; k++ {
		s.step(1)
		if stop == 0 && s.w.ball.v.Norm() == 0 {
			stop = float64(k) * s.w.dt
		}
	}
	dist := s.w.ball.p.X + 1
	if math.Abs(dist-1.64) > 0.08 {
		t.Errorf("ball rolled %.3f m, want 1.64", dist)
	}
	if stop < 2.3 || stop > 2.9 {
		t.Errorf("ball stopped after %.2f s, want about 2.6", stop)
	}
	t.Logf("rolled %.3f m, stopped after %.2f s", dist, stop)
}

// TestStandingRobot: beamed and landed, the robot stands with its camera
// 0.54 m high, both feet loaded with its weight, ACC = +9.81 z.
func TestStandingRobot(t *testing.T) {
	s := newSim(t, nil)
	s.add("T", 1, -2, 0, 0)
	s.step(40)
	p := s.perception(0)
	if !p.HasSee() {
		s.step(1)
		p = s.perception(0)
	}
	if !p.HasSee() {
		s.step(1)
		p = s.perception(0)
	}
	if math.Abs(p.See.MyPos[2]-0.54) > 0.005 || math.Abs(p.See.MyPos[0]+2) > 1e-3 {
		t.Errorf("mypos %v, want (-2, 0, 0.54)", p.See.MyPos)
	}
	if p.ACC.V != [3]float64{0, 0, 9.81} || p.GYR.V != [3]float64{} {
		t.Errorf("GYR %v ACC %v, want 0 and (0, 0, 9.81)", p.GYR.V, p.ACC.V)
	}
	if len(p.FRP) != 2 {
		t.Fatalf("FRP %d feet, want 2", len(p.FRP))
	}
	if f := p.FRP[0].F[2] + p.FRP[1].F[2]; math.Abs(f-totalMass*gravity) > 0.1 {
		t.Errorf("feet carry %.2f N, want %.2f", f, totalMass*gravity)
	}
}

// seeObject finds a See object (or feature, by its first three values).
func seeObject(p *simspark.Perception, name string) (simspark.Polar, bool) {
	for _, o := range p.See.Objects {
		if p.Is(o.Name, name) {
			return o.Pol, true
		}
	}
	return simspark.Polar{}, false
}

// TestVisionGeometry checks noise-free See values against the field: goal
// posts, ball and features from (-2, 0) facing the opponent goal, and the
// 120° view cone.
func TestVisionGeometry(t *testing.T) {
	s := newSim(t, nil)
	s.add("T", 1, -2, 0, 0)
	s.step(40)
	for !s.perception(0).HasSee() {
		s.step(1)
	}
	p := s.perception(0)
	cam := geom.Vec3{X: p.See.MyPos[0], Y: p.See.MyPos[1], Z: p.See.MyPos[2]}
	polar := func(pos geom.Vec3) simspark.Polar {
		d := pos.Sub(cam)
		return simspark.Polar{d.Norm(), math.Atan2(d.Y, d.X) * deg, math.Atan2(d.Z, math.Hypot(d.X, d.Y)) * deg}
	}
	for _, c := range []struct {
		name string
		pos  geom.Vec3
	}{
		{"G1R", geom.Vec3{X: 4.5, Y: 0.8, Z: 0.8}}, {"G2R", geom.Vec3{X: 4.5, Y: -0.8, Z: 0.8}}, {"B", geom.Vec3{X: 0, Y: 0, Z: 0.05}},
	} {
		got, ok := seeObject(p, c.name)
		want := polar(c.pos)
		if !ok {
			t.Errorf("%s not seen", c.name)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 0.02 {
				t.Errorf("%s = %v, want %v", c.name, got, want)
				break
			}
		}
	}
	if _, ok := seeObject(p, "G1L"); ok {
		t.Errorf("sees the own goal behind it")
	}
	// The penalty-area corner (3.9, 1.1) with orientation -45.
	want := polar(geom.Vec3{X: 3.9, Y: 1.1, Z: 0})
	wantO := normDeg(math.Atan2(-(1.1-cam.Y), -(3.9-cam.X))*deg + 45)
	found := false
	for _, f := range p.See.Features {
		if p.Is(f.Name, "CNR") && math.Abs(f.V[1]-want[1]) < 0.02 {
			found = true
			if math.Abs(f.V[0]-want[0]) > 0.02 || math.Abs(f.V[2]-want[2]) > 0.02 || math.Abs(f.V[3]-wantO) > 0.02 {
				t.Errorf("CNR (3.9, 1.1) = %v, want %v %.2f", f.V, want, wantO)
			}
		}
	}
	if !found {
		t.Errorf("corner (3.9, 1.1) not seen")
	}
	// The view cone: a ball 58° to the left is seen, one 62° is not.
	for _, c := range []struct {
		deg  float64
		seen bool
	}{{58, true}, {62, false}, {-58, true}, {-62, false}} {
		a := c.deg * rad
		s.w.ball.set(geom.Vec3{X: cam.X + 2*math.Cos(a), Y: cam.Y + 2*math.Sin(a), Z: 0.05}, nil)
		s.step(3)
		_, ok := seeObject(s.perception(0), "B")
		if ok != c.seen {
			t.Errorf("ball at %v°: seen %v, want %v", c.deg, ok, c.seen)
		}
	}
}

// TestVisionNoise: distances are noisy by about 3 % of the distance, angles
// by about 3°, as on the fork.
func TestVisionNoise(t *testing.T) {
	s := newSim(t, func(c *Config) { c.NoVisionNoise = false })
	s.add("T", 1, -2, 0, 0)
	s.step(40)
	var d, h []float64
	for len(d) < 400 {
		s.step(1)
		if p := s.perception(0); p.HasSee() {
			if b, ok := seeObject(p, "B"); ok {
				d = append(d, b[0])
				h = append(h, b[1])
			}
		}
	}
	mean, sd := meanSD(d)
	_, sh := meanSD(h)
	if rel := sd / mean; rel < 0.022 || rel > 0.038 {
		t.Errorf("ball distance noise %.1f %%, want about 3 %%", 100*rel)
	}
	if sh < 2.5 || sh > 3.8 {
		t.Errorf("ball angle noise σ = %.2f°, want about 3.1°", sh)
	}
	if math.Abs(mean-2.059) > 0.02 {
		t.Errorf("mean ball distance %.3f, want about 2.059", mean)
	}
}

func meanSD(v []float64) (float64, float64) {
	var m, q float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		q += (x - m) * (x - m)
	}
	return m, math.Sqrt(q / float64(len(v)-1))
}

// TestTeamsMirrored: the first team to init plays left; a right-side
// team's beam, mypos, myorien, ballpos and hear directions are in its own
// (mirrored) frame; landmark names stay absolute.
func TestTeamsMirrored(t *testing.T) {
	s := newSim(t, nil)
	s.add("T", 1, -2, 0, 0)
	s.add("O", 1, -1, 0.6, 0)
	s.w.ball.set(geom.Vec3{X: 1.5, Y: 0.5, Z: 0.05}, nil)
	s.step(40)
	if s.agents[0].Team() != "Left" || s.agents[1].Team() != "Right" {
		t.Fatalf("sides %s, %s; want Left, Right", s.agents[0].Team(), s.agents[1].Team())
	}
	x, y, _, h := s.agents[1].Pose()
	if math.Abs(x-1) > 0.02 || math.Abs(y+0.6) > 0.02 || math.Abs(math.Abs(h)-180) > 0.5 {
		t.Errorf("right robot at (%.2f, %.2f) heading %.1f, want (1, -0.6) heading 180", x, y, h)
	}
	for !s.perception(1).HasSee() {
		s.step(1)
	}
	p := s.perception(1)
	if math.Abs(p.See.MyPos[0]+1) > 0.02 || math.Abs(p.See.MyPos[1]-0.6) > 0.02 || math.Abs(p.See.MyOrien) > 0.5 {
		t.Errorf("right robot: mypos %v myorien %.2f, want (-1, 0.6) and 0", p.See.MyPos, p.See.MyOrien)
	}
	if math.Abs(p.See.BallPos[0]+1.5) > 1e-6 || math.Abs(p.See.BallPos[1]+0.5) > 1e-6 {
		t.Errorf("right robot: ballpos %v, want (-1.5, -0.5)", p.See.BallPos)
	}
	if _, ok := seeObject(p, "G1L"); !ok {
		t.Errorf("right robot facing -x does not see G1L: %s", s.last[1])
	}
	if !strings.Contains(string(s.last[1]), "(P (team T) (id 1)") {
		t.Errorf("right robot does not see the left one: %s", s.last[1])
	}
	// hear: own message as self, the other's with its direction in the
	// listener's team frame.
	s.act(0, "(say ping.T)")
	s.step(1)
	if strings.Contains(string(s.last[0]), "hear") {
		t.Errorf("heard a message one cycle after saying it")
	}
	s.step(1)
	if !strings.Contains(string(s.last[0]), "(hear T 0.00 self ping.T)") {
		t.Errorf("speaker: %.200s", s.last[0])
	}
	if !strings.Contains(string(s.last[1]), "(hear T 0.00 -11.31 ping.T)") {
		t.Errorf("listener: %.200s", s.last[1])
	}
	s.act(1, "(say abcdefghijklmnopqrstu)") // 21 characters: dropped
	s.step(2)
	if strings.Contains(string(s.last[0]), "hear") || strings.Contains(string(s.last[1]), "hear") {
		t.Errorf("a message over 20 characters was heard")
	}
}

// TestBeamOnlyBeforeKickOff: beam works before kick-off, not in play.
func TestBeamOnlyBeforeKickOff(t *testing.T) {
	s := newSim(t, nil)
	s.add("T", 1, -2, 0, 0)
	s.step(30)
	s.w.game.setMode(pmPlayOn)
	s.act(0, "(beam -3 1 0)")
	s.step(30)
	if x, _, _, _ := s.agents[0].Pose(); math.Abs(x+2) > 0.05 {
		t.Errorf("beam in PlayOn moved the robot to x=%.2f", x)
	}
}

// finalACC runs a robot whose joints are driven by cmd until it lies and
// returns the time from the first command to lying and the final ACC.
func fallWith(t *testing.T, cmd string, cycles int) (float64, simspark.Vector, string) {
	s := newSim(t, nil)
	s.add("T", 1, -2, 0, 0)
	s.step(40)
	lying := 0.0
	for k := 0; k < 300; k++ {
		if k < cycles {
			s.act(0, cmd)
		} else if k == cycles {
			s.act(0, zeroCommand(map[string]float64{"lle5": 0, "rle5": 0, "lle6": 0, "rle6": 0}))
		}
		s.step(1)
		if lying == 0 && s.agents[0].State() == "lying" {
			lying = float64(k+1) * s.w.dt
		}
	}
	return lying, s.perception(0).ACC, s.agents[0].State()
}

// TestFalls: a robot leaning until its centre of mass leaves its feet
// falls over within about a second and lies at the angles of the
// recorded falls (imu_fall_* final ACC).
func TestFalls(t *testing.T) {
	for _, c := range []struct {
		name   string
		cmd    string
		cycles int
		acc    [3]float64
	}{
		{"forward", "(lle5 1)(rle5 1)", 40, [3]float64{0, -9.62, 1.92}},
		{"backward", "(lle5 -1)(rle5 -1)", 40, [3]float64{0, 9.81, 0.20}},
		{"left", "(lle6 1)(rle6 1)", 40, [3]float64{9.40, 0, 2.80}},
		{"right", "(lle6 -1)(rle6 -1)", 40, [3]float64{-9.47, 0, 2.82}},
	} {
		t.Run(c.name, func(t *testing.T) {
			at, acc, state := fallWith(t, c.cmd, c.cycles)
			if state != "lying" {
				t.Fatalf("state %s after the push, want lying", state)
			}
			if at > float64(c.cycles)*0.01+1.2 {
				t.Errorf("lying only %.2f s after the lean began", at)
			}
			for i := range acc.V {
				if math.Abs(acc.V[i]-c.acc[i]) > 0.6 {
					t.Errorf("final ACC %v, want about %v", acc.V, c.acc)
					break
				}
			}
			t.Logf("lying after %.2f s, ACC %v", at, acc.V)
		})
	}
}

// TestGetUp: a fallen robot stays down until a get-up crouches with the
// centre of mass over the feet; then it stands again. The trainer can also
// put it back on its feet.
func TestGetUp(t *testing.T) {
	s := newSim(t, nil)
	s.add("T", 1, -2, 0, 0)
	s.step(40)
	for k := 0; k < 40; k++ {
		s.act(0, "(lle5 -1)(rle5 -1)")
		s.step(1)
	}
	s.act(0, "(lle5 0)(rle5 0)")
	s.step(150)
	if st := s.agents[0].State(); st != "lying" {
		t.Fatalf("state %s, want lying", st)
	}
	s.step(100)
	if st := s.agents[0].State(); st != "lying" {
		t.Fatalf("got up by itself: %s", st)
	}
	// A stand-like crouch (ankles under the hips, knees bent 100°) does
	// not stand a lying robot up.
	h, k, a := legIK(0, 0.13)
	s.drive(0, map[string]float64{"lle3": h, "rle3": h, "lle4": k, "rle4": k, "lle5": a, "rle5": a}, 3)
	s.step(60)
	if st := s.agents[0].State(); st != "lying" {
		t.Fatalf("after a shallow crouch: %s, want lying", st)
	}
	// The back get-up's deep squat (NAO hips -80°, knees 121°, ankles
	// -55°; degrees, the simulator's signs inverted) does.
	hip, knee, ankle := 80.0, -121.0, 55.0
	s.drive(0, map[string]float64{"lle3": hip, "rle3": hip, "lle4": knee, "rle4": knee, "lle5": ankle, "rle5": ankle}, 3)
	s.step(60)
	if st := s.agents[0].State(); st != "standing" {
		t.Fatalf("after the get-up squat: %s, want standing", st)
	}
	// Standing up out of the squat onto flat feet, the torso upright.
	s.drive(0, map[string]float64{"lle3": h, "rle3": h, "lle4": k, "rle4": k, "lle5": a, "rle5": a}, 3)
	s.step(60)
	if st := s.agents[0].State(); st != "standing" {
		t.Fatalf("rising from the squat: %s, want standing", st)
	}
	if acc := s.perception(0).ACC.V; math.Abs(acc[2]-9.81) > 0.05 {
		t.Errorf("ACC %v after getting up, want (0, 0, 9.81)", acc)
	}
}

// TestWalkMovesTheBody: a quasi-static gait (shift the weight, lift, swing,
// put down) moves the robot forward: the body is carried by the supporting
// foot.
func TestWalkMovesTheBody(t *testing.T) {
	s := newSim(t, nil)
	s.add("T", 1, -2, 0, 0)
	s.step(30)
	// Hip-to-ankle heights as fractions of the straight leg.
	up, low := 0.936*legLength(), 0.788*legLength()
	const st, sh = 0.04, 15
	s.drive(0, gaitPose(0, up, 0, up, 0), 2)
	for k := 0; k < 2; k++ {
		b := st * float64(k)
		for _, p := range []map[string]float64{
			gaitPose(-b, up, b, up, sh), gaitPose(-b, low, b, up, sh), gaitPose(st, low, -st, up, sh), gaitPose(st, up, -st, up, sh),
			gaitPose(st, up, -st, up, -sh), gaitPose(st, up, -st, low, -sh), gaitPose(-st, up, st, low, -sh), gaitPose(-st, up, st, up, -sh),
		} {
			s.drive(0, p, 2)
		}
	}
	x, y, _, h := s.agents[0].Pose()
	if st := s.agents[0].State(); st != "standing" {
		t.Fatalf("state %s after walking", st)
	}
	if x < -1.8 || math.Abs(y) > 0.1 || math.Abs(h) > 5 {
		t.Errorf("after four steps at (%.2f, %.2f) heading %.1f; want at least 0.2 m ahead of -2", x, y, h)
	}
	t.Logf("four steps: x %.3f → %.3f", -2.0, x)
}

// TestKickMovesTheBall: a foot swung into the ball pushes it away.
func TestKickMovesTheBall(t *testing.T) {
	s := newSim(t, nil)
	s.add("T", 1, -2, 0, 0)
	s.step(30)
	up, low := 0.936*legLength(), 0.788*legLength()
	const sh = 15
	s.drive(0, gaitPose(0, up, 0, up, 0), 2)
	s.drive(0, gaitPose(0, up, 0, up, -sh), 2) // weight on the left foot
	s.drive(0, gaitPose(0, up, -0.05, low, -sh), 2)
	// The ball just ahead of the right foot.
	r := s.agents[0].r
	foot := r.world(r.kin.sole[0])
	s.w.ball.set(geom.Vec3{X: foot.X + soleHalfL + 0.08, Y: foot.Y, Z: BallRadius}, nil)
	s.step(5)
	x0 := s.w.ball.p.X
	s.maxV = MaxJointSpeed // a fast swing
	s.drive(0, gaitPose(0, up, 0.08, low, -sh), 1)
	s.step(100)
	if d := s.w.ball.p.X - x0; d < 0.2 {
		t.Errorf("ball moved %.2f m after the kick, want > 0.2", d)
	}
	if st := s.agents[0].State(); st != "standing" {
		t.Errorf("kicker %s", st)
	}
	t.Logf("ball moved %.2f m", s.w.ball.p.X-x0)
}

// TestFloatingBeforeInit: before init the robot hangs at (0, -1) with ACC 0
// and no FRP, as connect.txt shows.
func TestFloatingBeforeInit(t *testing.T) {
	s := newSim(t, nil)
	a := s.w.AddAgent()
	s.agents, s.last = append(s.agents, a), append(s.last, nil)
	s.step(1)
	p := s.perception(0)
	if p.ACC.V != [3]float64{} || len(p.FRP) != 0 || !p.HasSee() {
		t.Fatalf("before init: %s", s.last[0])
	}
	if math.Abs(p.See.MyPos[1]+1) > 1e-6 || math.Abs(p.See.MyPos[2]-1.65) > 1e-6 || math.Abs(p.See.MyOrien-90) > 1e-6 {
		t.Errorf("before init: mypos %v myorien %v, want (0, -1, 1.65) and 90", p.See.MyPos, p.See.MyOrien)
	}
	if strings.Contains(string(s.last[0]), "(P ") {
		t.Errorf("a robot without a team is seen as a player")
	}
}

// TestSpawnSlots: init puts each side's n-th agent where rcssserver3d's
// GameStateAspect::RequestInitPosition does (measured on the UNSW fork:
// agents 8, 9 and 10 of the left side at (-2.9, -1.4), (-2.9, -2.6) and
// (-2.1, 2.2); agents 70–74 at x 7.5, on the right side wall, agent 75 at
// (8.3, 2.2)), facing the opponent goal; slots are not reused after a
// disconnect. An agent that beams with its init is never at its slot.
func TestSpawnSlots(t *testing.T) {
	s := newSim(t, nil)
	want := map[int][2]float64{0: {-3.7, 2.2}, 4: {-3.7, -2.6}, 8: {-2.9, -1.4}, 9: {-2.9, -2.6}, 10: {-2.1, 2.2}, 70: {7.5, 2.2}, 74: {7.5, -2.6}, 75: {8.3, 2.2}}
	init := func(team string) *Agent {
		a := s.w.AddAgent()
		if err := s.w.Act(a, []byte("(init (unum 2)(teamname "+team+"))")); err != nil {
			t.Fatal(err)
		}
		s.w.Step() // a message is realised in the cycle after it came
		s.w.Step()
		return a
	}
	check := func(side string, n int, a *Agent, w [2]float64, heading float64) {
		t.Helper()
		if x, y, _, h := a.Pose(); math.Abs(x-w[0]) > 1e-9 || math.Abs(y-w[1]) > 1e-9 || math.Abs(math.Abs(h)-heading) > 1e-6 {
			t.Errorf("%s agent %d at (%.2f, %.2f) facing %.0f°, want (%.1f, %.1f) facing %.0f°", side, n, x, y, h, w[0], w[1], heading)
		}
	}
	// The first team to init gets the left side; both first agents stay
	// (a side whose agents all left is free for the next team).
	check("left", 0, init("L"), want[0], 0)
	check("right", 0, init("R"), [2]float64{3.7, 2.2}, 180)
	for n := 1; n <= 75; n++ {
		a := init("L")
		if w, ok := want[n]; ok {
			check("left", n, a, w, 0)
		}
		s.w.RemoveAgent(a)
	}
	b := s.w.AddAgent()
	if err := s.w.Act(b, []byte("(init (unum 3)(teamname L))(beam -2 3 0)")); err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		s.w.Step()
		if x, y, _, _ := b.Pose(); x > 8 && x < 9.5 {
			t.Errorf("an agent beamed with its init is at its spawn slot (%.2f, %.2f) in cycle %d", x, y, k+1)
		}
	}
	if x, y, _, _ := b.Pose(); math.Abs(x+2) > 1e-9 || math.Abs(y-3) > 1e-9 {
		t.Errorf("an agent beamed with its init is at (%.2f, %.2f), want (-2, 3)", x, y)
	}
}
