// Package behaviourtest runs the behaviour module on a blackboard of its
// own, with every input written by the test: a fake world for behaviour's
// unit tests.
package behaviourtest

import (
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Inputs are the values written before a tick; a nil pointer leaves the
// entry as it was.
type Inputs struct {
	Body     *msg.BodyState
	Motion   *msg.MotionState
	Pose     *msg.RobotPose
	Ball     *msg.Ball
	TeamBall *msg.TeamBall
	Mates    *msg.Teammates
	Game     *msg.GameControl
	Vision   *hal.Vision
	// Disconnected ticks as if the backend had lost the robot.
	Disconnected bool
}

// Outputs are behaviour's entries after a tick.
type Outputs struct {
	Request msg.MotionRequest
	Role    msg.RoleState
	Path    msg.BehaviourPath
	Search  msg.SearchState
	TeamOut msg.TeamOut
	// TeamOutFresh is true when a team message was written this tick.
	TeamOutFresh bool
}

// Module is what the harness runs (runner.Module's methods, without
// importing the runner: modules may not).
type Module interface {
	Wire(b *blackboard.Board) error
	Tick(t hal.Tick) error
}

// Harness is a module under test with its inputs and outputs.
type Harness struct {
	Board *blackboard.Board
	m     Module
	seq   uint64
	now   time.Duration

	body     *blackboard.Writer[msg.BodyState]
	motion   *blackboard.Writer[msg.MotionState]
	pose     *blackboard.Writer[msg.RobotPose]
	ball     *blackboard.Writer[msg.Ball]
	teamBall *blackboard.Writer[msg.TeamBall]
	mates    *blackboard.Writer[msg.Teammates]
	game     *blackboard.Writer[msg.GameControl]
	vision   *blackboard.Writer[hal.Vision]

	req  *blackboard.Reader[msg.MotionRequest]
	role *blackboard.Reader[msg.RoleState]
	path *blackboard.Reader[msg.BehaviourPath]
	srch *blackboard.Reader[msg.SearchState]
	tout *blackboard.Reader[msg.TeamOut]
	out  Outputs
}

// New wires m (the behaviour module) to a board whose every input entry
// the harness writes.
func New(m Module) (*Harness, error) {
	h := &Harness{Board: blackboard.New(), m: m}
	b := h.Board
	var err error
	w := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	w(func() (e error) { h.body, e = blackboard.Write(b, "perception", msg.BodyStateKey); return })
	w(func() (e error) { h.pose, e = blackboard.Write(b, "perception", msg.RobotPoseKey); return })
	w(func() (e error) { h.ball, e = blackboard.Write(b, "perception", msg.BallKey); return })
	w(func() (e error) { h.teamBall, e = blackboard.Write(b, "perception", msg.TeamBallKey); return })
	w(func() (e error) { h.motion, e = blackboard.Write(b, "motion", msg.MotionStateKey); return })
	w(func() (e error) { h.mates, e = blackboard.Write(b, "teamcomm", msg.TeammatesKey); return })
	w(func() (e error) { h.game, e = blackboard.Write(b, "gamecontroller", msg.GameControlKey); return })
	w(func() (e error) { h.vision, e = blackboard.Write(b, "hal", msg.VisionKey); return })
	w(func() error { return m.Wire(b) })
	w(func() (e error) { h.req, e = blackboard.Read(b, "probe", msg.MotionRequestKey); return })
	w(func() (e error) { h.role, e = blackboard.Read(b, "probe", msg.RoleKey); return })
	w(func() (e error) { h.path, e = blackboard.Read(b, "probe", msg.PathKey); return })
	w(func() (e error) { h.srch, e = blackboard.Read(b, "probe", msg.SearchKey); return })
	w(func() (e error) { h.tout, e = blackboard.Read(b, "probe", msg.TeamOutKey); return })
	w(b.Validate)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Now returns the time of the last tick.
func (h *Harness) Now() time.Duration { return h.now }

// Tick writes in, runs one tick of dt and returns the outputs.
func (h *Harness) Tick(dt time.Duration, in Inputs) *Outputs {
	h.seq++
	h.now += dt
	h.Board.BeginTick(h.seq, h.now)
	if in.Body != nil {
		h.body.Set(*in.Body)
	}
	if in.Motion != nil {
		h.motion.Set(*in.Motion)
	}
	if in.Pose != nil {
		h.pose.Set(*in.Pose)
	}
	if in.Ball != nil {
		h.ball.Set(*in.Ball)
	}
	if in.TeamBall != nil {
		h.teamBall.Set(*in.TeamBall)
	}
	if in.Mates != nil {
		h.mates.Set(*in.Mates)
	}
	if in.Game != nil {
		h.game.Set(*in.Game)
	}
	if in.Vision != nil {
		h.vision.Set(*in.Vision)
	}
	if err := h.m.Tick(hal.Tick{Seq: h.seq, Time: h.now, Period: dt, Connected: !in.Disconnected}); err != nil {
		panic(err)
	}
	h.req.Load(&h.out.Request)
	h.role.Load(&h.out.Role)
	h.path.Load(&h.out.Path)
	h.srch.Load(&h.out.Search)
	meta := h.tout.Load(&h.out.TeamOut)
	h.out.TeamOutFresh = meta.Fresh
	return &h.out
}
