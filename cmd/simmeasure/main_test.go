package main

import (
	"context"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/simrun"
)

// TestParseArgsAgainst: -against takes 0 (no second robot) or a distance
// within minAgainst to maxAgainst; -getup names only the four falls.
func TestParseArgsAgainst(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		against float64
		getups  []string
		wantErr string
	}{
		{args: nil, against: 0, getups: []string{"front", "back"}},
		{args: []string{"-against", "0.3", "-getup", "front,back,left,right"}, against: 0.3, getups: []string{"front", "back", "left", "right"}},
		{args: []string{"-against", "0.15", "-getup", " left "}, against: 0.15, getups: []string{"left"}},
		{args: []string{"-against", "0.6"}, against: 0.6, getups: []string{"front", "back"}},
		{args: []string{"-against", "0"}, against: 0, getups: []string{"front", "back"}},
		{args: []string{"-against", "0.1"}, wantErr: "-against"},
		{args: []string{"-against", "0.61"}, wantErr: "-against"},
		{args: []string{"-against", "-0.3"}, wantErr: "-against"},
		{args: []string{"-against", "NaN"}, wantErr: "-against"},
		{args: []string{"-against", "x"}, wantErr: "invalid value"},
		{args: []string{"-getup", "front-against"}, wantErr: "-getup"},
		{args: []string{"-getup", "front,"}, wantErr: "-getup"},
		{args: []string{"-against", "0.3", "stray"}, wantErr: "unexpected arguments"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			o, err := parseArgs(tc.args, io.Discard, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v; want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.against != tc.against {
				t.Errorf("against %v; want %v", o.against, tc.against)
			}
			if len(o.getups) != len(tc.getups) {
				t.Errorf("getups %v; want %v", o.getups, tc.getups)
			}
			for _, g := range tc.getups {
				if !o.getups[g] {
					t.Errorf("getups %v lack %q", o.getups, g)
				}
			}
		})
	}
}

// FuzzParseArgs: whatever -against and -getup say, parseArgs either fails
// or returns a distance that is 0 or within bounds and only known falls.
func FuzzParseArgs(f *testing.F) {
	f.Add("0.3", "front,back,left,right")
	f.Add("0", "left")
	f.Add("1e-9", "front,,back")
	f.Add("+Inf", "right")
	f.Fuzz(func(t *testing.T, against, getup string) {
		o, err := parseArgs([]string{"-against", against, "-getup", getup}, io.Discard, io.Discard)
		if err != nil {
			return
		}
		if a := o.against; a != 0 && !(a >= minAgainst && a <= maxAgainst) {
			t.Fatalf("-against %q accepted as %v", against, a)
		}
		if len(o.getups) == 0 {
			t.Fatalf("-getup %q accepted as no get-up", getup)
		}
		for g := range o.getups {
			if _, ok := simrun.FallByName(g); !ok {
				t.Fatalf("-getup %q accepted %q", getup, g)
			}
		}
	})
}

