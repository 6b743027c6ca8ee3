package findball

import (
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
	"github.com/robotd/robotd/simrun"
)

// notYet marks a trial start that is not known yet.
const notYet = math.MaxInt64

// referee is the trial's GameController: PLAYING, every robot penalised
// until the start, then none. Each robot reads it through its own view in
// its own tick (a gamecontroller.Source), and what it says depends only
// on that tick's time, so it is the same in every run of a trial: unlike
// packets from another goroutine or over UDP, which a robot would take in
// whichever tick they happen to arrive.
type referee struct {
	team    uint8
	players []int
	start   *atomic.Int64 // tick time (ns) the robots are unpenalised
	from    *net.UDPAddr
}

// refereeView is one robot's GameController source.
type refereeView struct {
	ref   *referee
	board *blackboard.Board
}

// gameSeconds is the half's length the referee announces.
const gameSeconds = 600

// Latest implements gamecontroller.Source.
func (v *refereeView) Latest() (gamecontroller.Data, time.Time, *net.UDPAddr, bool) {
	r := v.ref
	now := v.board.Time()
	start := time.Duration(r.start.Load())
	d := gamecontroller.Data{Version: 18, PlayersPerTeam: uint8(len(r.players)), State: gamecontroller.StatePlaying,
		FirstHalf: true, KickingTeam: r.team, SecsRemaining: gameSeconds}
	penalised := now < start
	if !penalised {
		d.SecsRemaining = int16(max(0, gameSeconds-int((now-start)/time.Second)))
	}
	d.PacketNumber = uint8(now / time.Millisecond)
	d.Teams[0] = gamecontroller.TeamInfo{TeamNumber: r.team, Goalkeeper: 1, MessageBudget: 1200}
	d.Teams[1] = gamecontroller.TeamInfo{TeamNumber: r.team%255 + 1, Goalkeeper: 1, MessageBudget: 1200}
	if penalised {
		for _, p := range r.players {
			d.Teams[0].Players[p-1] = gamecontroller.RobotInfo{Penalty: gamecontroller.PenaltyManual}
		}
	}
	return d, time.Unix(0, int64(now)), r.from, true
}

// Stats implements gamecontroller.Source: a new packet every tick.
func (v *refereeView) Stats() gamecontroller.ClientStats {
	return gamecontroller.ClientStats{Packets: uint64(v.board.Time()/time.Millisecond) + 1}
}

// Sample is one robot's ground truth at one moment of a trial.
type Sample struct {
	Player int
	// T is the time since the trial's start (simulation time).
	T time.Duration
	// X, Y (m) and Heading (rad) are the robot's true pose in the team's
	// frame.
	X, Y, Heading float64
	// Seen: the robot saw the ball since the previous sample.
	Seen bool
	// Fallen: the robot lay on the ground, by the simulator's ground
	// truth (simrun.Posture).
	Fallen bool
}

// probe runs in a robot's tick and records, from the trial's start on,
// whether and when the robot found the ball (it sees it and is within
// the found distance of it, by the simulator's ground truth), its falls
// (by the ground truth's head height: simrun.Posture), and its
// trajectory. It also counts ticks without the simulator.
type probe struct {
	player int
	found  float64
	every  time.Duration
	start  *atomic.Int64

	gt   *blackboard.Reader[hal.GroundTruth]
	ball *blackboard.Reader[msg.Ball]
	body *blackboard.Reader[msg.BodyState]
	role *blackboard.Reader[msg.RoleState]
	req  *blackboard.Reader[msg.MotionRequest]
	g    hal.GroundTruth
	b    msg.Ball
	bs   msg.BodyState
	rs   msg.RoleState
	mr   msg.MotionRequest

	mu        sync.Mutex
	last      time.Duration // the last tick's time
	connected bool
	// idle counts ticks without the simulator once it had answered (a
	// stall); idleBefore those before its first message (the backend
	// ticks on its nominal period while a server handshakes: about 2 s
	// on rcssserver3d), which are no stall.
	idle       int
	idleBefore int
	hasFound   bool
	foundAt    time.Duration
	falls      []time.Duration // when falls began (since the start)
	posture    simrun.Posture  // by the ground truth, from the first message on
	fallen     bool            // lying at the previous tick since the start
	seen       bool
	// startBall is where the ball lay at the start, by the ground truth
	// (startBallOK: it was known then).
	startChecked, startBallOK bool
	startBall                 hal.Vec2
	next                      time.Duration
	samples                   []Sample
	poke                      chan struct{} // gets a value when found and every second of sim time
	lastPoke                  time.Duration

	// Team play, from the start on: the role after every change (the
	// first entry the role at the start), the role switches' times, and
	// idling: seeing the ball, not the striker, standing.
	roles      []RoleChange
	switchesAt []time.Duration
	baseSw     uint32
	roleInit   bool
	idleSince  time.Duration
	idling     bool
	idleMax    time.Duration
}

