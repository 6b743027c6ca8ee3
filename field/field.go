// Package field is the geometry of the SPL field that robotd plays on, in
// the team's own frame: the origin at the centre spot, +x towards the
// opponent goal, +y to the left, metres. The same numbers are used by the
// embedded simulator (which reports them as the SimSpark SPL fork does), by
// perception (landmarks for localisation) and by behaviour.
package field

import "github.com/robotd/robotd/hal"

// Dimensions of an SPL field. The defaults are the SPL rules' 9 × 6 m field,
// which the SimSpark SPL fork uses too.
type Dimensions struct {
	Length, Width hal.Metres
	// GoalWidth is between the centres of the two posts.
	GoalWidth hal.Metres
	// GoalDepth is from the goal line to the back of the goal, PostWidth
	// the posts' thickness.
	GoalDepth, PostWidth hal.Metres
	// PenaltyAreaLength is along x, PenaltyAreaWidth along y.
	PenaltyAreaLength, PenaltyAreaWidth hal.Metres
	CentreCircleRadius                  hal.Metres
	// PenaltyMarkDistance is from the goal line.
	PenaltyMarkDistance hal.Metres
	// Border is the carpet beyond the lines.
	Border     hal.Metres
	BallRadius hal.Metres
}

// SPL returns the dimensions of the SPL field (and of the SimSpark SPL fork,
// as measured in internal/traces/testdata).
func SPL() Dimensions {
	return Dimensions{
		Length: 9, Width: 6, GoalWidth: 1.6, GoalDepth: 0.5, PostWidth: 0.1,
		PenaltyAreaLength: 0.6, PenaltyAreaWidth: 2.2,
		CentreCircleRadius: 0.75, PenaltyMarkDistance: 1.3,
		Border: 0.7, BallRadius: 0.05,
	}
}

// Goal post IDs, as carried in hal.Observation.ID for ObjGoalPost, in the
// team's own frame. A source that cannot tell the posts apart uses 0.
const (
	PostUnknown uint8 = iota
	// PostOppLeft is the opponent goal's post at +y.
	PostOppLeft
	// PostOppRight is the opponent goal's post at -y.
	PostOppRight
	// PostOwnLeft is the own goal's post at +y.
	PostOwnLeft
	// PostOwnRight is the own goal's post at -y.
	PostOwnRight
)

// Post returns the position of a goal post by ID.
func (d Dimensions) Post(id uint8) (hal.Vec2, bool) {
	x, y := float64(d.Length)/2, float64(d.GoalWidth)/2
	switch id {
	case PostOppLeft:
		return hal.Vec2{X: x, Y: y}, true
	case PostOppRight:
		return hal.Vec2{X: x, Y: -y}, true
	case PostOwnLeft:
		return hal.Vec2{X: -x, Y: y}, true
	case PostOwnRight:
		return hal.Vec2{X: -x, Y: -y}, true
	}
	return hal.Vec2{}, false
}

// Corners returns the L-shaped line crossings: the four field corners and
// the four outer corners of the penalty areas.
func (d Dimensions) Corners() [8]hal.Vec2 {
	x, y := float64(d.Length)/2, float64(d.Width)/2
	px, py := x-float64(d.PenaltyAreaLength), float64(d.PenaltyAreaWidth)/2
	return [8]hal.Vec2{{X: x, Y: y}, {X: x, Y: -y}, {X: -x, Y: y}, {X: -x, Y: -y},
		{X: px, Y: py}, {X: px, Y: -py}, {X: -px, Y: py}, {X: -px, Y: -py}}
}

// TJunctions returns the T-shaped line crossings: where the halfway line
// meets the touch lines, and where the penalty areas meet the goal lines.
func (d Dimensions) TJunctions() [6]hal.Vec2 {
	x, y := float64(d.Length)/2, float64(d.Width)/2
	py := float64(d.PenaltyAreaWidth) / 2
	return [6]hal.Vec2{{X: 0, Y: y}, {X: 0, Y: -y}, {X: x, Y: py}, {X: x, Y: -py}, {X: -x, Y: py}, {X: -x, Y: -py}}
}

// CentreCircle returns the centre of the centre circle.
func (d Dimensions) CentreCircle() hal.Vec2 { return hal.Vec2{} }

// Inside reports whether p is on the field including its border.
func (d Dimensions) Inside(p hal.Vec2) bool {
	x, y := float64(d.Length)/2+float64(d.Border), float64(d.Width)/2+float64(d.Border)
	return p.X >= -x && p.X <= x && p.Y >= -y && p.Y <= y
}

// Rect is an axis-aligned rectangle on the field.
type Rect struct{ Min, Max hal.Vec2 }

// Contains reports whether p lies in r (its edges included).
func (r Rect) Contains(p hal.Vec2) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}

// Grow returns r widened by m on every side.
func (r Rect) Grow(m float64) Rect {
	return Rect{Min: hal.Vec2{X: r.Min.X - m, Y: r.Min.Y - m}, Max: hal.Vec2{X: r.Max.X + m, Y: r.Max.Y + m}}
}

// Goals returns the ground the two goals stand on, own goal first: from
// the goal line back by GoalDepth, out to the posts' outer sides. A robot
// cannot stand there: a real goal's posts and net are solid, and so are
// the SimSpark SPL fork's posts and the leaning back of its net
// (rsg/agent/nao/goal.rsg; a robot beamed into a post there is thrown
// over, one beamed against the back is thrown up).
func (d Dimensions) Goals() [2]Rect {
	x, y := float64(d.Length)/2, float64(d.GoalWidth+d.PostWidth)/2
	depth := float64(d.GoalDepth)
	return [2]Rect{
		{Min: hal.Vec2{X: -x - depth, Y: -y}, Max: hal.Vec2{X: -x, Y: y}},
		{Min: hal.Vec2{X: x, Y: -y}, Max: hal.Vec2{X: x + depth, Y: y}},
	}
}
