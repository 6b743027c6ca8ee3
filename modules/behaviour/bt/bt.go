// Package bt is a small behaviour tree (as ROS 2's BehaviorTree.CPP has them): nodes that are ticked
// once per control cycle and answer Running, Success or Failure, composed
// by selectors (priority fallbacks) and sequences, with leaves that are
// conditions or asynchronous actions. An action that answered Running is
// running; when its parent moves on to another child (a higher-priority
// branch took over, or a condition before it failed) the parent halts it,
// which puts it back to idle, so that its next tick starts it afresh. An
// action that finished with Success or Failure is idle again by itself.
//
// Every tick records the active path, root first (Trace): the chain of
// nodes ticked last at each level, which is what the debug page shows.
//
// Trees are built once; ticking allocates nothing.
package bt

import "github.com/robotd/robotd/msg"

// Status is a node's answer to a tick.
type Status uint8

// Statuses.
const (
	Failure Status = iota
	Success
	Running
)

// String names the status.
func (s Status) String() string {
	switch s {
	case Failure:
		return "failure"
	case Success:
		return "success"
	case Running:
		return "running"
	}
	return "unknown"
}

// Node is a behaviour tree node over a context C (the tick's inputs and
// outputs).
type Node[C any] interface {
	// Name is the node's name in the path.
	Name() string
	// Tick runs the node once. Composites record themselves and their
	// ticked children in tr; leaves need not (Run records them).
	Tick(c *C, tr *Trace) Status
	// Halt stops a running node and its running children: it becomes
	// idle. Halting an idle node does nothing.
	Halt()
}

// Trace records the active path of one tick.
type Trace struct {
	path  msg.BehaviourPath
	depth int
}

// Reset starts a new tick's path.
func (t *Trace) Reset() { t.path.N, t.depth = 0, 0 }

// Path returns the recorded path.
func (t *Trace) Path() msg.BehaviourPath { return t.path }

// push records name at the next level; deeper levels recorded before are
// cut off.
func (t *Trace) push(name string) {
	if t.depth < msg.MaxPathDepth {
		t.path.Nodes[t.depth] = name
		t.path.N = t.depth + 1
	}
	t.depth++
}

func (t *Trace) pop() { t.depth-- }

// Run ticks n, recording it in tr.
func Run[C any](n Node[C], c *C, tr *Trace) Status {
	tr.push(n.Name())
	s := n.Tick(c, tr)
	tr.pop()
	return s
}

// Selector is a reactive fallback: every tick it tries its children in
// priority order and answers with the first that does not fail; a child
// that was running before and was not reached or lost is halted.
type Selector[C any] struct {
	name     string
	children []Node[C]
	running  int // index of the child that answered Running last tick, or -1
}

// NewSelector returns a selector.
func NewSelector[C any](name string, children ...Node[C]) *Selector[C] {
	return &Selector[C]{name: name, children: children, running: -1}
}

// Name implements Node.
func (s *Selector[C]) Name() string { return s.name }

// Tick implements Node.
func (s *Selector[C]) Tick(c *C, tr *Trace) Status {
	for i, ch := range s.children {
		st := Run(ch, c, tr)
		if st == Failure {
			continue
		}
		if s.running >= 0 && s.running != i {
			s.children[s.running].Halt()
		}
		s.running = -1
		if st == Running {
			s.running = i
		}
		return st
	}
	if s.running >= 0 {
		s.children[s.running].Halt()
		s.running = -1
	}
	return Failure
}

// Halt implements Node.
func (s *Selector[C]) Halt() {
	if s.running >= 0 {
		s.children[s.running].Halt()
		s.running = -1
	}
}

// Sequence runs its children in order. A reactive sequence starts from
// its first child every tick (conditions before a running action are
// checked again); one with memory resumes at the child that was running.
// It fails as soon as a child fails, runs while a child runs, and succeeds
// when all have succeeded.
type Sequence[C any] struct {
	name     string
	children []Node[C]
	memory   bool
	current  int // the child to resume at (memory), or that ran last
	running  int // the child that answered Running last tick, or -1
}