// RoleChange is a robot's role from T (since the trial's start) on;
// Allocated says that role allocation decided it (before its first
// allocation a robot plays its kick-off role).
type RoleChange struct {
	Player    int
	T         time.Duration
	Role      msg.Role
	Allocated bool
}

func newProbe(player int, found float64, every time.Duration, start *atomic.Int64, poke chan struct{}) *probe {
	return &probe{player: player, found: found, every: every, start: start, poke: poke}
}

func (p *probe) Name() string { return "experiment" }

func (p *probe) Wire(b *blackboard.Board) (err error) {
	if p.gt, err = blackboard.Read(b, p.Name(), msg.GroundTruthKey); err != nil {
		return err
	}
	if p.ball, err = blackboard.Read(b, p.Name(), msg.BallKey); err != nil {
		return err
	}
	if p.body, err = blackboard.Read(b, p.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	if p.role, err = blackboard.ReadOptional(b, p.Name(), msg.RoleKey); err != nil {
		return err
	}
	p.req, err = blackboard.ReadOptional(b, p.Name(), msg.MotionRequestKey)
	return err
}

func (p *probe) Tick(t hal.Tick) error {
	gtOK := p.gt.Load(&p.g).Valid() && p.g.Valid
	p.ball.Load(&p.b)
	p.body.Load(&p.bs)
	roleOK := p.role.Load(&p.rs).Valid()
	reqOK := p.req.Load(&p.mr).Valid()
	start := time.Duration(p.start.Load())
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = t.Time
	if !t.Connected {
		if p.connected {
			p.idle++
		} else {
			p.idleBefore++
		}
		return nil
	}
	p.connected = true
	if gtOK {
		p.posture.Update(float64(p.g.HeadHeight))
	}
	if t.Time < start {
		return nil
	}
	if !p.startChecked {
		p.startChecked = true
		if gtOK && p.g.BallValid {
			p.startBall, p.startBallOK = p.g.Ball, true
		}
	}
	fallen := p.posture.Lying()
	if fallen && !p.fallen {
		p.falls = append(p.falls, t.Time-start)
	}
	p.fallen = fallen
	if roleOK {
		p.teamPlay(t.Time-start, reqOK)
	}
	p.seen = p.seen || p.b.Seen
	poke := false
	if !p.hasFound && p.b.Seen && gtOK && p.g.BallValid &&
		math.Hypot(p.g.Ball.X-float64(p.g.Pose.X), p.g.Ball.Y-float64(p.g.Pose.Y)) <= p.found {
		p.hasFound, p.foundAt, poke = true, t.Time-start, true
	}
	if t.Time-start >= p.next && gtOK {
		p.samples = append(p.samples, Sample{Player: p.player, T: t.Time - start, X: float64(p.g.Pose.X), Y: float64(p.g.Pose.Y),
			Heading: float64(p.g.Pose.Heading), Seen: p.seen, Fallen: fallen})
		p.seen = false
		for p.next <= t.Time-start {
			p.next += p.every
		}
	}
	if t.Time-p.lastPoke >= time.Second {
		poke = true
	}
	if poke {
		p.lastPoke = t.Time
		select {
		case p.poke <- struct{}{}:
		default:
		}
	}
	return nil
}

// teamPlay records role changes, switches and idling at time since the
// start (p.mu held).
func (p *probe) teamPlay(since time.Duration, reqOK bool) {
	rs := &p.rs
	if !p.roleInit {
		p.roleInit, p.baseSw = true, rs.Switches
		p.roles = append(p.roles, RoleChange{Player: p.player, T: since, Role: rs.Role, Allocated: rs.Allocated})
	} else if last := p.roles[len(p.roles)-1]; last.Role != rs.Role || last.Allocated != rs.Allocated {
		p.roles = append(p.roles, RoleChange{Player: p.player, T: since, Role: rs.Role, Allocated: rs.Allocated})
	}
	for n := uint32(len(p.switchesAt)); rs.Switches-p.baseSw > n; n++ {
		p.switchesAt = append(p.switchesAt, since)
	}
	idle := p.b.Seen && rs.Role != msg.RoleStriker && reqOK && p.mr.Kind == msg.MotionStand && p.bs.Fall == msg.Upright
	switch {
	case idle && !p.idling:
		p.idling, p.idleSince = true, since
	case !idle:
		p.idling = false
	}
	if p.idling {
		p.idleMax = max(p.idleMax, since-p.idleSince)
	}
}

// teamUntil returns the robot's role changes, switch times and longest
// idle stretch up to end (since the start).
func (p *probe) teamUntil(end time.Duration) (roles []RoleChange, switches []time.Duration, idle time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.roles {
		if r.T <= end {
			roles = append(roles, r)
		}
	}
	for _, s := range p.switchesAt {
		if s <= end {
			switches = append(switches, s)
		}
	}
	return roles, switches, p.idleMax
}

// state is what the controller reads from a probe.
type probeState struct {
	last      time.Duration
	connected bool
	hasFound  bool
	foundAt   time.Duration
	idle      int
	// idleBefore is probe.idleBefore.
	idleBefore int
	// startBall is probe.startBall.
	startBall   hal.Vec2
	startBallOK bool
}

func (p *probe) state() probeState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return probeState{last: p.last, connected: p.connected, hasFound: p.hasFound, foundAt: p.foundAt, idle: p.idle, idleBefore: p.idleBefore,
		startBall: p.startBall, startBallOK: p.startBallOK}
}

