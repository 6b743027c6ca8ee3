package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/hal/framepool"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/simspark"
	"github.com/robotd/robotd/render"
)

// VisionSource is where a simulated robot's vision comes from.
type VisionSource uint8

const (
	// SourceServer: the server's detected observations (the vision
	// perceptor's See block) are hal.Vision, as on any SimSpark agent.
	SourceServer VisionSource = iota
	// SourceRendered: the backend renders the NAO v6's top and bottom
	// camera images from the scene the server reports (hal.CameraSensor)
	// and provides no hal.Vision, so that robotd's own vision pipeline
	// sees, as on a real NAO.
	SourceRendered
)

func (s VisionSource) String() string {
	if s == SourceRendered {
		return "rendered"
	}
	return "server"
}

// MarshalText implements encoding.TextMarshaler.
func (s VisionSource) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: "server" or
// "rendered".
func (s *VisionSource) UnmarshalText(b []byte) error {
	switch string(b) {
	case "server", "":
		*s = SourceServer
	case "rendered":
		*s = SourceRendered
	default:
		return fmt.Errorf("sim: vision source %q: want server or rendered", b)
	}
	return nil
}

// RenderConfig configures the rendered cameras (VisionConfig.Source
// rendered).
type RenderConfig struct {
	// BottomWidth is the bottom camera's image width: 320 (320 × 240) or
	// 640 (640 × 480). The top camera renders 640 × 480.
	BottomWidth int `json:"bottom_width"`
	// Every renders the cameras on every Every-th See block: 1 at the
	// server's vision rate (every third 10 ms cycle: 33 Hz, about the NAO
	// v6's 30 fps), more to save CPU time in long experiments.
	Every int `json:"every"`
	// Options are the images' lighting, noise and blur (package render).
	Options render.Options `json:"options"`
}

// DefaultRenderConfig returns a 320 × 240 bottom camera and the
// renderer's default light and noise.
func DefaultRenderConfig() RenderConfig {
	return RenderConfig{BottomWidth: 320, Every: 1, Options: render.DefaultOptions()}
}

// Validate checks the render configuration.
func (c *RenderConfig) Validate() error {
	if c.BottomWidth != 320 && c.BottomWidth != 640 {
		return fmt.Errorf("vision.render.bottom_width %d: want 320 or 640", c.BottomWidth)
	}
	if c.Every < 1 || c.Every > 30 {
		return fmt.Errorf("vision.render.every %d is outside 1..30", c.Every)
	}
	if err := c.Options.Validate(); err != nil {
		return fmt.Errorf("vision.render.options: %w", err)
	}
	return nil
}

// pivotFromHead is the SimSpark NAO's HeadPitch joint relative to the
// head body's centre (where the fork's mypos is) at the zero pose, from
// the body table (kinematics.go's init).
func pivotFromHead() geom.Vec3 { return headPitchHinge.pivot.Sub(cameraZero) }

// simNeckHeight is the SimSpark NAO's head joints' height above its hip
// pitch joints at the zero pose (the camera matrix's neck height).
func simNeckHeight() hal.Metres { return hal.Metres(headPitchHinge.pivot.Z - legs[0][2].pivot.Z) }

// SimSparkCamera returns the model of camera id of the simulated NAO at
// w × h: the NAO v6's intrinsics and mounting (package body) on the
// SimSpark model's neck.
func SimSparkCamera(id hal.CameraID, w, h int) hal.CameraInfo {
	info := body.NAOCamera(id)
	info.Intrinsics = info.Intrinsics.Scaled(w, h)
	info.NeckHeight = simNeckHeight()
	return info
}

// poolFrames is the frames of the rendered cameras' pool: per camera one
// held as the newest, one being rendered, and two a reader may hold.
const poolFrames = 4 * int(hal.NumCameras)

// cameraRig renders a simulated robot's camera images. Each See block
// (the server's vision rate) renders both cameras from the scene it
// reports: the robot's own true pose (the fork's mypos and myorien
// perceptors, with the camera's roll and pitch from the measured joint
// angles and the filtered torso tilt), the ball at its true position
// (ballpos), and the other robots where the vision perceptor sees them
// (standing, at their seen feet or head). A server without the ground
// truth perceptors gives no frames.
type cameraRig struct {
	cfg   RenderConfig
	pool  *hal.FramePool
	scene render.Scene
	cams  [hal.NumCameras]rigCamera
	sees  int // See blocks since the last rendering
}

type rigCamera struct {
	info   hal.CameraInfo
	r      *render.Renderer
	frame  render.Frame
	latest framepool.Latest[hal.Image]
	cur    hal.CameraFrame // the newest frame's entry, without Ref and New
	seq    uint64
	fresh  bool // published since the last read
}

func newCameraRig(cfg RenderConfig) (*cameraRig, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	rig := &cameraRig{cfg: cfg, pool: hal.NewFramePool(poolFrames, 2*640*480), scene: render.NewScene(field.SPL())}
	sizes := [hal.NumCameras][2]int{hal.CameraTop: {640, 480}, hal.CameraBottom: {cfg.BottomWidth, cfg.BottomWidth * 3 / 4}}
	for i := range rig.cams {
		c := &rig.cams[i]
		w, h := sizes[i][0], sizes[i][1]
		c.info = SimSparkCamera(hal.CameraID(i), w, h)
		var err error
		if c.r, err = render.NewRenderer(render.NAOIntrinsics(w, h)); err != nil {
			return nil, fmt.Errorf("sim: camera %v: %w", hal.CameraID(i), err)
		}
		c.frame = render.Frame{Camera: render.CameraID(i), Width: w, Height: h}
	}
	return rig, nil
}

