package findball

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/modules/behaviour"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/teamcomm"
)

// Point is a field position in metres, in the team's frame (own goal at
// negative x).
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Start is a robot's starting pose: its player number and where it stands
// penalised at the start of each trial (metres, degrees in the team's
// frame; 0 faces the opponent goal).
type Start struct {
	Player int     `json:"player"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Deg    float64 `json:"deg"`
}

// Strategy is a named robot configuration. Robot is what it changes in
// the campaign's robot configuration (Config.Robot): a part of robotd's
// configuration file, its sections and keys as `robotd -print-config`
// writes them (and the sim section), decoded strictly over it. A strategy
// that changes nothing, named "2016" or "2017" (or any other name
// behaviour knows), sets behaviour.search.strategy to its name.
type Strategy struct {
	Name  string          `json:"name"`
	Robot json.RawMessage `json:"robot,omitempty"`
}

// Config is a campaign: what runs, and everything a trial's outcome
// depends on. Two databases merge only if their campaigns are equal.
type Config struct {
	// Strategies are compared; every one runs every trial.
	Strategies []Strategy `json:"strategies"`
	// Balls are the ball positions (thesis table 5.2).
	Balls []Point `json:"balls"`
	// Starts are the robots and their starting poses (thesis table 5.1);
	// their number is the number of robots.
	Starts []Start `json:"starts"`
	// Trials is the number of trials per ball position and strategy.
	Trials int `json:"trials"`
	// Limit ends a trial that has not found the ball (180 s), in
	// simulation time.
	Limit config.Duration `json:"limit"`
	// FoundDistance: the ball is found when a robot sees it and is within
	// this distance of it (0.3 m, inclusive).
	FoundDistance float64 `json:"found_distance"`
	// ReliableDistance is the ball detector's reliable distance (2.5 m):
	// the vision adapter drops balls beyond it and the 2017 search sizes
	// its grid from it.
	ReliableDistance float64 `json:"reliable_distance"`
	// Penalised is how long, at least, the robots stand penalised at
	// their starts (standing up) before they are unpenalised, in
	// simulation time: play starts at the next multiple of the robots'
	// role allocation period after it (on every simulator at the same
	// phase of their epochs), and the ball is placed a second before.
	Penalised config.Duration `json:"penalised"`
	// Sample is the interval of the recorded trajectories.
	Sample config.Duration `json:"sample"`
	// Seed is the campaign's seed; each trial's seed derives from it and
	// the trial's position and number, the same for every strategy.
	Seed uint64 `json:"seed"`
	// Team is the robots' SPL team number.
	Team int `json:"team"`
	// Network is the simulated team network (loss, latency); its seed is
	// each trial's.
	Network teamcomm.BusConfig `json:"network"`
	// Robot is every robot's configuration before its strategy's changes,
	// identity and seeds; the campaign's reliable ball distance is set in
	// it for every strategy where it leaves robotd's default
	// (behaviour.search.reliable_distance, sim.vision.reliable_ball_distance).
	Robot RobotConfig `json:"robot"`
	// PlayOn runs every trial to the limit, the robots playing on after
	// the ball is found (the striker kicks it, roles change): the role
	// scenario. The find time is still the first find.
	PlayOn bool `json:"play_on,omitempty"`
	// Physics is the embedded simulator's world model
	// (simserver.Config.Physics): "ode" (the default: rcssserver3d's
	// dynamics, a build with -tags ode) or "kinematic" ("" in a stored
	// campaign). The kinematic model's find rates and times fall outside
	// the physics mode's 95 % confidence intervals on the same campaign
	// (README), so it is only for quick runs that judge no strategy. A
	// campaign on an attached server ignores it.
	Physics string `json:"physics,omitempty"`
	// SimSeed, when not 0, is mixed into the embedded simulator's seed
	// (its vision noise and calibration errors) and into nothing else.
	// Two campaigns that differ only in it pair each trial with the same
	// one under other noise: how far apart that alone puts them is the
	// least a paired comparison with another simulator, whose noise is
	// its own (a real server's), can show. An attached server ignores it.
	SimSeed uint64 `json:"sim_seed,omitempty"`
	// Noise says who draws the vision noise: the simulator ("" or
	// NoiseServer: the SPL fork's RestrictedVisionPerceptor, and the
	// embedded simulator's model of it) or the robots (NoiseRobot: each
	// robot adds noise of the same size to what it is sent, seeded by the
	// trial and its player number, and the embedded simulator adds none).
	// With NoiseRobot the trials on two simulators draw the same noise
	// (common random numbers), so their paired differences are the
	// simulators' own; an attached server must then run with its vision
	// perceptor's noise off (docs/findball.md).
	Noise string `json:"noise,omitempty"`
}

// Who draws the vision noise (Config.Noise).
const (
	NoiseServer = "server"
	NoiseRobot  = "robot"
)

// The SPL fork's vision noise (naoneckhead.rsg: setNoiseParams 3.000
// 3.1225 3.1480 …): σ 3 % of the distance, 3.1225° and 3.1480° on the
// two angles; a robot's noise (NoiseRobot) takes their mean for both.
const (
	forkNoiseDistance = 0.03
	forkNoiseAngleDeg = (3.1225 + 3.1480) / 2
)

// ThesisBalls is the thesis' table 5.2 (metres).
var ThesisBalls = []Point{
	{2.25, 0}, {4, -2.5}, {4, 2.5}, {4.5, 3}, {2.25, 3},
	{-4.5, 3}, {4.5, 0}, {-3.5, 0}, {4.5, -3}, {-4.5, -1},
}

// ThesisStarts is the thesis' table 5.1: robots 2, 3 and 4 on the side
// lines, facing into the field.
var ThesisStarts = []Start{
	{Player: 2, X: -3.25, Y: 3, Deg: -90},
	{Player: 3, X: -2, Y: -3, Deg: 90},
	{Player: 4, X: -1.75, Y: 3, Deg: -90},
}

// PositionSet is a named set of ball positions with the robots' starts.
type PositionSet struct {
	Name   string
	About  string
	Balls  []Point
	Starts []Start
}

// SpreadBalls are ten ball positions of robotd's own, spread over the
// whole field: four near the side lines, two near the goal lines, two
// near corners (one in each half) and two inside, in both halves and on
// both sides; none is one of the thesis' positions.
var SpreadBalls = []Point{
	{1.0, -1.5}, {3.0, 1.0}, {-2.5, -2.8}, {0.0, 2.9}, {4.4, -1.5},
	{-4.4, 2.8}, {2.0, -2.9}, {-1.0, 1.2}, {3.8, 2.9}, {-3.8, -1.8},
}

// SpreadStarts are the spread set's robot starts: one near the centre
// spot facing the opponent goal, one in front of its own goal turned to
// the right side, one on the right side line at the halfway line facing
// into the field (where a robot comes back from a penalty).
var SpreadStarts = []Start{
	{Player: 2, X: -1.0, Y: 0, Deg: 0},
	{Player: 3, X: -3.5, Y: -1.0, Deg: 30},
	{Player: 4, X: 0, Y: -3, Deg: 90},
}

// PositionSets are the named position sets: the thesis' tables 5.1 and
// 5.2, and robotd's own spread set.
var PositionSets = []PositionSet{
	{Name: "thesis", About: "the thesis' tables 5.2 (balls) and 5.1 (starts on the side lines)", Balls: ThesisBalls, Starts: ThesisStarts},
	{Name: "spread", About: "ten balls over the whole field, near lines and corners too; robots start near the centre, in front of the own goal and on a side line", Balls: SpreadBalls, Starts: SpreadStarts},
}

// LookupPositions returns the named position set.
func LookupPositions(name string) (PositionSet, error) {
	var names []string
	for _, ps := range PositionSets {
		if ps.Name == name {
			return ps, nil
		}
		names = append(names, ps.Name)
	}
	return PositionSet{}, fmt.Errorf("experiment: no position set %q (want one of %s)", name, strings.Join(names, ", "))
}

// DefaultConfig returns the thesis' experiment (§5.1): three
// robots, ten ball positions, ten trials each, 180 s, 300 mm, a reliable
// ball distance of 2.5 m, and the 2016 and 2017 searches.
func DefaultConfig() Config {
	return Config{
		Strategies:       []Strategy{{Name: behaviour.StrategyFixedPoints}, {Name: behaviour.StrategyProbabilistic}},
		Balls:            append([]Point(nil), ThesisBalls...),
		Starts:           append([]Start(nil), ThesisStarts...),
		Trials:           10,
		Limit:            config.Duration(180 * time.Second),
		FoundDistance:    0.3,
		ReliableDistance: 2.5,
		Penalised:        config.Duration(3 * time.Second),
		Sample:           config.Duration(500 * time.Millisecond),
		Seed:             1,
		Team:             17,
		Network:          teamcomm.DefaultBusConfig(),
		Physics:          simserver.PhysicsODE,
		Robot:            defaultCampaignRobot(),
	}
}

// DefaultRobotConfig is robotd's default configuration with the simulator
// backend's: what RobotConfig's settings are decoded over.
func DefaultRobotConfig() RobotConfig {
	return RobotConfig{Config: robot.DefaultConfig(), Sim: sim.DefaultConfig()}
}

// defaultCampaignRobot is robotd's defaults with the find-ball campaign's
// team-message budget: three robots share the SPL's 1200 team messages
// per game, one allocation epoch (and message) each every 3.5 s, as the
// find-ball scenario runs them.
func defaultCampaignRobot() RobotConfig {
	rc := DefaultRobotConfig()
	rc.Behaviour.Roles.Period = config.Duration(3500 * time.Millisecond)
	return rc
}

// Validate checks the campaign, including every strategy's robot
// configuration.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("experiment: "+format, a...)) }
	if len(c.Strategies) == 0 {
		bad("no strategies")
	}
	seen := map[string]bool{}
	for _, s := range c.Strategies {
		if s.Name == "" || strings.ContainsAny(s.Name, "/:=, \t") {
			bad("strategy name %q: want a non-empty name without '/', ':', '=', ',' or spaces", s.Name)
		}
		if seen[s.Name] {
			bad("strategy %q twice", s.Name)
		}
		seen[s.Name] = true
	}
	if len(c.Balls) == 0 {
		bad("no ball positions")
	}
	for i, b := range c.Balls {
		if !finite(b.X, b.Y) || math.Abs(b.X) > 6 || math.Abs(b.Y) > 4.5 {
			bad("ball position %d (%v, %v) is off the field's carpet", i+1, b.X, b.Y)
		}
	}
	if len(c.Starts) == 0 {
		bad("no robots")
	}
	players := map[int]bool{}
	for _, s := range c.Starts {
		if s.Player < 1 || s.Player > 20 || players[s.Player] {
			bad("start: player %d outside 1..20 or twice", s.Player)
		}
		players[s.Player] = true
		if !finite(s.X, s.Y, s.Deg) || math.Abs(s.X) > 6 || math.Abs(s.Y) > 4.5 {
			bad("start of player %d (%v, %v) is off the field's carpet", s.Player, s.X, s.Y)
		}
	}
	switch {
	case c.Trials < 1:
		bad("trials %d: want at least 1", c.Trials)
	case c.Limit <= 0:
		bad("limit %v must be positive", c.Limit.D())
	case !(c.FoundDistance > 0):
		bad("found_distance %v must be positive", c.FoundDistance)
	case !(c.ReliableDistance > 0):
		bad("reliable_distance %v must be positive", c.ReliableDistance)
	case c.Penalised.D() < 100*time.Millisecond:
		bad("penalised %v: want at least 100ms", c.Penalised.D())
	case c.Sample.D() < 10*time.Millisecond:
		bad("sample %v: want at least 10ms", c.Sample.D())
	case c.Team < 1 || c.Team > 255:
		bad("team %d outside 1..255", c.Team)
	case c.Physics != "" && c.Physics != simserver.PhysicsKinematic && c.Physics != simserver.PhysicsODE:
		bad("physics %q: want %q or %q", c.Physics, simserver.PhysicsKinematic, simserver.PhysicsODE)
	case c.Noise != "" && c.Noise != NoiseServer && c.Noise != NoiseRobot:
		bad("noise %q: want %q or %q", c.Noise, NoiseServer, NoiseRobot)
	}
	if _, err := teamcomm.NewBus(c.Network); err != nil {
		bad("network: %w", err)
	}
	if len(errs) == 0 {
		for _, s := range c.Strategies {
			if _, err := c.robotConfig(s); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Strategy returns the named strategy.
func (c *Config) Strategy(name string) (Strategy, bool) {
	for _, s := range c.Strategies {
		if s.Name == name {
			return s, true
		}
	}
	return Strategy{}, false
}

// ParseStrategy reads "name" or "name:key=value;key=value", the settings
// robotd's (config.Set), into a strategy whose Robot is those settings
// with the values they give c.Robot.
func (c *Config) ParseStrategy(s string) (Strategy, error) {
	name, sets, has := strings.Cut(strings.TrimSpace(s), ":")
	st := Strategy{Name: strings.TrimSpace(name)}
	if st.Name == "" {
		return Strategy{}, fmt.Errorf("experiment: strategy %q has no name", s)
	}
	if !has {
		return st, nil
	}
	rc := c.Robot
	var keys []string
	for kv := range strings.SplitSeq(sets, ";") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		if err := config.Set(&rc, kv, DefaultRobotConfig); err != nil {
			return Strategy{}, fmt.Errorf("experiment: strategy %q: %s: %w", s, kv, err)
		}
		key, _, _ := strings.Cut(kv, "=")
		keys = append(keys, key)
	}
	layer, err := config.Layer(rc, keys)
	if err != nil {
		return Strategy{}, fmt.Errorf("experiment: strategy %q: %w", s, err)
	}
	st.Robot = layer
	return st, nil
}

// RobotConfig is one robot's whole configuration, laid out as robotd's
// configuration file: the modules' sections and the simulator backend's.
type RobotConfig struct {
	robot.Config
	Sim sim.Config `json:"sim"`
}

// robotConfig resolves a strategy's robot configuration, before each
// robot's identity and seeds: the campaign's, with the strategy's search
// or its changes, and the campaign's reliable ball distance.
func (c *Config) robotConfig(s Strategy) (RobotConfig, error) {
	// Over the defaults, as robotd reads a configuration file: the
	// settings that are no file's (identity, seeds) keep theirs.
	rc := DefaultRobotConfig()
	raw, err := json.Marshal(c.Robot)
	if err != nil {
		return RobotConfig{}, fmt.Errorf("experiment: encoding the robot configuration: %w", err)
	}
	if err := config.DecodeWritten(bytes.NewReader(raw), &rc); err != nil {
		return RobotConfig{}, fmt.Errorf("experiment: the robot configuration: %w", err)
	}
	// The campaign's reliable ball distance, where the robot section
	// leaves robotd's default: a robot setting (findball -set) wins.
	def := DefaultRobotConfig()
	if rc.Behaviour.Search.ReliableDistance == def.Behaviour.Search.ReliableDistance {
		rc.Behaviour.Search.ReliableDistance = c.ReliableDistance
	}
	if rc.Sim.Vision.ReliableBallDistance == def.Sim.Vision.ReliableBallDistance {
		rc.Sim.Vision.ReliableBallDistance = c.ReliableDistance
	}
	if len(s.Robot) == 0 {
		rc.Behaviour.Search.Strategy = s.Name
	} else if err := config.Decode(bytes.NewReader(s.Robot), &rc); err != nil {
		return RobotConfig{}, fmt.Errorf("experiment: strategy %s: %w", s.Name, err)
	}
	if err := rc.Config.Validate(); err != nil {
		return RobotConfig{}, fmt.Errorf("experiment: strategy %s: %w", s.Name, err)
	}
	if err := rc.Sim.Validate(); err != nil {
		return RobotConfig{}, fmt.Errorf("experiment: strategy %s: %w", s.Name, err)
	}
	return rc, nil
}

// Hash returns a short hash of the resolved configuration.
func (rc *RobotConfig) Hash() (string, []byte, error) {
	b, err := json.Marshal(rc)
	if err != nil {
		return "", nil, fmt.Errorf("experiment: encoding a robot configuration: %w", err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8]), b, nil
}

// LoadBalls reads ball positions from a file: one "x y" or "x,y" per
// line, in millimetres as the thesis' tables give them when any value is
// beyond 20 (else metres); blank lines and lines starting with # are
// skipped.
func LoadBalls(path string) ([]Point, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: ball positions: %w", err)
	}
	var pts []Point
	mm := false
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == ';' })
		if len(f) != 2 {
			return nil, fmt.Errorf("experiment: %s:%d: want two numbers, x and y", path, n+1)
		}
		x, err1 := strconv.ParseFloat(f[0], 64)
		y, err2 := strconv.ParseFloat(f[1], 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("experiment: %s:%d: %w", path, n+1, err)
		}
		if math.Abs(x) > 20 || math.Abs(y) > 20 {
			mm = true
		}
		pts = append(pts, Point{x, y})
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("experiment: %s: no ball positions", path)
	}
	if mm {
		for i := range pts {
			pts[i].X, pts[i].Y = pts[i].X/1000, pts[i].Y/1000
		}
	}
	return pts, nil
}
