package simrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
)

// JoinHandshake is how long a robot joining an attached rcssserver3d in
// sync mode waits for its first message before it connects again:
// shorter than the read timeout of the robots already there (AddRobot's
// default 10 s; findball's 30 s), so that they wait for the server without
// ticking.
//
// The server can deadlock on a joining agent. It creates the agent's
// AgentAspect when it accepts the connection and, from the agent's fifth
// cycle on, waits for its (syn) before every step
// (AgentAspect::IsSynced, oxygen/agentaspect/agentaspect.cpp). It builds
// the agent's body from its scene message only in a step's physics
// update (SceneEffector::PrePhysicsUpdateInternal), and sends nothing to
// an agent without perceptors (AgentControl::EndCycle). So if the scene
// message arrives more than four cycles after the accept (the other
// robots keep it cycling fast), the server waits for a (syn) that the
// agent sends only in answer to its first message, and every robot on it
// stands still until the agent's connection closes. Measured on the UNSW
// fork, sync mode, two to four find-ball campaigns at once (load average
// 4–9): in 10 of 573 trials; the first message came after 2.0–2.1 s to a
// trial's first robot and after 20 ms to 1 s to the others otherwise.
const JoinHandshake = 8 * time.Second

// RobotConfig configures one in-process robot.
type RobotConfig struct {
	// Team is the SimSpark team name; the first team to connect plays on
	// the left. Player is the uniform number.
	Team   string
	Player int
	// Beam is the start pose in the team's frame.
	Beam sim.Beam
	// Robot configures the runner and modules; zero means
	// robot.DefaultConfig().
	Robot *robot.Config
	// Sim is the backend's configuration to start from (host, port, team,
	// player, beam and sync are set here); zero means sim.DefaultConfig()
	// with generous timeouts, as a sync-mode server waits for every agent.
	Sim *sim.Config
	// Observe is called with the robot's board before the runner starts,
	// so that a caller can declare readers (e.g. blackboard.ReadOptional
	// under its own module name) or add modules through Extra.
	Observe func(*blackboard.Board) error
	// Extra modules run alongside the daemon's (test probes, experiment
	// bookkeeping).
	Extra []runner.Module
	// Modules, if set, builds the modules instead of robot.Modules: for
	// scenario tests that drive motion with a scripted behaviour, say.
	Modules func(*robot.Config) []runner.Module
	// NoConnectWait makes AddRobot return without waiting for the
	// server's first messages: for a caller that holds the server's
	// stepping itself.
	NoConnectWait bool
	// LayDown, if not FallNone, lays the robot down (see Robot.LayDown)
	// in its first tick at least LayDownAt after it connected: in
	// simulation time, so that a run in sync mode repeats exactly, as a
	// LayDown called from another goroutine cannot promise.
	LayDown   Fall
	LayDownAt time.Duration
	// NoiseEpoch, if set, is the backend's noise epoch
	// (sim.Backend.SetNoiseEpoch): the noise the robot adds to what it is
	// sent is drawn frame by frame from its seed and the time since.
	NoiseEpoch func() (time.Duration, bool)
}

// Robot is one in-process robotd on the simulator.
type Robot struct {
	cfg     RobotConfig
	board   *blackboard.Board
	backend *sim.Backend
	dev     *fallDevice
	cancel  context.CancelFunc
	done    chan error
	// connAt is the tick time of the first connected tick plus 1 ns; 0
	// until then.
	connAt atomic.Int64
	// connected counts the connected ticks.
	connected atomic.Int64

	// readMu serialises the accessors' reads: a blackboard Reader is for
	// one goroutine at a time, and tests call them from several.
	readMu sync.Mutex
	truth  *blackboard.Reader[hal.GroundTruth]
	pose   *blackboard.Reader[msg.RobotPose]
	ball   *blackboard.Reader[msg.Ball]
	body   *blackboard.Reader[msg.BodyState]
	mstat  *blackboard.Reader[msg.MotionState]
}

