package perception

import (
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// gameSources say that the robot is penalised or plays: as the
// GameController says (package gamecontroller's module, a real robot's
// only source) or as the simulator's play modes say.
var gameSources = []struct {
	name string
	set  func(in *input, penalised bool)
}{
	{"GameController", func(in *input, penalised bool) {
		in.withControl = true
		in.control = msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying, Penalised: penalised}
	}},
	{"simulator", func(in *input, penalised bool) {
		in.game = hal.GameState{Phase: hal.PhasePlaying, Penalised: penalised}
	}},
}

func TestPenaltyForgetsBallAndObstacles(t *testing.T) {
	// A penalised robot is off the field: what it sees then, and what it
	// knew before, is relative to where it stood. Back in play it knows
	// only what it sees from then on.
	for _, src := range gameSources {
		t.Run(src.name, func(t *testing.T) {
			simulation(t)
			cfg := DefaultConfig()
			cfg.Seed = 61
			h := newHarness(t, cfg)
			w := newWorld(61, hal.Pose2{X: -1.2})
			w.still, w.ballOn, w.lookAtBall = true, true, true
			w.ball = hal.Vec2{X: 0, Y: 0.3}
			w.robots = []hal.Vec2{{X: 0.3, Y: 0.6}}
			var in input
			run := func(d time.Duration, check func()) {
				for end := h.now() + d; h.now() < end; {
					w.step(&in)
					h.step(t, &in)
					if check != nil {
						check()
					}
				}
			}
			src.set(&in, false)
			run(2*time.Second, nil)
			if !h.ball.Valid || h.ball.Lost || h.obst.N == 0 {
				t.Fatalf("playing: ball %+v, %d obstacles; want the ball and the robot in view known", h.ball, h.obst.N)
			}

			src.set(&in, true)
			run(2*time.Second, func() {
				if h.ball.Valid || h.obst.N != 0 {
					t.Fatalf("%v, penalised with the ball and a robot in view: ball %+v, %d obstacles; want neither", h.now(), h.ball, h.obst.N)
				}
			})

			// Meanwhile the ball has been moved.
			w.ball = hal.Vec2{X: -0.4, Y: 0.8}
			src.set(&in, false)
			run(2*time.Second, func() {
				truth := w.pose.Local(w.ball)
				if h.ball.Valid && h.ball.Pos.Dist(truth) > 0.3 {
					t.Fatalf("%v, back in play: ball at %+v, %.2f m from the ball in view; want no stale ball", h.now(), h.ball.Pos, h.ball.Pos.Dist(truth))
				}
			})
			if !h.ball.Valid || h.ball.Lost || h.obst.N == 0 {
				t.Errorf("back in play: ball %+v, %d obstacles; want what is in view known again", h.ball, h.obst.N)
			}
		})
	}
}

func TestAfterPenaltyHistoryDoesNotMatter(t *testing.T) {
	// Two robots of one seed play for different times before a penalty:
	// after it, seeing the same, they perceive the same, to the bit.
	simulation(t)
	for _, src := range gameSources {
		t.Run(src.name, func(t *testing.T) {
			run := func(before time.Duration) []msg.RobotPose {
				cfg := DefaultConfig()
				cfg.Seed = 71
				h := newHarness(t, cfg)
				w := newWorld(71, hal.Pose2{X: -3.2, Y: 3, Heading: hal.Radians(-1.5707963)})
				w.still = true
				var in input
				src.set(&in, false)
				for end := h.now() + before; h.now() < end; {
					w.step(&in)
					h.step(t, &in)
				}
				src.set(&in, true)
				for end := h.now() + time.Second; h.now() < end; {
					w.step(&in)
					h.step(t, &in)
				}
				// The same world from the return on.
				w = newWorld(72, w.pose)
				w.still, w.ballOn = true, true
				w.ball = hal.Vec2{X: -2.5, Y: 2}
				src.set(&in, false)
				var poses []msg.RobotPose
				for end := h.now() + 3*time.Second; h.now() < end; {
					w.step(&in)
					h.step(t, &in)
					poses = append(poses, h.pose)
				}
				return poses
			}
			a, b := run(time.Second), run(2370*time.Millisecond)
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("tick %d after the penalty: pose\n%+v after 1 s of play before it,\n%+v after 2.37 s", i+1, a[i], b[i])
				}
			}
			if last := a[len(a)-1]; !last.Valid {
				t.Errorf("not localised 3 s after the penalty: %+v", last)
			}
		})
	}
}
