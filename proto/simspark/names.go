package simspark

// JointID names one of the NAO model's hinge joints. The perceptor calls it
// e.g. "hj1" (HJ, angle in degrees), the effector "he1" (velocity in rad/s).
// The NAO joint named for each is the usual mapping (protocols.md §3.6);
// signs and frames are the backend's business.
type JointID uint8

// The joints of the NAO models (type 0 has no toes; type 4 adds llj7/rlj7).
const (
	HJ1  JointID = iota // hj1 / he1: HeadYaw
	HJ2                 // hj2 / he2: HeadPitch
	LAJ1                // laj1 / lae1: LShoulderPitch
	LAJ2                // laj2 / lae2: LShoulderRoll
	LAJ3                // laj3 / lae3: LElbowYaw
	LAJ4                // laj4 / lae4: LElbowRoll
	RAJ1                // raj1 / rae1: RShoulderPitch
	RAJ2                // raj2 / rae2: RShoulderRoll
	RAJ3                // raj3 / rae3: RElbowYaw
	RAJ4                // raj4 / rae4: RElbowRoll
	LLJ1                // llj1 / lle1: LHipYawPitch
	LLJ2                // llj2 / lle2: LHipRoll
	LLJ3                // llj3 / lle3: LHipPitch
	LLJ4                // llj4 / lle4: LKneePitch
	LLJ5                // llj5 / lle5: LAnklePitch
	LLJ6                // llj6 / lle6: LAnkleRoll
	LLJ7                // llj7 / lle7: left toe (type 4 only)
	RLJ1                // rlj1 / rle1: RHipYawPitch (one motor with LHipYawPitch on a real NAO)
	RLJ2                // rlj2 / rle2: RHipRoll
	RLJ3                // rlj3 / rle3: RHipPitch
	RLJ4                // rlj4 / rle4: RKneePitch
	RLJ5                // rlj5 / rle5: RAnklePitch
	RLJ6                // rlj6 / rle6: RAnkleRoll
	RLJ7                // rlj7 / rle7: right toe (type 4 only)
	// NumJoints counts the joint IDs.
	NumJoints
)

// Joint names, concatenated: a joint's name is 3 bytes for the head
// (hj1, he1) and 4 for the others, so its offset is computed (see name).
const (
	perceptorNames = "hj1hj2laj1laj2laj3laj4raj1raj2raj3raj4llj1llj2llj3llj4llj5llj6llj7rlj1rlj2rlj3rlj4rlj5rlj6rlj7"
	effectorNames  = "he1he2lae1lae2lae3lae4rae1rae2rae3rae4lle1lle2lle3lle4lle5lle6lle7rle1rle2rle3rle4rle5rle6rle7"
)

func (j JointID) name(names string) string {
	if j >= NumJoints {
		return "joint?"
	}
	if j < LAJ1 {
		return names[3*j : 3*j+3]
	}
	o := 6 + 4*int(j-LAJ1)
	return names[o : o+4]
}

// PerceptorName returns the joint's name in HJ perceptors ("hj1").
func (j JointID) PerceptorName() string { return j.name(perceptorNames) }

// EffectorName returns the joint's effector name ("he1").
func (j JointID) EffectorName() string { return j.name(effectorNames) }

// String returns the perceptor name.
func (j JointID) String() string { return j.name(perceptorNames) }

// JointByPerceptorName finds a joint by its HJ name.
func JointByPerceptorName(name []byte) (JointID, bool) { return jointByName(name, 'j') }

// JointByEffectorName finds a joint by its effector name.
func JointByEffectorName(name []byte) (JointID, bool) { return jointByName(name, 'e') }

// jointByName decodes names of the form h?N, la?N, ra?N, ll?N, rl?N where ?
// is kind ('j' for perceptors, 'e' for effectors), without a table scan.
func jointByName(b []byte, kind byte) (JointID, bool) {
	var base JointID
	var n int
	switch {
	case len(b) == 3 && b[0] == 'h' && b[1] == kind:
		base, n = HJ1, 2
	case len(b) != 4 || b[2] != kind:
		return 0, false
	case b[0] == 'l' && b[1] == 'a':
		base, n = LAJ1, 4
	case b[0] == 'r' && b[1] == 'a':
		base, n = RAJ1, 4
	case b[0] == 'l' && b[1] == 'l':
		base, n = LLJ1, 7
	case b[0] == 'r' && b[1] == 'l':
		base, n = RLJ1, 7
	default:
		return 0, false
	}
	d := int(b[len(b)-1]) - '1'
	if d < 0 || d >= n {
		return 0, false
	}
	return base + JointID(d), true
}

// Span is a string stored in a message struct's arena: read it with the
// struct's Bytes, Str or Is methods, make one with Intern. Parsing copies
// every string of a message into the arena, so a parsed struct keeps no
// reference to the input; the bytes stay valid until the next Parse or
// Reset.
type Span struct {
	Off, Len uint32 // where the string lies in the arena
}

// arena holds the strings of a message, reused between messages. Its
// methods are promoted to Perception, Effectors and TrainerMessage.
type arena struct{ buf []byte }

func (a *arena) add(b []byte) Span {
	s := Span{Off: uint32(len(a.buf)), Len: uint32(len(b))}
	a.buf = append(a.buf, b...)
	return s
}

// bytes returns the text of s, or nil if s does not lie in the arena (a
// Span of another message).
func (a *arena) bytes(s Span) []byte {
	end := uint64(s.Off) + uint64(s.Len)
	if end > uint64(len(a.buf)) {
		return nil
	}
	return a.buf[s.Off:end]
}

// Intern stores s in the arena and returns its span, for building messages
// to encode.
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
