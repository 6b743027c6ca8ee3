package behaviour

import (
	"math"
	"time"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/behaviour/bt"
	"github.com/robotd/robotd/modules/behaviour/search"
	"github.com/robotd/robotd/msg"
)

// The search strategies' names in SearchConfig.Strategy, as the thesis
// (Collette, UNSW 2017) names them by year.
const (
	// StrategyFixedPoints is the 2016 search: eight hard-coded points
	// (the thesis' table 2.1), visited in turn.
	StrategyFixedPoints = "2016"
	// StrategyProbabilistic is the 2017 search: the distributed,
	// probabilistic search of the thesis' chapter 4.
	StrategyProbabilistic = "2017"
	// StrategySweep is robotd's team sweep: a shared fine belief of where
	// the ball may still be (package search's Sweep).
	StrategySweep = "sweep"
)

// The strategies' numbers in the search entry (msg.Search.Strategy): the
// thesis' years, and 2026 for the sweep.
const (
	strategyFixedPoints   = 2016
	strategyProbabilistic = 2017
	strategySweep         = 2026
)

// sweepCols and sweepRows are the blocks of the team sweep's summary in
// team messages and the search entry.
const sweepCols, sweepRows = 4, 4

// finder is the FindBall skill (the thesis §4.2.3 for 2017, §2.3.2 for
// 2016, and robotd's team sweep) and the searches' estimation, which runs
// every tick whether the robot searches or not: the 2017 local
// distribution (composite), the team distribution, and the distributed
// utility over the teammates' targets; the team sweep's belief, fed by
// this robot's view and its teammates' reported poses.
type finder struct {
	cfg      *SearchConfig
	strategy uint16
	grid     search.Grid
	comp     *search.Composite
	team     search.Dist
	simple   search.SimpleUtility
	util     search.DistributedUtility
	mates    [msg.MaxTeammates]search.Mate
	nmates   int

	// The search cycle.
	searchedLast bool // the robot searched in the previous tick
	point        int  // 2016: the current point; 2017: the segment
	target       hal.Vec2
	phase        msg.SearchPhase
	phaseStart   time.Duration
	spun         float64
	odoTick      time.Duration

	lastBall      hal.Vec2
	lastBallValid bool
	resets        uint32
	mirrored      bool

	// The team sweep: the belief, each teammate's last message (count,
	// pose and arrival), the teammates' claims, and the look at a
	// viewpoint.
	sweep     *search.Sweep
	mateCount [msg.MaxPlayerNumber + 1]uint32
	matePose  [msg.MaxPlayerNumber + 1]hal.Pose2
	mateAt    [msg.MaxPlayerNumber + 1]time.Duration
	claims    search.Claims
	replanAt  time.Duration
	lookStart float64 // the mass in reach on arrival
	sweepCell [sweepCols * sweepRows]float32
}

func newFinder(cfg *SearchConfig) *finder {
	f := &finder{cfg: cfg, point: -1}
	switch cfg.Strategy {
	case StrategyFixedPoints:
		f.strategy = strategyFixedPoints
	case StrategySweep:
		f.strategy = strategySweep
	default:
		f.strategy = strategyProbabilistic
	}
	f.sweep = search.NewSweep(cfg.Sweep, field.SPL())
	f.grid, _ = search.NewGrid(field.SPL(), cfg.ReliableDistance-cfg.Margin) // validated
	f.comp = search.NewComposite(cfg.Components, f.grid)
	f.simple = search.SimpleUtility{Travel: cfg.Travel}
	f.util.Local = &f.simple
	f.team.Uniform(f.grid.N())
	return f
}

// update runs the estimation for one tick.
func (f *finder) update(w *world) {
	// Mislocalisation: a re-localisation, or the belief turning towards
	// the mirrored pose (FlipFilterComponent).
	mis := false
	if w.pose.Resets != f.resets {
		mis = f.resets != 0 || w.pose.Resets > 1
		f.resets = w.pose.Resets
	}
	mirrored := w.pose.MirrorWeight > 0.5
	if mirrored && !f.mirrored {
		mis = true
	}
	f.mirrored = mirrored
	in := search.Inputs{
		Dt:        w.dt,
		PoseValid: w.pose.Valid, Pose: w.pose.Pose,
		Mislocalised: mis,
		BallSeen:     w.ball.Seen && w.ball.FieldValid, Ball: w.ball.FieldPos,
		// While it does not play (penalised, or before kick-off) the robot
		// neither searches nor stays where it will search from: the
		// distribution starts over when play starts (PenalisedComponent).
		Penalised: !w.playing(),
	}
	f.comp.Update(&in)
	if w.ballKnown {
		f.lastBall, f.lastBallValid = w.ballField, true
	}
	// The teammates' distributions and targets.
	f.nmates = 0
	for i := range w.mates.N {
		m := &w.mates.Mates[i]
		if m.Msg.Penalised {
			continue
		}
		f.mates[f.nmates] = search.Mate{
			Player: m.Msg.Player, Age: w.now - m.Received,
			NSegments: int(m.Msg.NSegments), Dist: &m.Msg.Distribution,
			Searching: m.Msg.Searching, TargetValid: m.Msg.TargetValid, Target: m.Msg.Target,
		}
		f.nmates++
	}
	search.Team(f.cfg.Team, f.comp.Dist(), f.mates[:f.nmates], &f.team)
	f.util.Count(&f.grid, f.mates[:f.nmates], f.cfg.Team.MaxAge.D().Seconds())
	if f.strategy == strategySweep {
		f.updateSweep(w, &in)
	}
}

