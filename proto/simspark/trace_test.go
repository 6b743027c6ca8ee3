package simspark

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// traceDir holds the recorded rcssserver3d traces (their origin is in
// its SOURCE.md).
const traceDir = "../../internal/traces/testdata"

// traceMsg is one line of a trace: cycle<TAB>dir<TAB>t_ms<TAB>payload.
type traceMsg struct {
	file        string
	line, cycle int
	dir         string
	payload     []byte
}

var traceCache struct {
	once sync.Once
	msgs []traceMsg
	err  string
}

// traces returns every message of every trace file; it fails the test if
// the traces are missing.
func traces(tb testing.TB) []traceMsg {
	tb.Helper()
	c := &traceCache
	c.once.Do(func() {
		abs, _ := filepath.Abs(traceDir)
		files, err := filepath.Glob(filepath.Join(traceDir, "*.txt"))
		if err != nil || len(files) == 0 {
			c.err = "no trace files in " + abs + ""
			return
		}
		for _, name := range files {
			f, err := os.Open(name)
			if err != nil {
				c.err = err.Error()
				return
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<22)
			for n := 1; sc.Scan(); n++ {
				l := sc.Text()
				if l == "" || strings.HasPrefix(l, "#") {
					continue
				}
				col := strings.SplitN(l, "\t", 4)
				cycle, err := strconv.Atoi(col[0])
				if len(col) != 4 || err != nil {
					c.err = name + ":" + strconv.Itoa(n) + ": want cycle<TAB>dir<TAB>t_ms<TAB>payload"
					f.Close()
					return
				}
				c.msgs = append(c.msgs, traceMsg{filepath.Base(name), n, cycle, col[1], []byte(col[3])})
			}
			f.Close()
			if err := sc.Err(); err != nil {
				c.err = name + ": " + err.Error()
				return
			}
		}
	})
	if c.err != "" {
		tb.Fatalf("traces: %s", c.err)
	}
	return c.msgs
}

// roundTripPerception parses the Exact encoding of p and checks that it
// gives p back: the same struct, signature and encoding.
func roundTripPerception(t testing.TB, p *Perception, src []byte) {
	t.Helper()
	enc := p.Append(nil, Format{ExactDecimals})
	var p2 Perception
	if err := p2.Parse(enc); err != nil {
		t.Fatalf("encoding of a parsed message does not parse: %v\nmessage: %q\nencoded: %q", err, src, enc)
	}
	if !reflect.DeepEqual(p, &p2) {
		t.Fatalf("round trip changed the struct:\nmessage: %q\nencoded: %q\n%+v\n%+v", src, enc, *p, p2)
	}
	if s1, s2 := p.Signature(), p2.Signature(); s1 != s2 {
		t.Fatalf("round trip changed the signature:\n%s\n%s", s1, s2)
	}
	if enc2 := p2.Append(nil, Format{ExactDecimals}); !bytes.Equal(enc, enc2) {
		t.Fatalf("re-encoding differs (a lost -0?):\n%q\n%q", enc, enc2)
	}
}

func roundTripEffectors(t testing.TB, e *Effectors, src []byte) []byte {
	t.Helper()
	enc := e.Append(nil, Format{ExactDecimals})
	var e2 Effectors
	if err := e2.Parse(enc); err != nil {
		t.Fatalf("encoding of parsed effectors does not parse: %v\nmessage: %q\nencoded: %q", err, src, enc)
	}
	if !reflect.DeepEqual(e, &e2) || e.Signature() != e2.Signature() || !bytes.Equal(enc, e2.Append(nil, Format{ExactDecimals})) {
		t.Fatalf("effector round trip changed something:\nmessage: %q\nencoded: %q\n%+v\n%+v", src, enc, *e, e2)
	}
	return enc
}

func roundTripTrainer(t testing.TB, m *TrainerMessage, src []byte) {
	t.Helper()
	enc := m.Append(nil, Format{ExactDecimals})
	var m2 TrainerMessage
	if err := m2.Parse(enc); err != nil {
		t.Fatalf("encoding of parsed trainer commands does not parse: %v\nmessage: %q\nencoded: %q", err, src, enc)
	}
	if !reflect.DeepEqual(m, &m2) || !bytes.Equal(enc, m2.Append(nil, Format{ExactDecimals})) {
		t.Fatalf("trainer round trip changed something:\nmessage: %q\nencoded: %q\n%+v\n%+v", src, enc, *m, m2)
	}
}

