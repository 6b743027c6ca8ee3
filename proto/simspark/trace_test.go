package simspark

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/robotd/robotd/internal/traces"
)

// traceLines reads every message of every trace file.
func traceLines(t testing.TB) []traces.Message { return traces.All(t) }

// equalPerception compares the meaning of two parsed messages.
func equalPerception(a, b *Perception) bool {
	ca, cb := *a, *b
	ca.arena, cb.arena, ca.t, cb.t = arena{}, arena{}, tree{}, tree{}
	// Spans differ between a parse and a re-parse only if text differs;
	// compare texts through the signature and the raw span bytes.
	return a.Signature() == b.Signature() && reflect.DeepEqual(ca, cb) && bytes.Equal(a.buf, b.buf)
}

func TestTraces(t *testing.T) {
	var in, out, mon int
	var p, p2 Perception
	var e, e2 Effectors
	for _, l := range traceLines(t) {
		switch l.Dir {
		case "in":
			in++
			if err := p.Parse(l.Payload); err != nil {
				t.Fatalf("%s:%d: %v", l.File, l.Line, err)
			}
			for _, f := range []Format{Exact, Server} {
				enc := p.Append(nil, f)
				if err := p2.Parse(enc); err != nil {
					t.Fatalf("%s:%d: re-parsing the encoding: %v\n%s", l.File, l.Line, err, enc)
				}
				if !equalPerception(&p, &p2) {
					t.Fatalf("%s:%d: round trip (%d decimals) lost something:\n%s\n%s", l.File, l.Line, f.Decimals, l.Payload, enc)
				}
				// The server's own format reproduces the server's bytes.
				if f == Server && !bytes.Equal(enc, l.Payload) {
					t.Fatalf("%s:%d: server-format encoding differs from the server's:\n%s\n%s", l.File, l.Line, l.Payload, enc)
				}
			}
		case "out":
			out++
			if err := e.Parse(l.Payload); err != nil {
				t.Fatalf("%s:%d: effectors: %v", l.File, l.Line, err)
			}
			enc := e.Append(nil, Exact)
			if err := e2.Parse(enc); err != nil {
				t.Fatalf("%s:%d: re-parsing effectors: %v\n%s", l.File, l.Line, err, enc)
			}
			if !reflect.DeepEqual(e.Joints, e2.Joints) || !reflect.DeepEqual(e.Order, e2.Order) || e.Beam != e2.Beam || !bytes.Equal(e.buf, e2.buf) {
				t.Fatalf("%s:%d: effector round trip:\n%s\n%s", l.File, l.Line, l.Payload, enc)
			}
		case "mon-out":
			mon++
			cmds, err := ParseTrainer(l.Payload)
			if err != nil || len(cmds) == 0 {
				t.Fatalf("%s:%d: trainer: %v", l.File, l.Line, err)
			}
		}
	}
	if in < 4000 || out < 1000 || mon < 10 {
		t.Fatalf("only %d in, %d out, %d trainer messages", in, out, mon)
	}
	t.Logf("%d perceptor, %d effector and %d trainer messages parsed and round-tripped", in, out, mon)
}

