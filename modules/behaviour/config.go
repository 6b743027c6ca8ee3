package behaviour

import (
	"fmt"
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
	// target's heading.
	FaceDistance float64 `json:"face_distance"`
	// AvoidRadius is how close to a teammate the path may pass.
	AvoidRadius float64 `json:"avoid_radius"`
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
	// kick's direction (the kick turns by up to motion's max direction).
	MaxAngle hal.Radians `json:"max_angle"`
	// Timeout gives up a kick that motion does not start.
	Timeout config.Duration `json:"timeout"`
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
	// for it (the report's age plus its time in transit).
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
			FaceDistance: 0.5, AvoidRadius: 0.5, CameraHeight: 0.5},
		Kick: KickConfig{Enabled: true, Behind: 0.22, Reach: hal.Vec2{X: 0.1, Y: 0.22},
			MaxOffset: 0.025, FootOffset: 0.05, MaxAngle: 0.15, Timeout: config.Duration(4 * time.Second)},
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

// Validate checks the configuration.
func (c *Config) Validate() error {
	if c.Player < 0 || c.Player > 20 {
		return fmt.Errorf("behaviour: player %d outside 0..20", c.Player)
	}
	if err := c.Roles.Validate(); err != nil {
		return fmt.Errorf("behaviour: %w", err)
	}
	switch c.Search.Strategy {
	case "2016", "2017", "sweep":
	default:
		return fmt.Errorf("behaviour: search.strategy %q: want \"2016\", \"2017\" or \"sweep\"", c.Search.Strategy)
	}
	if err := c.Search.Sweep.Validate(field.SPL()); err != nil {
		return fmt.Errorf("behaviour: %w", err)
	}
	if _, err := search.NewGrid(field.SPL(), c.Search.ReliableDistance-c.Search.Margin); err != nil {
		return fmt.Errorf("behaviour: search: %w", err)
	}
	w := &c.Walk
	switch {
	case w.Speed <= 0 || w.TurnSpeed <= 0 || w.SideSpeed < 0 || w.TurnGain <= 0:
		return fmt.Errorf("behaviour: walk speeds and gain must be positive")
	case c.Search.Arrive <= 0 || c.Search.ScanTime < 0 || c.Search.SpinSpeed < 0 || c.Search.WalkTimeout <= 0:
		return fmt.Errorf("behaviour: search arrive, scan_time, spin_speed, walk_timeout out of range")
	case c.Search.Travel.Speed <= 0 || c.Search.Travel.TurnSpeed <= 0:
		return fmt.Errorf("behaviour: search.travel speeds must be positive")
	case c.Kick.Reach.X >= c.Kick.Reach.Y || c.Kick.Behind <= 0:
		return fmt.Errorf("behaviour: kick reach and behind out of range")
	case c.Team.BallAge <= 0 || c.Team.MateAge <= 0:
		return fmt.Errorf("behaviour: team ball_age and mate_age must be positive")
	}
	return nil
}
