package simspark

import (
	"errors"
	"fmt"
)

// Parse errors. Every error a parser returns is a *SyntaxError that wraps
// ErrSyntax and one of the more specific errors below, so both
// errors.Is(err, ErrSyntax) and, for example, errors.Is(err, ErrTooDeep)
// hold.
var (
	// ErrSyntax is wrapped by every parse error.
	ErrSyntax = errors.New("simspark: malformed message")
	// ErrUnbalanced: a ')' without its '(' or input ending inside a list.
	ErrUnbalanced = errors.New("simspark: unbalanced parentheses")
	// ErrTooDeep: lists nested deeper than the limit.
	ErrTooDeep = errors.New("simspark: nesting too deep")
	// ErrTooLong: a message longer than DefaultMaxFrame, or with more than
	// MaxItems items of one kind.
	ErrTooLong = errors.New("simspark: message too long")
	// ErrBadNumber: an atom that should be a number is not one.
	ErrBadNumber = errors.New("simspark: bad number")
	// ErrUnknownJoint: an HJ perceptor names no joint of the NAO models.
	ErrUnknownJoint = errors.New("simspark: unknown joint")
	// ErrRepeated: a field or a perceptor that may appear once appears
	// twice.
	ErrRepeated = errors.New("simspark: repeated item")
	// ErrMissing: a required field is missing.
	ErrMissing = errors.New("simspark: missing item")
	// ErrUnexpected: text of the wrong shape, e.g. an atom where a list
	// belongs or an extra value.
	ErrUnexpected = errors.New("simspark: unexpected item")
)

// SyntaxError says what is wrong with a message and at which byte offset
// (from the start of the payload) it was found.
type SyntaxError struct {
	// Offset is the byte offset of the problem in the message.
	Offset int
	// What describes the problem.
	What string
	// Err is the specific error (ErrTooDeep, ErrBadNumber, …).
	Err error
}

// Error implements error: "simspark: malformed message at byte N: what".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("simspark: malformed message at byte %d: %s", e.Offset, e.What)
}

// Unwrap returns ErrSyntax and the specific error, for errors.Is.
func (e *SyntaxError) Unwrap() []error {
	if e.Err == nil || e.Err == ErrSyntax {
		return []error{ErrSyntax}
	}
	return []error{ErrSyntax, e.Err}
}

// errAt makes a *SyntaxError. It is only called on the error path, so its
// formatting costs nothing on valid input.
//
//go:noinline
func errAt(off int, kind error, format string, args ...any) error {
	return &SyntaxError{Offset: off, What: fmt.Sprintf(format, args...), Err: kind}
}

// clip shortens an atom for an error message.
func clip(b []byte) string {
	const max = 24
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
