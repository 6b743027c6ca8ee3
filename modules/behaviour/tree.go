package behaviour

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/behaviour/bt"
	"github.com/robotd/robotd/msg"
)

// The behaviour tree:
//
//	behaviour (selector)
//	├─ disconnected: relax
//	├─ fallen: get up (or relax)
//	├─ penalised: stand still
//	├─ waiting (INITIAL, SET, FINISHED, STANDBY): stand, look at the ball
//	├─ ready: walk to the kick-off position
//	├─ keep off: the opponent's kick-off or set play (SPL rules: the
//	│  defending team stays outside the centre circle until the ball is
//	│  in play, and 0.75 m from the ball during the other team's set
//	│  play): wait off the ball, between it and the own goal
//	└─ play (selector by role)
//	   ├─ goalie:    defend the ball near the goal │ keep goal │ find ball
//	   ├─ striker:   kick │ block (an opponent has the ball) │ approach │ find ball
//	   ├─ defender:  position between ball and goal │ find ball
//	   └─ supporter: position beside and behind the ball │ find ball
//
// Every condition is checked again every tick (reactive selectors and
// sequences), so a fall, a penalty or a lost ball takes over at once and
// the action it replaces is halted.
func (m *Module) buildTree() bt.Node[world] {
	type W = world
	is := func(s msg.GameStateKind) func(*W) bool {
		return func(w *W) bool { return w.game.Source != msg.GameSourceNone && w.game.State == s }
	}
	role := func(r msg.Role) func(*W) bool { return func(w *W) bool { return w.role == r } }
	ballKnown := bt.If("ball known?", func(w *W) bool { return w.ballKnown })
	k := &kick{}

	relax := bt.Do("relax", func(w *W) bt.Status { w.req = msg.MotionRequest{Kind: msg.MotionRelax}; return bt.Running })
	getUp := bt.Do("get up", func(w *W) bt.Status {
		if w.cfg.GetUp {
			w.req = msg.MotionRequest{Kind: msg.MotionGetUp}
		} else {
			w.req = msg.MotionRequest{Kind: msg.MotionRelax}
		}
		return bt.Running
	})
	standStill := bt.Do("stand still", func(w *W) bt.Status {
		w.stand(msg.HeadRequest{Mode: msg.HeadHold})
		return bt.Running
	})
	watch := bt.Do("stand", func(w *W) bt.Status {
		if w.ballKnown {
			w.stand(w.lookAtBall())
		} else {
			w.stand(msg.HeadRequest{Mode: msg.HeadHold})
		}
		return bt.Running
	})
	kickOff := bt.Do("walk to kick-off position", func(w *W) bt.Status {
		p := kickOffPosition(w.role, w.cfg.Player, w.game.OurKickOff || w.game.Source != msg.GameSourceGameController)
		if w.walkTo(p, 0, true, 0.15, w.lookAtBall()) {
			return bt.Success
		}
		return bt.Running
	})
	// Positions relative to the ball, facing it.
	position := func(name string, at func(*W) hal.Vec2) *bt.Action[W] {
		return bt.Do(name, func(w *W) bt.Status {
			p := at(w)
			h := math.Atan2(w.ballField.Y-p.Y, w.ballField.X-p.X)
			w.walkTo(p, h, true, 0.25, w.lookAtBall())
			return bt.Running
		})
	}
	// Each role has its own FindBall nodes (a node has one parent); they
	// share the finder's state, so a search goes on across a role change.
	find := m.finder.node

	striker := bt.NewSequence("striker", bt.If("striker?", role(msg.RoleStriker)),
		bt.NewSelector("attack",
			bt.NewSequence("kick ball", ballKnown, bt.If("in reach?", func(w *W) bool { _, ok := w.kickable(); return ok }), k.node()),
			bt.NewSequence("yield", bt.If("opponent at ball?", (*W).opponentAtBall), bt.Do("block", (*W).block)),
			bt.NewSequence("go to ball", ballKnown, bt.Do("approach", (*W).approach)),
			find(),
		))
	goalie := bt.NewSequence("goalie", bt.If("goalie?", role(msg.RoleGoalie)),
		bt.NewSelector("keep goal",
			bt.NewSequence("clear ball", ballKnown, bt.If("ball near goal?", func(w *W) bool {
				return w.ballField.X < -3.2 && math.Abs(w.ballField.Y) < 1.5
			}), bt.Do("approach", (*W).approach)),
			bt.NewSequence("guard", ballKnown, position("guard goal", func(w *W) hal.Vec2 {
				return hal.Vec2{X: -4.2, Y: clamp(w.ballField.Y*0.3, -0.6, 0.6)}
			})),
			bt.Do("watch", func(w *W) bt.Status {
				w.walkTo(hal.Vec2{X: -4.2}, 0, true, 0.25, msg.HeadRequest{Mode: msg.HeadScan})
				return bt.Running
			}),
		))
	defender := bt.NewSequence("defender", bt.If("defender?", role(msg.RoleDefender)),
		bt.NewSelector("defend",
			bt.NewSequence("block", ballKnown, position("between ball and goal", func(w *W) hal.Vec2 {
				g := hal.Vec2{X: -4.5}
				p := g.Add(w.ballField.Sub(g).Scale(0.4))
				return hal.Vec2{X: clamp(p.X, -3.8, -1.0), Y: clamp(p.Y, -2, 2)}
			})),
			find(),
		))
	supporter := bt.NewSequence("supporter", bt.If("supporter?", func(w *W) bool {
		return w.role != msg.RoleGoalie && w.role != msg.RoleStriker && w.role != msg.RoleDefender
	}),
		bt.NewSelector("support",
			bt.NewSequence("support", ballKnown, position("beside the ball", func(w *W) hal.Vec2 {
				side := -1.0
				if w.ballField.Y < 0 {
					side = 1
				}
				return hal.Vec2{X: clamp(w.ballField.X-1.2, -3.5, 3.0), Y: clamp(w.ballField.Y+side*1.3, -2.7, 2.7)}
			})),
			find(),
		))

	return bt.NewSelector("behaviour",
		bt.NewSequence("disconnected", bt.If("disconnected?", func(w *W) bool { return !w.connected }), relax),
		bt.NewSequence("fallen", bt.If("fallen?", (*W).fallen), getUp),
		bt.NewSequence("penalised", bt.If("penalised?", func(w *W) bool { return w.game.Penalised }), standStill),
		bt.NewSequence("stopped", bt.If("stopped?", func(w *W) bool { return w.game.Stopped }), watch),
		bt.NewSequence("no game state", bt.If("no referee?", func(w *W) bool {
			return w.game.Source == msg.GameSourceNone && !w.cfg.PlayWithoutGameState
		}), standStill),
		bt.NewSequence("waiting", bt.If("not playing?", func(w *W) bool {
			return w.game.Source != msg.GameSourceNone && (w.game.State == msg.StateInitial || w.game.State == msg.StateSet ||
				w.game.State == msg.StateFinished || w.game.State == msg.StateStandby)
		}), watch),
		bt.NewSequence("ready", bt.If("ready?", is(msg.StateReady)), kickOff),
		bt.NewSequence("blind", bt.If("no camera?", func(w *W) bool { return !m.hasVision }), standStill),
		bt.NewSequence("keep off", bt.If("their kick?", (*W).keepOff), position("wait off the ball", func(w *W) hal.Vec2 {
			g := hal.Vec2{X: -4.5}
			d := g.Sub(w.ballField)
			n := math.Hypot(d.X, d.Y)
			if n < 1e-6 {
				return w.here()
			}
			return w.ballField.Add(d.Scale(keepOffTarget / n))
		})),
		bt.NewSelector("play", goalie, striker, defender, supporter),
	)
}

