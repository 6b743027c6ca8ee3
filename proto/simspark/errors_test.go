package simspark

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

// errCase is a malformed message and what the error must say: its kind,
// the byte offset and a fragment of the text.
type errCase struct {
	name string
	msg  string
	kind error
	off  int
	text string
}

func checkErr(t *testing.T, c errCase, err error) {
	t.Helper()
	var se *SyntaxError
	switch {
	case err == nil:
		t.Fatalf("%q parsed without error", c.msg)
	case !errors.As(err, &se):
		t.Fatalf("%v is a %T, want *SyntaxError", err, err)
	case !errors.Is(err, ErrSyntax) || !errors.Is(err, c.kind):
		t.Fatalf("%v does not wrap ErrSyntax and %v", err, c.kind)
	case se.Offset != c.off:
		t.Fatalf("%v: offset %d, want %d", err, se.Offset, c.off)
	case !strings.Contains(err.Error(), c.text):
		t.Fatalf("%v does not say %q", err, c.text)
	case !strings.Contains(err.Error(), "at byte "):
		t.Fatalf("%v does not say where", err)
	}
}

var deep = strings.Repeat("(", 17) + strings.Repeat(")", 17)

func TestPerceptionErrors(t *testing.T) {
	long := "(hear T 1 self " + strings.Repeat("x", DefaultMaxFrame) + ")"
	tests := []errCase{
		// Truncated.
		{"truncated list", "(time (now 1)", ErrUnbalanced, 13, "input ends inside 1 unclosed '('"},
		{"truncated See", "(See (B (pol 1 2 3)) (P (team", ErrUnbalanced, 29, "input ends inside 3 unclosed '('"},
		{"truncated number", "(HJ (n hj1) (ax 1.", ErrUnbalanced, 18, "HJ ax: input ends inside 2 unclosed '('"},
		{"truncated unknown", "(foo (bar", ErrUnbalanced, 9, "input ends inside 2 unclosed '('"},
		{"truncated hear", "(hear T 1 self", ErrUnbalanced, 14, "hear: input ends"},
		// Unbalanced.
		{"extra close", "(time (now 1)))", ErrUnbalanced, 14, "unbalanced ')'"},
		{"close first", ")(time (now 1))", ErrUnbalanced, 0, "unbalanced ')'"},
		{"close inside", "(GS (t 1)) (pm x))", ErrUnbalanced, 17, "unbalanced ')'"},
		// Numbers.
		{"two dots", "(time (now 1.2.3))", ErrBadNumber, 11, `time now: bad number "1.2.3"`},
		{"letters", "(GYR (n torso) (rt 1 x 3))", ErrBadNumber, 21, `GYR: bad number "x"`},
		{"nan", "(ACC (n torso) (a 0 0 nan))", ErrBadNumber, 22, `bad number "nan"`},
		{"overflow", "(time (now 1e999))", ErrBadNumber, 11, `bad number "1e999"`},
		{"hex", "(HJ (n hj1) (ax 0x10))", ErrBadNumber, 16, `HJ ax: bad number "0x10"`},
		{"bad integer", "(GS (sl 1.5))", ErrBadNumber, 8, `GS sl: bad integer "1.5"`},
		{"huge integer", "(GS (unum 1234567890))", ErrBadNumber, 10, `GS unum: bad integer "1234567890"`},
		{"bad hear time", "(hear T x self hi)", ErrBadNumber, 8, `hear time: bad number "x"`},
		{"bad pol", "(See (B (pol 1 - 3)))", ErrBadNumber, 15, `pol: bad number "-"`},
		{"missing number", "(GYR (n torso) (rt 1 2))", ErrMissing, 22, "GYR: want a number, found ')'"},
		{"extra number", "(See (mypos 1 2 3 4))", ErrUnexpected, 18, `mypos: want ')', found "4"`},
		{"short pol", "(See (B (pol 1 2)))", ErrMissing, 16, "pol: want a number, found ')'"},
		{"list for number", "(HJ (n hj1) (ax (1)))", ErrUnexpected, 16, "HJ ax: want a number, found '('"},
		// Too deep, too long.
		{"too deep", deep, ErrTooDeep, 16, "lists nested deeper than 16"},
		{"too deep in See", "(See (X " + deep + "))", ErrTooDeep, 22, "nested deeper than 16"},
		{"too long", long, ErrTooLong, 0, "longer than 1048576"},
		// Names.
		{"unknown joint", "(HJ (n xx9) (ax 1))", ErrUnknownJoint, 7, `HJ: unknown joint "xx9"`},
		{"effector name in HJ", "(HJ (n he1) (ax 1))", ErrUnknownJoint, 7, `HJ: unknown joint "he1"`},
		{"joint 8", "(HJ (n llj8) (ax 1))", ErrUnknownJoint, 7, `unknown joint "llj8"`},
		{"HJ without angle", "(HJ (n hj1))", ErrMissing, 0, "HJ: want (n name) and (ax deg)"},
		{"FRP without force", "(time (now 1))(FRP (n lf) (c 0 0 0))", ErrMissing, 14, "FRP: want (n name), (c x y z) and (f x y z)"},
		{"time without now", "(time)", ErrMissing, 0, "time: missing (now t)"},
		{"short hear", "(hear T 1)", ErrMissing, 0, "hear: want [team] time self|direction message, got 2 values"},
		{"long hear", "(hear T 1 self a b)", ErrUnexpected, 17, `hear: want [team] time self|direction message, found "b"`},
		{"line with one end", "(See (L (pol 1 2 3)))", ErrMissing, 19, "L: want two (pol d h v), got 1"},
		{"part without pol", "(See (P (team T) (head)))", ErrMissing, 17, `P: body part "head" without (pol d h v)`},
		// Repeats.
		{"two times", "(time (now 1))(time (now 2))", ErrRepeated, 14, "more than one time perceptor"},
		{"two See", "(See)(See)", ErrRepeated, 5, "more than one See perceptor"},
		{"repeated field", "(FRP (n lf) (c 0 0 0) (f 0 0 0) (n rf))", ErrRepeated, 32, "FRP: repeated (n …)"},
		{"two mypos", "(See (mypos 1 2 3) (mypos 1 2 3))", ErrRepeated, 19, "See: repeated (mypos …)"},
		// Garbage.
		{"text outside", "hello(time (now 1))", ErrUnexpected, 0, `text "hello" outside parentheses`},
		{"text after", "(time (now 1)) junk", ErrUnexpected, 15, `text "junk" outside parentheses`},
		{"binary", "\x01\x02\xff(", ErrUnexpected, 0, "outside parentheses"},
		{"atom for field", "(GS sl 0)", ErrUnexpected, 4, `GS: want a (name …) list, found "sl"`},
		{"nameless field", "(GS ((sl) 0))", ErrUnexpected, 4, "GS: want a (name …) list, found a list without a name"},
		{"list in hear", "(hear T 1 (self) x)", ErrUnexpected, 10, "hear: want [team] time self|direction message, found '('"},
		// Found by fuzzing: a field not closed after its value.
		{"unclosed name", "(HJ (n raj1 (ax 0)))", ErrUnexpected, 12, "HJ n: want ')', found '('"},
		{"extra name", "(GYR (n torso extra) (rt 0 0 0))", ErrUnexpected, 14, `GYR: want ')', found "extra"`},
		{"extra FRP name", "(FRP (n lf rf) (c 0 0 0) (f 0 0 0))", ErrUnexpected, 11, `FRP n: want ')', found "rf"`},
		{"extra TCH name", "(TCH (n a b) (val 1))", ErrUnexpected, 10, `TCH n: want ')', found "b"`},
	}
	var p Perception
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) { checkErr(t, c, p.Parse([]byte(c.msg))) })
	}
}

