package behaviour

import (
	"math"
	"time"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/behaviour/bt"
	"github.com/robotd/robotd/msg"
)

// Skills: reusable actions over the world. Each writes the motion request
// (w.req) and answers whether it is done.

// walkTo walks to the field point target (facing heading when useHeading),
// around teammates and perceived obstacles (avoid), with the head as
// given. It reports arrival (within
// tol, and within 0.2 rad of the heading), standing then.
func (w *world) walkTo(target hal.Vec2, heading float64, useHeading bool, tol float64, head msg.HeadRequest) bool {
	if !w.pose.Valid {
		// Lost: stand and look around until the localisation has a pose.
		w.stand(msg.HeadRequest{Mode: msg.HeadScan})
		return false
	}
	rel := w.pose.Pose.Local(w.outOfGoals(target))
	d := rel.Len()
	herr := 0.0
	if useHeading {
		herr = wrap(heading - float64(w.pose.Pose.Heading))
	}
	if d < tol && (!useHeading || math.Abs(herr) < 0.2) {
		w.stand(head)
		return true
	}
	if d >= tol {
		rel = w.avoid(rel, d)
	}
	w.walkRel(rel, herr, useHeading, d < tol, head)
	w.giveWay()
	return false
}

// backUpDistance: a target this near and behind the robot (within 45° of
// straight back), with a heading to reach there, is stepped to backwards
// keeping the heading, not turned towards: a defender or supporter that
// backs off to its point beside or behind the ball keeps facing it, keeps
// it in sight and keeps its bid for the striker role.
const backUpDistance = 1.5

// walkRel sets a walk towards the relative point rel: facing it from afar,
// stepping sideways near it (and backwards to a near point behind it when
// useHeading); turning by herr when useHeading (only turning when there).
func (w *world) walkRel(rel hal.Vec2, herr float64, useHeading, there bool, head msg.HeadRequest) {
	c := &w.cfg.Walk
	d := rel.Len()
	var v msg.WalkRequest
	switch {
	case there:
		v.Turn = hal.RadPerSec(clamp(c.TurnGain*herr, -c.TurnSpeed, c.TurnSpeed))
	case d > c.FaceDistance && !(useHeading && d <= backUpDistance && rel.X < -math.Abs(rel.Y)):
		a := rel.Angle()
		v.Turn = hal.RadPerSec(clamp(c.TurnGain*a, -c.TurnSpeed, c.TurnSpeed))
		// Full speed when facing it, none beyond 60° off.
		f := clamp((math.Cos(a)-0.5)/0.5, 0, 1)
		v.Forward = hal.MetresPerSec(c.Speed * f * clamp(d/c.FaceDistance, 0, 1))
	default:
		v.Forward = hal.MetresPerSec(clamp(1.5*rel.X, -0.1, c.Speed))
		v.Left = hal.MetresPerSec(clamp(1.5*rel.Y, -c.SideSpeed, c.SideSpeed))
		switch {
		case useHeading:
			v.Turn = hal.RadPerSec(clamp(c.TurnGain*herr, -c.TurnSpeed, c.TurnSpeed))
		case d > 0.15:
			v.Turn = hal.RadPerSec(clamp(c.TurnGain*rel.Angle(), -c.TurnSpeed, c.TurnSpeed))
		}
	}
	w.req = msg.MotionRequest{Kind: msg.MotionWalk, Walk: v, Head: head}
}

// avoidLookahead is how far ahead along the path an obstacle is avoided.
const avoidLookahead = 2.0

// avoidMemory is how long a chosen side is kept for the same blocker
// (within avoidSame of where it was) while it is out of the way.
const (
	avoidMemory = time.Second
	avoidSame   = 0.6
)

