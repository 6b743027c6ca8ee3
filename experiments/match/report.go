package match

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/robotd/robotd/experiments/findball"
)

// Figures are a campaign's figures over its stored games.
type Figures struct {
	Games int
	// WinsA, Draws, WinsB count the games' outcomes.
	WinsA, Draws, WinsB int
	// Goals are each team's goals in all games.
	Goals [2]int
	// GoalDiff is team A's goals less team B's per seed (the mean of the
	// seed's two games, each team kicking off first in one), with its
	// Student-t 95% interval over the seeds whose two games are stored.
	GoalDiff findball.Interval
	// PossessionA is team A's share of the possession per game.
	PossessionA findball.Interval
	// Per team and game: shots, falls, penalties, role switches.
	Shots, Falls, Penalties, Switches [2]float64
	// Collisions per game.
	Collisions float64
}

// Summarise computes the campaign's figures.
func Summarise(results []Result) Figures {
	var f Figures
	f.Games = len(results)
	pairs := map[int][]float64{}
	var order []int
	var poss []float64
	for i := range results {
		r := &results[i]
		gd := r.GoalDifference()
		switch {
		case gd > 0:
			f.WinsA++
		case gd < 0:
			f.WinsB++
		default:
			f.Draws++
		}
		if _, ok := pairs[r.Pair]; !ok {
			order = append(order, r.Pair)
		}
		pairs[r.Pair] = append(pairs[r.Pair], float64(gd))
		if tot := r.Possession[0] + r.Possession[1]; tot > 0 {
			poss = append(poss, float64(r.Possession[0])/float64(tot))
		}
		for t := range 2 {
			f.Goals[t] += r.Score[t]
			f.Shots[t] += float64(r.Shots[t])
			f.Falls[t] += float64(r.Falls[t])
			f.Penalties[t] += float64(r.Penalties[t])
			f.Switches[t] += float64(r.Switches[t])
		}
		f.Collisions += float64(r.Collisions)
	}
	if n := float64(f.Games); n > 0 {
		for t := range 2 {
			f.Shots[t] /= n
			f.Falls[t] /= n
			f.Penalties[t] /= n
			f.Switches[t] /= n
		}
		f.Collisions /= n
	}
	var gd []float64
	for _, p := range order {
		if v := pairs[p]; len(v) == 2 {
			gd = append(gd, (v[0]+v[1])/2)
		}
	}
	f.GoalDiff = findball.TInterval(gd)
	f.PossessionA = findball.TInterval(poss)
	return f
}

