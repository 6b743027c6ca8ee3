// Command simmeasure measures robotd's motion on a SimSpark server from the
// server's ground truth (the fork's mypos/myorien and ballpos as the
// robot receives them): forward walking speed, falls and heading drift per
// requested speed, sideways walking and turning on the spot, the onset of
// a turn asked of a walking robot, get-ups from
// the front, the back and either side, kick distance and direction, and the head
// scan's peak yaw speed. Each run is one in-process robot (robotd's
// perception and motion with a scripted request) on robotd's embedded
// simulator, or on the server ROBOTD_SIMSPARK names
// ("agent-host:port,trainer-host:port"; start it in sync mode).
//
//	simmeasure [-what walk,side,turn,getup,kick,head] [-runs N] [-speeds 0.1,0.2] [-walk 14s]
//	           [-getup front,back,left,right] [-against 0.3] [-laystep 7ms] [-config JSON] [-trace DIR]
//
// It prints one line per run and a summary per measurement; -trace writes
// each run's samples (ground truth, body angles, fall, motion, leg joints,
// ball) as CSV. The kick's ball lies 0.2 m ahead of the robot, in front of
// the left foot. With -against D every get-up has a second robot standing
// still and stiff (as a waiting teammate does) D metres away in the
// direction of the fall, so that the falling robot lands on it or lies
// against it: it joins 1.5 m further away and the trainer moves it there
// once both stand. The summary also says how often that robot fell (its
// head, mypos z, below a standing robot's).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/motion"
	"github.com/robotd/robotd/modules/motion/walk"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "simmeasure:", err)
		}
		os.Exit(1)
	}
}

// options are the command line's.
type options struct {
	what   map[string]bool
	runs   int
	speeds []float64
	walk   time.Duration
	out    io.Writer
	player int // the next uniform number (1..11, reused round robin)
	robot  robot.Config
	// physics is the embedded simulator's world model (simserver.Config.Physics).
	physics string
	// trace, if not "", is a directory that gets each run's samples as
	// CSV (name-N.csv).
	trace string
	runN  int
	// getups are the get-ups to measure (front, back, left, right).
	getups map[string]bool
	// layStep, if not 0, lays run i down at a planned simulation time,
	// settle + i·layStep after it connected (RobotConfig.LayDownAt), so
	// that the runs repeat exactly and start at spread phases of the
	// stand's sway; else when the 2 s settle has passed by the wall clock.
	layStep time.Duration
	// lay is the fall the next start plans (FallNone: none).
	lay   simrun.Fall
	layAt time.Duration
	// against, if not 0, is how far (m) a second robot stands from a
	// falling one in the direction of its fall (-against).
	against float64
	// mate, if not nil, is where the next start's second robot, standing
	// still, is to stand (session.placeMate puts it there); it joins
	// before the measured one, beamed to stageBeam's spot.
	mate *sim.Beam
}

func run(ctx context.Context, args []string, out io.Writer) error {
	o, err := parseArgs(args, out, os.Stderr)
	if err != nil {
		return err
	}
	server := "embedded simulator"
	if t, ok, err := simrun.TargetFromEnv(); err != nil {
		return err
	} else if ok {
		server = "server " + t.Agent + "," + t.Trainer
	}
	fmt.Fprintf(out, "simmeasure on the %s, %d runs each\n", server, o.runs)
	steps := []struct {
		name string
		fn   func(context.Context, *options) error
	}{{"walk", walkForward}, {"side", walkSideTurn}, {"turn", turnOnset}, {"getup", getUp}, {"kick", kick}, {"head", headScan}}
	for _, s := range steps {
		if o.what[s.name] {
			if err := s.fn(ctx, o); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
		}
	}
	return nil
}

// measurements are -what's names, in the order run measures them.
var measurements = []string{"walk", "side", "turn", "getup", "kick", "head"}

// Bounds of -against (m): closer than minAgainst the two robots' feet
// overlap where they are beamed; farther than maxAgainst a falling robot
// (0.57 m tall) no longer reaches the other one.
const (
	minAgainst = 0.15
	maxAgainst = 0.6
)

