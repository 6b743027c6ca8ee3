package perception

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func TestFuseTeamBall(t *testing.T) {
	cfg := DefaultConfig().TeamBall
	now := 100 * time.Second
	ball := hal.Vec2{X: 2, Y: 1}
	cov := msg.Cov2{{0.01, 0}, {0, 0.01}}
	rep := func(player uint8, p hal.Vec2) msg.TeamBallReport {
		return msg.TeamBallReport{Player: player, Pos: p, Cov: cov, Received: now, PoseConfidence: 0.9}
	}
	near := func(dx, dy float64) hal.Vec2 { return hal.Vec2{X: ball.X + dx, Y: ball.Y + dy} }
	tests := []struct {
		name         string
		own          *msg.TeamBallReport
		reports      []msg.TeamBallReport
		valid        bool
		count        int
		usable       int
		contributors uint32
		want         hal.Vec2
		tol          float64
	}{
		{name: "nothing", valid: false},
		{name: "own only", own: &msg.TeamBallReport{Pos: ball, Cov: cov, Received: now, PoseConfidence: 1},
			valid: true, count: 1, usable: 1, contributors: 1, want: ball, tol: 1e-9},
		{name: "three agree, one outlier",
			reports: []msg.TeamBallReport{rep(2, near(0.1, 0)), rep(3, near(-0.1, 0.05)), rep(4, near(0, -0.05)), rep(5, hal.Vec2{X: -3, Y: 0})},
			valid:   true, count: 3, usable: 4, contributors: 1<<2 | 1<<3 | 1<<4, want: ball, tol: 0.05},
		{name: "own disagrees with two teammates",
			own:     &msg.TeamBallReport{Pos: hal.Vec2{X: -2, Y: -1}, Cov: cov, Received: now, PoseConfidence: 1},
			reports: []msg.TeamBallReport{rep(2, near(0.05, 0)), rep(3, near(-0.05, 0))},
			valid:   true, count: 2, usable: 3, contributors: 1<<2 | 1<<3, want: ball, tol: 0.05},
		{name: "stale and unconfident reports are left out",
			reports: []msg.TeamBallReport{
				rep(2, near(0, 0)),
				{Player: 3, Pos: hal.Vec2{X: -3}, Cov: cov, Received: now - 5*time.Second, PoseConfidence: 1},
				{Player: 4, Pos: hal.Vec2{X: 3, Y: -2}, Cov: cov, Received: now, PoseConfidence: 0.05},
				{Player: 5, Pos: hal.Vec2{X: -1}, Cov: cov, Age: 4 * time.Second, Received: now, PoseConfidence: 1},
			},
			valid: true, count: 1, usable: 1, contributors: 1 << 2, want: ball, tol: 1e-9},
		{name: "a precise report outweighs a vague one",
			reports: []msg.TeamBallReport{
				{Player: 2, Pos: ball, Cov: msg.Cov2{{0.0001, 0}, {0, 0.0001}}, Received: now, PoseConfidence: 1},
				{Player: 3, Pos: near(0.4, 0), Cov: msg.Cov2{{0.25, 0}, {0, 0.25}}, Received: now, PoseConfidence: 1},
			},
			valid: true, count: 2, usable: 2, contributors: 1<<2 | 1<<3, want: ball, tol: 0.03},
		{name: "a rolling ball is predicted to now",
			reports: []msg.TeamBallReport{{Player: 2, Pos: hal.Vec2{X: 1}, Vel: hal.Vec2{X: 1}, Cov: cov, Received: now - time.Second, PoseConfidence: 1}},
			valid:   true, count: 1, usable: 1, contributors: 1 << 2,
			want: hal.Vec2{X: 1 + (1-math.Exp(-cfg.Friction))/cfg.Friction}, tol: 1e-9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var reports msg.TeamBallReports
			for _, r := range tc.reports {
				reports.Reports[reports.N] = r
				reports.N++
			}
			var own msg.TeamBallReport
			if tc.own != nil {
				own = *tc.own
			}
			got := FuseTeamBall(own, tc.own != nil, &reports, now, cfg)
			if got.Valid != tc.valid || got.Count != tc.count || got.Usable != tc.usable || got.Contributors != tc.contributors {
				t.Fatalf("got valid %v count %d usable %d contributors %b; want %v %d %d %b",
					got.Valid, got.Count, got.Usable, got.Contributors, tc.valid, tc.count, tc.usable, tc.contributors)
			}
			if tc.valid && math.Hypot(got.Pos.X-tc.want.X, got.Pos.Y-tc.want.Y) > tc.tol {
				t.Fatalf("fused at %+v, want %+v ± %v", got.Pos, tc.want, tc.tol)
			}
			if tc.valid && (got.Cov[0][0] <= 0 || got.Cov[1][1] <= 0) {
				t.Fatalf("covariance %v not positive", got.Cov)
			}
		})
	}
}

