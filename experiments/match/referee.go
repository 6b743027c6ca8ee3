package match

import (
	"math"
	"time"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/proto/gamecontroller"
)

// The referee works in the world frame: SimSpark's left team's frame,
// the origin at the centre spot, the left team's own goal at -x. Side 0
// is the left team, side 1 the right.

// RobotTruth is one robot's ground truth in the world frame.
type RobotTruth struct {
	X, Y, Heading float64
	// Fallen: the robot lies (its head lower than simrun.LyingHead).
	Fallen bool
	Valid  bool
}

// Touch is the last touch of the ball: by which side's player, when.
type Touch struct {
	T      time.Duration
	Side   int
	Player int
	Valid  bool
}

// Truth is what the referee sees at time T.
type Truth struct {
	T         time.Duration
	Ball      [2]float64
	BallValid bool
	// Robots are each side's robots, player 1 first.
	Robots [2][]RobotTruth
	Touch  Touch
}

// Move puts a robot at (X, Y) in the world frame facing Deg degrees.
type Move struct {
	Side, Player int
	X, Y, Deg    float64
}

// Actions are what the referee does to the world after a look.
type Actions struct {
	// Ball, if PlaceBall, is where the ball is put (at rest).
	PlaceBall bool
	Ball      [2]float64
	Moves     []Move
}

// Phase is the referee's phase of the game.
type Phase uint8

// The phases: the GameController's states, with the break between the
// halves and the end of the game told apart (both FINISHED).
const (
	PhaseInitial Phase = iota
	PhaseReady
	PhaseSet
	PhasePlaying
	PhaseHalfTime
	PhaseOver
)

var phaseNames = [...]string{"initial", "ready", "set", "playing", "half-time", "over"}

func (p Phase) String() string { return phaseNames[p] }

// Stats are what the referee counts, per side.
type Stats struct {
	Possession [2]time.Duration
	Shots      [2]int
	Penalties  [2]int
	// KickIns, GoalKicks and Corners count the set plays awarded.
	KickIns, GoalKicks, Corners [2]int
	// Collisions counts robots coming nearer each other than
	// collisionDistance (any two, either side).
	Collisions int
}

// Goal is a goal scored by Side at T (since the start) in Half.
type Goal struct {
	T    time.Duration
	Side int
	Half int
}

const (
	// possessionRadius: the robot nearest the ball within this (m) has
	// it.
	possessionRadius = 0.5
	// collisionDistance: two robots' feet centres nearer than this (m)
	// touch (a NAO is about 0.3 m across).
	collisionDistance = 0.35
	// shotSpeed: a ball set moving faster than this (m/s) towards the
	// goal is a shot.
	shotSpeed = 1.0
	// kickOffFree is how long after a kick-off the other team keeps out
	// of the centre circle unless the ball is touched (SPL).
	kickOffFree = 10 * time.Second
)

type penalty struct {
	kind  gamecontroller.Penalty
	until time.Duration
	// re is where the robot comes back in (the world frame).
	re Move
}

// Referee is the simulated GameController's judgement: the phases of a
// game of two halves, goals and kick-offs, the ball out of the field and
// its set plays, and the penalties the simulator can judge (leaving the
// field, lying too long). It is a pure function of the truths it is
// shown, so a game's course is as reproducible as they are.
type Referee struct {
	cfg     RefereeConfig
	half    time.Duration
	players int
	dim     field.Dimensions

	phase     Phase
	halfNo    int
	until     time.Duration // end of INITIAL, READY, SET, the break
	remaining time.Duration // of the half's playing time
	kicking   int           // the side that kicks off (or takes the set play)
	firstKick int           // the side that kicked off the first half
	setPlay   gamecontroller.SetPlay
	setUntil  time.Duration
	placedAt  time.Duration
	koUntil   time.Duration // the kick-off's ten seconds end
	playFrom  time.Duration // PLAYING began
	last      time.Duration
	started   bool

	score     [2]int
	goals     []Goal
	pen       [2][]penalty
	fallenAt  [2][]time.Duration // -1: upright
	back      [2][]time.Duration // brought back in at; judged again a second later
	near      map[[4]int]bool    // robot pairs in contact
	prevBall  [2]float64
	prevSpeed float64
	stats     Stats
	changed   bool
	placed    bool // the ball was placed after the last look
}

