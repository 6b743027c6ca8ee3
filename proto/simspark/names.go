package simspark

// JointID names one of the NAO model's hinge joints. The perceptor calls it
// e.g. "hj1" (HJ), the effector "he1".
type JointID uint8

// The joints of the NAO models (type 0 has no toes; type 4 adds llj7/rlj7).
const (
	HJ1 JointID = iota
	HJ2
	LAJ1
	LAJ2
	LAJ3
	LAJ4
	RAJ1
	RAJ2
	RAJ3
	RAJ4
	LLJ1
	LLJ2
	LLJ3
	LLJ4
	LLJ5
	LLJ6
	LLJ7
	RLJ1
	RLJ2
	RLJ3
	RLJ4
	RLJ5
	RLJ6
	RLJ7
	// NumJoints counts the joint IDs.
	NumJoints
)

var perceptorNames = [NumJoints]string{
	"hj1", "hj2", "laj1", "laj2", "laj3", "laj4", "raj1", "raj2", "raj3", "raj4",
	"llj1", "llj2", "llj3", "llj4", "llj5", "llj6", "llj7", "rlj1", "rlj2", "rlj3", "rlj4", "rlj5", "rlj6", "rlj7",
}

var effectorNames = [NumJoints]string{
	"he1", "he2", "lae1", "lae2", "lae3", "lae4", "rae1", "rae2", "rae3", "rae4",
	"lle1", "lle2", "lle3", "lle4", "lle5", "lle6", "lle7", "rle1", "rle2", "rle3", "rle4", "rle5", "rle6", "rle7",
}

// PerceptorName returns the joint's name in HJ perceptors ("hj1").
func (j JointID) PerceptorName() string { return perceptorNames[j] }

// EffectorName returns the joint's effector name ("he1").
func (j JointID) EffectorName() string { return effectorNames[j] }

func (j JointID) String() string {
	if j < NumJoints {
		return perceptorNames[j]
	}
	return "joint?"
}

// JointByPerceptorName finds a joint by its HJ name.
func JointByPerceptorName(name []byte) (JointID, bool) {
	return jointByName(name, 'j', &perceptorNames)
}

// JointByEffectorName finds a joint by its effector name.
func JointByEffectorName(name []byte) (JointID, bool) { return jointByName(name, 'e', &effectorNames) }

// jointByName decodes names of the form h?N, la?N, ra?N, ll?N, rl?N where ?
// is kind ('j' for perceptors, 'e' for effectors), without a table scan.
func jointByName(b []byte, kind byte, table *[NumJoints]string) (JointID, bool) {
	var base JointID
	var n int
	switch {
	case len(b) == 3 && b[0] == 'h' && b[1] == kind:
		base, n = HJ1, 2
	case len(b) == 4 && b[2] == kind && b[1] == 'a' && b[0] == 'l':
		base, n = LAJ1, 4
	case len(b) == 4 && b[2] == kind && b[1] == 'a' && b[0] == 'r':
		base, n = RAJ1, 4
	case len(b) == 4 && b[2] == kind && b[1] == 'l' && b[0] == 'l':
		base, n = LLJ1, 7
	case len(b) == 4 && b[2] == kind && b[1] == 'l' && b[0] == 'r':
		base, n = RLJ1, 7
	default:
		return 0, false
	}
	d := int(b[len(b)-1]) - '1'
	if d < 0 || d >= n {
		return 0, false
	}
	id := base + JointID(d)
	return id, string(b) == table[id]
}

// Span is a string stored in a message struct's arena (see Perception.Str).
type Span struct{ Off, Len uint32 }

// arena holds the strings of a message, reused between messages.
type arena struct{ buf []byte }

func (a *arena) add(b []byte) Span {
	s := Span{Off: uint32(len(a.buf)), Len: uint32(len(b))}
	a.buf = append(a.buf, b...)
	return s
}

func (a *arena) bytes(s Span) []byte { return a.buf[s.Off : s.Off+s.Len] }

// Intern stores s and returns its span, for building messages to encode.
func (a *arena) Intern(s string) Span {
	sp := Span{Off: uint32(len(a.buf)), Len: uint32(len(s))}
	a.buf = append(a.buf, s...)
	return sp
}

// Bytes returns the bytes of a span; valid until the next parse or reset.
func (a *arena) Bytes(s Span) []byte { return a.bytes(s) }

// Str returns the string of a span (it allocates).
func (a *arena) Str(s Span) string { return string(a.bytes(s)) }

// Is reports whether a span holds s.
func (a *arena) Is(sp Span, s string) bool { return string(a.bytes(sp)) == s }
