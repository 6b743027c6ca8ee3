package perception

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// track runs the module in world w for d and returns the position and
// heading error of every tick from skip on (infinite while the pose is not
// valid).
func track(t *testing.T, h *harness, w *world, in *input, d, skip time.Duration) (dists, heads []float64) {
	t.Helper()
	start := h.now()
	for h.now()-start < d {
		w.step(in)
		h.step(t, in)
		if h.now()-start < skip {
			continue
		}
		de, he := poseError(h.pose.Pose, w.pose)
		if !h.pose.Valid {
			de, he = math.Inf(1), math.Inf(1)
		}
		dists = append(dists, de)
		heads = append(heads, he)
	}
	return dists, heads
}

// onCircle is the synthetic world's start: on the walking circle in the own
// half, heading along it.
func onCircle() hal.Pose2 { return hal.Pose2{X: -1.5, Heading: hal.Radians(-math.Pi / 2)} }

// trackTime is how long the robot walks round the centre circle: about
// 40 % of a lap at the walk's speed.
const trackTime = 15 * time.Second

func TestLocalisationTracksWalkAroundCentreCircle(t *testing.T) {
	tests := []struct {
		name  string
		seed  uint64
		setup func(*world)
		// skip is the time not counted: none, except where the robot
		// cannot see two landmarks at the start.
		skip time.Duration
	}{
		{"posts with IDs", 1, func(*world) {}, 0},
		{"posts with IDs, other noise", 2, func(*world) {}, 0},
		{"posts without IDs", 3, func(w *world) { w.postIDs = false }, 0},
		{"false landmarks in 20% of frames", 5, func(w *world) { w.falseRate = 0.2 }, 0},
		{"odometry 15% off", 6, func(w *world) { w.odoScale, w.odoRotScale = 0.85, 1.15 }, 0},
		// Facing the touch line with a fixed head, the robot sees one
		// T-junction until it has walked for about 4 s.
		{"head fixed forward, from 5 s", 4, func(w *world) { w.fixedHead = true }, 5 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			simulation(t)
			t.Parallel()
			cfg := DefaultConfig()
			cfg.Seed = tc.seed
			h := newHarness(t, cfg)
			// The filter starts anywhere in the own half; the errors count
			// from the first tick (or skip).
			w := newWorld(tc.seed, onCircle())
			tc.setup(w)
			var in input
			dists, heads := track(t, h, w, &in, trackTime, tc.skip)
			first := 0
			for first < len(dists) && math.IsInf(dists[first], 1) {
				first++
			}
			med, p95 := percentile(dists, 0.5), percentile(dists, 0.95)
			hmed := percentile(heads, 0.5) * 180 / math.Pi
			t.Logf("valid %v after the counted time starts; pose error over %v: median %.3f m, p95 %.3f m, max after localised %.3f m; heading median %.2f°, p95 %.2f°; confidence %.2f",
				time.Duration(first)*period, trackTime, med, p95, percentile(dists[first:], 1), hmed, percentile(heads, 0.95)*180/math.Pi, h.pose.Confidence)
			if med > 0.15 || hmed > 10 || p95 > 0.35 {
				t.Errorf("pose error median %.3f m / %.2f°, p95 %.3f m; want ≤ 0.15 m / 10°, ≤ 0.35 m", med, hmed, p95)
			}
			if h.pose.Confidence < 0.3 {
				t.Errorf("confidence %.2f while tracking well", h.pose.Confidence)
			}
			if h.pose.MirrorWeight > 0.2 {
				t.Errorf("mirror weight %.2f while tracking well", h.pose.MirrorWeight)
			}
		})
	}
}

// recovery runs until the estimate has been within 0.3 m and 15° of the
// truth for 2 s, and returns how long that took from the start (the end of
// the 2 s is not counted); ok is false if it did not within limit.
func recovery(t *testing.T, h *harness, w *world, in *input, limit time.Duration) (time.Duration, bool) {
	t.Helper()
	start := h.now()
	var goodSince time.Duration = -1
	for h.now()-start < limit+2*time.Second {
		w.step(in)
		h.step(t, in)
		de, he := poseError(h.pose.Pose, w.pose)
		if h.pose.Valid && de < 0.3 && he < 15*math.Pi/180 {
			if goodSince < 0 {
				goodSince = h.now()
			}
			if h.now()-goodSince >= 2*time.Second {
				return goodSince - start, goodSince-start <= limit
			}
		} else {
			goodSince = -1
		}
	}
	return h.now() - start, false
}

