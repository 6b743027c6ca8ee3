package deploy

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The checks below refuse what would change meaning on its way into a
// systemd unit, a shell command line, a remote path or a local file name.
// Each error is one line and quotes the value it refuses.

// controlChar returns the first control character in s (C0, DEL, C1,
// Unicode bidirectional controls) or a byte that is not UTF-8, and whether
// there is one.
func controlChar(s string) (rune, bool) {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return rune(s[i]), true
			}
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Bidi_Control, r) {
			return r, true
		}
	}
	return 0, false
}

// checkText refuses control characters and bytes that are not UTF-8.
func checkText(what, s string) error {
	if r, bad := controlChar(s); bad {
		return fmt.Errorf("%s: %q holds the control character %U (newline, tab, escape and the like are refused)", what, s, r)
	}
	return nil
}

// maxRobotName bounds a robot's name, which names a local directory.
const maxRobotName = 64

// checkRobotName accepts letters, digits, '.', '_' and '-', beginning with a
// letter or digit and without "..": the name is a directory under pull's
// -out.
func checkRobotName(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%s: empty", what)
	case len(s) > maxRobotName:
		return fmt.Errorf("%s: %q is longer than %d bytes", what, s, maxRobotName)
	case strings.Contains(s, ".."):
		return fmt.Errorf("%s: %q contains \"..\"; a robot name is a plain directory name", what, s)
	}
	for i, r := range s {
		alnum := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		if !alnum && (i == 0 || !strings.ContainsRune("._-", r)) {
			return fmt.Errorf("%s: %q: a robot name is letters, digits, '.', '_' and '-', beginning with a letter or digit (no path separators)", what, s)
		}
	}
	return nil
}

// maxUnitName is systemd's limit on a unit name (UNIT_NAME_MAX in
// systemd's src/basic/unit-name.h).
const maxUnitName = 255

// checkUnitName accepts a plain service unit name: the characters
// systemd.unit(5) allows in unit names (ASCII letters, digits, ":", "-",
// "_", ".", "\", "@"), without "\" (an escape in systemd's unit names) and
// ending in ".service".
func checkUnitName(what, s string) error {
	if !strings.HasSuffix(s, ".service") || len(s) == len(".service") || len(s) > maxUnitName || strings.HasPrefix(s, ".") {
		return fmt.Errorf("%s: %q: want a plain unit file name ending in .service (like robotd.service)", what, s)
	}
	for _, r := range s {
		ok := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(":-_.@", r))
		if !ok {
			return fmt.Errorf("%s: %q: a unit name is ASCII letters, digits, ':', '-', '_', '.' and '@' (no '/')", what, s)
		}
	}
	return nil
}

// checkAbsPath accepts an absolute, clean path (no "." or ".." elements, no
// "//", no trailing "/") without control characters or backslashes: it is
// used on the robot through SFTP and written into the systemd unit, where
// a backslash is an escape (systemd.syntax(7)).
func checkAbsPath(what, s string) error {
	if err := checkText(what, s); err != nil {
		return err
	}
	switch {
	case !path.IsAbs(s):
		return fmt.Errorf("%s: %q: want an absolute path", what, s)
	case path.Clean(s) != s:
		return fmt.Errorf("%s: %q: want a clean path (no \".\", \"..\", \"//\" or trailing \"/\"), like %q", what, s, path.Clean(s))
	case strings.Contains(s, `\`):
		return fmt.Errorf("%s: %q contains a backslash, an escape character in systemd units", what, s)
	}
	return nil
}

// checkPrefix accepts "" or an absolute path (see checkAbsPath).
func checkPrefix(what, s string) error {
	if s == "" {
		return nil
	}
	return checkAbsPath(what, s)
}

// checkPackage refuses a Go package that `go build` would take for a flag,
// and control characters.
func checkPackage(what, s string) error {
	if err := checkText(what, s); err != nil {
		return err
	}
	if strings.HasPrefix(s, "-") {
		return fmt.Errorf("%s: %q begins with '-': a package path, not a flag for go build", what, s)
	}
	if strings.TrimSpace(s) != s || s == "" {
		return fmt.Errorf("%s: %q: want a package path like ./cmd/robotd", what, s)
	}
	return nil
}

// checkGOARCH accepts lower-case letters and digits (the form of every
// GOARCH value); the value names the built binary's file.
func checkGOARCH(what, s string) error {
	if s == "" || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return fmt.Errorf("%s: %q: want a Go architecture like amd64 or arm64", what, s)
	}
	return nil
}

// maxEntryName is NAME_MAX on Linux: no file name is longer.
const maxEntryName = 255

// checkEntryName accepts one element of a path: not empty, ".", "..", no
// '/', no NUL or other control character, at most NAME_MAX bytes. It
// checks the names a robot lists in pull and those a version's files get.
func checkEntryName(s string) error {
	switch {
	case s == "" || s == "." || s == "..":
		return fmt.Errorf("the name %q is not a file name", s)
	case strings.ContainsRune(s, '/'):
		return fmt.Errorf("the name %q contains '/'", s)
	case len(s) > maxEntryName:
		return fmt.Errorf("the name %.40q… is longer than %d bytes", s, maxEntryName)
	}
	if r, bad := controlChar(s); bad {
		return fmt.Errorf("the name %q contains the control character %U", s, r)
	}
	return nil
}

// checkFileName is checkEntryName for a file of a version: it also
// refuses a backslash (sha256sum escapes such names in its output) and a
// leading '-'.
func checkFileName(s string) error {
	if err := checkEntryName(s); err != nil {
		return err
	}
	if strings.ContainsRune(s, '\\') || strings.HasPrefix(s, "-") {
		return fmt.Errorf("the name %q contains a backslash or begins with '-'", s)
	}
	return nil
}
