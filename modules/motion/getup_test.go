package motion

import (
	"reflect"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Lying poses as the physics mode measured them (degrees in the comments).
var (
	faceDown     = hal.BodyAngles{Pitch: 1.45}               // pitch 83°
	faceUp       = hal.BodyAngles{Pitch: -1.45}              // pitch -83°
	onLeftSide   = hal.BodyAngles{Roll: -1.48, Pitch: 0.02}  // roll -85°
	onRightSide  = hal.BodyAngles{Roll: 1.48, Pitch: -0.02}  // roll 85°
	downHeadLow  = hal.BodyAngles{Pitch: 1.44, Roll: -3.14}  // pitch 82.6°, roll -179.9°: face down, hips above the head
	upHeadLow    = hal.BodyAngles{Pitch: -1.40, Roll: 3.10}  // the same face up
	leaningFront = hal.BodyAngles{Pitch: 0.90, Roll: 0.30}   // 52° forward, 17° right: against another robot
	leaningSide  = hal.BodyAngles{Pitch: 0.35, Roll: -1.00}  // 20° forward, 57° left: against another robot
	halfSide     = hal.BodyAngles{Pitch: -1.05, Roll: -1.45} // pitch -60°, roll -83°: mostly on the back
	sideFaceDown = hal.BodyAngles{Pitch: 0.97, Roll: -2.53}  // pitch 56°, roll -145°: rolled onto the front
	level        = hal.BodyAngles{}                          // no tilt at all
)

// TestLyingPose: the get-up is chosen by which of the torso's axes is
// nearest the vertical, not by the sizes of the roll and pitch (which
// call a face-down robot with its head low a side fall).
func TestLyingPose(t *testing.T) {
	tests := []struct {
		name   string
		fall   msg.Fall
		angles hal.BodyAngles
		want   lying
	}{
		{"face down", msg.FallenFront, faceDown, lyingFront},
		{"face up", msg.FallenBack, faceUp, lyingBack},
		{"left side", msg.FallenLeft, onLeftSide, lyingLeft},
		{"right side", msg.FallenRight, onRightSide, lyingRight},
		{"face down, head low (perception: fallen-left)", msg.FallenLeft, downHeadLow, lyingFront},
		{"face up, head low (perception: fallen-right)", msg.FallenRight, upHeadLow, lyingBack},
		{"rolled from the left side onto the front", msg.FallenLeft, sideFaceDown, lyingFront},
		{"landing on the back from a side fall", msg.FallenLeft, halfSide, lyingBack},
		{"leaning forward against a robot", msg.FallenFront, leaningFront, lyingFront},
		{"leaning left against a robot", msg.FallenLeft, leaningSide, lyingLeft},
		{"no tilt, fallen-left: the fall decides", msg.FallenLeft, level, lyingLeft},
		{"no tilt, fallen-right", msg.FallenRight, level, lyingRight},
		{"no tilt, fallen-back", msg.FallenBack, level, lyingBack},
		{"no tilt, fallen-front", msg.FallenFront, level, lyingFront},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := lyingPose(tc.fall, tc.angles); got != tc.want {
				t.Errorf("lyingPose(%v, %+v) = %v, want %v", tc.fall, tc.angles, got, tc.want)
			}
		})
	}
}

// TestGetUpChoice: the module starts the get-up of the lying pose, from
// perception's body state or, without perception, from the body angles;
// from a side it rolls (getup_side.kf, mirrored for the right side).
func TestGetUpChoice(t *testing.T) {
	front, _ := Action("getup_front.kf")
	back, _ := Action("getup_back.kf")
	side, err := Action("getup_side.kf")
	if err != nil {
		t.Fatal(err)
	}
	sideR := side.Mirror("right")
	tests := []struct {
		name   string
		opt    harnessOpt
		fall   msg.Fall
		angles hal.BodyAngles
		want   *Keyframes
	}{
		{"front", harnessOpt{}, msg.FallenFront, faceDown, front},
		{"back", harnessOpt{}, msg.FallenBack, faceUp, back},
		{"left side", harnessOpt{}, msg.FallenLeft, onLeftSide, side},
		{"right side", harnessOpt{}, msg.FallenRight, onRightSide, sideR},
		{"fallen-left, face down with the head low", harnessOpt{}, msg.FallenLeft, downHeadLow, front},
		{"fallen-right, face up with the head low", harnessOpt{}, msg.FallenRight, upHeadLow, back},
		{"left side from the body angles (no perception)", harnessOpt{noBody: true, angles: true}, msg.Upright, onLeftSide, side},
		{"right side from the body angles (no perception)", harnessOpt{noBody: true, angles: true}, msg.Upright, onRightSide, sideR},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.opt)
			h.req = msg.MotionRequest{Kind: msg.MotionStand}
			h.until(200, "standing", func() bool { return h.state.Settled })
			h.body = msg.BodyState{Fall: tc.fall, Angles: tc.angles, Connected: true}
			h.angles = tc.angles
			h.req = msg.MotionRequest{Kind: msg.MotionGetUp}
			for range 10 {
				h.step()
			}
			if h.state.Active != msg.MotionGetUp {
				t.Fatalf("state %+v", h.state)
			}
			if got := h.m.player.kf; !reflect.DeepEqual(got.Frames, tc.want.Frames) {
				t.Fatalf("playing %s, want %s", got.Name, tc.want.Name)
			}
		})
	}
}

