package perception

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// period is the synthetic world's tick, as in the SimSpark SPL fork.
const period = 10 * time.Millisecond

// input is one tick's sensor values, and the odometry motion reports for
// the tick (perception sees it on the next tick, as in the runner).
type input struct {
	connected bool
	angles    hal.BodyAngles
	imu       hal.IMU
	fsr       hal.FSR
	sonar     hal.Sonar
	buttons   hal.Buttons
	vision    hal.Vision
	game      hal.GameState
	// control is the game-control entry (package gamecontroller's
	// module), written once withControl is set.
	control     msg.GameControl
	withControl bool
	truth       hal.GroundTruth
	odo         hal.Pose2
	reports     msg.TeamBallReports
	// withTeam writes the team reports.
	withTeam bool
}

// harness runs the module on its own blackboard, writing the entries the
// runner, motion and team communication would write.
type harness struct {
	b   *blackboard.Board
	m   *Module
	seq uint64

	angles  *blackboard.Writer[hal.BodyAngles]
	imu     *blackboard.Writer[hal.IMU]
	fsr     *blackboard.Writer[hal.FSR]
	sonar   *blackboard.Writer[hal.Sonar]
	buttons *blackboard.Writer[hal.Buttons]
	vision  *blackboard.Writer[hal.Vision]
	game    *blackboard.Writer[hal.GameState]
	control *blackboard.Writer[msg.GameControl]
	truth   *blackboard.Writer[hal.GroundTruth]
	motion  *blackboard.Writer[msg.MotionState]
	team    *blackboard.Writer[msg.TeamBallReports]

	bodyR     *blackboard.Reader[msg.BodyState]
	sensorsR  *blackboard.Reader[msg.BodySensors]
	ballR     *blackboard.Reader[msg.Ball]
	poseR     *blackboard.Reader[msg.RobotPose]
	teamBallR *blackboard.Reader[msg.TeamBall]
	obstR     *blackboard.Reader[msg.Obstacles]

	body     msg.BodyState
	sensors  msg.BodySensors
	ball     msg.Ball
	pose     msg.RobotPose
	teamBall msg.TeamBall
	obst     msg.Obstacles
}

