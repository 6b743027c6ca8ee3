package simserver

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/proto/simspark"
)

// maxSay bounds a say message: rcssserver3d drops longer ones.
const maxSay = 20

// maxName bounds a team name.
const maxName = 32

// Team sides.
const (
	teamNone = iota
	teamLeft
	teamRight
)

// actions are the effectors an agent sent during one cycle, merged: the
// last command for a joint wins.
type actions struct {
	set     [numJoints]bool
	v       [numJoints]float64
	joints  bool
	init    bool
	hasUnum bool
	unum    int
	team    [maxName]byte
	teamLen int
	beam    bool
	beamArg [3]float64
	say     bool
	sayMsg  [maxSay]byte
	sayLen  int
	scene   bool // (scene …): the agent's robot is to be created
	syn     bool // (syn): the agent is done with this cycle (sync mode)
}

func (a *actions) reset() {
	if a.joints {
		a.set = [numJoints]bool{}
	}
	a.joints, a.init, a.hasUnum, a.beam, a.say, a.scene, a.syn = false, false, false, false, false, false, false
	a.teamLen, a.sayLen = 0, 0
}

// Agent is one simulated robot and the state of its perceptor stream.
type Agent struct {
	id       int
	r        *robot
	team     int // teamNone, teamLeft, teamRight
	unum     int
	sent     int       // perceptor messages produced
	gsFull   bool      // the next GS carries unum and team
	calib    geom.Vec3 // the vision perceptor's calibration error
	in       actions
	ready    actions
	wake     bool // a non-zero joint command was realised this step
	pid      int  // the ODE robot (PhysicsODE), -1 before it is placed
	saidLen  int
	said     [maxSay]byte
	saidStep bool
	heard    [3]heard
	nHeard   int
}

type heard struct {
	team int
	self bool
	dir  float64
	msg  []byte
}

// ID is the agent's number in this world (creation order).
func (a *Agent) ID() int { return a.id }

// Team returns "Left", "Right" or "" before init.
func (a *Agent) Team() string { return [...]string{"", "Left", "Right"}[a.team] }

// Unum is the player number (0 before init).
func (a *Agent) Unum() int { return a.unum }

// Messages is the number of perceptor messages produced for the agent.
func (a *Agent) Messages() int { return a.sent }

// Pose returns the torso's position (world frame, m) and heading (deg).
func (a *Agent) Pose() (x, y, z, heading float64) {
	return a.r.p.X, a.r.p.Y, a.r.p.Z, a.r.heading() * deg
}

// State names what carries the body: floating, dropping, standing,
// falling, lying or rising.
func (a *Agent) State() string { return a.r.state.String() }

// Joint returns joint i's angle in degrees, in the fork's HJ order.
func (a *Agent) Joint(i int) float64 { return a.r.q[i] * deg }

// World is the deterministic, kinematic soccer world: the field, the ball,
// the robots and the game state. It is not safe for concurrent use; the
// Server drives it from one goroutine.
type World struct {
	cfg    Config
	dt     float64
	cycle  int64
	rng    *rand.Rand
	agents []*Agent
	nextID int
	ball   ball
	game   game
	teams  [3]string // by side
	// spawn is where each side's next agent goes at init (spawnNext).
	spawn [3]struct{ X, Y float64 }
	eff   simspark.Effectors
	// sayers are the agents that said something in the last step.
	sayers []*Agent
	// phys is the ODE scene in PhysicsODE mode, else nil.
	phys *physics
}

// NewWorld returns a world for cfg (its Cycle, Seed and model settings).
func NewWorld(cfg Config) (*World, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	w := &World{
		cfg:    cfg,
		dt:     cfg.Cycle.Seconds(),
		rng:    rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		agents: make([]*Agent, 0, 16),
		sayers: make([]*Agent, 0, 16),
	}
	w.ball.p = geom.Vec3{X: cfg.BallStart[0], Y: cfg.BallStart[1], Z: BallRadius}
	w.spawn[teamLeft].X, w.spawn[teamLeft].Y = -halfLength+2*agentRadius, halfWidth-2*agentRadius
	w.spawn[teamRight].X, w.spawn[teamRight].Y = halfLength-2*agentRadius, halfWidth-2*agentRadius
	w.game.init()
	if cfg.Physics == PhysicsODE {
		p, err := newPhysics(cfg.PhysicsThreads)
		if err != nil {
			return nil, err
		}
		w.phys = p
		p.scene.SetBall(w.ball.p.Array(), [3]float64{})
	}
	return w, nil
}

