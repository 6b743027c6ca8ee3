package perception

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
)

func TestBallAccuracyWithinTwoMetres(t *testing.T) {
	tests := []struct {
		name string
		seed uint64
		// kicks are the ball's velocities at 8 s and 18 s.
		kicks [2]hal.Vec2
		still bool
	}{
		{"walking round a kicked ball", 41, [2]hal.Vec2{{X: 0.8, Y: 0.4}, {X: -0.9, Y: 0.2}}, false},
		{"walking round a resting ball", 42, [2]hal.Vec2{}, false},
		{"standing, ball kicked", 43, [2]hal.Vec2{{X: -0.7, Y: 0.5}, {X: 0.6, Y: -0.6}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			simulation(t)
			t.Parallel()
			cfg := DefaultConfig()
			cfg.Seed = tc.seed
			h := newHarness(t, cfg)
			w := newWorld(tc.seed, hal.Pose2{X: -1.2, Heading: 0})
			w.circleR, w.speed, w.still = 1.2, 0.2, tc.still
			w.ballOn, w.lookAtBall = true, true
			var in input
			var errs, velErrs, fieldErrs []float64
			for h.now() < 30*time.Second {
				switch h.now() {
				case 8 * time.Second:
					w.ballVel = tc.kicks[0]
				case 18 * time.Second:
					w.ballVel = tc.kicks[1]
				}
				w.step(&in)
				h.step(t, &in)
				truth := w.pose.Local(w.ball)
				if h.now() < time.Second || truth.Len() > 2 {
					continue
				}
				if !h.ball.Valid || h.ball.Lost {
					t.Fatalf("%v: ball %+v not tracked", h.now(), h.ball)
				}
				errs = append(errs, h.ball.Pos.Dist(truth))
				velErrs = append(velErrs, h.ball.Vel.Dist(w.ballVel.Rotate(-w.pose.Heading)))
				if h.ball.FieldValid {
					fieldErrs = append(fieldErrs, h.ball.FieldPos.Dist(w.ball))
				}
			}
			med := percentile(errs, 0.5)
			t.Logf("ball error within 2 m: median %.3f m, p95 %.3f m; velocity error median %.3f m/s; field position error median %.3f m",
				med, percentile(errs, 0.95), percentile(velErrs, 0.5), percentile(fieldErrs, 0.5))
			if med > 0.10 {
				t.Errorf("ball error median %.3f m, want ≤ 0.10 m", med)
			}
			if v := percentile(velErrs, 0.5); v > 0.15 {
				t.Errorf("ball velocity error median %.3f m/s, want ≤ 0.15 m/s", v)
			}
			if f := percentile(fieldErrs, 0.5); len(fieldErrs) == 0 || f > 0.15 {
				t.Errorf("ball field position error median %.3f m (%d samples), want ≤ 0.15 m", f, len(fieldErrs))
			}
		})
	}
}

func TestBallLostAfterConfiguredTime(t *testing.T) {
	simulation(t)
	for _, lostAfter := range []time.Duration{500 * time.Millisecond, time.Second, 3 * time.Second} {
		t.Run(lostAfter.String(), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Ball.LostAfter = config.Duration(lostAfter)
			h := newHarness(t, cfg)
			w := newWorld(51, hal.Pose2{X: -1, Heading: 0})
			w.still, w.ballOn, w.lookAtBall = true, true, true
			w.ball = hal.Vec2{X: 0.2, Y: 0.3}
			var in input
			if h.ball.Valid {
				t.Fatal("ball valid before any tick")
			}
			var lastSeen time.Duration
			for h.now() < 2*time.Second {
				w.step(&in)
				h.step(t, &in)
				if h.ball.Seen {
					lastSeen = h.now()
				}
			}
			if !h.ball.Valid || h.ball.Lost {
				t.Fatalf("ball %+v after 2 s in view", h.ball)
			}
			// The ball is taken away.
			w.ballOn = false
			for h.now() < 2*time.Second+lostAfter+time.Second {
				w.step(&in)
				h.step(t, &in)
				if h.ball.Seen {
					lastSeen = h.now()
				}
				since := h.now() - lastSeen
				if h.ball.SinceSeen != since {
					t.Fatalf("%v: SinceSeen %v, want %v", h.now(), h.ball.SinceSeen, since)
				}
				if want := since > lostAfter; h.ball.Lost != want {
					t.Fatalf("%v: %v unseen: Lost = %v, want %v", h.now(), since, h.ball.Lost, want)
				}
			}
			if !h.ball.Lost || !h.ball.Valid {
				t.Fatalf("ball %+v: want lost but still predicted", h.ball)
			}
		})
	}
}