// getUpOutcome is how a fake robot lies when a get-up ends: as body, and
// if that is upright, it falls again (to how it lay before) after upFor.
type getUpOutcome struct {
	fall   msg.Fall
	angles hal.BodyAngles
	upFor  time.Duration
}

// TestGiveUpAfterFailedGetUps: motion counts the get-ups in a row that
// leave the robot lying or upright for less than get_up.stable_time (a
// roll from a side counts only if the robot still lies on a side), and
// after get_up.max_tries of them it lies relaxed and says it needs help,
// starting no more get-ups.
func TestGiveUpAfterFailedGetUps(t *testing.T) {
	const forever = time.Hour
	down := getUpOutcome{fall: msg.FallenFront, angles: faceDown}
	tests := []struct {
		name     string
		maxTries int
		start    getUpOutcome   // how it lies first
		outcomes []getUpOutcome // after each get-up; the last repeats
		// wantStarts is how many get-ups start before it asks for help
		// (within 60 s); 0: it never asks.
		wantStarts int
	}{
		{"stays face down", 3, down, []getUpOutcome{down}, 3},
		{"max_tries 1", 1, down, []getUpOutcome{down}, 1},
		{"max_tries 5", 5, down, []getUpOutcome{down}, 5},
		{"stands and falls again at once", 3, down, []getUpOutcome{{fall: msg.Upright, upFor: 500 * time.Millisecond}}, 3},
		{"stands for longer than stable_time between falls", 3, down, []getUpOutcome{{fall: msg.Upright, upFor: 1500 * time.Millisecond}}, 0},
		{"two failures, then one that stands, then two more", 3, down, []getUpOutcome{down, down, {fall: msg.Upright, upFor: 2 * time.Second}, down, down, {fall: msg.Upright, upFor: forever}}, 0},
		{"a roll that leaves it on its side", 3, getUpOutcome{fall: msg.FallenLeft, angles: onLeftSide}, []getUpOutcome{{fall: msg.FallenLeft, angles: onLeftSide}}, 3},
		{"a roll onto the front, then front get-ups that fail", 3, getUpOutcome{fall: msg.FallenRight, angles: onRightSide}, []getUpOutcome{{fall: msg.FallenFront, angles: faceDown}}, 4},
		{"a roll onto the front, then up", 3, getUpOutcome{fall: msg.FallenRight, angles: onRightSide}, []getUpOutcome{{fall: msg.FallenFront, angles: faceDown}, {fall: msg.Upright, upFor: forever}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.GetUp.MaxTries = tc.maxTries
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, harnessOpt{cfg: &cfg})
			h.req = msg.MotionRequest{Kind: msg.MotionStand}
			h.until(200, "standing", func() bool { return h.state.Settled })
			lie := func(o getUpOutcome) { h.body = msg.BodyState{Fall: o.fall, Angles: o.angles, Connected: true} }
			lie(tc.start)
			h.req = msg.MotionRequest{Kind: msg.MotionGetUp}
			// The outcome shows while the get-up's last keyframe plays, so
			// that motion finds the robot so when the get-up ends.
			starts, applied := 0, 0
			var fallAt, upFor time.Duration
			was := h.state.Active
			for range 6000 {
				if fallAt != 0 && h.tick.Time >= fallAt {
					lie(tc.start)
					fallAt = 0
				}
				h.step()
				if h.state.Active == msg.MotionGetUp && was != msg.MotionGetUp {
					starts++
				}
				if h.state.Active != msg.MotionGetUp && was == msg.MotionGetUp && upFor != 0 {
					fallAt, upFor = h.tick.Time+upFor, 0 // upright for upFor from the get-up's end
				}
				was = h.state.Active
				if h.state.NeedsHelp {
					break
				}
				if f, _ := h.m.player.Progress(); h.state.Active == msg.MotionGetUp && f == len(h.m.player.kf.Frames)-1 && applied < starts {
					o := tc.outcomes[min(applied, len(tc.outcomes)-1)]
					applied++
					lie(o)
					if o.fall == msg.Upright && o.upFor < forever {
						upFor = o.upFor
					}
				}
			}
			if tc.wantStarts == 0 {
				if h.state.NeedsHelp {
					t.Fatalf("asked for help after %d get-ups", starts)
				}
				return
			}
			if !h.state.NeedsHelp || starts != tc.wantStarts {
				t.Fatalf("needs help %v after %d get-ups; want true after %d", h.state.NeedsHelp, starts, tc.wantStarts)
			}
			// Given up: relaxed, and no get-up starts however long it lies.
			for range 1000 {
				h.step()
				if h.state.Active != msg.MotionRelax || !h.state.NeedsHelp {
					t.Fatalf("after giving up: %+v", h.state)
				}
			}
			for j, s := range h.cmd.Stiffness {
				if s != 0 {
					t.Fatalf("after giving up: %v stiffness %v", hal.Joint(j), s)
				}
			}
		})
	}
}