// TestMateBeam: the standing robot stands the asked distance from the
// falling one in the direction of its fall, give or take the sideways
// shift, and turns a different side towards it from run to run.
func TestMateBeam(t *testing.T) {
	b := sim.Beam{X: -1, Y: 1, Deg: 30}
	const dist = 0.3
	for _, tc := range []struct {
		f   simrun.Fall
		dir float64 // degrees
	}{{simrun.FallFront, 30}, {simrun.FallBack, 210}, {simrun.FallLeft, 120}, {simrun.FallRight, -60}} {
		t.Run(tc.f.String(), func(t *testing.T) {
			if d := math.Remainder(fallDirection(tc.f, b.Deg)-tc.dir, 360); math.Abs(d) > 1e-9 {
				t.Fatalf("fall direction %v°; want %v°", fallDirection(tc.f, b.Deg), tc.dir)
			}
			r := tc.dir * math.Pi / 180
			faces := map[float64]bool{}
			for i := range 8 {
				m := mateBeam(b, tc.f, dist, i)
				dx, dy := m.X-b.X, m.Y-b.Y
				along := dx*math.Cos(r) + dy*math.Sin(r)
				across := -dx*math.Sin(r) + dy*math.Cos(r)
				if math.Abs(along-dist) > 1e-9 || math.Abs(across-mateShifts[i%len(mateShifts)]) > 1e-9 {
					t.Errorf("run %d: %.3f m along the fall and %.3f m across; want %v and %v", i, along, across, dist, mateShifts[i%len(mateShifts)])
				}
				if m.Deg <= -180 || m.Deg > 180 {
					t.Errorf("run %d: heading %v° outside (-180, 180]", i, m.Deg)
				}
				// Where the falling robot is, seen from the standing one:
				// ahead (0°), on its right (-90°), behind, on its left.
				toFaller := math.Atan2(-dy, -dx)*180/math.Pi - m.Deg
				want := -90 * float64(i%4)
				if d := math.Remainder(toFaller-want, 360); math.Abs(d) > 15 {
					t.Errorf("run %d: the falling robot is at %.1f° from the standing one's front; want about %v°", i, math.Remainder(toFaller, 360), want)
				}
				faces[math.Mod(math.Mod(math.Round(toFaller/90), 4)+4, 4)] = true
			}
			if len(faces) != 4 {
				t.Errorf("the standing robot turned %d different sides towards the falling one in 8 runs; want 4", len(faces))
			}
		})
	}
}

// TestMateAfter: the standing robot has fallen when its head (ground
// truth) went below a standing robot's height from the given time on (1 s
// here); samples before then (being placed) and invalid ones do not count.
func TestMateAfter(t *testing.T) {
	at := func(sec, x, head float64, valid bool) sample {
		var s sample
		s.t = time.Duration(sec * float64(time.Second))
		s.gt = hal.GroundTruth{Valid: valid, Pose: hal.Pose2{X: hal.Metres(x)}, HeadHeight: hal.Metres(head)}
		return s
	}
	for _, tc := range []struct {
		name     string
		samples  []sample
		fell     bool
		pushed   float64
		lowestAt float64
	}{
		{"stood", []sample{at(0, 5, 0.1, true), at(1, 0, 0.5, true), at(5, 0.02, 0.49, true)}, false, 0.02, 0.49},
		{"fell", []sample{at(1, 0, 0.5, true), at(3, 0.2, 0.3, true), at(4, 0.4, 0.06, true), at(5, 0.1, 0.5, true)}, true, 0.4, 0.06},
		{"invalid low sample", []sample{at(1, 0, 0.5, true), at(3, 9, 0, false), at(4, 0, 0.5, true)}, false, 0, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mateAfter(tc.samples, time.Second)
			if tc.fell && m.fellAt != 3*time.Second {
				t.Errorf("fell at %v; want 3s", m.fellAt)
			}
			if m.fell != tc.fell || math.Abs(m.pushed-tc.pushed) > 1e-6 || math.Abs(m.lowest-tc.lowestAt) > 1e-6 {
				t.Errorf("got %+v; want fell %v, pushed %v, lowest %v", m, tc.fell, tc.pushed, tc.lowestAt)
			}
		})
	}
}

