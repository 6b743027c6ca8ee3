package behaviour

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// striker is a striker's world: at p, seeing the ball at the field point
// ball, with perceived opponents at the field points opp.
func striker(p hal.Pose2, ball hal.Vec2, opp ...hal.Vec2) *world {
	cfg := DefaultConfig()
	w := &world{cfg: &cfg, role: msg.RoleStriker, ballKnown: true, ballOwn: true}
	w.pose = msg.RobotPose{Valid: true, Pose: p}
	w.ballField, w.ballRel = ball, p.Local(ball)
	w.ball = msg.Ball{Valid: true, Seen: true, Pos: w.ballRel, FieldValid: true, FieldPos: ball}
	for _, o := range opp {
		w.obstacles.Add(msg.Obstacle{Pos: p.Local(o), Team: 1, Seen: true})
	}
	return w
}

// TestYield: the striker yields the ball to an opponent at it that is
// clearly nearer, not to a teammate, a far opponent or one no nearer than
// itself, nor when it can kick; with hysteresis.
func TestYield(t *testing.T) {
	ball := hal.Vec2{X: 0, Y: 0}
	me := hal.Pose2{X: -1}
	for _, tc := range []struct {
		name string
		w    *world
		want bool
	}{
		{"an opponent at the ball", striker(me, ball, hal.Vec2{X: 0.25}), true},
		{"no opponent", striker(me, ball), false},
		{"an opponent far from the ball", striker(me, ball, hal.Vec2{X: 1}), false},
		{"the robot as near as the opponent", striker(hal.Pose2{X: -0.3}, ball, hal.Vec2{X: 0.25}), false},
		{"in reach for a kick", striker(hal.Pose2{X: -0.16, Y: -0.05}, ball, hal.Vec2{X: 0.25}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.opponentAtBall(); got != tc.want {
				t.Errorf("yield = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("a teammate at the ball", func(t *testing.T) {
		w := striker(me, ball, hal.Vec2{X: 0.25})
		w.obstacles.Obs[0].Team = 0
		if w.opponentAtBall() {
			t.Error("yields to a teammate")
		}
	})
	t.Run("an opponent not seen lately", func(t *testing.T) {
		w := striker(me, ball, hal.Vec2{X: 0.25})
		w.obstacles.Obs[0].SinceSeen = 2 * time.Second
		if w.opponentAtBall() {
			t.Error("yields to an opponent seen 2 s ago")
		}
	})
	t.Run("hysteresis", func(t *testing.T) {
		y := DefaultConfig().Kick.YieldDistance
		w := striker(me, ball, hal.Vec2{X: y + yieldHysteresis/2})
		if w.opponentAtBall() {
			t.Fatal("yields to an opponent beyond yield_distance")
		}
		w.obstacles.Obs[0].Pos = me.Local(hal.Vec2{X: y / 2})
		if !w.opponentAtBall() {
			t.Fatal("does not yield to an opponent at the ball")
		}
		w.obstacles.Obs[0].Pos = me.Local(hal.Vec2{X: y + yieldHysteresis/2})
		if !w.opponentAtBall() {
			t.Error("stops yielding within the hysteresis")
		}
	})
}

// TestBlock: a yielding striker walks to block_distance from the ball on
// the line to its own goal.
func TestBlock(t *testing.T) {
	w := striker(hal.Pose2{X: -1, Y: 1}, hal.Vec2{X: 1, Y: 0}, hal.Vec2{X: 1.25})
	w.block()
	if w.req.Kind != msg.MotionWalk {
		t.Fatalf("asks for %v, want a walk", w.req.Kind)
	}
	g := hal.Vec2{X: -4.5}
	d := g.Sub(w.ballField)
	want := w.ballField.Add(d.Scale(w.cfg.Kick.BlockDistance / d.Len()))
	// At the block position facing the ball, the robot stands.
	h := math.Atan2(w.ballField.Y-want.Y, w.ballField.X-want.X)
	w2 := striker(hal.Pose2{X: hal.Metres(want.X), Y: hal.Metres(want.Y), Heading: hal.Radians(h)}, hal.Vec2{X: 1, Y: 0})
	w2.block()
	if w2.req.Kind != msg.MotionStand {
		t.Errorf("at the block position %v asks for %v, want the stand", want, w2.req.Kind)
	}
}

// TestAim: the kick aims into the goal, behind its line, at the ball's y
// within aimWidth of the centre.
func TestAim(t *testing.T) {
	for _, tc := range []struct {
		ball hal.Vec2
		want float64 // direction, rad
	}{
		{hal.Vec2{X: 0, Y: 0}, 0},
		{hal.Vec2{X: 2, Y: 0.3}, 0},
		{hal.Vec2{X: 4.45, Y: 0.2}, 0},
		{hal.Vec2{X: 4.5 + aimDepth - 1, Y: 2}, math.Atan2(aimWidth-2, 1)},
	} {
		w := striker(hal.Pose2{}, tc.ball)
		if got := w.kickDirection(); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ball at %v: kick direction %.3f, want %.3f", tc.ball, got, tc.want)
		}
	}
}