// NewReferee returns the referee of a game of players a side, halves of
// half, in which side first kicks off first.
func NewReferee(cfg RefereeConfig, half time.Duration, players, first int) *Referee {
	r := &Referee{cfg: cfg, half: half, players: players, dim: field.SPL(), halfNo: 1, remaining: half,
		kicking: first, firstKick: first, near: map[[4]int]bool{}}
	for s := range 2 {
		r.pen[s] = make([]penalty, players)
		r.fallenAt[s] = make([]time.Duration, players)
		r.back[s] = make([]time.Duration, players)
		for i := range r.fallenAt[s] {
			r.fallenAt[s][i] = -1
		}
	}
	return r
}

// Phase returns the phase; Half the half (1 or 2).
func (r *Referee) Phase() Phase { return r.phase }

// Half returns the half being played (1 or 2).
func (r *Referee) Half() int { return r.halfNo }

// Score returns the goals of each side.
func (r *Referee) Score() [2]int { return r.score }

// Goals returns the goals in the order scored.
func (r *Referee) Goals() []Goal { return r.goals }

// Stats returns the counts so far.
func (r *Referee) Stats() Stats { return r.stats }

// Changed reports whether the game state changed in the last Step.
func (r *Referee) Changed() bool { return r.changed }

// Penalised reports whether side's player is penalised.
func (r *Referee) Penalised(side, player int) bool {
	return r.pen[side][player-1].kind != gamecontroller.PenaltyNone
}

// Step looks at the game at tr.T and returns what to do to the world.
func (r *Referee) Step(tr *Truth) Actions {
	var act Actions
	r.changed = false
	if !r.started {
		r.started, r.last, r.until, r.changed = true, tr.T, tr.T+r.cfg.Initial.D(), true
		r.prevBall = tr.Ball
	}
	dt := tr.T - r.last
	r.last = tr.T
	r.releasePenalties(tr, &act)
	switch r.phase {
	case PhaseInitial:
		if tr.T >= r.until {
			r.ready(tr, &act)
		}
	case PhaseReady:
		if tr.T >= r.until {
			r.setPhase(PhaseSet, tr.T+r.cfg.Set.D())
			// The ball is on the centre spot for the kick-off.
			r.place(&act, [2]float64{0, 0})
		}
	case PhaseSet:
		if tr.T >= r.until {
			r.setPhase(PhasePlaying, 0)
			r.prevSpeed = 0
			// The other team keeps out of the centre circle until the
			// ball is touched, at most 10 s (SPL kick-off).
			r.playFrom, r.koUntil = tr.T, tr.T+kickOffFree
		}
	case PhasePlaying:
		r.remaining -= dt
		if r.remaining <= 0 {
			r.remaining = 0
			r.endHalf(tr, &act)
			break
		}
		r.play(tr, dt, &act)
	case PhaseHalfTime:
		if tr.T >= r.until {
			r.halfNo, r.remaining = 2, r.half
			// The other team kicks off the second half.
			r.kicking = 1 - r.firstKick
			r.ready(tr, &act)
		}
	}
	if r.phase == PhaseReady || r.phase == PhaseSet || r.phase == PhasePlaying {
		r.judgePlayers(tr, &act)
	}
	r.prevBall = tr.Ball
	r.placed = act.PlaceBall
	return act
}

func (r *Referee) setPhase(p Phase, until time.Duration) {
	r.phase, r.until, r.changed = p, until, true
}

// ready starts READY: the robots walk to their kick-off positions.
func (r *Referee) ready(tr *Truth, act *Actions) {
	r.setPhase(PhaseReady, tr.T+r.cfg.Ready.D())
	r.setPlay = gamecontroller.SetPlayNone
	r.place(act, [2]float64{0, 0})
}

