package render

import (
	"math"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal/geom"
)

// MaxRobots bounds the robots of a scene.
const MaxRobots = 16

// Goal geometry (SPL rules: posts and crossbar 100 mm in diameter, the
// crossbar's lower edge 800 mm up; the SimSpark fork's goals are 0.8 m
// high and 0.5 m deep).
const (
	PostRadius = 0.05
	GoalHeight = 0.8
	GoalDepth  = 0.5
	// LineWidth is the SPL field lines' width.
	LineWidth = 0.05
	// PenaltyMarkSize is the length of the penalty mark's cross arms.
	PenaltyMarkSize = 0.1
)

// Robot dimensions for the capsule a robot is drawn as: a NAO v6 is about
// 0.574 m tall and its torso about 0.27 m wide.
const (
	RobotRadius = 0.11
	RobotHeight = 0.574
)

// Robot is another robot in the scene, drawn as a capsule of RobotRadius
// from Foot (the ground point between its feet) to Head (the top of its
// head), light grey with dark grey feet and a jersey band in its team's
// colour. A fallen robot has both ends near the ground.
type Robot struct {
	Foot, Head geom.Vec3
	// Team picks the jersey colour: 0 blue, 1 red.
	Team uint8
}

// StandingRobot returns a robot standing upright at (x, y).
func StandingRobot(x, y float64, team uint8) Robot {
	return Robot{Foot: geom.Vec3{X: x, Y: y, Z: RobotRadius}, Head: geom.Vec3{X: x, Y: y, Z: RobotHeight - RobotRadius}, Team: team}
}

// Scene is what the cameras see besides the field, which is fixed by Field.
type Scene struct {
	Field field.Dimensions
	// Ball is the ball's centre; BallRot its orientation (the pattern's
	// frame to the world). NoBall leaves it out.
	Ball    geom.Vec3
	BallRot geom.Mat3
	NoBall  bool
	// BallRadius is the drawn ball's radius (Field.BallRadius by default).
	BallRadius float64
	Robots     [MaxRobots]Robot
	NRobots    int
}

// NewScene returns a scene on a field of dimensions d with the ball on the
// centre spot and no robots.
func NewScene(d field.Dimensions) Scene {
	r := float64(d.BallRadius)
	return Scene{Field: d, Ball: geom.Vec3{X: 0, Y: 0, Z: r}, BallRot: geom.Identity, BallRadius: r}
}

// AddRobot adds a robot; it reports whether there was room.
func (s *Scene) AddRobot(r Robot) bool {
	if s.NRobots >= MaxRobots {
		return false
	}
	s.Robots[s.NRobots] = r
	s.NRobots++
	return true
}

// RollingBallRot returns the orientation of a ball of radius r that rolled
// without slipping from the centre spot to (x, y) along x, then y: a
// pattern that moves with the ball.
func RollingBallRot(x, y, r float64) geom.Mat3 {
	a, b := geom.RotY(x/r), geom.RotX(-y/r)
	return a.Mul(b)
}

// Intersection kinds of the field's line crossings.
type Intersection uint8

const (
	// IntersectionL is a corner: two lines end at it.
	IntersectionL Intersection = iota
	// IntersectionT is where one line ends on another.
	IntersectionT
	// IntersectionX is where two lines cross (the centre circle on the
	// halfway line).
	IntersectionX
)

func (k Intersection) String() string { return [...]string{"L", "T", "X"}[k] }

// FieldIntersection is a line crossing of the field.
type FieldIntersection struct {
	Kind Intersection
	X, Y float64
}

// Intersections returns the field's line crossings: the corners and
// penalty-area corners (L), the halfway line's and penalty areas' ends on
// the touch and goal lines (T), and the centre circle on the halfway line
// (X).
func Intersections(d field.Dimensions) []FieldIntersection {
	var out []FieldIntersection
	for _, p := range d.Corners() {
		out = append(out, FieldIntersection{IntersectionL, p.X, p.Y})
	}
	for _, p := range d.TJunctions() {
		out = append(out, FieldIntersection{IntersectionT, p.X, p.Y})
	}
	r := float64(d.CentreCircleRadius)
	out = append(out, FieldIntersection{IntersectionX, 0, r}, FieldIntersection{IntersectionX, 0, -r})
	return out
}

// Segment is a straight field line's centre line.
type Segment struct{ X0, Y0, X1, Y1 float64 }

// Lines returns the field's straight lines: touch lines, goal lines, the
// halfway line and the penalty areas' three sides each.
func Lines(d field.Dimensions) []Segment {
	x, y := float64(d.Length)/2, float64(d.Width)/2
	px, py := x-float64(d.PenaltyAreaLength), float64(d.PenaltyAreaWidth)/2
	return []Segment{
		{-x, y, x, y}, {-x, -y, x, -y}, // touch lines
		{x, -y, x, y}, {-x, -y, -x, y}, // goal lines
		{0, -y, 0, y}, // halfway line
		{px, -py, px, py}, {px, py, x, py}, {px, -py, x, -py},
		{-px, -py, -px, py}, {-px, py, -x, py}, {-px, -py, -x, -py},
	}
}

// PenaltyMarks returns the two penalty marks' centres.
func PenaltyMarks(d field.Dimensions) [2][2]float64 {
	s := float64(d.Length)/2 - float64(d.PenaltyMarkDistance)
	return [2][2]float64{{s, 0}, {-s, 0}}
}

// icosa are the 12 directions of the black pentagons of a truncated
// icosahedron ball (the vertices of an icosahedron, normalised).
var icosa = func() (v [12]geom.Vec3) {
	phi := (1 + math.Sqrt(5)) / 2
	n := math.Sqrt(1 + phi*phi)
	i := 0
	for _, a := range []float64{-1, 1} {
		for _, b := range []float64{-phi, phi} {
			v[i] = geom.Vec3{X: 0, Y: a / n, Z: b / n}
			v[i+1] = geom.Vec3{X: a / n, Y: b / n, Z: 0}
			v[i+2] = geom.Vec3{X: b / n, Y: 0, Z: a / n}
			i += 3
		}
	}
	return v
}()
