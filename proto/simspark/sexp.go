// Package simspark is the wire format of SimSpark / rcssserver3d
// (protocols.md §3, shared/traces/simspark): the 4-byte length framing, the
// S-expressions of perceptor messages (server → agent), effector messages
// (agent → server) and trainer commands (monitor port), parsers into
// reusable structs that allocate nothing in steady state, and encoders that
// append to a caller's buffer. Values stay in the server's units (degrees,
// deg/s, m/s², metres); converting to robotd's frame is the backend's job.
package simspark

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Limits.
const (
	// DefaultMaxDepth bounds the nesting of S-expressions.
	DefaultMaxDepth = 16
)

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("simspark: malformed message")

// SyntaxError says what is wrong with a message and at which byte.
type SyntaxError struct {
	Offset int
	What   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("simspark: malformed message at byte %d: %s", e.Offset, e.What)
}

func (e *SyntaxError) Unwrap() error { return ErrSyntax }

func errAt(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, What: fmt.Sprintf(format, args...)}
}

// node is one S-expression: a list or an atom. Children of a list are linked
// through next; -1 ends a chain.
type node struct {
	start, end  int32 // bytes of the atom, or of the whole list
	child, next int32 // child is atomChild for an atom
}

// atomChild marks an atom: it never has children.
const atomChild = -2

func (n *node) isList() bool { return n.child != atomChild }

// tree is a parsed message, reused between messages.
type tree struct {
	src   []byte
	nodes []node
	tops  int32 // first top-level node
}

// Character classes of the S-expression syntax.
const (
	clAtom = iota
	clSpace
	clOpen
	clClose
)

// charClass is a constant lookup table (never written after init).
var charClass = func() (c [256]uint8) {
	for _, b := range []byte{' ', '\t', '\n', '\r', 0} {
		c[b] = clSpace
	}
	c['('], c[')'] = clOpen, clClose
	return c
}()

// parse builds the tree of src: a sequence of top-level lists.
func (t *tree) parse(src []byte, maxDepth int) error {
	if maxDepth <= 0 || maxDepth > DefaultMaxDepth {
		maxDepth = DefaultMaxDepth
	}
	t.src = src
	t.tops = -1
	// Work on locals so the compiler keeps them in registers; every node is
	// linked to the previous sibling (or its parent) as it is made.
	nodes := t.nodes[:0]
	if need := len(src)/2 + 1; cap(nodes) < need {
		nodes = make([]node, 0, need)
	}
	depth := 0
	var stack [DefaultMaxDepth + 1]int32 // open list at each depth
	var last [DefaultMaxDepth + 1]int32  // last child at each depth (last[0]: last top)
	last[0] = -1
	for i := 0; i < len(src); {
		c := charClass[src[i]]
		if c == clSpace {
			i++
			continue
		}
		if c == clClose {
			if depth == 0 {
				t.nodes = nodes
				return errAt(i, "unbalanced ')'")
			}
			depth--
			nodes[stack[depth]].end = int32(i + 1)
			i++
			continue
		}
		idx := int32(len(nodes))
		nd := node{start: int32(i), child: -1, next: -1}
		if c == clOpen {
			if depth >= maxDepth {
				t.nodes = nodes
				return errAt(i, "nesting deeper than %d", maxDepth)
			}
			i++
		} else {
			j := i + 1
			for j < len(src) && charClass[src[j]] == clAtom {
				j++
			}
			if depth == 0 {
				t.nodes = nodes
				return errAt(i, "text %q outside parentheses", clip(src[i:j]))
			}
			nd.end, nd.child = int32(j), atomChild
			i = j
		}
		nodes = append(nodes, nd)
		switch {
		case last[depth] >= 0:
			nodes[last[depth]].next = idx
		case depth == 0:
			t.tops = idx
		default:
			nodes[stack[depth-1]].child = idx
		}
		last[depth] = idx
		if nd.isList() {
			stack[depth] = idx
			depth++
			last[depth] = -1
		}
	}
	t.nodes = nodes
	if depth != 0 {
		return errAt(len(src), "%d unclosed '('", depth)
	}
	return nil
}