// place puts the ball at p; the next look does not take its jump there
// for a kick.
func (r *Referee) place(act *Actions, p [2]float64) {
	act.PlaceBall, act.Ball = true, p
	r.placed = true
}

// endHalf ends a half: the break, or the end of the game. Penalised
// robots come back for the next half.
func (r *Referee) endHalf(tr *Truth, act *Actions) {
	r.setPlay = gamecontroller.SetPlayNone
	for s := range 2 {
		for i := range r.pen[s] {
			if r.pen[s][i].kind != gamecontroller.PenaltyNone {
				act.Moves = append(act.Moves, r.pen[s][i].re)
				r.pen[s][i] = penalty{}
				r.back[s][i] = tr.T
			}
		}
	}
	if r.halfNo == 1 {
		r.setPhase(PhaseHalfTime, tr.T+r.cfg.HalfTime.D())
		return
	}
	r.setPhase(PhaseOver, 0)
}

// play judges goals, the ball out of the field and set plays, and counts
// possession, shots and collisions.
func (r *Referee) play(tr *Truth, dt time.Duration, act *Actions) {
	if !tr.BallValid {
		return
	}
	bx, by := tr.Ball[0], tr.Ball[1]
	lx, ly := float64(r.dim.Length)/2, float64(r.dim.Width)/2
	br := float64(r.dim.BallRadius)
	r.count(tr, dt)
	if r.koUntil > 0 && (tr.T >= r.koUntil || tr.Touch.Valid && tr.Touch.T > r.playFrom) {
		r.koUntil, r.changed = 0, true
	}
	// The set play ends when its team has touched the ball or its time
	// is up.
	if r.setPlay != gamecontroller.SetPlayNone && (tr.T >= r.setUntil || tr.Touch.Valid && tr.Touch.T > r.placedAt && tr.Touch.Side == r.kicking) {
		r.setPlay, r.changed = gamecontroller.SetPlayNone, true
	}
	switch {
	case math.Abs(bx) > lx+br && math.Abs(by) < float64(r.dim.GoalWidth)/2:
		// Wholly over the goal line between the posts: a goal for the
		// side attacking that goal (the left side attacks +x). The team
		// that conceded kicks off.
		scorer := 0
		if bx < 0 {
			scorer = 1
		}
		r.score[scorer]++
		r.goals = append(r.goals, Goal{T: tr.T, Side: scorer, Half: r.halfNo})
		r.kicking = 1 - scorer
		r.ready(tr, act)
	case math.Abs(by) > ly+br:
		// Over a side line: a kick-in for the team that did not touch
		// the ball last, on the side line where the ball left the field.
		r.award(tr, gamecontroller.SetPlayKickIn, 1-r.toucher(tr, bx), [2]float64{clamp(bx, -lx, lx), math.Copysign(ly, by)}, act)
		r.stats.KickIns[r.kicking]++
	case math.Abs(bx) > lx+br:
		// Over a goal line beside the goal. Defender last: a corner kick
		// for the attackers from the field's corner on that side;
		// attacker last: a goal kick for the defenders from their goal
		// area's front corner on that side.
		defender := 1 // the right side defends +x
		if bx < 0 {
			defender = 0
		}
		if r.toucher(tr, bx) == defender {
			r.award(tr, gamecontroller.SetPlayCornerKick, 1-defender, [2]float64{math.Copysign(lx, bx), math.Copysign(ly, by)}, act)
			r.stats.Corners[r.kicking]++
		} else {
			gx := math.Copysign(lx-float64(r.dim.PenaltyAreaLength), bx)
			r.award(tr, gamecontroller.SetPlayGoalKick, defender, [2]float64{gx, math.Copysign(float64(r.dim.PenaltyAreaWidth)/2, by)}, act)
			r.stats.GoalKicks[r.kicking]++
		}
	}
}

