package msg_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// register writes and reads every world-model entry on one board: the
// blackboard rejects types that are not plain values and names used with
// two types.
func TestWorldEntriesArePlainAndDistinct(t *testing.T) {
	b := blackboard.New()
	names := map[string]bool{}
	check := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if names[name] {
			t.Fatalf("entry %q declared twice", name)
		}
		names[name] = true
	}
	var err error
	_, err = blackboard.Write(b, "perception", msg.BallKey)
	check(msg.BallKey.Name(), err)
	_, err = blackboard.Write(b, "perception", msg.RobotPoseKey)
	check(msg.RobotPoseKey.Name(), err)
	_, err = blackboard.Write(b, "perception", msg.BodySensorsKey)
	check(msg.BodySensorsKey.Name(), err)
	_, err = blackboard.Write(b, "perception", msg.TeamBallKey)
	check(msg.TeamBallKey.Name(), err)
	_, err = blackboard.Write(b, "perception", msg.ObstaclesKey)
	check(msg.ObstaclesKey.Name(), err)
	_, err = blackboard.Write(b, "teamcomm", msg.TeamBallReportsKey)
	check(msg.TeamBallReportsKey.Name(), err)
	// The existing entries keep their own names.
	for _, n := range []string{msg.BodyStateKey.Name(), msg.MotionStateKey.Name(), msg.MotionRequestKey.Name(), msg.VisionKey.Name()} {
		if names[n] {
			t.Fatalf("world entry reuses %q", n)
		}
	}
	for n := range names {
		writer := "perception."
		if n == msg.TeamBallReportsKey.Name() {
			writer = "teamcomm."
		}
		if !strings.HasPrefix(n, writer) || n != strings.ToLower(n) {
			t.Errorf("entry %q: want lower case, prefixed by its writer %q", n, writer)
		}
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	// The snapshot (debug UI) can encode every value.
	var sb strings.Builder
	if err := b.Snapshot().WriteJSON(&sb); err != nil {
		t.Fatal(err)
	}
}

func TestEstimateSourceString(t *testing.T) {
	tests := []struct {
		s    msg.EstimateSource
		want string
	}{
		{msg.SourceNone, "none"},
		{msg.SourceFilter, "filter"},
		{msg.SourceGroundTruth, "ground-truth"},
		{msg.EstimateSource(9), "unknown"},
	}
	for _, tc := range tests {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%d: %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestTeamBallReportsJSON(t *testing.T) {
	var r msg.TeamBallReports
	r.N = 1
	r.Reports[0] = msg.TeamBallReport{Player: 3, Cov: msg.Cov2{{0.1, 0.02}, {0.02, 0.2}}, PoseConfidence: 0.5}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back msg.TeamBallReports
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back != r {
		t.Fatalf("round trip %+v, want %+v", back, r)
	}
	if len(r.Reports) != msg.MaxTeamBallReports {
		t.Fatalf("%d report slots, want MaxTeamBallReports", len(r.Reports))
	}
}

func TestBallTeamReport(t *testing.T) {
	pose := msg.RobotPose{Valid: true, Pose: hal.Pose2{X: 1, Y: 2, Heading: hal.Radians(math.Pi / 2)}, Confidence: 0.7}
	pose.Cov[0][0], pose.Cov[1][1] = 0.01, 0.04
	ball := msg.Ball{Valid: true, FieldValid: true, Pos: hal.Vec2{X: 2}, FieldPos: hal.Vec2{X: 1, Y: 4},
		FieldVel: hal.Vec2{Y: 0.5}, SinceSeen: 200 * time.Millisecond}
	// Along the line of sight (robot x, field y) the ball is less certain.
	ball.Cov = msg.Cov2{{0.09, 0}, {0, 0.01}}
	r, ok := ball.TeamReport(&pose, 5*time.Second)
	if !ok {
		t.Fatal("no report")
	}
	if r.Player != 0 || r.Pos != ball.FieldPos || r.Vel != ball.FieldVel || r.Age != ball.SinceSeen ||
		r.Received != 5*time.Second || r.PoseConfidence != 0.7 {
		t.Fatalf("report %+v", r)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(r.Cov[0][0], 0.01+0.01) || !near(r.Cov[1][1], 0.09+0.04) || !near(r.Cov[0][1], 0) {
		t.Fatalf("covariance %v, want the ball's turned to the field plus the pose's", r.Cov)
	}
	for _, tc := range []struct {
		name string
		b    msg.Ball
		p    msg.RobotPose
	}{
		{"lost", func() msg.Ball { b := ball; b.Lost = true; return b }(), pose},
		{"never seen", msg.Ball{}, pose},
		{"pose invalid", ball, msg.RobotPose{}},
	} {
		if _, ok := tc.b.TeamReport(&tc.p, 0); ok {
			t.Errorf("%s: reported", tc.name)
		}
	}
}

func TestObstaclesAddBounded(t *testing.T) {
	var o msg.Obstacles
	for i := range msg.MaxObstacles + 3 {
		kept := o.Add(msg.Obstacle{Pos: hal.Vec2{X: float64(i)}})
		if kept != (i < msg.MaxObstacles) {
			t.Fatalf("obstacle %d: kept %v", i, kept)
		}
	}
	if o.N != msg.MaxObstacles || o.Obs[msg.MaxObstacles-1].Pos.X != msg.MaxObstacles-1 {
		t.Fatalf("N %d, last %v", o.N, o.Obs[msg.MaxObstacles-1])
	}
}
