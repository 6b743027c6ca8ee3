package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Set changes one setting of *dst, given as "key=value" on a command line:
// the key is the setting's JSON path (section.key, array elements by
// index: motion.stand_pose.3), the value JSON, else a string; a string
// setting (a name, a duration, an enum such as "2016") takes the value as
// written unless it is a quoted JSON string. The setting must exist and
// take the value's type (checked by Decode over fresh(), which returns
// the defaults *dst was built on).
func Set[T any](dst *T, kv string, fresh func() T) error {
	key, value, ok := strings.Cut(kv, "=")
	if !ok || key == "" {
		return fmt.Errorf("config: %q: want key=value", kv)
	}
	raw, err := json.Marshal(dst)
	if err != nil {
		return fmt.Errorf("config: encoding the settings: %w", err)
	}
	var tree any
	if err := decodeNumbers(raw, &tree); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	path := strings.Split(key, ".")
	node := tree
	for i, p := range path {
		last := i == len(path)-1
		switch n := node.(type) {
		case map[string]any:
			next, ok := n[p]
			if !ok {
				return fmt.Errorf("no setting %q", strings.Join(path[:i+1], "."))
			}
			if last {
				n[p] = parseValueLike(next, value)
			}
			node = next
		case []any:
			j, err := strconv.Atoi(p)
			if err != nil || j < 0 || j >= len(n) {
				return fmt.Errorf("%q: want an index 0..%d", strings.Join(path[:i+1], "."), len(n)-1)
			}
			if last {
				n[j] = parseValueLike(n[j], value)
			}
			node = n[j]
		default:
			return fmt.Errorf("%q is a value, not a section", strings.Join(path[:i], "."))
		}
	}
	if raw, err = json.Marshal(tree); err != nil {
		return fmt.Errorf("config: encoding the settings: %w", err)
	}
	next := fresh()
	if err := Decode(bytes.NewReader(raw), &next); err != nil {
		return err
	}
	*dst = next
	return nil
}

// parseValueLike reads a value for a setting whose current value is cur:
// for a string setting the value as written, unless it is a quoted JSON
// string; otherwise JSON, else a string.
func parseValueLike(cur any, s string) any {
	if _, ok := cur.(string); ok {
		var q string
		if strings.HasPrefix(s, `"`) && json.Unmarshal([]byte(s), &q) == nil {
			return q
		}
		return s
	}
	var v any
	if err := decodeNumbers([]byte(s), &v); err == nil {
		return v
	}
	return s
}

// decodeNumbers decodes one JSON value, numbers as json.Number, with
// nothing after it.
func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	// More is false before a stray '}' or ']': read a token to be sure.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data")
	}
	return nil
}

// Layer returns the settings keys name (Set's keys) of cfg as a JSON
// object of cfg's shape: the layer that, decoded over another
// configuration of its type with Decode, gives those settings cfg's
// values. A key into an array gives the whole array.
func Layer(cfg any, keys []string) (json.RawMessage, error) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("config: encoding the settings: %w", err)
	}
	var tree any
	if err := decodeNumbers(raw, &tree); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	out := map[string]any{}
	for _, key := range keys {
		path := strings.Split(key, ".")
		src, dst := tree, out
		for i, p := range path {
			m, ok := src.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%q is a value, not a section", strings.Join(path[:i], "."))
			}
			v, ok := m[p]
			if !ok {
				return nil, fmt.Errorf("no setting %q", strings.Join(path[:i+1], "."))
			}
			if _, section := v.(map[string]any); !section || i == len(path)-1 {
				dst[p] = v
				break
			}
			next, ok := dst[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				dst[p] = next
			}
			src, dst = v, next
		}
	}
	raw, err = json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("config: encoding the layer: %w", err)
	}
	return raw, nil
}
