// Package motion turns behaviour's requests into joint commands, the way
// rUNSWift's Motion module does: generators produce joint targets and
// stiffness for what is asked (stand, walk, kick, get up, relax, and the
// head independently of the body), and one effector step clamps every
// target to the joint's limits and hands the command to the backend.
//
// Generators are small types with Reset and Step(dt): the stand (a bounded-
// speed move into the stand pose, which comes from the leg inverse
// kinematics of the configured stance), the walk (package walk), keyframe
// actions (Player: kicks, turned towards the requested direction, and get-
// ups, read from keyframe files embedded in the binary or named in the
// configuration) and the head (Head: hold, look at, scan).
//
// Switching is safe: a walk asked to do something else finishes its step
// and stops in the stance; a kick or a get-up always runs to its end
// (unless the robot falls during a kick); a kick or a walk starts only from
// a settled stand.
//
// The get-up is chosen by how the torso lies (lyingPose): face down, face
// up, or on its left or right side; from a side the robot first rolls onto
// its front (getup_side.kf, mirrored for the right side), and the front
// get-up follows. A get-up that leaves the robot lying, or upright for less
// than get_up.stable_time, has failed; after get_up.max_tries failures in
// a row motion stops trying, lies relaxed and says it needs help
// (msg.MotionState.NeedsHelp) until the robot is upright again, has been
// penalised and unpenalised, or its chest button is pressed.
//
// The motion state says truthfully what runs, whether it can be
// interrupted and whether it has settled, and whether the robot needs
// help; its odometry is the walk's. A relax request (stiffness off) is
// obeyed at once, whatever runs.
//
// Sub-packages: kinematics (NAO leg FK/IK with the shared hip yaw-pitch),
// walk (the walk generator).
package motion

import (
	"embed"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/modules/motion/kinematics"
	"github.com/robotd/robotd/modules/motion/walk"
	"github.com/robotd/robotd/msg"
)

// actions holds the shipped keyframe actions.
//
//go:embed actions/*.kf actions/simspark-nao/*.kf
var actions embed.FS

// actionDir is where a body's own keyframe actions are: keyframes are
// joint angles, so a body with other links or limits has its own (the
// SimSpark NAO model's in actions/simspark-nao). The NAO v6's are in
// actions.
func actionDir(k body.Kind) string {
	if k == body.SimSparkNAO {
		return "actions/" + k.String()
	}
	return "actions"
}

// ArmPose is the left arm's pose while standing and walking; the right arm
// mirrors it.
type ArmPose struct {
	ShoulderPitch hal.Radians `json:"shoulder_pitch"`
	ShoulderRoll  hal.Radians `json:"shoulder_roll"`
	ElbowYaw      hal.Radians `json:"elbow_yaw"`
	ElbowRoll     hal.Radians `json:"elbow_roll"`
}

// KickConfig configures the kicks.
type KickConfig struct {
	// Stiffness applies to keyframes before the file sets one.
	Stiffness float64 `json:"stiffness"`
	// MaxDirection bounds the requested direction: the kicking foot's swing
	// and yaw are turned by it (about the foot's start), the rest of the
	// kick is unchanged.
	MaxDirection hal.Radians `json:"max_direction"`
	// LeftFile and RightFile are keyframe files to use instead of the
	// embedded kick_left.kf and kick_right.kf ("" keeps those).
	LeftFile  string `json:"left_file"`
	RightFile string `json:"right_file"`
}

// GetUpConfig configures the get-ups.
type GetUpConfig struct {
	// Stiffness applies to keyframes before the file sets one.
	Stiffness float64 `json:"stiffness"`
	// FallAngle classifies a fall from hal.BodyAngles when there is no
	// perception body state.
	FallAngle hal.Radians `json:"fall_angle"`
	// FrontFile and BackFile are keyframe files to use instead of the
	// embedded getup_front.kf and getup_back.kf ("" keeps those).
	FrontFile string `json:"front_file"`
	BackFile  string `json:"back_file"`
	// SideFile is a keyframe file to use instead of the embedded
	// getup_side.kf ("" keeps that): it rolls the robot from its left side
	// onto its front; mirrored, from its right side.
	SideFile string `json:"side_file"`
	// MaxTries is how many get-ups in a row may fail before motion stops
	// trying and asks for help.
	MaxTries int `json:"max_tries"`
	// StableTime is how long the robot must stay upright after a get-up
	// for the get-up to count as a success.
	StableTime config.Duration `json:"stable_time"`
}