// TestTraces parses every recorded message: perceptors (in), effectors
// (out) and trainer commands (mon-out), and round-trips each.
func TestTraces(t *testing.T) {
	var in, out, mon, monIn, withSee int
	files := map[string]bool{}
	for _, l := range traces(t) {
		files[l.file] = true
		where := l.file + ":" + strconv.Itoa(l.line)
		switch l.dir {
		case "in":
			in++
			var p Perception
			if err := p.Parse(l.payload); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if p.HasSee() {
				withSee++
			}
			roundTripPerception(t, &p, l.payload)
			// The server's own format reproduces the server's bytes.
			if enc := p.Append(nil, Format{ServerDecimals}); !bytes.Equal(enc, l.payload) {
				t.Fatalf("%s: server-format encoding differs from the server's bytes:\n%s\n%s", where, l.payload, enc)
			}
		case "out":
			out++
			var e Effectors
			if err := e.Parse(l.payload); err != nil {
				t.Fatalf("%s: effectors: %v", where, err)
			}
			// Our capture agent wrote numbers the shortest way too.
			if enc := roundTripEffectors(t, &e, l.payload); !bytes.Equal(enc, l.payload) {
				t.Fatalf("%s: effector encoding differs from the agent's bytes:\n%s\n%s", where, l.payload, enc)
			}
		case "mon-out":
			mon++
			var m TrainerMessage
			if err := m.Parse(l.payload); err != nil {
				t.Fatalf("%s: trainer: %v", where, err)
			}
			if len(m.Commands) != 1 || m.Commands[0].Kind == TrainUnknown {
				t.Fatalf("%s: trainer command not recognised: %+v", where, m.Commands)
			}
			roundTripTrainer(t, &m, l.payload)
		case "mon-in":
			// Monitor state: not decoded here, but it must scan.
			monIn++
			var s Scanner
			s.Reset(l.payload, 0)
			for {
				tok, err := s.Next()
				if err != nil {
					t.Fatalf("%s: scanning a monitor message: %v", where, err)
				}
				if tok == TokenEOF {
					break
				}
			}
		default:
			t.Fatalf("%s: unknown direction %q", where, l.dir)
		}
	}
	if len(files) < 25 || in < 4000 || withSee < 1000 || out < 2000 || mon != 13 || monIn < 100 {
		t.Fatalf("only %d files: %d in (%d with See), %d out, %d mon-out, %d mon-in", len(files), in, withSee, out, mon, monIn)
	}
	t.Logf("%d files: %d perceptor messages (%d with See), %d effector messages, %d trainer commands parsed and round-tripped; %d monitor messages scanned",
		len(files), in, withSee, out, mon, monIn)
}

// TestTraceOrder checks what the traces show about order: FRP interleaved
// with HJ, See between the head and arm joints, GS with unum/team once.
func TestTraceOrder(t *testing.T) {
	var sawFRP, sawGSTeam, sawHearSelf, sawHear bool
	for _, l := range traces(t) {
		if l.dir != "in" {
			continue
		}
		var p Perception
		if err := p.Parse(l.payload); err != nil {
			t.Fatal(err)
		}
		sig := p.Signature()
		if !strings.HasPrefix(sig, "time GS") {
			t.Fatalf("%s:%d: signature %s", l.file, l.line, sig)
		}
		sawFRP = sawFRP || strings.Contains(sig, "HJ:rlj5 FRP:rf HJ:rlj6")
		sawGSTeam = sawGSTeam || strings.HasPrefix(sig, "time GS+unum+team ")
		sawHearSelf = sawHearSelf || strings.Contains(sig, "hear:self")
		sawHear = sawHear || strings.Contains(sig, "GS hear GYR")
		if p.HasSee() && !strings.Contains(sig, "HJ:hj2 See[") {
			t.Fatalf("%s:%d: See not after hj2: %s", l.file, l.line, sig)
		}
	}
	if !sawFRP || !sawGSTeam || !sawHearSelf || !sawHear {
		t.Fatalf("FRP %v, GS+team %v, hear:self %v, hear %v", sawFRP, sawGSTeam, sawHearSelf, sawHear)
	}
}