// render renders both cameras for the See block just absorbed by a, at
// tick time t. It does not allocate.
func (rig *cameraRig) render(a *Adapter, p *simspark.Perception, t time.Duration) error {
	if !a.truth.Valid || !hasTruth(p) {
		return nil
	}
	if rig.sees++; rig.sees < rig.cfg.Every {
		return nil
	}
	rig.sees = 0
	rig.buildScene(a, p)
	// The head's orientation in the world: the robot's true heading, the
	// head's roll and pitch from the kinematics (cam.Rot is in the robot
	// frame, whose heading the truth's heading is).
	h := float64(a.truth.Pose.Heading)
	s, c := math.Sincos(h)
	yaw := geom.Mat3{c, -s, 0, s, c, 0, 0, 0, 1}
	head := yaw.Mul(a.cam.R)
	mp := p.See.MyPos
	pivot := geom.Vec3{X: mp[0], Y: mp[1], Z: mp[2]}.Add(head.Apply(pivotFromHead()))
	var errs error
	for i := range rig.cams {
		rc := &rig.cams[i]
		m := rc.info.Mounting
		pos := pivot.Add(head.Apply(geom.Vec3{X: m.Pos.X, Y: m.Pos.Y, Z: m.Pos.Z}))
		tilt := geom.RotAxis(geom.Vec3{X: 0, Y: 1, Z: 0}, float64(m.Pitch))
		cr := head.Mul(tilt)
		pose := geom.Pose3{P: pos, R: cr}
		f, ok := rig.pool.Get()
		if !ok {
			continue // every frame is held: drop this one
		}
		rc.seq++
		rc.frame.Seq, rc.frame.Data = rc.seq, f.Buffer()[:2*rc.frame.Width*rc.frame.Height]
		if err := rc.r.Render(&rc.frame, &rig.scene, &pose, &rig.cfg.Options); err != nil {
			rig.pool.Discard(f)
			errs = err
			continue
		}
		f.SetLen(len(rc.frame.Data))
		img := hal.Image{Camera: hal.CameraID(i), Format: hal.FormatYUYV, Width: rc.frame.Width, Height: rc.frame.Height, Seq: rc.seq, Exposure: t}
		f.Meta = img
		rig.pool.Publish(f)
		rc.latest.Set(f)
		rc.cur = hal.CameraFrame{Valid: true, Image: img, Info: rc.info, Joints: a.joints.Angle, Torso: a.angles, JointsTime: t}
		rc.fresh = true
	}
	return errs
}

// buildScene sets the scene from the See block: the ball at its true
// position, the seen robots standing where they were seen (in the team's
// frame, which is the frame of the truth).
func (rig *cameraRig) buildScene(a *Adapter, p *simspark.Perception) {
	sc := &rig.scene
	sc.NoBall = !a.truth.BallValid
	if a.truth.BallValid {
		r := sc.BallRadius
		z := p.See.BallPos[2]
		if !(z > 0 && z < 1) {
			z = r
		}
		bx, by := float64(a.truth.Ball.X), float64(a.truth.Ball.Y)
		sc.Ball = geom.Vec3{X: bx, Y: by, Z: z}
		sc.BallRot = render.RollingBallRot(bx, by, r)
	}
	sc.NRobots = 0
	pose := a.truth.Pose
	s, c := math.Sincos(float64(pose.Heading))
	for k := range a.vision.N {
		ob := &a.vision.Obs[k]
		if ob.Kind != hal.ObjRobot {
			continue
		}
		x := float64(pose.X) + c*ob.Pos.X - s*ob.Pos.Y
		y := float64(pose.Y) + s*ob.Pos.X + c*ob.Pos.Y
		sc.AddRobot(render.StandingRobot(x, y, ob.Team))
	}
}

// read fills v with the cameras' newest frames.
func (rig *cameraRig) read(v *hal.CameraFrames) {
	for i := range rig.cams {
		rc := &rig.cams[i]
		if !rc.cur.Valid {
			v.Cam[i] = hal.CameraFrame{}
			continue
		}
		v.Cam[i] = rc.cur
		v.Cam[i].Ref = rc.latest.Ref()
		v.Cam[i].New = rc.fresh
		rc.fresh = false
	}
}

// close releases the newest frames.
func (rig *cameraRig) close() {
	for i := range rig.cams {
		rig.cams[i].latest.Set(nil)
	}
}

// visionKey and cameraKey are the entries Provides decides on.
var visionKey, cameraKey = msg.VisionKey.Name(), msg.CameraKey.Name()

// hasTruth reports whether p's See block has the fork's mypos and
// myorien.
func hasTruth(p *simspark.Perception) bool {
	var pos, orien bool
	for _, it := range p.See.Order {
		pos = pos || it.Kind == simspark.SeeMyPos
		orien = orien || it.Kind == simspark.SeeMyOrien
	}
	return pos && orien
}