// parseArgs parses the command line into options writing to out; the
// flags' usage and errors go to usage.
func parseArgs(args []string, out, usage io.Writer) (*options, error) {
	fs := flag.NewFlagSet("simmeasure", flag.ContinueOnError)
	fs.SetOutput(usage)
	what := fs.String("what", "walk,side,turn,getup,kick,head", "measurements, comma separated: "+strings.Join(measurements, ", "))
	runs := fs.Int("runs", 3, "runs per measurement (and per speed)")
	physics := fs.String("physics", simserver.PhysicsKinematic, "the embedded simulator's world model: kinematic, or ode (a build with -tags sim,ode)")
	sides := fs.String("getup", "front,back", "which get-ups to measure, comma separated: front, back, left, right (the side of the commanded fall)")
	speeds := fs.String("speeds", "0.10,0.15,0.20,0.25,0.30", "forward speeds (m/s) for walk")
	walkFor := fs.Duration("walk", 14*time.Second, "how long each forward walk lasts (simulation time)")
	trace := fs.String("trace", "", "directory for one CSV per run (time, ground truth, body angles, fall, motion, leg joints)")
	against := fs.Float64("against", 0, fmt.Sprintf("getup: a second robot stands still this far (m, %.2g to %.2g) from the falling robot in the direction of its fall (0: none)", minAgainst, maxAgainst))
	layStep := fs.Duration("laystep", 0, "getup: lay run i down at a planned simulation time, 2 s + i·laystep after it connected, so that the runs repeat exactly (0: when 2 s have passed by the wall clock)")
	override := fs.String("config", "", "JSON laid over robotd's default configuration, e.g. {\"motion\":{\"walk\":{\"max_forward\":0.25}}}")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o := &options{what: map[string]bool{}, runs: *runs, walk: *walkFor, out: out, robot: robot.DefaultConfig(), physics: *physics, trace: *trace, layStep: *layStep, against: *against}
	if *override != "" {
		dec := json.NewDecoder(strings.NewReader(*override))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o.robot); err != nil {
			return nil, fmt.Errorf("-config: %w", err)
		}
	}
	o.getups = map[string]bool{}
	for _, g := range strings.Split(*sides, ",") {
		g = strings.TrimSpace(g)
		if _, ok := simrun.FallByName(g); !ok {
			return nil, fmt.Errorf("-getup: %q is not front, back, left or right", g)
		}
		o.getups[g] = true
	}
	if a := o.against; a != 0 && !(a >= minAgainst && a <= maxAgainst) {
		return nil, fmt.Errorf("-against: %v m is not 0 or within %v to %v m", a, minAgainst, maxAgainst)
	}
	for _, w := range strings.Split(*what, ",") {
		w = strings.TrimSpace(w)
		if !slices.Contains(measurements, w) {
			return nil, fmt.Errorf("-what: %q is not one of %s", w, strings.Join(measurements, ", "))
		}
		o.what[w] = true
	}
	for _, s := range strings.Split(*speeds, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(v > 0 && v <= 1) {
			return nil, fmt.Errorf("-speeds: %q is not a speed in m/s", s)
		}
		o.speeds = append(o.speeds, v)
	}
	if o.runs < 1 {
		return nil, errors.New("-runs must be at least 1")
	}
	return o, nil
}

// sample is one tick as the probe sees it.
type sample struct {
	t      time.Duration // since the robot connected
	step   time.Duration // the tick's step (one physics step a message), or its time's difference
	gt     hal.GroundTruth
	body   msg.BodyState
	motion msg.MotionState
	joints hal.JointSensors
}

// script is the scripted behaviour and the probe in one module: it asks
// for request(time since connected) and records every tick.
type script struct {
	request func(time.Duration, *sample) msg.MotionRequest

	gt     *blackboard.Reader[hal.GroundTruth]
	body   *blackboard.Reader[msg.BodyState]
	motion *blackboard.Reader[msg.MotionState]
	joints *blackboard.Reader[hal.JointSensors]
	req    *blackboard.Writer[msg.MotionRequest]

	at   time.Duration
	conn bool

	mu      sync.Mutex
	samples []sample
}

func (s *script) Name() string { return "simmeasure" }
func (s *script) Wire(b *blackboard.Board) (err error) {
	if s.gt, err = blackboard.Read(b, s.Name(), msg.GroundTruthKey); err != nil {
		return err
	}
	if s.body, err = blackboard.Read(b, s.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	if s.motion, err = blackboard.Use(b, s.Name(), msg.MotionStateKey); err != nil {
		return err
	}
	if s.joints, err = blackboard.Read(b, s.Name(), msg.JointsKey); err != nil {
		return err
	}
	s.req, err = blackboard.Write(b, s.Name(), msg.MotionRequestKey)
	return err
}
func (s *script) Tick(t hal.Tick) error {
	if !s.conn && t.Connected {
		s.at, s.conn = t.Time, true
	}
	if !s.conn {
		s.req.Set(msg.MotionRequest{Kind: msg.MotionStand})
		return nil
	}
	sm := sample{t: t.Time - s.at, step: t.Step}
	s.gt.Load(&sm.gt)
	s.body.Load(&sm.body)
	s.motion.Load(&sm.motion)
	s.joints.Load(&sm.joints)
	s.req.Set(s.request(sm.t, &sm))
	s.mu.Lock()
	s.samples = append(s.samples, sm)
	s.mu.Unlock()
	return nil
}

func (s *script) since(from time.Duration) []sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sample
	for _, x := range s.samples {
		if x.t >= from {
			out = append(out, x)
		}
	}
	return out
}

func (s *script) last() sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) == 0 {
		return sample{}
	}
	return s.samples[len(s.samples)-1]
}

// session is one world with one scripted robot, and the robot standing
// still next to it if options.mate placed one.
type session struct {
	w *simrun.World
	r *simrun.Robot
	s *script
	// mate and ms are the standing robot and its probe, nil without one,
	// and matePlayer its uniform number.
	mate       *simrun.Robot
	ms         *script
	matePlayer int
	// mateFrom is the standing robot's probe time from which it stands
	// where placeMate put it.
	mateFrom time.Duration
}

