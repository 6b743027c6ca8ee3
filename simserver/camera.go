package simserver

import (
	"fmt"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/render"
)

// Camera images are not part of the SimSpark protocol: the agent port
// keeps the fork's perceptors unchanged. A robot's cameras are instead
// offered in-process: World.CameraView gives the true scene and the poses
// of a robot's two NAO v6 cameras from its simulated joints, and a Server
// configured with CameraViews keeps every robot's view of the latest cycle
// for Server.CameraView, which a sim backend in the same process reads
// (Cameras renders frames from it).

// naoAxes maps the NAO's head axes (x forward, y left, z up) into the
// simulator's body axes (x right, y forward, z up).
var naoAxes = geom.Mat3{0, -1, 0, 1, 0, 0, 0, 0, 1}

// CameraView is one robot's cameras and the scene they see at the end of
// a cycle, in the world frame (x towards the right-hand goal).
type CameraView struct {
	Cycle int64
	// Time is the simulation time, seconds.
	Time float64
	// Team is the robot's team name, Unum its player number.
	Team string
	Unum int
	// Scene holds the ball and the other robots.
	Scene       render.Scene
	Top, Bottom geom.Pose3
	// YawRate and PitchRate are the head joints' velocities (rad/s, NAO
	// signs: yaw left and pitch down positive), for motion blur.
	YawRate, PitchRate float64
}

// Pose returns camera c's pose.
func (v *CameraView) Pose(c render.CameraID) *geom.Pose3 {
	if c == render.Bottom {
		return &v.Bottom
	}
	return &v.Top
}

// Render renders camera f.Camera's image of the view into f with r (of
// f's size) and the options o; the head's rates replace o's.
func (v *CameraView) Render(r *render.Renderer, f *render.Frame, o render.Options) error {
	o.YawRate, o.PitchRate = v.YawRate, v.PitchRate
	if err := r.Render(f, &v.Scene, v.Pose(f.Camera), &o); err != nil {
		return fmt.Errorf("simserver: camera view of %s %d: %w", v.Team, v.Unum, err)
	}
	return nil
}

// CameraView fills v with agent a's camera poses (from its joints and
// body) and the scene: the ball and every other robot with a side, drawn
// as capsules along their bodies (a fallen robot lies). It does not
// allocate.
func (w *World) CameraView(a *Agent, v *CameraView) {
	r := a.r
	r.updateKin()
	v.Cycle, v.Time, v.Team, v.Unum = w.cycle, w.Time(), w.teams[a.team], a.unum
	neck := r.world(model.neck)
	hw := r.R.Mul(r.kin.head)
	head := hw.Mul(naoAxes)
	v.Top = render.HeadCamera(neck, geom.Mat3(head), render.Top)
	v.Bottom = render.HeadCamera(neck, geom.Mat3(head), render.Bottom)
	v.YawRate, v.PitchRate = r.v[jHeadYaw], -r.v[jHeadPitch]
	if v.Scene.Field == (field.Dimensions{}) {
		v.Scene = render.NewScene(field.SPL())
	}
	b := w.ball.p
	v.Scene.Ball = b
	v.Scene.BallRot = render.RollingBallRot(b.X, b.Y, BallRadius)
	v.Scene.BallRadius = BallRadius
	v.Scene.NRobots = 0
	for _, o := range w.agents {
		if o == a || o.team == teamNone {
			continue
		}
		// Along the torso's z axis from the middle of its soles.
		o.r.updateKin()
		sole := (o.r.kin.sole[0].Z + o.r.kin.sole[1].Z) / 2
		foot := o.r.world(geom.Vec3{X: 0, Y: 0, Z: sole + render.RobotRadius})
		top := o.r.world(geom.Vec3{X: 0, Y: 0, Z: sole + render.RobotHeight - render.RobotRadius})
		team := uint8(0)
		if o.team == teamRight {
			team = 1
		}
		v.Scene.AddRobot(render.Robot{Foot: foot, Head: top, Team: team})
	}
}

// CameraView copies the camera view of the latest cycle of the robot of
// team (its name) with player number unum into v; it reports whether the
// server has one (Config.CameraViews must be set).
func (s *Server) CameraView(team string, unum int, v *CameraView) bool {
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	for i := range s.nViews {
		if s.views[i].Team == team && s.views[i].Unum == unum {
			*v = s.views[i]
			return true
		}
	}
	return false
}

// publishViews keeps every agent's camera view of this cycle.
func (s *Server) publishViews() {
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	for len(s.views) < len(s.world.agents) {
		s.views = append(s.views, CameraView{})
	}
	s.nViews = 0
	for _, a := range s.world.agents {
		if a.team == teamNone {
			continue
		}
		s.world.CameraView(a, &s.views[s.nViews])
		s.nViews++
	}
}

// Cameras renders one robot's camera images from a server's views: what a
// sim backend in the same process uses as the robot's cameras.
type Cameras struct {
	srv      *Server
	team     string
	unum     int
	opts     render.Options
	top, bot *render.Renderer
	view     CameraView
}

// NewCameras returns the cameras of the robot of team and unum on srv
// (which must have Config.CameraViews set): top at top's size, bottom at
// bottom's, rendered with the options o.
func NewCameras(srv *Server, team string, unum int, top, bottom render.Intrinsics, o render.Options) (*Cameras, error) {
	if !srv.cfg.CameraViews {
		return nil, fmt.Errorf("simserver: cameras of %s %d: the server does not keep camera views (Config.CameraViews)", team, unum)
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("simserver: cameras of %s %d: %w", team, unum, err)
	}
	t, err := render.NewRenderer(top)
	if err != nil {
		return nil, fmt.Errorf("simserver: top camera: %w", err)
	}
	b, err := render.NewRenderer(bottom)
	if err != nil {
		return nil, fmt.Errorf("simserver: bottom camera: %w", err)
	}
	return &Cameras{srv: srv, team: team, unum: unum, opts: o, top: t, bot: b}, nil
}

// Capture renders camera f.Camera's image of the latest cycle into f and
// returns the view it was rendered from; it reports false when the robot
// has no view yet (not connected, or no side). It does not allocate.
func (c *Cameras) Capture(f *render.Frame) (*CameraView, bool, error) {
	if !c.srv.CameraView(c.team, c.unum, &c.view) {
		return nil, false, nil
	}
	r := c.top
	if f.Camera == render.Bottom {
		r = c.bot
	}
	f.Seq = uint64(c.view.Cycle) // the noise: fresh each cycle, seeded
	if err := c.view.Render(r, f, c.opts); err != nil {
		return nil, false, err
	}
	return &c.view, true, nil
}
