package perception

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// unlabeledWorld is the synthetic world as a real field's camera sees it:
// the NAO's top camera (56.3° wide), detections up to 6 m, lines,
// intersections by kind, the centre circle, the penalty marks, and goal
// posts without IDs (or none).
func unlabeledWorld(seed uint64, start hal.Pose2, posts bool) *world {
	w := newWorld(seed, start)
	w.unlabeled, w.noPosts, w.postIDs = true, !posts, false
	w.fov, w.maxRange = 56.3*math.Pi/180, 6
	return w
}

// unlabeledConfig is the default configuration with the posts' IDs off.
func unlabeledConfig(seed uint64) Config {
	cfg := DefaultConfig()
	cfg.Seed = seed
	cfg.Localisation.PostIDs = false
	return cfg
}

// TestLocalisationUnlabeledWalk: the walking robot localises from
// unlabeled observations alone (median error ≤ 15 cm and 5°), round the
// centre circle and on a wider loop through both penalty areas' fronts.
func TestLocalisationUnlabeledWalk(t *testing.T) {
	tests := []struct {
		name  string
		seed  uint64
		setup func(*world)
	}{
		{"lines, intersections, circle, marks; no posts", 71, func(*world) {}},
		{"with ambiguous posts", 72, func(w *world) { w.noPosts = false }},
		{"false lines and landmarks in 20% of frames", 73, func(w *world) { w.falseRate, w.falseLineRate = 0.2, 0.2 }},
		{"wide loop (r = 2.5 m)", 74, func(w *world) { w.circleR = 2.5; w.pose = hal.Pose2{X: -2.5, Heading: hal.Radians(-math.Pi / 2)} }},
		{"odometry 15% off", 75, func(w *world) { w.odoScale, w.odoRotScale = 0.85, 1.15 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			simulation(t)
			t.Parallel()
			h := newHarness(t, unlabeledConfig(tc.seed))
			w := unlabeledWorld(tc.seed, onCircle(), false)
			tc.setup(w)
			var in input
			dists, heads := track(t, h, w, &in, trackTime, 0)
			med, p95 := percentile(dists, 0.5), percentile(dists, 0.95)
			hmed := percentile(heads, 0.5) * 180 / math.Pi
			t.Logf("pose error over %v: median %.3f m, p95 %.3f m; heading median %.2f°, p95 %.2f°; confidence %.2f",
				trackTime, med, p95, hmed, percentile(heads, 0.95)*180/math.Pi, h.pose.Confidence)
			if med > 0.15 || hmed > 5 || p95 > 0.35 {
				t.Errorf("pose error median %.3f m / %.2f°, p95 %.3f m; want ≤ 0.15 m / 5°, ≤ 0.35 m", med, hmed, p95)
			}
		})
	}
}

// TestLineObservationsAlone: a seen line fits the poses on either side of
// its field line at the same distance; at the true pose it scores higher
// than 40 cm across, and a line of the wrong direction scores the floor.
func TestLineObservationsAlone(t *testing.T) {
	cfg := unlabeledConfig(1)
	h := newHarness(t, cfg)
	l := h.m.loc
	var v hal.Vision
	v.Fresh = true
	// The robot at (-2, 1) facing +x sees the halfway line 2 m ahead,
	// running across its view.
	v.Add(hal.Observation{Kind: hal.ObjLine, Pos: hal.Vec2{X: 2, Y: 0.3}, Orientation: hal.Radians(math.Pi / 2)})
	l.prepare(&v)
	at := func(x, y, hd float64) float64 {
		s, c := math.Sincos(hd)
		return l.logLik(x, y, s, c)
	}
	good, shifted, turned := at(-2, 1, 0), at(-2.4, 1, 0), at(-2, 1, 0.8)
	if !(good > shifted+2) || turned != l.logFloor {
		t.Errorf("log-likelihoods: true pose %.2f, 40 cm off %.2f, turned 46° %.2f (floor %.2f)", good, shifted, turned, l.logFloor)
	}
	// Along the line it cannot tell.
	if d := math.Abs(at(-2, 0.5, 0) - good); d > 1e-9 {
		t.Errorf("moving along the seen line changes the likelihood by %.3f", d)
	}
	// Beyond the field line's end it does.
	if at(-2, 3.6, 0) > good-1 {
		t.Errorf("a line seen beyond the halfway line's end fits as well as on it")
	}
}