// Report writes the campaign's report in Markdown: the figures, then
// every game.
func Report(w io.Writer, cfg *Config, results []Result) error {
	f := Summarise(results)
	var b strings.Builder
	fmt.Fprintf(&b, "# Match: %s (A) against %s (B)\n\n", cfg.A.Name, cfg.B.Name)
	fmt.Fprintf(&b, "%d vs %d, halves of %v, physics %s, GameController layout %s; %d of %d games stored.\n\n",
		cfg.Players, cfg.Players, cfg.Half.D(), cfg.Physics, cfg.Layout, len(results), len(cfg.Plan()))
	fmt.Fprintf(&b, "- team A: %s\n- team B: %s\n\n", settings(cfg.A), settings(cfg.B))
	fmt.Fprintf(&b, "| figure | team A | team B |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| games won | %d | %d |\n| draws | %d | |\n| goals | %d | %d |\n", f.WinsA, f.WinsB, f.Draws, f.Goals[0], f.Goals[1])
	fmt.Fprintf(&b, "| shots per game | %.2f | %.2f |\n| falls per game | %.2f | %.2f |\n| penalties per game | %.2f | %.2f |\n| role switches per game | %.2f | %.2f |\n",
		f.Shots[0], f.Shots[1], f.Falls[0], f.Falls[1], f.Penalties[0], f.Penalties[1], f.Switches[0], f.Switches[1])
	fmt.Fprintf(&b, "| possession share | %s | |\n| collisions per game | %.2f | |\n\n", f.PossessionA, f.Collisions)
	fmt.Fprintf(&b, "**Goal difference (A − B) per seed, 95%% interval (paired by seed, %d seeds):** %s\n\n", f.GoalDiff.N, f.GoalDiff)
	fmt.Fprintf(&b, "| game | first | score A:B | goals (team@s) | possession A | shots | falls | penalties | switches | kick-ins | goal kicks | corners | collisions | wall |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for i := range results {
		r := &results[i]
		first := "A"
		if r.BFirst {
			first = "B"
		}
		var goals []string
		for _, g := range r.Goals {
			goals = append(goals, fmt.Sprintf("%c@%.0f", 'A'+g.Team, g.T.Seconds()))
		}
		poss := math.NaN()
		if tot := r.Possession[0] + r.Possession[1]; tot > 0 {
			poss = float64(r.Possession[0]) / float64(tot)
		}
		fmt.Fprintf(&b, "| %s | %s | %d:%d | %s | %.2f | %d/%d | %d/%d | %d/%d | %d/%d | %d/%d | %d/%d | %d/%d | %d | %v |\n",
			r.ID(), first, r.Score[0], r.Score[1], strings.Join(goals, " "), poss, r.Shots[0], r.Shots[1], r.Falls[0], r.Falls[1],
			r.Penalties[0], r.Penalties[1], r.Switches[0], r.Switches[1], r.KickIns[0], r.KickIns[1], r.GoalKicks[0], r.GoalKicks[1],
			r.Corners[0], r.Corners[1], r.Collisions, r.Wall.Round(time.Second))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func settings(t Team) string {
	if len(t.Set) == 0 {
		return t.Name + " (robotd's defaults)"
	}
	return t.Name + ": " + strings.Join(t.Set, "; ")
}

// Outputs writes the report (report.md) and its plots (goaldiff.png: the
// goal difference of every seed, with the interval; ball.png: where the
// ball was) into dir, and returns the files written.
func Outputs(ctx context.Context, st *Store, dir string) ([]string, error) {
	cfg, ok, err := st.Campaign(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("match: %s holds no campaign", st.Path())
	}
	results, err := st.Results(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	var files []string
	write := func(name string, fn func(io.Writer) error) error {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		if err := fn(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("match: %w", err)
		}
		files = append(files, p)
		return nil
	}
	if err := write("report.md", func(w io.Writer) error { return Report(w, &cfg, results) }); err != nil {
		return files, err
	}
	if err := write("goaldiff.png", func(w io.Writer) error { return GoalDiffPlot(w, results) }); err != nil {
		return files, err
	}
	if err := write("ball.png", func(w io.Writer) error { return BallPlot(w, results) }); err != nil {
		return files, err
	}
	return files, nil
}

var (
	white = color.RGBA{255, 255, 255, 255}
	grey  = color.RGBA{150, 150, 150, 255}
	blue  = color.RGBA{40, 90, 200, 255}
	red   = color.RGBA{200, 50, 40, 255}
	green = color.RGBA{40, 130, 60, 255}
)

func rect(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	draw.Draw(img, image.Rect(min(x0, x1), min(y0, y1), max(x0, x1)+1, max(y0, y1)+1), image.NewUniform(c), image.Point{}, draw.Src)
}

// GoalDiffPlot draws each seed's goal difference (A − B, the mean of its
// two games) as a bar, blue for A, red for B, with the mean and its 95 %
// interval as a band on the right; the grey line is 0.
func GoalDiffPlot(w io.Writer, results []Result) error {
	f := Summarise(results)
	pairs := map[int]float64{}
	var order []int
	for _, r := range results {
		if _, ok := pairs[r.Pair]; !ok {
			order = append(order, r.Pair)
		}
		pairs[r.Pair] += float64(r.GoalDifference()) / 2
	}
	const W, H, bar = 640, 320, 16
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	rect(img, 0, 0, W-1, H-1, white)
	scale := 1.0
	for _, v := range pairs {
		scale = max(scale, math.Abs(v))
	}
	if !math.IsNaN(f.GoalDiff.Lo) {
		scale = max(scale, math.Abs(f.GoalDiff.Lo), math.Abs(f.GoalDiff.Hi))
	}
	y := func(v float64) int { return H/2 - int(v/scale*float64(H/2-20)) }
	rect(img, 10, H/2, W-10, H/2, grey)
	for i, p := range order {
		x := 20 + i*(bar+4)
		if x+bar > W-80 {
			break
		}
		c := blue
		if pairs[p] < 0 {
			c = red
		}
		rect(img, x, y(0), x+bar, y(pairs[p]), c)
	}
	if !math.IsNaN(f.GoalDiff.Lo) {
		rect(img, W-60, y(f.GoalDiff.Lo), W-30, y(f.GoalDiff.Hi), color.RGBA{120, 160, 230, 255})
		rect(img, W-66, y(f.GoalDiff.Est), W-24, y(f.GoalDiff.Est), green)
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("match: encoding a plot: %w", err)
	}
	return nil
}

// BallPlot draws where the ball was in every game's samples on the
// field (team A attacking to the right in every game): darker where it
// was more often.
func BallPlot(w io.Writer, results []Result) error {
	const W, H, px = 660, 460, 60 // 11 m × 7.6 m at 60 px/m
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	rect(img, 0, 0, W-1, H-1, color.RGBA{60, 150, 70, 255})
	at := func(x, y float64) (int, int) { return W/2 + int(x*px), H/2 - int(y*px) }
	x0, y0 := at(-4.5, 3)
	x1, y1 := at(4.5, -3)
	for _, l := range [][4]int{{x0, y0, x1, y0}, {x0, y1, x1, y1}, {x0, y0, x0, y1}, {x1, y0, x1, y1}, {W / 2, y0, W / 2, y1}} {
		rect(img, l[0], l[1], l[2], l[3], white)
	}
	var count [W / 10][H / 10]int
	most := 1
	for _, r := range results {
		flip := 1.0
		if r.BFirst {
			flip = -1 // team A played on the right side
		}
		for _, s := range r.Samples {
			if s.Team != -1 {
				continue
			}
			x, y := at(flip*s.X, flip*s.Y)
			if x >= 0 && y >= 0 && x < W && y < H {
				count[x/10][y/10]++
				most = max(most, count[x/10][y/10])
			}
		}
	}
	for i := range count {
		for j := range count[i] {
			if n := count[i][j]; n > 0 {
				a := uint8(255 - 200*math.Sqrt(float64(n)/float64(most)))
				rect(img, i*10+2, j*10+2, i*10+7, j*10+7, color.RGBA{a, a, a, 255})
			}
		}
	}
	if err := png.Encode(w, img); err != nil {
		return fmt.Errorf("match: encoding a plot: %w", err)
	}
	return nil
}
