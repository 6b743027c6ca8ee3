package msg

import (
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
)

// SafetyKey is the safety module's verdict for this tick, which motion
// obeys before anything behaviour asks.
var SafetyKey = blackboard.NewKey[Safety]("safety.state")

// Safety is what the robot must do to protect itself this tick.
type Safety struct {
	// StiffnessCap is the highest stiffness each joint may get (1: no
	// limit). A hot joint's is lowered.
	StiffnessCap [hal.NumJoints]float64
	// Hot is the set of joints over their temperature or current limit.
	Hot hal.JointSet
	// HotLeg is true when a hot joint is a leg joint: walking and kicking
	// load it, so motion stands instead.
	HotLeg bool
	// Sit asks motion to sit down and then go limp (low battery, or the
	// head's safe stop).
	Sit bool
	// LowBattery is true while the battery is below its limit and not
	// charging; teammates are told (the robot counts as out of play).
	LowBattery bool
	// SafeStop is true after the head's three touch pads were touched
	// together, until they are touched together again.
	SafeStop bool
	// Falling is true while the robot tips over: motion pulls the arms in
	// and keeps stiffness at FallStiffness until it lies.
	Falling       bool
	FallStiffness float64
	// Penalised is true while the robot was penalised with the chest button
	// (only when no GameController is heard): motion keeps it standing.
	Penalised bool
}

// OutOfPlay reports whether the robot cannot play for safety's sake.
func (s *Safety) OutOfPlay() bool { return s.Sit || s.Penalised }
