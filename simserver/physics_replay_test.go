//go:build ode

package simserver

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// robotdTrace is one of testdata/physics/real_*.csv: robotd on the real
// server, per cycle.
type robotdTrace struct {
	rows []map[string]string
	// start are the perceived joint angles (rad) of the first row, in our
	// joint order.
	start [numJoints]float64
	// cmds[k] is the effector message answering row k ("" if none).
	cmds []string
}

func loadRobotdTrace(t *testing.T, name string) *robotdTrace {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "physics", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tr := &robotdTrace{}
	head := recs[0]
	for _, r := range recs[1:] {
		row := map[string]string{}
		var b strings.Builder
		for i, h := range head {
			row[h] = r[i]
			if e, ok := strings.CutSuffix(h, "_radps"); ok && r[i] != "" {
				b.WriteString("(" + e + " " + r[i] + ")")
			}
		}
		tr.rows = append(tr.rows, row)
		tr.cmds = append(tr.cmds, b.String())
	}
	tr.estimateStart(t)
	return tr
}

// estimateStart sets start from the readings (rounded to 0.01°) of the
// rows before the walk, each less the motion the commands before it made
// (a command answering row k shows from row k+2; at these speeds the motors
// follow exactly): their mean is the first row's angle to about 0.001°. The
// walk replay's fall depends on it: with the first row's readings alone
// (±0.005°) it fell 0.5 s early and to its right.
func (tr *robotdTrace) estimateStart(t *testing.T) {
	t.Helper()
	n := 1 // a trace that starts walking: its first reading only
	for n < len(tr.rows) && tr.rows[n]["phase"] == "stand" {
		n++
	}
	for j := range numJoints {
		name := joints[j].id.PerceptorName()
		eff := joints[j].id.EffectorName() + "_radps"
		moved, v, sum := 0.0, [2]float64{}, 0.0
		for k := 0; k < n; k++ {
			sum += tr.num(t, k, name+"_deg") - moved
			// The velocity in force from row k to k+1 was sent two rows before.
			moved += v[0] * 0.01 * deg
			v[0] = v[1]
			if c := tr.rows[k][eff]; c != "" {
				v[1] = tr.num(t, k, eff)
			}
		}
		tr.start[j] = sum / float64(n) * rad
	}
}

func (tr *robotdTrace) num(t *testing.T, k int, col string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(tr.rows[k][col], 64)
	if err != nil {
		t.Fatalf("row %d, %s: %v", k, col, err)
	}
	return v
}

// settle beams agent a to (x, y) facing +x and brings its joints to q with
// a proportional controller, as robotd's stand did before the trace began;
// it returns when every joint is within 0.02° and still.
func settle(t *testing.T, w *World, a *Agent, x, y float64, q *[numJoints]float64) {
	t.Helper()
	w.Step()
	mustAct(t, w, a, "(init (unum 1)(teamname robotd))")
	w.Step()
	mustAct(t, w, a, "(beam "+ftoa(x)+" "+ftoa(y)+" 0)")
	var b strings.Builder
	var q0 [numJoints]float64
	const move, hold = 200, 400 // cycles
	for c := 0; c < move+hold; c++ {
		w.Step()
		if c == 0 {
			q0 = a.r.q
		}
		b.Reset()
		worst := 0.0
		s := math.Min(1, float64(c)/move)
		s = s * s * (3 - 2*s)
		for j := range numJoints {
			target := q0[j] + (q[j]-q0[j])*s
			e := target - a.r.q[j]
			worst = max(worst, math.Abs(q[j]-a.r.q[j]))
			v := math.Max(-1, math.Min(1, 3*e))
			b.WriteString("(" + joints[j].id.EffectorName() + " " + strconv.FormatFloat(v, 'f', 5, 64) + ")")
		}
		if c > move && worst < 0.001*rad {
			b.Reset()
			for j := range numJoints {
				b.WriteString("(" + joints[j].id.EffectorName() + " 0)")
			}
			mustAct(t, w, a, b.String())
			w.Step()
			w.Step()
			return
		}
		mustAct(t, w, a, b.String())
	}
	t.Fatal("the joints did not settle on the trace's first angles")
}

