package behaviour

import (
	"testing"

	"github.com/robotd/robotd/hal"
)

// TestOutOfGoals: a walk target within walk.goal_clearance (0.25 m) of a
// goal's posts and net (own goal: x −5.0 to −4.5, y ±0.85) is moved to
// the nearest edge of that clearance; others stay.
func TestOutOfGoals(t *testing.T) {
	tests := []struct {
		name       string
		target     hal.Vec2
		clearance  float64
		want       hal.Vec2
		wantInGoal bool
	}{
		{"in the field", hal.Vec2{X: -3, Y: -1}, 0.25, hal.Vec2{X: -3, Y: -1}, false},
		{"behind a ball on the goal line beside the post", hal.Vec2{X: -4.72, Y: -1}, 0.25, hal.Vec2{X: -4.72, Y: -1.1}, true},
		{"in the goal mouth, near the line", hal.Vec2{X: -4.6, Y: 0.2}, 0.25, hal.Vec2{X: -4.25, Y: 0.2}, true},
		{"deep in the goal", hal.Vec2{X: -4.95, Y: 0}, 0.25, hal.Vec2{X: -5.25, Y: 0}, true},
		{"in the opponent goal", hal.Vec2{X: 4.7, Y: 0.7}, 0.25, hal.Vec2{X: 4.7, Y: 1.1}, true},
		{"beside the opponent goal, clear", hal.Vec2{X: 4.7, Y: 1.2}, 0.25, hal.Vec2{X: 4.7, Y: 1.2}, false},
		{"clearance off", hal.Vec2{X: -4.72, Y: -1}, 0, hal.Vec2{X: -4.72, Y: -1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := avoidWorld()
			w.cfg.Walk.GoalClearance = tc.clearance
			if got := w.outOfGoals(tc.target); got.Dist(tc.want) > 1e-9 {
				t.Errorf("outOfGoals(%v) = %v, want %v", tc.target, got, tc.want)
			}
			if got := w.inGoal(tc.target); got != tc.wantInGoal {
				t.Errorf("inGoal(%v) = %v, want %v", tc.target, got, tc.wantInGoal)
			}
		})
	}
}

// TestRoundBallNotThroughGoal: a striker on the wrong side of a ball on
// its own goal line goes round on its own side, unless that way lies in
// the goal; then round the other side.
func TestRoundBallNotThroughGoal(t *testing.T) {
	u := hal.Vec2{X: 1} // kicking towards +x
	tests := []struct {
		name   string
		ball   hal.Vec2
		lat    float64 // the robot's offset across u (+: left of the ball)
		wantY  float64 // the waypoint's y
		inGoal bool
	}{
		{"ball beside the post, robot towards the goal mouth", hal.Vec2{X: -4.5, Y: -1}, 0.5, -1.45, false},
		{"ball beside the post, robot outside", hal.Vec2{X: -4.5, Y: -1}, -0.3, -1.45, false},
		{"ball mid-field, robot left", hal.Vec2{X: 0, Y: 0}, 0.3, 0.45, false},
		{"ball mid-field, robot right", hal.Vec2{X: 0, Y: 0}, -0.3, -0.45, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := avoidWorld()
			w.ballField = tc.ball
			wp := w.roundBall(u, tc.lat)
			if d := wp.Y - tc.wantY; d > 1e-9 || d < -1e-9 {
				t.Errorf("waypoint %v, want y %v", wp, tc.wantY)
			}
			if w.inGoal(wp) != tc.inGoal {
				t.Errorf("waypoint %v in a goal: %v", wp, w.inGoal(wp))
			}
		})
	}
}
