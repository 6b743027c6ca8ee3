package match

import (
	"testing"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/proto/gamecontroller"
)

// playingReferee returns a referee of one robot a side that has reached
// PLAYING, and the time.
func playingReferee(t *testing.T) (*Referee, time.Duration) {
	t.Helper()
	cfg := DefaultRefereeConfig()
	r := NewReferee(cfg, 10*time.Minute, 1, 0)
	tr := Truth{BallValid: true, Robots: [2][]RobotTruth{{{X: -1, Valid: true}}, {{X: 1, Valid: true}}}}
	for tr.T = 0; r.Phase() != PhasePlaying; tr.T += cfg.Step.D() {
		r.Step(&tr)
		if tr.T > time.Minute {
			t.Fatalf("no PLAYING after a minute: %v", r.Phase())
		}
	}
	return r, tr.T
}

// TestRefereeBallOut places the ball over each line after each side's
// touch: a goal and the kick-off of the team that conceded, kick-ins,
// goal kicks and corner kicks where the SPL rules place the ball.
func TestRefereeBallOut(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ball    [2]float64
		toucher int
		score   [2]int
		phase   Phase
		setPlay gamecontroller.SetPlay
		kicking int
		placed  [2]float64
	}{
		{"goal right", [2]float64{4.6, 0.2}, 0, [2]int{1, 0}, PhaseReady, gamecontroller.SetPlayNone, 1, [2]float64{0, 0}},
		{"goal left", [2]float64{-4.7, -0.5}, 0, [2]int{0, 1}, PhaseReady, gamecontroller.SetPlayNone, 0, [2]float64{0, 0}},
		{"kick-in", [2]float64{1.2, 3.1}, 0, [2]int{}, PhasePlaying, gamecontroller.SetPlayKickIn, 1, [2]float64{1.2, 3}},
		{"kick-in other side", [2]float64{-2, -3.2}, 1, [2]int{}, PhasePlaying, gamecontroller.SetPlayKickIn, 0, [2]float64{-2, -3}},
		{"goal kick", [2]float64{4.6, 1.5}, 0, [2]int{}, PhasePlaying, gamecontroller.SetPlayGoalKick, 1, [2]float64{3.9, 1.1}},
		{"corner kick", [2]float64{4.6, -1.5}, 1, [2]int{}, PhasePlaying, gamecontroller.SetPlayCornerKick, 0, [2]float64{4.5, -3}},
		{"goal kick left", [2]float64{-4.6, -1.5}, 1, [2]int{}, PhasePlaying, gamecontroller.SetPlayGoalKick, 0, [2]float64{-3.9, -1.1}},
		{"corner kick left", [2]float64{-4.6, 2}, 0, [2]int{}, PhasePlaying, gamecontroller.SetPlayCornerKick, 1, [2]float64{-4.5, 3}},
		{"in play", [2]float64{4.5, 2.9}, 0, [2]int{}, PhasePlaying, gamecontroller.SetPlayNone, 0, [2]float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, now := playingReferee(t)
			tr := Truth{T: now, Ball: tc.ball, BallValid: true, Robots: [2][]RobotTruth{{{X: -1, Valid: true}}, {{X: 1, Valid: true}}},
				Touch: Touch{T: now - time.Second, Side: tc.toucher, Player: 1, Valid: true}}
			act := r.Step(&tr)
			if r.Score() != tc.score || r.Phase() != tc.phase {
				t.Fatalf("score %v phase %v, want %v %v", r.Score(), r.Phase(), tc.score, tc.phase)
			}
			d := r.Packet(now, [2]uint8{3, 4}, 0)
			if d.SetPlay != tc.setPlay {
				t.Errorf("set play %v, want %v", d.SetPlay, tc.setPlay)
			}
			if tc.setPlay != gamecontroller.SetPlayNone || tc.phase == PhaseReady {
				if d.KickingTeam != [2]uint8{3, 4}[tc.kicking] {
					t.Errorf("kicking team %d, want side %d's", d.KickingTeam, tc.kicking)
				}
				if !act.PlaceBall || act.Ball != tc.placed {
					t.Errorf("ball placed %v at %v, want at %v", act.PlaceBall, act.Ball, tc.placed)
				}
			} else if act.PlaceBall {
				t.Errorf("ball placed at %v in play", act.Ball)
			}
		})
	}
}