func TestLocalisationRecoversFromKidnap(t *testing.T) {
	tests := []struct {
		name string
		seed uint64
		to   hal.Pose2
		// mirror kidnaps to the mirrored pose instead of to: only the
		// posts' IDs tell.
		mirror bool
	}{
		{"to the own penalty area", 11, hal.Pose2{X: -3.5, Y: 1, Heading: 0}, false},
		{"across the field, turned round", 12, hal.Pose2{X: 3, Y: -2, Heading: hal.Radians(math.Pi)}, false},
		{"to the left touch line", 13, hal.Pose2{X: 0.5, Y: 2.5, Heading: hal.Radians(-math.Pi / 2)}, false},
		{"into the opponent half", 14, hal.Pose2{X: 2.5, Y: 1.5, Heading: hal.Radians(math.Pi / 4)}, false},
		{"to the mirrored pose", 15, hal.Pose2{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			simulation(t)
			t.Parallel()
			cfg := DefaultConfig()
			cfg.Seed = tc.seed
			h := newHarness(t, cfg)
			w := newWorld(tc.seed, onCircle())
			var in input
			// Walk for 15 s, then until 3.2 m from the kidnap's target.
			if tc.mirror {
				w.circleR = 1.7 // the mirrored pose is 3.4 m away
			}
			track(t, h, w, &in, 15*time.Second, 0)
			if tc.mirror {
				tc.to = mirrored(w.pose)
			}
			for range 60 {
				if math.Hypot(float64(tc.to.X-w.pose.X), float64(tc.to.Y-w.pose.Y)) >= 3.2 {
					break
				}
				track(t, h, w, &in, time.Second, 0)
			}
			if d, _ := poseError(h.pose.Pose, w.pose); d > 0.3 {
				t.Fatalf("not localised before the kidnap: error %.2f m", d)
			}
			if d := math.Hypot(float64(tc.to.X-w.pose.X), float64(tc.to.Y-w.pose.Y)); d < 3 {
				t.Fatalf("kidnap of only %.2f m", d)
			}
			resets := h.pose.Resets
			w.pose = tc.to
			took, ok := recovery(t, h, w, &in, 10*time.Second)
			t.Logf("re-localised %v after the kidnap (resets %d → %d)", took, resets, h.pose.Resets)
			if !ok {
				t.Errorf("not re-localised within 10 s of the kidnap (error %.2f m)", func() float64 { d, _ := poseError(h.pose.Pose, w.pose); return d }())
			}
			if h.pose.Resets == resets {
				t.Errorf("Resets did not count the re-localisation")
			}
		})
	}
}

func TestLocalisationSymmetricStart(t *testing.T) {
	// The robot stands in its own half, facing the opponent goal: the
	// mirrored pose (in the opponent half, facing the own goal) sees the
	// same corners, T-junctions and centre circle.
	start := hal.Pose2{X: -2, Y: 0.5, Heading: 0.2}
	tests := []struct {
		name     string
		postIDs  bool
		ownHalf  bool
		walkTime time.Duration
	}{
		// With the posts' IDs the symmetry is broken even without prior.
		{"posts with IDs, prior: whole field", true, false, 20 * time.Second},
		{"posts with IDs, prior: own half", true, true, 20 * time.Second},
		// Without IDs the prior (own half at the start) and the history
		// carry the robot across the halfway line and round the circle.
		{"posts without IDs, prior: own half", false, true, 40 * time.Second},
	}
	for _, tc := range tests {
		for seed := uint64(21); seed < 23; seed++ {
			t.Run(tc.name, func(t *testing.T) {
				simulation(t)
				t.Parallel()
				cfg := DefaultConfig()
				cfg.Seed = seed
				cfg.Localisation.InitialOwnHalf = tc.ownHalf
				h := newHarness(t, cfg)
				w := newWorld(seed, start)
				w.postIDs = tc.postIDs
				var in input
				// Stand and look around for 3 s, then walk onto the circle
				// and round it.
				w.still = true
				dists, _ := track(t, h, w, &in, 3*time.Second, 0)
				if d := dists[len(dists)-1]; d > 0.3 {
					m, _ := poseError(h.pose.Pose, mirrored(w.pose))
					t.Fatalf("after 3 s standing: error %.2f m (%.2f m from the mirrored pose)", d, m)
				}
				w.still = false
				worst, mirrorTicks := 0.0, 0
				for end := h.now() + tc.walkTime; h.now() < end; {
					w.step(&in)
					h.step(t, &in)
					d, _ := poseError(h.pose.Pose, w.pose)
					worst = math.Max(worst, d)
					if m, _ := poseError(h.pose.Pose, mirrored(w.pose)); m < 0.5 {
						mirrorTicks++
					}
				}
				t.Logf("seed %d: worst error while walking %.3f m, mirror weight %.2f", seed, worst, h.pose.MirrorWeight)
				if worst > 0.5 || mirrorTicks > 0 {
					t.Errorf("worst error %.2f m while walking, %d ticks at the mirrored pose; want the true side throughout", worst, mirrorTicks)
				}
			})
		}
	}
}

