package config

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestBetween: open and closed ends, NaN-free numbers only.
func TestBetween(t *testing.T) {
	for _, tc := range []struct {
		rule    Rule
		v       string
		ok      bool
		allowed string
	}{
		{Between(0, 1, false, false), "0", true, "0 … 1"},
		{Between(0, 1, false, false), "1", true, "0 … 1"},
		{Between(0, 1, true, false), "0", false, "0 < x ≤ 1"},
		{Between(0, 1, true, false), "1", true, "0 < x ≤ 1"},
		{Between(0, 1, false, true), "1", false, "0 ≤ x < 1"},
		{Between(0, 1, true, true), "0.5", true, "0 < x < 1"},
		{Between(0, 1, true, true), "1.5", false, "0 < x < 1"},
		{Range(-2, 2), "-2", true, "−2 … 2"},
		{Range(-2, 2), "2.0001", false, "−2 … 2"},
	} {
		err := tc.rule.Check(json.Number(tc.v))
		if (err == nil) != tc.ok {
			t.Errorf("%s on %s: err %v, want ok=%v", tc.allowed, tc.v, err, tc.ok)
		}
		if got := tc.rule.Allowed(); got != tc.allowed {
			t.Errorf("allowed %q, want %q", got, tc.allowed)
		}
	}
	if err := Range(0, 1).Check("x"); err == nil {
		t.Error("a string passed a number's rule")
	}
}

// TestRulesAddSection: Add prefixes a section's keys, Section takes them
// back, and a key given twice panics.
func TestRulesAddSection(t *testing.T) {
	sub := Rules{"a": Bool(), "b.c": Range(0, 1).Doc("m", "a length")}
	r := Rules{}.Add("x", sub).Add("y.z", sub)
	for _, k := range []string{"x.a", "x.b.c", "y.z.a", "y.z.b.c"} {
		if _, ok := r[k]; !ok {
			t.Errorf("no rule %s in %v", k, r)
		}
	}
	if got := r.Section("y.z"); len(got) != 2 || got["b.c"].Unit() != "m" || got["b.c"].Meaning() != "a length" {
		t.Errorf("Section(y.z) = %v", got)
	}
	if got := r.Section("x.b"); len(got) != 1 {
		t.Errorf("Section(x.b) = %v, want b.c's rule as c", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a rule given twice did not panic")
		}
	}()
	r.Add("x", Rules{"a": Bool()})
}

// TestCheckSectionNamesTheWholeKey: errors carry section.key.
func TestCheckSectionNamesTheWholeKey(t *testing.T) {
	type inner struct {
		Gain float64 `json:"gain"`
	}
	type cfg struct {
		In inner `json:"in"`
	}
	err := CheckSection("walk", cfg{In: inner{Gain: 3}}, Rules{"in.gain": Range(0, 1)})
	if err == nil || !strings.Contains(err.Error(), "walk.in.gain") {
		t.Errorf("err %v, want one naming walk.in.gain", err)
	}
	if err := CheckSection("walk", cfg{In: inner{Gain: 0.5}}, Rules{"in.gain": Range(0, 1)}); err != nil {
		t.Errorf("in range: %v", err)
	}
}

// TestWriteDoc: one table per section in the config's order, keys with
// default, allowed values, unit and meaning; a setting without a rule or
// a rule without a meaning is an error.
func TestWriteDoc(t *testing.T) {
	type sec struct {
		Speed float64 `json:"speed"`
		Name  string  `json:"name"`
	}
	type cfg struct {
		Walk sec `json:"walk"`
		Kick sec `json:"kick"`
	}
	c := cfg{Walk: sec{Speed: 0.2, Name: "w|x"}, Kick: sec{Speed: 1}}
	rules := Rules{}
	for _, s := range []string{"walk", "kick"} {
		rules.Add(s, Rules{"speed": Range(0, 10).Doc("m/s", "how fast"), "name": Text(0, 9).Doc("", "its name")})
	}
	var b bytes.Buffer
	if err := WriteDoc(&b, c, rules); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"## `walk`", "## `kick`", "| `walk.speed` | `0.2` | 0 … 10 | m/s | how fast |", "| `walk.name` | `\"w\\|x\"` |", "| — | its name |"} {
		if !strings.Contains(out, want) {
			t.Errorf("doc lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "## `walk`") > strings.Index(out, "## `kick`") {
		t.Errorf("sections out of the config's order:\n%s", out)
	}
	delete(rules, "kick.name")
	if err := WriteDoc(&b, c, rules); err == nil || !strings.Contains(err.Error(), "kick.name") {
		t.Errorf("a setting without a rule: err %v", err)
	}
	rules["kick.name"] = Text(0, 9)
	if err := WriteDoc(&b, c, rules); err == nil || !strings.Contains(err.Error(), "no meaning") {
		t.Errorf("a rule without a meaning: err %v", err)
	}
}
