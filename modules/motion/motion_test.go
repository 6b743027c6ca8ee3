package motion

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/modules/motion/kinematics"
	"github.com/robotd/robotd/modules/motion/walk"
	"github.com/robotd/robotd/msg"
)

func TestMoveTowardsIsSpeedLimitedSynchronousAndClamped(t *testing.T) {
	var cmd hal.JointCommand
	var target [hal.NumJoints]hal.Radians
	target[hal.HeadYaw] = 0.1
	target[hal.LHipPitch], target[hal.LKneePitch], target[hal.LAnklePitch] = -0.4, 0.8, -0.4
	target[hal.RKneePitch] = 5 // beyond the limit: clamped
	knee := float64(hal.Joints[hal.RKneePitch].Max)
	const dt, speed = 0.01, 1.0
	for i := 1; i <= 5; i++ {
		if MoveTowards(&cmd, &target, speed, dt, 0.001) {
			t.Fatalf("settled after %d steps", i)
		}
		// The furthest joint (the clamped right knee) moves at speed, the
		// others in proportion: all are the same fraction of the way.
		frac := float64(cmd.Angle[hal.RKneePitch]) / knee
		if want := float64(i) * speed * dt / knee; math.Abs(frac-want) > 1e-9 {
			t.Fatalf("step %d: furthest joint %.4f of the way, want %.4f", i, frac, want)
		}
		for _, j := range []hal.Joint{hal.HeadYaw, hal.LHipPitch, hal.LKneePitch, hal.LAnklePitch} {
			if got := float64(cmd.Angle[j]) / float64(target[j]); math.Abs(got-frac) > 1e-9 {
				t.Fatalf("step %d: %s is %.4f of the way, the furthest joint %.4f", i, j, got, frac)
			}
		}
		// The left leg's pitch chain stays flat.
		if sum := cmd.Angle[hal.LHipPitch] + cmd.Angle[hal.LKneePitch] + cmd.Angle[hal.LAnklePitch]; math.Abs(float64(sum)) > 1e-12 {
			t.Fatalf("step %d: hip + knee + ankle = %v", i, sum)
		}
	}
	for range 300 {
		MoveTowards(&cmd, &target, speed, dt, 0.001)
	}
	if !MoveTowards(&cmd, &target, speed, dt, 0.001) {
		t.Fatal("not settled after 3 s")
	}
	if cmd.Angle[hal.RKneePitch] != hal.Joints[hal.RKneePitch].Max {
		t.Fatalf("knee %v, want clamped to %v", cmd.Angle[hal.RKneePitch], hal.Joints[hal.RKneePitch].Max)
	}
	if cmd.Angle[hal.HeadYaw] != 0.1 {
		t.Fatalf("HeadYaw %v, want 0.1", cmd.Angle[hal.HeadYaw])
	}
}

// harness runs the module on a board with fake producers: the command
// becomes the next tick's joint angles (a loopback). Whether the motions
// keep the robot up is judged in the embedded simulator's physics mode
// (package scenarios), not here.
type harness struct {
	t      testing.TB
	b      *blackboard.Board
	m      *Module
	reqW   *blackboard.Writer[msg.MotionRequest]
	jointW *blackboard.Writer[hal.JointSensors]
	imuW   *blackboard.Writer[hal.IMU]
	bodyW  *blackboard.Writer[msg.BodyState]
	anglW  *blackboard.Writer[hal.BodyAngles]
	cmdR   *blackboard.Reader[hal.JointCommand]
	stateR *blackboard.Reader[msg.MotionState]

	tick   hal.Tick
	req    msg.MotionRequest
	body   msg.BodyState
	angles hal.BodyAngles
	joints hal.JointSensors
	cmd    hal.JointCommand
	state  msg.MotionState
	odo    geom.Pose3
	odoX   float64
	// pre, if set, runs in every tick before the module (more fake
	// producers' writes).
	pre func()
}

type harnessOpt struct {
	noIMU, noBody, angles bool
	cfg                   *Config
	// wire, if set, declares more fake producers before the module wires.
	wire func(b *blackboard.Board)
}