// avoid returns a waypoint that passes the nearest robot in the way to rel
// (at distance d) at AvoidRadius, or rel when nobody is in the way: the
// teammates at the positions of their team messages and, with
// AvoidObstacles, perception's obstacles (every robot seen lately,
// opponents too). Nothing within AvoidNear of the target is avoided, so a
// ball beside a robot is still reached. The side, once chosen, is kept for
// the same blocker until it lies more than AvoidHysteresis off the path on
// that side (so noise in its position does not flip it every tick), and
// changes when a waypoint on it would come within AvoidRadius of another
// robot while the other side's is clear.
func (w *world) avoid(rel hal.Vec2, d float64) hal.Vec2 {
	c := &w.cfg.Walk
	r := c.AvoidRadius
	if r <= 0 || d < 1e-6 || d <= c.AvoidNear {
		w.avoidSide = 0
		return rel
	}
	pts := w.avoidPoints()
	i, m, lat := pathBlocker(rel, d, r, c.AvoidNear, pts)
	if i < 0 {
		if w.now-w.avoidTime > avoidMemory {
			w.avoidSide = 0
		}
		return rel
	}
	at := w.pose.Pose.Global(m)
	same := w.avoidSide != 0 && w.now-w.avoidTime <= avoidMemory && at.Dist(w.avoidAt) <= avoidSame
	prev := 0.0
	if same {
		prev = w.avoidSide
	}
	side := passSide(lat, prev, c.AvoidHysteresis)
	u := rel.Scale(1 / d)
	wp := m.Add(u.Perp().Scale(side * (r + 0.1)))
	if crowded(wp, pts, i, r) {
		alt := m.Add(u.Perp().Scale(-side * (r + 0.1)))
		if !crowded(alt, pts, i, r) {
			side, wp = -side, alt
		}
	}
	w.avoidSide, w.avoidAt, w.avoidTime = side, at, w.now
	return wp
}

// avoidPoints fills w.avoidPts with the robots to keep clear of, in the
// robot frame: the teammates whose recent messages carry a pose, and
// perception's obstacles when so configured.
func (w *world) avoidPoints() []hal.Vec2 {
	n := 0
	for i := range min(w.mates.N, msg.MaxTeammates) {
		mt := &w.mates.Mates[i]
		if !mt.Msg.PoseValid || w.now-mt.Received > w.cfg.Team.MateAge.D() {
			continue
		}
		w.avoidPts[n] = w.pose.Pose.Local(w.matePos(mt))
		n++
	}
	if w.cfg.Walk.AvoidObstacles {
		for i := range min(max(w.obstacles.N, 0), msg.MaxObstacles) {
			w.avoidPts[n] = w.obstacles.Obs[i].Pos
			n++
		}
	}
	return w.avoidPts[:n]
}

// pathBlocker returns the nearest of pts (along the path) that lies in the
// way from the robot to rel (at distance d): ahead of the robot, no more
// than avoidLookahead along and more than near before the target, and
// within r of the straight path. It returns its index (−1: none), position
// and lateral offset (positive: left of the path).
func pathBlocker(rel hal.Vec2, d, r, near float64, pts []hal.Vec2) (int, hal.Vec2, float64) {
	u := rel.Scale(1 / d)
	best, bestAlong := -1, math.Inf(1)
	var bestM hal.Vec2
	var bestLat float64
	for i, m := range pts {
		along := m.Dot(u)
		lat := u.Cross(m)
		if along <= 0 || along >= d-near || along > avoidLookahead || math.Abs(lat) >= r {
			continue
		}
		if along < bestAlong {
			best, bestAlong, bestM, bestLat = i, along, m, lat
		}
	}
	return best, bestM, bestLat
}

// passSide returns the side to pass a blocker on at lateral offset lat
// (+1 left, −1 right): away from it, or prev (if not 0) unless the blocker
// lies more than hyst off the path on prev's side.
func passSide(lat, prev, hyst float64) float64 {
	if prev != 0 && prev*lat <= hyst {
		return prev
	}
	if lat < 0 {
		return 1
	}
	return -1
}

// crowded reports whether p is within r of a point of pts other than
// pts[skip].
func crowded(p hal.Vec2, pts []hal.Vec2, skip int, r float64) bool {
	for i, q := range pts {
		if i != skip && p.Dist(q) < r {
			return true
		}
	}
	return false
}

// Where the kick aims: into the opponent goal, aimDepth behind its line
// (so that a ball on the line is still kicked in, not walked round), at
// the ball's own y within aimWidth of the centre (so that a ball in front
// of the goal is shot straight in, not lined up on the centre first).
const (
	aimDepth = 0.5
	aimWidth = 0.45
)

// opponentGoal is the kick target.
func (w *world) opponentGoal() hal.Vec2 {
	return hal.Vec2{X: 4.5 + aimDepth, Y: clamp(w.ballField.Y, -aimWidth, aimWidth)}
}

// kickDirection returns the field direction from the ball to the goal.
func (w *world) kickDirection() float64 {
	return w.opponentGoal().Sub(w.ballField).Angle()
}

