// Package config loads robotd's configuration files: JSON, strict (an unknown
// key is an error that names it), decoded over defaults set in code, with
// durations written as Go duration strings ("10ms").
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration that reads and writes JSON as "10ms". A bare
// number is refused: without a unit, 1 would be a nanosecond.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	return fmt.Errorf("duration: want a string with a unit like \"10ms\" or \"2s\", got %s", b)
}

// Decode reads JSON from r into dst, which holds the defaults. Keys absent
// from the input keep their defaults; an unknown key, a null, a key given
// twice in one object, a type mismatch or trailing data is an error that
// says where.
func Decode(r io.Reader, dst any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("config: reading: %w", err)
	}
	if err := checkTree(data); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return decode(data, dst)
}

// DecodeWritten is Decode for JSON that robotd wrote itself (a recording's
// configuration): nulls, which older builds wrote for empty maps, keep the
// defaults.
func DecodeWritten(r io.Reader, dst any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("config: reading: %w", err)
	}
	return decode(data, dst)
}

func decode(data []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("config: %w", describe(data, dec, err))
	}
	// More is false before a stray '}' or ']': read a token to be sure.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("config: unexpected data after the top-level object at byte %d", dec.InputOffset())
	}
	return nil
}

// Load reads the JSON file at path into dst (see Decode).
func Load(path string, dst any) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	if err := Decode(f, dst); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// MaxDepth is the deepest nesting of objects and arrays a configuration
// may have; robotd's own configurations nest a few levels.
const MaxDepth = 100

// checkTree refuses what encoding/json lets through silently: a null
// (which would keep the default without saying so) and a key given twice
// in one object (of which the last would win). Errors name the key. It
// also refuses nesting deeper than MaxDepth, before any other work on the
// nested values, so that it runs in time linear in the input: the key of a
// value is built only for an error.
func checkTree(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// path holds the keys (array elements: their index) down to the value
	// being read.
	var path []string
	key := func() string { return strings.Join(path, ".") }
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return nil // the decoder proper reports syntax errors, with a position
		}
		switch tok {
		case nil:
			return fmt.Errorf("%s: null is not a value; leave the key out for its default", orTop(key()))
		case json.Delim('{'), json.Delim('['):
			if len(path) >= MaxDepth {
				line, col := position(data, dec.InputOffset())
				return fmt.Errorf("line %d column %d: objects and arrays nested deeper than %d levels", line, col, MaxDepth)
			}
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil
				}
				k, _ := kt.(string)
				path = append(path, k)
				if seen[k] {
					return fmt.Errorf("%s: the key is given twice", key())
				}
				seen[k] = true
				if err := walk(); err != nil {
					return err
				}
				path = path[:len(path)-1]
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				path = append(path, strconv.Itoa(i))
				if err := walk(); err != nil {
					return err
				}
				path = path[:len(path)-1]
			}
			_, _ = dec.Token()
		}
		return nil
	}
	return walk()
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func orTop(path string) string {
	if path == "" {
		return "the configuration"
	}
	return path
}

// describe adds a line:column to JSON errors that carry an offset.
func describe(data []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	line, col := position(data, off)
	return fmt.Errorf("line %d column %d: %w", line, col, err)
}

// position returns the line and column of byte offset off in data.
func position(data []byte, off int64) (line, col int) {
	line, col = 1, 1
	for _, c := range data[:max(min(off, int64(len(data))), 0)] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