// TestTryAgainAfterHelp: a robot that gave up tries again once it is
// upright again, after a penalty (the GameController's or safety's chest
// button one) ends, or when its chest button is pressed; not while it
// only stays penalised or lies.
func TestTryAgainAfterHelp(t *testing.T) {
	tests := []struct {
		name string
		// help, then act changes the world at tick 0 and 100.
		act func(h *harness, game *msg.GameControl, sf *msg.Safety, btns *hal.Buttons, tick int)
	}{
		{"picked up", func(h *harness, _ *msg.GameControl, _ *msg.Safety, _ *hal.Buttons, tick int) {
			if tick == 100 {
				h.body = msg.BodyState{Connected: true}
			}
		}},
		{"penalised and unpenalised by the GameController", func(_ *harness, g *msg.GameControl, _ *msg.Safety, _ *hal.Buttons, tick int) {
			g.Penalised = tick < 100
		}},
		{"penalised and unpenalised with the chest button (safety)", func(_ *harness, _ *msg.GameControl, sf *msg.Safety, _ *hal.Buttons, tick int) {
			sf.Penalised = tick < 100
		}},
		{"chest button pressed", func(_ *harness, _ *msg.GameControl, _ *msg.Safety, b *hal.Buttons, tick int) {
			if tick >= 100 && tick < 110 {
				*b = 1 << hal.ChestButton
			} else {
				*b = 0
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var gameW *blackboard.Writer[msg.GameControl]
			var sfW *blackboard.Writer[msg.Safety]
			var btnW *blackboard.Writer[hal.Buttons]
			h := newHarness(t, harnessOpt{wire: func(b *blackboard.Board) {
				var err error
				if gameW, err = blackboard.Write(b, "gamecontroller", msg.GameControlKey); err != nil {
					t.Fatal(err)
				}
				if sfW, err = blackboard.Write(b, "safety", msg.SafetyKey); err != nil {
					t.Fatal(err)
				}
				if btnW, err = blackboard.Write(b, "hal", msg.ButtonsKey); err != nil {
					t.Fatal(err)
				}
			}})
			var game msg.GameControl
			var sf msg.Safety
			for j := range sf.StiffnessCap {
				sf.StiffnessCap[j] = 1
			}
			var btns hal.Buttons
			h.pre = func() {
				gameW.Set(game)
				sfW.Set(sf)
				btnW.Set(btns)
			}
			h.req = msg.MotionRequest{Kind: msg.MotionStand}
			h.until(200, "standing", func() bool { return h.state.Settled })
			h.body = msg.BodyState{Fall: msg.FallenFront, Angles: faceDown, Connected: true}
			h.req = msg.MotionRequest{Kind: msg.MotionGetUp}
			h.until(3000, "asking for help", func() bool { return h.state.NeedsHelp })
			for tick := range 300 {
				tc.act(h, &game, &sf, &btns, tick)
				h.step()
				if tick < 100 && !h.state.NeedsHelp {
					t.Fatalf("tick %d: tries again before anything happened: %+v", tick, h.state)
				}
			}
			if h.state.NeedsHelp {
				t.Fatalf("still asking for help: %+v", h.state)
			}
			if h.body.Fall != msg.Upright && h.state.Active != msg.MotionGetUp {
				t.Fatalf("lying and not getting up: %+v", h.state)
			}
		})
	}
}
