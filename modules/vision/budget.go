package vision

// The work bounds of one frame. A hostile texture (a goal net close up,
// green and white checkers or stripes of 1–16 px) has many times the runs,
// spots and line points of a normal frame; each stage
// stops, or coarsens, at its bound, so that no frame costs much more than
// twice a busy real one:
//
//   - the scan's runs (maxRuns per 640×480) and classified pixels (a third
//     of the frame's): beyond them, the rest of a scan line is one run and
//     no further scan lines are split;
//   - the ball spots kept (MaxBallCandidates) and the network's checks
//     (MaxBallChecks);
//   - the robot network: one run of fixed cost (an 80×60 input) per frame
//     at most, its boxes bounded by the obstacles' (16);
//   - the line points (maxRansacPoints, evenly thinned) and the RANSAC
//     point tests (ransacBudget), and the penalty mark hypotheses
//     (maxMarkTrials).
//
// Result.Work counts what a frame did.

// maxRuns is the most scan-line runs of a 640×480 frame (a busy real frame
// has about 2200).
const maxRuns = 4096

// runBudget is the most runs of this frame: maxRuns scaled by its area.
func (p *Pipeline) runBudget() int { return max(1024, maxRuns*p.w*p.h/(640*480)) }

// scanBudget is the most pixels the scan classifies in this frame (a busy
// real frame classifies about 50000 of 640×480).
func (p *Pipeline) scanBudget() int { return p.w * p.h / 3 }

// scanExhausted reports whether the scan reached a bound.
func (p *Pipeline) scanExhausted() bool {
	return len(p.vruns)+len(p.hruns) >= p.runBudget() || p.res.Work.ScanPoints >= p.scanBudget()
}

// workLimits are the bounds of Result.Work for a frame of w×h: the
// scan's (plus what the ball spots and the checks after it classify), the
// ball candidates and checks, the line points and RANSAC tests (the last
// hypothesis may test all points beyond the budget).
func workLimits(cfg Config, w, h int) Work {
	p := &Pipeline{cfg: cfg, w: w, h: h}
	return Work{
		ScanPoints:  p.scanBudget() + p.scanBudget()/4,
		Runs:        p.runBudget() + 2*(w+h), // the last run of each scan line
		Candidates:  cfg.MaxBallCandidates,
		NetRuns:     cfg.MaxBallChecks,
		RobotRuns:   1,
		LinePoints:  maxRansacPoints,
		RansacTests: p.ransacBudget() + maxRansacPoints,
	}
}