// stageBeam returns where the standing robot joins, for a measured robot
// beamed at b and the standing one to stand at mate: 1.5 m beyond mate on
// the line from b, facing as at mate. A robot joins with every joint at 0,
// its arms stretched forward 0.25 m, until its stand pose lowers them; 0.3
// m from the other robot they would hit it.
func stageBeam(b, mate sim.Beam) sim.Beam {
	dx, dy := mate.X-b.X, mate.Y-b.Y
	d := math.Hypot(dx, dy)
	if d == 0 {
		dx, dy, d = 1, 0, 1
	}
	return sim.Beam{X: mate.X + stageDistance*dx/d, Y: mate.Y + stageDistance*dy/d, Deg: mate.Deg}
}

// stageDistance is how far beyond its place the standing robot joins (m).
const stageDistance = 1.5

// placeMate moves the standing robot to mate with the trainer (the first
// team to connect plays on the left) once the measured robot has stood
// for a second, and waits until the server has it there, standing, and
// 0.5 s more for it to settle.
func (ss *session) placeMate(ctx context.Context, mate sim.Beam) error {
	if err := ss.wait(ctx, time.Second-ss.r.Elapsed()); err != nil {
		return err
	}
	if err := ss.w.Trainer().MoveAgent("Left", ss.matePlayer, mate.X, mate.Y, mate.Deg); err != nil {
		return fmt.Errorf("placing the standing robot: %w", err)
	}
	there := func() bool {
		gt, _ := ss.mate.Truth()
		return gt.Valid && math.Hypot(float64(gt.Pose.X)-mate.X, float64(gt.Pose.Y)-mate.Y) < 0.05 && gt.HeadHeight > simrun.StandingHead
	}
	if _, err := ss.mate.WaitFor(ctx, 2*time.Second, there); err != nil {
		gt, _ := ss.mate.Truth()
		return fmt.Errorf("placing the standing robot at (%.2f, %.2f): at (%.2f, %.2f), head %.2f m: %w", mate.X, mate.Y, gt.Pose.X, gt.Pose.Y, gt.HeadHeight, err)
	}
	ss.mateFrom = ss.ms.last().t
	_, err := ss.mate.WaitFor(ctx, 500*time.Millisecond, func() bool { return false })
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

func (o *options) start(ctx context.Context, beam sim.Beam, request func(time.Duration, *sample) msg.MotionRequest) (*session, error) {
	scfg := simserver.DefaultConfig()
	scfg.Sync, scfg.Physics = true, o.physics
	w, err := simrun.Start(ctx, simrun.Options{Server: &scfg})
	if err != nil {
		return nil, err
	}
	ss := &session{w: w}
	if o.mate != nil {
		// The standing robot joins first, so that it stands where it was
		// beamed before the measured robot's time starts.
		o.player = o.player%11 + 1
		ss.ms = &script{request: func(time.Duration, *sample) msg.MotionRequest { return msg.MotionRequest{Kind: msg.MotionStand} }}
		cfg := o.robot
		ss.matePlayer = o.player
		ss.mate, err = w.AddRobot(simrun.RobotConfig{Team: "robotd", Player: o.player, Beam: stageBeam(beam, *o.mate), Robot: &cfg,
			Modules: func(c *robot.Config) []runner.Module {
				return append(robot.ScriptedModules(c), ss.ms)
			}})
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("adding the standing robot: %w", err)
		}
	}
	o.player = o.player%11 + 1
	s := &script{request: request}
	cfg := o.robot
	r, err := w.AddRobot(simrun.RobotConfig{Team: "robotd", Player: o.player, Beam: beam, Robot: &cfg, LayDown: o.lay, LayDownAt: o.layAt,
		Modules: func(c *robot.Config) []runner.Module {
			return append(robot.ScriptedModules(c), s)
		}})
	if err != nil {
		w.Close()
		return nil, err
	}
	ss.r, ss.s = r, s
	return ss, nil
}

