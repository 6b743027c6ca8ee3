package findball

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/simrun"
)

// ThesisRow is one position of the thesis' simulated results: found (of
// 10) and the mean find time (s).
type ThesisRow struct {
	Found int
	Mean  float64
}

// Thesis holds the thesis' tables 5.3 (2016) and 5.4 (2017): three
// simulated robots, ten trials at each of table 5.2's positions.
var Thesis = map[string][]ThesisRow{
	behaviour.StrategyFixedPoints:   {{10, 48.50}, {10, 80.30}, {10, 59.20}, {1, 100.00}, {10, 87.00}, {8, 70.63}, {10, 61.30}, {8, 139.88}, {5, 99.20}, {8, 115.63}},
	behaviour.StrategyProbabilistic: {{10, 57.90}, {10, 78.20}, {10, 93.80}, {10, 107.50}, {10, 75.40}, {9, 48.56}, {10, 82.10}, {10, 26.60}, {7, 110.43}, {10, 30.60}},
}

// isThesis reports whether the campaign uses the thesis' ball positions.
func isThesis(cfg *Config) bool { return slices.Equal(cfg.Balls, ThesisBalls) }

// Report writes the campaign's Markdown report: each strategy's table,
// the comparison of the first two strategies (each further one against
// the first), and, for the thesis' positions, the thesis' numbers beside
// this run's.
func Report(w io.Writer, cfg *Config, results []Result) error {
	return report(w, cfg, results, -1)
}

// ReportStored is Report with the number of void runs the store records
// (Store.Voided) in its heading: runs of trials that were void, never
// results.
func ReportStored(w io.Writer, cfg *Config, results []Result, voided int) error {
	return report(w, cfg, results, voided)
}

// report is Report, with "voided: N" when voided is not negative.
func report(w io.Writer, cfg *Config, results []Result, voided int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Find-ball campaign\n\n")
	fmt.Fprintf(bw, "%d robots (players", len(cfg.Starts))
	for _, s := range cfg.Starts {
		fmt.Fprintf(bw, " %d at (%g, %g)", s.Player, s.X*1000, s.Y*1000)
	}
	fmt.Fprintf(bw, " mm), %d ball positions × %d trials per strategy, limit %v, found within %g mm, reliable ball distance %g mm, seed %d.\n",
		len(cfg.Balls), cfg.Trials, cfg.Limit.D(), cfg.FoundDistance*1000, cfg.ReliableDistance*1000, cfg.Seed)
	planned := len(cfg.Plan())
	fmt.Fprintf(bw, "%d of %d trials stored.", len(results), planned)
	if voided >= 0 {
		fmt.Fprintf(bw, " voided: %d (runs in which a robot ticked without the simulator, a stall: run again, never stored as results).", voided)
	}
	fmt.Fprintf(bw, "\n\n")
	tables := Tables(cfg, results)
	for i := range tables {
		t := &tables[i]
		fmt.Fprintf(bw, "## Strategy %s\n\n", t.Strategy)
		if err := WriteTable(bw, t, len(cfg.Balls)); err != nil {
			return err
		}
		fmt.Fprintln(bw)
	}
	for j := 1; j < len(cfg.Strategies); j++ {
		for i := range j {
			a, b := cfg.Strategies[i].Name, cfg.Strategies[j].Name
			fmt.Fprintf(bw, "## %s against %s\n\n", b, a)
			if err := WriteComparison(bw, Compare(results, a, b)); err != nil {
				return err
			}
			fmt.Fprintln(bw)
		}
	}
	writeTeamPlay(bw, cfg, results)
	writeKeepingClear(bw, cfg, results)
	if isThesis(cfg) {
		writeThesisComparison(bw, tables)
	}
	return bw.Flush()
}