// upright is the observer's rule of the traces: torso centre at least
// 0.25 m high and tilted at most 50°.
func upright(pos [3]float64, rot [9]float64) bool {
	return pos[2] >= 0.25 && math.Acos(math.Max(-1, math.Min(1, rot[8])))*deg <= 50
}

// leanDir is where the torso leans: 'F'orward, 'B'ackward, 'L'eft or
// 'R'ight of its own heading (build frame: y forward, x right).
func leanDir(rot [9]float64) byte {
	// The torso's up axis in the world, split along its forward and right
	// axes projected on the ground.
	up := [3]float64{rot[2], rot[5], rot[8]}
	fwd := [3]float64{rot[1], rot[4], 0}
	right := [3]float64{rot[0], rot[3], 0}
	f := up[0]*fwd[0] + up[1]*fwd[1]
	r := up[0]*right[0] + up[1]*right[1]
	switch {
	case math.Abs(f) >= math.Abs(r) && f > 0:
		return 'F'
	case math.Abs(f) >= math.Abs(r):
		return 'B'
	case r > 0:
		return 'R'
	}
	return 'L'
}

// realLean is the recorded torso's lean from its NAO-style Euler angles
// (pitch positive forward, roll positive right).
func realLean(pitch, roll float64) byte {
	switch {
	case math.Abs(pitch) >= math.Abs(roll) && pitch > 0:
		return 'F'
	case math.Abs(pitch) >= math.Abs(roll):
		return 'B'
	case roll > 0:
		return 'R'
	}
	return 'L'
}