func (ss *session) wait(ctx context.Context, d time.Duration) error {
	_, err := ss.r.WaitFor(ctx, d, func() bool { return false })
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

func (ss *session) close() error { return ss.w.Close() }

// runOnce runs one scripted robot beamed to beam until simulation time
// until, closes its world, writes its trace as name, and returns its
// samples from from on and the closed session.
func (o *options) runOnce(ctx context.Context, name string, beam sim.Beam, request func(time.Duration, *sample) msg.MotionRequest, until, from time.Duration) ([]sample, *session, error) {
	ss, err := o.start(ctx, beam, request)
	if err != nil {
		return nil, nil, err
	}
	err = ss.wait(ctx, until)
	data := ss.s.since(from)
	if cerr := ss.close(); err == nil {
		err = cerr
	}
	if terr := o.writeTrace(name, ss); err == nil {
		err = terr
	}
	return data, ss, err
}

// writeTrace writes a run's samples as CSV into o.trace, if set.
func (o *options) writeTrace(name string, ss *session) error {
	if o.trace == "" {
		return nil
	}
	o.runN++
	f, err := os.Create(filepath.Join(o.trace, fmt.Sprintf("%s-%d.csv", strings.ReplaceAll(name, " ", "_"), o.runN)))
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprint(w, "t,x,y,z,heading,pitch,roll,fall,active,HeadYaw")
	for j := hal.LHipYawPitch; j <= hal.RAnkleRoll; j++ {
		fmt.Fprintf(w, ",%v", j)
	}
	fmt.Fprintln(w, ",LShoulderPitch,LShoulderRoll,LElbowRoll,ball_x,ball_y")
	for _, s := range ss.s.since(0) {
		fmt.Fprintf(w, "%.3f,%.4f,%.4f,%.3f,%.2f,%.1f,%.1f,%v,%d,%.2f", s.t.Seconds(), s.gt.Pose.X, s.gt.Pose.Y, s.gt.HeadHeight, float64(s.gt.Pose.Heading)*180/math.Pi,
			float64(s.body.Angles.Pitch)*180/math.Pi, float64(s.body.Angles.Roll)*180/math.Pi, s.body.Fall, s.motion.Active, float64(s.joints.Angle[hal.HeadYaw])*180/math.Pi)
		for j := hal.LHipYawPitch; j <= hal.RAnkleRoll; j++ {
			fmt.Fprintf(w, ",%.1f", float64(s.joints.Angle[j])*180/math.Pi)
		}
		for _, j := range []hal.Joint{hal.LShoulderPitch, hal.LShoulderRoll, hal.LElbowRoll} {
			fmt.Fprintf(w, ",%.1f", float64(s.joints.Angle[j])*180/math.Pi)
		}
		fmt.Fprintf(w, ",%.3f,%.3f\n", s.gt.Ball.X, s.gt.Ball.Y)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("trace: %w", err)
	}
	return f.Close()
}

// firstFall returns the first sample that is not upright.
func firstFall(ss []sample) (sample, bool) {
	for _, s := range ss {
		if s.body.Fall != msg.Upright {
			return s, true
		}
	}
	return sample{}, false
}

const settle = 2 * time.Second

func walkForward(ctx context.Context, o *options) error {
	type row struct {
		speed            float64
		n, falls         int
		sum, drift, side float64
		fallAt           []string
	}
	var rows []row
	for _, v := range o.speeds {
		rw := row{speed: v}
		for range o.runs {
			ss, err := o.start(ctx, sim.Beam{X: -4, Y: 0, Deg: 0}, func(t time.Duration, _ *sample) msg.MotionRequest {
				if t < settle {
					return msg.MotionRequest{Kind: msg.MotionStand}
				}
				return msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: hal.MetresPerSec(v)}}
			})
			if err != nil {
				return err
			}
			err = ss.wait(ctx, settle+o.walk+100*time.Millisecond)
			data := ss.s.since(settle)
			cerr := ss.close()
			if terr := o.writeTrace(fmt.Sprintf("walk%.2f", v), ss); cerr == nil {
				cerr = terr
			}
			if err != nil {
				return err
			}
			if cerr != nil {
				return cerr
			}
			if len(data) < 2 || !data[0].gt.Valid {
				return fmt.Errorf("speed %.2f: no ground truth", v)
			}
			a := data[0].gt.Pose
			end := data[len(data)-1]
			result := "upright"
			if f, fell := firstFall(data); fell {
				rw.falls++
				end = f
				result = fmt.Sprintf("FELL %v after %.1f s", f.body.Fall, (f.t - settle).Seconds())
				rw.fallAt = append(rw.fallAt, fmt.Sprintf("%.1f s", (f.t-settle).Seconds()))
			}
			rel := a.Relative(end.gt.Pose)
			dur := (end.t - data[0].t).Seconds()
			speed := float64(rel.X) / dur
			drift := math.Remainder(float64(end.gt.Pose.Heading-a.Heading), 2*math.Pi) * 180 / math.Pi
			perM := 0.0
			if rel.X > 0.1 {
				perM = math.Abs(drift) / float64(rel.X)
			}
			fmt.Fprintf(o.out, "walk %.2f m/s: %.0f mm/s over %.1f s (%.2f m forward, %.2f m sideways), heading drift %.1f° (%.1f°/m), %s\n",
				v, speed*1000, dur, rel.X, rel.Y, drift, perM, result)
			if result == "upright" {
				rw.n++
				rw.sum += speed
				rw.drift = max(rw.drift, perM)
				rw.side = max(rw.side, math.Abs(float64(rel.Y)))
			}
		}
		rows = append(rows, rw)
	}
	fmt.Fprintln(o.out, "| requested | measured (runs without a fall) | falls | max drift °/m | max sideways m |")
	fmt.Fprintln(o.out, "|---|---|---|---|---|")
	for _, rw := range rows {
		m := "-"
		if rw.n > 0 {
			m = fmt.Sprintf("%.0f mm/s (n=%d)", rw.sum/float64(rw.n)*1000, rw.n)
		}
		fmt.Fprintf(o.out, "| %.2f m/s | %s | %d of %d %v | %.1f | %.2f |\n", rw.speed, m, rw.falls, rw.n+rw.falls, rw.fallAt, rw.drift, rw.side)
	}
	return nil
}

