package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// A Rule says which values one setting may take, and documents the
// setting: its unit and what it means (Doc). Rules check the setting as
// JSON decodes it with UseNumber: json.Number, string, bool, []any or
// map[string]any.
type Rule struct {
	check   func(v any) error
	allowed string
	unit    string
	doc     string
}

// Doc returns r documented: unit is the setting's unit ("m", "rad/s"; ""
// for a count, a flag, a name, a duration or a plain number), doc one
// line on what the setting means.
func (r Rule) Doc(unit, doc string) Rule {
	r.unit, r.doc = unit, doc
	return r
}

// Allowed says which values r allows ("0 … 1", "one of `a`, `b`").
func (r Rule) Allowed() string { return r.allowed }

// Unit is the setting's unit, "" for none.
func (r Rule) Unit() string { return r.unit }

// Meaning is the one-line documentation of the setting.
func (r Rule) Meaning() string { return r.doc }

// Check checks one value of the setting.
func (r Rule) Check(v any) error {
	if r.check == nil {
		return errors.New("config: a rule without a check")
	}
	return r.check(v)
}

// Rules maps settings, by dotted key as in a configuration file
// (section.key), to their rules.
type Rules map[string]Rule

// Add adds sub's rules under section: sub's key k becomes section.k. A key
// given twice panics: it is a mistake in the rules' code.
func (r Rules) Add(section string, sub Rules) Rules {
	for k, rule := range sub {
		key := join(section, k)
		if _, dup := r[key]; dup {
			panic("config: two rules for " + key)
		}
		r[key] = rule
	}
	return r
}

// Section returns the rules under section (with their keys relative to
// it): the part of r that Add(section, ...) added.
func (r Rules) Section(section string) Rules {
	out := Rules{}
	for k, rule := range r {
		if rest, ok := strings.CutPrefix(k, section+"."); ok {
			out[rest] = rule
		}
	}
	return out
}

func ruleFunc(allowed string, f func(v any) error) Rule {
	return Rule{check: f, allowed: allowed}
}

func number(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("want a number, got %s", show(v))
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a finite number, got %s", n)
	}
	return f, nil
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Range allows numbers in lo..hi.
func Range(lo, hi float64) Rule { return Between(lo, hi, false, false) }

// Between allows numbers from lo to hi, without lo itself if openLo and
// without hi if openHi: Between(0, 1, true, false) allows 0 < x ≤ 1.
func Between(lo, hi float64, openLo, openHi bool) Rule {
	allowed := showNumber(lo) + " … " + showNumber(hi)
	if openLo || openHi {
		allowed = showNumber(lo) + map[bool]string{false: " ≤ ", true: " < "}[openLo] + "x" +
			map[bool]string{false: " ≤ ", true: " < "}[openHi] + showNumber(hi)
	}
	return ruleFunc(allowed, func(v any) error {
		f, err := number(v)
		if err != nil {
			return err
		}
		if f < lo || f > hi || (openLo && f == lo) || (openHi && f == hi) {
			if openLo || openHi {
				return fmt.Errorf("%v is outside %s", f, allowed)
			}
			return fmt.Errorf("%v is outside %v..%v", f, lo, hi)
		}
		return nil
	})
}

// showNumber writes a bound for the documentation: π and its halves by
// name.
func showNumber(f float64) string {
	switch f {
	case math.Pi:
		return "π"
	case -math.Pi:
		return "−π"
	case math.Pi / 2:
		return "π/2"
	case -math.Pi / 2:
		return "−π/2"
	}
	return strings.Replace(strconv.FormatFloat(f, 'f', -1, 64), "-", "−", 1)
}

// showInt writes a whole-number bound for the documentation.
func showInt(i int64) string { return strings.Replace(strconv.FormatInt(i, 10), "-", "−", 1) }

