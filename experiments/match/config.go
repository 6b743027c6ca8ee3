// Package match plays games between two robotd teams in a simulator: the
// game runner (the embedded simulator in sync mode behind a gate, or a
// running rcssserver3d), the referee (a simulated GameController that
// judges from the simulator's ground truth and sends real UDP packets to
// the robots' GameController clients), campaigns of games with a
// resumable SQLite store, shards, merging, and the report.
package match

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/experiments/findball"
	"github.com/robotd/robotd/proto/gamecontroller"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/teamcomm"
)

// Team is one side's robot configuration: robotd's settings (config.Set
// key=value, as `robotd -set`) over the match's defaults.
type Team struct {
	Name string   `json:"name"`
	Set  []string `json:"set"`
	// Number is the team's SPL team number.
	Number int `json:"number"`
	// Starts, if not empty, replace the campaign's starts for this team.
	Starts []findball.Start `json:"starts,omitempty"`
}

// Config is a campaign of games between team A (a change) and team B
// (the baseline). Everything a game's outcome depends on is in it; two
// databases merge only if their campaigns are equal.
type Config struct {
	A Team `json:"a"`
	B Team `json:"b"`
	// Players is each team's number of robots (player 1 is the
	// goalkeeper).
	Players int `json:"players"`
	// Seeds is the number of seeds; each seed is played twice, team A
	// kicking off first in one game and team B in the other, which pairs
	// them.
	Seeds int `json:"seeds"`
	// Seed is the campaign's seed; the games' seeds derive from it.
	Seed uint64 `json:"seed"`
	// Half is a half's playing time (the SPL's 10 min; shortened for quick
	// campaigns).
	Half config.Duration `json:"half"`
	// Referee is the simulated GameController's game and rules.
	Referee RefereeConfig `json:"referee"`
	// Layout is the GameController packets' layout: "spl" or "hsl".
	Layout string `json:"layout"`
	// Physics is the embedded simulator's world model ("ode" or
	// "kinematic").
	Physics string `json:"physics"`
	// Sample is the interval of the recorded trajectories.
	Sample config.Duration `json:"sample"`
	// Network is each team's simulated team network; its seed is the
	// game's.
	Network teamcomm.BusConfig `json:"network"`
	// Starts are the robots' poses in INITIAL, in the team's frame
	// (metres, degrees), player 1 first; a team of more players than
	// starts stands the rest along the side line.
	Starts []findball.Start `json:"starts"`
}

// RefereeConfig is the simulated GameController's game: its phases'
// lengths and how it judges.
type RefereeConfig struct {
	Initial  config.Duration `json:"initial"`
	Ready    config.Duration `json:"ready"`
	Set      config.Duration `json:"set"`
	HalfTime config.Duration `json:"half_time"`
	SetPlay  config.Duration `json:"set_play"`
	Penalty  config.Duration `json:"penalty"`
	// FallenLimit: a robot lying longer is taken out (request for
	// pick-up).
	FallenLimit config.Duration `json:"fallen_limit"`
	// LeaveMargin: a robot farther outside the field's lines has left
	// the field.
	LeaveMargin float64 `json:"leave_margin"`
	// TouchRadius: a robot whose feet's centre is this near the ball's
	// centre touches it.
	TouchRadius float64 `json:"touch_radius"`
	// Step is how often the referee looks at the game (simulation time).
	Step config.Duration `json:"step"`
	// Every is the packets' period (the SPL GameController's 500 ms); a
	// change of the game state is sent at once.
	Every config.Duration `json:"every"`
}

// DefaultConfig returns the defaults: 5 vs 5 on the SPL field, halves of
// 10 minutes, 10 seeds (20 games), the physics mode, the SPL layout.
func DefaultConfig() Config {
	return Config{
		A: Team{Name: "a", Number: 1, Set: []string{}}, B: Team{Name: "b", Number: 2, Set: []string{}},
		Players: 5, Seeds: 10, Seed: 1, Half: config.Duration(10 * time.Minute),
		Referee: DefaultRefereeConfig(), Layout: gamecontroller.LayoutSPL.String(), Physics: simserver.PhysicsODE,
		Sample: config.Duration(time.Second), Network: teamcomm.DefaultBusConfig(),
		Starts: SidelineStarts,
	}
}

