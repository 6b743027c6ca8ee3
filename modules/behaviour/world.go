package behaviour

import (
	"math"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// world is one tick's view for the behaviour tree: the inputs, what was
// derived from them, and the outputs the nodes write.
type world struct {
	cfg *Config
	now time.Duration
	dt  time.Duration

	connected bool
	body      msg.BodyState
	motion    msg.MotionState
	pose      msg.RobotPose
	ball      msg.Ball
	teamBall  msg.TeamBall
	game      msg.GameControl
	mates     msg.Teammates
	obstacles msg.Obstacles // perception's (N 0 without them)
	role      msg.Role
	goalie    uint8 // our goalkeeper's player number

	// The ball as behaviour knows it: its field position and its position
	// relative to the robot (when the pose is valid or the robot sees it).
	ballKnown bool
	ballOwn   bool // from this robot's own ball model
	ballField hal.Vec2
	ballRel   hal.Vec2

	// Avoidance: the points to keep clear of this tick (robot frame), and
	// the side the robot passes its blocker on (+1 left, −1 right, 0 none)
	// with that blocker's field position and when it was chosen, for the
	// hysteresis.
	avoidPts [msg.MaxTeammates + msg.MaxObstacles]hal.Vec2
	// clearPts: the points a place to stand keeps clear of (keepClear).
	clearPts  [2 * msg.MaxTeammates]hal.Vec2
	avoidSide float64
	avoidAt   hal.Vec2
	avoidTime time.Duration
	// yielding: the striker yields the ball to an opponent at it.
	yielding bool

	// Outputs.
	req          msg.MotionRequest
	searching    bool
	target       hal.Vec2
	targetValid  bool
	searchTarget int
}

// playing reports whether the robot plays: PLAYING (or no game state,
// when so configured), not stopped by the referee, and not penalised.
func (w *world) playing() bool {
	if w.game.Penalised || w.game.Stopped {
		return false
	}
	if w.game.Source == msg.GameSourceNone {
		return w.cfg.PlayWithoutGameState
	}
	return w.game.State == msg.StatePlaying
}

// fallen reports whether the robot lies.
func (w *world) fallen() bool { return w.body.Fall != msg.Upright }

// here is the robot's field position.
func (w *world) here() hal.Vec2 { return w.pose.Pose.Pos() }

// stand asks for the stand with the head as given.
func (w *world) stand(head msg.HeadRequest) {
	w.req = msg.MotionRequest{Kind: msg.MotionStand, Head: head}
}

// lookAtBall returns a head request that looks at the ball if it is known,
// else scans.
func (w *world) lookAtBall() msg.HeadRequest {
	if !w.ballKnown {
		return msg.HeadRequest{Mode: msg.HeadScan}
	}
	return lookAt(w.ballRel, w.cfg.Walk.CameraHeight)
}

// lookAt returns a head request that looks at the ground point rel.
func lookAt(rel hal.Vec2, camHeight float64) msg.HeadRequest {
	d := max(rel.Len(), 0.05)
	return msg.HeadRequest{Mode: msg.HeadLookAt,
		Yaw:   hal.Radians(rel.Angle()),
		Pitch: hal.Radians(math.Atan2(camHeight, d)),
	}
}

// behindAngle is the bearing beyond which the robot's head cannot look.
const behindAngle = 2.09 // rad, 120°

// updateBall derives what behaviour knows of the ball: its own ball model
// first, then perception's team ball, then the freshest of its own last
// sighting of a ball behind it and the teammates' reports.
func (w *world) updateBall() {
	w.ballKnown, w.ballOwn = false, false
	b := &w.ball
	switch {
	case b.Valid && !b.Lost:
		w.ballKnown, w.ballOwn = true, true
		w.ballRel = b.Pos
		if b.FieldValid {
			w.ballField = b.FieldPos
		} else if w.pose.Valid {
			w.ballField = w.pose.Pose.Global(b.Pos)
		}
		return
	case w.teamBall.Valid && w.teamBall.RelativeValid:
		w.ballKnown = true
		w.ballField, w.ballRel = w.teamBall.Pos, w.teamBall.Relative
		return
	}
	if !w.pose.Valid {
		return
	}
	best := time.Duration(math.MaxInt64)
	// The robot's own last sighting, carried with its odometry, counts
	// like a teammate's report of the same age while the ball lies behind
	// the robot, beyond where its head turns (NAO head yaw ±119.5°): a
	// robot that turned its back on the ball still knows where it lies
	// and bids for it in the role allocation. A ball in front that stays
	// unseen is taken for gone.
	if b.Valid && b.FieldValid && b.SinceSeen <= w.cfg.Team.BallAge.D() && math.Abs(b.Pos.Angle()) > behindAngle {
		best = b.SinceSeen
		w.ballKnown = true
		w.ballField, w.ballRel = b.FieldPos, b.Pos
	}
	for i := range w.mates.N {
		m := &w.mates.Mates[i]
		if !m.Msg.BallValid || m.Msg.Penalised {
			continue
		}
		age := m.Msg.BallAge + w.now - m.Received
		if age < 0 || age > w.cfg.Team.BallAge.D() || age >= best {
			continue
		}
		best = age
		w.ballKnown = true
		w.ballField = m.Msg.Ball
		w.ballRel = w.pose.Pose.Local(m.Msg.Ball)
	}
}

// timeToBall estimates how long the robot takes to reach the ball: its
// striker cost.
func (w *world) timeToBall() float64 {
	if !w.ballKnown {
		return w.cfg.Roles.UnknownBallCost
	}
	d := w.ballRel.Len()
	turn := math.Abs(w.ballRel.Angle())
	t := d/w.cfg.Walk.Speed + turn/w.cfg.Walk.TurnSpeed
	if !w.ballOwn {
		t += 2 // a teammate's report: less certain
	}
	return t
}
