package findball

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Row is one ball position's line of a results table (thesis tables
// 5.3/5.4): tests, found, not found, and the find times' total, mean and
// standard deviation (seconds, over the found trials; the sample standard
// deviation, 0 with fewer than two).
type Row struct {
	Label    string
	Tests    int
	Found    int
	NotFound int
	Total    float64
	Mean     float64
	SD       float64
}

// Table is one strategy's results: a row per position, and the thesis'
// summary rows.
type Table struct {
	Strategy string
	Rows     []Row
	// Halves are the sub-totals and sub-averages of the first and second
	// half of the positions (the thesis' positions 1-5 and 6-10).
	Halves [2]Summary2
	// Grand is the grand total and grand average.
	Grand Summary2
	// Pooled is over every found trial (not per position): the mean and
	// standard deviation of all find times.
	Pooled Row
}

// Summary2 is a sub-total (sums) and a sub-average (means of the rows'
// columns), as in the thesis' tables.
type Summary2 struct {
	Label   string
	Total   Row
	Average Row
}

// Tables builds one table per strategy, in the campaign's order, from the
// stored results.
func Tables(cfg *Config, results []Result) []Table {
	var out []Table
	for _, s := range cfg.Strategies {
		t := Table{Strategy: s.Name}
		var all []float64
		for p := range cfg.Balls {
			var times []float64
			row := Row{Label: fmt.Sprint(p + 1)}
			for _, r := range results {
				if r.Strategy != s.Name || r.Position != p+1 {
					continue
				}
				row.Tests++
				if r.Found {
					row.Found++
					times = append(times, r.Time.Seconds())
				} else {
					row.NotFound++
				}
			}
			row.Total = sum(times)
			row.Mean, row.SD = meanSD(times)
			all = append(all, times...)
			t.Rows = append(t.Rows, row)
		}
		h := (len(t.Rows) + 1) / 2
		t.Halves[0] = summarise(fmt.Sprintf("1-%d", h), t.Rows[:h])
		if h < len(t.Rows) {
			t.Halves[1] = summarise(fmt.Sprintf("%d-%d", h+1, len(t.Rows)), t.Rows[h:])
		}
		t.Grand = summarise("all", t.Rows)
		t.Pooled = Row{Label: "pooled", Tests: t.Grand.Total.Tests, Found: t.Grand.Total.Found, NotFound: t.Grand.Total.NotFound, Total: sum(all)}
		t.Pooled.Mean, t.Pooled.SD = meanSD(all)
		out = append(out, t)
	}
	return out
}

// summarise sums the rows and averages their columns; as in the thesis,
// the average of the mean times and of the standard deviations is over
// the positions where the ball was found at least once.
func summarise(label string, rows []Row) Summary2 {
	s := Summary2{Label: label}
	s.Total.Label, s.Average.Label = "total "+label, "average "+label
	var means, sds []float64
	for _, r := range rows {
		s.Total.Tests += r.Tests
		s.Total.Found += r.Found
		s.Total.NotFound += r.NotFound
		s.Total.Total += r.Total
		if r.Found > 0 {
			means = append(means, r.Mean)
			sds = append(sds, r.SD)
		}
	}
	if n := float64(len(rows)); n > 0 {
		s.Average.Total = s.Total.Total / n
	}
	s.Average.Mean, _ = meanSD(means)
	s.Average.SD, _ = meanSD(sds)
	return s
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// meanSD returns the mean and the sample standard deviation.
func meanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return 0, 0
	}
	mean = sum(v) / float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// WriteTable writes a table as Markdown, in the thesis' layout.
func WriteTable(w io.Writer, t *Table, positions int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "| Position | Tests | Found | Not Found | Total Seconds | Avg. Seconds | Std. Dev. |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|\n")
	row := func(r Row) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.2f | %.2f | %.2f |\n", r.Label, r.Tests, r.Found, r.NotFound, r.Total, r.Mean, r.SD)
	}
	avg := func(label string, s Summary2, n int) {
		if n == 0 {
			return
		}
		f := float64(n)
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", label,
			float64(s.Total.Tests)/f, float64(s.Total.Found)/f, float64(s.Total.NotFound)/f, s.Average.Total, s.Average.Mean, s.Average.SD)
	}
	tot := func(label string, s Summary2) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | | | |\n", label, s.Total.Tests, s.Total.Found, s.Total.NotFound)
	}
	h := (len(t.Rows) + 1) / 2
	for i, r := range t.Rows {
		row(r)
		if len(t.Rows) >= 4 && (i == h-1 || i == len(t.Rows)-1) {
			k, n := 0, h
			if i != h-1 {
				k, n = 1, len(t.Rows)-h
			}
			tot("**Sub-Total** ("+t.Halves[k].Label+")", t.Halves[k])
			avg("**Sub-Average** ("+t.Halves[k].Label+")", t.Halves[k], n)
		}
	}
	tot("**Grand Total**", t.Grand)
	avg("**Grand Average**", t.Grand, len(t.Rows))
	fmt.Fprintf(&b, "| all found trials (pooled) | %d | %d | %d | %.2f | %.2f | %.2f |\n", t.Pooled.Tests, t.Pooled.Found, t.Pooled.NotFound, t.Pooled.Total, t.Pooled.Mean, t.Pooled.SD)
	_, err := io.WriteString(w, b.String())
	return err
}

