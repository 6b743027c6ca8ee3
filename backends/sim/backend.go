package sim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/simspark"
)

// Backend is a simulated NAO on a SimSpark server. It implements hal.Device
// and the capabilities a simulated NAO has. All methods but Stats are for
// the runner's goroutine.
type Backend struct {
	cfg Config
	log *slog.Logger

	conn   net.Conn
	frames *simspark.FrameReader
	setup  int // 0: scene sent, 1: init due, 2: beam due, 3: running
	wbuf   []byte
	eff    simspark.Effectors

	p         simspark.Perception
	ctl       Controller
	filter    AngleFilter
	vis       *visionAdapter
	simTime   float64 // last server time
	haveTime  bool
	dt        float64
	clock     time.Duration // monotonic tick time across reconnects
	seq       uint64
	connected bool
	nextDial  time.Time
	backoff   time.Duration
	lastTick  time.Time
	timer     *time.Timer

	joints hal.JointSensors
	simDeg [simspark.NumJoints]float64 // last angles, simulator sign, rad
	target [hal.NumJoints]hal.Radians
	hasCmd bool
	imu    hal.IMU
	angles hal.BodyAngles
	fsr    hal.FSR
	sonar  hal.Sonar
	vision hal.Vision
	game   hal.GameState
	truth  hal.GroundTruth

	errors, reconnects atomic.Uint64
	badLogged          time.Time
}

// New returns a backend; it connects on the first Next.
func New(cfg Config, log *slog.Logger) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := &Backend{cfg: cfg, log: log, vis: newVisionAdapter(cfg.Vision), dt: cfg.Period.D().Seconds(),
		backoff: cfg.BackoffMin.D(), timer: time.NewTimer(time.Hour)}
	b.timer.Stop()
	b.vis.team = []byte(cfg.Team)
	b.filter.Alpha = cfg.FilterAlpha
	for _, j := range SimJoints {
		if n, _, ok := NAOJoint(j); ok {
			b.joints.Present |= 1 << n
		}
	}
	b.game.LeftSide = true
	return b, nil
}

// Addr returns the server's address.
func (b *Backend) Addr() string { return net.JoinHostPort(b.cfg.Host, strconv.Itoa(b.cfg.Port)) }

// Stats implements hal.StatsReporter.
func (b *Backend) Stats() hal.BackendStats {
	return hal.BackendStats{Errors: b.errors.Load(), Reconnects: b.reconnects.Load()}
}

// connect dials the server and sends the scene.
func (b *Backend) connect(ctx context.Context) error {
	d := net.Dialer{Timeout: b.cfg.DialTimeout.D()}
	conn, err := d.DialContext(ctx, "tcp", b.Addr())
	if err != nil {
		return fmt.Errorf("sim: connecting to %s: %w", b.Addr(), err)
	}
	b.conn = conn
	b.frames = simspark.NewFrameReader(conn, 0)
	b.setup = 0
	b.eff.Reset()
	b.eff.Scene = b.eff.Intern(b.cfg.Scene)
	b.eff.AddItem(simspark.EffScene)
	if err := b.send(); err != nil {
		b.drop(err)
		return err
	}
	b.setup = 1
	b.ctl.Reset()
	b.filter.Reset()
	b.haveTime = false
	return nil
}

// drop closes the connection after an error.
func (b *Backend) drop(err error) {
	if b.conn != nil {
		b.conn.Close()
		b.conn = nil
	}
	if b.connected {
		b.log.Warn("lost the simulator", "addr", b.Addr(), "err", err)
	}
	b.connected = false
	b.nextDial = time.Now().Add(b.backoff)
	b.backoff = min(2*b.backoff, b.cfg.BackoffMax.D())
}

// Next implements hal.Clock: it returns when the next perceptor message has
// arrived, or, while the server is unreachable, after one nominal period
// (with Connected false), trying to reconnect meanwhile.
func (b *Backend) Next(ctx context.Context) (hal.Tick, error) {
	if err := ctx.Err(); err != nil {
		return hal.Tick{}, err
	}
	for {
		if b.conn == nil {
			if !time.Now().Before(b.nextDial) {
				wasEver := b.seq > 0
				if err := b.connect(ctx); err != nil {
					if ctx.Err() != nil {
						return hal.Tick{}, ctx.Err()
					}
					b.drop(err)
				} else if wasEver {
					b.reconnects.Add(1)
					b.log.Info("reconnected to the simulator", "addr", b.Addr())
				}
			}
			if b.conn == nil {
				return b.idleTick(ctx)
			}
		}
		b.conn.SetReadDeadline(time.Now().Add(b.cfg.ReadTimeout.D()))
		msg, err := b.frames.Next()
		if err != nil {
			b.errors.Add(1)
			b.drop(err)
			continue
		}
		if err := b.p.Parse(msg); err != nil {
			b.errors.Add(1)
			if time.Since(b.badLogged) > time.Second {
				b.badLogged = time.Now()
				b.log.Warn("skipping a malformed perceptor message", "err", err)
			}
			continue
		}
		if !b.connected {
			b.backoff = b.cfg.BackoffMin.D()
		}
		b.connected = true
		b.absorb()
		b.seq++
		b.lastTick = time.Now()
		return hal.Tick{Seq: b.seq, Time: b.clock, Period: b.cfg.Period.D(), Connected: true}, nil
	}
}

