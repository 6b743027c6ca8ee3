// Package behaviour turns the world model into requests to motion: a
// behaviour tree (package bt) of reusable skills (walk to a field pose
// around teammates, approach the ball, kick it towards a target, block an
// opponent at the ball, scan, spin, find the ball) composed into roles
// (striker, supporter, defender, goalie), with the active path published
// every tick.
//
// Roles come from role allocation (package roles: TeamChaos' Switch!,
// AIBO four-legged league, consistent under packet loss), for which behaviour also writes the team
// message that team communication sends. The ball search is the thesis',
// the 2016 baseline or the 2017 component, or robotd's team sweep (package
// search), chosen by search.strategy; its distribution and targets are
// published.
//
// Inputs: perception's body state, pose, ball and team ball; motion's
// state (last tick's); optionally perception's obstacles, the game state
// (package gamecontroller's entry, else the backend's, e.g. the
// simulator's play modes) and the teammates' messages (team
// communication). Without them a robot plays
// alone, as in PLAYING. A penalised robot stands still.
//
// Time comes from the tick, and a tick allocates nothing.
package behaviour

import (
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/behaviour/bt"
	"github.com/robotd/robotd/msg"
)

// Module is the behaviour module.
type Module struct {
	cfg Config

	body     *blackboard.Reader[msg.BodyState]
	motion   *blackboard.Reader[msg.MotionState]
	pose     *blackboard.Reader[msg.RobotPose]
	ball     *blackboard.Reader[msg.Ball]
	teamBall *blackboard.Reader[msg.TeamBall]
	mates    *blackboard.Reader[msg.Teammates]
	obst     *blackboard.Reader[msg.Obstacles]
	gc       *blackboard.Reader[msg.GameControl]
	hgs      *blackboard.Reader[hal.GameState]
	safety   *blackboard.Reader[msg.Safety]
	vision   *blackboard.Reader[hal.Vision]

	req     *blackboard.Writer[msg.MotionRequest]
	roleW   *blackboard.Writer[msg.RoleState]
	pathW   *blackboard.Writer[msg.BehaviourPath]
	searchW *blackboard.Writer[msg.SearchState]
	teamW   *blackboard.Writer[msg.TeamOut]

	tree      bt.Node[world]
	trace     bt.Trace
	finder    *finder
	team      *team
	w         world
	started   bool
	last      time.Duration
	hasVision bool

	// Scratch, so that a tick allocates nothing.
	gcv    msg.GameControl
	hgv    hal.GameState
	sfv    msg.Safety
	vis    hal.Vision
	search msg.SearchState
}

// New returns a behaviour module. Wire checks the configuration.
func New(cfg Config) *Module {
	m := &Module{cfg: cfg}
	return m
}

// Name implements runner.Module.
func (m *Module) Name() string { return "behaviour" }

// Wire implements runner.Module.
func (m *Module) Wire(b *blackboard.Board) error {
	if err := m.cfg.Validate(); err != nil {
		return err
	}
	m.finder = newFinder(&m.cfg.Search)
	m.team = newTeam(&m.cfg)
	m.w.cfg = &m.cfg
	m.tree = m.buildTree()
	name := m.Name()
	var err error
	if m.body, err = blackboard.Read(b, name, msg.BodyStateKey); err != nil {
		return err
	}
	// Motion's state is feedback: use last tick's without ordering.
	if m.motion, err = blackboard.Use(b, name, msg.MotionStateKey); err != nil {
		return err
	}
	if m.pose, err = blackboard.ReadOptional(b, name, msg.RobotPoseKey); err != nil {
		return err
	}
	if m.ball, err = blackboard.ReadOptional(b, name, msg.BallKey); err != nil {
		return err
	}
	if m.teamBall, err = blackboard.ReadOptional(b, name, msg.TeamBallKey); err != nil {
		return err
	}
	if m.mates, err = blackboard.ReadOptional(b, name, msg.TeammatesKey); err != nil {
		return err
	}
	if m.obst, err = blackboard.ReadOptional(b, name, msg.ObstaclesKey); err != nil {
		return err
	}
	if m.gc, err = blackboard.ReadOptional(b, name, msg.GameControlKey); err != nil {
		return err
	}
	if m.hgs, err = blackboard.ReadOptional(b, name, msg.GameStateKey); err != nil {
		return err
	}
	// Safety's verdict: a robot sitting down (low battery, safe stop) or
	// penalised with the chest button is out of play, and says so to its
	// team (the team message's penalised flag).
	if m.safety, err = blackboard.ReadOptional(b, name, msg.SafetyKey); err != nil {
		return err
	}
	// Only whether there is a camera: vision is used through perception.
	if m.vision, err = blackboard.ReadOptional(b, name, msg.VisionKey); err != nil {
		return err
	}
	if m.req, err = blackboard.Write(b, name, msg.MotionRequestKey); err != nil {
		return err
	}
	if m.roleW, err = blackboard.Write(b, name, msg.RoleKey); err != nil {
		return err
	}
	if m.pathW, err = blackboard.Write(b, name, msg.PathKey); err != nil {
		return err
	}
	if m.searchW, err = blackboard.Write(b, name, msg.SearchKey); err != nil {
		return err
	}
	m.teamW, err = blackboard.Write(b, name, msg.TeamOutKey)
	return err
}

// Tick implements runner.Module.
func (m *Module) Tick(t hal.Tick) error {
	w := &m.w
	if !m.started {
		m.started, m.last = true, t.Time
	}
	w.now, w.dt = t.Time, min(max(t.Time-m.last, 0), 500*time.Millisecond)
	m.last = t.Time
	w.connected = t.Connected
	m.body.Load(&w.body)
	m.motion.Load(&w.motion)
	w.pose, w.ball, w.teamBall = msg.RobotPose{}, msg.Ball{}, msg.TeamBall{}
	m.pose.Load(&w.pose)
	m.ball.Load(&w.ball)
	m.teamBall.Load(&w.teamBall)
	if !m.mates.Load(&w.mates).Valid() {
		w.mates.N = 0
	}
	if !m.obst.Load(&w.obstacles).Valid() {
		w.obstacles.N = 0
	}
	gcOK := m.gc.Load(&m.gcv).Valid()
	hsOK := m.hgs.Load(&m.hgv).Valid()
	w.game = msg.ResolveGame(&m.gcv, gcOK, &m.hgv, hsOK)
	if m.safety.Load(&m.sfv).Valid() && m.sfv.OutOfPlay() {
		w.game.Penalised = true
	}
	if !m.hasVision {
		// A camera that has never seen anything is as good as none.
		m.hasVision = m.vision.Load(&m.vis).Valid() && m.vis.N > 0
	}
	w.goalie = uint8(m.cfg.Roles.Goalkeeper)
	if w.game.Goalkeeper != 0 {
		w.goalie = w.game.Goalkeeper
	}
	w.updateBall()

	// Team play: messages in, role allocation, the search's estimation.
	m.team.receive(w)
	w.role = m.team.update(w)
	m.finder.update(w)

	// The tree.
	w.req = msg.MotionRequest{Kind: msg.MotionStand}
	w.searching, w.targetValid = false, false
	m.trace.Reset()
	bt.Run(m.tree, w, &m.trace)
	m.finder.after(w)

	m.req.Set(w.req)
	m.pathW.Set(m.trace.Path())
	m.roleW.Set(m.team.state(w.now))
	m.finder.publish(w, &m.search)
	m.searchW.Set(m.search)
	if m.team.send(w, m.finder) {
		m.teamW.Set(m.team.out)
	}
	return nil
}
