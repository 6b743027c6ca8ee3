package teamcomm

import (
	"math"
	"time"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// plausibleMargin is how far beyond the field's carpet (field.SPL's
// border) a position may lie: a robot or ball pushed off the carpet.
const plausibleMargin = 1.0 // m

// maxBallAge bounds a reported ball age: longer than any game.
const maxBallAge = 24 * time.Hour

// plausible reports why a teammate's state cannot be true ("" if it can):
// a player number no robot has, a position off the field, a confidence
// outside 0..1, a negative or absurd age, a number that is not finite.
// A spoofed or corrupt message that passes the wire format fails here
// before it moves the team ball or the role allocation.
func plausible(s *msg.TeamMessage) string {
	if s.Player == 0 || s.Player > MaxPlayer {
		return "player number"
	}
	if s.Role >= msg.NumRoles {
		return "role"
	}
	if s.PoseValid && !onField(s.Pose.X, s.Pose.Y) || !finite(float64(s.Pose.Heading)) {
		return "pose off the field"
	}
	if !(s.PoseConfidence >= 0 && s.PoseConfidence <= 1) {
		return "pose confidence"
	}
	if s.BallValid && !onField(hal.Metres(s.Ball.X), hal.Metres(s.Ball.Y)) {
		return "ball off the field"
	}
	if s.BallAge < 0 || s.BallAge > maxBallAge {
		return "ball age"
	}
	if s.TargetValid && !onField(hal.Metres(s.Target.X), hal.Metres(s.Target.Y)) {
		return "search target off the field"
	}
	if int(s.NSegments) > len(s.Distribution) || int(s.NRecords) > len(s.Records) {
		return "counts"
	}
	for _, d := range s.Distribution[:s.NSegments] {
		if !(d >= 0 && d <= 1) {
			return "ball distribution"
		}
	}
	for i := range s.Records[:s.NRecords] {
		r := &s.Records[i]
		if r.Player > MaxPlayer || r.Role >= msg.NumRoles || !finite(r.StrikerCost) || r.StrikerCost < 0 ||
			!onField(hal.Metres(r.Pos.X), hal.Metres(r.Pos.Y)) {
			return "role record"
		}
	}
	return ""
}

func onField(x, y hal.Metres) bool {
	f := field.SPL()
	hx := float64(f.Length/2+f.Border) + plausibleMargin
	hy := float64(f.Width/2+f.Border) + plausibleMargin
	return math.Abs(float64(x)) <= hx && math.Abs(float64(y)) <= hy
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