// updateSweep feeds the team sweep's belief for one tick: it starts over
// while the robot does not play; it grows back; this robot's view takes
// mass; a ball seen (by anyone) puts mass where it is; each new teammate
// message takes the mass the teammate saw on its way since its previous
// one; the teammates' search targets are their claims.
func (f *finder) updateSweep(w *world, in *search.Inputs) {
	s := f.sweep
	if in.Penalised {
		s.Reset()
		f.mateCount = [msg.MaxPlayerNumber + 1]uint32{}
		return
	}
	s.Regrow(in.Dt)
	if in.PoseValid && !w.fallen() {
		s.Look(in.Pose, in.Dt, 1)
	}
	if w.ballKnown {
		s.BallAt(w.ballField)
	}
	f.claims.N = 0
	for i := range w.mates.N {
		m := &w.mates.Mates[i]
		p := m.Msg.Player
		if p == 0 || int(p) > msg.MaxPlayerNumber || m.Msg.Penalised {
			continue
		}
		if m.Msg.Searching && m.Msg.TargetValid && w.now-m.Received < f.cfg.Team.MaxAge.D() && f.claims.N < len(f.claims.Targets) {
			f.claims.Targets[f.claims.N] = m.Msg.Target
			f.claims.N++
		}
		if f.mateCount[p] == m.Count || !m.Msg.PoseValid || m.Msg.Fallen {
			continue
		}
		if f.mateCount[p] != 0 {
			dt := min(max(m.Received-f.mateAt[p], 0), 2*f.cfg.Sweep.Replan.D()+4*time.Second)
			s.LookAlong(f.matePose[p], m.Msg.Pose, dt)
		} else {
			s.Look(m.Msg.Pose, f.cfg.Sweep.SeeTime.D(), f.cfg.Sweep.MateShare)
		}
		f.mateCount[p], f.matePose[p], f.mateAt[p] = m.Count, m.Msg.Pose, m.Received
	}
}

// node builds the FindBall subtree: choose a location, walk there, scan,
// spin, and again.
func (f *finder) node() bt.Node[world] {
	choose := bt.Do("choose", f.choose)
	walk := bt.Do("walk there", f.walk)
	walk.Start = func(w *world) { f.begin(w, msg.SearchWalk) }
	scan := bt.Do("scan", f.scan)
	scan.Start = func(w *world) { f.begin(w, msg.SearchScan) }
	spin := bt.Do("spin", f.spin)
	spin.Start = func(w *world) { f.begin(w, msg.SearchSpin); f.spun = 0 }
	return bt.NewSequenceMem("find ball", choose, walk, scan, spin)
}

func (f *finder) begin(w *world, p msg.SearchPhase) { f.phase, f.phaseStart = p, w.now }

// choose picks the next search location.
func (f *finder) choose(w *world) bt.Status {
	switch f.strategy {
	case strategyFixedPoints:
		if !f.searchedLast || f.point < 0 {
			// A fresh search starts at the point nearest to where the ball
			// was last (the thesis §2.3.2). A robot that never knew the
			// ball takes the centre spot, where a game's ball starts: the
			// whole team then starts at the same point, as the thesis'
			// robots did (the team's last known ball is the same for
			// all of them).
			from := hal.Vec2{}
			if f.lastBallValid {
				from = f.lastBall
			}
			f.point = search.Nearest2016(from)
		} else {
			f.point = search.Next2016(f.point)
		}
		f.target = search.Points2016[f.point]
	case strategySweep:
		f.point = -1
		f.target = f.sweep.Choose(&f.cfg.Travel, w.pose.Pose, &f.claims, f.target, false)
		f.replanAt = w.now + f.cfg.Sweep.Replan.D()
	default:
		f.point = search.Simple(&f.util, &f.team, &f.grid, w.pose.Pose)
		f.target = f.grid.Centre(f.point)
	}
	f.markSearching(w)
	return bt.Success
}

func (f *finder) markSearching(w *world) {
	w.searching, w.target, w.targetValid, w.searchTarget = true, f.target, true, f.point
}

func (f *finder) walk(w *world) bt.Status {
	if f.strategy == strategySweep && w.now >= f.replanAt {
		f.target = f.sweep.Choose(&f.cfg.Travel, w.pose.Pose, &f.claims, f.target, true)
		f.replanAt = w.now + f.cfg.Sweep.Replan.D()
	}
	f.markSearching(w)
	// The viewpoint moved out of the teammates' way (the target published
	// stays f.target: the claim).
	if w.walkTo(w.keepClear(f.target), 0, false, f.cfg.Arrive, msg.HeadRequest{Mode: msg.HeadScan}) {
		return bt.Success
	}
	if w.now-f.phaseStart > f.cfg.WalkTimeout.D() {
		return bt.Success // blocked or lost: search here
	}
	return bt.Running
}