func clip(b []byte) []byte {
	if len(b) > 20 {
		return b[:20]
	}
	return b
}

func (t *tree) text(n int32) []byte {
	if n < 0 {
		return nil
	}
	nd := &t.nodes[n]
	return t.src[nd.start:nd.end]
}

// next returns the node after n, or -1.
func (t *tree) next(n int32) int32 {
	if n < 0 {
		return -1
	}
	return t.nodes[n].next
}

// head returns the first child of list n if it is an atom.
func (t *tree) head(n int32) ([]byte, int32, bool) {
	nd := &t.nodes[n]
	if !nd.isList() || nd.child < 0 || t.nodes[nd.child].isList() {
		return nil, -1, false
	}
	return t.text(nd.child), nd.child, true
}

func (t *tree) count(first int32) int {
	n := 0
	for c := first; c >= 0; c = t.nodes[c].next {
		n++
	}
	return n
}

// num parses atom n as a number.
func (t *tree) num(n int32) (float64, error) {
	if n < 0 {
		return 0, errAt(len(t.src), "missing number")
	}
	nd := &t.nodes[n]
	if nd.isList() {
		return 0, errAt(int(nd.start), "want a number, got a list")
	}
	v, ok := parseFloat(t.src[nd.start:nd.end])
	if !ok {
		return 0, errAt(int(nd.start), "bad number %q", clip(t.text(n)))
	}
	return v, nil
}

// nums parses count numbers from the chain starting at n into dst and
// returns the node after them.
func (t *tree) nums(n int32, dst []float64, what []byte) (int32, error) {
	for i := range dst {
		if n < 0 {
			return -1, errAt(len(t.src), "%s: want %d numbers, got %d", what, len(dst), i)
		}
		v, err := t.num(n)
		if err != nil {
			return -1, fmt.Errorf("%s: %w", what, err)
		}
		dst[i] = v
		n = t.nodes[n].next
	}
	return n, nil
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses a decimal number without allocating in the common case
// (≤ 15 significant digits, small exponent: exact by Clinger's fast path)
// and falls back to strconv otherwise, so results are always correctly
// rounded.
func parseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 1024 {
		return 0, false
	}
	i, neg := 0, false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i++
	}
	var mant uint64
	digits, exp := 0, 0
	sawDigit, sawDot := false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if mant == 0 && c == '0' {
				if sawDot {
					exp--
				}
				continue
			}
			if digits >= 19 {
				return slowFloat(b)
			}
			mant = mant*10 + uint64(c-'0')
			digits++
			if sawDot {
				exp--
			}
		case c == '.' && !sawDot:
			sawDot = true
		case (c == 'e' || c == 'E') && sawDigit:
			return slowFloat(b)
		default:
			return 0, false
		}
	}
	if !sawDigit {
		return 0, false
	}
	f := float64(mant)
	if digits > 15 || exp < -22 || exp > 22 {
		return slowFloat(b)
	}
	if exp < 0 {
		f /= pow10[-exp]
	} else {
		f *= pow10[exp]
	}
	if neg {
		f = -f
	}
	return f, true
}

func slowFloat(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// parseInt parses a small decimal integer.
func parseInt(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Number formatting for encoders.

// Format says how encoders write numbers.
type Format struct {
	// Decimals is the number of decimals, as the server writes them (2);
	// -1 writes the shortest text that parses back to the same value.
	Decimals int
}

// Exact is the lossless format; Server the server's own.
var (
	Exact  = Format{Decimals: -1}
	Server = Format{Decimals: 2}
)

func (f Format) num(dst []byte, v float64) []byte {
	if f.Decimals < 0 {
		return strconv.AppendFloat(dst, v, 'g', -1, 64)
	}
	return strconv.AppendFloat(dst, v, 'f', f.Decimals, 64)
}
