// Package roles is robotd's role allocation: TeamChaos' Switch! (AIBO
// four-legged league), made consistent under packet loss.
//
// Switch!: every robot computes, for every robot and role, a utility (here
// a cost in seconds, lower is better) from shared state; roles are assigned
// in priority order, each to the robot with the best utility among those
// not yet assigned; a role-change cost added to every role but a robot's
// current one gives hysteresis; a teammate that falls silent is dropped,
// and with fewer robots the lowest-priority roles are the ones left
// unassigned. The goalkeeper is fixed (its player number comes from the
// GameController or the configuration) unless it is incapacitated.
//
// Consistency: Switch! lets every robot decide alone, so robots decide
// alike only if they decide from the same data. Here the data are role
// records (msg.RoleRecord): each robot's inputs to the allocation, one per
// allocation epoch, sent in its team message of that epoch, sent again in
// its next message, and relayed by every teammate in theirs. At the start
// of every even epoch k every robot allocates from the records of epoch
// k-2 (its own included, as sent), which by then arrived directly or
// relayed unless every copy was lost (about 0.2 % of the time at 10 % loss
// per link, with three robots), and each robot's current role, for the
// hysteresis, is the role its record says it played. The allocation is a
// function of the records alone, so robots that hold the same records
// agree, and a disagreement heals itself at the next allocation. Epochs
// are aligned to the team clock, so every robot switches at the same
// moment.
//
// Settling: the change cost of Switch! is an absolute margin, which two
// robots whose costs are nearly equal but jitter (the turn to the ball,
// a teammate's report against an own sighting) cross back and forth.
// Here a robot's cost for a role it does not play is raised by a share of
// that cost too (ChangeRatio), so the margin grows with the costs, and a
// robot that switched MaxSwitches times in the last minute says so in its
// record (Locked): the allocation leaves a locked robot in its role unless
// a role of higher priority would otherwise stay empty. The lock travels
// in the records, so every robot allocates with it alike.
//
// Kick-off: when the team starts to play (the game enters PLAYING, or the
// robots penalised together are released together), every robot takes
// its kick-off role (KickOffRole) in that tick: by player number among
// the players the GameController lets play, which every robot knows
// alike without a team message, so there is exactly one striker from the
// first tick of play however many messages are lost. The regular,
// cost-based allocations with their hysteresis take over once records
// from after the kick-off are complete (the third epoch after it).
package roles

