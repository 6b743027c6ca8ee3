package simserver

import "github.com/robotd/robotd/hal/geom"

// The SPL field of the rUNSWift fork (naosoccersim.rb, soccer.rsg) in world
// coordinates: x towards the right-hand goal, y to the left, origin at the
// centre spot. Landmark names are absolute: they do not depend on the team.

const (
	FieldLength   = 9.0
	FieldWidth    = 6.0
	FieldHeight   = 40.0
	GoalWidth     = 1.6
	GoalDepth     = 0.5
	GoalHeight    = 0.8
	PenaltyLength = 0.6
	PenaltyWidth  = 2.2
	BallRadius    = 0.05
	BallMass      = 0.042
	freeKickDist  = 0.75
	agentRadius   = 0.4 // AgentRadius
	halfLength    = FieldLength / 2
	halfWidth     = FieldWidth / 2
	// wallX and wallY bound where the ball can roll (the fork's border walls).
	wallX = halfLength + 0.333*FieldLength - 0.5
	wallY = halfWidth + 0.75*FieldWidth - 0.5
)

// landmark is a seen object with a fixed position.
type landmark struct {
	name string
	pos  geom.Vec3
}

// goalPosts are the fork's goal flags (goal.rsg: at the goal line, the
// posts' inner side, the crossbar's height), in the order the See block
// lists them.
var goalPosts = [4]landmark{
	{"G2R", geom.Vec3{X: halfLength, Y: -GoalWidth / 2, Z: GoalHeight}},
	{"G1R", geom.Vec3{X: halfLength, Y: GoalWidth / 2, Z: GoalHeight}},
	{"G1L", geom.Vec3{X: -halfLength, Y: GoalWidth / 2, Z: GoalHeight}},
	{"G2L", geom.Vec3{X: -halfLength, Y: -GoalWidth / 2, Z: GoalHeight}},
}

// featureKind is a field feature type.
type featureKind uint8

const (
	featCorner featureKind = iota
	featT
	featCentre
)

var featureNames = [3]string{"CNR", "TJ", "CC"}

// feature is a field feature: position on the ground and orientation (deg).
type feature struct {
	kind   featureKind
	pos    geom.Vec3
	orient float64
}

// features are the rUNSWift field features of soccer.rsg, in scene order
// (the order the See block lists them).
var features = [...]feature{
	{featCorner, geom.Vec3{X: -halfLength, Y: halfWidth, Z: 0}, -45},
	{featCorner, geom.Vec3{X: -(halfLength - PenaltyLength), Y: PenaltyWidth / 2, Z: 0}, -135},
	{featCorner, geom.Vec3{X: -(halfLength - PenaltyLength), Y: -PenaltyWidth / 2, Z: 0}, 135},
	{featCorner, geom.Vec3{X: -halfLength, Y: -halfWidth, Z: 0}, 45},
	{featCorner, geom.Vec3{X: halfLength, Y: halfWidth, Z: 0}, -135},
	{featCorner, geom.Vec3{X: halfLength - PenaltyLength, Y: PenaltyWidth / 2, Z: 0}, -45},
	{featCorner, geom.Vec3{X: halfLength - PenaltyLength, Y: -PenaltyWidth / 2, Z: 0}, 45},
	{featCorner, geom.Vec3{X: halfLength, Y: -halfWidth, Z: 0}, 135},
	{featT, geom.Vec3{X: -halfLength, Y: PenaltyWidth / 2, Z: 0}, 0},
	{featT, geom.Vec3{X: -halfLength, Y: -PenaltyWidth / 2, Z: 0}, 0},
	{featT, geom.Vec3{X: 0, Y: halfWidth, Z: 0}, -90},
	{featT, geom.Vec3{X: 0, Y: -halfWidth, Z: 0}, 90},
	{featT, geom.Vec3{X: halfLength, Y: PenaltyWidth / 2, Z: 0}, -180},
	{featT, geom.Vec3{X: halfLength, Y: -PenaltyWidth / 2, Z: 0}, -180},
	{featCentre, geom.Vec3{X: 0, Y: 0, Z: 0}, -90},
}