// Config configures motion.
type Config struct {
	// Body is the body motion drives; its table (package body) gives the
	// kinematics their link lengths and masses and the joints their
	// ranges. The robot's wiring sets it from the backend.
	Body body.Kind `json:"body"`
	// Stance is the stand pose's leg posture (hip height, feet apart,
	// torso offset) on the NAO v6, which is also where the walk starts and
	// stops; SimSparkStance is the same on the SimSpark NAO model, whose
	// legs are 22 mm longer (body table). Each body stands with its knees
	// bent alike: hips at 85 % of the leg's length above the soles.
	Stance         walk.Stance `json:"stance"`
	SimSparkStance walk.Stance `json:"simspark_stance"`
	// Arms is the arms' pose while standing and walking.
	Arms ArmPose `json:"arms"`
	// Stiffness is the stiffness of a standing robot, and of the arms and
	// head while walking.
	Stiffness float64 `json:"stiffness"`
	// MaxSpeed bounds every joint's speed while moving into the stand pose.
	MaxSpeed hal.RadPerSec `json:"max_speed"`
	// Tolerance is how close every joint must be for the stand to be
	// settled.
	Tolerance hal.Radians `json:"tolerance"`
	Walk      walk.Config `json:"walk"`
	Head      HeadConfig  `json:"head"`
	Kick      KickConfig  `json:"kick"`
	GetUp     GetUpConfig `json:"get_up"`
	// JointOffsets is this robot's joint calibration by joint name (rad):
	// a joint whose encoder reads off by o is commanded at target+o and its
	// measured angle is taken as reading-o. Per robot (its configuration
	// layer); at most MaxJointOffset each.
	JointOffsets map[string]hal.Radians `json:"joint_offsets"`

	// StandPose is the stand pose derived from Stance, Arms and Geometry
	// (head at zero). DefaultConfig fills it for reference; New always
	// derives it afresh, so it is not configuration and is not in the file.
	StandPose [hal.NumJoints]hal.Radians `json:"-"`
}

// DefaultConfig returns the defaults: a knees-bent stand with arms down
// (legs from the stance's IK), and the walk's, head's, kicks' and get-ups'
// defaults.
func DefaultConfig() Config {
	c := Config{
		Body:           body.NAOv6,
		Stance:         walk.DefaultStance(),
		SimSparkStance: walk.Stance{HipHeight: 0.23, FootSeparation: 0.11, TorsoOffsetX: 0.015},
		Arms:           ArmPose{ShoulderPitch: 1.45, ShoulderRoll: 0.15, ElbowYaw: -1.2, ElbowRoll: -0.4},
		Stiffness:      0.7,
		MaxSpeed:       1.5,
		Tolerance:      0.01,
		Walk:           walk.DefaultConfig(),
		Head:           DefaultHeadConfig(),
		Kick:           KickConfig{Stiffness: 0.9, MaxDirection: 0.5},
		GetUp:          GetUpConfig{Stiffness: 1, FallAngle: hal.Deg(50), MaxTries: 3, StableTime: config.Duration(time.Second)},
		JointOffsets:   map[string]hal.Radians{},
	}
	c.StandPose = StandPose(&c)
	return c
}

// Geometry returns the kinematics' geometry of c's body.
func (c *Config) Geometry() kinematics.Geometry {
	m := body.For(c.Body)
	return kinematics.For(&m)
}

// BodyStance returns the stance of c's body.
func (c *Config) BodyStance() walk.Stance {
	if c.Body == body.SimSparkNAO {
		return c.SimSparkStance
	}
	return c.Stance
}