import (
	"fmt"
	"math"
	"time"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// Config configures role allocation.
type Config struct {
	// Priority lists the roles in the order they are assigned (goalie,
	// striker, defender, supporter by default). Robots beyond the list
	// play supporter.
	Priority []string `json:"priority"`
	// Goalkeeper is the goalkeeper's player number when the
	// GameController does not say (0: no fixed goalkeeper).
	Goalkeeper int `json:"goalkeeper"`
	// GoalieTakeover gives the goalie role to a field player while the
	// goalkeeper, having played, is penalised or silent.
	GoalieTakeover bool `json:"goalie_takeover"`
	// ChangeCost is added to a robot's cost for every role but the one it
	// plays (seconds): the hysteresis. PositionChangeCost replaces it for
	// the positional roles (defender, supporter), whose costs move with
	// the ball and which gain little from swapping.
	ChangeCost         float64 `json:"change_cost"`
	PositionChangeCost float64 `json:"position_change_cost"`
	// ChangeRatio raises a robot's cost for a role it does not play by
	// this share of the cost (0..2): hysteresis relative to the costs,
	// which holds when two robots' costs are nearly equal.
	ChangeRatio float64 `json:"change_ratio"`
	// MaxSwitches is how many role switches a robot may make in any
	// minute (0: no limit): a robot that made as many is locked in its
	// role until the oldest is a minute old.
	MaxSwitches int `json:"max_switches"`
	// KickOff gives every robot its kick-off role (KickOffRole) when the
	// team starts to play, instead of keeping the roles it had before.
	KickOff bool `json:"kick_off"`
	// FallenCost is added to a fallen robot's costs (the time to get up).
	FallenCost float64 `json:"fallen_cost"`
	// UnknownBallCost is a robot's striker cost when it does not know
	// where the ball is.
	UnknownBallCost float64 `json:"unknown_ball_cost"`
	// Speed converts distances into times for the defender and goalie
	// costs, m/s.
	Speed float64 `json:"speed"`
	// DefenderPos and GoaliePos are where the defender and the goalie
	// stand, in the team's own field frame (metres).
	DefenderPos hal.Vec2 `json:"defender_pos"`
	GoaliePos   hal.Vec2 `json:"goalie_pos"`
	// SilentEpochs is how many epochs without a record from a teammate
	// drop it from the allocation.
	SilentEpochs int `json:"silent_epochs"`
	// Period is the length of an allocation epoch, which is also how often
	// a robot sends its team message: with the SPL's 1200 messages per
	// game of 2 × 10 minutes, 5 robots can send every 5.5 s.
	Period config.Duration `json:"period"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		Priority:   []string{"goalie", "striker", "defender", "supporter"},
		Goalkeeper: 1, GoalieTakeover: true,
		ChangeCost: 4, PositionChangeCost: 15, ChangeRatio: 0.3, MaxSwitches: 2, KickOff: true,
		FallenCost: 5, UnknownBallCost: 60, Speed: 0.2,
		DefenderPos: hal.Vec2{X: -3.2, Y: 0}, GoaliePos: hal.Vec2{X: -4.3, Y: 0},
		SilentEpochs: 3,
		Period:       config.Duration(5500 * time.Millisecond),
	}
}

// ParseRole returns the role named s.
func ParseRole(s string) (msg.Role, error) {
	for r := msg.RoleGoalie; r < msg.NumRoles; r++ {
		if r.String() == s {
			return r, nil
		}
	}
	return msg.RoleNone, fmt.Errorf("roles: unknown role %q (want goalie, striker, supporter or defender)", s)
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	seen := map[msg.Role]bool{}
	for _, s := range c.Priority {
		r, err := ParseRole(s)
		if err != nil {
			return err
		}
		if seen[r] && r != msg.RoleSupporter {
			return fmt.Errorf("roles: %s is listed twice in priority", s)
		}
		seen[r] = true
	}
	if len(c.Priority) == 0 || len(c.Priority) > msg.MaxTeammates+1 {
		return fmt.Errorf("roles: priority lists %d roles, want 1..%d", len(c.Priority), msg.MaxTeammates+1)
	}
	switch {
	case c.Goalkeeper < 0 || c.Goalkeeper > msg.MaxPlayerNumber:
		return fmt.Errorf("roles: goalkeeper %d outside 0..%d", c.Goalkeeper, msg.MaxPlayerNumber)
	case c.ChangeCost < 0 || c.PositionChangeCost < 0 || c.FallenCost < 0 || c.UnknownBallCost < 0:
		return fmt.Errorf("roles: costs must not be negative")
	case !(c.ChangeRatio >= 0 && c.ChangeRatio <= 2):
		return fmt.Errorf("roles: change_ratio %v outside 0..2", c.ChangeRatio)
	case c.MaxSwitches < 0 || c.MaxSwitches > 60:
		return fmt.Errorf("roles: max_switches %d outside 0..60", c.MaxSwitches)
	case c.Speed <= 0:
		return fmt.Errorf("roles: speed %v must be positive", c.Speed)
	case c.SilentEpochs < 1:
		return fmt.Errorf("roles: silent_epochs %d must be at least 1", c.SilentEpochs)
	case c.Period.D() < 100*time.Millisecond:
		return fmt.Errorf("roles: period %v is shorter than 100ms", c.Period.D())
	}
	return nil
}

// Allocator assigns roles. Build it once (NewAllocator) and call Allocate
// every epoch; it allocates nothing.
type Allocator struct {
	cfg      Config
	priority [msg.MaxTeammates + 1]msg.Role
	nprio    int
}

// NewAllocator returns an allocator; cfg must be valid.
func NewAllocator(cfg Config) *Allocator {
	a := &Allocator{cfg: cfg}
	for _, s := range cfg.Priority {
		r, _ := ParseRole(s)
		a.priority[a.nprio] = r
		a.nprio++
	}
	return a
}

// Cost returns robot rec's cost for role r: seconds, lower is better.
func (a *Allocator) Cost(rec *msg.RoleRecord, r msg.Role) float64 {
	var c float64
	switch r {
	case msg.RoleStriker:
		c = rec.StrikerCost
		if !rec.BallKnown {
			c = max(c, a.cfg.UnknownBallCost)
		}
	case msg.RoleDefender:
		c = rec.Pos.Dist(a.cfg.DefenderPos) / a.cfg.Speed
	case msg.RoleGoalie:
		c = rec.Pos.Dist(a.cfg.GoaliePos) / a.cfg.Speed
	}
	if rec.Fallen {
		c += a.cfg.FallenCost
	}
	if rec.Role != r {
		c *= 1 + a.cfg.ChangeRatio
		if r == msg.RoleDefender || r == msg.RoleSupporter {
			c += a.cfg.PositionChangeCost
		} else {
			c += a.cfg.ChangeCost
		}
	}
	if math.IsNaN(c) {
		c = math.Inf(1)
	}
	return c
}

// Assignment is an allocation: Roles[i] and Costs[i] belong to
// Records[i] of the input.
type Assignment struct {
	N     int
	Roles [msg.MaxTeammates + 1]msg.Role
	Costs [msg.MaxTeammates + 1]float64
}

// RoleOf returns player p's role, RoleNone if p was not allocated.
func (as *Assignment) RoleOf(recs []msg.RoleRecord, p uint8) (msg.Role, float64) {
	for i := range min(as.N, len(recs)) {
		if recs[i].Player == p {
			return as.Roles[i], as.Costs[i]
		}
	}
	return msg.RoleNone, 0
}

// Allocate assigns roles to the robots of recs (one record per robot, at
// most MaxTeammates+1; penalised robots get none). goalkeeper is the fixed
// goalkeeper's player number (0: none); goalkeeperLost says it has played
// and is now penalised or silent, which lets another robot take the goalie
// role if so configured. A locked robot keeps its role if that role is
// still free when its turn in the priority comes, and takes another only
// when no unlocked robot is left for a role of higher priority. The result
// depends only on its arguments.
func (a *Allocator) Allocate(recs []msg.RoleRecord, goalkeeper uint8, goalkeeperLost bool, out *Assignment) {
	n := min(len(recs), len(out.Roles))
	out.N = n
	var taken [msg.MaxTeammates + 1]bool
	for i := range n {
		out.Roles[i], out.Costs[i] = msg.RoleNone, 0
		if recs[i].Penalised {
			taken[i] = true
		}
	}
	keeper := -1
	for i := range n {
		if goalkeeper != 0 && recs[i].Player == goalkeeper && !taken[i] {
			keeper = i
		}
	}
	for k := range a.nprio {
		r := a.priority[k]
		if r == msg.RoleGoalie {
			switch {
			case keeper >= 0:
				out.Roles[keeper], out.Costs[keeper] = msg.RoleGoalie, a.Cost(&recs[keeper], r)
				taken[keeper] = true
			case goalkeeperLost && a.cfg.GoalieTakeover:
				a.assign(recs, r, &taken, out)
			}
			continue
		}
		if keeper >= 0 {
			taken[keeper] = true // the goalkeeper plays goalie only
		}
		a.assign(recs, r, &taken, out)
	}
	for i := range n {
		if !taken[i] {
			out.Roles[i], out.Costs[i] = msg.RoleSupporter, a.Cost(&recs[i], msg.RoleSupporter)
			taken[i] = true
		}
	}
}

// assign gives role r to a robot: a locked robot that plays it, else the
// untaken unlocked robot with the lowest cost, else the untaken locked one
// with the lowest cost; ties go to the lower player number.
func (a *Allocator) assign(recs []msg.RoleRecord, r msg.Role, taken *[msg.MaxTeammates + 1]bool, out *Assignment) {
	if a.pick(recs, r, taken, out, func(rec *msg.RoleRecord) bool { return rec.Locked && rec.Role == r }) {
		return
	}
	if a.pick(recs, r, taken, out, func(rec *msg.RoleRecord) bool { return !rec.Locked || a.cfg.MaxSwitches == 0 }) {
		return
	}
	a.pick(recs, r, taken, out, func(*msg.RoleRecord) bool { return true })
}

// pick gives role r to the untaken robot among those ok accepts with the
// lowest cost (ties to the lower player number), and reports whether there
// was one.
func (a *Allocator) pick(recs []msg.RoleRecord, r msg.Role, taken *[msg.MaxTeammates + 1]bool, out *Assignment, ok func(*msg.RoleRecord) bool) bool {
	best, bestC := -1, math.Inf(1)
	for i := range out.N {
		if taken[i] || !ok(&recs[i]) {
			continue
		}
		c := a.Cost(&recs[i], r)
		if best < 0 || c < bestC || c == bestC && recs[i].Player < recs[best].Player {
			best, bestC = i, c
		}
	}
	if best < 0 {
		return false
	}
	out.Roles[best], out.Costs[best] = r, bestC
	taken[best] = true
	return true
}

// KickOffRole is player self's role when the players of the set players
// (bit p set for every player p) start to play together: the roles in
// priority order, the goalie to the goalkeeper if it plays, every other
// role to the lowest-numbered field player left, the rest supporter. It
// needs nothing but what every robot knows from the GameController, so
// every robot computes the same whatever the team network loses; with
// players 2, 3 and 4 and the default priority it is InitialRole.
func (a *Allocator) KickOffRole(self uint8, players uint32, goalkeeper uint8) msg.Role {
	if self >= 32 || players&(1<<self) == 0 {
		return msg.RoleNone
	}
	if goalkeeper != 0 && goalkeeper < 32 && players&(1<<goalkeeper) != 0 {
		if self == goalkeeper {
			return msg.RoleGoalie
		}
		players &^= 1 << goalkeeper
	}
	// self's rank among the field players.
	rank := bits(players & (1<<self - 1))
	for k := range a.nprio {
		r := a.priority[k]
		if r == msg.RoleGoalie {
			continue // the goalkeeper's only, above
		}
		if rank == 0 {
			return r
		}
		rank--
	}
	return msg.RoleSupporter
}

// InitialRole is a robot's role before any allocation: by player number,
// the SPL kick-off convention (the goalkeeper in goal, 2 striker, 3
// defender, others supporter). Every robot of a team that starts together
// computes the same.
func InitialRole(player, goalkeeper uint8) msg.Role {
	switch {
	case goalkeeper != 0 && player == goalkeeper:
		return msg.RoleGoalie
	case player == 2:
		return msg.RoleStriker
	case player == 3:
		return msg.RoleDefender
	}
	return msg.RoleSupporter
}