// toucher returns the side that touched the ball last; with no touch
// known, the side whose goal line is at bx's end attacked (so that the
// defenders get the ball).
func (r *Referee) toucher(tr *Truth, bx float64) int {
	if tr.Touch.Valid {
		return tr.Touch.Side
	}
	if bx > 0 {
		return 0
	}
	return 1
}

func (r *Referee) award(tr *Truth, sp gamecontroller.SetPlay, side int, at [2]float64, act *Actions) {
	r.koUntil = 0
	r.setPlay, r.kicking, r.setUntil, r.placedAt, r.changed = sp, side, tr.T+r.cfg.SetPlay.D(), tr.T, true
	r.place(act, at)
}

// count adds possession, shots and collisions.
func (r *Referee) count(tr *Truth, dt time.Duration) {
	best, who := possessionRadius, -1
	for s := range 2 {
		for i, rb := range tr.Robots[s] {
			if !rb.Valid || rb.Fallen || r.pen[s][i].kind != gamecontroller.PenaltyNone {
				continue
			}
			if d := math.Hypot(rb.X-tr.Ball[0], rb.Y-tr.Ball[1]); d < best {
				best, who = d, s
			}
		}
	}
	if who >= 0 {
		r.stats.Possession[who] += dt
	}
	// A shot: the ball set moving fast after the kicking side's touch,
	// on a line into the opponent goal.
	speed := 0.0
	if dt > 0 && !r.placed {
		speed = math.Hypot(tr.Ball[0]-r.prevBall[0], tr.Ball[1]-r.prevBall[1]) / dt.Seconds()
	}
	if speed >= shotSpeed && r.prevSpeed < shotSpeed && tr.Touch.Valid && tr.T-tr.Touch.T <= time.Second {
		vx, vy := tr.Ball[0]-r.prevBall[0], tr.Ball[1]-r.prevBall[1]
		gx := float64(r.dim.Length) / 2
		if tr.Touch.Side == 1 {
			gx = -gx
		}
		if vx != 0 && (gx-tr.Ball[0])/vx > 0 {
			y := tr.Ball[1] + vy*(gx-tr.Ball[0])/vx
			if math.Abs(y) < float64(r.dim.GoalWidth)/2+0.2 {
				r.stats.Shots[tr.Touch.Side]++
			}
		}
	}
	r.prevSpeed = speed
	for s := range 2 {
		for i, a := range tr.Robots[s] {
			for s2 := s; s2 < 2; s2++ {
				for j, b := range tr.Robots[s2] {
					if s2 == s && j <= i {
						continue
					}
					k := [4]int{s, i, s2, j}
					in := a.Valid && b.Valid && math.Hypot(a.X-b.X, a.Y-b.Y) < collisionDistance
					if in && !r.near[k] {
						r.stats.Collisions++
					}
					r.near[k] = in
				}
			}
		}
	}
}

// judgePlayers penalises robots that left the field or lie too long.
func (r *Referee) judgePlayers(tr *Truth, act *Actions) {
	lx, ly := float64(r.dim.Length)/2+r.cfg.LeaveMargin, float64(r.dim.Width)/2+r.cfg.LeaveMargin
	for s := range 2 {
		for i, rb := range tr.Robots[s] {
			if !rb.Valid || r.pen[s][i].kind != gamecontroller.PenaltyNone || r.back[s][i] > 0 && tr.T < r.back[s][i]+time.Second {
				// Penalised, or just put back in (the truth shows where
				// it was before).
				continue
			}
			if !rb.Fallen {
				r.fallenAt[s][i] = -1
			} else if r.fallenAt[s][i] < 0 {
				r.fallenAt[s][i] = tr.T
			}
			switch {
			case math.Abs(rb.X) > lx || math.Abs(rb.Y) > ly:
				r.penalise(tr, s, i, gamecontroller.PenaltyLeavingTheField, act)
			case rb.Fallen && tr.T-r.fallenAt[s][i] >= r.cfg.FallenLimit.D():
				r.penalise(tr, s, i, gamecontroller.PenaltyRequestForPickup, act)
			}
		}
	}
}

