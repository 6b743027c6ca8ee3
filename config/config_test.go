package config_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
)

type sub struct {
	Period config.Duration `json:"period"`
	Gain   float64         `json:"gain"`
}

type cfg struct {
	Name string `json:"name"`
	Sub  sub    `json:"sub"`
}

func TestDecode(t *testing.T) {
	def := func() cfg { return cfg{Name: "def", Sub: sub{Period: config.Duration(10 * time.Millisecond), Gain: 1}} }
	tests := []struct {
		name, in string
		want     cfg
		err      string
	}{
		{"empty object keeps defaults", `{}`, def(), ""},
		{"partial override", `{"sub": {"gain": 2}}`, cfg{Name: "def", Sub: sub{Period: config.Duration(10 * time.Millisecond), Gain: 2}}, ""},
		{"duration string", `{"sub": {"period": "20ms"}}`, cfg{Name: "def", Sub: sub{Period: config.Duration(20 * time.Millisecond), Gain: 1}}, ""},
		{"duration without a unit", `{"sub": {"period": 5}}`, cfg{}, `want a string with a unit like "10ms"`},
		{"duration string without a unit", `{"sub": {"period": "1"}}`, cfg{}, `missing unit`},
		{"null", `{"sub": {"gain": null}}`, cfg{}, "sub.gain: null is not a value"},
		{"null section", `{"sub": null}`, cfg{}, "sub: null is not a value"},
		{"null top", `null`, cfg{}, "the configuration: null"},
		{"duplicate key", `{"sub": {"gain": 2, "gain": 3}}`, cfg{}, "sub.gain: the key is given twice"},
		{"duplicate section", `{"name": "a", "sub": {}, "sub": {}}`, cfg{}, "sub: the key is given twice"},
		{"same key in two objects", `{"sub": {"gain": 2}, "name": "gain"}`, cfg{Name: "gain", Sub: sub{Period: config.Duration(10 * time.Millisecond), Gain: 2}}, ""},
		{"unknown key", "{\n  \"sub\": {\"gian\": 2}}", cfg{}, `line 2 column 22: json: unknown field "gian"`},
		{"bad duration", `{"sub": {"period": "fast"}}`, cfg{}, `duration "fast"`},
		{"wrong type", `{"name": 3}`, cfg{}, "cannot unmarshal number"},
		{"syntax", `{"name": }`, cfg{}, "line 1 column 11: invalid character"},
		{"trailing", `{} {}`, cfg{}, "unexpected data after the top-level object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := def()
			err := config.Decode(strings.NewReader(tc.in), &got)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestDurationRoundTrip(t *testing.T) {
	b, err := json.Marshal(config.Duration(1500 * time.Microsecond))
	if err != nil || string(b) != `"1.5ms"` {
		t.Fatalf("marshal = %s, %v", b, err)
	}
}

// FuzzDecode: no input makes Decode panic, and what it accepts has no
// null and no key twice.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"name": "x", "sub": {"period": "1s", "gain": 2}}`, `{"sub": null}`,
		`{"a": 1, "a": 2}`, `[1, {"x": null}]`, `{"sub": {"period": 5}}`, `{`, `nul`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var c cfg
		if err := config.Decode(strings.NewReader(string(in)), &c); err != nil {
			return
		}
		var tree any
		if err := json.Unmarshal(in, &tree); err != nil {
			t.Fatalf("accepted %q, which is not JSON: %v", in, err)
		}
		if hasNull(tree) {
			t.Fatalf("accepted %q, which has a null", in)
		}
	})
}

func hasNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}