// TestMatePlacedOnServer: on the embedded simulator (kinematic mode, or
// the server ROBOTD_SIMSPARK names) the standing robot joins stageDistance
// away from its place, and once placeMate has moved it stands, by the
// server's ground truth, where mateBeam says, and the measured robot where
// getUpBeam did: 0.3 m apart in the direction of a fall to the left (0.06
// m across it), both upright.
func TestMatePlacedOnServer(t *testing.T) {
	defer leaktest.Check(t)()
	o, err := parseArgs([]string{"-against", "0.3"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	mb := mateBeam(getUpBeam, simrun.FallLeft, o.against, 1)
	o.mate = &mb
	ss, err := o.start(context.Background(), getUpBeam, func(time.Duration, *sample) msg.MotionRequest {
		return msg.MotionRequest{Kind: msg.MotionStand}
	})
	if err != nil {
		t.Fatal(err)
	}
	if ss.mate == nil {
		ss.close()
		t.Fatal("no standing robot started")
	}
	stage, _ := ss.mate.Truth()
	if d := math.Hypot(float64(stage.Pose.X)-mb.X, float64(stage.Pose.Y)-mb.Y); !stage.Valid || d < stageDistance-0.05 {
		t.Errorf("the standing robot joined %.2f m from its place (valid %v); want about %v m", d, stage.Valid, stageDistance)
	}
	werr := ss.placeMate(context.Background(), mb)
	if werr == nil {
		werr = ss.wait(context.Background(), time.Second)
	}
	me, mate := ss.s.last(), ss.ms.last()
	if err := ss.close(); err != nil {
		t.Error(err)
	}
	if werr != nil {
		t.Fatal(werr)
	}
	for _, c := range []struct {
		who  string
		s    sample
		want sim.Beam
	}{{"measured robot", me, getUpBeam}, {"standing robot", mate, mb}} {
		p := c.s.gt.Pose
		t.Logf("%s at (%.3f, %.3f) facing %.1f°, head %.2f m", c.who, p.X, p.Y, float64(p.Heading)*180/math.Pi, c.s.gt.HeadHeight)
		if !c.s.gt.Valid || math.Hypot(float64(p.X)-c.want.X, float64(p.Y)-c.want.Y) > 0.05 || c.s.gt.HeadHeight < simrun.StandingHead {
			t.Errorf("%s at (%.3f, %.3f), head %.2f m (valid %v); want standing at (%.3f, %.3f)", c.who, p.X, p.Y, c.s.gt.HeadHeight, c.s.gt.Valid, c.want.X, c.want.Y)
		}
		if d := math.Remainder(float64(p.Heading)*180/math.Pi-c.want.Deg, 360); math.Abs(d) > 5 {
			t.Errorf("%s faces %.1f°; want %.1f°", c.who, float64(p.Heading)*180/math.Pi, c.want.Deg)
		}
	}
	if d := math.Hypot(float64(mate.gt.Pose.X-me.gt.Pose.X), float64(mate.gt.Pose.Y-me.gt.Pose.Y)); math.Abs(d-math.Hypot(0.3, mateShifts[1])) > 0.05 {
		t.Errorf("the robots stand %.3f m apart; want %.3f m", d, math.Hypot(0.3, mateShifts[1]))
	}
}

// TestStageBeam: the standing robot joins stageDistance beyond its place,
// on the line from the measured robot, facing as it will stand; for a
// place on the measured robot itself, along +x.
func TestStageBeam(t *testing.T) {
	b := sim.Beam{X: -1, Y: 1, Deg: 30}
	for _, f := range getUpFalls {
		for i := range 4 {
			m := mateBeam(b, f, 0.3, i)
			s := stageBeam(b, m)
			if d := math.Hypot(s.X-b.X, s.Y-b.Y); math.Abs(d-(math.Hypot(m.X-b.X, m.Y-b.Y)+stageDistance)) > 1e-9 {
				t.Errorf("%v run %d: joins %.3f m from the measured robot; want its place's distance + %v m", f, i, d, stageDistance)
			}
			if d := math.Hypot(s.X-m.X, s.Y-m.Y); math.Abs(d-stageDistance) > 1e-9 || s.Deg != m.Deg {
				t.Errorf("%v run %d: joins at %+v for %+v", f, i, s, m)
			}
			if math.Abs(s.X) > 4.5 || math.Abs(s.Y) > 3 {
				t.Errorf("%v run %d: joins off the field at %+v", f, i, s)
			}
		}
	}
	if s := stageBeam(b, b); s.X != b.X+stageDistance || s.Y != b.Y {
		t.Errorf("a place on the measured robot: joins at %+v", s)
	}
}

// TestParseArgsWhat: -what takes only the measurements' names.
func TestParseArgsWhat(t *testing.T) {
	for _, tc := range []struct {
		what    string
		want    []string
		wantErr bool
	}{
		{what: "turn", want: []string{"turn"}},
		{what: " walk , turn ", want: []string{"walk", "turn"}},
		{what: "walk,side,turn,getup,kick,head", want: measurements},
		{what: "turns", wantErr: true},
		{what: "walk,", wantErr: true},
		{what: "", wantErr: true},
	} {
		t.Run(tc.what, func(t *testing.T) {
			o, err := parseArgs([]string{"-what", tc.what}, io.Discard, io.Discard)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "-what") {
					t.Fatalf("error %v; want one naming -what", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(o.what) != len(tc.want) {
				t.Errorf("what %v; want %v", o.what, tc.want)
			}
			for _, w := range tc.want {
				if !o.what[w] {
					t.Errorf("what %v lacks %q", o.what, w)
				}
			}
		})
	}
}

// TestTurnSince: the heading change is unwrapped across ±180°, read at
// the first sample at or after each mark, and the onset is the first
// sample that has turned the onset angle either way.
func TestTurnSince(t *testing.T) {
	ramp := func(start, degPerTick float64, n int) []sample {
		out := make([]sample, n)
		for i := range out {
			h := math.Remainder((start+degPerTick*float64(i))*math.Pi/180, 2*math.Pi)
			out[i] = sample{t: 5*time.Second + time.Duration(i)*10*time.Millisecond}
			out[i].gt.Valid = true
			out[i].gt.Pose.Heading = hal.Radians(h)
		}
		return out
	}
	marks := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 10 * time.Second}
	for _, tc := range []struct {
		name    string
		data    []sample
		want    []float64 // NaN: never reached
		onsetAt time.Duration
		ok      bool
	}{
		{name: "left across 180°", data: ramp(170, 1.5, 30), want: []float64{7.5, 15, math.NaN()}, onsetAt: 40 * time.Millisecond, ok: true},
		{name: "right across -180°", data: ramp(-175, -2, 30), want: []float64{-10, -20, math.NaN()}, onsetAt: 30 * time.Millisecond, ok: true},
		{name: "no turn", data: ramp(90, 0, 30), want: []float64{0, 0, math.NaN()}, onsetAt: -1, ok: true},
		{name: "no samples", data: nil, want: []float64{math.NaN(), math.NaN(), math.NaN()}, onsetAt: -1, ok: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, on, ok := turnSince(tc.data, marks, 5)
			if ok != tc.ok || on != tc.onsetAt {
				t.Errorf("onset %v, ok %v; want %v, %v", on, ok, tc.onsetAt, tc.ok)
			}
			for i := range marks {
				if w := tc.want[i]; math.IsNaN(w) != math.IsNaN(at[i]) || !math.IsNaN(w) && math.Abs(at[i]-w) > 1e-6 {
					t.Errorf("at %v: %v°; want %v°", marks[i], at[i], w)
				}
			}
		})
	}
	bad := ramp(0, 1, 5)
	bad[3].gt.Valid = false
	if _, _, ok := turnSince(bad, marks, 5); ok {
		t.Error("a sample without ground truth was not reported")
	}
}

// TestTurnOnset: on the simulator (the embedded one, or the server
// ROBOTD_SIMSPARK names) a walking robot asked to turn turns the asked
// way, upright, and its summary has a row per case.
func TestTurnOnset(t *testing.T) {
	defer leaktest.Check(t)()
	o, err := parseArgs([]string{"-what", "turn", "-runs", "1"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	o.out = &out
	if err := turnOnset(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	for _, c := range []struct {
		name string
		sign float64
	}{{"walk, turn left", 1}, {"walk, turn right", -1}, {"stop, turn left", 1}, {"stop, turn right", -1}} {
		var row string
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "| "+c.name+" |") {
				row = l
			}
		}
		f := strings.Split(row, "|")
		if len(f) != len(turnMarks)+4 {
			t.Errorf("%s: summary row %q; want %d columns", c.name, row, len(turnMarks)+2)
			continue
		}
		// The column of the last mark (2 s): at least 30° the asked way.
		last := strings.TrimSuffix(strings.TrimSpace(f[len(turnMarks)+1]), "°")
		deg, err := strconv.ParseFloat(last, 64)
		if err != nil || deg*c.sign < 30 {
			t.Errorf("%s: turned %q in 2 s; want at least 30° the asked way", c.name, last)
		}
		runs := 0
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, c.name+", asked at ") {
				runs++
				if !strings.HasSuffix(l, ", upright") {
					t.Errorf("%s: %s", c.name, l)
				}
			}
		}
		if runs != 1 {
			t.Errorf("%s: %d run lines; want 1", c.name, runs)
		}
	}
}