// writeTeamPlay writes each strategy's team play per position: when the
// first striker was allocated, the most role switches of one robot in any
// minute, the switches per robot and minute, and the longest idling.
func writeTeamPlay(w io.Writer, cfg *Config, results []Result) {
	fmt.Fprintf(w, "## Team play\n\nFirst striker: seconds after the start of play from which on every robot had an allocated role and exactly one was the striker, to the end of the trial (mean, max; never: not so at the end). Most switches per minute: the largest number of role switches of one robot in any 60 s of a trial. Switches per robot-minute: all switches over all robots' playing time. Idle: the longest time a robot saw the ball, was not the striker and stood (max over the trials).\n\n")
	for _, s := range cfg.Strategies {
		fmt.Fprintf(w, "### %s\n\n| Position | first striker mean (s) | first striker max (s) | never | most switches per minute | switches per robot-minute | idle max (s) |\n|---|---:|---:|---:|---:|---:|---:|\n", s.Name)
		row := func(label string, pos int) {
			var sum, mx, minutes float64
			n, never, most, sw := 0, 0, 0, 0
			var idle float64
			for _, r := range results {
				if r.Strategy != s.Name || pos > 0 && r.Position != pos {
					continue
				}
				if r.Team.FirstStriker < 0 {
					never++
				} else {
					f := r.Team.FirstStriker.Seconds()
					sum, mx, n = sum+f, max(mx, f), n+1
				}
				most, sw = max(most, r.Team.MaxPerMinute), sw+r.Team.Switches
				d := r.Time
				if cfg.PlayOn || !r.Found {
					d = cfg.Limit.D()
				}
				minutes += d.Minutes() * float64(len(cfg.Starts))
				idle = max(idle, r.Team.Idle.Seconds())
			}
			mean := 0.0
			if n > 0 {
				mean = sum / float64(n)
			}
			per := 0.0
			if minutes > 0 {
				per = float64(sw) / minutes
			}
			fmt.Fprintf(w, "| %s | %.2f | %.2f | %d | %d | %.2f | %.1f |\n", label, mean, mx, never, most, per, idle)
		}
		for p := range cfg.Balls {
			row(fmt.Sprint(p+1), p+1)
		}
		row("**all**", 0)
		fmt.Fprintln(w)
	}
}

// contactDistance is the distance between two robots' ground positions
// below which the report counts them as touching or all but: the SimSpark
// NAO's lower arms hang 0.098 m to each side of the torso centre and are
// 0.05 m wide (docs/simspark-nao-model.md), so two robots side by side
// touch at about 0.25 m.
const contactDistance = 0.3

// writeKeepingClear writes, per strategy, the falls per trial and the
// closest approach of two robots (by the simulator's ground truth in the
// trajectory samples: the minimum over a trial, then its minimum and
// median over the trials).
func writeKeepingClear(w io.Writer, cfg *Config, results []Result) {
	fmt.Fprintf(w, "## Keeping clear\n\nFalls: the robots' falls per trial (mean, max) and the trials with a fall, by the simulator's ground truth (a fall begins when a robot's head goes lower than %.2f m and ends when it is %.2f m high again). Closest approach: the least distance between two robots' ground positions in a trial (the simulator's ground truth, sampled every %v), its minimum and median over the trials, and the trials in which two robots came within %.1f m.\n\n", simrun.LyingHead, simrun.StandingHead, cfg.Sample.D(), contactDistance)
	fmt.Fprintf(w, "| Strategy | trials | falls per trial | max falls | trials with a fall | closest approach min (m) | median (m) | within %.1f m |\n|---|---:|---:|---:|---:|---:|---:|---:|\n", contactDistance)
	for _, s := range cfg.Strategies {
		n, falls, most, fell, touch := 0, 0, 0, 0, 0
		var closest []float64
		for _, r := range results {
			if r.Strategy != s.Name {
				continue
			}
			n++
			falls, most = falls+r.Falls, max(most, r.Falls)
			if r.Falls > 0 {
				fell++
			}
			if r.Closest >= 0 {
				closest = append(closest, r.Closest)
				if r.Closest < contactDistance {
					touch++
				}
			}
		}
		per := 0.0
		if n > 0 {
			per = float64(falls) / float64(n)
		}
		lo, med := "–", "–"
		if len(closest) > 0 {
			slices.Sort(closest)
			lo = fmt.Sprintf("%.2f", closest[0])
			m := closest[len(closest)/2]
			if len(closest)%2 == 0 {
				m = (closest[len(closest)/2-1] + m) / 2
			}
			med = fmt.Sprintf("%.2f", m)
		}
		fmt.Fprintf(w, "| %s | %d | %.2f | %d | %d | %s | %s | %d/%d |\n", s.Name, n, per, most, fell, lo, med, touch, len(closest))
	}
	fmt.Fprintln(w)
}