// Interval is an estimate with its 95% confidence interval.
type Interval struct {
	Est, Lo, Hi float64
	// N is the number of observations it rests on.
	N int
}

func (i Interval) String() string { return fmt.Sprintf("%.3f [%.3f, %.3f]", i.Est, i.Lo, i.Hi) }

// Arm is one strategy in a comparison.
type Arm struct {
	Strategy string
	// Rate is the find rate (found/tests) with its Wilson score interval.
	Rate Interval
	// Mean is the mean find time (s) of the found trials with its
	// Student-t interval.
	Mean Interval
}

// Comparison compares two strategies.
type Comparison struct {
	A, B Arm
	// RateDiff is B's find rate less A's (Newcombe's hybrid score
	// interval); MeanDiff is B's mean find time less A's (Welch's t
	// interval).
	RateDiff, MeanDiff Interval
	// Paired is B's find time less A's in the same trial (the same
	// position, repetition and seeds), a trial not found counting the
	// limit, with its Student-t interval over the pairs; PairsBothFound
	// counts the pairs in which both found the ball.
	Paired         Interval
	PairsBothFound int
}

// Compare compares strategies a and b over the stored results.
func Compare(results []Result, a, b string) Comparison {
	arm := func(s string) (Arm, []float64, int, int) {
		var times []float64
		n, k := 0, 0
		for _, r := range results {
			if r.Strategy != s {
				continue
			}
			n++
			if r.Found {
				k++
				times = append(times, r.Time.Seconds())
			}
		}
		return Arm{Strategy: s, Rate: wilson(k, n), Mean: tInterval(times)}, times, k, n
	}
	A, ta, ka, na := arm(a)
	B, tb, kb, nb := arm(b)
	c := Comparison{A: A, B: B}
	c.RateDiff = newcombe(ka, na, kb, nb)
	c.MeanDiff = welch(ta, tb)
	type key struct{ pos, rep int }
	at := map[key]Result{}
	for _, r := range results {
		if r.Strategy == a {
			at[key{r.Position, r.Rep}] = r
		}
	}
	var diffs []float64
	for _, r := range results {
		if r.Strategy != b {
			continue
		}
		if ra, ok := at[key{r.Position, r.Rep}]; ok {
			diffs = append(diffs, r.Time.Seconds()-ra.Time.Seconds())
			if r.Found && ra.Found {
				c.PairsBothFound++
			}
		}
	}
	c.Paired = tInterval(diffs)
	return c
}

// z975 is the standard normal's 97.5% quantile.
const z975 = 1.959963984540054