// Close frees the world's physics scene (PhysicsODE); the world must not be
// used after it.
func (w *World) Close() {
	w.phys.close()
	w.phys = nil
}

// Time is the simulation time in seconds.
func (w *World) Time() float64 { return float64(w.cycle) * w.dt }

// Cycle is the number of steps taken.
func (w *World) Cycle() int64 { return w.cycle }

// Agents returns the agents in creation order (do not modify).
func (w *World) Agents() []*Agent { return w.agents }

// Ball returns the ball's position (m).
func (w *World) Ball() (x, y, z float64) { return w.ball.p.X, w.ball.p.Y, w.ball.p.Z }

// PlayMode returns the current play mode's name.
func (w *World) PlayMode() string { return playModes[w.game.mode] }

// AddAgent creates a robot for a new agent (its scene effector). Before
// init it floats at (0, -1) with its camera 1.65 m high, facing +y.
func (w *World) AddAgent() *Agent {
	a := &Agent{id: w.nextID, r: newRobot(), pid: -1}
	w.nextID++
	a.r.float(geom.Vec3{X: 0, Y: -1, Z: 1.65}, math.Pi/2)
	const e = 0.005
	a.calib = geom.Vec3{X: (2*w.rng.Float64() - 1) * e, Y: (2*w.rng.Float64() - 1) * e, Z: (2*w.rng.Float64() - 1) * e}
	w.agents = append(w.agents, a)
	return a
}

// RemoveAgent takes an agent out of the world (disconnect or kill).
func (w *World) RemoveAgent(a *Agent) {
	for i, b := range w.agents {
		if b == a {
			copy(w.agents[i:], w.agents[i+1:])
			w.agents[len(w.agents)-1] = nil
			w.agents = w.agents[:len(w.agents)-1]
			break
		}
	}
	if w.phys != nil && a.pid >= 0 {
		w.phys.scene.RemoveRobot(a.pid)
		a.pid = -1
	}
	for i, b := range w.sayers {
		if b == a {
			w.sayers = append(w.sayers[:i], w.sayers[i+1:]...)
			break
		}
	}
	// A side whose last player left is free again.
	for side := teamLeft; side <= teamRight; side++ {
		if a.team != side {
			continue
		}
		used := false
		for _, b := range w.agents {
			used = used || b.team == side
		}
		if !used {
			w.teams[side] = ""
			w.game.changed |= changedTeams
		}
	}
}

// ErrEffector is wrapped by errors about an effector message that parsed
// but cannot be applied.
var ErrEffector = errors.New("simserver: bad effector")

// Act parses one effector message from agent a and records its effectors;
// they take effect in the step after the next one (the fork's two-cycle
// delay). A malformed message changes nothing and returns an error
// wrapping simspark.ErrSyntax or ErrEffector.
func (w *World) Act(a *Agent, msg []byte) error {
	e := &w.eff
	if err := e.Parse(msg); err != nil {
		return fmt.Errorf("agent %d: effector message: %w", a.id, err)
	}
	if err := a.in.add(e); err != nil {
		return fmt.Errorf("agent %d: %w", a.id, err)
	}
	return nil
}

// add checks a parsed message completely, then merges it into a, so a bad
// message has no effect, except that its (syn) still counts (a sync-mode
// server must not stall on it).
func (a *actions) add(e *simspark.Effectors) error {
	if err := check(e); err != nil {
		a.syn = a.syn || e.Has(simspark.EffSyn)
		return err
	}
	a.merge1(e)
	return nil
}