func walkSideTurn(ctx context.Context, o *options) error {
	cfg := walk.DefaultConfig()
	const walkFor = 6 * time.Second
	for _, tc := range []struct {
		name string
		req  msg.WalkRequest
	}{{"left", msg.WalkRequest{Left: cfg.MaxLeft}}, {"right", msg.WalkRequest{Left: -cfg.MaxLeft}},
		{"turn left", msg.WalkRequest{Turn: cfg.MaxTurn}}, {"turn right", msg.WalkRequest{Turn: -cfg.MaxTurn}}} {
		falls := 0
		for range o.runs {
			data, _, err := o.runOnce(ctx, tc.name, sim.Beam{X: -2, Y: 0, Deg: 0}, func(t time.Duration, _ *sample) msg.MotionRequest {
				if t < settle || t >= settle+walkFor {
					return msg.MotionRequest{Kind: msg.MotionStand}
				}
				return msg.MotionRequest{Kind: msg.MotionWalk, Walk: tc.req}
			}, settle+walkFor+2*time.Second, settle)
			if err != nil {
				return err
			}
			if len(data) < 2 {
				return errors.New("no samples")
			}
			var dh float64
			for i := 1; i < len(data); i++ {
				dh += math.Remainder(float64(data[i].gt.Pose.Heading-data[i-1].gt.Pose.Heading), 2*math.Pi)
			}
			rel := data[0].gt.Pose.Relative(data[len(data)-1].gt.Pose)
			result := "upright"
			if f, fell := firstFall(data); fell {
				falls++
				result = fmt.Sprintf("FELL %v after %.1f s", f.body.Fall, (f.t - settle).Seconds())
			}
			fmt.Fprintf(o.out, "%s for %v: moved (%.3f, %.3f) m, turned %.1f°, %s\n", tc.name, walkFor, rel.X, rel.Y, dh*180/math.Pi, result)
		}
		fmt.Fprintf(o.out, "%s: %d falls in %d runs\n", tc.name, falls, o.runs)
	}
	return nil
}

// The turn onset's plan: the robot walks straight ahead at turnForward
// for turnWalkFor (and run i for (i mod turnPhases)·turnPhase more), then is asked to turn at turnRate (the rate the
// find-ball search asks of a robot turning towards a target) for
// turnFor, walking on or with no forward speed.
const (
	turnForward = 0.25 // m/s
	turnRate    = 0.8  // rad/s
	turnWalkFor = 3 * time.Second
	turnFor     = 2 * time.Second
	// turnPhase delays run i's request by (i mod turnPhases)·turnPhase,
	// so that the runs ask at different phases of the walk's steps
	// (a step lasts 250 ms).
	turnPhase  = 50 * time.Millisecond
	turnPhases = 5
	// turnOnsetDeg is the heading change that counts as the turn's onset.
	turnOnsetDeg = 5
)

// turnMarks are the times after the turn request at which turnOnset
// reports the heading change.
var turnMarks = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}

// turnSince returns the ground truth's heading change (degrees, unwrapped)
// at each of marks after data[0], the time from data[0] until it first
// reached onset degrees in either direction (-1 if never), and whether
// every sample had ground truth.
func turnSince(data []sample, marks []time.Duration, onset float64) (at []float64, onsetAt time.Duration, ok bool) {
	at = make([]float64, len(marks))
	for i := range at {
		at[i] = math.NaN()
	}
	onsetAt = -1
	if len(data) == 0 {
		return at, onsetAt, false
	}
	ok = true
	var dh float64
	m := 0
	for i, s := range data {
		if !s.gt.Valid {
			ok = false
		}
		if i > 0 {
			dh += math.Remainder(float64(s.gt.Pose.Heading-data[i-1].gt.Pose.Heading), 2*math.Pi) * 180 / math.Pi
		}
		since := s.t - data[0].t
		for m < len(marks) && since >= marks[m] {
			at[m] = dh
			m++
		}
		if onsetAt < 0 && math.Abs(dh) >= onset {
			onsetAt = since
		}
	}
	return at, onsetAt, ok
}

// turnOnset measures how soon a walking robot turns when asked to: the
// ground truth's heading change at turnMarks after the request, and the
// time until it has turned turnOnsetDeg, for a turn either way while it
// walks on and from the walk with no forward speed.
func turnOnset(ctx context.Context, o *options) error {
	type tcase struct {
		name string
		req  msg.WalkRequest
	}
	cases := []tcase{
		{"walk, turn left", msg.WalkRequest{Forward: turnForward, Turn: turnRate}},
		{"walk, turn right", msg.WalkRequest{Forward: turnForward, Turn: -turnRate}},
		{"stop, turn left", msg.WalkRequest{Turn: turnRate}},
		{"stop, turn right", msg.WalkRequest{Turn: -turnRate}},
	}
	fmt.Fprintf(o.out, "turn onset: walk %.2f m/s for %v, then turn %.1f rad/s for %v; heading change (°) after the request at %v\n", turnForward, turnWalkFor, turnRate, turnFor, turnMarks)
	sums := make([][]float64, len(cases))
	onsets := make([][]time.Duration, len(cases))
	for ci, tc := range cases {
		sums[ci] = make([]float64, len(turnMarks))
		for run := range o.runs {
			ask := settle + turnWalkFor + time.Duration(run%turnPhases)*turnPhase
			data, ss, err := o.runOnce(ctx, tc.name, sim.Beam{X: -3, Y: 0, Deg: 0}, func(t time.Duration, _ *sample) msg.MotionRequest {
				switch {
				case t < settle || t >= ask+turnFor:
					return msg.MotionRequest{Kind: msg.MotionStand}
				case t < ask:
					return msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: turnForward}}
				}
				return msg.MotionRequest{Kind: msg.MotionWalk, Walk: tc.req}
			}, ask+turnFor+500*time.Millisecond, ask)
			if err != nil {
				return err
			}
			at, on, ok := turnSince(data, turnMarks, turnOnsetDeg)
			if !ok {
				return fmt.Errorf("%s: samples without ground truth", tc.name)
			}
			result := "upright"
			if f, fell := firstFall(ss.s.since(settle)); fell {
				result = fmt.Sprintf("FELL %v after %.1f s", f.body.Fall, (f.t - settle).Seconds())
			}
			var b strings.Builder
			for i, a := range at {
				fmt.Fprintf(&b, " %+.1f", a)
				sums[ci][i] += a
			}
			onsets[ci] = append(onsets[ci], on)
			fmt.Fprintf(o.out, "%s, asked at %v: heading%s, %v° after %v, %s\n", tc.name, ask-settle, b.String(), turnOnsetDeg, on, result)
		}
	}
	fmt.Fprint(o.out, "| case |")
	for _, m := range turnMarks {
		fmt.Fprintf(o.out, " %v |", m)
	}
	fmt.Fprintf(o.out, " %v° after (each run) |\n|---|", turnOnsetDeg)
	for range turnMarks {
		fmt.Fprint(o.out, "---|")
	}
	fmt.Fprintln(o.out, "---|")
	for ci, tc := range cases {
		fmt.Fprintf(o.out, "| %s |", tc.name)
		for _, s := range sums[ci] {
			fmt.Fprintf(o.out, " %+.1f° |", s/float64(o.runs))
		}
		fmt.Fprintf(o.out, " %v |\n", onsets[ci])
	}
	return nil
}