func TestLocalisationStartOutsideThePrior(t *testing.T) {
	// The robot starts in the opponent half although the prior says the
	// own half: after a few seconds of landmarks that fit nowhere there,
	// the search widens to the whole field (the posts' IDs decide).
	cfg := DefaultConfig()
	cfg.Seed = 27
	h := newHarness(t, cfg)
	w := newWorld(27, hal.Pose2{X: 2.5, Y: -1, Heading: 2.5})
	w.still = true
	var in input
	took, ok := recovery(t, h, w, &in, 10*time.Second)
	t.Logf("localised after %v", took)
	if !ok {
		d, _ := poseError(h.pose.Pose, w.pose)
		t.Fatalf("not localised within 10 s (error %.2f m)", d)
	}
}

func TestLocalisationAfterFall(t *testing.T) {
	// The robot falls, lies for 3 s, and is up again turned and shifted;
	// odometry saw none of it. It re-localises near where it fell, not by
	// a search of the whole field (which, without the posts' IDs, could
	// end on the mirrored pose).
	tests := []struct {
		name    string
		seed    uint64
		postIDs bool
		turn    float64 // degrees
	}{
		{"posts with IDs, turned 70° left", 31, true, 70},
		{"posts with IDs, turned 110° right", 32, true, -110},
		{"posts without IDs, turned 70° left", 33, false, 70},
		{"posts without IDs, turned 150° right", 34, false, -150},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			simulation(t)
			t.Parallel()
			cfg := DefaultConfig()
			cfg.Seed = tc.seed
			h := newHarness(t, cfg)
			w := newWorld(tc.seed, onCircle())
			w.postIDs = tc.postIDs
			var in input
			track(t, h, w, &in, 15*time.Second, 0)
			resets := h.pose.Resets
			in.angles.Pitch = hal.Deg(80)
			w.fallen = true
			track(t, h, w, &in, 3*time.Second, 0)
			if h.body.Fall != msg.FallenFront {
				t.Fatalf("fall not detected: %v", h.body.Fall)
			}
			w.pose = w.pose.Compose(hal.Pose2{X: 0.3, Heading: hal.Deg(tc.turn)})
			w.fallen = false
			in.angles.Pitch = 0
			took, ok := recovery(t, h, w, &in, 10*time.Second)
			t.Logf("re-localised %v after getting up (resets %d → %d)", took, resets, h.pose.Resets)
			if !ok {
				t.Errorf("not re-localised within 10 s after the fall")
			}
			if h.pose.Resets != resets {
				t.Errorf("re-localised by a global search (resets %d → %d), want near where it fell", resets, h.pose.Resets)
			}
		})
	}
}

func TestLocalisationDeadReckoning(t *testing.T) {
	simulation(t)
	// Localised, then 5 s of walking (1.25 m, a quarter turn) with nothing
	// in view: odometry (5 % off) carries the estimate.
	cfg := DefaultConfig()
	cfg.Seed = 35
	h := newHarness(t, cfg)
	w := newWorld(35, onCircle())
	var in input
	track(t, h, w, &in, 10*time.Second, 0)
	w.maxRange = 0
	dists, heads := track(t, h, w, &in, 5*time.Second, 0)
	d, hd := dists[len(dists)-1], heads[len(heads)-1]*180/math.Pi
	t.Logf("after 5 s blind: error %.3f m, %.1f°; confidence %.2f", d, hd, h.pose.Confidence)
	if d > 0.2 || hd > 10 {
		t.Errorf("after 5 s blind: error %.3f m, %.1f°; want ≤ 0.2 m, 10°", d, hd)
	}
	if h.pose.Confidence > 0.7 || h.pose.SinceLandmark < 5*time.Second-100*time.Millisecond {
		t.Errorf("after 5 s blind: confidence %.2f, since landmark %v; want it lower", h.pose.Confidence, h.pose.SinceLandmark)
	}
}

