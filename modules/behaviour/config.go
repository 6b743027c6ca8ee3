package behaviour

import (
	"fmt"
	"math"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/behaviour/roles"
	"github.com/robotd/robotd/modules/behaviour/search"
)

// Config configures behaviour.
type Config struct {
	// Player is this robot's player number (for role allocation and team
	// messages). 0 leaves it to the robot's configuration (package robot
	// sets it).
	Player int `json:"player"`
	// GetUp enables asking for a get-up after a fall; if false the robot
	// relaxes instead.
	GetUp bool `json:"get_up"`
	// PlayWithoutGameState plays as in PLAYING when neither a
	// GameController nor the backend says what the game state is;
	// otherwise such a robot stands still, as in INITIAL (an SPL robot
	// waits for the referee).
	PlayWithoutGameState bool `json:"play_without_game_state"`
	// Walk configures the walking skills.
	Walk WalkConfig `json:"walk"`
	// Kick configures approaching and kicking the ball.
	Kick KickConfig `json:"kick"`
	// Roles configures role allocation (Switch!).
	Roles roles.Config `json:"roles"`
	// Search configures the ball search.
	Search SearchConfig `json:"search"`
	// Team configures what behaviour takes from teammates.
	Team TeamConfig `json:"team"`
}

// WalkConfig configures walking to a field position.
type WalkConfig struct {
	// Speed and TurnSpeed are the requested walking speeds (m/s, rad/s).
	Speed     float64 `json:"speed"`
	TurnSpeed float64 `json:"turn_speed"`
	// SideSpeed bounds sideways steps near the target, m/s.
	SideSpeed float64 `json:"side_speed"`
	// TurnGain turns the heading error (rad) into a turn rate (rad/s).
	TurnGain float64 `json:"turn_gain"`
	// FaceDistance: farther than this the robot turns towards the target
	// and walks forwards; nearer it also steps sideways and turns to the
	// target's heading. A target with a heading, up to 1.5 m behind the
	// robot (within 45° of straight back), is stepped to backwards too.
	FaceDistance float64 `json:"face_distance"`
	// AvoidRadius is how close to a teammate or a perceived obstacle the
	// path may pass.
	AvoidRadius float64 `json:"avoid_radius"`
	// AvoidObstacles avoids perception's obstacles (every robot seen
	// lately, opponents too) as well as the teammates' reported positions.
	AvoidObstacles bool `json:"avoid_obstacles"`
	// AvoidNear: nothing is avoided within this distance of the target,
	// so that a ball beside a robot can still be reached.
	AvoidNear float64 `json:"avoid_near"`
	// AvoidHysteresis is how far to the side the robot has chosen to pass
	// on the obstacle must be off the path before the robot passes on the
	// other side instead.
	AvoidHysteresis float64 `json:"avoid_hysteresis"`
	// KeepClear is how far from a teammate a place to stand (a search
	// viewpoint) must be: a viewpoint nearer a teammate, or nearer a
	// teammate's own search target when that teammate is nearer to its
	// target (or as near, with a lower player number), is moved away to
	// this distance. 0: viewpoints are not moved.
	KeepClear float64 `json:"keep_clear"`
	// Personal: a teammate nearer than this is not walked towards (the
	// part of the walk towards it is dropped), whatever the path.
	Personal float64 `json:"personal"`
	// GoalClearance: a walk target nearer than this to a goal's footprint
	// (its posts and net, field.Dimensions.Goals) is moved out to this
	// distance, and a way round the ball through a goal is not taken.
	// 0: goals are walked into.
	GoalClearance float64 `json:"goal_clearance"`
	// CameraHeight is the camera's height above the ground, for looking
	// at the ball.
	CameraHeight float64 `json:"camera_height"`
}

