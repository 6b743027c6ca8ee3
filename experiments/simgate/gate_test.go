package simgate

import "testing"

func TestMessageTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"\x00\x00\x00\x10(time (now 12.34))(GS (t 0))", 12.34, true},
		{"(time (now 0.01))", 0.01, true},
		{"(GS (t 0))", 0, false},
		{"(time (now x))", 0, false},
	} {
		got, ok := messageTime([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("messageTime(%q) = %v, %v", tc.in, got, ok)
		}
	}
}