// mirrorKidnap walks the robot localised (unlabeled) until it is in the
// opponent half, then puts it on the mirrored pose: the belief, now the
// mirror image of the truth, fits every line as well as before.
func mirrorKidnap(t *testing.T, seed uint64) (*harness, *world, *input) {
	t.Helper()
	h := newHarness(t, unlabeledConfig(seed))
	w := unlabeledWorld(seed, onCircle(), true)
	in := &input{}
	track(t, h, w, in, 10*time.Second, 0)
	for range 40 {
		if w.pose.X > 0.9 {
			break
		}
		track(t, h, w, in, time.Second, 0)
	}
	if d, _ := poseError(h.pose.Pose, w.pose); d > 0.3 || w.pose.X <= 0.9 {
		t.Fatalf("before the kidnap: error %.2f m at x = %.2f", d, w.pose.X)
	}
	w.pose = mirrored(w.pose)
	track(t, h, w, in, 2*time.Second, 0)
	if m, _ := poseError(h.pose.Pose, mirrored(w.pose)); m > 0.4 {
		t.Fatalf("the belief did not stay on the mirrored side (%.2f m from it): the test's premise fails", m)
	}
	return h, w, in
}

// TestSymmetryFromGameController: in a SET that follows READY every robot
// is in its own half; a belief in the opponent half is mirrored.
func TestSymmetryFromGameController(t *testing.T) {
	simulation(t)
	for seed := uint64(81); seed < 83; seed++ {
		h, w, in := mirrorKidnap(t, seed)
		w.still = true
		in.game.Phase = hal.PhaseReady
		track(t, h, w, in, time.Second, 0)
		in.game.Phase = hal.PhaseSet
		took, ok := recovery(t, h, w, in, 3*time.Second)
		t.Logf("seed %d: on the right side %v into SET", seed, took)
		if !ok {
			t.Errorf("seed %d: still mirrored 3 s into SET", seed)
		}
	}
}

// TestSymmetryFromTeamBall: a teammate reports the ball where this robot
// sees it only from the mirrored pose: the belief is mirrored.
func TestSymmetryFromTeamBall(t *testing.T) {
	simulation(t)
	for seed := uint64(85); seed < 87; seed++ {
		h, w, in := mirrorKidnap(t, seed)
		// The ball 1.5 m ahead of the robot, seen; the head follows it.
		w.ball, w.ballOn, w.lookAtBall = w.pose.Global(hal.Vec2{X: 1.5, Y: 0.3}), true, true
		w.still = true
		in.withTeam = true
		in.reports = msg.TeamBallReports{N: 1}
		in.reports.Reports[0] = msg.TeamBallReport{Player: 3, Pos: w.ball, PoseConfidence: 0.9}
		start := h.now()
		var took time.Duration
		ok := false
		for h.now()-start < 5*time.Second {
			in.reports.Reports[0].Received = h.now()
			w.step(in)
			h.step(t, in)
			if d, _ := poseError(h.pose.Pose, w.pose); d < 0.3 {
				took, ok = h.now()-start, true
				break
			}
		}
		t.Logf("seed %d: on the right side after %v of the team ball", seed, took)
		if !ok {
			t.Errorf("seed %d: still mirrored after 5 s with the teammates' ball", seed)
		}
		// And it stays there.
		track(t, h, w, in, 2*time.Second, 0)
		if d, _ := poseError(h.pose.Pose, w.pose); d > 0.3 {
			t.Errorf("seed %d: %.2f m off 2 s later", seed, d)
		}
	}
}
