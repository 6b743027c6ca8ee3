package match

import (
	"math"
	"sync"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/simrun"
)

// probe runs in a robot's tick and keeps what the referee and the game's
// record need: the robot's ground truth, its last touch of the ball, its
// falls and role switches, and ticks without the simulator.
type probe struct {
	side, player int
	touch        float64

	gt   *blackboard.Reader[hal.GroundTruth]
	body *blackboard.Reader[msg.BodyState]
	role *blackboard.Reader[msg.RoleState]
	gc   *blackboard.Reader[msg.GameControl]
	g    hal.GroundTruth
	gcv  msg.GameControl
	bs   msg.BodyState
	rs   msg.RoleState

	mu    sync.Mutex
	st    probeState
	hold  func(now time.Duration) // a test's stall: runs in the tick
	fell  bool
	base  uint32
	based bool
}

// probeState is a probe's record up to its last tick.
type probeState struct {
	last      time.Duration
	connected bool
	idle      int
	truth     RobotTruth
	ball      [2]float64 // world frame
	ballValid bool
	// touchT is the last tick the robot touched the ball, touchD its
	// distance then; touched says there was one.
	touchT   time.Duration
	touchD   float64
	touched  bool
	falls    int
	switches int
	// heard: the robot's game state came from the GameController's
	// packets in its last tick.
	heard bool
}

func (p *probe) Name() string { return "match" }

func (p *probe) Wire(b *blackboard.Board) (err error) {
	if p.gt, err = blackboard.Read(b, p.Name(), msg.GroundTruthKey); err != nil {
		return err
	}
	if p.body, err = blackboard.Read(b, p.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	if p.gc, err = blackboard.ReadOptional(b, p.Name(), msg.GameControlKey); err != nil {
		return err
	}
	p.role, err = blackboard.ReadOptional(b, p.Name(), msg.RoleKey)
	return err
}

// world turns a pose or point in the robot's team frame into the world
// frame: the right side's frame is the world turned by 180°.
func (p *probe) world(x, y float64) (float64, float64) {
	if p.side == 1 {
		return -x, -y
	}
	return x, y
}

func (p *probe) Tick(t hal.Tick) error {
	if p.hold != nil {
		p.hold(t.Time)
	}
	gtOK := p.gt.Load(&p.g).Valid() && p.g.Valid
	p.body.Load(&p.bs)
	roleOK := p.role.Load(&p.rs).Valid()
	gcOK := p.gc.Load(&p.gcv).Valid()
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &p.st
	s.last = t.Time
	if !t.Connected {
		s.idle++
		return nil
	}
	s.connected = true
	s.heard = gcOK && p.gcv.Source == msg.GameSourceGameController
	if gtOK {
		x, y := p.world(float64(p.g.Pose.X), float64(p.g.Pose.Y))
		h := float64(p.g.Pose.Heading)
		if p.side == 1 {
			h = math.Remainder(h+math.Pi, 2*math.Pi)
		}
		s.truth = RobotTruth{X: x, Y: y, Heading: h, Fallen: float64(p.g.HeadHeight) < simrun.LyingHead, Valid: true}
		if p.g.BallValid {
			s.ball[0], s.ball[1] = p.world(p.g.Ball.X, p.g.Ball.Y)
			s.ballValid = true
			if d := math.Hypot(p.g.Ball.X-float64(p.g.Pose.X), p.g.Ball.Y-float64(p.g.Pose.Y)); d <= p.touch && !s.truth.Fallen {
				s.touchT, s.touchD, s.touched = t.Time, d, true
			}
		}
	}
	fell := p.bs.Fall != msg.Upright
	if fell && !p.fell {
		s.falls++
	}
	p.fell = fell
	if roleOK {
		if !p.based {
			p.base, p.based = p.rs.Switches, true
		}
		s.switches = int(p.rs.Switches - p.base)
	}
	return nil
}

func (p *probe) state() probeState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st
}