// penalise takes a robot out for the penalty's time: it waits beside the
// side line farther from the ball, level with its own half's penalty
// mark, and comes back in there on the line.
func (r *Referee) penalise(tr *Truth, s, i int, kind gamecontroller.Penalty, act *Actions) {
	x := float64(r.dim.Length)/2 - float64(r.dim.PenaltyMarkDistance)
	if s == 0 {
		x = -x
	}
	sign := -1.0
	if tr.Ball[1] < 0 {
		sign = 1
	}
	ly := float64(r.dim.Width) / 2
	deg := -90 * sign // facing into the field
	r.pen[s][i] = penalty{kind: kind, until: tr.T + r.cfg.Penalty.D(), re: Move{Side: s, Player: i + 1, X: x, Y: sign * ly, Deg: deg}}
	r.fallenAt[s][i] = -1
	r.stats.Penalties[s]++
	r.changed = true
	act.Moves = append(act.Moves, Move{Side: s, Player: i + 1, X: x, Y: sign * (ly + r.cfg.LeaveMargin/2 + 0.3), Deg: deg})
}

// releasePenalties brings back the robots whose penalty is over.
func (r *Referee) releasePenalties(tr *Truth, act *Actions) {
	for s := range 2 {
		for i := range r.pen[s] {
			if p := r.pen[s][i]; p.kind != gamecontroller.PenaltyNone && tr.T >= p.until {
				act.Moves = append(act.Moves, p.re)
				r.pen[s][i] = penalty{}
				r.back[s][i] = tr.T
				r.changed = true
			}
		}
	}
}

// Packet returns the GameController's packet at time now for the teams
// numbered teams (left side first).
func (r *Referee) Packet(now time.Duration, teams [2]uint8, number uint8) gamecontroller.Data {
	d := gamecontroller.Data{Version: 18, PacketNumber: number, PlayersPerTeam: uint8(r.players),
		FirstHalf: r.halfNo == 1, KickingTeam: teams[r.kicking], SetPlay: r.setPlay,
		SecsRemaining: int16(secs(r.remaining))}
	left := max(r.until-now, 0)
	switch r.phase {
	case PhaseInitial:
		d.State = gamecontroller.StateInitial
	case PhaseReady:
		d.State, d.SecondaryTime = gamecontroller.StateReady, int16(secs(left))
	case PhaseSet:
		d.State, d.SecondaryTime = gamecontroller.StateSet, int16(secs(left))
	case PhasePlaying:
		d.State = gamecontroller.StatePlaying
		switch {
		case r.setPlay != gamecontroller.SetPlayNone:
			d.SecondaryTime = int16(secs(max(r.setUntil-now, 0)))
		case r.koUntil > now:
			d.SecondaryTime = int16(secs(r.koUntil - now))
		}
	case PhaseHalfTime:
		d.State, d.SecondaryTime = gamecontroller.StateFinished, int16(secs(left))
	case PhaseOver:
		d.State = gamecontroller.StateFinished
	}
	for s := range 2 {
		ti := &d.Teams[s]
		ti.TeamNumber, ti.Goalkeeper, ti.Score, ti.MessageBudget = teams[s], 1, uint8(r.score[s]), 1200
		ti.FieldPlayerColour, ti.GoalkeeperColour = uint8(s), uint8(s)
		for i, p := range r.pen[s] {
			if p.kind != gamecontroller.PenaltyNone {
				ti.Players[i] = gamecontroller.RobotInfo{Penalty: p.kind, SecsTillUnpenalised: uint8(min(secs(max(p.until-now, 0)), 255))}
			}
		}
	}
	return d
}

// secs rounds a duration up to whole seconds, as the GameController
// shows its clocks.
func secs(d time.Duration) int { return int((d + time.Second - 1) / time.Second) }

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