// Keeping off the ball during the other team's kick-off or set play: a
// robot nearer the ball than keepOffNear walks to keepOffTarget from it
// (the SPL's centre circle has a radius of 0.75 m, and a set play keeps
// the other team 0.75 m away).
const (
	keepOffNear   = 1.0
	keepOffTarget = 1.15
)

// keepOff reports whether the robot must keep off the ball: the
// GameController says the other team kicks off (its secondary time runs
// in PLAYING) or takes a set play, and the robot is near the ball.
func (w *world) keepOff() bool {
	g := &w.game
	if g.Source != msg.GameSourceGameController || g.State != msg.StatePlaying || g.OurKickOff || !w.ballKnown {
		return false
	}
	if g.SetPlay == 0 && g.Secondary <= 0 {
		return false
	}
	d := w.ballField.Sub(w.here())
	return math.Hypot(d.X, d.Y) < keepOffNear
}

// kickOffPosition is where a role stands at kick-off (our half); the
// striker stands at the centre circle when we kick off, else outside it.
func kickOffPosition(r msg.Role, player int, ours bool) hal.Vec2 {
	switch r {
	case msg.RoleGoalie:
		return hal.Vec2{X: -4.2}
	case msg.RoleStriker:
		if !ours {
			return hal.Vec2{X: -1.0}
		}
		return hal.Vec2{X: -0.6}
	case msg.RoleDefender:
		return hal.Vec2{X: -3.0}
	}
	y := 1.5
	if player%2 == 1 {
		y = -1.5
	}
	return hal.Vec2{X: -1.5, Y: y}
}
