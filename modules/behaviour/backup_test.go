package behaviour

import (
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// TestBackUpFacingTheBall: a positional target near and behind the robot,
// with a heading to reach, is stepped to backwards keeping the heading; a
// far one, or one off to the side, is turned towards.
func TestBackUpFacingTheBall(t *testing.T) {
	cfg := DefaultConfig()
	for _, tc := range []struct {
		name     string
		target   hal.Vec2
		backward bool
	}{
		{"1 m straight back", hal.Vec2{X: -1}, true},
		{"1.4 m back, a little aside", hal.Vec2{X: -1.3, Y: 0.4}, true},
		{"2 m back", hal.Vec2{X: -2}, false},
		{"1 m aside", hal.Vec2{X: -0.5, Y: 1}, false},
		{"1 m ahead", hal.Vec2{X: 1}, false},
	} {
		w := &world{cfg: &cfg, pose: msg.RobotPose{Valid: true}}
		w.walkTo(tc.target, 0, true, 0.25, msg.HeadRequest{})
		v := w.req.Walk
		if w.req.Kind != msg.MotionWalk {
			t.Fatalf("%s: %v, want a walk", tc.name, w.req.Kind)
		}
		back := v.Forward < 0 && v.Turn == 0
		if back != tc.backward {
			t.Errorf("%s: walk %+v, stepping backwards facing the heading: %v, want %v", tc.name, v, back, tc.backward)
		}
	}
	// Without a heading to keep the robot turns towards the target.
	w := &world{cfg: &cfg, pose: msg.RobotPose{Valid: true}}
	w.walkTo(hal.Vec2{X: -1}, 0, false, 0.25, msg.HeadRequest{})
	if w.req.Walk.Forward < 0 || w.req.Walk.Turn == 0 {
		t.Errorf("no heading: walk %+v, want a turn towards the target", w.req.Walk)
	}
}

// TestOwnBallBehind: a ball the robot saw within team.ball_age that now
// lies behind it, beyond where its head looks, stays known (as a report,
// not as its own fresh sighting); one in front that stays unseen, or one
// seen too long ago, does not.
func TestOwnBallBehind(t *testing.T) {
	cfg := DefaultConfig()
	for _, tc := range []struct {
		name  string
		rel   hal.Vec2
		since time.Duration
		known bool
	}{
		{"behind, 5 s ago", hal.Vec2{X: -1, Y: 0.2}, 5 * time.Second, true},
		{"in front, 5 s ago", hal.Vec2{X: 1}, 5 * time.Second, false},
		{"behind, 20 s ago", hal.Vec2{X: -1}, 20 * time.Second, false},
	} {
		p := hal.Pose2{X: -2}
		w := &world{cfg: &cfg, pose: msg.RobotPose{Valid: true, Pose: p}}
		w.ball = msg.Ball{Valid: true, Lost: true, SinceSeen: tc.since, Pos: tc.rel, FieldValid: true, FieldPos: p.Global(tc.rel)}
		w.updateBall()
		if w.ballKnown != tc.known || w.ballOwn {
			t.Errorf("%s: known %v own %v, want known %v, not own", tc.name, w.ballKnown, w.ballOwn, tc.known)
		}
		if w.ballKnown && w.ballField != p.Global(tc.rel) {
			t.Errorf("%s: ball at %v, want %v", tc.name, w.ballField, p.Global(tc.rel))
		}
	}
}