func TestParsedValues(t *testing.T) {
	msg := []byte(`(time (now 20.39))(GS (unum 1) (team left) (sl 0) (sr 2) (t 1.50) (pm PlayOn))(GYR (n torso) (rt -0.03 -0.00 0.50))(ACC (n torso) (a 0.10 0.01 9.81))(HJ (n hj1) (ax -12.50))(See (B (pol 1.92 2.54 -58.03)) (G1R (pol 6.5 10 -3)) (L (pol 1 2 3) (pol 4 5 6)) (P (team O) (id 3) (head (pol 5.78 23.63 -0.69)) (lfoot (pol 5.78 19.36 -9.08))) (mypos -2.00 0.00 0.55) (myorien 90.00) (ballpos 0.00 0.00 0.05) (CNR (ffs 6.65 51.57 -12.25 14.35)) (X 1) y)(FRP (n lf) (c 0.01 0.02 -0.01) (f 0.00 0.34 9.02))(TCH (n bumper) (val 1))(hear O 0.00 -11.31 hello.from.O)(hear T 1.00 self ping)(hear 2.5 self x)(foo 1 (2))`)
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
		{"GS", p.GS.Unum == 1 && p.Is(p.GS.Team, "left") && p.GS.ScoreRight == 2 && p.GS.Time == 1.5 && p.Is(p.GS.PlayMode, "PlayOn") && p.GS.HasTime && p.GS.HasPlayMode},
		{"GYR", p.GYR.V == [3]float64{-0.03, 0, 0.5} && p.Is(p.GYR.Name, "torso")},
		{"ACC", p.ACC.V[2] == 9.81},
		{"HJ", len(p.Joints) == 1 && p.Joints[0] == JointAngle{HJ1, -12.5}},
		{"ball", len(s.Objects) == 2 && p.Is(s.Objects[0].Name, "B") && s.Objects[0].Pol == Polar{1.92, 2.54, -58.03}},
		{"line", len(s.Lines) == 1 && s.Lines[0].B == Polar{4, 5, 6}},
		{"player", len(s.Players) == 1 && s.Players[0].ID == 3 && p.Is(s.Players[0].Team, "O") && s.Players[0].PartCount == 2 && p.Is(s.Parts[1].Name, "lfoot")},
		{"cheats", s.MyPos == [3]float64{-2, 0, 0.55} && s.MyOrien == 90 && s.BallPos[2] == 0.05},
		{"feature", len(s.Features) == 1 && p.Is(s.Features[0].Name, "CNR") && s.Features[0].V[3] == 14.35},
		{"unknown see items kept", len(s.Unknown) == 2 && p.Is(s.Unknown[0], "(X 1)") && p.Is(s.Unknown[1], "y")},
		{"FRP", len(p.FRP) == 1 && p.FRP[0].F[2] == 9.02 && p.Is(p.FRP[0].Name, "lf")},
		{"TCH", len(p.Touch) == 1 && p.Touch[0].Val == 1},
		{"hear", len(p.Hear) == 3 && p.Hear[0].Dir == -11.31 && !p.Hear[0].Self && p.Is(p.Hear[0].Msg, "hello.from.O") && p.Hear[1].Self && p.Hear[0].HasTeam},
		{"unlabelled hear", !p.Hear[2].HasTeam && p.Hear[2].Time == 2.5 && p.Is(p.Hear[2].Msg, "x")},
		{"unknown perceptor kept", len(p.Unknown) == 1 && p.Is(p.Unknown[0], "(foo 1 (2))")},
		{"order", p.Signature() == "time GS+unum+team GYR ACC HJ:hj1 See[B G1R L P:O(head lfoot) mypos myorien ballpos CNR ?X ?y] FRP:lf TCH:bumper hear hear:self hear:self ?foo"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s wrong; signature %s", c.name, p.Signature())
		}
	}
	roundTripPerception(t, &p, msg)
}

// TestFieldOrder: fields inside a perceptor may come in any order; the
// struct (including its arena) does not depend on it.
func TestFieldOrder(t *testing.T) {
	a := []byte("(GS (unum 2) (team right) (sl 1) (sr 0) (t 3.00) (pm PlayOn))(HJ (n hj2) (ax 1))(See (P (team A) (id 1) (head (pol 1 2 3))))")
	b := []byte("(GS (pm PlayOn) (t 3) (sr 0) (sl 1) (team right) (unum 2))(HJ (ax 1) (n hj2))(See (P (head (pol 1 2 3)) (id 1) (team A)))")
	var pa, pb Perception
	if err := pa.Parse(a); err != nil {
		t.Fatal(err)
	}
	if err := pb.Parse(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pa, pb) {
		t.Fatalf("field order matters:\n%+v\n%+v", pa, pb)
	}
	if got := pb.Append(nil, Format{ServerDecimals}); !bytes.Equal(got, []byte("(GS (unum 2) (team right) (sl 1) (sr 0) (t 3.00) (pm PlayOn))(HJ (n hj2) (ax 1.00))(See (P (team A) (id 1) (head (pol 1.00 2.00 3.00))))")) {
		t.Fatalf("canonical encoding: %s", got)
	}
}

