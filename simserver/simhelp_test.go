package simserver

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/robotd/robotd/hal/body"

	"github.com/robotd/robotd/proto/simspark"
)

// sim drives a World directly, the way the server does in sync mode.
type sim struct {
	t      testing.TB
	w      *World
	agents []*Agent
	last   [][]byte
	p      simspark.Perception
	maxV   float64 // drive's velocity limit (rad/s)
}

func newSim(t testing.TB, mut func(*Config)) *sim {
	t.Helper()
	cfg := DefaultConfig()
	cfg.NoVisionNoise = true
	if mut != nil {
		mut(&cfg)
	}
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &sim{t: t, w: w, maxV: 1}
}

// add creates an agent, inits it and beams it; it returns its index.
func (s *sim) add(team string, unum int, x, y, deg float64) int {
	s.t.Helper()
	a := s.w.AddAgent()
	s.agents = append(s.agents, a)
	s.last = append(s.last, nil)
	i := len(s.agents) - 1
	s.act(i, fmt.Sprintf("(init (unum %d)(teamname %s))", unum, team))
	s.step(1)
	s.act(i, fmt.Sprintf("(beam %g %g %g)", x, y, deg))
	return i
}

func (s *sim) act(i int, msg string) {
	s.t.Helper()
	if err := s.w.Act(s.agents[i], []byte(msg)); err != nil {
		s.t.Fatalf("act %q: %v", msg, err)
	}
}

// step runs n cycles, encoding every agent's message each cycle.
func (s *sim) step(n int) {
	for k := 0; k < n; k++ {
		s.w.Step()
		for i, a := range s.agents {
			s.last[i] = s.w.AppendPerception(s.last[i][:0], a)
		}
	}
}

// perception parses agent i's last message.
func (s *sim) perception(i int) *simspark.Perception {
	s.t.Helper()
	if err := s.p.Parse(s.last[i]); err != nil {
		s.t.Fatalf("parse %q: %v", s.last[i], err)
	}
	return &s.p
}

// drive moves joints towards target angles (deg, by effector name) like a
// simple motion module, for at most d seconds; it returns when all are
// within 0.5°.
func (s *sim) drive(i int, target map[string]float64, d float64) {
	s.t.Helper()
	a := s.agents[i]
	for k := 0; float64(k)*s.w.dt < d; k++ {
		var b strings.Builder
		done := true
		for name, deg := range target {
			id, ok := simspark.JointByEffectorName([]byte(name))
			if !ok {
				s.t.Fatalf("no joint %s", name)
			}
			j := jointOf[id]
			e := deg*rad - a.r.q[j]
			if math.Abs(e) > 0.5*rad {
				done = false
			}
			// Aim to close the error over 3 cycles (the command lands 2
			// cycles later).
			v := math.Max(-s.maxV, math.Min(s.maxV, e/(3*s.w.dt)))
			fmt.Fprintf(&b, "(%s %.4f)", name, v)
		}
		s.act(i, b.String())
		s.step(1)
		if done {
			s.act(i, zeroCommand(target))
			s.step(3)
			return
		}
	}
	s.act(i, zeroCommand(target))
	s.step(3)
}

func zeroCommand(target map[string]float64) string {
	var b strings.Builder
	for name := range target {
		fmt.Fprintf(&b, "(%s 0)", name)
	}
	return b.String()
}

// legLength is the model's hip-to-ankle length, legs straight.
func legLength() float64 {
	l := body.SimSpark().Leg
	return l.Thigh + l.Tibia
}

// legIK returns hip pitch, knee and ankle pitch (deg, simulator sign) that
// put the ankle f metres ahead of and z below the hip with the sole
// parallel to the torso.
func legIK(f, z float64) (hip, knee, ankle float64) {
	leg := body.SimSpark().Leg
	l1, l2 := leg.Thigh, leg.Tibia
	d := math.Hypot(f, z)
	g := math.Acos((l1*l1 + l2*l2 - d*d) / (2 * l1 * l2))
	k := -(math.Pi - g)
	h := math.Atan2(f, z) + math.Acos((l1*l1+d*d-l2*l2)/(2*l1*d))
	return h * deg, k * deg, -(h + k) * deg
}

// gaitPose is a target for both legs: ankle offsets (forward, down) and
// the sideways lean (hip roll, opposite ankle roll), in degrees.
func gaitPose(lf, lz, rf, rz, roll float64) map[string]float64 {
	m := map[string]float64{}
	m["lle3"], m["lle4"], m["lle5"] = legIK(lf, lz)
	m["rle3"], m["rle4"], m["rle5"] = legIK(rf, rz)
	m["lle2"], m["rle2"], m["lle6"], m["rle6"] = roll, roll, -roll, -roll
	return m
}