func TestParsedValues(t *testing.T) {
	msg := []byte(`(time (now 20.39))(GS (unum 1) (team left) (sl 0) (sr 2) (t 1.50) (pm PlayOn))(GYR (n torso) (rt -0.03 -0.00 0.50))(ACC (n torso) (a 0.10 0.01 9.81))(HJ (n hj1) (ax -12.50))(See (B (pol 1.92 2.54 -58.03)) (G1R (pol 6.5 10 -3)) (L (pol 1 2 3) (pol 4 5 6)) (P (team O) (id 3) (head (pol 5.78 23.63 -0.69)) (lfoot (pol 5.78 19.36 -9.08))) (mypos -2.00 0.00 0.55) (myorien 90.00) (ballpos 0.00 0.00 0.05) (CNR (ffs 6.65 51.57 -12.25 14.35)) (X 1))(FRP (n lf) (c 0.01 0.02 -0.01) (f 0.00 0.34 9.02))(TCH (n bumper) (val 1))(hear O 0.00 -11.31 hello.from.O)(hear T 1.00 self ping)(foo 1 2)`)
	var p Perception
	if err := p.Parse(msg); err != nil {
		t.Fatal(err)
	}
	s := &p.See
	checks := []struct {
		name string
		ok   bool
	}{
		{"time", p.Time == 20.39},
		{"GS", p.GS.Unum == 1 && p.Is(p.GS.Team, "left") && p.GS.ScoreRight == 2 && p.GS.Time == 1.5 && p.Is(p.GS.PlayMode, "PlayOn")},
		{"GYR", p.GYR.V == [3]float64{-0.03, 0, 0.5} && p.Is(p.GYR.Name, "torso")},
		{"ACC", p.ACC.V[2] == 9.81},
		{"HJ", len(p.Joints) == 1 && p.Joints[0] == JointAngle{HJ1, -12.5}},
		{"ball", len(s.Objects) == 2 && p.Is(s.Objects[0].Name, "B") && s.Objects[0].Pol == Polar{1.92, 2.54, -58.03}},
		{"line", len(s.Lines) == 1 && s.Lines[0].B == Polar{4, 5, 6}},
		{"player", len(s.Players) == 1 && s.Players[0].ID == 3 && p.Is(s.Players[0].Team, "O") && s.Players[0].PartCount == 2 && p.Is(s.Parts[1].Name, "lfoot")},
		{"cheats", s.MyPos == [3]float64{-2, 0, 0.55} && s.MyOrien == 90 && s.BallPos[2] == 0.05},
		{"feature", len(s.Features) == 1 && p.Is(s.Features[0].Name, "CNR") && s.Features[0].V[3] == 14.35},
		{"unknown see item kept", len(s.Unknown) == 1 && p.Is(s.Unknown[0], "(X 1)")},
		{"FRP", len(p.FRP) == 1 && p.FRP[0].F[2] == 9.02 && p.Is(p.FRP[0].Name, "lf")},
		{"TCH", len(p.Touch) == 1 && p.Touch[0].Val == 1},
		{"hear", len(p.Hear) == 2 && p.Hear[0].Dir == -11.31 && !p.Hear[0].Self && p.Is(p.Hear[0].Msg, "hello.from.O") && p.Hear[1].Self},
		{"unknown perceptor kept", len(p.Unknown) == 1 && p.Is(p.Unknown[0], "(foo 1 2)")},
		{"order", p.Signature() == "time GS GYR ACC HJ:hj1 See[obj:B obj:G1R L P:O mypos myorien ballpos ff:CNR ?] FRP:lf TCH:bumper hear hear ?"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s wrong; signature %s", c.name, p.Signature())
		}
	}
}

func TestEffectorsAndTrainer(t *testing.T) {
	var e Effectors
	if err := e.Parse([]byte("(scene rsg/agent/nao/nao_hetero.rsg 4)(init (unum 3)(teamname T))(beam -2 0.5 90)(he1 1.5)(rle6 -0.25)(say hi.there)(syn)")); err != nil {
		t.Fatal(err)
	}
	if !e.Is(e.Scene, "rsg/agent/nao/nao_hetero.rsg") || e.SceneType != 4 || e.Unum != 3 || !e.Is(e.Team, "T") ||
		e.Beam != [3]float64{-2, 0.5, 90} || len(e.Joints) != 2 || e.Joints[1] != (JointSpeed{RLJ6, -0.25}) || !e.Has(EffSyn) || !e.Is(e.Say, "hi.there") {
		t.Fatalf("effectors %+v", e)
	}
	cmds, err := ParseTrainer([]byte("(agent (unum 1)(team Left)(move -2.0 1.0 0.35 90))(ball (pos 1 1 0.05)(vel 2 0 0))(score (left 1)(right 2))(playMode PlayOn)"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 4 || cmds[0].Kind != TrainAgent || cmds[0].Move != [4]float64{-2, 1, 0.35, 90} || cmds[0].Team != "Left" ||
		!cmds[1].HasVel || cmds[1].Vel[0] != 2 || cmds[2].Right != 2 || cmds[3].Word != "PlayOn" {
		t.Fatalf("trainer %+v", cmds)
	}
}
