// Command simframes renders NAO camera frames of random scenes on the SPL
// field with their ground truth, a data set for evaluating image
// processing (package render):
//
//	simframes                          # 1000 frames into simframes-out/
//	simframes -n 50 -png -out /tmp/f   # 50 frames, with PNGs to look at
//	simframes -seed 2 -bottom 640      # other scenes, 640 × 480 bottom camera
//
// Each frame is frame_NNNNN.yuyv (raw YUYV 4:2:2, 640 × 480 top, 320 × 240
// or 640 × 480 bottom); truth.jsonl holds one JSON object per frame: the
// camera and its pose, the lighting, the ball (position, distance, pixel,
// apparent radius, how much of it is hidden), and the visible lines,
// intersections (L/T/X), penalty marks, robots and the centre circle. The
// same seed gives the same files.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/robotd/robotd/render"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "simframes:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cfg := render.GenerateConfig{Dir: "simframes-out", N: 1000, Seed: 1, BottomWidth: 320}
	fs := flag.NewFlagSet("simframes", flag.ContinueOnError)
	fs.StringVar(&cfg.Dir, "out", cfg.Dir, "output directory")
	fs.IntVar(&cfg.N, "n", cfg.N, "number of frames")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed of the scenes, lighting and noise")
	fs.IntVar(&cfg.BottomWidth, "bottom", cfg.BottomWidth, "bottom camera width: 320 or 640")
	fs.BoolVar(&cfg.PNG, "png", false, "also write each frame as a PNG")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	start := time.Now()
	err := render.Generate(cfg, func(done int) {
		if done%100 == 0 || done == cfg.N {
			fmt.Fprintf(os.Stderr, "simframes: %d of %d frames\n", done, cfg.N)
		}
	})
	if err != nil {
		return err
	}
	fmt.Printf("%d frames and truth.jsonl in %s (%.1f s)\n", cfg.N, cfg.Dir, time.Since(start).Seconds())
	return nil
}