// KickConfig configures the striker's approach and kick.
type KickConfig struct {
	// Enabled lets the striker kick; otherwise it stops behind the ball.
	Enabled bool `json:"enabled"`
	// Behind is how far behind the ball (away from the target) the robot
	// lines up.
	Behind float64 `json:"behind"`
	// Reach is the ball's distance ahead of the feet at which a kick is
	// taken, with Reach.X the nearest and Reach.Y the farthest (m).
	Reach hal.Vec2 `json:"reach"`
	// MaxOffset is the ball's largest sideways offset from a foot for a
	// kick (m); FootOffset where a foot's centre is (m).
	MaxOffset  float64 `json:"max_offset"`
	FootOffset float64 `json:"foot_offset"`
	// MaxAngle is the largest angle between the robot's heading and the
	// kick's direction: the kick goes straight ahead.
	MaxAngle hal.Radians `json:"max_angle"`
	// Timeout gives up a kick that motion does not start.
	Timeout config.Duration `json:"timeout"`
	// YieldDistance: when a perceived opponent is within this of the ball
	// and nearer to it than the robot by more than YieldMargin, the
	// striker does not walk into it but blocks: it stands BlockDistance
	// from the ball on the line from the ball to the own goal, facing the
	// ball. 0 never yields.
	YieldDistance float64 `json:"yield_distance"`
	YieldMargin   float64 `json:"yield_margin"`
	BlockDistance float64 `json:"block_distance"`
}

// SearchConfig configures the ball search (Collette's thesis).
type SearchConfig struct {
	// Strategy is "2016" (eight hard-coded points, table 2.1), "2017"
	// (the distributed, probabilistic search of chapter 4) or "sweep"
	// (robotd's team sweep: a shared fine belief of where the ball may
	// still be, package search's Sweep).
	Strategy string `json:"strategy"`
	// ReliableDistance is the ball detector's reliable detection distance
	// and Margin the error allowed in estimating it: the 2017 grid's
	// segments are at most ReliableDistance - Margin from their centre to
	// their corners (2.5 m and 0.65 m give the thesis' nine segments).
	ReliableDistance float64 `json:"reliable_distance"`
	Margin           float64 `json:"margin"`
	// Components configure the CompositeDistributionGenerator.
	Components search.ComponentConfig `json:"components"`
	// Team configures the TeamDistributionGenerator.
	Team search.TeamConfig `json:"team"`
	// Travel estimates the time to reach a segment (SimpleUtility) or a
	// viewpoint (sweep).
	Travel search.TravelConfig `json:"travel"`
	// Sweep configures the team sweep.
	Sweep search.SweepConfig `json:"sweep"`
	// Arrive is how close to a search location counts as there.
	Arrive float64 `json:"arrive"`
	// WalkTimeout gives up walking to a location (blocked, or lost).
	WalkTimeout config.Duration `json:"walk_timeout"`
	// ScanTime is how long the head scans at a location (2017), or at a
	// point (2016).
	ScanTime config.Duration `json:"scan_time"`
	// SpinSpeed is the turn rate of the spin at a location (rad/s); 0
	// skips the spin. The 2016 search does not spin.
	SpinSpeed float64 `json:"spin_speed"`
}

