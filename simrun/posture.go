package simrun

// Posture by the server's ground truth: the head's height above the ground
// (hal.GroundTruth.HeadHeight, a SimSpark server's mypos z: 0.54 m on a
// robot standing straight, about 0.5 m in robotd's stand, 0.46–0.50 m
// leaning on another robot, under 0.25 m lying on the front, back or a
// side). Experiments judge falls by these, not by the robot's own
// estimate.
const (
	// LyingHead: a head lower than this (m) is a lying robot's.
	LyingHead = 0.3
	// StandingHead: a head at least this high (m) is a standing robot's.
	StandingHead = 0.45
)

// Posture follows one robot's falls by its head height: it lies from the
// moment its head is lower than LyingHead until the head is back at
// StandingHead or higher, so the sway of a get-up is one fall, not
// several. The zero value is a standing robot.
type Posture struct {
	lying bool
}

// Update takes a head height (m) and reports whether the robot lies, and
// whether it began to lie with this reading.
func (p *Posture) Update(head float64) (lying, fell bool) {
	switch {
	case !p.lying && head < LyingHead:
		p.lying = true
		return true, true
	case p.lying && head >= StandingHead:
		p.lying = false
	}
	return p.lying, false
}

// Lying reports whether the robot lies.
func (p *Posture) Lying() bool { return p.lying }
