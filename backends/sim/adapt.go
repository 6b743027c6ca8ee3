package sim

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/proto/simspark"
)

// maxCycle bounds a plausible difference between the sim times of two
// consecutive messages; larger jumps (or steps backwards) leave dt as it
// was.
const maxCycle = 0.1 // s

// coarseClock is where a float32 clock's resolution reaches 1 ms (2^13 s):
// beyond it the server's time no longer measures the cycle. A sync-mode
// server gets there in seconds of wall time while no agent is connected.
const coarseClock = 8192 // s

// standingCameraHeight is the model's camera height upright on straight
// legs, used only when neither joint angles nor mypos are known.
const standingCameraHeight = 0.54

// Foot sole size of the model (naoleg.rsg): 0.16 m long, 0.08 m wide.
const footLength, footWidth = 0.16, 0.08

// Adapter converts between SimSpark messages and HAL values for one robot.
// It is pure (no I/O, no clock, no goroutines), does not allocate per
// message, and is not safe for concurrent use. Its Read* methods implement
// the HAL's sensor capabilities.
type Adapter struct {
	nominal float64 // configured period, s

	dt      float64 // measured cycle, s
	lastD   float64 // the last plausible sim-time difference, 0 after an implausible one
	simTime float64
	times   int // messages with a time perceptor since Reset

	simAngle   [simspark.NumJoints]float64 // rad, simulator signs
	jointsSeen bool
	joints     hal.JointSensors

	ctl       Controller
	target    [hal.NumJoints]hal.Radians
	drive     hal.JointSet
	hasTarget bool

	imu    hal.IMU
	filter AngleFilter
	angles hal.BodyAngles
	fsr    hal.FSR
	sonar  hal.Sonar
	vision hal.Vision
	game   hal.GameState
	truth  hal.GroundTruth

	vis    visionAdapter
	cam    geom.Pose3
	fromFK bool
}

// NewAdapter returns an adapter for cfg (which should be valid: see
// Config.Validate).
func NewAdapter(cfg Config) *Adapter {
	a := &Adapter{
		nominal: cfg.Period.D().Seconds(),
		vis:     newVisionAdapter(cfg.Vision, cfg.Team, cfg.Player),
	}
	a.filter.Tau = cfg.AngleFilterTau.D().Seconds()
	a.filter.Settle = cfg.AngleFilterSettle.D().Seconds()
	a.joints.Present = hal.SimSparkJoints
	a.game.LeftSide = true
	a.Reset()
	return a
}

// Reset starts a new connection: the cycle is unknown again (dt falls back
// to the nominal period until two messages have arrived), no command is in
// flight, the angle filter restarts and the side is learnt anew. The last
// sensor values are kept.
func (a *Adapter) Reset() {
	a.dt, a.lastD, a.times = a.nominal, 0, 0
	a.ctl.Reset()
	a.filter.Reset()
	a.vision.Fresh = false
}

// noiseEpoch sets the time (s) from which the added vision noise is drawn
// frame by frame (NaN: none), on the clock of the frames' times: the
// server's with Update, the backend's tick time with updateVision; see
// Backend.SetNoiseEpoch.
func (a *Adapter) noiseEpoch(t float64) { a.vis.epoch = t }

// Update absorbs one perceptor message. The added vision noise (from the
// epoch on, see noiseEpoch) is drawn on the server's clock.
func (a *Adapter) Update(p *simspark.Perception) {
	if hasSee, hasTime := a.update(p); hasSee {
		now := math.NaN()
		if hasTime {
			now = p.Time
		}
		a.updateVision(p, now)
	}
}

