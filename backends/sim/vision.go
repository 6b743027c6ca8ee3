package sim

import (
	"math"
	"math/rand/v2"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/simspark"
)

// VisionConfig configures the vision adapter (seed 003 §3.2.3).
type VisionConfig struct {
	// FOV is the real camera's horizontal field of view in degrees: objects
	// outside it are cut from the server's 120° view.
	FOV float64 `json:"fov_deg"`
	// ReliableBallDistance drops balls seen farther away (m).
	ReliableBallDistance float64 `json:"reliable_ball_distance"`
	// CameraHeight is the camera's height above the ground (m) when
	// standing, used to turn a 3-D distance into a ground distance.
	CameraHeight float64 `json:"camera_height"`
	// NoiseSigma adds Gaussian noise of this fraction of the distance
	// (the server already adds about 3 %).
	NoiseSigma float64 `json:"noise_sigma"`
	// Seed seeds the added noise.
	Seed uint64 `json:"seed"`
	// SonarMin, SonarMax (m) and SonarCone (deg, full width) shape the
	// sonars derived from visible robots (seed 003 §3.2.5).
	SonarMin  float64 `json:"sonar_min"`
	SonarMax  float64 `json:"sonar_max"`
	SonarCone float64 `json:"sonar_cone_deg"`
}

// DefaultVisionConfig returns the thesis' values.
func DefaultVisionConfig() VisionConfig {
	return VisionConfig{FOV: 60.9, ReliableBallDistance: 2.5, CameraHeight: 0.52, SonarMin: 0.2, SonarMax: 0.8, SonarCone: 60}
}

// objHeight is how high above the ground the server's point for each kind
// of object is.
func objHeight(k hal.ObjectKind, ballRadius float64) float64 {
	switch k {
	case hal.ObjBall:
		return ballRadius
	case hal.ObjGoalPost:
		return 0.4 // middle of an 0.8 m post
	case hal.ObjRobot:
		return 0.5 // head
	}
	return 0
}

// visionAdapter turns See blocks into hal.Vision.
type visionAdapter struct {
	cfg  VisionConfig
	rng  *rand.Rand
	team []byte // our team name
	left bool   // our team plays on the left
}

func newVisionAdapter(cfg VisionConfig) *visionAdapter {
	return &visionAdapter{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x5eed)), left: true}
}

// ground converts a polar observation from the camera into a ground
// position relative to the feet. headYaw is the head's yaw (rad, NAO
// sign): the server's horizontal angle is relative to where the head looks.
func (va *visionAdapter) ground(pol simspark.Polar, headYaw float64, kind hal.ObjectKind) (hal.Observation, bool) {
	if math.Abs(pol[1]) > va.cfg.FOV/2 {
		return hal.Observation{}, false
	}
	d := pol[0]
	if va.cfg.NoiseSigma > 0 {
		d *= 1 + va.rng.NormFloat64()*va.cfg.NoiseSigma
	}
	dh := va.cfg.CameraHeight - objHeight(kind, float64(field.SPL().BallRadius))
	gd := math.Sqrt(max(d*d-dh*dh, 0))
	if d*d <= dh*dh { // below the camera's height: fall back to the angle
		gd = d * math.Cos(pol[2]*math.Pi/180)
	}
	b := headYaw + pol[1]*math.Pi/180
	return hal.Observation{Kind: kind, Pos: hal.Vec2{X: gd * math.Cos(b), Y: gd * math.Sin(b)},
		Distance: hal.Metres(gd), Bearing: hal.Radians(b)}, true
}

// postID names a goal post in the team's own frame.
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
	if !va.left { // the right team's frame is turned by 180°
		switch id {
		case field.PostOppLeft:
			id = field.PostOwnRight
		case field.PostOppRight:
			id = field.PostOwnLeft
		case field.PostOwnLeft:
			id = field.PostOppRight
		case field.PostOwnRight:
			id = field.PostOppLeft
		}
	}
	return id
}

// adapt fills v and sonar from p's See block.
func (va *visionAdapter) adapt(p *simspark.Perception, headYaw float64, v *hal.Vision, sonar *hal.Sonar) {
	*v = hal.Vision{Fresh: true}
	*sonar = hal.Sonar{}
	s := &p.See
	for i := range s.Objects {
		o := &s.Objects[i]
		name := p.Bytes(o.Name)
		kind := hal.ObjGoalPost
		var id uint8
		switch {
		case string(name) == "B":
			kind = hal.ObjBall
			if o.Pol[0] > va.cfg.ReliableBallDistance {
				continue
			}
		case len(name) == 3 && name[0] == 'G':
			id = va.postID(name)
		default:
			continue // flags: not on the SPL field
		}
		if ob, ok := va.ground(o.Pol, headYaw, kind); ok {
			ob.ID = id
			v.Add(ob)
		}
	}
	for i := range s.Features {
		f := &s.Features[i]
		var kind hal.ObjectKind
		switch string(p.Bytes(f.Name)) {
		case "CNR":
			kind = hal.ObjCorner
		case "TJ":
			kind = hal.ObjTJunction
		case "CC":
			kind = hal.ObjCentreCircle
		default:
			continue
		}
		if ob, ok := va.ground(simspark.Polar{f.V[0], f.V[1], f.V[2]}, headYaw, kind); ok {
			ob.Orientation = hal.Radians(f.V[3] * math.Pi / 180)
			v.Add(ob)
		}
	}
	halfCone := va.cfg.SonarCone / 2 * math.Pi / 180
	for i := range s.Players {
		pl := &s.Players[i]
		own := string(p.Bytes(pl.Team)) == string(va.team)
		parts := s.Parts[pl.PartStart : pl.PartStart+pl.PartCount]
		var head *simspark.Polar
		for j := range parts {
			if string(p.Bytes(parts[j].Name)) == "head" {
				head = &parts[j].Pol
			}
		}
		if head == nil && own {
			continue // our own lower arms, which the server reports as a player
		}
		// Sonar: the nearest part of another robot in the cone ahead.
		for j := range parts {
			d := parts[j].Pol[0]
			b := headYaw + parts[j].Pol[1]*math.Pi/180
			if math.Abs(b) <= halfCone && d >= va.cfg.SonarMin && d <= va.cfg.SonarMax && (!sonar.LeftValid || hal.Metres(d) < sonar.Left) {
				sonar.Left, sonar.LeftValid = hal.Metres(d), true
				sonar.Right, sonar.RightValid = hal.Metres(d), true
			}
		}
		if head == nil {
			continue
		}
		if ob, ok := va.ground(*head, headYaw, hal.ObjRobot); ok {
			ob.ID = uint8(pl.ID)
			if !own {
				ob.Team = 1
			}
			v.Add(ob)
		}
	}
}

// groundTruth converts the fork's cheat values. mypos is the camera's
// position and myorien the camera's heading (degrees, the team's frame);
// the body heading is the camera's minus the head yaw.
func groundTruth(p *simspark.Perception, headYaw float64, gt *hal.GroundTruth) {
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
		h := s.MyOrien*math.Pi/180 - headYaw
		gt.Pose = hal.Pose2{X: hal.Metres(s.MyPos[0]), Y: hal.Metres(s.MyPos[1]), Heading: hal.Radians(math.Remainder(h, 2*math.Pi))}
		gt.Valid = true
	}
	if ball {
		gt.Ball, gt.BallValid = hal.Vec2{X: s.BallPos[0], Y: s.BallPos[1]}, true
	}
}