// AddRobot starts a robot: a SimSpark backend connected to the world's
// agent port, the daemon's modules and a runner in its own goroutine. It
// returns once the robot has inited and beamed (its first few messages
// from the server), or an error after a minute without them (unless
// rc.NoConnectWait).
func (w *World) AddRobot(rc RobotConfig) (*Robot, error) {
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return nil, errors.New("simrun: world closed")
	}
	sc := sim.DefaultConfig()
	sc.ReadTimeout = config.Duration(10 * time.Second)
	sc.DeadTimeout = config.Duration(20 * time.Second)
	sc.HandshakeTimeout = config.Duration(JoinHandshake)
	if rc.Sim != nil {
		sc = *rc.Sim
	}
	host, port, err := net.SplitHostPort(w.target.Agent)
	if err != nil {
		return nil, fmt.Errorf("simrun: agent address %q: %w", w.target.Agent, err)
	}
	sc.Host = host
	if sc.Port, err = strconv.Atoi(port); err != nil {
		return nil, fmt.Errorf("simrun: agent port %q: %w", port, err)
	}
	if rc.Team == "" {
		rc.Team = "robotd"
	}
	if rc.Player == 0 {
		rc.Player = 1
	}
	sc.Team, sc.Player, sc.Beam, sc.Sync = rc.Team, rc.Player, rc.Beam, w.sync
	log := w.log.With("team", rc.Team, "player", rc.Player)
	be, err := sim.New(sc, log)
	if err != nil {
		return nil, fmt.Errorf("simrun: robot %s/%d: %w", rc.Team, rc.Player, err)
	}
	be.ShareTime(&w.clock)
	if rc.NoiseEpoch != nil {
		be.SetNoiseEpoch(rc.NoiseEpoch)
	}
	mc := robot.DefaultConfig()
	if rc.Robot != nil {
		mc = *rc.Robot
	}
	r := &Robot{cfg: rc, backend: be, dev: &fallDevice{Backend: be, planned: rc.LayDown, plannedAt: rc.LayDownAt}, done: make(chan error, 1)}
	cw := &connWatch{at: &r.connAt, connected: &r.connected}
	rb, err := robot.Assemble(&mc, r.dev, robot.Options{
		Modules: func(c *robot.Config) []runner.Module {
			mods := []runner.Module{cw}
			if rc.Modules != nil {
				return append(mods, rc.Modules(c)...)
			}
			return append(mods, robot.Modules(c)...)
		},
		// With rendered camera images instead of the server's
		// observations the robot sees through its own vision pipeline,
		// as cmd/robotd wires it.
		Vision: robot.VisionOf,
		Extra:  rc.Extra,
		Observe: func(b *blackboard.Board) error {
			if rc.Observe != nil {
				if err := rc.Observe(b); err != nil {
					return err
				}
			}
			return r.declareReaders(b)
		},
		Log: log,
	})
	if err != nil {
		be.Close()
		return nil, fmt.Errorf("simrun: robot %s/%d: %w", rc.Team, rc.Player, err)
	}
	r.board = rb.Board
	run := rb.Runner
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		err := run.Run(ctx)
		if errors.Is(err, context.Canceled) {
			err = nil
		}
		be.Close()
		r.done <- err
	}()
	w.mu.Lock()
	w.robots = append(w.robots, r)
	w.mu.Unlock()
	if !rc.NoConnectWait {
		if err := r.waitConnected(connectTimeout); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// declareReaders declares the accessors' readers on b.
func (r *Robot) declareReaders(b *blackboard.Board) error {
	const who = "simrun"
	var errs [5]error
	r.truth, errs[0] = blackboard.ReadOptional(b, who, msg.GroundTruthKey)
	r.pose, errs[1] = blackboard.ReadOptional(b, who, msg.RobotPoseKey)
	r.ball, errs[2] = blackboard.ReadOptional(b, who, msg.BallKey)
	r.body, errs[3] = blackboard.ReadOptional(b, who, msg.BodyStateKey)
	r.mstat, errs[4] = blackboard.ReadOptional(b, who, msg.MotionStateKey)
	return errors.Join(errs[:]...)
}

// connectTimeout bounds (in wall time) how long AddRobot waits for the
// server's first message; a real sync-mode server takes about 2 s.
const connectTimeout = 60 * time.Second

// waitConnected waits until the robot has had handshakeTicks messages: it
// stands where it was beamed.
func (r *Robot) waitConnected(timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	for r.connected.Load() < handshakeTicks {
		select {
		case err := <-r.done:
			r.done <- err
			return fmt.Errorf("simrun: robot %s/%d stopped before it connected: %v", r.cfg.Team, r.cfg.Player, err)
		case <-deadline.C:
			return fmt.Errorf("simrun: robot %s/%d: no message from the server within %v", r.cfg.Team, r.cfg.Player, timeout)
		case <-tk.C:
		}
	}
	return nil
}

// connWatch notes the time of the first connected tick, and counts the
// connected ticks.
type connWatch struct {
	at        *atomic.Int64
	connected *atomic.Int64
}

func (*connWatch) Name() string                 { return "simrun-connection" }
func (*connWatch) Wire(*blackboard.Board) error { return nil }
func (c *connWatch) Tick(t hal.Tick) error {
	if t.Connected {
		if c.at.Load() == 0 {
			c.at.Store(int64(t.Time) + 1)
		}
		c.connected.Add(1)
	}
	return nil
}

// handshakeTicks is how many messages a robot has had when its beam has
// taken effect: init answers the first, beam the second, and the server
// applies it in the step after it took it.
const handshakeTicks = 5

// ConnectedAt returns the tick time of the robot's first message from the
// server. The ticks before it (while connecting) count as time too, as
// many as the server took to answer; AddRobot returns after it.
func (r *Robot) ConnectedAt() time.Duration { return time.Duration(r.connAt.Load() - 1) }

// Elapsed returns the simulation time since the robot connected.
func (r *Robot) Elapsed() time.Duration { return r.Time() - r.ConnectedAt() }

// Stop stops the robot (the runner puts it into its safe state) and
// returns the error its run ended with, if any. Calling it again returns
// nil.
func (r *Robot) Stop() error {
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	r.cancel = nil
	select {
	case err := <-r.done:
		if err != nil {
			return fmt.Errorf("simrun: robot %s/%d: %w", r.cfg.Team, r.cfg.Player, err)
		}
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("simrun: robot %s/%d did not stop within 10 s", r.cfg.Team, r.cfg.Player)
	}
}

// Done delivers the run's end: a value arrives when the
// runner stopped by itself (an error) before Stop.
func (r *Robot) Done() <-chan error { return r.done }

// Board returns the robot's blackboard.
func (r *Robot) Board() *blackboard.Board { return r.board }

// Team and Player say who the robot is.
func (r *Robot) Team() string { return r.cfg.Team }
func (r *Robot) Player() int  { return r.cfg.Player }

// Time returns the robot's current tick time (the simulation time once
// connected).
func (r *Robot) Time() time.Duration { return r.board.Time() }

// Truth returns the simulator's ground truth as the robot last received
// it (the fork's mypos/myorien/ballpos, in the team's frame, feet pose).
func (r *Robot) Truth() (hal.GroundTruth, blackboard.Meta) { return get(r, r.truth) }

// Pose returns perception's pose estimate.
func (r *Robot) Pose() (msg.RobotPose, blackboard.Meta) { return get(r, r.pose) }

// Ball returns perception's ball estimate.
func (r *Robot) Ball() (msg.Ball, blackboard.Meta) { return get(r, r.ball) }

// Body returns perception's body state (falls, touch, sonar, FSR).
func (r *Robot) Body() (msg.BodyState, blackboard.Meta) { return get(r, r.body) }

// Motion returns motion's state (what runs, odometry).
func (r *Robot) Motion() (msg.MotionState, blackboard.Meta) { return get(r, r.mstat) }

// get reads through one of the robot's readers under readMu.
func get[T any](r *Robot, rd *blackboard.Reader[T]) (T, blackboard.Meta) {
	r.readMu.Lock()
	defer r.readMu.Unlock()
	return rd.Get()
}

// Backend returns the robot's SimSpark backend (stats, camera height).
func (r *Robot) Backend() *sim.Backend { return r.backend }

// WaitFor polls cond (every millisecond of wall time) until it is true,
// the robot's simulation time has advanced by limit, ctx ends, or the
// robot's run ends. It returns the simulation time that passed.
func (r *Robot) WaitFor(ctx context.Context, limit time.Duration, cond func() bool) (time.Duration, error) {
	start := r.Time()
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	for {
		if cond() {
			return r.Time() - start, nil
		}
		if el := r.Time() - start; el >= limit {
			return el, fmt.Errorf("simrun: robot %s/%d: condition not met within %v of simulation time", r.cfg.Team, r.cfg.Player, limit)
		}
		select {
		case <-ctx.Done():
			return r.Time() - start, ctx.Err()
		case err := <-r.done:
			r.done <- err
			return r.Time() - start, fmt.Errorf("simrun: robot %s/%d stopped: %v", r.cfg.Team, r.cfg.Player, err)
		case <-tk.C:
		}
	}
}

// LayDown makes the robot fall on its front (front) or its back where it
// stands: for a moment its ankles override motion and tip it over (see
// Fall), then motion has it back, lying. This works on any SimSpark
// server; place the robot first with the trainer's MoveAgent.
func (r *Robot) LayDown(front bool) {
	f := FallBack
	if front {
		f = FallFront
	}
	r.dev.req.Store(uint32(f))
}