func newHarness(t testing.TB, o harnessOpt) *harness {
	t.Helper()
	cfg := DefaultConfig()
	if o.cfg != nil {
		cfg = *o.cfg
	}
	h := &harness{t: t, b: blackboard.New(), m: New(cfg), body: msg.BodyState{Connected: true}}
	var err error
	must := func(e error) {
		t.Helper()
		if e != nil {
			t.Fatal(e)
		}
	}
	h.reqW, err = blackboard.Write(h.b, "behaviour", msg.MotionRequestKey)
	must(err)
	h.jointW, err = blackboard.Write(h.b, "hal", msg.JointsKey)
	must(err)
	if !o.noIMU {
		h.imuW, err = blackboard.Write(h.b, "hal", msg.IMUKey)
		must(err)
	}
	if !o.noBody {
		h.bodyW, err = blackboard.Write(h.b, "perception", msg.BodyStateKey)
		must(err)
	}
	if o.angles {
		h.anglW, err = blackboard.Write(h.b, "hal", msg.BodyAnglesKey)
		must(err)
	}
	if o.wire != nil {
		o.wire(h.b)
	}
	must(h.m.Wire(h.b))
	h.cmdR, err = blackboard.Read(h.b, "hal", msg.JointCommandKey)
	must(err)
	h.stateR, err = blackboard.Read(h.b, "test", msg.MotionStateKey)
	must(err)
	must(h.b.Validate())
	h.tick = hal.Tick{Period: 10 * time.Millisecond, Connected: true}
	h.joints.Present = hal.AllJoints
	h.odo = geom.Pose3{R: geom.Identity}
	return h
}

// step runs one tick.
func (h *harness) step() {
	h.t.Helper()
	h.tick.Seq++
	h.tick.Time += h.tick.Period
	h.b.BeginTick(h.tick.Seq, h.tick.Time)
	if h.imuW != nil {
		h.imuW.Set(hal.IMU{Accel: hal.Vec3{Z: 9.81}})
	}
	h.jointW.Set(h.joints)
	if h.bodyW != nil {
		h.bodyW.Set(h.body)
	}
	if h.anglW != nil {
		h.anglW.Set(h.angles)
	}
	h.reqW.Set(h.req)
	if h.pre != nil {
		h.pre()
	}
	if err := h.m.Tick(h.tick); err != nil {
		h.t.Fatal(err)
	}
	h.cmdR.Load(&h.cmd)
	h.stateR.Load(&h.state)
	o := h.state.Odometry
	h.odo = h.odo.Mul(geom.Pose3{R: geom.RotZ(float64(o.Heading)), P: geom.Vec3{X: float64(o.X), Y: float64(o.Y), Z: 0}})
	for j := range h.cmd.Angle {
		a, s := h.cmd.Angle[j], h.cmd.Stiffness[j]
		if a < hal.Joints[j].Min || a > hal.Joints[j].Max || math.IsNaN(float64(a)) || s < 0 || s > 1 {
			h.t.Fatalf("tick %d: %s commanded %v with stiffness %v", h.tick.Seq, hal.Joint(j), a, s)
		}
	}
	for j := range h.joints.Angle {
		h.joints.Angle[j] = hal.Joint(j).Clamp(h.cmd.Angle[j])
	}
}

// until steps until cond holds, at most n ticks.
func (h *harness) until(n int, what string, cond func() bool) int {
	h.t.Helper()
	for i := range n {
		h.step()
		if cond() {
			return i + 1
		}
	}
	h.t.Fatalf("not %s within %d ticks (state %+v)", what, n, h.state)
	return n
}