// TeamConfig configures what behaviour takes from teammates.
type TeamConfig struct {
	// BallAge is how old a teammate's ball may be for this robot to go
	// for it (the report's age plus its time in transit), and how old the
	// robot's own last sighting of a ball now behind it.
	BallAge config.Duration `json:"ball_age"`
	// MateAge is how old a teammate's message may be for its position to
	// be avoided and its search target counted.
	MateAge config.Duration `json:"mate_age"`
	// ClockTolerance: when a teammate's clock differs from this robot's by
	// more than this, the team clock follows the lowest-numbered robot
	// (robots in a simulator, or with synchronised clocks, need nothing).
	ClockTolerance config.Duration `json:"clock_tolerance"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		GetUp: true,
		Walk: WalkConfig{Speed: 0.25, TurnSpeed: 0.8, SideSpeed: 0.05, TurnGain: 1.5,
			FaceDistance: 0.5, AvoidRadius: 0.5, AvoidObstacles: true, AvoidNear: 0.5,
			AvoidHysteresis: 0.15, KeepClear: 0.6, Personal: 0.45, GoalClearance: 0.25, CameraHeight: 0.5},
		Kick: KickConfig{Enabled: true, Behind: 0.22, Reach: hal.Vec2{X: 0.15, Y: 0.22},
			MaxOffset: 0.025, FootOffset: 0.05, MaxAngle: 0.15, Timeout: config.Duration(4 * time.Second),
			YieldDistance: 0.4, YieldMargin: 0.3, BlockDistance: 0.8},
		Roles: roles.DefaultConfig(),
		Search: SearchConfig{
			Strategy: "2017", ReliableDistance: 2.5, Margin: 0.65,
			Components: search.DefaultComponentConfig(),
			Team:       search.TeamConfig{MaxAge: config.Duration(15 * time.Second)},
			Travel:     search.TravelConfig{Speed: 0.2, TurnSpeed: 0.6, Search: config.Duration(12 * time.Second)},
			Sweep:      search.DefaultSweepConfig(),
			Arrive:     0.3, WalkTimeout: config.Duration(60 * time.Second),
			ScanTime: config.Duration(4500 * time.Millisecond), SpinSpeed: 0.6,
		},
		Team: TeamConfig{BallAge: config.Duration(10 * time.Second), MateAge: config.Duration(15 * time.Second),
			ClockTolerance: config.Duration(300 * time.Millisecond)},
	}
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the behaviour section (roles and search
// included).
func (c *Config) Rules() config.Rules {
	return config.Rules{
		"player":                            config.Int(0, 20).Doc("", "this robot's player number (0: the robot's configuration sets it)"),
		"get_up":                            config.Bool().Doc("", "asks motion for a get-up after a fall; false: the robot relaxes instead"),
		"play_without_game_state":           config.Bool().Doc("", "plays as in PLAYING when neither a GameController nor the backend gives a game state; false: stands still as in INITIAL"),
		"walk.speed":                        config.Between(0, 10, true, false).Doc("m/s", "the walking speed asked of motion"),
		"walk.turn_speed":                   config.Between(0, 10, true, false).Doc("rad/s", "the turn rate asked of motion"),
		"walk.side_speed":                   config.Range(0, 10).Doc("m/s", "the largest sideways speed near the target"),
		"walk.turn_gain":                    config.Between(0, 100, true, false).Doc("", "the turn rate (rad/s) asked per radian of heading error"),
		"walk.face_distance":                config.Range(0, 100).Doc("m", "farther from the target than this the robot faces it and walks forwards; nearer it also steps sideways and turns to the target's heading (a target with a heading up to 1.5 m behind, within 45° of straight back, is stepped to backwards)"),
		"walk.avoid_radius":                 config.Range(0, 10).Doc("m", "how close to a teammate or a perceived obstacle the path may pass (0: no avoidance)"),
		"walk.avoid_obstacles":              config.Bool().Doc("", "avoids perception's obstacles (every robot seen lately, opponents too) as well as the teammates' reported positions"),
		"walk.avoid_near":                   config.Range(0, 10).Doc("m", "nothing is avoided within this distance of the target, so that a ball beside a robot can still be reached"),
		"walk.avoid_hysteresis":             config.Range(0, 10).Doc("m", "how far to the chosen side an obstacle must be off the path before the robot passes it on the other side"),
		"walk.keep_clear":                   config.Range(0, 10).Doc("m", "how far from a teammate, or from the search target of a teammate with the better claim (nearer its target, or as near with a lower player number), a search viewpoint must be; a nearer one is moved away (0: not moved)"),
		"walk.personal":                     config.Range(0, 10).Doc("m", "a teammate nearer than this is not walked towards (0: off)"),
		"walk.goal_clearance":               config.Range(0, 2).Doc("m", "a walk target nearer than this to a goal's posts and net is moved out, and no way round the ball goes through a goal (0: off)"),
		"walk.camera_height":                config.Range(0, 10).Doc("m", "the camera's height above the ground, for aiming the head at the ball"),
		"kick.enabled":                      config.Bool().Doc("", "lets the striker kick; false: it stops behind the ball"),
		"kick.behind":                       config.Between(0, 10, true, false).Doc("m", "how far behind the ball (away from the target) the robot lines up"),
		"kick.reach.X":                      config.Range(-10, 10).Doc("m", "the ball's nearest distance ahead of the feet for a kick"),
		"kick.reach.Y":                      config.Range(-10, 10).Doc("m", "the ball's farthest distance ahead of the feet for a kick"),
		"kick.max_offset":                   config.Range(0, 10).Doc("m", "the ball's largest sideways offset from a foot's centre for a kick"),
		"kick.foot_offset":                  config.Range(-1, 1).Doc("m", "how far sideways of the robot's centre a foot's centre is"),
		"kick.max_angle":                    config.Range(0, math.Pi).Doc("rad", "the largest angle between the robot's heading and the kick's direction (the kick goes straight ahead)"),
		"kick.timeout":                      config.Durations(0, time.Hour).Doc("", "gives up a kick that motion has not started within this time"),
		"kick.yield_distance":               config.Range(0, 10).Doc("m", "a perceived opponent this near the ball and nearer to it than the striker (by yield_margin) makes the striker block instead of walking into it (0: never)"),
		"kick.yield_margin":                 config.Range(0, 10).Doc("m", "how much nearer the ball an opponent must be than the striker for it to yield"),
		"kick.block_distance":               config.Range(0, 10).Doc("m", "how far from the ball, towards the own goal, a yielding striker stands"),
		"roles.priority":                    config.Each(config.OneOf("goalie", "striker", "defender", "supporter")).Doc("", "the roles in the order they are assigned"),
		"roles.goalkeeper":                  config.Int(0, 20).Doc("", "the goalkeeper's player number when the GameController does not say (0: no fixed goalkeeper)"),
		"roles.goalie_takeover":             config.Bool().Doc("", "gives the goalie role to a field player while the goalkeeper, having played, is penalised or silent"),
		"roles.change_cost":                 config.Range(0, 1e6).Doc("s", "added to a robot's cost for every role but the one it plays: the hysteresis"),
		"roles.position_change_cost":        config.Range(0, 1e6).Doc("s", "change_cost for the positional roles (defender, supporter), whose costs move with the ball"),
		"roles.change_ratio":                config.Range(0, 2).Doc("fraction of cost", "raises a robot's cost for a role it does not play by this share of the cost: hysteresis for nearly equal costs"),
		"roles.max_switches":                config.Int(0, 60).Doc("", "how many role switches a robot may make in any minute (0: no limit)"),
		"roles.kick_off":                    config.Bool().Doc("", "gives every robot its kick-off role when the team starts to play, instead of keeping its role"),
		"roles.fallen_cost":                 config.Range(0, 1e6).Doc("s", "added to a fallen robot's costs (the time to get up)"),
		"roles.unknown_ball_cost":           config.Range(0, 1e6).Doc("s", "a robot's striker cost when it does not know where the ball is"),
		"roles.speed":                       config.Between(0, 10, true, false).Doc("m/s", "the speed that turns distances into times for the defender's and goalie's costs"),
		"roles.defender_pos.X":              config.Range(-20, 20).Doc("m", "where the defender stands: x in the team's own field frame"),
		"roles.defender_pos.Y":              config.Range(-20, 20).Doc("m", "where the defender stands: y in the team's own field frame"),
		"roles.goalie_pos.X":                config.Range(-20, 20).Doc("m", "where the goalie stands: x in the team's own field frame"),
		"roles.goalie_pos.Y":                config.Range(-20, 20).Doc("m", "where the goalie stands: y in the team's own field frame"),
		"roles.silent_epochs":               config.Int(1, 10_000).Doc("", "how many epochs without a message drop a teammate from the allocation"),
		"roles.period":                      config.Durations(100*time.Millisecond, time.Hour).Doc("", "the length of an allocation epoch, and how often a robot sends its team message"),
		"search.strategy":                   config.OneOf("2016", "2017", "sweep").Doc("", "the ball search: 2016 (eight fixed points), 2017 (the distributed, probabilistic search) or sweep (robotd's team sweep)"),
		"search.reliable_distance":          config.Range(0, 100).Doc("m", "the ball detector's reliable detection distance, which sizes the 2017 grid's segments"),
		"search.margin":                     config.Range(0, 10).Doc("m", "the error allowed in reliable_distance: a segment's corners are at most reliable_distance − margin from its centre"),
		"search.components.ball_seen":       config.Durations(0, time.Hour).Doc("", "the time constant with which the segment where the ball is seen takes over the distribution"),
		"search.components.entropy":         config.Durations(0, time.Hour).Doc("", "the time constant with which the distribution returns to uniform"),
		"search.components.robot_pos":       config.Durations(0, time.Hour).Doc("", "the time constant with which the robot's own segment loses probability while it does not see the ball there"),
		"search.components.flip_reset":      config.Bool().Doc("", "resets the distribution to uniform on mislocalisation"),
		"search.components.penalised_reset": config.Bool().Doc("", "resets the distribution to uniform while the robot is penalised"),
		"search.team.max_age":               config.Durations(0, time.Hour).Doc("", "leaves out a teammate's distribution older than this"),
		"search.travel.speed":               config.Between(0, 10, true, false).Doc("m/s", "the walking speed that turns distances into travel times"),
		"search.travel.turn_speed":          config.Between(0, 10, true, false).Doc("rad/s", "the turn rate that turns angles into travel times"),
		"search.travel.search":              config.Durations(0, time.Hour).Doc("", "the time a visit to a search location is charged for its scan and spin"),
		"search.arrive":                     config.Between(0, 10, true, false).Doc("m", "how close to a search location counts as there"),
		"search.walk_timeout":               config.Durations(time.Nanosecond, time.Hour).Doc("", "gives up walking to a search location (blocked, or lost) after this time"),
		"search.scan_time":                  config.Durations(0, time.Hour).Doc("", "how long the head scans at a location (2017) or at a point (2016)"),
		"search.spin_speed":                 config.Range(0, 10).Doc("rad/s", "the turn rate of the spin at a location (0: no spin)"),
		"search.sweep.cell":                 config.Range(0.2, 2).Doc("m", "the belief grid's cell size"),
		"search.sweep.see_distance":         config.Range(0, 6).Doc("m", "how far a robot is taken to have looked: cells nearer count as seen"),
		"search.sweep.see_angle":            config.Range(0, math.Pi).Doc("rad", "how far from its heading a robot is taken to have looked (the head scan plus half the field of view)"),
		"search.sweep.see_time":             config.Durations(time.Millisecond, time.Minute).Doc("", "the time constant with which looking at a cell takes its mass"),
		"search.sweep.mate_share":           config.Range(0, 1).Doc("fraction", "the share of a teammate's reported view that counts"),
		"search.sweep.regrow":               config.Durations(time.Millisecond, time.Hour).Doc("", "the time constant with which seen cells grow back to the prior"),
		"search.sweep.ball_mass":            config.Range(0, 1000).Doc("", "the mass put into the cell where the ball was seen (a cell's prior is 1)"),
		"search.sweep.inset":                config.Range(0, 3).Doc("m", "how far inside the lines the outermost viewpoints are"),
		"search.sweep.spacing":              config.Range(0.25, 10).Doc("m", "the spacing of the viewpoint lattice"),
		"search.sweep.look":                 config.Durations(0, time.Minute).Doc("", "the time charged for looking at a viewpoint, added to the walk there"),
		"search.sweep.max_look":             config.Durations(time.Millisecond, time.Minute).Doc("", "the longest look at a viewpoint"),
		"search.sweep.done":                 config.Range(0, 1).Doc("fraction", "ends a look when the mass left in reach is below this share of what was there on arrival"),
		"search.sweep.claim":                config.Range(0, 1).Doc("fraction", "discounts cells within see_distance of a teammate's search target by this share"),
		"search.sweep.keep":                 config.Range(1, 100).Doc("factor", "how much a new viewpoint's utility must beat the current one's to replace it while walking"),
		"search.sweep.replan":               config.Durations(time.Millisecond, time.Minute).Doc("", "how often a robot walking to a viewpoint chooses again"),
		"team.ball_age":                     config.Durations(time.Nanosecond, time.Hour).Doc("", "how old a teammate's ball (report age plus transit), or the robot's own last sighting of a ball now behind it, may be for this robot to go for it"),
		"team.mate_age":                     config.Durations(time.Nanosecond, time.Hour).Doc("", "how old a teammate's message may be for its position to be avoided and its search target counted"),
		"team.clock_tolerance":              config.Durations(0, time.Minute).Doc("", "the clock difference to a teammate beyond which the team clock follows the lowest-numbered robot"),
	}
}

// Validate checks every setting against Rules, then what relates
// settings: the role priorities, the sweep and the 2017 grid on the SPL
// field, and the kick's reach.
func (c *Config) Validate() error {
	if err := config.CheckSection("behaviour", c, c.Rules()); err != nil {
		return err
	}
	if err := c.Roles.Validate(); err != nil {
		return fmt.Errorf("behaviour: %w", err)
	}
	if err := c.Search.Sweep.Validate(field.SPL()); err != nil {
		return fmt.Errorf("behaviour: %w", err)
	}
	if _, err := search.NewGrid(field.SPL(), c.Search.ReliableDistance-c.Search.Margin); err != nil {
		return fmt.Errorf("behaviour: search: %w", err)
	}
	if c.Kick.Reach.X >= c.Kick.Reach.Y {
		return fmt.Errorf("behaviour: kick.reach.X %v is not below kick.reach.Y %v", c.Kick.Reach.X, c.Kick.Reach.Y)
	}
	return nil
}
