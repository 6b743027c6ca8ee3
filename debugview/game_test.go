package debugview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// fixedSource is a robot whose state never changes.
type fixedSource struct{ s State }

func (f *fixedSource) live() bool { return true }

func (f *fixedSource) state(uint64, bool) (*State, error) {
	s := f.s
	return &s, nil
}

// gameRobot is one robot of a game, in its team's own frame.
type gameRobot struct {
	team, player int
	name         string
	leftSide     bool
	pose         hal.Pose2
	ball         hal.Vec2 // the robot's ball estimate and the true ball
	gc           msg.GameControl
}

// state is the robot's state at 60 s, its entries made from robotd's
// own types as the live board gives them.
func (g *gameRobot) state() State {
	const tick, now = 6000, 60 * time.Second
	entry := func(writer string, v any) Entry {
		return Entry{Type: fmt.Sprintf("%T", v), Writer: writer, Tick: tick, TimeNS: int64(now), Value: toJSON(v)}
	}
	small3 := msg.Cov3{{0.01, 0, 0}, {0, 0.01, 0}, {0, 0, 0.01}}
	small2 := msg.Cov2{{0.01, 0}, {0, 0.01}}
	return State{Mode: "live", Tick: tick, TimeNS: int64(now), Entries: map[string]Entry{
		msg.RobotPoseKey.Name(): entry("perception", msg.RobotPose{Valid: true, Pose: g.pose, Cov: small3, Confidence: 0.9}),
		msg.BallKey.Name(): entry("perception", msg.Ball{Valid: true, Seen: true, FieldValid: true, FieldPos: g.ball,
			Pos: hal.Vec2{X: g.ball.X - float64(g.pose.X), Y: g.ball.Y - float64(g.pose.Y)}, Cov: small2}),
		msg.GroundTruthKey.Name(): entry("", hal.GroundTruth{Valid: true, Pose: g.pose, Ball: g.ball, BallValid: true}),
		msg.GameStateKey.Name():   entry("", hal.GameState{Phase: hal.PhasePlaying, LeftSide: g.leftSide}),
		msg.GameControlKey.Name(): entry("gamecontroller", g.gc),
	}}
}

// serve serves h on a loopback port until the test ends.
func serve(t *testing.T, h *Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutting down %s: %v", ln.Addr(), err)
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serving %s: %v", ln.Addr(), err)
		}
	})
	return ln.Addr().String()
}