// showDuration writes a duration bound for the documentation: "0",
// "500ms", "10m", "24h".
func showDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// Int allows whole numbers in lo..hi.
func Int(lo, hi int64) Rule {
	return ruleFunc(fmt.Sprintf("integer %s … %s", showInt(lo), showInt(hi)), func(v any) error {
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("want a whole number, got %s", show(v))
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return fmt.Errorf("want a whole number in %d..%d, got %s", lo, hi, n)
		}
		if i < lo || i > hi {
			return fmt.Errorf("%d is outside %d..%d", i, lo, hi)
		}
		return nil
	})
}

// Uint allows any whole number from 0 up (a seed).
func Uint() Rule {
	return ruleFunc("integer 0 … 2⁶⁴−1", func(v any) error {
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("want a whole number, got %s", show(v))
		}
		if _, err := strconv.ParseUint(string(n), 10, 64); err != nil {
			return fmt.Errorf("want a whole number in 0..%d, got %s", uint64(math.MaxUint64), n)
		}
		return nil
	})
}

// Port allows a port number, 1..65535, or also 0 if zero is true (for a
// setting where 0 means "derived" or "off").
func Port(zero bool) Rule {
	if zero {
		return Int(0, 65535)
	}
	return Int(1, 65535)
}

// Durations allows durations (strings with a unit, "10ms") in lo..hi.
func Durations(lo, hi time.Duration) Rule {
	return ruleFunc(fmt.Sprintf("duration %s … %s", showDuration(lo), showDuration(hi)), func(v any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a duration with a unit like \"10ms\", got %s", show(v))
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		if d < lo || d > hi {
			return fmt.Errorf("%v is outside %v..%v", d, lo, hi)
		}
		return nil
	})
}

// Bool allows true and false.
func Bool() Rule {
	return ruleFunc("`true`, `false`", func(v any) error {
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want true or false, got %s", show(v))
		}
		return nil
	})
}

// OneOf allows the given strings.
func OneOf(vals ...string) Rule {
	return ruleFunc("one of `"+strings.Join(vals, "`, `")+"`", func(v any) error {
		s, ok := v.(string)
		if !ok || !slices.Contains(vals, s) {
			return fmt.Errorf("%s: want one of %s", show(v), strings.Join(vals, ", "))
		}
		return nil
	})
}

// Text allows strings of min..max bytes of printable characters (a name,
// a path, a device); min 0 allows the empty string.
func Text(min, max int) Rule {
	return ruleFunc(fmt.Sprintf("text, %d … %d bytes", min, max), func(v any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s", show(v))
		}
		if len(s) < min || len(s) > max {
			return fmt.Errorf("%q: want %d..%d bytes", s, min, max)
		}
		for _, r := range s {
			if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
				return fmt.Errorf("%q: want printable characters", s)
			}
		}
		return nil
	})
}

// HostPort allows a listen or dial address host:port: the host empty (every
// interface), an IP address or a host name; the port 1..65535, or 0 if
// zeroPort (any free port). empty allows "" (a derived default).
func HostPort(empty, zeroPort bool) Rule {
	allowed := "host:port"
	if empty {
		allowed += ", or empty"
	}
	if zeroPort {
		allowed += ", port 0 allowed"
	}
	return ruleFunc(allowed, func(v any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want an address host:port, got %s", show(v))
		}
		if s == "" && empty {
			return nil
		}
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			return fmt.Errorf("address %q: want host:port: %w", s, err)
		}
		if err := checkHost(host, true); err != nil {
			return fmt.Errorf("address %q: %w", s, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p < 0 || p > 65535 || (p == 0 && !zeroPort) {
			lo := 1
			if zeroPort {
				lo = 0
			}
			return fmt.Errorf("address %q: port %q is outside %d..65535", s, port, lo)
		}
		return nil
	})
}

// Host allows an IP address or a host name.
func Host() Rule {
	return ruleFunc("host name or IP address", func(v any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a host, got %s", show(v))
		}
		return checkHost(s, false)
	})
}

// IP allows an IP address (also "" if empty).
func IP(empty bool) Rule {
	allowed := "IP address"
	if empty {
		allowed += ", or empty"
	}
	return ruleFunc(allowed, func(v any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want an IP address, got %s", show(v))
		}
		if s == "" && empty {
			return nil
		}
		if _, err := netip.ParseAddr(s); err != nil {
			return fmt.Errorf("want an IP address: %w", err)
		}
		return nil
	})
}