// TestStandSettlesInStandPose: from all joints at zero, the stand reaches
// the IK-derived stand pose at the bounded speed with stiffness 0.7, and
// says so.
func TestStandSettlesInStandPose(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	h.req = msg.MotionRequest{Kind: msg.MotionStand}
	pose := DefaultConfig().StandPose
	prev := h.joints.Angle
	n := h.until(300, "settled", func() bool {
		for j := range prev {
			// (The first tick clamps the zeros into the joints' ranges.)
			if d := math.Abs(float64(h.cmd.Angle[j] - prev[j])); h.tick.Seq > 1 && d > 1.5*0.01+1e-12 {
				t.Fatalf("%s moved %v in a tick", hal.Joint(j), d)
			}
		}
		prev = h.cmd.Angle
		return h.state.Settled
	})
	for j := range hal.NumJoints {
		if d := float64(h.joints.Angle[j] - hal.Joint(j).Clamp(pose[j])); math.Abs(d) > 0.011 {
			t.Errorf("%s at %.3f, want %.3f", hal.Joint(j), h.joints.Angle[j], pose[j])
		}
		if h.cmd.Stiffness[j] != 0.7 {
			t.Errorf("%s stiffness %v", hal.Joint(j), h.cmd.Stiffness[j])
		}
	}
	if h.state.Active != msg.MotionStand || !h.state.Interruptible || n > 150 {
		t.Fatalf("state %+v after %d ticks", h.state, n)
	}
}

// TestStandSettlesWhileHeadScans: the head is the head controller's, so a
// stand with a scanning head settles (and a walk can start from it), and
// the head goes on scanning.
func TestStandSettlesWhileHeadScans(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	h.req = msg.MotionRequest{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadScan}}
	h.until(300, "settled", func() bool { return h.state.Settled })
	yaw := h.cmd.Angle[hal.HeadYaw]
	for range 20 {
		h.step()
	}
	if h.cmd.Angle[hal.HeadYaw] == yaw {
		t.Fatalf("the head stopped scanning at yaw %v", yaw)
	}
	h.req.Kind, h.req.Walk = msg.MotionWalk, msg.WalkRequest{Forward: 0.2}
	h.until(10, "walking", func() bool { return h.state.Active == msg.MotionWalk })
}

// TestStandPoseFromIK: the stand pose puts the soles flat under the hips,
// HipHeight below them, and follows the configured stance.
func TestStandPoseFromIK(t *testing.T) {
	for _, hh := range []float64{0.21, 0.19, 0.225} {
		cfg := DefaultConfig()
		cfg.Stance.HipHeight = hh
		m := New(cfg)
		legs := kinematics.LegsFrom(&m.stand)
		g := cfg.Geometry()
		for s := range 2 {
			f, tilt := kinematics.Flat(g.FK(kinematics.Side(s), &legs[s]))
			want := kinematics.FootPose{X: -cfg.Stance.TorsoOffsetX, Y: kinematics.Side(s).Sign() * g.HipOffsetY, Z: g.HipOffsetZ - hh}
			if math.Abs(f.X-want.X) > 1e-9 || math.Abs(f.Y-want.Y) > 1e-9 || math.Abs(f.Z-want.Z) > 1e-9 || math.Abs(f.Yaw) > 1e-9 || tilt > 1e-9 {
				t.Fatalf("hip height %v: %v sole at %+v, want %+v", hh, kinematics.Side(s), f, want)
			}
		}
		if legs[0][kinematics.KneePitch] < 0.3 {
			t.Fatalf("hip height %v: knees nearly straight (%v)", hh, legs[0][kinematics.KneePitch])
		}
	}
}