func TestBallOutlierRejectionAndReinit(t *testing.T) {
	cfg := DefaultConfig()
	h := newHarness(t, cfg)
	var in input
	in.connected = true
	frame := func(balls ...hal.Vec2) {
		for k := range 3 {
			in.vision = hal.Vision{Fresh: k == 2}
			if k == 2 {
				for _, b := range balls {
					in.vision.Add(hal.Observation{Kind: hal.ObjBall, Pos: b})
				}
			}
			h.step(t, &in)
		}
	}
	real := hal.Vec2{X: 1.5, Y: 0.2}
	for range 30 {
		frame(real)
	}
	before := h.ball.Pos
	// One false ball far away is rejected.
	frame(hal.Vec2{X: 3, Y: -2})
	if h.ball.Seen || math.Hypot(h.ball.Pos.X-before.X, h.ball.Pos.Y-before.Y) > 0.02 {
		t.Fatalf("false ball moved the estimate from %+v to %+v (seen %v)", before, h.ball.Pos, h.ball.Seen)
	}
	// Of two balls, the one that fits is taken.
	frame(hal.Vec2{X: -2, Y: 1}, hal.Vec2{X: 1.52, Y: 0.21})
	if !h.ball.Seen || math.Hypot(h.ball.Pos.X-real.X, h.ball.Pos.Y-real.Y) > 0.05 {
		t.Fatalf("with a false and a real ball: %+v", h.ball)
	}
	// Scattered false balls do not reset the filter.
	for _, b := range []hal.Vec2{{X: 3, Y: 2}, {X: -1, Y: -2}, {X: 4, Y: 0}, {X: 0.5, Y: 3}} {
		frame(b)
	}
	if math.Hypot(h.ball.Pos.X-real.X, h.ball.Pos.Y-real.Y) > 0.05 {
		t.Fatalf("scattered false balls moved the estimate to %+v", h.ball.Pos)
	}
	// The ball is moved: after ReinitAfter consistent observations the
	// filter follows.
	moved := hal.Vec2{X: 0.8, Y: -1.2}
	for i := 1; i <= cfg.Ball.ReinitAfter; i++ {
		frame(moved)
		near := math.Hypot(h.ball.Pos.X-moved.X, h.ball.Pos.Y-moved.Y) < 0.05
		if want := i == cfg.Ball.ReinitAfter; near != want || h.ball.Seen != want {
			t.Fatalf("after %d observations of the moved ball: estimate %+v seen %v", i, h.ball.Pos, h.ball.Seen)
		}
	}
}

func TestBallPredictedThroughOdometry(t *testing.T) {
	// A resting ball 1 m ahead; the robot walks an arc of 0.5 m while
	// turning 90° left, without seeing the ball: the filter moves the ball
	// with the odometry.
	h := newHarness(t, DefaultConfig())
	var in input
	in.connected = true
	in.vision = hal.Vision{Fresh: true}
	in.vision.Add(hal.Observation{Kind: hal.ObjBall, Pos: hal.Vec2{X: 1}})
	h.step(t, &in)
	in.vision = hal.Vision{}
	// 100 ticks of turning left by 0.9° and walking 5 mm.
	truth := hal.Pose2{}
	for range 100 {
		in.odo = hal.Pose2{X: 0.005, Heading: hal.Deg(0.9)}
		truth = truth.Compose(in.odo)
		h.step(t, &in)
	}
	h.step(t, &input{connected: true}) // the last odometry arrives
	want := truth.Local(hal.Vec2{X: 1})
	if d := math.Hypot(h.ball.Pos.X-want.X, h.ball.Pos.Y-want.Y); d > 0.01 {
		t.Fatalf("ball %+v after the robot's motion, want %+v", h.ball.Pos, want)
	}
	// Odometry is uncertain: the ball's covariance grew more than it would
	// have standing still for as long (by about (15 % of the motion)²).
	still := newHarness(t, DefaultConfig())
	in = input{connected: true, vision: hal.Vision{Fresh: true}}
	in.vision.Add(hal.Observation{Kind: hal.ObjBall, Pos: hal.Vec2{X: 1}})
	still.step(t, &in)
	in.vision = hal.Vision{}
	for range 101 {
		still.step(t, &in)
	}
	moved, stood := h.ball.Cov[0][0]+h.ball.Cov[1][1], still.ball.Cov[0][0]+still.ball.Cov[1][1]
	if !(moved-stood > 5e-4) {
		t.Fatalf("position variance %.4f m² after walking, %.4f m² after standing", moved, stood)
	}
}