// TestRefereeSetPlayEnds ends a set play when its team touches the ball,
// or after its time.
func TestRefereeSetPlayEnds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		toucher int
		after   time.Duration
		ended   bool
	}{
		{"kicking team touches", 1, time.Second, true},
		{"other team touches", 0, time.Second, false},
		{"time up", 0, 31 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, now := playingReferee(t)
			tr := Truth{T: now, Ball: [2]float64{0, 3.2}, BallValid: true, Robots: [2][]RobotTruth{{{Valid: true}}, {{Valid: true}}},
				Touch: Touch{T: now - time.Second, Side: 0, Player: 1, Valid: true}}
			r.Step(&tr)
			tr.T += tc.after
			tr.Ball = [2]float64{0, 2.5}
			tr.Touch = Touch{T: tr.T, Side: tc.toucher, Player: 1, Valid: true}
			r.Step(&tr)
			if got := r.Packet(tr.T, [2]uint8{1, 2}, 0).SetPlay == gamecontroller.SetPlayNone; got != tc.ended {
				t.Errorf("set play ended %v, want %v", got, tc.ended)
			}
		})
	}
}

// TestRefereePenalties penalises a robot that leaves the field or lies
// too long, takes it off the field and brings it back after the penalty.
func TestRefereePenalties(t *testing.T) {
	for _, tc := range []struct {
		name  string
		robot RobotTruth
		lie   time.Duration
		kind  gamecontroller.Penalty
	}{
		{"leaving the field", RobotTruth{X: 1, Y: -3.5, Valid: true}, 0, gamecontroller.PenaltyLeavingTheField},
		{"leaving over the goal line", RobotTruth{X: -4.9, Y: 0, Valid: true}, 0, gamecontroller.PenaltyLeavingTheField},
		{"lying", RobotTruth{X: 1, Fallen: true, Valid: true}, 15 * time.Second, gamecontroller.PenaltyRequestForPickup},
		{"lying briefly", RobotTruth{X: 1, Fallen: true, Valid: true}, 10 * time.Second, gamecontroller.PenaltyNone},
		{"in the field", RobotTruth{X: 4.6, Y: 3.2, Valid: true}, 0, gamecontroller.PenaltyNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, now := playingReferee(t)
			tr := Truth{T: now, Ball: [2]float64{0, 1}, BallValid: true, Robots: [2][]RobotTruth{{{X: -1, Valid: true}}, {tc.robot}}}
			var moves []Move
			for end := now + tc.lie; tr.T <= end; tr.T += 100 * time.Millisecond {
				moves = append(moves, r.Step(&tr).Moves...)
			}
			got := r.Packet(tr.T, [2]uint8{1, 2}, 0).Teams[1].Players[0].Penalty
			if got != tc.kind {
				t.Fatalf("penalty %v, want %v", got, tc.kind)
			}
			if tc.kind == gamecontroller.PenaltyNone {
				return
			}
			// Out beside the side line away from the ball (the ball is at
			// +y), level with the right side's penalty mark.
			if len(moves) != 1 || moves[0].Side != 1 || moves[0].X != 3.2 || moves[0].Y > -3.3 {
				t.Fatalf("moves %+v, want the robot off the field at x 3.2, y < -3.3", moves)
			}
			if r.Stats().Penalties != [2]int{0, 1} {
				t.Errorf("penalties %v", r.Stats().Penalties)
			}
			// Where the robot waits (the truth still shows it there in the
			// look that brings it back).
			tr.Robots[1][0] = RobotTruth{X: 3.2, Y: -3.45, Valid: true}
			from := tr.T - 100*time.Millisecond
			var m []Move
			for ; len(m) == 0 && tr.T < from+time.Minute; tr.T += 100 * time.Millisecond {
				m = r.Step(&tr).Moves
			}
			if back := tr.T - 100*time.Millisecond - from; back != 45*time.Second {
				t.Errorf("back after %v, want 45 s", back)
			}
			if len(m) != 1 || m[0].Y != -3 || m[0].Deg != 90 || r.Penalised(1, 1) {
				t.Errorf("release moves %+v, penalised %v; want back on the side line facing in", m, r.Penalised(1, 1))
			}
			if m := r.Step(&tr).Moves; len(m) != 0 || r.Penalised(1, 1) {
				t.Errorf("penalised again at once: %+v", m)
			}
		})
	}
}

