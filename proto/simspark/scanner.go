package simspark

import "math"

// Limits.
const (
	// DefaultMaxDepth bounds the nesting of S-expressions. Perceptor
	// messages nest 4 deep (See, P, head, pol), monitor messages 6.
	DefaultMaxDepth = 16
	// MaxItems bounds the number of items of one kind in a message (joint
	// readings, See objects, body parts, …): Item.Index has 16 bits.
	MaxItems = 1<<16 - 1
)

// Token is the kind of a token returned by Scanner.Next.
type Token uint8

// Tokens.
const (
	// TokenEOF is the end of the input (at nesting depth 0).
	TokenEOF Token = iota
	// TokenOpen is '('.
	TokenOpen
	// TokenClose is ')'.
	TokenClose
	// TokenAtom is a run of bytes other than white space and parentheses.
	TokenAtom
)

// String returns "EOF", "(", ")" or "atom".
func (t Token) String() string {
	switch t {
	case TokenEOF:
		return "EOF"
	case TokenOpen:
		return "("
	case TokenClose:
		return ")"
	case TokenAtom:
		return "atom"
	}
	return "token?"
}

// Scanner splits S-expression text into tokens, one at a time, without
// allocating. White space is space, tab, CR, LF and NUL; an atom is any run
// of other bytes except '(' and ')'. It checks that parentheses balance
// and that lists nest at most maxDepth deep. The zero Scanner scans an
// empty input; use Reset to start on a message.
//
// The perceptor, effector and trainer parsers of this package are built on
// the same scanner.
type Scanner struct {
	src      []byte
	pos      int
	depth    int
	maxDepth int
	tokOff   int
	atom     []byte
	err      error
}

// Reset starts scanning src with the given nesting limit (≤ 0 means
// DefaultMaxDepth).
func (s *Scanner) Reset(src []byte, maxDepth int) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	*s = Scanner{src: src, maxDepth: maxDepth}
}

// Next returns the next token. At the end of the input it returns TokenEOF
// and nil, or an error if lists are still open. Errors are *SyntaxError and
// sticky: once Next failed it keeps returning the same error.
func (s *Scanner) Next() (Token, error) {
	if s.err != nil {
		return TokenEOF, s.err
	}
	if s.maxDepth == 0 {
		s.maxDepth = DefaultMaxDepth
	}
	s.skipSpace()
	s.tokOff, s.atom = s.pos, nil
	if s.pos >= len(s.src) {
		if s.depth > 0 {
			s.err = s.eof("")
		}
		return TokenEOF, s.err
	}
	switch s.src[s.pos] {
	case '(':
		if s.err = s.open(); s.err != nil {
			return TokenEOF, s.err
		}
		return TokenOpen, nil
	case ')':
		if s.depth == 0 {
			s.err = errAt(s.pos, ErrUnbalanced, "unbalanced ')'")
			return TokenEOF, s.err
		}
		s.pos++
		s.depth--
		return TokenClose, nil
	}
	end := s.atomEnd(s.pos)
	s.atom, s.pos = s.src[s.pos:end], end
	return TokenAtom, nil
}

// Atom returns the last atom; it aliases the input.
func (s *Scanner) Atom() []byte { return s.atom }

// Offset returns the byte offset of the last token.
func (s *Scanner) Offset() int { return s.tokOff }

// Depth returns the number of open lists.
func (s *Scanner) Depth() int { return s.depth }

// Skip skips the rest of the innermost open list, including its ')'.
func (s *Scanner) Skip() error {
	if s.err != nil {
		return s.err
	}
	if s.depth == 0 {
		s.err = errAt(s.pos, ErrUnexpected, "Skip outside a list")
		return s.err
	}
	s.err = s.skipRest()
	return s.err
}

// Byte-level helpers shared by the parsers. On valid input they neither
// allocate nor call anything that is not inlined; errors are built by
// errAt on the error path only.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0 }

// isDelim reports whether c ends an atom. Every delimiter is ≤ ')', so the
// common case (letters, digits, '.', '-') is one comparison.
func isDelim(c byte) bool { return c <= ')' && (c == '(' || c == ')' || isSpace(c)) }

func (s *Scanner) skipSpace() {
	src, i := s.src, s.pos
	for i < len(src) {
		if c := src[i]; c > ' ' || !isSpace(c) {
			break
		}
		i++
	}
	s.pos = i
}

func (s *Scanner) atomEnd(i int) int {
	src := s.src
	for i < len(src) {
		if c := src[i]; c <= ')' && isDelim(c) {
			break
		}
		i++
	}
	return i
}

// open consumes the '(' at s.pos.
func (s *Scanner) open() error {
	s.pos++
	s.depth++
	if s.depth > s.maxDepth {
		return errAt(s.pos-1, ErrTooDeep, "lists nested deeper than %d", s.maxDepth)
	}
	return nil
}

// eof is the error for input that ends inside a list.
func (s *Scanner) eof(what string) error {
	if what != "" {
		what += ": "
	}
	return errAt(len(s.src), ErrUnbalanced, "%sinput ends inside %d unclosed '('", what, s.depth)
}

// found describes the token at s.pos for an error message.
func (s *Scanner) found() string {
	if s.pos >= len(s.src) {
		return "the end of the input"
	}
	switch s.src[s.pos] {
	case '(':
		return "'('"
	case ')':
		return "')'"
	}
	return "\"" + clip(s.src[s.pos:s.atomEnd(s.pos)]) + "\""
}

