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
	"time"
)

// Duration is a time.Duration that reads and writes JSON as "10ms" (a number
// is read as nanoseconds).
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
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("duration: want a string like \"10ms\" or nanoseconds, got %s", b)
	}
	*d = Duration(n)
	return nil
}

// Decode reads JSON from r into dst, which holds the defaults. Keys absent
// from the input keep their defaults; an unknown key, a type mismatch or
// trailing data is an error that says where.
func Decode(r io.Reader, dst any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("config: reading: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("config: %w", describe(data, dec, err))
	}
	if dec.More() {
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
	line, col := 1, 1
	for _, c := range data[:min(int(off), len(data))] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d column %d: %w", line, col, err)
}