// samplesUntil returns the samples up to end (since the start).
func (p *probe) samplesUntil(end time.Duration) []Sample {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Sample
	for _, s := range p.samples {
		if s.T <= end {
			out = append(out, s)
		}
	}
	return out
}

// fallsUntil counts the falls that began up to end (since the start).
func (p *probe) fallsUntil(end time.Duration) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, f := range p.falls {
		if f <= end {
			n++
		}
	}
	return n
}

// sampleMatch is how far apart in time two robots' samples may be to be
// taken as simultaneous (the robots sample in the same simulator cycle,
// or the next, every Config.Sample).
const sampleMatch = 100 * time.Millisecond

// ClosestApproach returns the least distance between two robots over
// samples (each robot's in time order, robot after robot, as a Result's),
// comparing each sample of one robot with the other's sample nearest in
// time (within sampleMatch); −1 when no two robots' samples pair up.
func ClosestApproach(samples []Sample) float64 {
	// Each robot's run of samples.
	type run struct{ from, to int }
	var runs []run
	for i := 0; i < len(samples); {
		j := i
		for j < len(samples) && samples[j].Player == samples[i].Player {
			j++
		}
		runs = append(runs, run{i, j})
		i = j
	}
	best := math.Inf(1)
	for a := range runs {
		for b := a + 1; b < len(runs); b++ {
			sa, sb := samples[runs[a].from:runs[a].to], samples[runs[b].from:runs[b].to]
			k := 0
			for _, x := range sa {
				for k+1 < len(sb) && absDur(sb[k+1].T-x.T) <= absDur(sb[k].T-x.T) {
					k++
				}
				if len(sb) == 0 || absDur(sb[k].T-x.T) > sampleMatch {
					continue
				}
				best = min(best, math.Hypot(x.X-sb[k].X, x.Y-sb[k].Y))
			}
		}
	}
	if math.IsInf(best, 1) {
		return -1
	}
	return best
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
