package config_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/robotd/robotd/config"
)

// nested returns n levels of objects ({"a": ...}), arrays ([...]) or both
// in turn, around 1.
func nested(kind string, n int) string {
	var open, close strings.Builder
	for i := range n {
		if kind == "objects" || (kind == "mixed" && i%2 == 0) {
			open.WriteString(`{"a":`)
			close.WriteString("}")
		} else {
			open.WriteString("[")
			close.WriteString("]")
		}
	}
	return open.String() + "1" + reverse(close.String())
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// TestDecodeRefusesDeepNesting: a configuration nested deeper than
// MaxDepth is refused with an error that says so and where, however deep
// it goes (100 000 levels included); MaxDepth levels are accepted.
func TestDecodeRefusesDeepNesting(t *testing.T) {
	for _, kind := range []string{"objects", "arrays", "mixed"} {
		for _, n := range []int{config.MaxDepth + 1, 10_000, 100_000} {
			var v any
			err := config.Decode(strings.NewReader(nested(kind, n)), &v)
			if err == nil || !strings.Contains(err.Error(), "nested deeper than 100 levels") || !strings.HasPrefix(err.Error(), "config: line 1 column ") {
				t.Errorf("%d levels of %s: error %v, want one about the nesting", n, kind, err)
			}
		}
		var v any
		if err := config.Decode(strings.NewReader(nested(kind, config.MaxDepth)), &v); err != nil {
			t.Errorf("%d levels of %s: %v", config.MaxDepth, kind, err)
		}
	}
}

// TestDecodeNamesNestedKeys: the keys in errors are the values' paths,
// also after nested siblings.
func TestDecodeNamesNestedKeys(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": [1, {"b": null}]}`, "a.1.b: null is not a value"},
		{`{"a": {"x": [1, 2]}, "b": {"x": 1, "x": 2}}`, "b.x: the key is given twice"},
		{`[[1], [2, [3, null]]]`, "1.1.1: null is not a value"},
	} {
		var v any
		if err := config.Decode(strings.NewReader(tc.in), &v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestSetRefusesDeepValue: a command-line value nested deeper than
// MaxDepth is refused too.
func TestSetRefusesDeepValue(t *testing.T) {
	type c struct {
		M map[string]any `json:"m"`
	}
	fresh := func() c { return c{M: map[string]any{"x": 1}} }
	dst := fresh()
	err := config.Set(&dst, "m.x="+nested("arrays", 5000), fresh)
	if err == nil || !strings.Contains(err.Error(), "nested deeper than") {
		t.Fatalf("error %v", err)
	}
	if err := config.Set(&dst, "m.x="+nested("arrays", 10), fresh); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(dst.M["x"]); string(b) != nested("arrays", 10) {
		t.Fatalf("m.x = %s", b)
	}
}

// BenchmarkDecodeDeep is Decode on 100 000 levels of nesting: the refusal
// takes time linear in the input.
func BenchmarkDecodeDeep(b *testing.B) {
	in := nested("mixed", 100_000)
	for b.Loop() {
		var v any
		if err := config.Decode(strings.NewReader(in), &v); err == nil {
			b.Fatal("accepted")
		}
	}
}