// TestRefereeHalves plays two halves: the clock runs in PLAYING only, the
// break between the halves, the other team kicking off the second half,
// the end.
func TestRefereeHalves(t *testing.T) {
	cfg := DefaultRefereeConfig()
	cfg.Initial, cfg.Ready, cfg.Set, cfg.HalfTime = config.Duration(time.Second), config.Duration(2*time.Second), config.Duration(time.Second), config.Duration(3*time.Second)
	r := NewReferee(cfg, 10*time.Second, 1, 1)
	tr := Truth{BallValid: true, Robots: [2][]RobotTruth{{{X: -1, Valid: true}}, {{X: 1, Valid: true}}}}
	type change struct {
		t     time.Duration
		phase Phase
		half  int
		kick  uint8
		state gamecontroller.State
	}
	var got []change
	last := Phase(255)
	for tr.T = 0; r.Phase() != PhaseOver && tr.T < time.Minute; tr.T += 100 * time.Millisecond {
		r.Step(&tr)
		if r.Phase() != last {
			last = r.Phase()
			d := r.Packet(tr.T, [2]uint8{5, 6}, 0)
			got = append(got, change{tr.T, last, r.Half(), d.KickingTeam, d.State})
		}
	}
	ms := time.Millisecond
	want := []change{
		{0, PhaseInitial, 1, 6, gamecontroller.StateInitial},
		{1000 * ms, PhaseReady, 1, 6, gamecontroller.StateReady},
		{3000 * ms, PhaseSet, 1, 6, gamecontroller.StateSet},
		{4000 * ms, PhasePlaying, 1, 6, gamecontroller.StatePlaying},
		{14000 * ms, PhaseHalfTime, 1, 6, gamecontroller.StateFinished},
		{17000 * ms, PhaseReady, 2, 5, gamecontroller.StateReady},
		{19000 * ms, PhaseSet, 2, 5, gamecontroller.StateSet},
		{20000 * ms, PhasePlaying, 2, 5, gamecontroller.StatePlaying},
		{30000 * ms, PhaseOver, 2, 5, gamecontroller.StateFinished},
	}
	if len(got) != len(want) {
		t.Fatalf("phases %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("change %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestRefereeKickOffSecondary counts the kick-off's ten seconds down in
// PLAYING until the ball is touched.
func TestRefereeKickOffSecondary(t *testing.T) {
	r, now := playingReferee(t)
	if d := r.Packet(now, [2]uint8{1, 2}, 0); d.SecondaryTime != 10 {
		t.Fatalf("secondary time %d at the kick-off, want 10", d.SecondaryTime)
	}
	tr := Truth{T: now + time.Second, BallValid: true, Robots: [2][]RobotTruth{{{Valid: true}}, {{Valid: true}}},
		Touch: Touch{T: now + 500*time.Millisecond, Side: 0, Player: 1, Valid: true}}
	r.Step(&tr)
	if d := r.Packet(tr.T, [2]uint8{1, 2}, 0); d.SecondaryTime != 0 {
		t.Errorf("secondary time %d after the touch, want 0", d.SecondaryTime)
	}
}

// TestRefereeCounts counts possession, a shot and a collision.
func TestRefereeCounts(t *testing.T) {
	r, now := playingReferee(t)
	step := 100 * time.Millisecond
	tr := Truth{T: now, Ball: [2]float64{2, 0}, BallValid: true,
		Robots: [2][]RobotTruth{{{X: 1.8, Valid: true}}, {{X: 3, Valid: true}}}}
	r.Step(&tr) // the ball jumps here: no kick
	tr.T += step
	r.Step(&tr)
	// Kicked by side 0 towards +x at 2 m/s; the right robot walks into
	// the left one.
	tr.T += step
	tr.Touch = Touch{T: tr.T - step, Side: 0, Player: 1, Valid: true}
	tr.Ball = [2]float64{2.2, 0.01}
	tr.Robots[1][0] = RobotTruth{X: 2.0, Valid: true}
	r.Step(&tr)
	st := r.Stats()
	if st.Shots != [2]int{1, 0} || st.Collisions != 1 || st.Possession != [2]time.Duration{2 * step, step} {
		t.Errorf("stats %+v, want a shot by the left side, a collision, possession 200 ms : 100 ms", st)
	}
}