// replayRobotd replays a robotd trace open-loop from its first row's
// joint angles: each row's velocities answer our message of that row. It
// returns our torso pose per row.
func replayRobotd(t *testing.T, tr *robotdTrace) (pos [][3]float64, rot [][9]float64) {
	t.Helper()
	w, err := NewWorld(odeConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	a := w.AddAgent()
	settle(t, w, a, tr.num(t, 0, "torso_x"), tr.num(t, 0, "torso_y"), &tr.start)
	for k := range tr.rows {
		w.Step()
		w.AppendPerception(nil, a)
		p, r, _ := w.TorsoPose(a)
		pos, rot = append(pos, p), append(rot, r)
		if tr.cmds[k] != "" {
			mustAct(t, w, a, tr.cmds[k])
		}
	}
	return pos, rot
}

// TestPhysicsWalkReplay: robotd's walk at 0.30 m/s on the real server
// (real_walk_030_until_fall.csv), replayed open-loop, falls the same way
// within 0.5 s of the real fall, and its torso follows the recorded one for
// the first 2 s of the walk within 5 cm.
func TestPhysicsWalkReplay(t *testing.T) {
	const (
		tolFall = 0.5  // s
		tolPos  = 0.05 // m, torso x/y over the first 2 s of walking
	)
	tr := loadRobotdTrace(t, "real_walk_030_until_fall.csv")
	pos, rot := replayRobotd(t, tr)
	walk, realFall, fall := -1, -1, -1
	for k := range tr.rows {
		if walk < 0 && tr.rows[k]["phase"] == "walk" {
			walk = k
		}
		if realFall < 0 && tr.rows[k]["obs_upright"] == "0" {
			realFall = k
		}
		if fall < 0 && !upright(pos[k], rot[k]) {
			fall = k
		}
	}
	if walk < 0 || realFall < 0 {
		t.Fatal("trace misread: no walk or no fall")
	}
	worst, worstAt := 0.0, 0
	for k := walk; k < walk+200; k++ {
		d := math.Hypot(pos[k][0]-tr.num(t, k, "torso_x"), pos[k][1]-tr.num(t, k, "torso_y"))
		if d > worst {
			worst, worstAt = d, k
		}
	}
	wantDir := realLean(tr.num(t, realFall, "torso_pitch_deg"), tr.num(t, realFall, "torso_roll_deg"))
	t.Logf("first 2 s of walking: worst torso distance %.3f m at %.2f s (tolerance %g m)", worst, float64(worstAt-walk)*0.01, tolPos)
	if fall < 0 {
		t.Fatalf("did not fall; the real robot fell %.2f s into the walk, leaning %c", float64(realFall-walk)*0.01, wantDir)
	}
	dir := leanDir(rot[fall])
	dt := math.Abs(float64(fall-realFall)) * 0.01
	t.Logf("fell %.2f s into the walk leaning %c; the real robot %.2f s, leaning %c: %.2f s apart (tolerance %g s)",
		float64(fall-walk)*0.01, dir, float64(realFall-walk)*0.01, wantDir, dt, tolFall)
	if dir != wantDir || dt > tolFall {
		t.Errorf("fall: %c after %.2f s, the real robot %c after %.2f s", dir, float64(fall-walk)*0.01, wantDir, float64(realFall-walk)*0.01)
	}
	if worst > tolPos {
		t.Errorf("torso %.3f m from the recorded one %.2f s into the walk", worst, float64(worstAt-walk)*0.01)
	}
}

// TestPhysicsGetUpReplay: robotd's get-up attempts after its walk fell on
// the real server (real_getup_after_walk_fall.csv), replayed open-loop: as
// on the real server, the robot ends on its back and never stands again
// (the observer's rule: torso centre at least 0.25 m high, tilt at most
// 50°), though it sits up now and then. The walk before the fall diverges
// (an open-loop replay of a closed-loop walk is chaotic), so the fall's time
// is not compared here.
func TestPhysicsGetUpReplay(t *testing.T) {
	tr := loadRobotdTrace(t, "real_getup_after_walk_fall.csv")
	pos, rot := replayRobotd(t, tr)
	outcome := func(up func(k int) bool, z func(k int) float64) (lay int, stood bool, maxZ float64) {
		lay = -1
		for k := range tr.rows {
			if lay < 0 && !up(k) {
				lay = k
			}
			if lay >= 0 {
				stood = stood || up(k)
				maxZ = max(maxZ, z(k))
			}
		}
		return lay, stood, maxZ
	}
	lay, stood, maxZ := outcome(func(k int) bool { return upright(pos[k], rot[k]) }, func(k int) float64 { return pos[k][2] })
	rLay, rStood, rMaxZ := outcome(func(k int) bool { return tr.rows[k]["obs_upright"] == "1" },
		func(k int) float64 { return tr.num(t, k, "torso_z") })
	// Where it lies: the lean most of the rows after the fall show.
	var ours, real [256]int
	for k := max(lay, rLay, 0); k < len(tr.rows); k++ {
		ours[leanDir(rot[k])]++
		real[realLean(tr.num(t, k, "torso_pitch_deg"), tr.num(t, k, "torso_roll_deg"))]++
	}
	most := func(c *[256]int) (byte, float64) {
		best, n := byte(0), 0
		for _, d := range []byte("FBLR") {
			if c[d] > n {
				best, n = d, c[d]
			}
		}
		return best, float64(n) / float64(c['F']+c['B']+c['L']+c['R'])
	}
	dir, share := most(&ours)
	rDir, rShare := most(&real)
	t.Logf("down at %.2f s (real %.2f s); stood again: %v (real %v); highest torso centre after that %.3f m (real %.3f m); lies %c %.0f %% of the time after (real %c %.0f %%)",
		float64(lay)*0.01, float64(rLay)*0.01, stood, rStood, maxZ, rMaxZ, dir, 100*share, rDir, 100*rShare)
	if lay < 0 || rLay < 0 {
		t.Fatalf("no fall: ours at %d, the real one at %d", lay, rLay)
	}
	if stood != rStood {
		t.Errorf("stood again: %v, on the real server %v", stood, rStood)
	}
	if dir != rDir {
		t.Errorf("lies %c, on the real server %c", dir, rDir)
	}
}