// TestGamePageInChromium opens ?game= over four fake robots of two teams
// (2+2) in headless Chromium: the GameController's state is PLAYING in
// the second half, team 1 leads 2:1. The robots of team 2 defend the
// right goal (hal.game_state's LeftSide) and are listed first; one of
// them last heard the GameController 30 s ago (SET, first half, 0:0),
// which the bar must not show. The page must draw the four robots in two
// team colours (read back from the canvas) with team 2 turned into the
// view's frame, the true ball where both teams' ground truth puts it, and
// the bar with the teams, the score 2:1, PLAYING and half 2.
func TestGamePageInChromium(t *testing.T) {
	browser := chromiumPath(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	playing := func(own, opp uint8) msg.GameControl {
		return msg.GameControl{Source: msg.GameSourceGameController, State: msg.StatePlaying, FirstHalf: false,
			Remaining: 250 * time.Second, ScoreOwn: own, ScoreOpp: opp, Packets: 1200, LastPacket: 59800 * time.Millisecond}
	}
	stale := msg.GameControl{Source: msg.GameSourceGameController, State: msg.StateSet, FirstHalf: true,
		Remaining: 600 * time.Second, Packets: 300, LastPacket: 30 * time.Second}
	// The ball is at (1, 0.5) in team 1's frame, (-1, -0.5) in team 2's.
	robots := []gameRobot{
		{team: 2, player: 1, name: "Beta", pose: hal.Pose2{X: -3, Y: 0, Heading: 0}, ball: hal.Vec2{X: -1, Y: -0.5}, gc: playing(1, 2)},
		{team: 1, player: 1, name: "Alpha", leftSide: true, pose: hal.Pose2{X: -2, Y: 0.5, Heading: 0}, ball: hal.Vec2{X: 1, Y: 0.5}, gc: playing(2, 1)},
		{team: 2, player: 2, name: "Beta", pose: hal.Pose2{X: 0.5, Y: 1, Heading: math.Pi / 2}, ball: hal.Vec2{X: -1, Y: -0.5}, gc: stale},
		{team: 1, player: 2, name: "Alpha", leftSide: true, pose: hal.Pose2{X: 1.5, Y: -1.5, Heading: 0.5}, ball: hal.Vec2{X: 1, Y: 0.5}, gc: playing(2, 1)},
	}
	var eps []string
	for i := range robots {
		g := &robots[i]
		h := newHandler(&fixedSource{g.state()}, Options{Robot: Robot{Team: g.team, TeamName: g.name, Player: g.player, Build: "sim"}})
		eps = append(eps, serve(t, h))
	}
	page, err := New(blackboard.New(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pageAddr := serve(t, page)
	u := "http://" + pageAddr + "/?game=" + url.QueryEscape(strings.Join(eps, ","))
	cr, c := startChromium(ctx, t, browser, u)
	t.Logf("Chromium started in %v", time.Since(start).Round(time.Millisecond))

	type drawn struct {
		Endpoint   string
		Team       int
		Player     int
		Color      string
		X, Y, H    float64
		Cx, Cy     float64
		Penalised  bool
		Pixel      []int
		ColorBytes []int
	}
	type pageView struct {
		Robots int
		Conns  []struct {
			Endpoint string
			OK       bool
			Error    string
		}
		Drawn    []drawn
		Balls    int
		TrueBall *struct{ X, Y float64 }
		Teams    []struct {
			Team    int
			Colour  string
			Left    bool
			Players []int
		}
		Game *struct {
			State   string
			Half    int
			Score   string
			Stopped bool
			From    string
			Teams   []struct {
				Team   int
				Name   string
				Colour string
				Score  int
				Left   bool
			}
		}
		Bar struct {
			Hidden                     bool
			State, Score, Half         string
			ScoreText, StateText, Info string
			Left, Right                string
		}
		TeamsDrawn string
	}
	// The state of the page, with each drawn robot's pixel on the canvas
	// (at a point inside its disc) and its colour as bytes.
	const read = `(() => { const d = window.robotdDebug; if (!d || !d.drawn) return null;
		const c = document.getElementById('field'), g = c.getContext('2d'), k = c.width / c.clientWidth;
		const hex = (s) => [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16));
		const bar = document.getElementById('gamebar'), txt = (id) => document.getElementById(id).textContent;
		return JSON.stringify({robots: d.robotsDrawn, conns: d.robots, balls: d.ballsDrawn, trueBall: d.trueBall, teams: d.teams, game: d.game,
			drawn: d.drawn.map((r) => Object.assign({}, r, {pixel: Array.from(g.getImageData(Math.round(r.cx * k), Math.round(r.cy * k), 1, 1).data),
				colorBytes: hex(r.color)})),
			bar: {hidden: bar.hidden, state: bar.dataset.state, score: bar.dataset.score, half: bar.dataset.half,
				scoreText: txt('gb-score'), stateText: txt('gb-state'), info: txt('gb-info'), left: txt('gb-left'), right: txt('gb-right')},
			teamsDrawn: document.body.dataset.teamsDrawn}); })()`
	// wait waits until the page has read n robots and drawn them, and the
	// game bar.
	wait := func(n int) pageView {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			var s string
			if err := c.Eval(ctx, read, &s); err != nil {
				t.Fatal(err)
			}
			var v pageView
			if s != "" { // null before the page has loaded
				if err := json.Unmarshal([]byte(s), &v); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			ok := len(v.Conns) == n
			for _, cn := range v.Conns {
				ok = ok && cn.OK
			}
			if ok && v.Robots == n && v.Game != nil {
				return v
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 20 s the page shows %+v; want %d robots and the game\npage errors: %v", v, n, cr.Problems())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	seen := wait(4)
	t.Logf("page ready after %v", time.Since(start).Round(time.Millisecond))

	// Four robots, two teams, two colours, each robot's disc in its
	// team's colour on the canvas.
	colours := map[int]string{}
	for _, d := range seen.Drawn {
		if c, ok := colours[d.Team]; ok && c != d.Color {
			t.Errorf("team %d drawn in %s and %s", d.Team, c, d.Color)
		}
		colours[d.Team] = d.Color
		if len(d.Pixel) != 4 || len(d.ColorBytes) != 3 {
			t.Fatalf("robot %d/%d: pixel %v, colour %v", d.Team, d.Player, d.Pixel, d.ColorBytes)
		}
		for i := range 3 {
			if diff := d.Pixel[i] - d.ColorBytes[i]; diff < -8 || diff > 8 {
				t.Errorf("robot %d/%d: the canvas at its disc is rgb%v, want its team's colour %s", d.Team, d.Player, d.Pixel[:3], d.Color)
				break
			}
		}
	}
	if len(seen.Drawn) != 4 || len(colours) != 2 || colours[1] == colours[2] || seen.TeamsDrawn != "2" {
		t.Errorf("drawn %+v (teams drawn %q); want 4 robots of teams 1 and 2 in two colours", seen.Drawn, seen.TeamsDrawn)
	}
	// Team 1 as it says (the left side), team 2 turned by 180°.
	for i, g := range robots {
		x, y, h := float64(g.pose.X), float64(g.pose.Y), float64(g.pose.Heading)
		if g.team == 2 {
			x, y, h = -x, -y, h+math.Pi
		}
		k := slices.IndexFunc(seen.Drawn, func(d drawn) bool { return d.Endpoint == eps[i] })
		if k < 0 {
			t.Errorf("robot %d/%d (%s) not drawn", g.team, g.player, eps[i])
			continue
		}
		d := seen.Drawn[k]
		if d.Team != g.team || d.Player != g.player || math.Abs(d.X-x) > 1e-9 || math.Abs(d.Y-y) > 1e-9 || math.Abs(math.Remainder(d.H-h, 2*math.Pi)) > 1e-9 {
			t.Errorf("robot %d/%d drawn as %+v; want team %d player %d at (%g, %g) heading %g", g.team, g.player, d, g.team, g.player, x, y, h)
		}
	}
	if len(seen.Teams) != 2 || seen.Teams[0].Team != 2 || seen.Teams[0].Left || seen.Teams[1].Team != 1 || !seen.Teams[1].Left {
		t.Errorf("teams %+v; want team 2 (listed first) on the right, team 1 on the left", seen.Teams)
	}
	// Every robot's ball estimate, and the true ball where both teams put it.
	if seen.Balls != 4 || seen.TrueBall == nil || math.Abs(seen.TrueBall.X-1) > 1e-9 || math.Abs(seen.TrueBall.Y-0.5) > 1e-9 {
		t.Errorf("balls drawn %d, true ball %+v; want 4 and (1, 0.5)", seen.Balls, seen.TrueBall)
	}
	// The bar: the newest GameControl, team 1 (left) 2 : 1 team 2.
	g := seen.Game
	if g.State != "PLAYING" || g.Half != 2 || g.Score != "2:1" || g.Stopped || g.From == eps[2] {
		t.Errorf("game %+v; want PLAYING, half 2, 2:1, not stopped, not from the robot that heard the GameController last 30 s ago (%s)", g, eps[2])
	}
	if len(g.Teams) != 2 || g.Teams[0].Team != 1 || g.Teams[0].Score != 2 || g.Teams[0].Colour != colours[1] ||
		g.Teams[1].Team != 2 || g.Teams[1].Score != 1 || g.Teams[1].Colour != colours[2] {
		t.Errorf("the bar's teams %+v; want team 1 with 2 goals, then team 2 with 1, in their robots' colours", g.Teams)
	}
	b := seen.Bar
	if b.Hidden || b.State != "PLAYING" || b.Score != "2:1" || b.Half != "2" || b.ScoreText != "2 : 1" || b.StateText != "PLAYING" ||
		!strings.Contains(b.Info, "half 2") || !strings.Contains(b.Info, "4:10") || b.Left != "Alpha" || b.Right != "Beta" {
		t.Errorf("the bar shows %+v; want Alpha 2 : 1 Beta, PLAYING, half 2, 4:10 left", b)
	}

	// The readers behind ?game= and the bar.
	for _, tc := range []struct{ expr, want string }{
		{`endpointsOf("127.0.0.1:10101-10103, 2, self,[::1]:10201", true)`,
			`{"endpoints":["127.0.0.1:10101","127.0.0.1:10102","127.0.0.1:10103","self","[::1]:10201"],"teams":[2],"bad":[]}`},
		{`endpointsOf("h:10105-10101,h:1-100,7", false)`, `{"endpoints":["7"],"teams":[],"bad":["h:10105-10101","h:1-100"]}`},
		{`[seconds("4m10s"), seconds("1.5s"), seconds("-250ms"), seconds(2e9), seconds("x")]`, `[250,1.5,-0.25,2,null]`},
		{`[teamColour({FieldPlayerColour: 1}), teamColour({TeamColour: "yellow"}), teamColour({ScoreOwn: 2}) || null]`, `["#e5534b","#e3b341",null]`},
		{`[stateName("playing"), stateName(4), stateName(9)]`, `["PLAYING","FINISHED","?"]`},
	} {
		var got string
		if err := c.Eval(ctx, "JSON.stringify((() => { const {endpointsOf, seconds, teamColour, stateName} = robotdDebug.readers; return "+tc.expr+"; })())", &got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
	if p := cr.Problems(); len(p) > 0 {
		t.Errorf("the page reported errors:\n%s", strings.Join(p, "\n"))
	}
	// One team's robots: each in its own colour, in the team's own frame,
	// the opponent in the bar by the team's GameControl entry alone.
	one := "http://" + pageAddr + "/?robots=" + url.QueryEscape(eps[1]+","+eps[3])
	if err := c.Navigate(ctx, one); err != nil {
		t.Fatal(err)
	}
	solo := wait(2)
	if len(solo.Drawn) != 2 || solo.Drawn[0].Color == solo.Drawn[1].Color || solo.TeamsDrawn != "1" {
		t.Errorf("one team: drawn %+v; want 2 robots of team 1 in their own colours", solo.Drawn)
	}
	for _, d := range solo.Drawn {
		i := slices.Index(eps, d.Endpoint)
		if i < 0 || d.X != float64(robots[i].pose.X) || d.Y != float64(robots[i].pose.Y) {
			t.Errorf("one team: robot %+v not at its own pose", d)
		}
	}
	if g := solo.Game; g.Score != "2:1" || g.State != "PLAYING" || len(g.Teams) != 2 || g.Teams[0].Name != "Alpha" || g.Teams[1].Name != "opponent" {
		t.Errorf("one team: game %+v; want Alpha 2:1 opponent, PLAYING", g)
	}

	// ROBOTD_GAME_SCREENSHOT names a file for a picture of the page.
	if path := os.Getenv("ROBOTD_GAME_SCREENSHOT"); path != "" {
		shot, err := c.Screenshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}
}