func check(e *simspark.Effectors) error {
	for _, j := range e.Joints {
		if jointOf[j.ID] < 0 {
			return fmt.Errorf("%w: joint %s is not in this model", ErrEffector, j.ID.EffectorName())
		}
		if !(j.V > -1e300 && j.V < 1e300) { // NaN or ±Inf
			return fmt.Errorf("%w: %s velocity %v", ErrEffector, j.ID.EffectorName(), j.V)
		}
	}
	for _, it := range e.Order {
		switch it.Kind {
		case simspark.EffInit:
			if e.HasTeam && (e.Team.Len == 0 || int(e.Team.Len) > maxName) {
				return fmt.Errorf("%w: team name of %d bytes", ErrEffector, e.Team.Len)
			}
			if e.HasUnum && (e.Unum < 0 || e.Unum > 99) {
				return fmt.Errorf("%w: unum %d", ErrEffector, e.Unum)
			}
		case simspark.EffBeam:
			for _, v := range e.Beam {
				if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
					return fmt.Errorf("%w: beam %v", ErrEffector, e.Beam)
				}
			}
		case simspark.EffSay:
			for _, c := range e.Bytes(e.Say) {
				if c < 0x21 || c > 0x7e || c == '(' || c == ')' {
					return fmt.Errorf("%w: say with character %q", ErrEffector, c)
				}
			}
		}
	}
	return nil
}

func (a *actions) merge1(e *simspark.Effectors) {
	for _, it := range e.Order {
		switch it.Kind {
		case simspark.EffScene:
			a.scene = true
		case simspark.EffSyn:
			a.syn = true
		case simspark.EffInit:
			a.init = true
			a.hasUnum, a.unum = e.HasUnum, e.Unum
			a.teamLen = 0
			if e.HasTeam {
				a.teamLen = copy(a.team[:], e.Bytes(e.Team))
			}
		case simspark.EffBeam:
			a.beam, a.beamArg = true, e.Beam
		case simspark.EffSay:
			// The server drops messages longer than 20 characters.
			if m := e.Bytes(e.Say); len(m) <= maxSay {
				a.say = true
				a.sayLen = copy(a.sayMsg[:], m)
			}
		case simspark.EffJoint:
			j := e.Joints[it.Index]
			i := jointOf[j.ID]
			v := j.V
			if v > MaxJointSpeed {
				v = MaxJointSpeed
			} else if v < -MaxJointSpeed {
				v = -MaxJointSpeed
			}
			a.set[i], a.v[i], a.joints = true, v, true
		}
	}
}

// merge adds b's effectors to a (b's win).
func (a *actions) merge(b *actions) {
	if b.joints {
		for i, set := range b.set {
			if set {
				a.set[i], a.v[i] = true, b.v[i]
			}
		}
		a.joints = true
	}
	if b.init {
		a.init, a.hasUnum, a.unum, a.team, a.teamLen = true, b.hasUnum, b.unum, b.team, b.teamLen
	}
	if b.beam {
		a.beam, a.beamArg = true, b.beamArg
	}
	if b.say {
		a.say, a.sayMsg, a.sayLen = true, b.sayMsg, b.sayLen
	}
	a.scene = a.scene || b.scene
	a.syn = a.syn || b.syn
}

// queue merges effectors an agent sent (parsed by the server's reader)
// into what the world will realise.
func (w *World) queue(a *Agent, b *actions) { a.in.merge(b) }

// realize applies the effectors an agent sent a cycle ago.
func (w *World) realize(a *Agent) {
	r := &a.ready
	a.wake = false
	if r.init {
		w.initAgent(a, r)
	}
	if r.beam && a.team != teamNone && w.game.beamAllowed() {
		x, y, ang := r.beamArg[0], r.beamArg[1], r.beamArg[2]*rad
		if a.team == teamRight {
			x, y, ang = -x, -y, ang+math.Pi
		}
		a.r.place(x, y, ang, true)
		if w.phys != nil {
			w.physPlace(a, x, y, ang, nil, beamClear)
		}
	}
	if r.joints {
		for i, set := range r.set {
			if set {
				a.r.v[i] = r.v[i]
				if r.v[i] != 0 {
					a.wake = true
				}
				if w.phys != nil && a.pid >= 0 {
					w.phys.scene.SetVelocity(a.pid, i, r.v[i])
				}
			}
		}
	}
	if r.say && a.team != teamNone {
		a.saidLen = copy(a.said[:], r.sayMsg[:r.sayLen])
		a.saidStep = true
		w.sayers = append(w.sayers, a)
	}
	// The actions received this cycle become the next step's.
	a.ready, a.in = a.in, a.ready
	a.in.reset()
}