// wilson is the Wilson score interval for k successes in n trials.
func wilson(k, n int) Interval {
	if n == 0 {
		return Interval{Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	p, nf, z := float64(k)/float64(n), float64(n), z975
	den := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return Interval{Est: p, Lo: max(0, centre-half), Hi: min(1, centre+half), N: n}
}

// newcombe is Newcombe's hybrid score interval for p2 - p1 (his method
// 10), from the two Wilson intervals.
func newcombe(k1, n1, k2, n2 int) Interval {
	a, b := wilson(k1, n1), wilson(k2, n2)
	if n1 == 0 || n2 == 0 {
		return Interval{Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	d := b.Est - a.Est
	lo := d - math.Sqrt((b.Est-b.Lo)*(b.Est-b.Lo)+(a.Hi-a.Est)*(a.Hi-a.Est))
	hi := d + math.Sqrt((b.Hi-b.Est)*(b.Hi-b.Est)+(a.Est-a.Lo)*(a.Est-a.Lo))
	return Interval{Est: d, Lo: lo, Hi: hi, N: n1 + n2}
}

// TInterval is the mean of v with its Student-t 95% interval (the match
// experiment's paired goal difference uses it too).
func TInterval(v []float64) Interval { return tInterval(v) }

// tInterval is the mean with its Student-t 95% interval.
func tInterval(v []float64) Interval {
	m, sd := meanSD(v)
	if len(v) < 2 {
		return Interval{Est: m, Lo: math.NaN(), Hi: math.NaN(), N: len(v)}
	}
	h := studentQuantile(0.975, float64(len(v)-1)) * sd / math.Sqrt(float64(len(v)))
	return Interval{Est: m, Lo: m - h, Hi: m + h, N: len(v)}
}

// welch is the difference of means b - a with Welch's 95% interval.
func welch(a, b []float64) Interval {
	ma, sa := meanSD(a)
	mb, sb := meanSD(b)
	if len(a) < 2 || len(b) < 2 {
		return Interval{Est: mb - ma, Lo: math.NaN(), Hi: math.NaN(), N: len(a) + len(b)}
	}
	va, vb := sa*sa/float64(len(a)), sb*sb/float64(len(b))
	se := math.Sqrt(va + vb)
	if se == 0 {
		return Interval{Est: mb - ma, Lo: mb - ma, Hi: mb - ma, N: len(a) + len(b)}
	}
	df := (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	h := studentQuantile(0.975, df) * se
	return Interval{Est: mb - ma, Lo: mb - ma - h, Hi: mb - ma + h, N: len(a) + len(b)}
}

// studentQuantile is the p-quantile (p > 0.5) of Student's t with df
// degrees of freedom, by bisection on its distribution function.
func studentQuantile(p, df float64) float64 {
	lo, hi := 0.0, 1.0
	for studentCDF(hi, df) < p {
		hi *= 2
	}
	for range 100 {
		mid := (lo + hi) / 2
		if studentCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// studentCDF is Student's t distribution function at t ≥ 0.
func studentCDF(t, df float64) float64 {
	x := df / (df + t*t)
	return 1 - 0.5*regIncBeta(df/2, 0.5, x)
}

// regIncBeta is the regularised incomplete beta function I_x(a, b)
// (continued fraction, Numerical Recipes §6.4).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const eps, tiny = 1e-15, 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		mf := float64(m)
		m2 := 2 * mf
		aa := mf * (b - mf) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + mf) * (qab + mf) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// WriteComparison writes the comparison as Markdown.
func WriteComparison(w io.Writer, c Comparison) error {
	var b strings.Builder
	pct := func(i Interval) string {
		return fmt.Sprintf("%.1f%% [%.1f%%, %.1f%%]", 100*i.Est, 100*i.Lo, 100*i.Hi)
	}
	sec := func(i Interval) string { return fmt.Sprintf("%.2f s [%.2f, %.2f]", i.Est, i.Lo, i.Hi) }
	fmt.Fprintf(&b, "| | %s | %s | %s − %s |\n|---|---|---|---|\n", c.A.Strategy, c.B.Strategy, c.B.Strategy, c.A.Strategy)
	fmt.Fprintf(&b, "| find rate (95%% CI) | %s (n=%d) | %s (n=%d) | %s |\n", pct(c.A.Rate), c.A.Rate.N, pct(c.B.Rate), c.B.Rate.N,
		fmt.Sprintf("%+.1f points [%+.1f, %+.1f]", 100*c.RateDiff.Est, 100*c.RateDiff.Lo, 100*c.RateDiff.Hi))
	fmt.Fprintf(&b, "| mean find time (95%% CI) | %s (n=%d) | %s (n=%d) | %s |\n", sec(c.A.Mean), c.A.Mean.N, sec(c.B.Mean), c.B.Mean.N,
		fmt.Sprintf("%+.2f s [%+.2f, %+.2f]", c.MeanDiff.Est, c.MeanDiff.Lo, c.MeanDiff.Hi))
	fmt.Fprintf(&b, "| paired find time, same trial (95%% CI) | | | %s (%d pairs, %d both found) |\n",
		fmt.Sprintf("%+.2f s [%+.2f, %+.2f]", c.Paired.Est, c.Paired.Lo, c.Paired.Hi), c.Paired.N, c.PairsBothFound)
	fmt.Fprintf(&b, "\nFind rates: Wilson score intervals, their difference Newcombe's hybrid score interval. Mean find times over the found trials: Student-t intervals, their difference Welch's. Paired: the difference of the find times in the same trial (position, repetition, seeds), a trial not found counting the limit, with its Student-t interval.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// strategiesOf returns the strategies present in the results, in first
// appearance order.
func strategiesOf(results []Result) []string {
	var s []string
	for _, r := range results {
		if !slices.Contains(s, r.Strategy) {
			s = append(s, r.Strategy)
		}
	}
	return s
}