// kickable returns the foot to kick with when the ball is in reach and the
// robot faces the kick's direction closely enough.
func (w *world) kickable() (msg.Foot, bool) {
	k := &w.cfg.Kick
	if !k.Enabled || !w.ballOwn || w.ball.SinceSeen > time.Second || !w.pose.Valid {
		return 0, false
	}
	b := w.ballRel
	if b.X < k.Reach.X || b.X > k.Reach.Y {
		return 0, false
	}
	if math.Abs(wrap(w.kickDirection()-float64(w.pose.Pose.Heading))) > float64(k.MaxAngle) {
		return 0, false
	}
	switch {
	case math.Abs(b.Y-k.FootOffset) <= k.MaxOffset:
		return msg.LeftFoot, true
	case math.Abs(b.Y+k.FootOffset) <= k.MaxOffset:
		return msg.RightFoot, true
	}
	return 0, false
}

// kickTarget is where the fine alignment puts the ball ahead of the
// robot: the middle of the reach.
func (k *KickConfig) kickTarget() float64 { return (k.Reach.X + k.Reach.Y) / 2 }

// approach walks to the ball and lines up behind it for a kick towards
// the goal. It goes round the ball when on its wrong side and aligns from
// the ball's relative position at the end.
func (w *world) approach() bt.Status {
	head := lookAt(w.ballRel, w.cfg.Walk.CameraHeight)
	k := &w.cfg.Kick
	if !w.pose.Valid {
		// No pose: go for the ball as seen.
		w.walkRel(w.ballRel, 0, false, false, head)
		return bt.Running
	}
	dir := w.kickDirection()
	u := hal.Vec2{X: math.Cos(dir), Y: math.Sin(dir)}
	perp := u.Perp()
	behind := w.ballField.Sub(u.Scale(k.Behind))
	me := w.here()
	toMe := me.Sub(w.ballField)
	dBall := toMe.Len()
	front := toMe.Dot(u) // > 0: between the ball and the goal
	lat := toMe.Dot(perp)
	switch {
	case front > -0.05 && dBall < 0.8:
		w.walkTo(w.roundBall(u, lat), dir, false, 0.1, head)
	case me.Sub(behind).Len() > 0.35 || !w.ballOwn:
		w.walkTo(behind, dir, me.Sub(behind).Len() < w.cfg.Walk.FaceDistance, 0.05, head)
	default:
		// Fine alignment on the ball as seen: the ball in front of the
		// nearer foot, the robot facing the kick's direction.
		foot := k.FootOffset
		if w.ballRel.Y < 0 {
			foot = -foot
		}
		want := hal.Vec2{X: k.kickTarget(), Y: foot}
		e := w.ballRel.Sub(want)
		herr := wrap(dir - float64(w.pose.Pose.Heading))
		c := &w.cfg.Walk
		w.req = msg.MotionRequest{Kind: msg.MotionWalk, Head: head, Walk: msg.WalkRequest{
			Forward: hal.MetresPerSec(clamp(1.2*e.X, -0.08, 0.12)),
			Left:    hal.MetresPerSec(clamp(1.5*e.Y, -c.SideSpeed, c.SideSpeed)),
			Turn:    hal.RadPerSec(clamp(c.TurnGain*herr, -0.5, 0.5)),
		}}
	}
	return bt.Running
}

// roundBall returns the waypoint for going round the ball to its side
// away from the kick's direction u: beside it on the side the robot is on
// (lat, its offset across u), or on the other side when the robot's side
// goes through a goal and the other does not.
func (w *world) roundBall(u hal.Vec2, lat float64) hal.Vec2 {
	side := 1.0
	if lat < 0 {
		side = -1
	}
	at := func(side float64) hal.Vec2 { return w.ballField.Add(u.Perp().Scale(side * 0.45).Add(u.Scale(-0.15))) }
	wp := at(side)
	if alt := at(-side); w.inGoal(wp) && !w.inGoal(alt) {
		return alt
	}
	return wp
}

// inGoal reports whether p lies within GoalClearance of a goal's
// footprint (field.Dimensions.Goals): outOfGoals would move it.
func (w *world) inGoal(p hal.Vec2) bool { return w.outOfGoals(p) != p }

