package msg

import (
	"math"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
)

// TeammatesKey is the teammates' latest messages, written by team
// communication. Behaviour reads it optionally: without team communication
// a robot plays alone.
var TeammatesKey = blackboard.NewKey[Teammates]("teamcomm.teammates")

// MaxRecords bounds the role records in one team message: a robot's own
// two latest and the ones it relays (enough for a team of seven).
const MaxRecords = 8

// MaxTeammates bounds the teammates tracked.
const MaxTeammates = 8

// RoleRecord is one robot's input to role allocation in one epoch: what
// every robot of the team needs to compute the same allocation. Records
// travel in team messages, the owner's own and relayed by teammates, so
// that one lost datagram does not leave a robot without them.
type RoleRecord struct {
	Player uint8
	// Epoch is the allocation epoch the record belongs to (its low 16 bits
	// travel; receivers restore the rest from their own epoch).
	Epoch uint32
	// Penalised and Fallen say whether the robot can play.
	Penalised, Fallen bool
	// BallKnown is true when the robot knew where the ball was.
	BallKnown bool
	// Role is the role the robot played in the epoch.
	Role Role
	// Locked is true when the robot may not switch role at the next
	// allocation: it switched as often as the limit allows in a minute.
	Locked bool
	// StrikerCost is the robot's estimated time to reach the ball, s
	// (large when it does not know the ball).
	StrikerCost float64
	// Pos is the robot's field position.
	Pos hal.Vec2
}

// Quantize rounds the record to what a team message carries (striker cost
// to 0.1 s within 0..6553.5 s, position to 1 cm within ±327 m), so that
// the robot that made it computes with the same numbers as the teammates
// that receive it.
func (r *RoleRecord) Quantize() {
	// k/scale, exactly as a receiver computes it from the integer k.
	q := func(v, scale, lo, hi float64) float64 {
		if v != v {
			return 0
		}
		return math.Round(min(max(v*scale, lo), hi)) / scale
	}
	r.StrikerCost = q(r.StrikerCost, 10, 0, math.MaxUint16)
	r.Pos.X = q(r.Pos.X, 100, math.MinInt16, math.MaxInt16)
	r.Pos.Y = q(r.Pos.Y, 100, math.MinInt16, math.MaxInt16)
}

// TeamMessage is a robot's state as shared with its team in every team
// message: compact enough, encoded, for the SPL's 128 bytes.
type TeamMessage struct {
	Player uint8
	// TeamTime is the sender's team clock when it sent the message.
	TeamTime time.Duration
	// Fallen and Penalised say whether the robot can play.
	Fallen, Penalised bool
	Role              Role
	// Pose is the robot's field pose when PoseValid, with the
	// localisation's confidence 0..1.
	PoseValid      bool
	Pose           hal.Pose2
	PoseConfidence float64
	// Ball is the ball's field position when BallValid; BallAge is the
	// time since the robot last saw it.
	BallValid bool
	Ball      hal.Vec2
	BallAge   time.Duration
	// Searching is true while the robot searches the ball; Target is
	// where it goes then (the 2017 search's DistributedUtilityCalculator
	// counts teammates per target).
	Searching   bool
	TargetValid bool
	Target      hal.Vec2
	// Distribution[:NSegments] is the robot's local ball distribution over
	// the search grid (the 2017 search's TeamDistributionGenerator),
	// relative to its largest cell.
	NSegments    uint8
	Distribution [MaxSegments]float32
	// Records[:NRecords] are role-allocation records.
	NRecords uint8
	Records  [MaxRecords]RoleRecord
}

// TeamOut is what behaviour asks team communication to send.
type TeamOut struct {
	// Seq increases each time behaviour wants Msg sent (once); team
	// communication sends it when the message budget allows.
	Seq uint32
	Msg TeamMessage
}

// Teammate is one teammate's latest message.
type Teammate struct {
	// Received is the tick time the message arrived.
	Received time.Duration
	// Count is the number of messages received from this teammate.
	Count uint32
	Msg   TeamMessage
}

// Teammates is the latest message of up to MaxTeammates teammates:
// Mates[:N] are valid, in the order they were first heard.
type Teammates struct {
	N     int
	Mates [MaxTeammates]Teammate
	// Received counts every team message this robot received; Dropped
	// those it could not use (malformed, or no room for another teammate).
	Received, Dropped uint64
}