// TestWalkKickWalk: a kick asked for while walking waits for the walk to
// finish its step and stop, then runs to its end whatever is asked
// meanwhile; then the walk resumes. The state says what runs, truthfully.
func TestWalkKickWalk(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	walkReq := msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: 0.3}}
	kickReq := msg.MotionRequest{Kind: msg.MotionKick, Kick: msg.KickRequest{Foot: msg.RightFoot, Direction: 0.2}}
	h.req = walkReq
	h.until(100, "walking", func() bool { return h.state.Active == msg.MotionWalk && !h.state.Settled })
	for range 150 {
		h.step()
		if h.state.Active != msg.MotionWalk || !h.state.Interruptible {
			t.Fatalf("walking: state %+v", h.state)
		}
	}
	h.req = kickReq
	// The walk stops (finishing steps, decelerating), the stand settles,
	// the kick starts.
	var seen []msg.MotionKind
	h.until(300, "kicking", func() bool {
		if len(seen) == 0 || seen[len(seen)-1] != h.state.Active {
			seen = append(seen, h.state.Active)
		}
		return h.state.Active == msg.MotionKick
	})
	if want := []msg.MotionKind{msg.MotionWalk, msg.MotionStand, msg.MotionKick}; len(seen) != 3 || seen[0] != want[0] || seen[1] != want[1] {
		t.Fatalf("went through %v, want %v", seen, want)
	}
	// Behaviour changes its mind: the kick goes on to its end.
	h.req = walkReq
	kickTicks := h.until(400, "kick done", func() bool {
		if h.state.Active == msg.MotionKick {
			if h.state.Interruptible || h.state.Settled {
				t.Fatalf("kicking: state %+v", h.state)
			}
			if o := h.state.Odometry; o != (hal.Pose2{}) {
				t.Fatalf("odometry %+v while kicking", o)
			}
			return false
		}
		return true
	})
	if d := time.Duration(kickTicks) * h.tick.Period; d < 2*time.Second || d > 2500*time.Millisecond {
		t.Fatalf("kick took %v", d)
	}
	h.until(100, "walking again", func() bool { return h.state.Active == msg.MotionWalk })
	x0 := h.odo.P.X
	for range 300 {
		h.step()
	}
	// At the top speed (walkReq asks for more), less the acceleration.
	if top := float64(walk.DefaultConfig().MaxForward); h.odo.P.X-x0 < 2*top {
		t.Fatalf("walked only %.3f m in 3 s after the kick", h.odo.P.X-x0)
	}
	t.Logf("kick %v", time.Duration(kickTicks)*h.tick.Period)
}

// TestFallGetUp: after a fall the get-up for the side the robot lies on
// runs to its end (a walk request meanwhile waits), in less than 10 s, then
// the robot stands.
func TestFallGetUp(t *testing.T) {
	front, _ := Action("getup_front.kf")
	back, _ := Action("getup_back.kf")
	tests := []struct {
		name   string
		opt    harnessOpt
		fall   msg.Fall
		angles hal.BodyAngles
		want   *Keyframes
	}{
		{"front", harnessOpt{}, msg.FallenFront, hal.BodyAngles{Pitch: 1.4}, front},
		{"back", harnessOpt{}, msg.FallenBack, hal.BodyAngles{Pitch: -1.4}, back},
		{"fallen-left, face down with the head low", harnessOpt{}, msg.FallenLeft, hal.BodyAngles{Roll: -3.1, Pitch: 1.4}, front},
		{"fallen-right, face up with the head low", harnessOpt{}, msg.FallenRight, hal.BodyAngles{Roll: 3.1, Pitch: -1.4}, back},
		{"front from the body angles (no perception)", harnessOpt{noBody: true, angles: true}, msg.Upright, hal.BodyAngles{Pitch: 1.4}, front},
		{"back from the body angles (no perception)", harnessOpt{noBody: true, angles: true}, msg.Upright, hal.BodyAngles{Pitch: -1.4}, back},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.opt)
			h.req = msg.MotionRequest{Kind: msg.MotionStand}
			h.until(200, "standing", func() bool { return h.state.Settled })
			h.body = msg.BodyState{Fall: tc.fall, Angles: tc.angles, Connected: true}
			h.angles = tc.angles
			h.req = msg.MotionRequest{Kind: msg.MotionGetUp}
			h.step()
			if h.state.Active != msg.MotionGetUp || h.state.Interruptible {
				t.Fatalf("state %+v", h.state)
			}
			// The first keyframe's targets are being approached.
			f0 := tc.want.Frames[0]
			h.req = msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: 0.3}}
			n := h.until(1000, "got up", func() bool {
				if h.tick.Seq == 50 {
					for j := range hal.Joint(hal.NumJoints) {
						if f0.Set.Has(j) && j != hal.HeadYaw && j != hal.HeadPitch {
							if d := math.Abs(float64(h.cmd.Angle[j] - f0.Angle[j])); d > 0.35 {
								t.Fatalf("%s at %.2f, the get-up's first frame has %.2f", j, h.cmd.Angle[j], f0.Angle[j])
							}
						}
					}
				}
				if tc.opt.angles && h.tick.Seq == 300 {
					h.angles = hal.BodyAngles{} // upright again
				} else if h.tick.Seq == 300 {
					h.body = msg.BodyState{Connected: true}
				}
				if h.state.Active == msg.MotionGetUp {
					if h.state.Interruptible {
						t.Fatal("get-up interruptible")
					}
					return false
				}
				return true
			})
			if d := time.Duration(n) * h.tick.Period; d > 10*time.Second || d < tc.want.Duration()-20*time.Millisecond {
				t.Fatalf("get-up took %v (the action lasts %v)", d, tc.want.Duration())
			}
			if h.state.Active != msg.MotionStand {
				t.Fatalf("after the get-up: %+v", h.state)
			}
			h.until(200, "walking", func() bool { return h.state.Active == msg.MotionWalk })
		})
	}
}