// DefaultRefereeConfig returns the SPL's numbers where the rules give one
// (READY at most 45 s, SET, set plays of 30 s, penalties of 45 s) and
// robotd's judging thresholds.
func DefaultRefereeConfig() RefereeConfig {
	return RefereeConfig{Initial: config.Duration(2 * time.Second), Ready: config.Duration(25 * time.Second),
		Set: config.Duration(5 * time.Second), HalfTime: config.Duration(10 * time.Second),
		SetPlay: config.Duration(30 * time.Second), Penalty: config.Duration(45 * time.Second),
		FallenLimit: config.Duration(15 * time.Second), LeaveMargin: 0.3, TouchRadius: 0.25,
		Step: config.Duration(100 * time.Millisecond), Every: config.Duration(500 * time.Millisecond)}
}

// SidelineStarts are the robots' poses in INITIAL: on the own half's side
// lines facing into the field, as SPL robots enter the field; the
// goalkeeper nearest its goal.
var SidelineStarts = []findball.Start{
	{Player: 1, X: -4.0, Y: -3, Deg: 90},
	{Player: 2, X: -1.0, Y: -3, Deg: 90},
	{Player: 3, X: -2.5, Y: 3, Deg: -90},
	{Player: 4, X: -2.5, Y: -3, Deg: 90},
	{Player: 5, X: -1.0, Y: 3, Deg: -90},
}

// Rules returns the allowed values and the documentation of every
// setting of a campaign.
func (c *Config) Rules() config.Rules {
	r := config.Rules{
		"a.name":   config.Text(1, 40).Doc("", "team A's name (the change)"),
		"a.set":    config.Each(config.Text(3, 200)).Doc("", "team A's robotd settings, key=value"),
		"a.number": config.Int(1, 99).Doc("", "team A's SPL team number"),
		"a.starts": config.Each(config.Each(config.Range(-360, 360))).Doc("", "team A's own starts, replacing starts"),
		"b.name":   config.Text(1, 40).Doc("", "team B's name (the baseline)"),
		"b.set":    config.Each(config.Text(3, 200)).Doc("", "team B's robotd settings, key=value"),
		"b.number": config.Int(1, 99).Doc("", "team B's SPL team number"),
		"b.starts": config.Each(config.Each(config.Range(-360, 360))).Doc("", "team B's own starts, replacing starts"),
		"players":  config.Int(1, 7).Doc("", "robots per team (player 1 keeps goal)"),
		"seeds":    config.Int(1, 100000).Doc("", "seeds; each is played twice, each team kicking off first once"),
		"seed":     config.Uint().Doc("", "the campaign's seed"),
		"half":     config.Durations(time.Second, time.Hour).Doc("", "a half's playing time (SPL: 10 min)"),
		"layout":   config.OneOf("spl", "hsl").Doc("", "the GameController packets' layout"),
		"physics":  config.OneOf(simserver.PhysicsODE, simserver.PhysicsKinematic).Doc("", "the embedded simulator's world model"),
		"sample":   config.Durations(100*time.Millisecond, time.Minute).Doc("", "the recorded trajectories' interval"),
		"starts":   config.Each(config.Each(config.Range(-360, 360))).Doc("", "the robots' poses in INITIAL (player, x, y in m, deg) in the team's frame"),

		"network.loss":      config.Range(0, 1).Doc("", "the probability that a team message is lost, per receiver"),
		"network.duplicate": config.Range(0, 1).Doc("", "the probability that a team message arrives twice"),
		"network.latency":   config.Durations(0, time.Second).Doc("", "each team message's delay (tick time)"),
		"network.jitter":    config.Durations(0, time.Second).Doc("", "a uniform random share of this is added to the delay"),
		"network.seed":      config.Uint().Doc("", "the faults' seed (each game sets it from its own)"),
		"network.queue":     config.Int(1, 1<<16).Doc("", "team messages in flight to one robot (the oldest are dropped)"),
	}
	return r.Add("referee", c.Referee.Rules())
}

