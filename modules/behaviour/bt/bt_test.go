package bt

import (
	"strings"
	"testing"
)

// ctx is a test context: flags the conditions read, and a log of what the
// actions did.
type ctx struct {
	flags map[string]bool
	log   []string
}

// step is an action that runs for n ticks, then answers end.
type step struct {
	name    string
	n, left int
	end     Status
	started int
	halted  int
}

func (s *step) Name() string { return s.name }
func (s *step) Tick(c *ctx, _ *Trace) Status {
	if s.left == 0 {
		s.left = s.n
		s.started++
		c.log = append(c.log, "start "+s.name)
	}
	s.left--
	if s.left > 0 {
		return Running
	}
	c.log = append(c.log, "end "+s.name)
	return s.end
}
func (s *step) Halt() {
	if s.left > 0 {
		s.halted++
		s.left = 0
	}
}

func path(tr *Trace) string {
	p := tr.Path()
	return strings.Join(p.Nodes[:p.N], "/")
}

func TestSelectorPreemptsAndHalts(t *testing.T) {
	fallen := If("fallen?", func(c *ctx) bool { return c.flags["fallen"] })
	getUp := &step{name: "get up", n: 3, end: Success}
	walk := &step{name: "walk", n: 100, end: Success}
	root := NewSelector[ctx]("root",
		NewSequence[ctx]("fallen", fallen, getUp),
		NewSequence[ctx]("play", walk),
	)
	c := &ctx{flags: map[string]bool{}}
	var tr Trace
	tick := func() Status { tr.Reset(); return Run[ctx](root, c, &tr) }

	tests := []struct {
		name     string
		fallen   bool
		want     Status
		wantPath string
	}{
		{"walks", false, Running, "root/play/walk"},
		{"walks on", false, Running, "root/play/walk"},
		{"falls: get-up preempts the walk", true, Running, "root/fallen/get up"},
		{"still down", true, Running, "root/fallen/get up"},
		{"up", true, Success, "root/fallen/get up"},
		{"walks again, from the start", false, Running, "root/play/walk"},
	}
	for _, tc := range tests {
		c.flags["fallen"] = tc.fallen
		if got := tick(); got != tc.want || path(&tr) != tc.wantPath {
			t.Errorf("%s: %v at %q, want %v at %q", tc.name, got, path(&tr), tc.want, tc.wantPath)
		}
	}
	if walk.halted != 1 || walk.started != 2 {
		t.Errorf("walk halted %d times, started %d; want 1 and 2", walk.halted, walk.started)
	}
}

func TestReactiveSequenceRechecksConditions(t *testing.T) {
	ok := true
	act := &step{name: "act", n: 10, end: Success}
	seq := NewSequence[ctx]("seq", If("ok?", func(*ctx) bool { return ok }), act)
	c := &ctx{}
	var tr Trace
	if Run[ctx](seq, c, &tr) != Running {
		t.Fatal("not running")
	}
	ok = false
	if Run[ctx](seq, c, &tr) != Failure || act.halted != 1 {
		t.Fatalf("condition failed but the action was not halted (%d)", act.halted)
	}
}

func TestSequenceWithMemory(t *testing.T) {
	walk := &step{name: "walk", n: 2, end: Success}
	scan := &step{name: "scan", n: 2, end: Success}
	spin := &step{name: "spin", n: 1, end: Failure}
	cycle := NewSequenceMem[ctx]("cycle", walk, scan, spin)
	c := &ctx{}
	var tr Trace
	var got []Status
	for range 5 {
		tr.Reset()
		got = append(got, Run[ctx](cycle, c, &tr))
	}
	want := []Status{Running, Running, Failure, Running, Running}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses %v, want %v", got, want)
		}
	}
	if walk.started != 2 || scan.started != 2 {
		t.Errorf("walk started %d, scan %d: a finished step ran again", walk.started, scan.started)
	}
	want2 := "start walk,end walk,start scan,end scan,start spin,end spin,start walk,end walk,start scan"
	if l := strings.Join(c.log, ","); l != want2 {
		t.Errorf("log %s\nwant %s", l, want2)
	}
	// Halting restarts the sequence at its first step.
	cycle.Halt()
	tr.Reset()
	Run[ctx](cycle, c, &tr)
	if path(&tr) != "cycle/walk" || scan.halted != 1 {
		t.Errorf("after a halt: %q, scan halted %d", path(&tr), scan.halted)
	}
}

func TestActionStartStop(t *testing.T) {
	var starts, stops, steps int
	a := Do("a", func(*ctx) Status { steps++; return Running })
	a.Start = func(*ctx) { starts++ }
	a.Stop = func() { stops++ }
	c := &ctx{}
	var tr Trace
	Run[ctx](a, c, &tr)
	Run[ctx](a, c, &tr)
	a.Halt()
	a.Halt()
	Run[ctx](a, c, &tr)
	if starts != 2 || stops != 1 || steps != 3 || !a.Running() {
		t.Errorf("starts %d stops %d steps %d", starts, stops, steps)
	}
	inv := Invert[ctx](If("no", func(*ctx) bool { return false }))
	if Run[ctx](inv, c, &tr) != Success || inv.Name() != "not no" {
		t.Error("inverter")
	}
}

func TestPathDepthAndNoAllocs(t *testing.T) {
	var n Node[ctx] = Do("leaf", func(*ctx) Status { return Success })
	for range 20 {
		n = NewSequence[ctx]("level", n)
	}
	c := &ctx{}
	var tr Trace
	allocs := testing.AllocsPerRun(100, func() {
		tr.Reset()
		Run(n, c, &tr)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per tick", allocs)
	}
	if p := tr.Path(); p.N != len(p.Nodes) {
		t.Errorf("path of %d nodes, want it cut at %d", p.N, len(p.Nodes))
	}
}
