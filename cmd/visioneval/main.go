// Command visioneval measures robotd's vision pipeline (modules/vision):
// on a folder of labelled real camera images, or on frames the embedded
// simulator renders.
//
//	visioneval -real DIR [-all] [-pitch-sweep 3]   a folder with labels.json
//	visioneval [-frames 1000] [-seed 1]            rendered frames
//
// -config F takes the vision configuration from F (JSON with the keys of
// robotd's vision section) instead of the defaults.
//
// DIR holds labels.json in the format of
// internal/testimages/testdata/realset (a team's own log images labelled
// the same way). It prints ball recall overall and within 4 m, false
// balls per 100 frames, the found balls' position error, the time per
// frame and a table of the images with a miss or a false ball, each with
// its kind (-all: every image). -pitch-sweep D repeats the measurement
// with every camera pitched D degrees up and down: how much a pose a few
// degrees off costs.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/robotd/robotd/experiments/visioneval"
	"github.com/robotd/robotd/modules/vision"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "visioneval:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("visioneval", flag.ContinueOnError)
	real := fs.String("real", "", "folder with labels.json and its images")
	all := fs.Bool("all", false, "list every image, not only those with a miss or a false ball")
	sweep := fs.Float64("pitch-sweep", 0, "also measure with the camera pitch off by ± this many degrees")
	frames := fs.Int("frames", 1000, "rendered frames (without -real)")
	cfgFile := fs.String("config", "", "vision configuration (JSON, the vision section's keys) instead of the defaults")
	seed := fs.Uint64("seed", 1, "scene seed of the rendered frames")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg := vision.DefaultConfig()
	if *cfgFile != "" {
		b, err := os.ReadFile(*cfgFile)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return fmt.Errorf("%s: %w", *cfgFile, err)
		}
	}
	newPipeline := func() (visioneval.Pipeline, error) {
		c := cfg
		if *real != "" {
			// Frames up to 1280×960: logs of other cameras too.
			c.MaxWidth, c.MaxHeight = max(c.MaxWidth, 1280), max(c.MaxHeight, 960)
		}
		return vision.New(c)
	}
	if *real == "" {
		rep, err := visioneval.Run(visioneval.Config{Frames: *frames, Seed: *seed, NewPipeline: newPipeline}, nil)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, rep.Table())
		return rep.Check()
	}
	dir := os.DirFS(*real)
	rep, err := visioneval.RunLabelled(dir, visioneval.LabelledConfig{NewPipeline: newPipeline})
	if rep != nil {
		fmt.Fprint(w, rep.Table(*all))
		fmt.Fprintln(w)
		fmt.Fprint(w, rep.Summary())
	}
	if err != nil {
		return err
	}
	if *sweep != 0 {
		if *sweep < 0 || *sweep > 30 {
			return errors.New("-pitch-sweep: want 0–30 degrees")
		}
		for _, off := range []float64{-*sweep, *sweep} {
			r, err := visioneval.RunLabelled(dir, visioneval.LabelledConfig{NewPipeline: newPipeline, PitchOffsetDeg: off})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "pitch %+g°: recall %v, within %g m %v, false balls %.2f per 100 frames\n",
				off, r.Recall, visioneval.LabelledNearRange, r.Near, r.PerHundred(r.FalseBalls))
		}
	}
	return nil
}
