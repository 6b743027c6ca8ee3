package msg

import (
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
)

// Behaviour's entries besides its motion request. The debug page reads the
// role, the path and the search by name (see package debugview).
var (
	// RoleKey is the robot's role and how often it changed.
	RoleKey = blackboard.NewKey[RoleState]("behaviour.role")
	// PathKey is the behaviour tree's active path, root first.
	PathKey = blackboard.NewKey[BehaviourPath]("behaviour.path")
	// SearchKey is the ball search: the probability grid and the targets.
	SearchKey = blackboard.NewKey[SearchState]("behaviour.search")
	// TeamOutKey is what behaviour wants team communication to send.
	TeamOutKey = blackboard.NewKey[TeamOut]("behaviour.team_out")
)

// Role is a player's role in the team. The numbering is shared with
// teammates (it travels in team messages).
type Role uint8

// Roles. The order of the field players' roles is not their priority (see
// behaviour's role allocation).
const (
	RoleNone Role = iota
	RoleGoalie
	RoleStriker
	RoleSupporter
	RoleDefender
	// NumRoles bounds the role numbers.
	NumRoles
)

// String names the role.
func (r Role) String() string {
	switch r {
	case RoleNone:
		return "none"
	case RoleGoalie:
		return "goalie"
	case RoleStriker:
		return "striker"
	case RoleSupporter:
		return "supporter"
	case RoleDefender:
		return "defender"
	}
	return "unknown"
}

// RoleState is the robot's role as role allocation last decided it.
type RoleState struct {
	Role Role
	// Since is the tick time of the last change.
	Since time.Duration
	// Switches counts role changes since the robot started playing (the
	// first allocation does not count).
	Switches uint32
	// SwitchesPerMinute is the number of switches in the last minute.
	SwitchesPerMinute float64
	// Epoch is the allocation epoch the role was decided in; Active the
	// number of robots the allocation counted (this one included).
	Epoch  uint32
	Active uint8
	// Cost is this robot's cost for its role in the allocation that gave
	// it (lower is better; seconds).
	Cost float64
	// Allocated is true once role allocation has decided the role (before
	// that the robot plays its kick-off role by player number).
	Allocated bool
	// Locked is true while the robot may not switch role (it switched as
	// often as the limit allows in the last minute).
	Locked bool
}

// MaxPathDepth bounds the behaviour path.
const MaxPathDepth = 12

// BehaviourPath is the behaviour tree's active path: Nodes[:N], root
// first, the node that ran last at each level.
type BehaviourPath struct {
	N     int
	Nodes [MaxPathDepth]string
}

// MaxSegments bounds the ball search's grid (it travels in team messages).
const MaxSegments = 16

// MaxSearchTargets bounds the search targets shown: this robot's and its
// teammates'.
const MaxSearchTargets = 8

// SearchTarget is where a robot searches.
type SearchTarget struct {
	// Player is the searching robot's player number; 0 is this robot.
	Player uint8
	// Pos is the target on the field.
	Pos hal.Vec2
}

// SearchState is the ball search's state: the probability grid over the
// field (row-major, row 0 at -y, column 0 at -x, each cell CellX × CellY
// metres from Origin, the grid's -x,-y corner) and the search targets.
type SearchState struct {
	// Strategy is 2016, 2017 or 2026 (robotd's team sweep); 0 while no
	// search runs.
	Strategy uint16
	// Active is true while this robot searches.
	Active bool
	// Cols and Rows are the grid's cells along x and y.
	Cols, Rows int
	// CellX and CellY are a cell's size along x and y; CellSize is CellX
	// (for readers that assume square cells).
	CellX, CellY, CellSize float64
	Origin                 hal.Vec2
	// Probabilities is the team's distribution (the 2017 search), summing
	// to 1 over Cols·Rows cells; Local is this robot's own.
	Probabilities [MaxSegments]float32
	Local         [MaxSegments]float32
	// Targets[:NTargets] are the search targets, this robot's first.
	NTargets int
	Targets  [MaxSearchTargets]SearchTarget
	// Point is the index of this robot's current target among the 2016
	// search's points, or its segment in the 2017 search; -1 for none.
	Point int
	// Phase is the search cycle's phase: walk, scan or spin.
	Phase SearchPhase
}

// SearchPhase is where a robot is in the search cycle.
type SearchPhase uint8

// Search phases.
const (
	SearchIdle SearchPhase = iota
	SearchWalk
	SearchScan
	SearchSpin
)

// String names the phase.
func (p SearchPhase) String() string {
	switch p {
	case SearchIdle:
		return "idle"
	case SearchWalk:
		return "walk"
	case SearchScan:
		return "scan"
	case SearchSpin:
		return "spin"
	}
	return "unknown"
}