// TestRelaxInterruptsEverything: relax (the safe state) is obeyed at once,
// even during a get-up or a kick.
func TestRelaxInterruptsEverything(t *testing.T) {
	for _, kind := range []msg.MotionKind{msg.MotionKick, msg.MotionGetUp, msg.MotionWalk} {
		h := newHarness(t, harnessOpt{})
		h.req = msg.MotionRequest{Kind: msg.MotionStand}
		h.until(200, "standing", func() bool { return h.state.Settled })
		if kind == msg.MotionGetUp {
			h.body.Fall = msg.FallenBack
		}
		h.req = msg.MotionRequest{Kind: kind, Walk: msg.WalkRequest{Forward: 0.2}}
		for range 30 {
			h.step()
		}
		if h.state.Active != kind {
			t.Fatalf("%v not running: %+v", kind, h.state)
		}
		h.req = msg.MotionRequest{Kind: msg.MotionRelax}
		h.step()
		if h.state.Active != msg.MotionRelax || !h.state.Settled {
			t.Fatalf("%v: relax ignored: %+v", kind, h.state)
		}
		for j, s := range h.cmd.Stiffness {
			if s != 0 {
				t.Fatalf("%v: %s stiffness %v", kind, hal.Joint(j), s)
			}
		}
	}
}

// TestModuleWalksWithHeadScan: walking at its top speed with the head
// scanning, the module keeps the head within its speed limit and its
// odometry says it goes forward at the commanded speed, less the
// acceleration. (That the robot really walks so, without falling, is the
// physics-mode scenario's: TestWalkForwardAtTopSpeed.)
func TestModuleWalksWithHeadScan(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	top := float64(walk.DefaultConfig().MaxForward)
	h.req = msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: 0.3}, Head: msg.HeadRequest{Mode: msg.HeadScan}}
	maxHead := float64(DefaultConfig().Head.MaxSpeed) * 0.01
	yawLo, yawHi := 0.0, 0.0
	h.until(300, "walking", func() bool { return h.state.Active == msg.MotionWalk })
	prevHead := h.cmd.Angle
	for range 1000 {
		h.step()
		for _, j := range []hal.Joint{hal.HeadYaw, hal.HeadPitch} {
			if d := math.Abs(float64(h.cmd.Angle[j] - prevHead[j])); d > maxHead+1e-12 {
				t.Fatalf("head %s moved %.4f in a tick", j, d)
			}
		}
		prevHead = h.cmd.Angle
		y := float64(h.cmd.Angle[hal.HeadYaw])
		yawLo, yawHi = min(yawLo, y), max(yawHi, y)
		if h.state.Active != msg.MotionWalk {
			t.Fatalf("stopped walking: %+v", h.state)
		}
	}
	// 10 s at the top speed, less at most 1.5 s of acceleration.
	if x := h.odo.P.X; x < top*8.5 || x > top*10+1e-9 {
		t.Fatalf("odometry %.3f m forward in 10 s at %.2f m/s", x, top)
	}
	if math.Abs(h.odo.P.Y) > 0.02 {
		t.Fatalf("odometry %.3f m sideways", h.odo.P.Y)
	}
	if yawHi-yawLo < 1 {
		t.Fatalf("the head scanned only %.2f … %.2f rad", yawLo, yawHi)
	}
	t.Logf("odometry (%.3f, %.3f) m in 10 s, head yaw %.2f … %.2f rad", h.odo.P.X, h.odo.P.Y, yawLo, yawHi)
}