func TestEffectors(t *testing.T) {
	var e Effectors
	msg := []byte("(scene rsg/agent/nao/nao_hetero.rsg 4)(init (unum 3)(teamname T))(beam -2 0.5 90)(he1 1.5)(rle6 -0.25)(lle7 0)(say hi.there)(pass 1 (2))(syn)")
	if err := e.Parse(msg); err != nil {
		t.Fatal(err)
	}
	if !e.Is(e.Scene, "rsg/agent/nao/nao_hetero.rsg") || !e.HasSceneType || e.SceneType != 4 || e.Unum != 3 || !e.Is(e.Team, "T") ||
		e.Beam != [3]float64{-2, 0.5, 90} || len(e.Joints) != 3 || e.Joints[1] != (JointSpeed{RLJ6, -0.25}) || e.Joints[2].ID != LLJ7 ||
		!e.Has(EffSyn) || !e.Is(e.Say, "hi.there") || len(e.Unknown) != 1 || !e.Is(e.Unknown[0], "(pass 1 (2))") {
		t.Fatalf("effectors %+v", e)
	}
	if sig := e.Signature(); sig != "scene init beam he1 rle6 lle7 say ?pass syn" {
		t.Fatalf("signature %s", sig)
	}
	if enc := roundTripEffectors(t, &e, msg); !bytes.Equal(enc, msg) {
		t.Fatalf("encoding\n%s\n%s", enc, msg)
	}
	// Building a message.
	e.Reset()
	e.HasTeam, e.Team = true, e.Intern("robotd")
	e.AddItem(EffInit)
	e.AddJoint(HJ2, -0.125) // exactly half: rounds to even, like strconv and printf
	e.AddItem(EffSyn)
	if got := string(e.Append(nil, Format{ServerDecimals})); got != "(init (teamname robotd))(he2 -0.12)(syn)" {
		t.Fatalf("built %s", got)
	}
}

func TestTrainer(t *testing.T) {
	var m TrainerMessage
	msg := []byte("(agent (unum 1)(team Left)(move -2.0 1.0 0.35 90))(ball (pos 1 1 0.05)(vel 2 0 0))(score (left 1)(right 2))(playMode PlayOn)(kickOff Right)(kill (unum 3)(team Right))(repos)(select (unum -1))(getAck)(getAck a1)(time 10)(dropBall)(reqfullstate)(killsim)(killAgent (unum 1))(agent (unum 2)(team Right)(pos 1 2 3)(battery 50)(temperature 30)(rotation 1 2 3))(agent (unum 3)(team Left)(pos 0 1 0.1)(rot 0 -90 45))")
	if err := m.Parse(msg); err != nil {
		t.Fatal(err)
	}
	c := m.Commands
	want := []TrainerKind{TrainAgent, TrainBall, TrainScore, TrainPlayMode, TrainKickOff, TrainKill, TrainRepos, TrainSelect, TrainGetAck, TrainGetAck, TrainTime, TrainDropBall, TrainReqFullState, TrainKillSim, TrainUnknown, TrainAgent, TrainAgent}
	if len(c) != len(want) {
		t.Fatalf("%d commands: %+v", len(c), c)
	}
	for i, k := range want {
		if c[i].Kind != k {
			t.Errorf("command %d is %v, want %v", i, c[i].Kind, k)
		}
	}
	if !c[0].HasMove || c[0].Move != [4]float64{-2, 1, 0.35, 90} || !m.Is(c[0].Team, "Left") || c[0].Unum != 1 ||
		!c[1].HasVel || c[1].Vel[0] != 2 || c[1].Pos != [3]float64{1, 1, 0.05} || c[2].Left != 1 || c[2].Right != 2 ||
		!m.Is(c[3].Word, "PlayOn") || !m.Is(c[4].Word, "Right") || c[5].Unum != 3 || c[6].HasUnum || c[7].Unum != -1 || c[7].HasTeam ||
		c[8].HasWord || !m.Is(c[9].Word, "a1") || c[10].Time != 10 || !m.Is(c[14].Raw, "(killAgent (unum 1))") ||
		!c[15].HasBattery || c[15].Battery != 50 || c[15].Temperature != 30 || c[15].Pos != [3]float64{1, 2, 3} || c[15].HasRot ||
		!c[16].HasRot || c[16].Rot != [3]float64{0, -90, 45} || !c[16].HasPos {
		t.Fatalf("trainer %+v", c)
	}
	roundTripTrainer(t, &m, msg)
	if got := string(m.Append(nil, Format{ExactDecimals})); !strings.HasPrefix(got, "(agent (unum 1)(team Left)(move -2 1 0.35 90))(ball (pos 1 1 0.05)(vel 2 0 0))(score (left 1)(right 2))(playMode PlayOn)") {
		t.Fatalf("encoding %s", got)
	}
}