// writeThesisComparison puts the thesis' found counts and mean times
// beside this run's, per position.
func writeThesisComparison(w io.Writer, tables []Table) {
	var cols []*Table
	for i := range tables {
		if _, ok := Thesis[tables[i].Strategy]; ok {
			cols = append(cols, &tables[i])
		}
	}
	if len(cols) == 0 {
		return
	}
	fmt.Fprintf(w, "## Beside the thesis (its tables 5.3 and 5.4)\n\nFound (of the tests) and mean find time in seconds.\n\n| Position |")
	for _, t := range cols {
		fmt.Fprintf(w, " thesis %s | robotd %s |", t.Strategy, t.Strategy)
	}
	fmt.Fprintf(w, "\n|---|")
	for range cols {
		fmt.Fprintf(w, "---|---|")
	}
	fmt.Fprintln(w)
	for p := range ThesisBalls {
		fmt.Fprintf(w, "| %d |", p+1)
		for _, t := range cols {
			th := Thesis[t.Strategy][p]
			r := t.Rows[p]
			fmt.Fprintf(w, " %d/10, %.2f | %d/%d, %.2f |", th.Found, th.Mean, r.Found, r.Tests, r.Mean)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "| **total** |")
	for _, t := range cols {
		found, means := 0, 0.0
		for _, r := range Thesis[t.Strategy] {
			found += r.Found
			means += r.Mean
		}
		fmt.Fprintf(w, " %d/100, %.2f | %d/%d, %.2f |", found, means/10, t.Grand.Total.Found, t.Grand.Total.Tests, t.Grand.Average.Mean)
	}
	fmt.Fprintf(w, "\n\nTotals' times are the mean of the positions' means, as the thesis' grand averages.\n\n")
}

// ExportCSV writes trials.csv (one line per trial) and samples.csv (one
// line per trajectory sample) into dir.
func ExportCSV(ctx context.Context, st *Store, dir string) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	results, err := st.Results(ctx)
	if err != nil {
		return err
	}
	err = writeCSV(filepath.Join(dir, "trials.csv"), func(cw *csv.Writer) error {
		if err := cw.Write([]string{"id", "index", "strategy", "position", "ball_x", "ball_y", "rep", "seed", "config_hash",
			"found", "time_s", "finder", "falls", "start_s", "wall_s"}); err != nil {
			return err
		}
		for _, r := range results {
			rec := []string{r.ID(), strconv.Itoa(r.Index), r.Strategy, strconv.Itoa(r.Position), ff(r.Ball.X), ff(r.Ball.Y),
				strconv.Itoa(r.Rep), strconv.FormatUint(r.Seed, 10), r.ConfigHash, strconv.FormatBool(r.Found),
				ff(r.Time.Seconds()), strconv.Itoa(r.Finder), strconv.Itoa(r.Falls), ff(r.Start.Seconds()), ff(r.Wall.Seconds())}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeCSV(filepath.Join(dir, "samples.csv"), func(cw *csv.Writer) error {
		if err := cw.Write([]string{"trial", "player", "t_s", "x", "y", "heading", "seen", "fallen"}); err != nil {
			return err
		}
		return st.Samples(ctx, func(id string, samples []Sample) error {
			for _, s := range samples {
				if err := cw.Write([]string{id, strconv.Itoa(s.Player), ff(s.T.Seconds()), ff(s.X), ff(s.Y), ff(s.Heading),
					strconv.FormatBool(s.Seen), strconv.FormatBool(s.Fallen)}); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func writeCSV(path string, fn func(*csv.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	bw := bufio.NewWriter(f)
	cw := csv.NewWriter(bw)
	err = fn(cw)
	cw.Flush()
	if err == nil {
		err = cw.Error()
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("experiment: writing %s: %w", path, err)
	}
	return nil
}

// Outputs writes everything a campaign's database gives into dir:
// report.md, routes-<strategy>.png for each strategy, find-times.png,
// trials.csv and samples.csv. It returns the files written.
func Outputs(ctx context.Context, st *Store, dir string) ([]string, error) {
	cfg, ok, err := st.Campaign(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("experiment: %s holds no campaign", st.Path())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	results, err := st.Results(ctx)
	if err != nil {
		return nil, err
	}
	var files []string
	write := func(name string, fn func(io.Writer) error) error {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
		bw := bufio.NewWriter(f)
		err = fn(bw)
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("experiment: writing %s: %w", path, err)
		}
		files = append(files, path)
		return nil
	}
	voided, err := st.Voided(ctx)
	if err != nil {
		return nil, err
	}
	if err := write("report.md", func(w io.Writer) error { return ReportStored(w, &cfg, results, voided) }); err != nil {
		return files, err
	}
	strategyOf := map[string]string{}
	for _, r := range results {
		strategyOf[r.ID()] = r.Strategy
	}
	for _, s := range cfg.Strategies {
		name := "routes-" + strings.ReplaceAll(s.Name, string(filepath.Separator), "_") + ".png"
		n := 0
		for _, r := range results {
			if r.Strategy == s.Name {
				n++
			}
		}
		title := fmt.Sprintf("%s: routes of %d trials", s.Name, n)
		err := write(name, func(w io.Writer) error {
			return RoutePlot(w, &cfg, title, func(fn func([]Sample) error) error {
				return st.Samples(ctx, func(id string, samples []Sample) error {
					if strategyOf[id] != s.Name {
						return nil
					}
					return fn(samples)
				})
			})
		})
		if err != nil {
			return files, err
		}
	}
	if err := write("find-times.png", func(w io.Writer) error { return TimePlot(w, &cfg, results) }); err != nil {
		return files, err
	}
	if err := ExportCSV(ctx, st, dir); err != nil {
		return files, err
	}
	files = append(files, filepath.Join(dir, "trials.csv"), filepath.Join(dir, "samples.csv"))
	return files, nil
}
