package match

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/robotd/robotd/proto/gamecontroller"
)

//go:embed assets/game.html
var gamePage []byte

// View is the whole game for a browser: both teams, the ball, the game
// state and the score, as of the referee's last look. A View is an
// http.Handler: "/" is the page, "/game.json" the game.
type View struct {
	mu   sync.Mutex
	snap Snapshot
	have bool
}

// Snapshot is the game at one look of the referee, in SimSpark's left
// side's frame.
type Snapshot struct {
	Game  string  `json:"game"`
	T     float64 `json:"t_s"`
	Phase string  `json:"phase"`
	Half  int     `json:"half"`
	// Remaining is the half's playing time left (s).
	Remaining float64 `json:"remaining_s"`
	// SetPlay is the set play being taken ("" for none) and Kicking the
	// team ("A" or "B") that kicks off or takes it.
	SetPlay string `json:"set_play"`
	Kicking string `json:"kicking"`
	// Score is team A's goals, then team B's; Left the team on the left
	// side (0 = A).
	Score     [2]int       `json:"score"`
	Left      int          `json:"left"`
	Ball      [2]float64   `json:"ball"`
	BallValid bool         `json:"ball_valid"`
	Robots    []RobotState `json:"robots"`
}

// RobotState is one robot on the page.
type RobotState struct {
	Team      int     `json:"team"` // 0 = A, 1 = B
	Player    int     `json:"player"`
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	Heading   float64 `json:"heading"`
	Fallen    bool    `json:"fallen"`
	Penalised bool    `json:"penalised"`
}

var setPlayNames = map[gamecontroller.SetPlay]string{gamecontroller.SetPlayKickIn: "kick-in",
	gamecontroller.SetPlayGoalKick: "goal kick", gamecontroller.SetPlayCornerKick: "corner kick"}

// update records the referee's look at t (called by the game's
// controller, once per look).
func (v *View) update(id string, t time.Duration, tr *Truth, ref *Referee, teamOf [2]int) {
	if v == nil {
		return
	}
	s := Snapshot{Game: id, T: t.Seconds(), Phase: ref.Phase().String(), Half: ref.Half(), Remaining: ref.remaining.Seconds(),
		SetPlay: setPlayNames[ref.setPlay], Kicking: string(rune('A' + teamOf[ref.kicking])), Left: teamOf[0],
		Ball: tr.Ball, BallValid: tr.BallValid}
	score := ref.Score()
	for side := range 2 {
		s.Score[teamOf[side]] = score[side]
		for i, r := range tr.Robots[side] {
			if r.Valid {
				s.Robots = append(s.Robots, RobotState{Team: teamOf[side], Player: i + 1, X: r.X, Y: r.Y, Heading: r.Heading,
					Fallen: r.Fallen, Penalised: ref.Penalised(side, i+1)})
			}
		}
	}
	v.mu.Lock()
	v.snap, v.have = s, true
	v.mu.Unlock()
}

// Snapshot returns the last look; ok is false before the first.
func (v *View) Snapshot() (Snapshot, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.snap, v.have
}

// ServeHTTP serves the page and the game.
func (v *View) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(gamePage)
	case "/game.json":
		s, ok := v.Snapshot()
		if !ok {
			http.Error(w, "no game yet", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(&s)
	default:
		http.NotFound(w, r)
	}
}
