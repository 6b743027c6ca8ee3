package simspark

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestParseFloat(t *testing.T) {
	for _, s := range []string{"0", "-0.00", "1.25", "351.77", "-0.000001", "123456789012345", "1234567890123456789",
		"0.1", "9.81", "1e5", "2.5E-3", "100.0", "+3", "5.", ".5", "-.5", "0.0000000000000000000001", "1e-400",
		"179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
		"0.30000000000000004", "9007199254740993", "4.05", "-11.31"} {
		got, ok := parseFloat([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		if !ok || err != nil || got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("parseFloat(%q) = %v, %v; strconv %v, %v", s, got, ok, want, err)
		}
		// The scanner's fast path agrees.
		sc := Scanner{src: []byte(s + ")"), maxDepth: 1}
		if v, err := sc.number("x"); err != nil || v != want || math.Signbit(v) != math.Signbit(want) {
			t.Errorf("Scanner.number(%q) = %v, %v; want %v", s, v, err, want)
		}
	}
	for _, s := range []string{"", "-", "+", ".", "-.", "1.2.3", "abc", "1-2", "e5", "1e", "1e+", "0x10", "1_0", "NaN", "inf", "-Inf", "1e999", "--1", "1..2", "1e5.5"} {
		if v, ok := parseFloat([]byte(s)); ok {
			t.Errorf("parseFloat(%q) accepted: %v", s, v)
		}
	}
}

func TestParseFloatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var s string
		switch r.IntN(4) {
		case 0: // the server's format
			s = strconv.FormatFloat((r.Float64()-0.5)*2000, 'f', 2, 64)
		case 1: // any float, shortest
			s = strconv.FormatFloat(math.Float64frombits(r.Uint64()), 'f', -1, 64)
		case 2: // up to 16 digits, up to 20 decimals
			s = strconv.FormatFloat((r.Float64()-0.5)*math.Pow10(r.IntN(12)), 'f', r.IntN(20), 64)
		default:
			s = strconv.FormatFloat(r.NormFloat64()*math.Pow10(r.IntN(40)-20), 'g', -1, 64)
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(want) || math.IsInf(want, 0) {
			continue // the parsers reject these
		}
		got, ok := parseFloat([]byte(s))
		if !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("parseFloat(%q) = %v, %v; want %v", s, got, ok, want)
		}
		sc := Scanner{src: []byte(s), maxDepth: 1}
		if v, err := sc.number("x"); err != nil || math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("Scanner.number(%q) = %v, %v; want %v", s, v, err, want)
		}
	}
}

// TestAppendNumbers checks the fast paths of the encoders against strconv.
func TestAppendNumbers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	values := []float64{0, math.Copysign(0, -1), -0.001, 0.005, 0.015, -0.125, 0.125, 1e-7, 1e15, 1e21, 123456789.125,
		-9.81, 4.05, 351.77, math.MaxFloat64, math.SmallestNonzeroFloat64, 1 << 50, -(1 << 50) + 0.01, 0.1 + 0.2}
	for range 100000 {
		switch r.IntN(4) {
		case 0:
			v, _ := strconv.ParseFloat(strconv.FormatFloat((r.Float64()-0.5)*2e4, 'f', 2, 64), 64)
			values = append(values, v)
		case 1:
			values = append(values, (r.Float64()-0.5)*math.Pow10(r.IntN(20)-5))
		case 2:
			values = append(values, float64(r.IntN(2000000)-1000000)/1000+0.0005) // near ties
		default:
			if v := math.Float64frombits(r.Uint64()); !math.IsNaN(v) && !math.IsInf(v, 0) {
				values = append(values, v)
			}
		}
	}
	for _, v := range values {
		if got, want := string(appendExact(nil, v)), strconv.FormatFloat(v, 'f', -1, 64); got != want {
			t.Fatalf("exact %v: %q, strconv %q", v, got, want)
		}
		for d := range 9 {
			if got, want := string(appendFixed(nil, v, d)), strconv.FormatFloat(v, 'f', d, 64); got != want {
				t.Fatalf("%d decimals %v: %q, strconv %q", d, v, got, want)
			}
		}
	}
	if got := string(Format{ServerDecimals}.num(nil, math.Copysign(0, -1))); got != "-0.00" {
		t.Fatalf("-0: %q", got)
	}
}