// update absorbs all of one perceptor message but its See block, and says
// whether it has one and a server time. Without a See block the vision is
// not fresh.
func (a *Adapter) update(p *simspark.Perception) (hasSee, hasTime bool) {
	var hasGYR, hasACC, hasHJ bool
	for _, it := range p.Order {
		switch it.Kind {
		case simspark.KindTime:
			hasTime = true
			a.measureCycle(p.Time)
			a.simTime = p.Time
			a.times++
			a.truth.ServerTime = p.Time
		case simspark.KindGYR:
			hasGYR = true
		case simspark.KindACC:
			hasACC = true
		case simspark.KindHJ:
			ja := p.Joints[it.Index]
			if ja.ID >= simspark.NumJoints || math.IsNaN(ja.Deg) || math.IsInf(ja.Deg, 0) {
				continue
			}
			rad := ja.Deg * deg
			a.simAngle[ja.ID] = rad
			a.jointsSeen, hasHJ = true, true
			if n, sign, ok := NAOJoint(ja.ID); ok && ja.ID != simspark.RLJ1 {
				a.joints.Angle[n] = hal.Radians(sign * rad)
			}
		case simspark.KindGS:
			updateGame(p, &a.game)
			a.vis.left = a.game.LeftSide
			if p.GS.HasUnum {
				a.vis.unum = p.GS.Unum
			}
		case simspark.KindSee:
			hasSee = true
		}
	}
	if hasHJ {
		a.ctl.Observe(&a.simAngle, a.dt)
	}
	if hasGYR || hasACC {
		imu := IMUFromSim(p.GYR.V, p.ACC.V)
		if hasGYR {
			a.imu.Gyro = imu.Gyro
		}
		if hasACC {
			a.imu.Accel = imu.Accel
		}
		a.angles = a.filter.Update(a.imu, a.dt)
	}
	a.updateFSR(p)
	if !hasSee {
		a.vision.Fresh, a.vision.N = false, 0
	}
	return hasSee, hasTime
}

// updateVision absorbs one perceptor message's See block, with the added
// noise drawn for a frame at time now (s) on the epoch's clock (NaN: not
// reseeded).
func (a *Adapter) updateVision(p *simspark.Perception, now float64) {
	a.updateCamera(p)
	if !math.IsNaN(now) {
		a.vis.reseed(now)
	}
	a.vis.adapt(p, &a.cam, &a.vision, &a.sonar)
	st := a.truth.ServerTime
	groundTruth(p, &a.cam, a.simAngle[simspark.HJ1], &a.truth)
	a.truth.ServerTime = st
}

// updateCamera computes the camera pose: from the forward kinematics of the
// measured joint angles and the filtered tilt, or, before any joint angle
// has arrived, straight above the feet at mypos's height (the standing
// height without mypos).
func (a *Adapter) updateCamera(p *simspark.Perception) {
	roll, pitch := float64(a.angles.Roll), float64(a.angles.Pitch)
	if a.jointsSeen {
		a.cam, a.fromFK = camera(&a.simAngle, roll, pitch), true
		return
	}
	h := standingCameraHeight
	for _, it := range p.See.Order {
		if it.Kind == simspark.SeeMyPos {
			h = p.See.MyPos[2]
		}
	}
	a.cam = geom.Pose3{P: geom.Vec3{X: 0, Y: 0, Z: h}, R: tilt(roll, pitch)}
	a.fromFK = false
}

// updateFSR turns the FRP perceptors (force in N on each foot, present only
// while the foot touches something) into kg per foot, spread over the four
// cells by the centre of pressure c (foot frame: x right, y forward).
func (a *Adapter) updateFSR(p *simspark.Perception) {
	a.fsr = hal.FSR{}
	for i := range p.FRP {
		f := &p.FRP[i]
		name := p.Bytes(f.Name)
		if len(name) == 0 {
			continue
		}
		cells := &a.fsr.Left
		switch name[0] {
		case 'l':
		case 'r':
			cells = &a.fsr.Right
		default:
			continue
		}
		kg := max(f.F[2], 0) / float64(hal.Gravity)
		if math.IsNaN(kg) || math.IsInf(kg, 0) {
			continue
		}
		front := min(max(0.5+f.C[1]/footLength, 0), 1)
		left := min(max(0.5-f.C[0]/footWidth, 0), 1)
		if math.IsNaN(front) || math.IsNaN(left) {
			front, left = 0.5, 0.5
		}
		cells[0] += kg * front * left
		cells[1] += kg * front * (1 - left)
		cells[2] += kg * (1 - front) * left
		cells[3] += kg * (1 - front) * (1 - left)
	}
}

// markStale marks the vision as old (a tick without a message).
func (a *Adapter) markStale() { a.vision.Fresh = false }