// idleTick paces a tick by the wall clock while disconnected.
func (b *Backend) idleTick(ctx context.Context) (hal.Tick, error) {
	period := b.cfg.Period.D()
	wait := period - time.Since(b.lastTick)
	if wait > 0 {
		b.timer.Reset(wait)
		select {
		case <-ctx.Done():
			b.timer.Stop()
			return hal.Tick{}, ctx.Err()
		case <-b.timer.C:
		}
	}
	b.lastTick = time.Now()
	b.seq++
	b.clock += period
	return hal.Tick{Seq: b.seq, Time: b.clock, Period: period, Connected: false}, nil
}

// absorb turns the parsed message into HAL values.
func (b *Backend) absorb() {
	p := &b.p
	var gyr, acc [3]float64
	var hasIMU, hasSee bool
	for _, it := range p.Order {
		switch it.Kind {
		case simspark.KindTime:
			if b.haveTime {
				if d := p.Time - b.simTime; d > 0 && d < 1 {
					b.dt = d
				}
			}
			b.simTime, b.haveTime = p.Time, true
		case simspark.KindGYR:
			gyr, hasIMU = p.GYR.V, true
		case simspark.KindACC:
			acc = p.ACC.V
		case simspark.KindHJ:
			ja := p.Joints[it.Index]
			rad := ja.Deg * math.Pi / 180
			b.simDeg[ja.ID] = rad
			if n, sign, ok := NAOJoint(ja.ID); ok && ja.ID != simspark.RLJ1 {
				b.joints.Angle[n] = hal.Radians(sign * rad)
			}
		case simspark.KindSee:
			hasSee = true
		case simspark.KindGS:
			b.gameState()
		}
	}
	b.clock += time.Duration(b.dt * float64(time.Second))
	if hasIMU {
		b.imu = IMU(gyr, acc)
		b.angles = b.filter.Update(b.imu, b.dt)
	}
	b.fsr = hal.FSR{}
	for i := range p.FRP {
		f := &p.FRP[i]
		kg := max(f.F[2], 0) / float64(hal.Gravity) / 4
		cells := &b.fsr.Left
		if p.Is(f.Name, "rf") || p.Is(f.Name, "rf1") {
			cells = &b.fsr.Right
		}
		for c := range cells {
			cells[c] += kg
		}
	}
	b.vision.Fresh = false
	if hasSee {
		headYaw := float64(b.joints.Angle[hal.HeadYaw])
		b.vis.adapt(p, headYaw, &b.vision, &b.sonar)
		groundTruth(p, headYaw, &b.truth)
	}
}

// playModes maps the server's play modes onto game phases.
func (b *Backend) gameState() {
	g := &b.p.GS
	if g.HasTeam {
		b.game.LeftSide = b.p.Is(g.Team, "left")
		b.vis.left = b.game.LeftSide
	}
	if g.HasScore {
		if b.game.LeftSide {
			b.game.ScoreOwn, b.game.ScoreOpp = g.ScoreLeft, g.ScoreRight
		} else {
			b.game.ScoreOwn, b.game.ScoreOpp = g.ScoreRight, g.ScoreLeft
		}
	}
	if g.HasTime {
		b.game.GameTime = time.Duration(g.Time * float64(time.Second))
	}
	if !g.HasPlayMode {
		return
	}
	pm := b.p.Bytes(g.PlayMode)
	side := "Left"
	if !b.game.LeftSide {
		side = "Right"
	}
	b.game.OurKickOff = false
	switch string(pm) {
	case "BeforeKickOff":
		b.game.Phase, b.game.PlayMode = hal.PhaseSet, 0
	case "KickOff_Left", "KickOff_Right":
		b.game.Phase, b.game.PlayMode = hal.PhasePlaying, 1
		b.game.OurKickOff = string(pm) == "KickOff_"+side
	case "PlayOn":
		b.game.Phase, b.game.PlayMode = hal.PhasePlaying, 3
	case "GameOver":
		b.game.Phase, b.game.PlayMode = hal.PhaseFinished, 255
	default:
		b.game.Phase, b.game.PlayMode = hal.PhasePlaying, 254
	}
}