// unexpected is the error for a token of the wrong kind at s.pos.
func (s *Scanner) unexpected(what, want string) error {
	switch {
	case s.pos >= len(s.src):
		return s.eof(what)
	case s.src[s.pos] == ')':
		return errAt(s.pos, ErrMissing, "%s: want %s, found ')'", what, want)
	}
	return errAt(s.pos, ErrUnexpected, "%s: want %s, found %s", what, want, s.found())
}

// head reads the atom that starts a list just opened; it returns nil (and
// consumes nothing) if the list does not start with an atom.
func (s *Scanner) head() []byte {
	s.skipSpace()
	end := s.atomEnd(s.pos)
	if end == s.pos {
		return nil
	}
	b := s.src[s.pos:end]
	s.pos = end
	return b
}

// field enters the next "(key …)" list inside the current list and returns
// its key and offset. more is false, and the current list's ')' consumed,
// when the current list ends instead.
func (s *Scanner) field(what string) (key []byte, off int, more bool, err error) {
	s.skipSpace()
	if s.pos >= len(s.src) {
		return nil, s.pos, false, s.eof(what)
	}
	off = s.pos
	switch s.src[off] {
	case ')':
		s.pos++
		s.depth--
		return nil, off, false, nil
	case '(':
	default:
		return nil, off, false, errAt(off, ErrUnexpected, "%s: want a (name …) list, found %s", what, s.found())
	}
	if err := s.open(); err != nil {
		return nil, off, false, err
	}
	if key = s.head(); key == nil {
		return nil, off, false, errAt(off, ErrUnexpected, "%s: want a (name …) list, found a list without a name", what)
	}
	return key, off, true, nil
}

// openKey enters the list at s.pos and reads its name if that name is
// key, as field would; otherwise it consumes nothing and returns false.
func (s *Scanner) openKey(key string) bool {
	src, i := s.src, s.pos
	end := i + 1 + len(key)
	if key == "" || end >= len(src) || src[i] != '(' || !isDelim(src[end]) || s.depth >= s.maxDepth {
		return false
	}
	for k := range len(key) {
		if src[i+1+k] != key[k] {
			return false
		}
	}
	s.pos, s.depth = end, s.depth+1
	return true
}

// close consumes the ')' that must end the current list.
func (s *Scanner) close(what string) error {
	s.skipSpace()
	if s.pos < len(s.src) && s.src[s.pos] == ')' {
		s.pos++
		s.depth--
		return nil
	}
	if s.pos >= len(s.src) {
		return s.eof(what)
	}
	return errAt(s.pos, ErrUnexpected, "%s: want ')', found %s", what, s.found())
}

// atEnd reports whether the current list ends next (s.pos at ')').
func (s *Scanner) atEnd() bool {
	s.skipSpace()
	return s.pos < len(s.src) && s.src[s.pos] == ')'
}

// skipRest skips to the end of the current list, consuming its ')'.
func (s *Scanner) skipRest() error {
	target := s.depth - 1
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '(':
			if err := s.open(); err != nil {
				return err
			}
			continue
		case ')':
			s.pos++
			s.depth--
			if s.depth == target {
				return nil
			}
			continue
		}
		s.pos++
	}
	return s.eof("")
}

// word reads an atom value.
func (s *Scanner) word(what string) ([]byte, int, error) {
	s.skipSpace()
	start := s.pos
	end := s.atomEnd(start)
	if end == start {
		return nil, start, s.unexpected(what, "a name")
	}
	s.pos = end
	return s.src[start:end], start, nil
}

// number reads a number value. Plain decimals of at most 15 digits, the
// server's kind, are converted in the same pass that finds their end
// (exactly: see parseFloat); anything else goes through parseFloat.
func (s *Scanner) number(what string) (float64, error) {
	s.skipSpace()
	src, i := s.src, s.pos
	neg := i < len(src) && src[i] == '-'
	if neg {
		i++
	}
	var mant uint64
	d0 := i
	for i < len(src) && src[i]-'0' <= 9 {
		mant = mant*10 + uint64(src[i]-'0')
		i++
	}
	nd, frac := i-d0, 0
	if i < len(src) && src[i] == '.' {
		i++
		f0 := i
		for i < len(src) && src[i]-'0' <= 9 {
			mant = mant*10 + uint64(src[i]-'0')
			i++
		}
		frac = i - f0
		nd += frac
	}
	if nd > 0 && nd <= 15 && (i == len(src) || isDelim(src[i])) {
		f := float64(mant)
		switch frac {
		case 0:
		case 2:
			f /= 100
		default:
			f /= math.Pow10(frac)
		}
		if neg {
			f = -f
		}
		s.pos = i
		return f, nil
	}
	return s.numberSlow(what)
}

func (s *Scanner) numberSlow(what string) (float64, error) {
	start := s.pos
	end := s.atomEnd(start)
	if end == start {
		return 0, s.unexpected(what, "a number")
	}
	v, ok := parseFloat(s.src[start:end])
	if !ok {
		return 0, errAt(start, ErrBadNumber, "%s: bad number %q", what, clip(s.src[start:end]))
	}
	s.pos = end
	return v, nil
}

// numbers reads len(dst) numbers and the ')' that ends the list.
func (s *Scanner) numbers(dst []float64, what string) error {
	for i := range dst {
		v, err := s.number(what)
		if err != nil {
			return err
		}
		dst[i] = v
	}
	return s.close(what)
}

// integer reads an integer value.
func (s *Scanner) integer(what string) (int, error) {
	s.skipSpace()
	start := s.pos
	end := s.atomEnd(start)
	if end == start {
		return 0, s.unexpected(what, "an integer")
	}
	v, ok := parseInt(s.src[start:end])
	if !ok {
		return 0, errAt(start, ErrBadNumber, "%s: bad integer %q", what, clip(s.src[start:end]))
	}
	s.pos = end
	return v, nil
}