// TestWiresWithoutIMUOrPerception: a backend without an IMU and a stack
// without perception still wire, and the walk works without the gyro.
func TestWiresWithoutIMUOrPerception(t *testing.T) {
	h := newHarness(t, harnessOpt{noIMU: true, noBody: true})
	h.req = msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: 0.2}}
	// From all joints at zero: the stand settles first (≤ 1.5 s).
	h.until(800, "0.8 m walked", func() bool { return h.odo.P.X > 0.8 })
}

// TestOutputsAlwaysWithinLimits drives every motion with hostile requests
// (NaN, huge values); the harness checks every command's limits.
func TestOutputsAlwaysWithinLimits(t *testing.T) {
	h := newHarness(t, harnessOpt{})
	nan := math.NaN()
	reqs := []msg.MotionRequest{
		{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadLookAt, Yaw: hal.Radians(nan), Pitch: 9}},
		{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: hal.MetresPerSec(nan), Turn: 1e9}},
		{Kind: msg.MotionWalk, Walk: msg.WalkRequest{ToTarget: true, Target: hal.Pose2{X: hal.Metres(math.Inf(1))}}},
		{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: 5, Left: -5, Turn: -5}},
		{Kind: msg.MotionKick, Kick: msg.KickRequest{Foot: 7, Direction: hal.Radians(nan)}},
		{Kind: msg.MotionKind(99)},
		{Kind: msg.MotionNone},
	}
	for _, r := range reqs {
		h.req = r
		for range 400 {
			h.step()
		}
	}
	if h.m.Errors() != 0 {
		t.Fatalf("%d ticks with non-finite targets", h.m.Errors())
	}
}

// TestConfigJSON: the configuration has snake_case keys and durations as
// strings, no derived stand pose, and decodes over the defaults unchanged.
func TestConfigJSON(t *testing.T) {
	def := DefaultConfig()
	b, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"stance":{"hip_height":0.21`, `"step_period":"250ms"`, `"max_forward":0.3`, `"simspark_stance":{"hip_height":0.23`, `"heading_gain":2`, `"scan_amplitude":1.5707963267948966`, `"gyro":{"filter":"20ms"`, `"left_file":""`} {
		if !bytes.Contains(b, []byte(key)) {
			t.Errorf("no %s in %s", key, b)
		}
	}
	if bytes.Contains(b, []byte("stand_pose")) {
		t.Error("the derived stand pose is in the file")
	}
	got := DefaultConfig()
	if err := config.Decode(bytes.NewReader(b), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, def) {
		t.Fatalf("decoded %+v, want %+v", got, def)
	}
	if err := config.Decode(strings.NewReader(`{"walk": {"step_hieght": 1}}`), &got); err == nil || !strings.Contains(err.Error(), "step_hieght") {
		t.Fatalf("unknown key: %v", err)
	}
}

// TestKeyframeFilesFromConfig: configured files replace the embedded ones;
// a bad file stops wiring with its name and line.
func TestKeyframeFilesFromConfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "my_kick.kf")
	bad := filepath.Join(dir, "bad_getup.kf")
	if err := os.WriteFile(good, []byte("# mine\n300 LKneePitch=40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("300 HeadYaw=0\n300 LKneePitch=400\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Kick.LeftFile = good
	m := New(cfg)
	if err := m.Wire(blackboard.New()); err != nil {
		t.Fatal(err)
	}
	if k := m.kicks[msg.LeftFoot]; k.Name != "my_kick.kf" || len(k.Frames) != 1 {
		t.Fatalf("left kick %s with %d frames", k.Name, len(k.Frames))
	}
	cfg.GetUp.BackFile = bad
	err := New(cfg).Wire(blackboard.New())
	if err == nil || !strings.Contains(err.Error(), `bad_getup.kf:2: "LKneePitch=400": outside the joint's limits`) {
		t.Fatalf("err = %v", err)
	}
	cfg.GetUp.BackFile = filepath.Join(dir, "missing.kf")
	if err := New(cfg).Wire(blackboard.New()); err == nil || !strings.Contains(err.Error(), "missing.kf") {
		t.Fatalf("err = %v", err)
	}
}

// TestTickDoesNotAllocate: no motion allocates per tick.
func TestTickDoesNotAllocate(t *testing.T) {
	reqs := []struct {
		name string
		req  msg.MotionRequest
		fall msg.Fall
	}{
		{"stand, head scan", msg.MotionRequest{Kind: msg.MotionStand, Head: msg.HeadRequest{Mode: msg.HeadScan}}, msg.Upright},
		{"walk", msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: 0.2, Turn: 0.4}}, msg.Upright},
		{"walk to target", msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{ToTarget: true, Target: hal.Pose2{X: 3, Y: 1}}}, msg.Upright},
		{"kick", msg.MotionRequest{Kind: msg.MotionKick, Kick: msg.KickRequest{Direction: 0.3}}, msg.Upright},
		{"get up", msg.MotionRequest{Kind: msg.MotionGetUp}, msg.FallenFront},
		{"relax", msg.MotionRequest{Kind: msg.MotionRelax}, msg.Upright},
	}
	for _, tc := range reqs {
		h := newHarness(t, harnessOpt{})
		h.req = msg.MotionRequest{Kind: msg.MotionStand}
		h.until(200, "standing", func() bool { return h.state.Settled })
		h.req, h.body.Fall = tc.req, tc.fall
		for range 20 {
			h.step()
		}
		if n := testing.AllocsPerRun(100, func() { h.step() }); n != 0 {
			t.Errorf("%s: a tick allocates %v times", tc.name, n)
		}
	}
}