// StandPose derives the stand pose from c's stance, arms and geometry.
func StandPose(c *Config) [hal.NumJoints]hal.Radians {
	var p [hal.NumJoints]hal.Radians
	g := c.Geometry()
	st := c.BodyStance()
	legs := st.Legs(&g)
	legs.Put(&p)
	a := &c.Arms
	p[hal.LShoulderPitch], p[hal.RShoulderPitch] = a.ShoulderPitch, a.ShoulderPitch
	p[hal.LShoulderRoll], p[hal.RShoulderRoll] = a.ShoulderRoll, -a.ShoulderRoll
	p[hal.LElbowYaw], p[hal.RElbowYaw] = a.ElbowYaw, -a.ElbowYaw
	p[hal.LElbowRoll], p[hal.RElbowRoll] = a.ElbowRoll, -a.ElbowRoll
	for j := range p {
		p[j] = hal.Joint(j).Clamp(p[j])
	}
	return p
}

// SitPose is the crouch a robot sits down into before it goes limp: hips
// and knees bent as far as the legs allow with the feet flat, arms down.
func SitPose(c *Config) [hal.NumJoints]hal.Radians {
	p := StandPose(c)
	for _, s := range [][3]hal.Joint{{hal.LHipPitch, hal.LKneePitch, hal.LAnklePitch}, {hal.RHipPitch, hal.RKneePitch, hal.RAnklePitch}} {
		p[s[0]], p[s[1]], p[s[2]] = -0.87, 2.11, -1.18
	}
	p[hal.LShoulderPitch], p[hal.RShoulderPitch] = 1.5, 1.5
	for j := range p {
		p[j] = hal.Joint(j).Clamp(p[j])
	}
	return p
}

// armsIn folds the arms against the body (shoulder roll 0, elbows bent) so
// that a fall lands on the body, not on an outstretched arm.
func armsIn(p *[hal.NumJoints]hal.Radians) {
	p[hal.LShoulderPitch], p[hal.RShoulderPitch] = 1.5, 1.5
	p[hal.LShoulderRoll], p[hal.RShoulderRoll] = 0, 0
	p[hal.LElbowYaw], p[hal.RElbowYaw] = 0, 0
	p[hal.LElbowRoll], p[hal.RElbowRoll] = -1.5, 1.5
}

// Module is the motion module.
type Module struct {
	cfg Config

	req    *blackboard.Reader[msg.MotionRequest]
	joints *blackboard.Reader[hal.JointSensors]
	imu    *blackboard.Reader[hal.IMU]
	body   *blackboard.Reader[msg.BodyState]
	angles *blackboard.Reader[hal.BodyAngles]
	safety *blackboard.Reader[msg.Safety]
	game   *blackboard.Reader[msg.GameControl]
	btns   *blackboard.Reader[hal.Buttons]
	cmdW   *blackboard.Writer[hal.JointCommand]
	stateW *blackboard.Writer[msg.MotionState]

	kicks  [2]*Keyframes        // by msg.Foot
	getups [numLying]*Keyframes // by lying pose

	log *slog.Logger
	// tries is the get-ups' bookkeeping (see tries).
	tries tries

	stand  [hal.NumJoints]hal.Radians
	walk   *walk.Walk
	head   *Head
	player Player
	kick   kick

	active   msg.MotionKind
	settled  bool
	sat      bool // sitting reached the sit pose
	sf       msg.Safety
	started  bool
	lastTime time.Duration
	// Errors counts ticks whose output had a non-finite target (the
	// previous target was kept).
	errors uint64

	cmd  hal.JointCommand
	out  hal.JointCommand // cmd with the joint offsets, as sent
	off  [hal.NumJoints]hal.Radians
	prev hal.JointCommand
	meas hal.JointSensors
	in   walk.Input
}

// New returns a motion module.
func New(cfg Config) *Module {
	m := &Module{cfg: cfg, log: slog.Default().With("module", "motion")}
	m.off = cfg.offsets()
	m.stand = StandPose(&m.cfg)
	m.walk = walk.New(cfg.Walk, cfg.BodyStance(), cfg.Geometry())
	m.head = NewHead(cfg.Head)
	m.kick.geom = cfg.Geometry()
	return m
}

// Name implements runner.Module.
func (m *Module) Name() string { return "motion" }