// initAgent gives the agent a side and a number: the first team to init
// gets the left side.
func (w *World) initAgent(a *Agent, r *actions) {
	if a.team != teamNone {
		return // init once
	}
	name := string(r.team[:r.teamLen])
	side := teamNone
	switch {
	case name != "" && w.teams[teamLeft] == name:
		side = teamLeft
	case name != "" && w.teams[teamRight] == name:
		side = teamRight
	case w.teams[teamLeft] == "":
		side = teamLeft
	case w.teams[teamRight] == "":
		side = teamRight
	default:
		w.cfg.Logger.Warn("init refused: both sides are taken", "agent", a.id, "team", name)
		return
	}
	if name == "" {
		name = [...]string{"", "Left", "Right"}[side]
	}
	unum := 0
	if r.hasUnum {
		unum = r.unum
	}
	taken := func(n int) bool {
		for _, b := range w.agents {
			if b != a && b.team == side && b.unum == n {
				return true
			}
		}
		return false
	}
	if unum == 0 || taken(unum) {
		if unum != 0 {
			w.cfg.Logger.Warn("init: player number taken, assigning another", "agent", a.id, "team", name, "unum", unum)
		}
		for unum = 1; taken(unum); unum++ {
		}
	}
	if w.teams[side] == "" {
		w.teams[side] = name
		w.game.changed |= changedTeams
	}
	a.team, a.unum, a.gsFull = side, unum, true
	x, y := w.spawnNext(side)
	heading := 0.0 // the opponent goal (RequestInitOrientation)
	if side == teamRight {
		heading = math.Pi
	}
	// In PhysicsODE mode the body is made at the first beam, as before
	// init: the kinematic robot stands at the slot meanwhile (what mypos
	// and the monitor report), the ODE scene has no body there.
	a.r.place(x, y, heading, true)
}

// spawnNext returns where init puts side's next agent and moves the side's
// spawn slot on, as rcssserver3d does (GameStateAspect::RequestInitPosition,
// plugin/soccer/gamestateaspect/gamestateaspect.cpp): each slot 3r below
// the last, a new column 2r towards +x (for both sides) once below the
// field's edge, r = AgentRadius; the slots are never reused in a server's
// life. The left side's agents 70–74 (the right side's 25–29) get slots
// inside the right side wall (x 7.0–8.0, soccer.rsg); later ones lie
// beyond it.
func (w *World) spawnNext(side int) (x, y float64) {
	s := &w.spawn[side]
	x, y = s.X, s.Y
	s.Y -= 3 * agentRadius
	if s.Y < -halfWidth {
		s.Y = halfWidth - 2*agentRadius
		s.X += 2 * agentRadius
	}
	return x, y
}

// Step advances the world by one cycle.
func (w *World) Step() {
	w.cycle++
	w.sayers = w.sayers[:0]
	for _, a := range w.agents {
		a.saidStep = false
		w.realize(a)
	}
	if w.phys != nil {
		w.physStep()
	} else {
		for _, a := range w.agents {
			a.r.stepJoints(w.dt, a.wake, w.cfg.RestSteps)
			a.r.stepBody(w.dt, w.cfg.FallMargin)
		}
		w.ball.step(w.dt, w.agents)
	}
	w.game.step(w.dt)
	w.deliverSays()
}

// deliverSays gives every agent with a side what it hears this cycle: its
// own message, one of a team-mate's and one of an opponent's.
func (w *World) deliverSays() {
	for _, h := range w.agents {
		h.nHeard = 0
		if h.team == teamNone {
			continue
		}
		if h.saidStep {
			h.heard[0] = heard{team: h.team, self: true, msg: h.said[:h.saidLen]}
			h.nHeard = 1
		}
		var mate, opp bool
		for _, s := range w.sayers {
			if s == h {
				continue
			}
			own := s.team == h.team
			if own && mate || !own && opp {
				continue
			}
			if own {
				mate = true
			} else {
				opp = true
			}
			// The direction to the speaker in the listener's team frame
			// (SoccerRuleAspect::Broadcast), not relative to its heading.
			dx, dy := s.r.p.X-h.r.p.X, s.r.p.Y-h.r.p.Y
			if h.team == teamRight {
				dx, dy = -dx, -dy
			}
			dir := math.Atan2(dy, dx) * deg
			h.heard[h.nHeard] = heard{team: s.team, dir: dir, msg: s.said[:s.saidLen]}
			h.nHeard++
		}
	}
}

// agentBy finds an agent by side and number.
func (w *World) agentBy(side, unum int) *Agent {
	for _, a := range w.agents {
		if a.team == side && a.unum == unum {
			return a
		}
	}
	return nil
}