func TestLocalisationAfterPenalty(t *testing.T) {
	simulation(t)
	// A penalised robot is carried off and comes back on the own half's
	// touch line, level with the penalty mark, facing the field. Without
	// the posts' IDs only the knowledge that it is in its own half keeps
	// it off the mirrored pose.
	// The penalty comes from the simulator in one run and from the
	// GameController in the other.
	for i, seed := range []uint64{41, 42} {
		src := gameSources[i%len(gameSources)]
		cfg := DefaultConfig()
		cfg.Seed = seed
		h := newHarness(t, cfg)
		w := newWorld(seed, onCircle())
		w.postIDs = false
		var in input
		src.set(&in, false)
		track(t, h, w, &in, 12*time.Second, 0)
		src.set(&in, true)
		w.maxRange = 0 // carried, looking at the floor
		w.pose = hal.Pose2{X: 0, Y: 3.5, Heading: hal.Radians(-math.Pi / 2)}
		w.still = true
		track(t, h, w, &in, 5*time.Second, 0)
		w.pose = hal.Pose2{X: -3.2, Y: 3, Heading: hal.Radians(-math.Pi / 2)}
		w.maxRange, w.still = 9, false
		src.set(&in, false)
		took, ok := recovery(t, h, w, &in, 10*time.Second)
		t.Logf("seed %d, penalty from the %s: re-localised %v after the penalty", seed, src.name, took)
		if !ok {
			m, _ := poseError(h.pose.Pose, mirrored(w.pose))
			t.Errorf("seed %d, penalty from the %s: not re-localised within 10 s after the penalty (%.2f m from the mirrored pose)", seed, src.name, m)
		}
	}
}

func TestParticleTurn(t *testing.T) {
	p := particle{h: 3.1}
	p.s, p.c = math.Sincos(p.h)
	// A game's worth of small turns, and a large one now and then.
	for i := range 100000 {
		d := 0.04*math.Sin(float64(i)) + 0.001
		if i%30000 == 0 {
			d = 1.3
		}
		p.turn(d)
	}
	s, c := math.Sincos(p.h)
	if math.Abs(p.s-s) > 1e-6 || math.Abs(p.c-c) > 1e-6 || p.h <= -math.Pi || p.h > math.Pi {
		t.Fatalf("after 100000 turns: h %v, (s, c) = (%v, %v), want (%v, %v)", p.h, p.s, p.c, s, c)
	}
}

func TestLocalisationSearchWidens(t *testing.T) {
	simulation(t)
	// Kidnapped far from both the estimate and its mirror image: the
	// search near the lost estimate finds nothing and widens to the whole
	// field, without a false fix on the way.
	cfg := DefaultConfig()
	cfg.Seed = 51
	cfg.Localisation.InitialOwnHalf = false
	h := newHarness(t, cfg)
	w := newWorld(51, hal.Pose2{X: 3, Y: 2, Heading: hal.Radians(math.Pi)})
	w.still = true
	var in input
	if _, ok := recovery(t, h, w, &in, 5*time.Second); !ok {
		t.Fatal("not localised at the start")
	}
	w.pose = hal.Pose2{X: -3, Y: 2, Heading: 0}
	took, ok := recovery(t, h, w, &in, 10*time.Second)
	t.Logf("re-localised %v after the kidnap, resets %d", took, h.pose.Resets)
	if !ok || h.pose.Resets != 1 {
		t.Fatalf("re-localised %v, resets %d; want within 10 s, one reset", ok, h.pose.Resets)
	}
}

func TestLocalisationRecoversNearbyWithoutIDs(t *testing.T) {
	// Pushed while blind (0.6 m and 60°, odometry saw nothing), without the
	// posts' IDs: the search starts near the lost estimate, so the robot
	// does not end up on the mirrored pose.
	for seed := uint64(61); seed < 67; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			simulation(t)
			t.Parallel()
			recoversNearby(t, seed)
		})
	}
}

func recoversNearby(t *testing.T, seed uint64) {
	{
		cfg := DefaultConfig()
		cfg.Seed = seed
		h := newHarness(t, cfg)
		w := newWorld(seed, onCircle())
		w.postIDs = false
		var in input
		// Pushed after 9 to 14 s of walking, a different place per seed.
		track(t, h, w, &in, 8*time.Second+time.Duration(seed-60)*time.Second, 0)
		w.maxRange = 0
		track(t, h, w, &in, time.Second, 0)
		w.pose = w.pose.Compose(hal.Pose2{Y: 0.6, Heading: hal.Deg(60)})
		w.maxRange = 9
		resets := h.pose.Resets
		took, ok := recovery(t, h, w, &in, 10*time.Second)
		t.Logf("seed %d: re-localised %v after the push (resets %d → %d)", seed, took, resets, h.pose.Resets)
		if !ok {
			m, _ := poseError(h.pose.Pose, mirrored(w.pose))
			t.Errorf("seed %d: not re-localised within 10 s (%.2f m from the mirrored pose)", seed, m)
		}
	}
}