func writer[T any](tb testing.TB, b *blackboard.Board, module string, k blackboard.Key[T]) *blackboard.Writer[T] {
	tb.Helper()
	w, err := blackboard.Write(b, module, k)
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

func reader[T any](tb testing.TB, b *blackboard.Board, k blackboard.Key[T]) *blackboard.Reader[T] {
	tb.Helper()
	r, err := blackboard.Read(b, "test", k)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func newHarness(tb testing.TB, cfg Config) *harness {
	tb.Helper()
	b := blackboard.New()
	h := &harness{b: b, m: New(cfg)}
	h.angles = writer(tb, b, "hal", msg.BodyAnglesKey)
	h.imu = writer(tb, b, "hal", msg.IMUKey)
	h.fsr = writer(tb, b, "hal", msg.FSRKey)
	h.sonar = writer(tb, b, "hal", msg.SonarKey)
	h.buttons = writer(tb, b, "hal", msg.ButtonsKey)
	h.vision = writer(tb, b, "hal", msg.VisionKey)
	h.game = writer(tb, b, "hal", msg.GameStateKey)
	h.control = writer(tb, b, "gamecontroller", msg.GameControlKey)
	h.truth = writer(tb, b, "hal", msg.GroundTruthKey)
	h.motion = writer(tb, b, "motion", msg.MotionStateKey)
	h.team = writer(tb, b, "teamcomm", msg.TeamBallReportsKey)
	if err := h.m.Wire(b); err != nil {
		tb.Fatal(err)
	}
	h.bodyR = reader(tb, b, msg.BodyStateKey)
	h.sensorsR = reader(tb, b, msg.BodySensorsKey)
	h.ballR = reader(tb, b, msg.BallKey)
	h.poseR = reader(tb, b, msg.RobotPoseKey)
	h.teamBallR = reader(tb, b, msg.TeamBallKey)
	h.obstR = reader(tb, b, msg.ObstaclesKey)
	if err := b.Validate(); err != nil {
		tb.Fatal(err)
	}
	return h
}

// now is the time of the last tick.
func (h *harness) now() time.Duration { return time.Duration(h.seq) * period }

// step runs one tick with in and reads the module's outputs.
func (h *harness) step(tb testing.TB, in *input) {
	h.seq++
	t := hal.Tick{Seq: h.seq, Time: h.now(), Period: period, Connected: in.connected}
	h.b.BeginTick(t.Seq, t.Time)
	h.angles.Set(in.angles)
	h.imu.Set(in.imu)
	h.fsr.Set(in.fsr)
	h.sonar.Set(in.sonar)
	h.buttons.Set(in.buttons)
	h.vision.Set(in.vision)
	h.game.Set(in.game)
	if in.withControl {
		h.control.Set(in.control)
	}
	h.truth.Set(in.truth)
	if in.withTeam {
		h.team.Set(in.reports)
	}
	if err := h.m.Tick(t); err != nil {
		tb.Fatal(err)
	}
	// Motion runs after perception and reports this tick's odometry.
	h.motion.Set(msg.MotionState{Active: msg.MotionWalk, Odometry: in.odo})
	h.bodyR.Load(&h.body)
	h.sensorsR.Load(&h.sensors)
	h.ballR.Load(&h.ball)
	h.poseR.Load(&h.pose)
	h.teamBallR.Load(&h.teamBall)
	h.obstR.Load(&h.obst)
}

// world is a synthetic SPL field: a robot walking under a controller, with
// noisy odometry, a camera with the NAO's 60.9° field of view on a
// scanning head, vision every third tick with ≈3 % distance noise, and a
// ball with rolling friction.
type world struct {
	rng  *rand.Rand
	dims field.Dimensions
	seq  uint64

	pose hal.Pose2
	head float64

	ball, ballVel hal.Vec2
	ballOn        bool
	friction      float64

	// postIDs sends goal posts with their IDs (SimSpark does).
	postIDs bool
	// unlabeled sends what a camera's image processing finds on a real
	// field instead: seen parts of the lines (midpoint and direction), L,
	// T and X intersections by kind, the centre circle and the penalty
	// marks; goal posts only with noPosts false, and never with IDs.
	unlabeled, noPosts bool
	// falseLineRate is the chance per frame of a false line.
	falseLineRate float64
	// lookAtBall points the head at the ball instead of scanning;
	// fixedHead keeps it straight ahead.
	lookAtBall, fixedHead bool
	// falseRate is the chance per frame of a false landmark (a random kind
	// at a random place in view).
	falseRate float64
	// robots stand at these field positions, seen (as opponents) within
	// robotRange.
	robots     []hal.Vec2
	robotRange float64
	// still stops the robot (the head keeps scanning).
	still bool
	// fallen: the robot lies; the camera sees nothing useful and odometry
	// reports nothing.
	fallen bool

	fov, maxRange, ballRange float64
	distNoise, bearingNoise  float64
	// odoScale and odoRotScale are odometry's systematic errors, odoNoise
	// its random error.
	odoScale, odoRotScale, odoNoise float64

	// The controller walks a circle of radius circleR around the centre
	// spot, counter-clockwise, at speed.
	circleR, speed float64
}

func newWorld(seed uint64, start hal.Pose2) *world {
	return &world{
		rng:  rand.New(rand.NewPCG(seed, 7)),
		dims: field.SPL(), pose: start,
		friction: ballFriction, postIDs: true,
		fov: 60.9 * math.Pi / 180, maxRange: 9, ballRange: 5,
		distNoise: 0.03, bearingNoise: 1.0 * math.Pi / 180,
		odoScale: 1.05, odoRotScale: 0.95, odoNoise: 0.1,
		circleR: 1.5, speed: 0.25, robotRange: 4,
	}
}

// command is the circle controller's forward speed and turn rate.
func (w *world) command() (v, omega float64) {
	if w.still || w.fallen {
		return 0, 0
	}
	x, y := float64(w.pose.X), float64(w.pose.Y)
	phi := math.Atan2(y, x)
	r := math.Hypot(x, y)
	e := r - w.circleR
	tx, ty := -math.Sin(phi), math.Cos(phi)
	k := 1.5
	dx, dy := tx-k*e*math.Cos(phi), ty-k*e*math.Sin(phi)
	err := wrap(math.Atan2(dy, dx) - float64(w.pose.Heading))
	omega = min(max(2*err, -0.8), 0.8)
	v = w.speed * max(0.2, math.Cos(err))
	return v, omega
}

// step advances the world by one tick and fills in's vision, truth and
// odometry.
func (w *world) step(in *input) {
	w.seq++
	dt := period.Seconds()
	v, omega := w.command()
	delta := hal.Pose2{X: hal.Metres(v * dt), Heading: hal.Radians(omega * dt)}
	w.pose = w.pose.Compose(delta)
	in.odo = hal.Pose2{}
	if !w.fallen {
		in.odo = hal.Pose2{
			X:       hal.Metres(float64(delta.X) * w.odoScale * (1 + w.odoNoise*w.rng.NormFloat64())),
			Y:       hal.Metres(0.02 * float64(delta.X) * w.rng.NormFloat64()),
			Heading: hal.Radians(float64(delta.Heading)*w.odoRotScale*(1+w.odoNoise*w.rng.NormFloat64()) + 0.0005*w.rng.NormFloat64()*v),
		}
	}
	if w.ballOn {
		w.ball.X += w.ballVel.X * dt
		w.ball.Y += w.ballVel.Y * dt
		decay := math.Exp(-w.friction * dt)
		w.ballVel.X *= decay
		w.ballVel.Y *= decay
	}
	t := float64(w.seq) * dt
	if w.lookAtBall && w.ballOn {
		b := w.pose.Local(w.ball)
		w.head = min(max(math.Atan2(b.Y, b.X), -2), 2)
	} else if !w.fixedHead {
		w.head = 1.0 * math.Sin(2*math.Pi*t/4)
	}
	in.truth = hal.GroundTruth{Valid: true, Pose: w.pose, Ball: w.ball, BallValid: w.ballOn}
	in.connected = true
	in.vision.Fresh = w.seq%3 == 0 && !w.fallen
	in.vision.N = 0
	if !in.vision.Fresh {
		return
	}
	for id := field.PostOppLeft; id <= field.PostOwnRight; id++ {
		if w.unlabeled && w.noPosts {
			break
		}
		p, _ := w.dims.Post(id)
		oid := uint8(0)
		if w.postIDs && !w.unlabeled {
			oid = id
		}
		w.see(in, hal.ObjGoalPost, oid, p, w.maxRange)
	}
	if w.unlabeled {
		w.seeUnlabeled(in)
	}
	for _, p := range w.dims.Corners() {
		w.see(in, hal.ObjCorner, 0, p, w.maxRange)
	}
	for _, p := range w.dims.TJunctions() {
		w.see(in, hal.ObjTJunction, 0, p, w.maxRange)
	}
	w.see(in, hal.ObjCentreCircle, 0, w.dims.CentreCircle(), w.maxRange)
	if w.ballOn {
		w.see(in, hal.ObjBall, 0, w.ball, w.ballRange)
	}
	for _, p := range w.robots {
		n := in.vision.N
		w.see(in, hal.ObjRobot, 0, p, w.robotRange)
		if in.vision.N > n {
			in.vision.Obs[n].Team = 1
		}
	}
	if w.rng.Float64() < w.falseRate {
		kinds := [...]hal.ObjectKind{hal.ObjGoalPost, hal.ObjCorner, hal.ObjTJunction, hal.ObjCentreCircle}
		d := 0.5 + 5*w.rng.Float64()
		b := w.head + w.fov*(w.rng.Float64()-0.5)
		s, c := math.Sincos(b)
		in.vision.Add(hal.Observation{Kind: kinds[w.rng.IntN(len(kinds))], Pos: hal.Vec2{X: d * c, Y: d * s},
			Distance: hal.Metres(d), Bearing: hal.Radians(b)})
	}
}

// seeUnlabeled adds the lines, X intersections and penalty marks in view.
func (w *world) seeUnlabeled(in *input) {
	r := float64(w.dims.CentreCircleRadius)
	w.see(in, hal.ObjXCrossing, 0, hal.Vec2{Y: r}, w.maxRange)
	w.see(in, hal.ObjXCrossing, 0, hal.Vec2{Y: -r}, w.maxRange)
	spot := float64(w.dims.Length)/2 - float64(w.dims.PenaltyMarkDistance)
	w.see(in, hal.ObjPenaltySpot, 0, hal.Vec2{X: spot}, w.maxRange)
	w.see(in, hal.ObjPenaltySpot, 0, hal.Vec2{X: -spot}, w.maxRange)
	for _, sg := range fieldLineSegments(w.dims) {
		// The visible part: the segment within the view's wedge and range
		// is one interval (both are convex).
		a, b := hal.Vec2{X: sg[0], Y: sg[1]}, hal.Vec2{X: sg[2], Y: sg[3]}
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		n := int(l / 0.05)
		t0, t1 := -1.0, -1.0
		for k := 0; k <= n; k++ {
			t := float64(k) / float64(n)
			p := w.pose.Local(hal.Vec2{X: a.X + t*(b.X-a.X), Y: a.Y + t*(b.Y-a.Y)})
			d, br := math.Hypot(p.X, p.Y), math.Atan2(p.Y, p.X)
			if d > w.maxRange || d < 0.2 || math.Abs(wrap(br-w.head)) > w.fov/2 {
				continue
			}
			if t0 < 0 {
				t0 = t
			}
			t1 = t
		}
		if t0 < 0 || (t1-t0)*l < 0.3 {
			continue
		}
		p0 := w.pose.Local(hal.Vec2{X: a.X + t0*(b.X-a.X), Y: a.Y + t0*(b.Y-a.Y)})
		p1 := w.pose.Local(hal.Vec2{X: a.X + t1*(b.X-a.X), Y: a.Y + t1*(b.Y-a.Y)})
		w.seeLine(in, p0, p1)
	}
	if w.rng.Float64() < w.falseLineRate {
		d := 0.5 + 4*w.rng.Float64()
		br := w.head + w.fov*(w.rng.Float64()-0.5)
		s, c := math.Sincos(br)
		a := 2 * math.Pi * w.rng.Float64()
		sa, ca := math.Sincos(a)
		w.seeLine(in, hal.Vec2{X: d*c - 0.3*ca, Y: d*s - 0.3*sa}, hal.Vec2{X: d*c + 0.3*ca, Y: d*s + 0.3*sa})
	}
}

// seeLine adds a seen line from p0 to p1 (robot frame), each end with the
// camera's distance and bearing noise.
func (w *world) seeLine(in *input, p0, p1 hal.Vec2) {
	noisy := func(p hal.Vec2) hal.Vec2 {
		d, b := math.Hypot(p.X, p.Y), math.Atan2(p.Y, p.X)
		d *= 1 + w.distNoise*w.rng.NormFloat64()
		b += w.bearingNoise * w.rng.NormFloat64()
		s, c := math.Sincos(b)
		return hal.Vec2{X: d * c, Y: d * s}
	}
	p0, p1 = noisy(p0), noisy(p1)
	mid := hal.Vec2{X: (p0.X + p1.X) / 2, Y: (p0.Y + p1.Y) / 2}
	in.vision.Add(hal.Observation{Kind: hal.ObjLine, Pos: mid,
		Distance: hal.Metres(math.Hypot(mid.X, mid.Y)), Bearing: hal.Radians(math.Atan2(mid.Y, mid.X)),
		Orientation: hal.Radians(math.Atan2(p1.Y-p0.Y, p1.X-p0.X))})
}

// see adds an observation of the field point p if it is in view.
func (w *world) see(in *input, kind hal.ObjectKind, id uint8, p hal.Vec2, maxRange float64) {
	r := w.pose.Local(p)
	d := math.Hypot(r.X, r.Y)
	b := math.Atan2(r.Y, r.X)
	if d > maxRange || d < 0.1 || math.Abs(wrap(b-w.head)) > w.fov/2 {
		return
	}
	d *= 1 + w.distNoise*w.rng.NormFloat64()
	b += w.bearingNoise * w.rng.NormFloat64()
	s, c := math.Sincos(b)
	in.vision.Add(hal.Observation{Kind: kind, ID: id, Pos: hal.Vec2{X: d * c, Y: d * s},
		Distance: hal.Metres(d), Bearing: hal.Radians(b)})
}

// poseError is the estimate's position and heading error.
func poseError(est, truth hal.Pose2) (dist, head float64) {
	return math.Hypot(float64(est.X-truth.X), float64(est.Y-truth.Y)), math.Abs(wrap(float64(est.Heading - truth.Heading)))
}

// percentile returns the p-th percentile (0..1) of xs.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Round(p * float64(len(s)-1)))
	return s[i]
}

// mirrored is the pose mirrored through the centre spot.
func mirrored(p hal.Pose2) hal.Pose2 {
	return hal.Pose2{X: -p.X, Y: -p.Y, Heading: hal.Radians(wrap(float64(p.Heading) + math.Pi))}
}

func TestWorldGeometry(t *testing.T) {
	// The synthetic world's camera sees what is in front of the head.
	w := newWorld(1, hal.Pose2{X: -2})
	w.still = true
	var in input
	var n int
	for range 3 {
		w.step(&in)
		n = in.vision.N
	}
	if !in.vision.Fresh {
		t.Fatal("third tick has no vision frame")
	}
	if n == 0 {
		t.Fatal("robot at (-2, 0) facing the opponent goal sees nothing")
	}
	for i := range in.vision.N {
		o := in.vision.Obs[i]
		if o.Pos.X <= 0 {
			t.Errorf("observation %+v behind the robot", o)
		}
	}
}
