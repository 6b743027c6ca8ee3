package simspark

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestPerceptionErrors(t *testing.T) {
	tests := []struct {
		name, msg, want string
	}{
		{"unbalanced close", "(time (now 1)))", "byte 14: unbalanced ')'"},
		{"unclosed", "(time (now 1)", "byte 13: 1 unclosed '('"},
		{"text outside", "hello(time (now 1))", "byte 0: text \"hello\" outside parentheses"},
		{"bad number", "(time (now 1.2.3))", "bad number \"1.2.3\""},
		{"missing number", "(GYR (n torso) (rt 1 2))", "GYR: want 3 numbers, got 2"},
		{"unknown joint", "(HJ (n xx9) (ax 1))", "HJ: unknown joint \"xx9\""},
		{"HJ without angle", "(HJ (n hj1))", "HJ needs (n name) and (ax deg)"},
		{"too deep", strings.Repeat("(", 20) + strings.Repeat(")", 20), "nesting deeper than 16"},
		{"GS unknown", "(GS (xx 1))", "GS: unknown field \"xx\""},
		{"GS bad score", "(GS (sl x))", "GS sl: bad value \"x\""},
		{"hear short", "(hear T 1)", "hear: want team, time, self or direction, message"},
		{"pol short", "(See (B (pol 1 2)))", "B: want 3 numbers, got 2"},
		{"nameless", "((a) 1)", "perceptor without a name"},
		{"infinity", "(time (now 1e999))", "bad number"},
	}
	var p Perception
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := p.Parse([]byte(tc.msg))
			if err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrSyntax containing %q", err, tc.want)
			}
		})
	}
}

func TestEffectorErrors(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"(he9 1)", `unknown effector "he9"`},
		{"(he1)", "he1: want one velocity"},
		{"(he1 x)", `bad number "x"`},
		{"(beam 1 2)", "beam: want 3 numbers, got 2"},
		{"(syn 1)", "syn takes no arguments"},
		{"(init (unum x))", `init: bad unum "x"`},
		{"(scene a b)", `scene: bad robot type "b"`},
		{"(((((he1 1)))))", "nesting deeper than 4"},
	}
	var e Effectors
	for _, tc := range tests {
		if err := e.Parse([]byte(tc.msg)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.msg, err, tc.want)
		}
	}
	for _, msg := range []string{"(ball)", "(agent (unum 1)(pos 1 2 3))", "(fly)", "(score (left x))", "(playMode)"} {
		if _, err := ParseTrainer([]byte(msg)); err == nil {
			t.Errorf("trainer %s: no error", msg)
		}
	}
}

func TestFrames(t *testing.T) {
	var stream []byte
	stream = AppendFrame(stream, []byte("(syn)"))
	stream, off := BeginFrame(stream)
	stream = append(stream, "(he1 1)"...)
	stream = EndFrame(stream, off)
	fr := NewFrameReader(bytes.NewReader(stream), 0)
	for _, want := range []string{"(syn)", "(he1 1)"} {
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
	}{
		{"too large", []byte{0, 0, 1, 0}, 100, ErrFrameTooLarge},
		{"truncated payload", []byte{0, 0, 0, 5, 'a'}, 0, ErrTruncated},
		{"truncated length", []byte{0, 0}, 0, ErrTruncated},
	}
	for _, tc := range tests {
		_, err := NewFrameReader(bytes.NewReader(tc.stream), tc.max).Next()
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
	}
}

func TestParseFloatExact(t *testing.T) {
	for _, s := range []string{"0", "-0.00", "1.25", "351.77", "-0.000001", "123456789012345", "1234567890123456789", "0.1", "9.81", "1e5", "2.5E-3", "100.0", "+3"} {
		got, ok := parseFloat([]byte(s))
		want, err := parseStd(s)
		if !ok || err != nil || got != want {
			t.Errorf("parseFloat(%q) = %v, %v; strconv %v, %v", s, got, ok, want, err)
		}
	}
	for _, s := range []string{"", "-", ".", "1.2.3", "abc", "1-2", "e5"} {
		if _, ok := parseFloat([]byte(s)); ok {
			t.Errorf("parseFloat(%q) accepted", s)
		}
	}
}