// Prefixes allows a list of IP networks in CIDR notation ("10.0.0.0/8").
func Prefixes() Rule {
	return Each(ruleFunc("network in CIDR notation", func(v any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a network like \"10.0.0.0/8\", got %s", show(v))
		}
		if _, err := netip.ParsePrefix(s); err != nil {
			return fmt.Errorf("want a network like \"10.0.0.0/8\": %w", err)
		}
		return nil
	}))
}

// checkHost checks an IP address or a host name (RFC 1123 labels).
func checkHost(h string, empty bool) error {
	if h == "" {
		if empty {
			return nil
		}
		return errors.New("the host is empty")
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return nil
	}
	if len(h) > 253 {
		return fmt.Errorf("host %q: longer than 253 bytes", h)
	}
	for _, l := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("host %q: not an IP address or host name", h)
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("host %q: not an IP address or host name", h)
			}
		}
	}
	return nil
}

// Each applies r to every element of a list or every value of a map.
func Each(r Rule) Rule {
	return ruleFunc("each element: "+r.allowed, func(v any) error {
		switch x := v.(type) {
		case []any:
			for i, e := range x {
				if err := r.Check(e); err != nil {
					return fmt.Errorf("element %d: %w", i, err)
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if err := r.Check(x[k]); err != nil {
					return fmt.Errorf("%q: %w", k, err)
				}
			}
		case nil:
		default:
			return fmt.Errorf("want a list or an object, got %s", show(v))
		}
		return nil
	})
}

// Tree returns cfg as JSON decodes it with UseNumber (see Rule).
func Tree(cfg any) (any, error) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return tree, nil
}

// Check checks every setting of cfg that has a rule. Every error names its
// setting; they are joined in key order.
func Check(cfg any, rules Rules) error {
	tree, err := Tree(cfg)
	if err != nil {
		return err
	}
	return CheckTree(tree, rules)
}

// CheckTree is Check on a tree as Tree returns it.
func CheckTree(tree any, rules Rules) error {
	var errs []error
	walkRules(tree, "", rules, func(key string, r Rule, v any) {
		if err := r.Check(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", key, err))
		}
	}, nil)
	return errors.Join(errs...)
}

// Unruled lists the settings of cfg that have no rule, in key order.
func Unruled(cfg any, rules Rules) ([]string, error) {
	tree, err := Tree(cfg)
	if err != nil {
		return nil, err
	}
	var out []string
	walkRules(tree, "", rules, nil, func(key string) { out = append(out, key) })
	slices.Sort(out)
	return out, nil
}

// Leaves lists the keys of tree's settings, as the rules name them: a key
// with a rule, else every value that is not an object.
func Leaves(tree any, rules Rules) []string {
	var out []string
	walkRules(tree, "", rules, func(key string, _ Rule, _ any) { out = append(out, key) }, func(key string) { out = append(out, key) })
	slices.Sort(out)
	return out
}

func walkRules(node any, key string, rules Rules, ruled func(string, Rule, any), unruled func(string)) {
	if r, ok := rules[key]; ok && key != "" {
		if ruled != nil {
			ruled(key, r, node)
		}
		return
	}
	m, ok := node.(map[string]any)
	if !ok {
		if unruled != nil {
			unruled(key)
		}
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		walkRules(m[k], join(key, k), rules, ruled, unruled)
	}
}

// CheckSection is Check for the section of a configuration that cfg is,
// with rules keyed within it: errors name the setting by its whole key
// (section.key).
func CheckSection(section string, cfg any, rules Rules) error {
	tree, err := Tree(cfg)
	if err != nil {
		return err
	}
	var errs []error
	walkRules(tree, "", rules, func(key string, r Rule, v any) {
		if err := r.Check(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", join(section, key), err))
		}
	}, nil)
	return errors.Join(errs...)
}