func TestEffectorErrors(t *testing.T) {
	tests := []errCase{
		{"truncated", "(he1 1", ErrUnbalanced, 6, "he1: input ends inside 1 unclosed '('"},
		{"unbalanced", "(syn))", ErrUnbalanced, 5, "unbalanced ')'"},
		{"no velocity", "(he1)", ErrMissing, 4, "he1: want a number, found ')'"},
		{"two velocities", "(rle6 1 2)", ErrUnexpected, 8, `rle6: want ')', found "2"`},
		{"bad velocity", "(he1 x)", ErrBadNumber, 5, `he1: bad number "x"`},
		{"short beam", "(beam 1 2)", ErrMissing, 9, "beam: want a number, found ')'"},
		{"syn with argument", "(syn 1)", ErrUnexpected, 5, `syn: want ')', found "1"`},
		{"bad unum", "(init (unum x))", ErrBadNumber, 12, `init unum: bad integer "x"`},
		{"bad scene type", "(scene a b)", ErrBadNumber, 9, `scene type: bad integer "b"`},
		{"scene without path", "(scene)", ErrMissing, 6, "scene: want a name, found ')'"},
		{"two beams", "(beam 1 2 3)(beam 1 2 3)", ErrRepeated, 12, "more than one beam effector"},
		{"say two words", "(say a b)", ErrUnexpected, 7, `say: want ')', found "b"`},
		{"too deep", deep, ErrTooDeep, 16, "nested deeper than 16"},
		{"garbage", "he1 1", ErrUnexpected, 0, `text "he1" outside parentheses`},
	}
	var e Effectors
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) { checkErr(t, c, e.Parse([]byte(c.msg))) })
	}
}