// measureCycle takes the cycle length from the difference between the
// sim time t and the last one. A server's clock is a float32 that adds the
// physics step every cycle and is sent with two decimals (the fork's
// "(time (now 2531.47))"), so single differences are not the cycle: from
// 256 s to 4096 s each 10 ms step adds 10.0098 ms (0.02 is read about
// once in 1000 cycles), beyond 4096 s it adds 9.766 ms (0.00 is read once
// in 43), and beyond coarseClock whole ULPs (after 45 h every 10 ms step
// reads 15.6 ms). The first difference after Reset is taken; after it, a
// new length only when two consecutive differences agree (within 1 ms).
func (a *Adapter) measureCycle(t float64) {
	if a.times == 0 {
		return
	}
	d := t - a.simTime
	if d <= 0 || d > maxCycle || t >= coarseClock {
		a.lastD = 0
		return
	}
	if a.times == 1 || math.Abs(d-a.lastD) < 0.001 {
		a.dt = d
	}
	a.lastD = d
}

// Cycle returns the measured cycle length in seconds (see measureCycle),
// or the nominal period before two messages with a sim time below
// coarseClock have arrived since Reset.
func (a *Adapter) Cycle() float64 { return a.dt }

// ServerTime returns the last sim time (s), however coarse, and whether
// one arrived since Reset.
func (a *Adapter) ServerTime() (float64, bool) { return a.simTime, a.times > 0 }

// SimTime returns the last sim time (s) and whether one arrived since
// Reset that is fine enough to count cycles by (below coarseClock).
func (a *Adapter) SimTime() (float64, bool) { return a.simTime, a.times > 0 && a.simTime < coarseClock }

// CameraHeight returns the camera height used for the last See block and
// whether it came from the forward kinematics (else from mypos).
func (a *Adapter) CameraHeight() (float64, bool) { return a.cam.P.Z, a.fromFK }

// WriteJoints implements hal.JointActuator: it takes the targets the next
// AppendJointVelocities steers to. Targets are clamped to the NAO's range;
// a joint with zero stiffness is stopped (velocity 0), the closest a
// SimSpark motor comes to limp.
func (a *Adapter) WriteJoints(c *hal.JointCommand) {
	a.drive = 0
	for j := range hal.Joint(hal.NumJoints) {
		a.target[j] = j.Clamp(c.Angle[j])
		if c.Stiffness[j] > 0 {
			a.drive |= 1 << j
		}
	}
	a.hasTarget = true
}

// AppendJointVelocities appends the velocity command of every model joint
// that steers it to its target, once targets and joint angles are known.
func (a *Adapter) AppendJointVelocities(e *simspark.Effectors) {
	if !a.hasTarget || !a.jointsSeen {
		return
	}
	for _, j := range simJoints {
		n, sign, _ := NAOJoint(j)
		if !a.drive.Has(n) {
			e.AddJoint(j, a.ctl.Stop(j))
			continue
		}
		e.AddJoint(j, a.ctl.Step(j, a.simAngle[j], sign*float64(a.target[n]), a.dt))
	}
}

// AppendStop appends a zero velocity for every model joint and forgets the
// targets until the next WriteJoints.
func (a *Adapter) AppendStop(e *simspark.Effectors) {
	for _, j := range simJoints {
		e.AddJoint(j, a.ctl.Stop(j))
	}
	a.hasTarget = false
}

// ReadJoints implements hal.JointSensor.
func (a *Adapter) ReadJoints(v *hal.JointSensors) { *v = a.joints }

// ReadIMU implements hal.IMUSensor.
func (a *Adapter) ReadIMU(v *hal.IMU) { *v = a.imu }

// ReadBodyAngles implements hal.BodyAngleSensor.
func (a *Adapter) ReadBodyAngles(v *hal.BodyAngles) { *v = a.angles }

// ReadFSR implements hal.FSRSensor.
func (a *Adapter) ReadFSR(v *hal.FSR) { *v = a.fsr }

// ReadSonar implements hal.SonarSensor. The sonars are derived from the
// last See block (every third cycle).
func (a *Adapter) ReadSonar(v *hal.Sonar) { *v = a.sonar }

// ReadVision implements hal.VisionSensor.
func (a *Adapter) ReadVision(v *hal.Vision) { *v = a.vision }

// ReadGameState implements hal.GameStateSensor.
func (a *Adapter) ReadGameState(v *hal.GameState) { *v = a.game }

// ReadGroundTruth implements hal.GroundTruthSensor.
func (a *Adapter) ReadGroundTruth(v *hal.GroundTruth) { *v = a.truth }