// getUpFalls are the commanded falls -getup names, in the order they are
// measured.
var getUpFalls = []simrun.Fall{simrun.FallFront, simrun.FallBack, simrun.FallLeft, simrun.FallRight}

// getUpBeam is where a get-up's robot stands before it is laid down.
var getUpBeam = sim.Beam{X: -1, Y: 1, Deg: 30}

// fallDirection returns the direction (degrees, the beam's frame, 0 = +x,
// counter-clockwise) in which a robot facing headingDeg falls for f: ahead
// for a fall to the front, behind for one to the back, to its left (+90°)
// or right for one to the side.
func fallDirection(f simrun.Fall, headingDeg float64) float64 {
	switch f {
	case simrun.FallBack:
		return headingDeg + 180
	case simrun.FallLeft:
		return headingDeg + 90
	case simrun.FallRight:
		return headingDeg - 90
	}
	return headingDeg
}

// mateShifts are the standing robot's offsets (m) across the direction of
// the fall, one a run in turn: the falling robot's torso meets both its
// legs, or mostly one of them (the NAO's feet are 0.1 m apart).
var mateShifts = [...]float64{0, 0.06, -0.06}

// mateBeam returns where run i of a get-up from f beams the standing
// robot, for a falling robot beamed at b: dist metres from b in the
// direction of the fall (fallDirection) plus mateShifts[i%3] across it,
// turned so that its front, its right side, its back and its left side
// face the falling robot in turn (i%4); degrees within (-180, 180].
func mateBeam(b sim.Beam, f simrun.Fall, dist float64, i int) sim.Beam {
	dir := fallDirection(f, b.Deg)
	r := dir * math.Pi / 180
	shift := mateShifts[i%len(mateShifts)]
	x := b.X + dist*math.Cos(r) - shift*math.Sin(r)
	y := b.Y + dist*math.Sin(r) + shift*math.Cos(r)
	// Facing the falling robot is dir+180; each quarter turn to the left
	// puts the falling robot a quarter further round to its right.
	deg := dir + 180 + 90*float64(i%4)
	deg = -math.Remainder(-deg, 360) // within (-180, 180]
	return sim.Beam{X: x, Y: y, Deg: deg}
}

// leanJudged is when (after the fall was commanded) a robot that fell
// against a standing one but never lay is judged as one that got up: the
// commanded fall's pose holds its legs for at most 1.5 s (simrun's
// fallDuration).
const leanJudged = 2 * time.Second

// mateOutcome is what happened to the standing robot in a get-up run.
type mateOutcome struct {
	fell   bool          // its head (mypos z) went below a standing robot's
	fellAt time.Duration // when first (its samples' time), if fell
	lowest float64       // its lowest head height (m)
	pushed float64       // how far it was moved from where it stood (m)
}

// mateAfter judges the standing robot from its samples (ground truth) from
// from on (its probe's time), when it stands where placeMate put it.
func mateAfter(samples []sample, from time.Duration) mateOutcome {
	m := mateOutcome{lowest: math.Inf(1)}
	var at hal.Pose2
	first := true
	for _, s := range samples {
		if s.t < from || !s.gt.Valid {
			continue
		}
		if first {
			at, first = s.gt.Pose, false
		}
		m.lowest = min(m.lowest, float64(s.gt.HeadHeight))
		if !m.fell && float64(s.gt.HeadHeight) < simrun.StandingHead {
			m.fell, m.fellAt = true, s.t
		}
		m.pushed = max(m.pushed, math.Hypot(float64(s.gt.Pose.X-at.X), float64(s.gt.Pose.Y-at.Y)))
	}
	return m
}