// NewSequence returns a reactive sequence.
func NewSequence[C any](name string, children ...Node[C]) *Sequence[C] {
	return &Sequence[C]{name: name, children: children, running: -1}
}

// NewSequenceMem returns a sequence with memory: a step that succeeded is
// not run again until the whole sequence finishes or is halted.
func NewSequenceMem[C any](name string, children ...Node[C]) *Sequence[C] {
	return &Sequence[C]{name: name, children: children, memory: true, running: -1}
}

// Name implements Node.
func (s *Sequence[C]) Name() string { return s.name }

// Tick implements Node.
func (s *Sequence[C]) Tick(c *C, tr *Trace) Status {
	start := 0
	if s.memory {
		start = s.current
	}
	for i := start; i < len(s.children); i++ {
		st := Run(s.children[i], c, tr)
		switch st {
		case Success:
			continue
		case Running:
			if s.running >= 0 && s.running != i {
				s.children[s.running].Halt()
			}
			s.running, s.current = i, i
			return Running
		default:
			if s.running >= 0 && s.running != i {
				s.children[s.running].Halt()
			}
			s.running, s.current = -1, 0
			return Failure
		}
	}
	if s.running >= 0 && s.running < start {
		s.children[s.running].Halt()
	}
	s.running, s.current = -1, 0
	return Success
}

// Halt implements Node.
func (s *Sequence[C]) Halt() {
	if s.running >= 0 {
		s.children[s.running].Halt()
	}
	s.running, s.current = -1, 0
}

// Condition is a leaf that succeeds when its predicate holds and fails
// otherwise.
type Condition[C any] struct {
	name string
	f    func(*C) bool
}

// If returns a condition.
func If[C any](name string, f func(*C) bool) *Condition[C] {
	return &Condition[C]{name: name, f: f}
}

// Name implements Node.
func (n *Condition[C]) Name() string { return n.name }

// Tick implements Node.
func (n *Condition[C]) Tick(c *C, _ *Trace) Status {
	if n.f(c) {
		return Success
	}
	return Failure
}

// Halt implements Node.
func (n *Condition[C]) Halt() {}

// Action is a leaf that runs a function every tick. Start, if set, runs
// on the first tick after the action was idle; Stop, if set, runs when it
// is halted while running.
type Action[C any] struct {
	name    string
	Start   func(*C)
	Step    func(*C) Status
	Stop    func()
	running bool
}

// Do returns an action running step every tick.
func Do[C any](name string, step func(*C) Status) *Action[C] {
	return &Action[C]{name: name, Step: step}
}

// Name implements Node.
func (a *Action[C]) Name() string { return a.name }

// Running reports whether the action is running.
func (a *Action[C]) Running() bool { return a.running }

// Tick implements Node.
func (a *Action[C]) Tick(c *C, _ *Trace) Status {
	if !a.running && a.Start != nil {
		a.Start(c)
	}
	st := a.Step(c)
	a.running = st == Running
	return st
}

// Halt implements Node.
func (a *Action[C]) Halt() {
	if a.running && a.Stop != nil {
		a.Stop()
	}
	a.running = false
}

// Inverter swaps its child's Success and Failure; Running stays.
type Inverter[C any] struct {
	name  string
	child Node[C]
}

// Invert returns an inverter named "not <child>".
func Invert[C any](child Node[C]) *Inverter[C] {
	return &Inverter[C]{name: "not " + child.Name(), child: child}
}

// Name implements Node.
func (n *Inverter[C]) Name() string { return n.name }

// Tick implements Node.
func (n *Inverter[C]) Tick(c *C, tr *Trace) Status {
	switch st := Run(n.child, c, tr); st {
	case Success:
		return Failure
	case Failure:
		return Success
	default:
		return st
	}
}

// Halt implements Node.
func (n *Inverter[C]) Halt() { n.child.Halt() }
