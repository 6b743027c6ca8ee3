package simserver

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/internal/traces"
	"github.com/robotd/robotd/proto/simspark"
)

// trace is a recorded session of internal/traces/testdata, prepared for
// replay: the server's messages, and the agent's replies grouped by the
// message after which they took effect on the real server.
type trace struct {
	name  string
	sync  bool
	cycle float64 // seconds
	in    [][]byte
	// replies[m] are the payloads to send after message m, in order.
	replies map[int][][]byte
	// scene is the payload sent before the first message.
	scene []byte
	// late counts replies that arrived after the next message had been
	// sent (real-time delivery jitter).
	late int
}

type traceLine struct {
	cycle   int
	dir     string
	ms      int
	payload []byte
}

func readTraceLines(t testing.TB, name string) (lines []traceLine, header []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(traces.Dir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") {
			header = append(header, l)
			continue
		}
		p := strings.SplitN(l, "\t", 4)
		if len(p) != 4 {
			continue
		}
		c, _ := strconv.Atoi(p[0])
		ms, _ := strconv.Atoi(p[2])
		lines = append(lines, traceLine{c, p[1], ms, []byte(p[3])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, header
}

// loadTrace prepares a trace for replay. In a real-time trace a reply to
// message k that was sent when message k+1 (or later ones) had already
// arrived took effect as a reply to the latest of them: the harness sends
// it then, which reproduces the real server's delivery jitter in sync
// mode.
func loadTrace(t testing.TB, name string) *trace {
	t.Helper()
	lines, header := readTraceLines(t, name)
	tr := &trace{name: name, cycle: 0.01, replies: map[int][][]byte{}}
	for _, h := range header {
		if strings.Contains(h, "sync True") {
			tr.sync = true
		}
	}
	if strings.HasPrefix(name, "step20ms") {
		tr.cycle = 0.02
	}
	inMs := map[int]int{}
	for _, l := range lines {
		if l.dir == "in" {
			if l.cycle != len(tr.in) {
				t.Fatalf("%s: message %d out of order", name, l.cycle)
			}
			tr.in = append(tr.in, l.payload)
			inMs[l.cycle] = l.ms
		}
	}
	for _, l := range lines {
		if l.dir != "out" {
			continue
		}
		p := bytes.ReplaceAll(l.payload, []byte("(syn)"), nil)
		if l.cycle < 0 {
			tr.scene = p
			continue
		}
		e := l.cycle
		if !tr.sync {
			for ms, ok := inMs[e+1]; ok && ms <= l.ms; ms, ok = inMs[e+1] {
				e++
			}
		}
		if e != l.cycle {
			tr.late++
		}
		tr.replies[e] = append(tr.replies[e], p)
	}
	return tr
}

// replyFor returns the harness's reply after message m (without syn).
func (tr *trace) replyFor(m int) []byte {
	var b []byte
	for _, p := range tr.replies[m] {
		b = append(b, p...)
	}
	return b
}

// secondAgent is the other robot of vision_headsweep.txt: team O, beamed
// to (-1, 0.6) in its frame, saying hello.from.O so that robot 1 hears it
// in the recorded messages.
type secondAgent struct {
	hears []int // robot 1's message indices that carry its hear
}

func headsweepSecond(tr *trace) *secondAgent {
	s := &secondAgent{}
	for m, msg := range tr.in {
		if bytes.Contains(msg, []byte("hello.from.O")) {
			s.hears = append(s.hears, m)
		}
	}
	return s
}

// reply is robot 2's reply to its message n, received together with robot
// 1's message m1.
func (s *secondAgent) reply(n, m1 int) []byte {
	var b []byte
	switch n {
	case 0:
		b = append(b, "(init (unum 1)(teamname O))"...)
	case 1:
		b = append(b, "(beam -1 0.6 0)"...)
	}
	for _, h := range s.hears {
		if m1 == h-2 {
			b = append(b, "(say hello.from.O)"...)
		}
	}
	return b
}

// perception is a parsed perceptor message with its signature.
type perception struct {
	p   simspark.Perception
	sig string // without the See block's content
}

func parsePerception(t testing.TB, msg []byte) *perception {
	t.Helper()
	var p perception
	if err := p.p.Parse(msg); err != nil {
		t.Fatalf("parse %.80q: %v", msg, err)
	}
	// The codec's structural signature, with the See block's content left
	// out (what is in view varies; seeNames compares it separately).
	p.sig = stripSee(p.p.Signature())
	return &p
}

// stripSee replaces "See[…]" by "See".
func stripSee(sig string) string {
	i := strings.Index(sig, "See[")
	if i < 0 {
		return sig
	}
	depth := 0
	for j := i + 3; j < len(sig); j++ {
		switch sig[j] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return sig[:i+3] + sig[j+1:]
			}
		}
	}
	return sig
}

