package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// WriteDoc writes the reference of cfg's settings as Markdown: for every
// top-level section, in cfg's order, a table of its settings in key
// order with their default (cfg's value), allowed values, unit and
// meaning, from rules. A setting without a rule, or a rule without a
// meaning, is an error.
func WriteDoc(w io.Writer, cfg any, rules Rules) error {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("config: encoding the settings: %w", err)
	}
	sections, err := topKeys(raw)
	if err != nil {
		return fmt.Errorf("config: the sections: %w", err)
	}
	tree, err := Tree(cfg)
	if err != nil {
		return err
	}
	unruled, err := Unruled(cfg, rules)
	if err != nil {
		return err
	}
	if len(unruled) > 0 {
		return fmt.Errorf("config: settings without a rule: %s", strings.Join(unruled, ", "))
	}
	var errs []error
	var b bytes.Buffer
	for i, sec := range sections {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "## `%s`\n\n| key | default | allowed | unit | meaning |\n|---|---|---|---|---|\n", sec)
		for _, key := range Leaves(tree.(map[string]any)[sec], rules.Section(sec)) {
			full := sec + "." + key
			r := rules[full]
			if r.Meaning() == "" {
				errs = append(errs, fmt.Errorf("config: %s: the rule has no meaning (Rule.Doc)", full))
			}
			def, err := json.Marshal(value(tree, full))
			if err != nil {
				return fmt.Errorf("config: %s: %w", full, err)
			}
			unit := r.Unit()
			if unit == "" {
				unit = "—"
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s |\n", full, cell(string(def)), cell(r.Allowed()), cell(unit), cell(r.Meaning()))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// cell escapes a table cell's text.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// value returns the value at key in tree.
func value(tree any, key string) any {
	node := tree
	for _, p := range strings.Split(key, ".") {
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[p]
	}
	return node
}

// topKeys lists the keys of the JSON object raw in their order.
func topKeys(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want an object: %v", err)
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