// outOfGoals returns target, or, when it lies within GoalClearance of a
// goal's footprint, the nearest point on the edge of that clearance: a
// robot cannot stand in a goal (its net and posts are solid), and one
// that tries falls over them.
func (w *world) outOfGoals(target hal.Vec2) hal.Vec2 {
	m := w.cfg.Walk.GoalClearance
	if m <= 0 {
		return target
	}
	for _, g := range field.SPL().Goals() {
		r := g.Grow(m)
		if !r.Contains(target) {
			continue
		}
		// The nearest of the four edges.
		out := [4]float64{target.X - r.Min.X, r.Max.X - target.X, target.Y - r.Min.Y, r.Max.Y - target.Y}
		k := 0
		for i := 1; i < 4; i++ {
			if out[i] < out[k] {
				k = i
			}
		}
		switch k {
		case 0:
			target.X = r.Min.X
		case 1:
			target.X = r.Max.X
		case 2:
			target.Y = r.Min.Y
		default:
			target.Y = r.Max.Y
		}
		return target
	}
	return target
}

// yieldHysteresis widens YieldDistance while the striker yields, so that
// noise in the opponent's position does not switch it every tick.
const yieldHysteresis = 0.15

// opponentAtBall reports whether the striker should yield the ball: a
// perceived opponent (seen within the last second) is within
// YieldDistance of the ball and nearer to it than the robot by more than
// YieldMargin, and the robot cannot kick.
func (w *world) opponentAtBall() bool {
	k := &w.cfg.Kick
	if k.YieldDistance <= 0 || !w.ballKnown {
		w.yielding = false
		return false
	}
	if _, ok := w.kickable(); ok {
		w.yielding = false
		return false
	}
	near := k.YieldDistance
	if w.yielding {
		near += yieldHysteresis
	}
	mine := w.ballRel.Len()
	yield := false
	for i := range min(max(w.obstacles.N, 0), msg.MaxObstacles) {
		o := &w.obstacles.Obs[i]
		if o.Team != 1 || o.SinceSeen > time.Second {
			continue
		}
		if d := o.Pos.Dist(w.ballRel); d < near && d+k.YieldMargin < mine {
			yield = true
			break
		}
	}
	w.yielding = yield
	return yield
}

// block stands BlockDistance from the ball on the line from the ball to
// the own goal, facing the ball: in the way of a kick by the opponent at
// the ball, and ready to take the ball when it comes loose.
func (w *world) block() bt.Status {
	g := hal.Vec2{X: -4.5}
	d := g.Sub(w.ballField)
	n := d.Len()
	p := w.here()
	if n > 1e-6 {
		p = w.ballField.Add(d.Scale(min(w.cfg.Kick.BlockDistance, n) / n))
	}
	h := math.Atan2(w.ballField.Y-p.Y, w.ballField.X-p.X)
	w.walkTo(p, h, true, 0.15, w.lookAtBall())
	return bt.Running
}

// kick is the kick action: it asks motion for a kick until motion has run
// one, or gives up after the configured timeout.
type kick struct {
	start time.Duration
	began bool
	foot  msg.Foot
}

func (k *kick) node() *bt.Action[world] {
	a := bt.Do("kick", k.step)
	a.Start = func(w *world) {
		k.start, k.began = w.now, false
		k.foot, _ = w.kickable()
	}
	return a
}

func (k *kick) step(w *world) bt.Status {
	if w.motion.Active == msg.MotionKick {
		k.began = true
	} else if k.began {
		return bt.Success
	}
	if w.now-k.start > w.cfg.Kick.Timeout.D() {
		return bt.Failure
	}
	// Straight ahead: the robot faces the target within max_angle, and
	// motion's kick turned by a few degrees sends the ball a third as far
	// (physics mode: 3.0 m straight, 1.2–1.3 m or none turned by ±0.05
	// rad, ball 0.19 m ahead of either foot).
	w.req = msg.MotionRequest{Kind: msg.MotionKick, Kick: msg.KickRequest{Foot: k.foot},
		Head: lookAt(w.ballRel, w.cfg.Walk.CameraHeight)}
	return bt.Running
}