func (f *finder) scan(w *world) bt.Status {
	f.markSearching(w)
	if f.strategy == strategySweep {
		return f.look(w)
	}
	w.stand(msg.HeadRequest{Mode: msg.HeadScan})
	if w.now-f.phaseStart >= f.cfg.ScanTime.D() {
		return bt.Success
	}
	return bt.Running
}

func (f *finder) spin(w *world) bt.Status {
	f.markSearching(w)
	if f.strategy != strategyProbabilistic || f.cfg.SpinSpeed <= 0 {
		return bt.Success
	}
	if w.motion.Active == msg.MotionWalk {
		f.spun += math.Abs(float64(w.motion.Odometry.Heading))
	}
	limit := time.Duration(3 * 2 * math.Pi / f.cfg.SpinSpeed * float64(time.Second))
	if f.spun >= 2*math.Pi || w.now-f.phaseStart > limit {
		w.stand(msg.HeadRequest{Mode: msg.HeadHold})
		return bt.Success
	}
	w.req = msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Turn: hal.RadPerSec(f.cfg.SpinSpeed)},
		Head: msg.HeadRequest{Mode: msg.HeadLookAt, Pitch: 0.3}}
	return bt.Running
}

// look is the team sweep's look at a viewpoint: turn towards the unseen
// mass in reach, the head scanning, until little of it is left or MaxLook.
func (f *finder) look(w *world) bt.Status {
	here := w.here()
	left := f.sweep.InReach(here)
	if w.now == f.phaseStart {
		f.lookStart = max(left, 1e-9)
	}
	if left <= f.cfg.Sweep.Done*f.lookStart || w.now-f.phaseStart >= f.cfg.Sweep.MaxLook.D() || !w.pose.Valid {
		return bt.Success
	}
	herr := wrap(f.sweep.Heading(here) - float64(w.pose.Pose.Heading))
	c := &w.cfg.Walk
	w.req = msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Turn: hal.RadPerSec(clamp(c.TurnGain*herr, -c.TurnSpeed, c.TurnSpeed))},
		Head: msg.HeadRequest{Mode: msg.HeadScan}}
	if math.Abs(herr) < 0.15 {
		w.stand(msg.HeadRequest{Mode: msg.HeadScan})
	}
	return bt.Running
}

// after is called once per tick after the tree ran.
func (f *finder) after(w *world) {
	f.searchedLast = w.searching
	if !w.searching {
		f.phase = msg.SearchIdle
	}
}

// publish fills the search entry.
func (f *finder) publish(w *world, s *msg.SearchState) {
	*s = msg.SearchState{Strategy: f.strategy, Active: w.searching, Point: -1, Phase: f.phase,
		Cols: f.grid.Cols, Rows: f.grid.Rows, CellX: f.grid.CellX, CellY: f.grid.CellY, CellSize: f.grid.CellX,
		Origin: f.grid.Origin}
	if f.strategy == strategySweep {
		// The sweep's belief in blocks, as the share of the unseen mass.
		s.Cols, s.Rows = sweepCols, sweepRows
		s.CellX, s.CellY = float64(field.SPL().Length)/sweepCols, float64(field.SPL().Width)/sweepRows
		s.CellSize = s.CellX
		f.sweep.Coarse(sweepCols, sweepRows, f.sweepCell[:])
		var tot float32
		for _, v := range f.sweepCell {
			tot += v
		}
		for i, v := range f.sweepCell {
			if tot > 0 {
				s.Probabilities[i] = v / tot
			}
			s.Local[i] = s.Probabilities[i]
		}
	} else {
		local := f.comp.Dist()
		for i := range f.grid.N() {
			s.Probabilities[i] = float32(f.team.P[i])
			s.Local[i] = float32(local.P[i])
		}
	}
	if w.searching {
		s.Point = f.point
		s.Targets[0] = msg.SearchTarget{Player: 0, Pos: f.target}
		s.NTargets = 1
	}
	for i := range w.mates.N {
		m := &w.mates.Mates[i].Msg
		if !m.Searching || !m.TargetValid || s.NTargets >= len(s.Targets) {
			continue
		}
		s.Targets[s.NTargets] = msg.SearchTarget{Player: m.Player, Pos: m.Target}
		s.NTargets++
	}
}

// share writes the local distribution into a team message, relative to
// its largest cell.
func (f *finder) share(m *msg.TeamMessage) {
	if f.strategy == strategySweep {
		// The sweep's belief in blocks, relative to the largest (for the
		// debug page; teammates take what was seen from the poses).
		f.sweep.Coarse(sweepCols, sweepRows, m.Distribution[:sweepCols*sweepRows])
		m.NSegments = sweepCols * sweepRows
		return
	}
	d := f.comp.Dist()
	mx := d.Max()
	m.NSegments = uint8(d.N)
	for i := range m.Distribution {
		m.Distribution[i] = 0
	}
	if mx <= 0 {
		return
	}
	for i := range d.N {
		m.Distribution[i] = float32(d.P[i] / mx)
	}
}