func TestFuseTeamBallReducesError(t *testing.T) {
	// Five teammates with 0.3 m noise: the fused ball is closer than a
	// single report, on average.
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := DefaultConfig().TeamBall
	now := 10 * time.Second
	var single, fused float64
	const trials = 200
	for range trials {
		var r msg.TeamBallReports
		for i := range 5 {
			p := hal.Vec2{X: 0.3 * rng.NormFloat64(), Y: 0.3 * rng.NormFloat64()}
			r.Reports[i] = msg.TeamBallReport{Player: uint8(i + 1), Pos: p, Cov: msg.Cov2{{0.09, 0}, {0, 0.09}}, Received: now, PoseConfidence: 1}
			r.N++
		}
		single += math.Hypot(r.Reports[0].Pos.X, r.Reports[0].Pos.Y)
		tb := FuseTeamBall(msg.TeamBallReport{}, false, &r, now, cfg)
		fused += math.Hypot(tb.Pos.X, tb.Pos.Y)
	}
	if fused > 0.6*single {
		t.Fatalf("mean error fused %.3f m vs single %.3f m", fused/trials, single/trials)
	}
}

func TestTeamBallEntry(t *testing.T) {
	// The module fuses its own ball with the reports it reads.
	cfg := DefaultConfig()
	cfg.GroundTruthPose = true // a known pose, so the own ball has a field position
	h := newHarness(t, cfg)
	var in input
	in.connected = true
	in.truth = hal.GroundTruth{Valid: true, Pose: hal.Pose2{X: -1, Y: 0, Heading: 0}}
	in.withTeam = true
	in.reports.N = 2
	in.reports.Reports[0] = msg.TeamBallReport{Player: 3, Pos: hal.Vec2{X: 0.5, Y: 0.1}, Received: 0, PoseConfidence: 0.8}
	in.reports.Reports[1] = msg.TeamBallReport{Player: 4, Pos: hal.Vec2{X: -3, Y: 2}, Received: 0, PoseConfidence: 0.8}
	for range 30 {
		in.vision = hal.Vision{Fresh: true}
		in.vision.Add(hal.Observation{Kind: hal.ObjBall, Pos: hal.Vec2{X: 1.5, Y: 0.1}})
		for i := range in.reports.N {
			in.reports.Reports[i].Received = h.now() + period
		}
		h.step(t, &in)
	}
	tb := h.teamBall
	if !tb.Valid || tb.Count != 2 || tb.Contributors != 1|1<<3 || tb.Usable != 3 {
		t.Fatalf("team ball %+v, want own and player 3 fused", tb)
	}
	if math.Hypot(tb.Pos.X-0.5, tb.Pos.Y-0.1) > 0.05 || !tb.RelativeValid || math.Hypot(tb.Relative.X-1.5, tb.Relative.Y-0.1) > 0.05 {
		t.Fatalf("team ball at %+v (relative %+v)", tb.Pos, tb.Relative)
	}
}