// keepClear returns target, a place to stand (not the ball), moved out of
// the teammates' way: it keeps Walk.KeepClear from every teammate's
// reported position, and from the search target of every searching
// teammate with the better claim to it (nearer its target than this robot
// is to target, or as near, within 0.1 m, with a lower player number).
// A target too near one such point is moved away from it, along the line
// from it to the target (from it to the robot when they coincide); when
// that is too near another, the nearest clear point on rings around the
// target (every 0.15 m, 16 directions, out to 2 m) is taken.
func (w *world) keepClear(target hal.Vec2) hal.Vec2 {
	k := w.cfg.Walk.KeepClear
	if k <= 0 || !w.pose.Valid {
		return target
	}
	me := w.here()
	mine := target.Dist(me)
	spots := w.clearPts[:0]
	for i := range min(w.mates.N, msg.MaxTeammates) {
		mt := &w.mates.Mates[i]
		if !mt.Msg.PoseValid || mt.Msg.Penalised || w.now-mt.Received > w.cfg.Team.MateAge.D() {
			continue
		}
		spots = append(spots, w.matePos(mt))
		if mt.Msg.Searching && mt.Msg.TargetValid {
			theirs := mt.Msg.Target.Dist(mt.Msg.Pose.Pos())
			if theirs < mine-0.1 || math.Abs(theirs-mine) <= 0.1 && int(mt.Msg.Player) < w.cfg.Player {
				spots = append(spots, mt.Msg.Target)
			}
		}
	}
	if clearOf(target, spots, k) {
		return target
	}
	best, bestD := target, math.Inf(1)
	for _, p := range spots {
		if c := awayFrom(target, p, me, k); target.Dist(p) < k && clearOf(c, spots, k*(1-1e-9)) && c.Dist(target) < bestD {
			best, bestD = c, c.Dist(target)
		}
	}
	if !math.IsInf(bestD, 1) {
		return best
	}
	for r := 0.15; r <= 2; r += 0.15 {
		for a := range 16 {
			s, c := math.Sincos(float64(a) * math.Pi / 8)
			p := target.Add(hal.Vec2{X: r * c, Y: r * s})
			if clearOf(p, spots, k) && (math.IsInf(bestD, 1) || p.Dist(me) < best.Dist(me)) {
				best, bestD = p, r
			}
		}
		if !math.IsInf(bestD, 1) {
			return best
		}
	}
	return target
}

// matePos returns where teammate mt is likely to be now: its reported
// position, moved on towards its search target (when it searches) at the
// walk speed for the message's age, no farther than the target. Team
// messages come at most once a second, and a teammate walks a quarter
// of a metre in that time.
func (w *world) matePos(mt *msg.Teammate) hal.Vec2 {
	p := mt.Msg.Pose.Pos()
	if !mt.Msg.Searching || !mt.Msg.TargetValid {
		return p
	}
	d := mt.Msg.Target.Sub(p)
	n := d.Len()
	step := min(n, w.cfg.Walk.Speed*max(w.now-mt.Received, 0).Seconds())
	if n < 1e-6 || step <= 0 {
		return p
	}
	return p.Add(d.Scale(step / n))
}

// clearOf reports whether p is at least k from every point of pts.
func clearOf(p hal.Vec2, pts []hal.Vec2, k float64) bool {
	for _, q := range pts {
		if p.Dist(q) < k {
			return false
		}
	}
	return true
}

// awayFrom returns the point at distance k from p in the direction of
// target (of from, when target is on p; +x when both are).
func awayFrom(target, p, from hal.Vec2, k float64) hal.Vec2 {
	d := target.Sub(p)
	if d.Len() < 1e-3 {
		d = from.Sub(p)
	}
	if d.Len() < 1e-3 {
		d = hal.Vec2{X: 1}
	}
	return p.Add(d.Scale(k / d.Len()))
}

// giveWay drops from the walk request the part towards any teammate
// nearer than Walk.Personal (where it is likely to be, matePos), and,
// while the robot searches (no ball to contest), towards any robot
// perception has seen that near, so that two robots do not walk into
// each other whatever their paths.
func (w *world) giveWay() {
	r := w.cfg.Walk.Personal
	if r <= 0 || !w.pose.Valid || w.req.Kind != msg.MotionWalk {
		return
	}
	v := hal.Vec2{X: float64(w.req.Walk.Forward), Y: float64(w.req.Walk.Left)}
	away := func(m hal.Vec2) {
		d := m.Len()
		if d >= r || d < 1e-6 {
			return
		}
		u := m.Scale(1 / d)
		if toward := v.Dot(u); toward > 0 {
			v = v.Sub(u.Scale(toward))
		}
	}
	for i := range min(w.mates.N, msg.MaxTeammates) {
		mt := &w.mates.Mates[i]
		if !mt.Msg.PoseValid || mt.Msg.Penalised || w.now-mt.Received > w.cfg.Team.MateAge.D() {
			continue
		}
		away(w.pose.Pose.Local(w.matePos(mt)))
	}
	if w.searching && w.cfg.Walk.AvoidObstacles {
		for i := range min(max(w.obstacles.N, 0), msg.MaxObstacles) {
			away(w.obstacles.Obs[i].Pos)
		}
	}
	w.req.Walk.Forward, w.req.Walk.Left = hal.MetresPerSec(v.X), hal.MetresPerSec(v.Y)
}
