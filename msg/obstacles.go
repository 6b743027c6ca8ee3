package msg

import (
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
)

// ObstaclesKey is perception's obstacle model: the robots this robot has
// seen lately, tracked through its odometry.
var ObstaclesKey = blackboard.NewKey[Obstacles]("perception.obstacles")

// MaxObstacles bounds the obstacles in one Obstacles.
const MaxObstacles = 8

// Obstacle is one tracked obstacle (a robot), in the robot's current frame
// on the ground (x forward, y left, origin between the feet).
type Obstacle struct {
	// Pos is the obstacle's position relative to the robot.
	Pos hal.Vec2
	// Team is 0 for the own team, 1 for the opponents, hal.TeamUnknown
	// when no observation of it told.
	Team uint8
	// ID is the robot's player number where the source gave it, else 0.
	ID uint8
	// Seen is true when an observation was merged into it this tick.
	Seen bool
	// SinceSeen is the time since it was last seen.
	SinceSeen time.Duration
	// Hits counts the observations merged into it (at most 65535).
	Hits uint16
}

// Obstacles is perception's obstacle model: Obs[:N], nearest first.
type Obstacles struct {
	N   int
	Obs [MaxObstacles]Obstacle
}

// Add appends an obstacle, dropping it when full; it reports whether it
// was kept.
func (o *Obstacles) Add(ob Obstacle) bool {
	if o.N < 0 || o.N >= MaxObstacles {
		return false
	}
	o.Obs[o.N] = ob
	o.N++
	return true
}
