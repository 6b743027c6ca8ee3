package simspark

import (
	"math"
	"strconv"
)

// maxNumberLen bounds the text of a number. The longest number the Exact
// format writes (the smallest subnormal in plain decimal) has 326 bytes.
const maxNumberLen = 1024

// parseFloat parses a decimal number: an optional sign, digits with an
// optional '.', and an optional exponent. It does not accept hexadecimal,
// underscores, "NaN" or "Inf", and rejects values that overflow float64.
// Numbers of at most 15 significant digits and at most 22 decimals (all
// that the server writes) are converted exactly by Clinger's fast path
// without allocating; others go through strconv, so results are always
// correctly rounded.
func parseFloat(b []byte) (float64, bool) {
	n := len(b)
	if n == 0 || n > maxNumberLen {
		return 0, false
	}
	i, neg := 0, false
	if c := b[0]; c == '-' || c == '+' {
		neg, i = c == '-', 1
	}
	var mant uint64
	nd, exp := 0, 0 // significant digits in mant; decimal exponent
	digits, slow := false, false
	for ; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		digits = true
		switch {
		case nd == 0 && c == 0:
		case nd < 15:
			mant = mant*10 + uint64(c)
			nd++
		default:
			slow = true
		}
	}
	if i < n && b[i] == '.' {
		for i++; i < n; i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			digits = true
			exp--
			switch {
			case nd == 0 && c == 0:
			case nd < 15:
				mant = mant*10 + uint64(c)
				nd++
			default:
				slow = true
			}
		}
	}
	if !digits {
		return 0, false
	}
	if i < n {
		if b[i] != 'e' && b[i] != 'E' {
			return 0, false
		}
		j := i + 1
		if j < n && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j == n {
			return 0, false
		}
		for ; j < n; j++ {
			if b[j]-'0' > 9 {
				return 0, false
			}
		}
		slow = true
	}
	if slow || exp < -22 {
		return slowFloat(b)
	}
	f := float64(mant)
	if exp < 0 {
		f /= math.Pow10(-exp)
	}
	if neg {
		f = -f
	}
	return f, true
}

// slowFloat converts text that parseFloat has checked.
func slowFloat(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// parseInt parses an integer of at most 9 digits with an optional '-'.
func parseInt(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Number formats of the encoders.
const (
	// ExactDecimals makes Format write the shortest plain decimal that
	// parses back to the same float64, so parse → encode → parse loses
	// nothing: "4.05", "-0", "3.5", "1000000000000000000000" (never an
	// exponent).
	ExactDecimals = -1
	// ServerDecimals is what rcssserver3d writes: fixed, 2 decimals
	// ("4.05", "-0.00", "9.81").
	ServerDecimals = 2
)

// Format says how encoders write numbers. Integers (unum, scores, player
// ids, robot types) are always written as integers.
type Format struct {
	// Decimals is the number of decimals to round to (ServerDecimals is
	// the server's own format), or ExactDecimals (any negative value) for
	// the shortest exact text. Note that the zero Format rounds to whole
	// numbers.
	Decimals int
}

// num appends v. Non-finite values are written as strconv does ("NaN",
// "+Inf"); the parsers reject them.
func (f Format) num(dst []byte, v float64) []byte {
	if f.Decimals < 0 {
		return appendExact(dst, v)
	}
	return appendFixed(dst, v, f.Decimals)
}

// appendExact appends the shortest plain decimal of v. Values that are a
// whole number of hundredths (everything the server sends) take a fast
// path: if m/100 rounds to v and |m| < 2^50, no other decimal with at most
// as many digits rounds to v, so the digits of m are the shortest text.
func appendExact(dst []byte, v float64) []byte {
	t := v * 100
	if t > -1<<50 && t < 1<<50 {
		if m := math.Round(t); m/100 == v {
			return appendScaled(dst, math.Signbit(v), uint64(math.Abs(m)), 2, true)
		}
	}
	return strconv.AppendFloat(dst, v, 'f', -1, 64)
}

// appendFixed appends v rounded to d decimals, as strconv.AppendFloat(dst,
// v, 'f', d, 64) does. The fast path scales by 10^d in float64; when the
// scaled value is below 1e9 its rounding error is below 1e-7, so whenever
// its fraction is not within 1e-6 of one half, rounding it gives the
// correctly rounded result.
func appendFixed(dst []byte, v float64, d int) []byte {
	if d <= 8 {
		t := v * math.Pow10(d)
		if t > -1e9 && t < 1e9 {
			a := math.Abs(t)
			fl := math.Floor(a)
			fr := a - fl
			if fr < 0.5-1e-6 || fr > 0.5+1e-6 {
				m := uint64(fl)
				if fr > 0.5 {
					m++
				}
				return appendScaled(dst, math.Signbit(v), m, d, false)
			}
		}
	}
	return strconv.AppendFloat(dst, v, 'f', d, 64)
}

// appendScaled appends m / 10^d with d decimals (trimming trailing zeros
// and a bare '.' if trim), with a '-' if neg (also for zero: "-0.00").
func appendScaled(dst []byte, neg bool, m uint64, d int, trim bool) []byte {
	if neg {
		dst = append(dst, '-')
	}
	var buf [24]byte
	i := len(buf)
	for k := 0; k < d; k++ {
		i--
		buf[i] = byte('0' + m%10)
		m /= 10
	}
	frac := i
	if d > 0 {
		i--
		buf[i] = '.'
	}
	for {
		i--
		buf[i] = byte('0' + m%10)
		m /= 10
		if m == 0 {
			break
		}
	}
	end := len(buf)
	if trim && d > 0 {
		for end > frac && buf[end-1] == '0' {
			end--
		}
		if end == frac {
			end-- // drop the '.'
		}
	}
	return append(dst, buf[i:end]...)
}

func itoa(dst []byte, v int) []byte { return strconv.AppendInt(dst, int64(v), 10) }