// Rules returns the allowed values and the documentation of the referee's
// settings.
func (c *RefereeConfig) Rules() config.Rules {
	return config.Rules{
		"initial":      config.Durations(0, time.Minute).Doc("", "how long INITIAL lasts at the start"),
		"ready":        config.Durations(time.Second, 45*time.Second).Doc("", "how long READY lasts (SPL: at most 45 s)"),
		"set":          config.Durations(0, time.Minute).Doc("", "how long SET lasts"),
		"half_time":    config.Durations(0, 10*time.Minute).Doc("", "the break between the halves"),
		"set_play":     config.Durations(time.Second, time.Minute).Doc("", "a set play's longest time (SPL: 30 s)"),
		"penalty":      config.Durations(time.Second, 5*time.Minute).Doc("", "a penalty's time (SPL: 45 s)"),
		"fallen_limit": config.Durations(time.Second, 5*time.Minute).Doc("", "a robot lying longer is taken out (request for pick-up)"),
		"leave_margin": config.Range(0, 0.7).Doc("m", "a robot farther outside the lines has left the field"),
		"touch_radius": config.Range(0.05, 1).Doc("m", "a robot whose feet's centre is this near the ball's touches it"),
		"step":         config.Durations(10*time.Millisecond, time.Second).Doc("", "how often the referee looks at the game"),
		"every":        config.Durations(10*time.Millisecond, 4*time.Second).Doc("", "the packets' period; a change is sent at once"),
	}
}

// Validate checks the campaign against Rules and what relates keys.
func (c *Config) Validate() error {
	if err := config.CheckSection("match", c, c.Rules()); err != nil {
		return err
	}
	if c.A.Number == c.B.Number {
		return fmt.Errorf("match: teams A and B have the same team number %d", c.A.Number)
	}
	if c.Referee.Every.D() < c.Referee.Step.D() {
		return fmt.Errorf("match: referee.every %v is shorter than referee.step %v", c.Referee.Every.D(), c.Referee.Step.D())
	}
	if _, err := c.robot(c.A); err != nil {
		return err
	}
	_, err := c.robot(c.B)
	return err
}

// robot resolves a team's robot configuration: robotd's defaults with the
// simulator backend's, the match's game settings, then the team's.
func (c *Config) robot(t Team) (findball.RobotConfig, error) {
	rc := findball.DefaultRobotConfig()
	rc.GameController.HalfLength = c.Half
	rc.GameController.Layout = c.Layout
	for _, kv := range t.Set {
		if err := config.Set(&rc, kv, findball.DefaultRobotConfig); err != nil {
			return rc, fmt.Errorf("match: team %s: %s: %w", t.Name, kv, err)
		}
	}
	if err := rc.Config.Validate(); err != nil {
		return rc, fmt.Errorf("match: team %s: %w", t.Name, err)
	}
	if err := rc.Sim.Validate(); err != nil {
		return rc, fmt.Errorf("match: team %s: %w", t.Name, err)
	}
	return rc, nil
}

// ParseTeam reads "name" or "name:key=value;key=value".
func ParseTeam(s string, number int) (Team, error) {
	name, sets, _ := strings.Cut(strings.TrimSpace(s), ":")
	t := Team{Name: strings.TrimSpace(name), Number: number, Set: []string{}}
	if t.Name == "" {
		return Team{}, fmt.Errorf("match: team %q has no name", s)
	}
	for kv := range strings.SplitSeq(sets, ";") {
		if kv = strings.TrimSpace(kv); kv != "" {
			if !strings.Contains(kv, "=") {
				return Team{}, fmt.Errorf("match: team %q: %q is not key=value", s, kv)
			}
			t.Set = append(t.Set, kv)
		}
	}
	return t, nil
}

// Encode returns the campaign as indented JSON.
func (c *Config) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("match: encoding the campaign: %w", err)
	}
	return b.Bytes(), nil
}

// Game is one game of a campaign.
type Game struct {
	// Index is the game's place in the plan (0-based); shards split by it.
	Index int
	// Pair is the seed's number (1-based); Seed the game's seed, the same
	// for both games of a pair.
	Pair int
	Seed uint64
	// BFirst: team B kicks off first (and plays on SimSpark's left side),
	// else team A.
	BFirst bool
}

// ID names the game in the database.
func (g Game) ID() string {
	first := "a"
	if g.BFirst {
		first = "b"
	}
	return fmt.Sprintf("%03d-%s", g.Pair, first)
}

// Plan lists the campaign's games: per seed, team A kicking off first,
// then team B.
func (c *Config) Plan() []Game {
	var gs []Game
	for p := 1; p <= c.Seeds; p++ {
		seed := mix(c.Seed, uint64(p))
		for _, b := range []bool{false, true} {
			gs = append(gs, Game{Index: len(gs), Pair: p, Seed: seed, BFirst: b})
		}
	}
	return gs
}

// mix derives an unrelated seed for consumer k of seed.
func mix(seed, k uint64) uint64 {
	return rand.New(rand.NewPCG(seed, k^0x9e3779b97f4a7c15)).Uint64() | 1
}