func TestTrainerErrors(t *testing.T) {
	tests := []errCase{
		{"truncated", "(ball (pos 1 2 3)", ErrUnbalanced, 17, "ball: input ends"},
		{"short pos", "(ball (pos 1 2))", ErrMissing, 14, "pos: want a number, found ')'"},
		{"short move", "(agent (unum 1)(team Left)(move 1 2 3))", ErrMissing, 37, "move: want a number, found ')'"},
		{"bad unum", "(agent (unum one))", ErrBadNumber, 13, `unum: bad integer "one"`},
		{"play mode missing", "(playMode)", ErrMissing, 9, "playMode: want a name, found ')'"},
		{"score half", "(score (left 1))", ErrMissing, 0, "score: want (left a)(right b)"},
		{"bad time", "(time soon)", ErrBadNumber, 6, `time: bad number "soon"`},
		{"dropBall with argument", "(dropBall now)", ErrUnexpected, 10, `dropBall: want ')', found "now"`},
		{"repeated pos", "(ball (pos 1 2 3)(pos 1 2 3))", ErrRepeated, 17, "ball: repeated (pos …)"},
		{"garbage", "ball", ErrUnexpected, 0, `text "ball" outside parentheses`},
	}
	var m TrainerMessage
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) { checkErr(t, c, m.Parse([]byte(c.msg))) })
	}
}

func TestScanner(t *testing.T) {
	var s Scanner
	s.Reset([]byte(" (See (B (pol 1 -2.5 3)))\t(x)\n"), 0)
	var got []string
	for {
		tok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if tok == TokenEOF {
			break
		}
		if tok == TokenAtom {
			got = append(got, string(s.Atom())+"@"+strconv.Itoa(s.Offset()))
		} else {
			got = append(got, tok.String())
		}
	}
	if want := "( See@2 ( B@7 ( pol@10 1@14 -2.5@16 3@21 ) ) ) ( x@27 )"; strings.Join(got, " ") != want {
		t.Fatalf("tokens %s\nwant   %s", strings.Join(got, " "), want)
	}
	// Skip.
	s.Reset([]byte("(a (b c) d) (e)"), 0)
	s.Next()
	s.Next()
	if err := s.Skip(); err != nil || s.Depth() != 0 {
		t.Fatalf("skip: %v, depth %d", err, s.Depth())
	}
	if tok, _ := s.Next(); tok != TokenOpen || s.Offset() != 12 {
		t.Fatalf("after skip: %v at %d", tok, s.Offset())
	}
	// Errors are sticky.
	for _, c := range []errCase{
		{"unclosed", "(a (b)", ErrUnbalanced, 6, "input ends inside 1 unclosed '('"},
		{"unbalanced", "a)", ErrUnbalanced, 1, "unbalanced ')'"},
		{"deep", "((((", ErrTooDeep, 3, "nested deeper than 3"},
	} {
		s.Reset([]byte(c.msg), 3)
		var err error
		for range 10 {
			if _, err = s.Next(); err != nil {
				break
			}
		}
		checkErr(t, c, err)
		if _, err2 := s.Next(); err2 != err {
			t.Fatalf("%s: error not sticky: %v then %v", c.name, err, err2)
		}
	}
}

func TestFrames(t *testing.T) {
	var stream []byte
	stream = AppendFrame(stream, []byte("(syn)"))
	stream, off := BeginFrame(stream)
	stream = append(stream, "(he1 1)"...)
	stream = EndFrame(stream, off)
	stream = AppendFrame(stream, nil)
	if !bytes.HasPrefix(stream, []byte("\x00\x00\x00\x05(syn)\x00\x00\x00\x07(he1 1)\x00\x00\x00\x00")) {
		t.Fatalf("stream %q", stream)
	}
	fr := NewFrameReader(bytes.NewReader(stream), 0)
	for _, want := range []string{"(syn)", "(he1 1)", ""} {
		got, err := fr.Next()
		if err != nil || string(got) != want {
			t.Fatalf("frame %q, %v; want %q", got, err, want)
		}
	}
	if _, err := fr.Next(); err != io.EOF {
		t.Fatalf("end: %v, want io.EOF", err)
	}
	tests := []struct {
		name   string
		stream []byte
		max    int
		err    error
		text   string
	}{
		{"too large", []byte{0, 0, 1, 0}, 100, ErrFrameTooLarge, "frame too large: 256 bytes (limit 100)"},
		{"huge", []byte{0xff, 0xff, 0xff, 0xff}, 0, ErrFrameTooLarge, "4294967295 bytes (limit 1048576)"},
		{"truncated payload", []byte{0, 0, 0, 5, 'a'}, 0, ErrTruncated, "truncated frame: stream ends after 1 of 5 payload bytes"},
		{"truncated length", []byte{0, 0}, 0, ErrTruncated, "truncated frame: stream ends after 2 of the 4 length bytes"},
	}
	for _, tc := range tests {
		fr := NewFrameReader(bytes.NewReader(tc.stream), tc.max)
		_, err := fr.Next()
		if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v, want %v saying %q", tc.name, err, tc.err, tc.text)
		}
		if tc.err == ErrTruncated && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v does not wrap io.ErrUnexpectedEOF", tc.name, err)
		}
		if _, err2 := fr.Next(); err2 != err {
			t.Errorf("%s: error not sticky: %v", tc.name, err2)
		}
	}
	// Read errors are wrapped.
	_, err := NewFrameReader(errReader{}, 0).Next()
	if !errors.Is(err, errBroken) {
		t.Errorf("read error: %v", err)
	}
}

var errBroken = errors.New("broken pipe")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }
