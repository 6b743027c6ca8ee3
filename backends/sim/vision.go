package sim

import (
	"math"
	"math/rand/v2"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/proto/simspark"
)

const deg = math.Pi / 180

// Heights above the ground (m) of the points the server reports: the
// ball's centre, the top of a goal post (the vertical angles of G1R/G2R in
// vision_headsweep fit 0.80 m with a mean error of -0.04°, against +3.45°
// for 0.40 m), field features on the ground, and a standing robot's head
// and feet (the model's head centre is 0.54 m up, a foot box's centre
// 0.01 m).
const (
	postHeight = 0.8
	headHeight = 0.54
	footHeight = 0.01
)

// visionAdapter turns See blocks into hal.Vision and derived sonars.
//
// Each polar observation (distance, horizontal and vertical angle from the
// camera, in the head's frame) is turned into a robot-relative ground
// position with the camera pose from the forward kinematics of the
// measured joint angles and the filtered torso tilt: the direction comes
// from the two angles rotated into the robot frame, the ground distance
// from the camera height and the object's known height by Pythagoras
// (the thesis §3.2.3). The server's angles are noisy (about 3.3° standard
// deviation in this fork, measured against ballpos in vision_headsweep)
// while its distances are good to about 3 %, so the distance, not the
// vertical angle, fixes how far away a thing is.
type visionAdapter struct {
	cfg VisionConfig
	pcg *rand.PCG
	rng *rand.Rand // draws from pcg
	// epoch is the server time (s) from which the added noise is drawn
	// frame by frame (see Backend.SetNoiseEpoch); NaN: none, the noise is
	// one stream from the seed.
	epoch    float64
	team     []byte // our team name
	unum     int    // our player number
	left     bool   // our team plays on the left
	halfFOV  float64
	halfCone float64
}

func newVisionAdapter(cfg VisionConfig, team string, unum int) visionAdapter {
	pcg := rand.NewPCG(cfg.Seed, noiseStream)
	return visionAdapter{
		cfg: cfg, pcg: pcg, rng: rand.New(pcg), epoch: math.NaN(),
		team: []byte(team), unum: unum, left: true,
		halfFOV: cfg.FOVDeg / 2 * deg, halfCone: cfg.SonarConeDeg / 2 * deg,
	}
}

// seen is one observation converted to the robot frame.
type seen struct {
	pos    hal.Vec2
	inView bool // within the configured field of view
}

// ground converts a polar observation of a point at height z (NaN when
// unknown) into a ground position in the robot frame.
func (va *visionAdapter) ground(cam *geom.Pose3, pol simspark.Polar, z float64) seen {
	d, h, v := pol[0], pol[1]*deg, pol[2]*deg
	if va.cfg.NoiseDistance > 0 {
		d *= 1 + va.rng.NormFloat64()*va.cfg.NoiseDistance
	}
	if va.cfg.NoiseAngleDeg > 0 {
		h += va.rng.NormFloat64() * va.cfg.NoiseAngleDeg * deg
		v += va.rng.NormFloat64() * va.cfg.NoiseAngleDeg * deg
	}
	dir := cam.R.Apply(geom.Vec3{X: math.Cos(v) * math.Cos(h), Y: math.Cos(v) * math.Sin(h), Z: math.Sin(v)})
	horiz := math.Hypot(dir.X, dir.Y)
	g := d * horiz // without a known height: the measured direction
	if dh := cam.P.Z - z; !math.IsNaN(z) && d > math.Abs(dh) {
		g = math.Sqrt(d*d - dh*dh)
	}
	var ux, uy float64
	if horiz > 1e-9 {
		ux, uy = dir.X/horiz, dir.Y/horiz
	}
	return seen{
		pos:    hal.Vec2{X: cam.P.X + g*ux, Y: cam.P.Y + g*uy},
		inView: math.Abs(h) <= va.halfFOV,
	}
}

func observation(kind hal.ObjectKind, p hal.Vec2) hal.Observation {
	return hal.Observation{Kind: kind, Pos: p,
		Distance: hal.Metres(math.Hypot(p.X, p.Y)), Bearing: hal.Radians(math.Atan2(p.Y, p.X))}
}

// postID names a goal post in the team's own frame. The server's names are
// absolute (G1L/G2L are the left goal's posts at +y/-y, G1R/G2R the right
// goal's), and a right-side team's frame is turned by 180°.
func (va *visionAdapter) postID(name []byte) uint8 {
	var id uint8
	switch string(name) {
	case "G1R":
		id = field.PostOppLeft
	case "G2R":
		id = field.PostOppRight
	case "G1L":
		id = field.PostOwnLeft
	case "G2L":
		id = field.PostOwnRight
	default:
		return field.PostUnknown
	}
	if !va.left {
		id = rightSidePost[id]
	}
	return id
}

// rightSidePost maps a post's ID in the left team's frame to the right
// team's (turned by 180°).
var rightSidePost = [...]uint8{
	field.PostUnknown:  field.PostUnknown,
	field.PostOppLeft:  field.PostOwnRight,
	field.PostOppRight: field.PostOwnLeft,
	field.PostOwnLeft:  field.PostOppRight,
	field.PostOwnRight: field.PostOppLeft,
}

// sonarEcho offers an obstacle at p (robot frame) to the two sonars. The
// cone ahead is split at the middle; each sonar also hears the middle third
// of the other's half, as the NAO's overlapping cones do.
func (va *visionAdapter) sonarEcho(s *hal.Sonar, p hal.Vec2) {
	d := math.Hypot(p.X, p.Y)
	b := math.Atan2(p.Y, p.X)
	if d < va.cfg.SonarMin || d > va.cfg.SonarMax || math.Abs(b) > va.halfCone {
		return
	}
	m := hal.Metres(d)
	if b >= -va.halfCone/3 && (!s.LeftValid || m < s.Left) {
		s.Left, s.LeftValid = m, true
	}
	if b <= va.halfCone/3 && (!s.RightValid || m < s.Right) {
		s.Right, s.RightValid = m, true
	}
}

// noiseStream is the second word of the added noise's PCG seed.
const noiseStream = 0x5eed5eed

// reseed makes the added noise of a frame at server time now (s) a
// function of the seed and the frame's time since the epoch alone, once
// the epoch has come: not of the frames before it.
func (va *visionAdapter) reseed(now float64) {
	if math.IsNaN(va.epoch) || now < va.epoch {
		return
	}
	ms := uint64(math.Round((now - va.epoch) * 1000))
	va.pcg.Seed(va.cfg.Seed, noiseStream^(ms*0x9e3779b97f4a7c15))
}

// adapt fills v and sonar from p's See block, seen from cam. Observations
// keep the server's order.
func (va *visionAdapter) adapt(p *simspark.Perception, cam *geom.Pose3, v *hal.Vision, sonar *hal.Sonar) {
	v.Fresh, v.N = true, 0
	*sonar = hal.Sonar{}
	s := &p.See
	for _, it := range s.Order {
		i := int(it.Index)
		switch {
		case it.Kind == simspark.SeeObject && i < len(s.Objects):
			va.object(p, &s.Objects[i], cam, v, sonar)
		case it.Kind == simspark.SeeFeature && i < len(s.Features):
			va.feature(p, &s.Features[i], cam, v)
		case it.Kind == simspark.SeePlayer && i < len(s.Players):
			va.player(p, &s.Players[i], cam, v, sonar)
		}
	}
}

// object adds a ball (within the field of view and the reliable distance)
// or a goal post (within the field of view; any post near enough is a
// sonar echo). Flags (F1L…) do not exist on the SPL field; other names are
// ignored.
func (va *visionAdapter) object(p *simspark.Perception, o *simspark.Object, cam *geom.Pose3, v *hal.Vision, sonar *hal.Sonar) {
	name := p.Bytes(o.Name)
	switch {
	case string(name) == "B":
		g := va.ground(cam, o.Pol, float64(field.SPL().BallRadius))
		ob := observation(hal.ObjBall, g.pos)
		if g.inView && float64(ob.Distance) <= va.cfg.ReliableBallDistance {
			v.Add(ob)
		}
	case len(name) == 3 && name[0] == 'G':
		g := va.ground(cam, o.Pol, postHeight)
		va.sonarEcho(sonar, g.pos)
		if g.inView {
			ob := observation(hal.ObjGoalPost, g.pos)
			ob.ID = va.postID(name)
			v.Add(ob)
		}
	}
}

// feature adds a corner, T junction or the centre circle.
func (va *visionAdapter) feature(p *simspark.Perception, f *simspark.Feature, cam *geom.Pose3, v *hal.Vision) {
	var kind hal.ObjectKind
	switch string(p.Bytes(f.Name)) {
	case "CNR":
		kind = hal.ObjCorner
	case "TJ":
		kind = hal.ObjTJunction
	case "CC":
		kind = hal.ObjCentreCircle
	default:
		return
	}
	if g := va.ground(cam, simspark.Polar{f.V[0], f.V[1], f.V[2]}, 0); g.inView {
		ob := observation(kind, g.pos)
		// The fourth number is passed on as the server gives it: it does not
		// follow the head's yaw (vision_headsweep), so it is not
		// camera-relative; what it is measured from is not established.
		ob.Orientation = hal.Radians(math.Remainder(f.V[3]*deg, 2*math.Pi))
		v.Add(ob)
	}
}

// player adds a seen robot, placed at its feet if they are in view, else at
// its head, else at the mean of its visible parts.
func (va *visionAdapter) player(p *simspark.Perception, pl *simspark.Player, cam *geom.Pose3, v *hal.Vision, sonar *hal.Sonar) {
	own := string(p.Bytes(pl.Team)) == string(va.team)
	if own && pl.HasID && pl.ID == va.unum {
		return // our own lower arms, which the server reports as a player
	}
	s := &p.See
	end := int(pl.PartStart) + int(pl.PartCount)
	if end > len(s.Parts) {
		return
	}
	var feet, head, other hal.Vec2
	var nFeet, nHead, nOther int
	for i := int(pl.PartStart); i < end; i++ {
		part := &s.Parts[i]
		z := math.NaN()
		name := p.Bytes(part.Name)
		switch string(name) {
		case "head":
			z = headHeight
		case "lfoot", "rfoot":
			z = footHeight
		}
		g := va.ground(cam, part.Pol, z)
		va.sonarEcho(sonar, g.pos)
		if !g.inView {
			continue
		}
		switch string(name) {
		case "head":
			head, nHead = g.pos, 1
		case "lfoot", "rfoot":
			feet.X, feet.Y, nFeet = feet.X+g.pos.X, feet.Y+g.pos.Y, nFeet+1
		default:
			other.X, other.Y, nOther = other.X+g.pos.X, other.Y+g.pos.Y, nOther+1
		}
	}
	var at hal.Vec2
	switch {
	case nFeet > 0:
		at = hal.Vec2{X: feet.X / float64(nFeet), Y: feet.Y / float64(nFeet)}
	case nHead > 0:
		at = head
	case nOther > 0:
		at = hal.Vec2{X: other.X / float64(nOther), Y: other.Y / float64(nOther)}
	default:
		return
	}
	ob := observation(hal.ObjRobot, at)
	if pl.HasID && pl.ID > 0 && pl.ID < 256 {
		ob.ID = uint8(pl.ID)
	}
	if !own {
		ob.Team = 1
	}
	v.Add(ob)
}

// groundTruth converts the fork's cheat values. mypos is the camera's
// position and myorien the camera's heading (degrees), both in the team's
// frame; the robot's pose is that of its feet (the robot frame's origin),
// found by taking the camera's offset from the forward kinematics back out,
// with the heading less the head's yaw.
func groundTruth(p *simspark.Perception, cam *geom.Pose3, headYaw float64, gt *hal.GroundTruth) {
	var pos, orien, ball bool
	for _, it := range p.See.Order {
		switch it.Kind {
		case simspark.SeeMyPos:
			pos = true
		case simspark.SeeMyOrien:
			orien = true
		case simspark.SeeBallPos:
			ball = true
		}
	}
	s := &p.See
	if pos && orien {
		h := math.Remainder(s.MyOrien*deg-headYaw, 2*math.Pi)
		c, sn := math.Cos(h), math.Sin(h)
		x := s.MyPos[0] - (c*cam.P.X - sn*cam.P.Y)
		y := s.MyPos[1] - (sn*cam.P.X + c*cam.P.Y)
		gt.Pose = hal.Pose2{X: hal.Metres(x), Y: hal.Metres(y), Heading: hal.Radians(h)}
		gt.HeadHeight = hal.Metres(s.MyPos[2])
		gt.Valid = true
	}
	if ball {
		gt.Ball, gt.BallValid = hal.Vec2{X: s.BallPos[0], Y: s.BallPos[1]}, true
	}
}