// getUp lays the robot down as each -getup fall says (a commanded fall:
// its own joints tip it over) and measures from the server's ground truth
// whether and when it stands again: up once robotd finds it upright and
// standing and the head (mypos z) is at a standing robot's height, and
// success if it is up within 10 s of being laid down and stays up for 2 s.
// With -against a second robot stands in the way of the fall (mateBeam),
// and the summary counts the runs in which it fell too.
func getUp(ctx context.Context, o *options) error {
	for _, fall := range getUpFalls {
		name := fall.String()
		if !o.getups[name] {
			continue
		}
		if o.against > 0 {
			name = fmt.Sprintf("%s against a robot %.2f m away", name, o.against)
		}
		ok, mateFell, leaned := 0, 0, 0
		var times []string
		for i := range o.runs {
			o.lay, o.layAt = simrun.FallNone, 0
			if o.layStep > 0 {
				o.lay, o.layAt = fall, settle+time.Duration(i)*o.layStep
			}
			o.mate = nil
			if o.against > 0 {
				mb := mateBeam(getUpBeam, fall, o.against, i)
				o.mate = &mb
			}
			ss, err := o.start(ctx, getUpBeam, func(_ time.Duration, s *sample) msg.MotionRequest {
				if s.body.Fall != msg.Upright {
					return msg.MotionRequest{Kind: msg.MotionGetUp}
				}
				return msg.MotionRequest{Kind: msg.MotionStand}
			})
			o.mate = nil
			if err != nil {
				return err
			}
			if ss.mate != nil {
				if err := ss.placeMate(ctx, mateBeam(getUpBeam, fall, o.against, i)); err != nil {
					ss.close()
					return err
				}
			}
			o.lay = simrun.FallNone
			laid := o.layAt
			if o.layStep == 0 {
				if err := ss.wait(ctx, settle); err != nil {
					ss.close()
					return err
				}
				laid = ss.r.Elapsed()
				ss.r.LayDownOn(fall)
			}
			var down, up time.Duration
			var how msg.Fall
			help := false
			lowest := math.Inf(1) // the falling robot's lowest head height (m) since laid down
			_, err = ss.r.WaitFor(ctx, 15*time.Second, func() bool {
				s := ss.s.last()
				if down == 0 && s.body.Fall != msg.Upright {
					down, how = s.t, s.body.Fall
				}
				if s.t >= laid && s.gt.Valid {
					lowest = min(lowest, float64(s.gt.HeadHeight))
				}
				help = help || s.motion.NeedsHelp
				// Up by the server's ground truth too: the head (mypos z)
				// at a standing robot's height.
				standing := s.body.Fall == msg.Upright && s.gt.Valid && s.gt.HeadHeight > simrun.StandingHead
				// A robot that falls onto a standing one may stay leaning
				// on it, never lying: it is judged from the moment the
				// commanded fall is over as one that lay.
				began := down != 0 || (ss.mate != nil && s.t >= laid+leanJudged)
				if began && !standing {
					up = 0
				}
				if began && up == 0 && standing && s.motion.Active == msg.MotionStand {
					up = s.t
				}
				return up != 0 && s.t > up+2*time.Second
			})
			cerr := ss.close()
			if errors.Is(err, context.Canceled) {
				return err
			}
			if terr := o.writeTrace("getup_"+name, ss); cerr == nil {
				cerr = terr
			}
			if cerr != nil {
				return cerr
			}
			asked := ""
			if help {
				asked = " (asked for help)"
			}
			if ss.ms != nil {
				m := mateAfter(ss.ms.since(0), ss.mateFrom)
				if m.fell {
					mateFell++
					// Both scripts' times count from their robot's
					// connection, on the world's common clock.
					asked += fmt.Sprintf("; the standing robot FELL %.2f s after the fall began", (m.fellAt + ss.ms.at - ss.s.at - laid).Seconds())
				}
				mb := mateBeam(getUpBeam, fall, o.against, i)
				asked += fmt.Sprintf("; the standing robot (placed at %.2f, %.2f, %.0f°): head down to %.2f m, pushed %.2f m", mb.X, mb.Y, mb.Deg, m.lowest, m.pushed)
			}
			switch {
			case down == 0 && ss.mate != nil && up != 0:
				leaned++
				fmt.Fprintf(o.out, "get-up from the %s: never lay down (head down to %.2f m), standing %.2f s after being laid down%s\n", name, lowest, (up - laid).Seconds(), asked)
				if up-laid <= 10*time.Second {
					ok++
					times = append(times, fmt.Sprintf("%.1f", (up-laid).Seconds()))
				}
			case down == 0:
				fmt.Fprintf(o.out, "get-up from the %s: never lay down (head down to %.2f m)%s\n", name, lowest, asked)
			case up == 0:
				fmt.Fprintf(o.out, "get-up from the %s: lay %v, not up and staying up within 15 s%s\n", name, how, asked)
			default:
				fmt.Fprintf(o.out, "get-up from the %s: lay %v after %.2f s, standing %.2f s after being laid down%s\n", name, how, (down - laid).Seconds(), (up - laid).Seconds(), asked)
				if up-laid <= 10*time.Second {
					ok++
					times = append(times, fmt.Sprintf("%.1f", (up-laid).Seconds()))
				}
			}
		}
		fmt.Fprintf(o.out, "get-up from the %s: %d of %d up within 10 s (%v s)\n", name, ok, o.runs, strings.Join(times, ", "))
		if o.against > 0 {
			fmt.Fprintf(o.out, "get-up from the %s: %d never lay down; the standing robot fell in %d of %d runs\n", name, leaned, mateFell, o.runs)
		}
	}
	return nil
}

