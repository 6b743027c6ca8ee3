package motion

import (
	"math"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// lying is how a fallen robot's torso lies; it chooses the get-up.
type lying uint8

// Lying poses.
const (
	lyingFront lying = iota // face down: getup_front.kf
	lyingBack               // face up: getup_back.kf
	lyingLeft               // on the left side: getup_side.kf rolls it onto its front
	lyingRight              // on the right side: getup_side.kf mirrored
	numLying
)

// String names the lying pose.
func (l lying) String() string {
	switch l {
	case lyingFront:
		return "front"
	case lyingBack:
		return "back"
	case lyingLeft:
		return "left"
	case lyingRight:
		return "right"
	}
	return "unknown"
}

// side reports whether the robot lies on a side.
func (l lying) side() bool { return l == lyingLeft || l == lyingRight }

// lyingPose says how the torso lies, from its roll and pitch: which of its
// axes is nearest the vertical. The "up" direction in the torso's frame
// is (-sin p, cos p·sin r, cos p·cos r) for pitch p and roll r (the
// hal.BodyAngles that backends/sim and perception's anglesFromAccel
// derive from it: pitch = atan2(-x, hypot(y, z)), roll = atan2(y, z)), so
// the side lies up by |cos p·sin r| and the front or back by |sin p|.
// This holds where the roll alone does not: a robot lying face down with
// its head lower than its hips has its pitch near 90° and its roll near
// ±180° (measured in the physics mode), which compares as a side fall by
// the angles' sizes (perception's Classify) but is a front one here.
//
// The fall state decides only when the angles cannot (both near 0: a
// robot leaning on something, or no angles at all): a side fall rolls
// onto the front, as do front falls; a back fall is the back's.
func lyingPose(f msg.Fall, a hal.BodyAngles) lying {
	p, r := float64(a.Pitch), float64(a.Roll)
	front := -math.Sin(p) // the torso's x axis against "up": < 0 face down
	left := math.Cos(p) * math.Sin(r)
	const undecided = 0.1 // about 6° either way
	switch {
	case math.IsNaN(front) || math.IsNaN(left) || max(math.Abs(front), math.Abs(left)) < undecided:
		switch f {
		case msg.FallenBack:
			return lyingBack
		case msg.FallenLeft:
			return lyingLeft
		case msg.FallenRight:
			return lyingRight
		}
		return lyingFront
	case math.Abs(left) > math.Abs(front):
		// The torso's y axis (its left) is nearest "up": lying on the
		// right side (roll > 0, as perception's FallenRight).
		if left > 0 {
			return lyingRight
		}
		return lyingLeft
	case front < 0:
		return lyingFront
	}
	return lyingBack
}

// tries is the get-ups' bookkeeping: what the last one started from,
// whether the robot must stay upright until a time for it to count as a
// success, how many failed in a row, and whether motion has given up.
type tries struct {
	from     lying
	watching bool
	until    time.Duration
	failed   int
	help     bool
	// penalised and chest are the last tick's penalty and chest button.
	penalised, chest bool
}

// start notes a get-up starting from l.
func (t *tries) start(l lying) { t.from, t.watching = l, false }

// ended judges a get-up that has just ended, with the robot lying as fall
// and l say: a roll from the side has failed if the robot still lies on a
// side; any other get-up has failed if the robot is not upright, and has
// succeeded if it stays upright for cfg.StableTime. It reports whether
// this failure made motion give up.
func (t *tries) ended(now time.Duration, cfg GetUpConfig, fall msg.Fall, l lying) bool {
	switch {
	case fall == msg.Upright:
		t.watching, t.until = true, now+cfg.StableTime.D()
		return false
	case t.from.side() && !l.side():
		return false // rolled off the side: the get-up that follows decides
	}
	return t.fail(cfg.MaxTries)
}

// watch ends the wait for a get-up's robot to stay upright: a fall before
// cfg.StableTime is over fails the get-up, and staying upright until then
// clears the failures. It reports whether a failure made motion give up.
func (t *tries) watch(now time.Duration, fall msg.Fall, maxTries int) bool {
	if !t.watching {
		return false
	}
	if fall != msg.Upright {
		t.watching = false
		return t.fail(maxTries)
	}
	if now >= t.until {
		t.watching, t.failed = false, 0
	}
	return false
}

// fail counts a failed get-up and gives up at maxTries in a row; it
// reports whether it gave up just now.
func (t *tries) fail(maxTries int) bool {
	t.failed++
	if t.failed >= maxTries && !t.help {
		t.help = true
		return true
	}
	return false
}

// retry clears a call for help (and the failures) once the robot is
// upright again (picked up and put on its feet), has been penalised and
// unpenalised (by the GameController or the chest button), or its chest
// button is pressed; it reports whether it did.
func (t *tries) retry(fall msg.Fall, penalised, chest bool) bool {
	unpenalised := t.penalised && !penalised
	pressed := chest && !t.chest
	t.penalised, t.chest = penalised, chest
	if !t.help || (fall != msg.Upright && !unpenalised && !pressed) {
		return false
	}
	*t = tries{penalised: penalised, chest: chest}
	return true
}

// retry applies tries.retry to this tick's fall, penalty and chest button.
func (m *Module) retry(fall msg.Fall) {
	pen := false
	if g, meta := m.game.Get(); meta.Valid() {
		pen = g.Penalised
	}
	if sf, meta := m.safety.Get(); meta.Valid() {
		pen = pen || sf.Penalised
	}
	chest := false
	if b, meta := m.btns.Get(); meta.Valid() {
		chest = b.Pressed(hal.ChestButton)
	}
	if m.tries.retry(fall, pen, chest) {
		m.log.Info("motion: trying to get up again", "fall", fall.String())
	}
}
