package deploy

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// escapeWriter passes text on with control characters escaped, so that
// what a robot sends cannot drive the terminal it is shown on: C0 controls
// but newline and tab, DEL and bytes that are not UTF-8 become \xNN; C1
// controls and Unicode bidirectional controls become \uNNNN. A UTF-8
// sequence split between two writes is kept for the next one; Flush
// writes what is left.
type escapeWriter struct {
	w       io.Writer
	partial []byte
}

func (e *escapeWriter) Write(p []byte) (int, error) {
	data := append(append([]byte(nil), e.partial...), p...)
	out := make([]byte, 0, len(data))
	i := 0
	for i < len(data) {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			if !utf8.FullRune(data[i:]) {
				break // the rest of the sequence comes with the next write
			}
			out = fmt.Appendf(out, `\x%02x`, data[i])
			i++
			continue
		}
		out = appendEscaped(out, data[i:i+n], r)
		i += n
	}
	e.partial = append(e.partial[:0], data[i:]...)
	if _, err := e.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a trailing incomplete UTF-8 sequence, escaped.
func (e *escapeWriter) Flush() error {
	if len(e.partial) == 0 {
		return nil
	}
	var out []byte
	for _, b := range e.partial {
		out = fmt.Appendf(out, `\x%02x`, b)
	}
	e.partial = e.partial[:0]
	_, err := e.w.Write(out)
	return err
}

// appendEscaped appends the rune r (encoded as enc), escaped if it is a
// control character other than newline and tab.
func appendEscaped(out, enc []byte, r rune) []byte {
	if r == '\n' || r == '\t' {
		return append(out, enc...)
	}
	if _, bad := controlChar(string(enc)); !bad {
		return append(out, enc...)
	}
	if r < utf8.RuneSelf {
		return fmt.Appendf(out, `\x%02x`, r)
	}
	return fmt.Appendf(out, `\u%04x`, r)
}

// EscapeControl is s with control characters escaped as Logs escapes
// them (newline and tab stay). Errors and progress lines can hold text a
// robot sent (SFTP status messages, command output); they are shown
// through it.
func EscapeControl(s string) string {
	var b strings.Builder
	e := &escapeWriter{w: &b}
	_, _ = e.Write([]byte(s))
	_ = e.Flush()
	return b.String()
}