func kick(ctx context.Context, o *options) error {
	const kickAt = 2 * time.Second
	good := 0
	var dists []string
	for range o.runs {
		req := msg.MotionRequest{Kind: msg.MotionKick, Kick: msg.KickRequest{Foot: msg.LeftFoot}}
		ss, err := o.start(ctx, sim.Beam{X: -2, Y: 0, Deg: 0}, func(t time.Duration, _ *sample) msg.MotionRequest {
			if t < kickAt {
				return msg.MotionRequest{Kind: msg.MotionStand}
			}
			return req
		})
		if err != nil {
			return err
		}
		if err := ss.wait(ctx, kickAt-500*time.Millisecond); err != nil {
			ss.close()
			return err
		}
		gt := ss.s.last().gt
		ball := gt.Pose.Global(hal.Vec2{X: 0.20, Y: 0.055}) // 0.2 m ahead, in front of the left foot
		if err := ss.w.Trainer().PlaceBall(ball.X, ball.Y, 0, 0); err != nil {
			ss.close()
			return err
		}
		err = ss.wait(ctx, kickAt+8*time.Second-ss.r.Elapsed())
		end := ss.s.last()
		_, fell := firstFall(ss.s.since(kickAt))
		if cerr := ss.close(); err == nil {
			err = cerr
		}
		if terr := o.writeTrace("kick", ss); err == nil {
			err = terr
		}
		if err != nil {
			return err
		}
		mx, my := end.gt.Ball.X-ball.X, end.gt.Ball.Y-ball.Y
		d := math.Hypot(mx, my)
		dir := math.Remainder(math.Atan2(my, mx)-float64(gt.Pose.Heading), 2*math.Pi) * 180 / math.Pi
		fmt.Fprintf(o.out, "kick (left foot, straight): ball went %.2f m towards %.1f°, robot fell %v\n", d, dir, fell)
		dists = append(dists, fmt.Sprintf("%.2f", d))
		if d >= 3 && math.Abs(dir) <= 20 {
			good++
		}
	}
	fmt.Fprintf(o.out, "kick: %d of %d at least 3 m within ±20°; distances %v m\n", good, o.runs, dists)
	return nil
}

func headScan(ctx context.Context, o *options) error {
	for range o.runs {
		ss, err := o.start(ctx, sim.Beam{X: 0, Y: -2, Deg: 90}, func(time.Duration, *sample) msg.MotionRequest {
			return msg.MotionRequest{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadScan}}
		})
		if err != nil {
			return err
		}
		err = ss.wait(ctx, 10*time.Second)
		data := ss.s.since(time.Second)
		if cerr := ss.close(); err == nil {
			err = cerr
		}
		if terr := o.writeTrace("head", ss); err == nil {
			err = terr
		}
		if err != nil {
			return err
		}
		// Speeds on the server's own clock: a float32 sent with two
		// decimals, so a pair of messages one physics step apart reads
		// 0.01 s, now and then 0 (skipped: the next pair's angle starts
		// from its second message) or 0.02.
		peak, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		var peakAt time.Duration
		var swept, sweptFor, sweptTicks float64 // where |yaw| < 70°: the scan's steady part
		const steady = 70 * math.Pi / 180
		for i := 1; i < len(data); i++ {
			y, y0 := float64(data[i].joints.Angle[hal.HeadYaw]), float64(data[i-1].joints.Angle[hal.HeadYaw])
			lo, hi = min(lo, y), max(hi, y)
			dt := data[i].gt.ServerTime - data[i-1].gt.ServerTime
			if dt < 0 || dt > 0.1 {
				return fmt.Errorf("head: the server's clock stepped %.3f s between two messages", dt)
			}
			if math.Abs(y) < steady && math.Abs(y0) < steady {
				swept += math.Abs(y - y0)
				sweptFor += dt
				st := data[i].step
				if st <= 0 {
					st = data[i].t - data[i-1].t
				}
				sweptTicks += st.Seconds()
			}
			if dt == 0 {
				continue
			}
			if v := math.Abs(y-y0) / dt; v > peak {
				peak, peakAt = v, data[i].t
			}
		}
		mean, perCycle := 0.0, 0.0
		if sweptFor > 0 {
			mean, perCycle = swept/sweptFor, swept/sweptTicks
		}
		// Beyond 2^15 s the server's float32 clock adds 3 ULPs (11.7 ms)
		// per 10 ms physics step; a message's tick says it is one step
		// (hal.Tick.Step).
		fmt.Fprintf(o.out, "head scan (%.2f rad/s asked): peak yaw speed %.2f rad/s at %.2f s; within ±70° %.2f rad/s on the server's clock, %.2f rad/s per cycle (one a message); swept %.1f° … %.1f° (server clock %.2f … %.2f s)\n",
			float64(motion.DefaultHeadConfig().ScanSpeed), peak, peakAt.Seconds(), mean, perCycle, lo*180/math.Pi, hi*180/math.Pi, data[0].gt.ServerTime, data[len(data)-1].gt.ServerTime)
	}
	return nil
}