// seeNames returns the See block's item names as a sorted set, players as
// P:team.
func (p *perception) seeNames() string {
	s := &p.p.See
	set := map[string]bool{}
	for _, it := range s.Order {
		switch it.Kind {
		case simspark.SeeObject:
			set[p.p.Str(s.Objects[it.Index].Name)] = true
		case simspark.SeeFeature:
			set[p.p.Str(s.Features[it.Index].Name)] = true
		case simspark.SeePlayer:
			set["P:"+p.p.Str(s.Players[it.Index].Team)] = true
		default:
			set[it.Kind.String()] = true
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

func (p *perception) joint(id simspark.JointID) (float64, bool) {
	for _, j := range p.p.Joints {
		if j.ID == id {
			return j.Deg, true
		}
	}
	return 0, false
}

// comparison is the result of comparing a replay with its trace.
type comparison struct {
	messages     int
	firstDiverge string // first structural divergence
	maxJointErr  float64
	maxJointAt   string
	seeBlocks    int
	seeSameNames int
}

// compareTrace compares the replayed messages got with the recorded ones.
// ignoreFRPFrom, if ≥ 0, leaves FRP out of the structure from that message
// on (the falls: see the conformance test).
func compareTrace(t testing.TB, tr *trace, got [][]byte, ignoreFRPFrom int) comparison {
	t.Helper()
	var c comparison
	n := min(len(got), len(tr.in))
	c.messages = n
	if len(got) < len(tr.in) && c.firstDiverge == "" {
		c.firstDiverge = fmt.Sprintf("replay produced %d of %d messages", len(got), len(tr.in))
	}
	for m := 0; m < n; m++ {
		want := parsePerception(t, tr.in[m])
		have := parsePerception(t, got[m])
		ws, hs := want.sig, have.sig
		if ignoreFRPFrom >= 0 && m >= ignoreFRPFrom {
			ws, hs = dropFRP(ws), dropFRP(hs)
		}
		if ws != hs && c.firstDiverge == "" {
			c.firstDiverge = fmt.Sprintf("message %d: structure differs:\n want %s\n have %s\n recorded: %.300s\n produced: %.300s", m, ws, hs, tr.in[m], got[m])
		}
		if want.p.HasSee() && have.p.HasSee() {
			c.seeBlocks++
			if want.seeNames() == have.seeNames() {
				c.seeSameNames++
			}
			for _, k := range []simspark.Kind{simspark.SeeMyPos, simspark.SeeMyOrien, simspark.SeeBallPos} {
				if !hasSeeKind(&have.p, k) && c.firstDiverge == "" {
					c.firstDiverge = fmt.Sprintf("message %d: See without %s", m, k)
				}
			}
		}
		for _, j := range want.p.Joints {
			h, ok := have.joint(j.ID)
			if !ok {
				continue
			}
			if e := math.Abs(h - j.Deg); e > c.maxJointErr {
				c.maxJointErr = e
				c.maxJointAt = fmt.Sprintf("message %d %s: recorded %.2f, produced %.2f", m, j.ID, j.Deg, h)
			}
		}
	}
	return c
}

func hasSeeKind(p *simspark.Perception, k simspark.Kind) bool {
	for _, it := range p.See.Order {
		if it.Kind == k {
			return true
		}
	}
	return false
}

func dropFRP(sig string) string {
	f := strings.Fields(sig)
	out := f[:0]
	for _, s := range f {
		if !strings.HasPrefix(s, "FRP") {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

// replayWorld replays a trace against a World directly, the way the
// Server drives it in sync mode, and returns robot 1's messages.
func replayWorld(t testing.TB, tr *trace, cfg Config) [][]byte {
	t.Helper()
	cfg.Cycle = cycleDuration(tr.cycle)
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	a := w.AddAgent()
	var b *Agent
	var second *secondAgent
	if tr.name == "vision_headsweep.txt" {
		second = headsweepSecond(tr)
	}
	var out [][]byte
	for m := 0; m < len(tr.in); m++ {
		w.Step()
		out = append(out, w.AppendPerception(nil, a))
		if b != nil {
			n := b.Messages()
			w.AppendPerception(nil, b)
			if r := second.reply(n, m); len(r) > 0 {
				if err := w.Act(b, r); err != nil {
					t.Fatal(err)
				}
			}
		}
		if r := tr.replyFor(m); len(r) > 0 {
			if err := w.Act(a, r); err != nil {
				t.Fatalf("%s: reply to %d: %v", tr.name, m, err)
			}
		}
		if second != nil && b == nil && m == 0 {
			b = w.AddAgent()
		}
	}
	return out
}

func cycleDuration(s float64) time.Duration {
	return time.Duration(math.Round(s*1e3)) * time.Millisecond
}