// Wire implements runner.Module. It also loads the keyframe actions.
func (m *Module) Wire(b *blackboard.Board) error {
	if err := m.load(); err != nil {
		return err
	}
	var err error
	if m.req, err = blackboard.Read(b, m.Name(), msg.MotionRequestKey); err != nil {
		return err
	}
	if m.joints, err = blackboard.Read(b, m.Name(), msg.JointsKey); err != nil {
		return err
	}
	// A backend without an IMU, or a stack without perception, still wires.
	if m.imu, err = blackboard.ReadOptional(b, m.Name(), msg.IMUKey); err != nil {
		return err
	}
	if m.body, err = blackboard.ReadOptional(b, m.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	if m.angles, err = blackboard.ReadOptional(b, m.Name(), msg.BodyAnglesKey); err != nil {
		return err
	}
	// Safety (package safety) limits what motion may do, where it runs.
	if m.safety, err = blackboard.ReadOptional(b, m.Name(), msg.SafetyKey); err != nil {
		return err
	}
	// A robot that needs help tries again after a penalty or a press of
	// its chest button.
	if m.game, err = blackboard.ReadOptional(b, m.Name(), msg.GameControlKey); err != nil {
		return err
	}
	if m.btns, err = blackboard.ReadOptional(b, m.Name(), msg.ButtonsKey); err != nil {
		return err
	}
	if m.cmdW, err = blackboard.Write(b, m.Name(), msg.JointCommandKey); err != nil {
		return err
	}
	m.stateW, err = blackboard.Write(b, m.Name(), msg.MotionStateKey)
	return err
}

// load reads the keyframe actions: the configured files, else the embedded
// ones.
func (m *Module) load() error {
	files := []struct {
		dst  **Keyframes
		path string
		name string
	}{
		{&m.kicks[msg.LeftFoot], m.cfg.Kick.LeftFile, "kick_left.kf"},
		{&m.kicks[msg.RightFoot], m.cfg.Kick.RightFile, "kick_right.kf"},
		{&m.getups[lyingFront], m.cfg.GetUp.FrontFile, "getup_front.kf"},
		{&m.getups[lyingBack], m.cfg.GetUp.BackFile, "getup_back.kf"},
		{&m.getups[lyingLeft], m.cfg.GetUp.SideFile, "getup_side.kf"},
	}
	for _, f := range files {
		var data []byte
		var err error
		name := f.path
		if f.path == "" {
			name = f.name
			data, err = actions.ReadFile(actionDir(m.cfg.Body) + "/" + f.name)
		} else {
			data, err = os.ReadFile(f.path)
			name = filepath.Base(f.path)
		}
		if err != nil {
			return fmt.Errorf("motion: %w", err)
		}
		if *f.dst, err = ParseKeyframes(name, data); err != nil {
			return fmt.Errorf("motion: %w", err)
		}
	}
	m.getups[lyingRight] = m.getups[lyingLeft].Mirror(m.getups[lyingLeft].Name + " (mirrored)")
	return nil
}

// Action returns a shipped keyframe action by file name (kick_left.kf,
// kick_right.kf, getup_front.kf, getup_back.kf, getup_side.kf).
func Action(name string) (*Keyframes, error) {
	data, err := actions.ReadFile("actions/" + name)
	if err != nil {
		return nil, err
	}
	return ParseKeyframes(name, data)
}

// dt returns the tick's length in seconds: the tick's step if the backend
// gives one (a simulator's message is one physics step whatever its clock
// reads), else the time since the last tick when that is plausible, else
// the nominal period.
func (m *Module) dt(t hal.Tick) float64 {
	p := t.Period
	if p <= 0 {
		p = 10 * time.Millisecond
	}
	d := t.Time - m.lastTime
	m.lastTime = t.Time
	if t.Step > 0 && m.started {
		return t.Step.Seconds()
	}
	if !m.started || d <= 0 || d > 4*p {
		d = p
	}
	return d.Seconds()
}

// fall returns how the robot lies: perception's body state if there is one,
// else the body angles classified here.
func (m *Module) fall() msg.Fall {
	if bs, meta := m.body.Get(); meta.Valid() {
		if bs.Fall != msg.Upright || bs.Connected {
			return bs.Fall
		}
	}
	a, meta := m.angles.Get()
	if !meta.Valid() {
		return msg.Upright
	}
	lim := float64(m.cfg.GetUp.FallAngle)
	p, r := float64(a.Pitch), float64(a.Roll)
	switch {
	case math.Abs(p) < lim && math.Abs(r) < lim:
		return msg.Upright
	case math.Abs(p) >= math.Abs(r) && p > 0:
		return msg.FallenFront
	case math.Abs(p) >= math.Abs(r):
		return msg.FallenBack
	case r > 0:
		return msg.FallenRight
	}
	return msg.FallenLeft
}

// torsoPitch returns the torso's pitch: perception's body state's, else
// the body angles'.
func (m *Module) torsoPitch() (hal.Radians, bool) {
	if bs, meta := m.body.Get(); meta.Valid() {
		return bs.Angles.Pitch, true
	}
	a, meta := m.angles.Get()
	return a.Pitch, meta.Valid()
}

// logHelp logs that motion has given up getting up.
func (m *Module) logHelp(fall msg.Fall) {
	m.log.Warn("motion: get-ups failed, lying still and asking for help", "failures", m.tries.failed, "fall", fall.String())
}

// lying returns how the torso lies: from perception's body state's
// angles if there is one, else from the body angles.
func (m *Module) lying(f msg.Fall) lying {
	if bs, meta := m.body.Get(); meta.Valid() {
		return lyingPose(f, bs.Angles)
	}
	a, _ := m.angles.Get()
	return lyingPose(f, a)
}

// Tick implements runner.Module.
func (m *Module) Tick(t hal.Tick) error {
	req, _ := m.req.Get()
	m.joints.Load(&m.meas)
	for j := range m.meas.Angle {
		m.meas.Angle[j] -= m.off[j]
	}
	dt := m.dt(t)
	if !m.started || !t.Connected {
		// Start from where the joints are, and again after an outage.
		m.cmd.Angle = m.meas.Angle
		m.prev = m.cmd
		m.active, m.settled = msg.MotionNone, false
		m.started = true
	}
	fall := m.fall()
	m.retry(fall)
	safe := m.safety.Load(&m.sf).Valid()
	if safe {
		if (m.sf.HotLeg || m.sf.Penalised) && (req.Kind == msg.MotionWalk || req.Kind == msg.MotionKick) {
			req.Kind = msg.MotionStand // stop the motion that loads a hot leg; a penalised robot stands
		}
		if m.sf.Sit {
			req.Kind = msg.MotionSit
		}
		if m.sf.Falling && req.Kind == msg.MotionGetUp {
			req.Kind = msg.MotionStand // the get-up starts once the robot lies
		}
	}
	if m.tries.watch(t.Time, fall, m.cfg.GetUp.MaxTries) {
		m.logHelp(fall)
	}
	if m.tries.help && req.Kind != msg.MotionSit {
		req.Kind = msg.MotionRelax // lie still and wait for help
	}
	m.decide(req, fall)

	st := msg.MotionState{Active: m.active, Interruptible: true}
	switch m.active {
	case msg.MotionSit:
		if !m.sat {
			target := SitPose(&m.cfg)
			m.sat = MoveTowards(&m.cmd, &target, m.cfg.MaxSpeed/2, dt, m.cfg.Tolerance)
			m.setStiffness(0, m.cfg.Stiffness)
		} else {
			m.cmd.Angle = m.meas.Angle
			m.setStiffness(0, 0)
		}
		st.Settled = m.sat
	case msg.MotionRelax:
		m.cmd.Angle = m.meas.Angle
		for j := range m.cmd.Stiffness {
			m.cmd.Stiffness[j] = 0
		}
		st.Settled = true
	case msg.MotionStand:
		// The head is the head controller's (below): a scanning head
		// does not keep the stand from settling.
		target := m.stand
		target[hal.HeadYaw], target[hal.HeadPitch] = m.cmd.Angle[hal.HeadYaw], m.cmd.Angle[hal.HeadPitch]
		m.settled = MoveTowards(&m.cmd, &target, m.cfg.MaxSpeed, dt, m.cfg.Tolerance)
		m.setStiffness(0, m.cfg.Stiffness)
		st.Settled = m.settled
	case msg.MotionWalk:
		m.in.Walk = req.Kind == msg.MotionWalk && fall == msg.Upright
		m.in.Request = req.Walk
		imu, meta := m.imu.Get()
		m.in.Gyro, m.in.GyroValid = imu.Gyro, meta.Valid()
		ws := m.walk.Step(dt, &m.in, &m.cmd)
		m.armsAndHead()
		st.Odometry = ws.Odometry
		st.Settled = !ws.Stepping
		if !ws.Stepping && !m.in.Walk {
			// Stopped in the stance: the stand takes over.
			m.active, m.settled = msg.MotionStand, false
		}
	case msg.MotionKick:
		if m.kick.Step(dt, &m.cmd) {
			m.active, m.settled = msg.MotionStand, false
		} else {
			st.Interruptible = false
		}
	case msg.MotionGetUp:
		m.player.SetPitch(m.torsoPitch())
		if m.player.Step(dt, &m.cmd) {
			m.active, m.settled = msg.MotionStand, false
			if m.tries.ended(t.Time, m.cfg.GetUp, fall, m.lying(fall)) {
				m.logHelp(fall)
			}
		} else {
			st.Interruptible = false
		}
	}
	switch m.active {
	case msg.MotionStand, msg.MotionWalk, msg.MotionKick:
		m.head.Step(dt, req.Head, &m.cmd)
	default:
		m.head.Reset(m.cmd.Angle[hal.HeadYaw], m.cmd.Angle[hal.HeadPitch])
	}
	st.Active = m.active // what runs from now on, if a motion just ended
	st.NeedsHelp = m.tries.help
	if safe && m.sf.Falling {
		// Falling: arms in, every joint soft before the impact.
		armsIn(&m.cmd.Angle)
		m.setStiffness(0, m.sf.FallStiffness)
	}
	m.effect()
	if safe {
		for j := range m.cmd.Stiffness {
			m.cmd.Stiffness[j] = min(m.cmd.Stiffness[j], m.sf.StiffnessCap[j])
		}
	}
	m.out = m.cmd
	for j := range hal.Joint(hal.NumJoints) {
		m.out.Angle[j] = j.Clamp(m.cmd.Angle[j] + m.off[j])
	}
	m.cmdW.Set(m.out)
	m.stateW.Set(st)
	return nil
}

// decide switches the active motion for this tick's request.
func (m *Module) decide(req msg.MotionRequest, fall msg.Fall) {
	want := req.Kind
	if want == msg.MotionNone {
		want = msg.MotionRelax
	}
	if want != msg.MotionSit {
		m.sat = false
	}
	switch {
	case want == msg.MotionSit:
		// Safety's: at once, whatever runs.
		m.active = msg.MotionSit
		return
	case want == msg.MotionRelax:
		// Safety first: limp at once, whatever runs.
		m.active = msg.MotionRelax
		return
	case m.active == msg.MotionGetUp && !m.player.Done():
		return
	case m.active == msg.MotionKick && !m.kick.player.Done():
		if fall == msg.Upright {
			return
		}
		// Fell during the kick: finishing it is pointless.
	case m.active == msg.MotionWalk && m.walk.Stepping() && fall == msg.Upright:
		// The walk finishes its step and stops by itself when asked to do
		// something else.
		return
	}
	switch want {
	case msg.MotionGetUp:
		if fall == msg.Upright {
			m.toStand()
			return
		}
		l := m.lying(fall)
		m.tries.start(l)
		m.player.Reset(m.getups[l], &m.cmd.Angle, m.cfg.GetUp.Stiffness)
		m.active = msg.MotionGetUp
	case msg.MotionKick:
		if m.active != msg.MotionStand || !m.settled || fall != msg.Upright {
			m.toStand()
			return
		}
		foot := req.Kick.Foot
		if foot != msg.RightFoot {
			foot = msg.LeftFoot
		}
		lim := float64(m.cfg.Kick.MaxDirection)
		dir := min(max(float64(req.Kick.Direction), -lim), lim)
		if math.IsNaN(dir) {
			dir = 0
		}
		m.kick.Reset(m.kicks[foot], kickSide(foot), dir, &m.cmd.Angle, m.cfg.Kick.Stiffness)
		m.active = msg.MotionKick
	case msg.MotionWalk:
		if m.active == msg.MotionWalk {
			return
		}
		if m.active != msg.MotionStand || !m.settled || fall != msg.Upright {
			m.toStand()
			return
		}
		m.walk.Reset()
		m.active = msg.MotionWalk
	default:
		m.toStand()
	}
}

func kickSide(f msg.Foot) kinematics.Side {
	if f == msg.RightFoot {
		return kinematics.Right
	}
	return kinematics.Left
}

// toStand makes the stand active (keeping its settled state if it already
// is).
func (m *Module) toStand() {
	if m.active != msg.MotionStand {
		m.active, m.settled = msg.MotionStand, false
	}
}

// setStiffness sets every joint's stiffness, the legs' to legs unless it
// is 0.
func (m *Module) setStiffness(legs, others float64) {
	for j := range m.cmd.Stiffness {
		m.cmd.Stiffness[j] = others
	}
	if legs == 0 {
		return
	}
	for s := range 2 {
		for i := range 6 {
			m.cmd.Stiffness[kinematics.Joint(kinematics.Side(s), i)] = legs
		}
	}
}

// armsAndHead puts the arms (and the joints the walk leaves alone) into the
// stand pose while walking.
func (m *Module) armsAndHead() {
	for j := range hal.Joint(hal.NumJoints) {
		if !isLeg(j) {
			m.cmd.Angle[j] = m.stand[j]
			m.cmd.Stiffness[j] = m.cfg.Stiffness
		}
	}
}

func isLeg(j hal.Joint) bool { return j >= hal.LHipYawPitch && j <= hal.RAnkleRoll }

// effect is the effector step: every target within its joint's limits and
// finite (a non-finite target keeps the previous one), every stiffness
// within 0..1.
func (m *Module) effect() {
	bad := false
	for j := range hal.Joint(hal.NumJoints) {
		a := float64(m.cmd.Angle[j])
		if math.IsNaN(a) || math.IsInf(a, 0) {
			m.cmd.Angle[j] = m.prev.Angle[j]
			bad = true
		}
		m.cmd.Angle[j] = j.Clamp(m.cmd.Angle[j])
		s := m.cmd.Stiffness[j]
		if math.IsNaN(s) {
			s = 0
		}
		m.cmd.Stiffness[j] = min(max(s, 0), 1)
	}
	if bad {
		m.errors++
	}
	m.prev = m.cmd
}

// Errors returns how many ticks had a non-finite joint target.
func (m *Module) Errors() uint64 { return m.errors }

// MoveTowards moves cmd towards target along a straight line in joint
// space: the joint with the furthest to go moves at speed, the others in
// proportion, so that all arrive together. Moving together keeps a leg's
// pitch chain (hip + knee + ankle) as it is at both ends, so a robot
// crouching from straight legs keeps its torso over its flat feet. Targets
// are clamped to the joints' limits. It reports whether every joint is
// within tol of its target.
func MoveTowards(cmd *hal.JointCommand, target *[hal.NumJoints]hal.Radians, speed hal.RadPerSec, dt float64, tol hal.Radians) bool {
	step := float64(speed) * dt
	var far float64
	for j := range hal.NumJoints {
		d := math.Abs(float64(hal.Joint(j).Clamp(target[j]) - cmd.Angle[j]))
		far = max(far, d)
	}
	frac := 1.0
	if far > step {
		frac = step / far
	}
	settled := true
	for j := range hal.NumJoints {
		goal := hal.Joint(j).Clamp(target[j])
		cmd.Angle[j] = hal.Joint(j).Clamp(cmd.Angle[j] + hal.Radians(frac*float64(goal-cmd.Angle[j])))
		if diff := goal - cmd.Angle[j]; diff > tol || diff < -tol {
			settled = false
		}
	}
	return settled
}