// send writes the effector message in b.eff as one frame.
func (b *Backend) send() error {
	if b.cfg.Sync {
		b.eff.AddItem(simspark.EffSyn)
	}
	buf, off := simspark.BeginFrame(b.wbuf[:0])
	buf = b.eff.Append(buf, simspark.Format{Decimals: 4})
	b.wbuf = simspark.EndFrame(buf, off)
	b.conn.SetWriteDeadline(time.Now().Add(b.cfg.ReadTimeout.D()))
	if _, err := b.conn.Write(b.wbuf); err != nil {
		return fmt.Errorf("sim: sending to %s: %w", b.Addr(), err)
	}
	return nil
}

// Commit sends this cycle's reply: init and beam while starting up, then
// the joint velocities that bring every joint to its target.
func (b *Backend) Commit(context.Context) error {
	if b.conn == nil || !b.connected {
		return nil
	}
	b.eff.Reset()
	switch b.setup {
	case 1:
		b.eff.HasUnum, b.eff.Unum = true, b.cfg.Player
		b.eff.HasTeam, b.eff.Team = true, b.eff.Intern(b.cfg.Team)
		b.eff.AddItem(simspark.EffInit)
		b.setup = 2
	case 2:
		b.eff.Beam = b.cfg.Beam
		b.eff.AddItem(simspark.EffBeam)
		b.setup = 3
	default:
		if b.hasCmd {
			b.jointCommands()
		}
	}
	if err := b.send(); err != nil {
		b.errors.Add(1)
		b.drop(err)
		return err
	}
	return nil
}

func (b *Backend) jointCommands() {
	for _, j := range SimJoints {
		n, sign, _ := NAOJoint(j)
		target := sign * float64(b.target[n]) // RLJ1 mirrors LHipYawPitch
		b.eff.AddJoint(j, b.ctl.Step(j, b.simDeg[j], target, b.dt))
	}
}

// SafeState stops every joint: a simulated NAO has no stiffness, so zero
// velocities are as limp as it gets.
func (b *Backend) SafeState(ctx context.Context) error {
	b.hasCmd = false
	if b.conn == nil || b.setup < 3 {
		return nil
	}
	b.eff.Reset()
	for _, j := range SimJoints {
		b.eff.AddJoint(j, 0)
	}
	if err := b.send(); err != nil {
		return err
	}
	b.ctl.Reset()
	return nil
}

// Close closes the connection.
func (b *Backend) Close() error {
	b.timer.Stop()
	if b.conn == nil {
		return nil
	}
	err := b.conn.Close()
	b.conn = nil
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("sim: closing: %w", err)
	}
	return nil
}

// ReadJoints implements hal.JointSensor.
func (b *Backend) ReadJoints(v *hal.JointSensors) { *v = b.joints }

// WriteJoints implements hal.JointActuator; stiffness is ignored (the
// simulator has none), and a zero stiffness holds the joint where it is.
func (b *Backend) WriteJoints(c *hal.JointCommand) {
	for j := range hal.NumJoints {
		if c.Stiffness[j] > 0 {
			b.target[j] = c.Angle[j]
		} else {
			b.target[j] = b.joints.Angle[j]
		}
	}
	b.hasCmd = true
}

// ReadIMU implements hal.IMUSensor.
func (b *Backend) ReadIMU(v *hal.IMU) { *v = b.imu }

// ReadBodyAngles implements hal.BodyAngleSensor.
func (b *Backend) ReadBodyAngles(v *hal.BodyAngles) { *v = b.angles }

// ReadFSR implements hal.FSRSensor.
func (b *Backend) ReadFSR(v *hal.FSR) { *v = b.fsr }

// ReadSonar implements hal.SonarSensor.
func (b *Backend) ReadSonar(v *hal.Sonar) { *v = b.sonar }

// ReadVision implements hal.VisionSensor.
func (b *Backend) ReadVision(v *hal.Vision) { *v = b.vision }

// ReadGameState implements hal.GameStateSensor.
func (b *Backend) ReadGameState(v *hal.GameState) { *v = b.game }

// ReadGroundTruth implements hal.GroundTruthSensor.
func (b *Backend) ReadGroundTruth(v *hal.GroundTruth) { *v = b.truth }