// BenchmarkTick is one motion tick while walking on an arc with the head
// scanning (blackboard reads and writes included).
func BenchmarkTick(b *testing.B) {
	h := newHarness(b, harnessOpt{})
	h.req = msg.MotionRequest{Kind: msg.MotionStand}
	h.until(200, "standing", func() bool { return h.state.Settled })
	h.req = msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: 0.25, Turn: 0.5}, Head: msg.HeadRequest{Mode: msg.HeadScan}}
	for range 50 {
		h.step()
	}
	b.ReportAllocs()
	for b.Loop() {
		h.step()
	}
}

// TestJointOffsets: a robot's joint offset is added to the joint's command
// and taken off its measurement, so the stand settles in the same pose
// with the calibrated joint commanded off by its offset.
func TestJointOffsets(t *testing.T) {
	cfg := DefaultConfig()
	cfg.JointOffsets = map[string]hal.Radians{"LKneePitch": 0.05, "RHipRoll": -0.02}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	plain, calibrated := newHarness(t, harnessOpt{}), newHarness(t, harnessOpt{cfg: &cfg})
	for _, h := range []*harness{plain, calibrated} {
		h.req = msg.MotionRequest{Kind: msg.MotionStand}
		h.until(300, "settled", func() bool { return h.state.Settled })
	}
	for j := range hal.Joint(hal.NumJoints) {
		want := cfg.JointOffsets[hal.Joints[j].Name]
		if d := calibrated.cmd.Angle[j] - plain.cmd.Angle[j]; math.Abs(float64(d-want)) > 1e-9 {
			t.Errorf("%s commanded %v off the uncalibrated robot, want %v", j, d, want)
		}
	}
	for _, tc := range []struct {
		offsets map[string]hal.Radians
		want    string
	}{
		{map[string]hal.Radians{"LKnee": 0.01}, "motion.joint_offsets.LKnee: no such joint"},
		{map[string]hal.Radians{"HeadYaw": -0.3}, "motion.joint_offsets.HeadYaw: -0.3 rad outside"},
	} {
		c := DefaultConfig()
		c.JointOffsets = tc.offsets
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("offsets %v: %v, want %q", tc.offsets, err, tc.want)
		}
	}
}
