package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/traces"
	"github.com/robotd/robotd/proto/simspark"
)

// parse parses one perceptor message or fails the test.
func parse(t testing.TB, p *simspark.Perception, msg string) {
	t.Helper()
	if err := p.Parse([]byte(msg)); err != nil {
		t.Fatalf("parsing %.80q: %v", msg, err)
	}
}

// replay feeds every perceptor message of a trace to fn, parsed.
func replay(t testing.TB, file string, fn func(m traces.Message, p *simspark.Perception)) {
	t.Helper()
	var p simspark.Perception
	n := 0
	for _, m := range traces.Read(t, file) {
		if m.Dir != "in" {
			continue
		}
		if err := p.Parse(m.Payload); err != nil {
			t.Fatalf("%s:%d: %v", file, m.Line, err)
		}
		fn(m, &p)
		n++
	}
	if n == 0 {
		t.Fatalf("%s has no perceptor messages", file)
	}
}

func TestJointMap(t *testing.T) {
	inverted := map[hal.Joint]bool{
		hal.HeadPitch: true, hal.LShoulderPitch: true, hal.RShoulderPitch: true,
		hal.LHipPitch: true, hal.RHipPitch: true, hal.LKneePitch: true, hal.RKneePitch: true,
		hal.LAnklePitch: true, hal.RAnklePitch: true,
	}
	tests := []struct {
		sim  string
		nao  hal.Joint
		sign float64
	}{
		{"hj1", hal.HeadYaw, 1}, {"hj2", hal.HeadPitch, -1},
		{"laj1", hal.LShoulderPitch, -1}, {"laj2", hal.LShoulderRoll, 1}, {"laj3", hal.LElbowYaw, 1}, {"laj4", hal.LElbowRoll, 1},
		{"raj1", hal.RShoulderPitch, -1}, {"raj2", hal.RShoulderRoll, 1}, {"raj3", hal.RElbowYaw, 1}, {"raj4", hal.RElbowRoll, 1},
		{"llj1", hal.LHipYawPitch, 1}, {"llj2", hal.LHipRoll, 1}, {"llj3", hal.LHipPitch, -1},
		{"llj4", hal.LKneePitch, -1}, {"llj5", hal.LAnklePitch, -1}, {"llj6", hal.LAnkleRoll, 1},
		{"rlj1", hal.LHipYawPitch, 1}, {"rlj2", hal.RHipRoll, 1}, {"rlj3", hal.RHipPitch, -1},
		{"rlj4", hal.RKneePitch, -1}, {"rlj5", hal.RAnklePitch, -1}, {"rlj6", hal.RAnkleRoll, 1},
	}
	if len(tests) != len(simJoints) {
		t.Fatalf("%d joints in the table, %d in SimJoints", len(tests), len(simJoints))
	}
	covered := hal.JointSet(0)
	for i, tc := range tests {
		id, ok := simspark.JointByPerceptorName([]byte(tc.sim))
		if !ok || simJoints[i] != id {
			t.Fatalf("SimJoints[%d] = %v, want %s", i, simJoints[i], tc.sim)
		}
		n, sign, ok := NAOJoint(id)
		if !ok || n != tc.nao || sign != tc.sign {
			t.Errorf("%s → %v sign %v ok %v, want %v sign %v", tc.sim, n, sign, ok, tc.nao, tc.sign)
		}
		if !hal.Joints[n].InSimSpark {
			t.Errorf("%s maps to %v, which the HAL says SimSpark lacks", tc.sim, n)
		}
		if (sign < 0) != inverted[n] {
			t.Errorf("%v: inverted %v, want %v", n, sign < 0, inverted[n])
		}
		covered |= 1 << n
	}
	if covered != hal.SimSparkJoints {
		t.Errorf("covered %b, want the HAL's SimSpark joints %b", covered, hal.SimSparkJoints)
	}
	for _, j := range []simspark.JointID{simspark.LLJ7, simspark.RLJ7, simspark.NumJoints} {
		if _, _, ok := NAOJoint(j); ok {
			t.Errorf("%v should not be driven", j)
		}
	}
}

// TestHipRollSignFromTraces checks the fact the ankle-roll decision rests
// on: positive hip rolls make the robot fall to its right, and each hip roll
// stops at the NAO's limit on the side where the model has it.
func TestHipRollSignFromTraces(t *testing.T) {
	for _, tc := range []struct {
		file       string
		wantRoll   float64 // sign of the final roll
		stopJoint  simspark.JointID
		stopAtDeg  float64 // the model's limit, where that joint stops
		otherJoint simspark.JointID
	}{
		{"imu_fall_right.txt", 1, simspark.RLJ2, 21.74, simspark.LLJ2},
		{"imu_fall_left.txt", -1, simspark.LLJ2, -21.74, simspark.RLJ2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			a := NewAdapter(DefaultConfig())
			var stop, other float64
			replay(t, tc.file, func(_ traces.Message, p *simspark.Perception) {
				a.Update(p)
				for _, j := range p.Joints {
					switch j.ID { // the furthest each got
					case tc.stopJoint:
						if math.Abs(j.Deg) > math.Abs(stop) {
							stop = j.Deg
						}
					case tc.otherJoint:
						if math.Abs(j.Deg) > math.Abs(other) {
							other = j.Deg
						}
					}
				}
			})
			var ba hal.BodyAngles
			a.ReadBodyAngles(&ba)
			if math.Signbit(float64(ba.Roll)) == (tc.wantRoll > 0) || math.Abs(ba.Roll.Degrees()) < 30 {
				t.Errorf("final roll %.1f°, want large with sign %v", ba.Roll.Degrees(), tc.wantRoll)
			}
			// ODE lets a joint pass its limit by up to one step (0.57°)
			// before pushing it back.
			if math.Abs(stop-tc.stopAtDeg) > 0.6 || math.Abs(other) <= math.Abs(tc.stopAtDeg)+0.5 || stop*other < 0 {
				t.Errorf("limited joint got to %.2f° (limit %.2f), free joint to %.2f° (want beyond)", stop, tc.stopAtDeg, other)
			}
			t.Logf("final roll %.1f°; limited hip roll stopped at %.2f°, the other ran to %.2f°", ba.Roll.Degrees(), stop, other)
		})
	}
}

func TestIMUFromSim(t *testing.T) {
	for _, tc := range []struct {
		name     string
		gyr, acc [3]float64
		want     hal.IMU
	}{
		{"upright", [3]float64{}, [3]float64{0, 0, 9.81}, hal.IMU{Accel: hal.Vec3{Z: 9.81}}},
		{"forward fall: gyro x negative is pitch forward", [3]float64{-180, 0, 0}, [3]float64{0, -9.62, 1.92},
			hal.IMU{Gyro: hal.Vec3{Y: math.Pi}, Accel: hal.Vec3{X: -9.62, Z: 1.92}}},
		{"fall right: gyro y positive is roll right", [3]float64{0, 90, 0}, [3]float64{-9.47, 0, 2.82},
			hal.IMU{Gyro: hal.Vec3{X: math.Pi / 2}, Accel: hal.Vec3{Y: 9.47, Z: 2.82}}},
		{"left turn", [3]float64{0, 0, 57.29577951308232}, [3]float64{0, 0, 9.81},
			hal.IMU{Gyro: hal.Vec3{Z: 1}, Accel: hal.Vec3{Z: 9.81}}},
	} {
		got := IMUFromSim(tc.gyr, tc.acc)
		for i, pair := range [][2]float64{
			{got.Gyro.X, tc.want.Gyro.X}, {got.Gyro.Y, tc.want.Gyro.Y}, {got.Gyro.Z, tc.want.Gyro.Z},
			{got.Accel.X, tc.want.Accel.X}, {got.Accel.Y, tc.want.Accel.Y}, {got.Accel.Z, tc.want.Accel.Z},
		} {
			if math.Abs(pair[0]-pair[1]) > 1e-12 {
				t.Errorf("%s: component %d = %v, want %v", tc.name, i, pair[0], pair[1])
			}
		}
	}
}

// plant is the joint model fitted to the recorded step responses: a
// velocity command persists, is clamped at MaxSpeed, and moves the joint by
// v·dt per cycle, starting Delay messages after the message it replies to.
type plant struct {
	angle  float64
	active float64 // the velocity acting between this message and the next
	dt     float64
}

// step returns the next message's angle, given the reply sent to the
// previous message (which becomes active for the step after).
func (p *plant) step(reply float64) float64 {
	p.angle += p.active * p.dt
	p.active = min(max(reply, -MaxSpeed), MaxSpeed)
	return p.angle
}

// TestPlantMatchesRecordedSteps replays the recorded commands of the step
// traces through the plant and compares every angle.
func TestPlantMatchesRecordedSteps(t *testing.T) {
	for _, tc := range []struct {
		file  string
		joint simspark.JointID
		dt    float64
	}{
		{"step_he1_p1.txt", simspark.HJ1, 0.01},
		{"step_he1_p8.txt", simspark.HJ1, 0.01},
		{"step_lae1_p1.txt", simspark.LAJ1, 0.01},
		{"step_he1_m0.5.txt", simspark.HJ1, 0.01},
		{"step_he2_p5.txt", simspark.HJ2, 0.01},
		{"step20ms_he1_p1.txt", simspark.HJ1, 0.02},
	} {
		t.Run(tc.file, func(t *testing.T) {
			replies := map[int]float64{}
			angles := map[int]float64{}
			last := 0
			var p simspark.Perception
			var e simspark.Effectors
			for _, m := range traces.Read(t, tc.file) {
				switch m.Dir {
				case "in":
					if err := p.Parse(m.Payload); err != nil {
						t.Fatal(err)
					}
					for _, j := range p.Joints {
						if j.ID == tc.joint {
							angles[m.Cycle] = j.Deg
						}
					}
					last = m.Cycle
				case "out":
					if err := e.Parse(m.Payload); err != nil {
						t.Fatal(err)
					}
					for _, j := range e.Joints {
						if j.ID == tc.joint {
							replies[m.Cycle] = j.V
						}
					}
				}
			}
			if len(replies) == 0 {
				t.Fatal("no commands for the joint in the trace")
			}
			pl := plant{angle: angles[0] * deg, dt: tc.dt}
			worst, moved := 0.0, 0.0
			held := 0.0
			for k := 1; k <= last; k++ {
				if v, ok := replies[k-1]; ok {
					held = v
				}
				got := pl.step(held) / deg
				if want, ok := angles[k]; ok {
					worst = max(worst, math.Abs(got-want))
					moved = max(moved, math.Abs(want-angles[0]))
				}
			}
			if worst > 0.05 || moved < 1 {
				t.Fatalf("plant differs from the recording by up to %.3f° (joint moved %.2f°)", worst, moved)
			}
			t.Logf("plant matches within %.3f° over a %.2f° move", worst, moved)
		})
	}
}

type tracker interface {
	cmd(angle, target float64) float64
}

type deadbeat struct {
	c  Controller
	dt float64
}

func (d *deadbeat) cmd(angle, target float64) float64 {
	var angles [simspark.NumJoints]float64
	angles[simspark.HJ1] = angle
	d.c.Observe(&angles, d.dt)
	return d.c.Step(simspark.HJ1, angle, target, d.dt)
}

// naive is the thesis' table 3.3 controller: a velocity proportional to the
// error, ignoring the command in flight, with the gain that closes the
// error in one cycle (v = error/dt).
type naive struct{ dt float64 }

func (n *naive) cmd(angle, target float64) float64 { return (target - angle) / n.dt }

// track runs a controller against the plant from angle start to target;
// angles[k] is the angle in message k, whose reply is the controller's
// command k.
func track(c tracker, start, target, dt float64, cycles int) []float64 {
	pl := plant{angle: start, dt: dt}
	angles := []float64{start}
	reply := c.cmd(start, target)
	for range cycles {
		a := pl.step(reply)
		angles = append(angles, a)
		reply = c.cmd(a, target)
	}
	return angles
}

func TestJointTracking(t *testing.T) {
	for _, tc := range []struct {
		stepDeg, startDeg, dt float64
	}{
		{10, 0, 0.01}, {30, 0, 0.01}, {60, 0, 0.01},
		{-30, 20, 0.01}, {0.8, -5, 0.01}, {60, 0, 0.02},
	} {
		start, target := tc.startDeg*deg, (tc.startDeg+tc.stepDeg)*deg
		ideal := int(math.Ceil(math.Abs(tc.stepDeg) * deg / (MaxSpeed * tc.dt)))
		angles := track(&deadbeat{dt: tc.dt}, start, target, tc.dt, 200)
		settled, overshoot := -1, 0.0
		for k, a := range angles {
			errDeg := (a - target) / deg
			if tc.stepDeg < 0 {
				errDeg = -errDeg
			}
			overshoot = max(overshoot, errDeg)
			if settled < 0 && math.Abs(errDeg) <= 0.5 {
				settled = k
			}
			if settled >= 0 && math.Abs(errDeg) > 0.5 {
				t.Fatalf("%+v: left the 0.5° band again at message %d", tc, k)
			}
		}
		final := math.Abs(angles[len(angles)-1]-target) / deg
		if settled < 0 || settled > ideal+2 || overshoot > 0.5 || final > 1e-9 {
			t.Fatalf("%+v: within 0.5° at message %d (ideal %d, budget %d), overshoot %.3f°, final error %.2g°",
				tc, settled, ideal, ideal+2, overshoot, final)
		}
		t.Logf("%+5.1f° step at dt %v: within 0.5° at message %d (ideal %d cycles + 2), overshoot %.3f°",
			tc.stepDeg, tc.dt, settled, ideal, overshoot)

		// the thesis' table 3.3 controller in the same plant: it overshoots,
		// keeps crossing the target and never settles.
		na := track(&naive{dt: tc.dt}, start, target, tc.dt, 200)
		crossings, maxOver, lateErr := 0, 0.0, 0.0
		lastSign := math.Copysign(1, start-target)
		for k := 1; k < len(na); k++ {
			e1 := na[k] - target
			if math.Abs(e1) > 1e-9 && math.Copysign(1, e1) != lastSign {
				crossings++
				lastSign = -lastSign
			}
			over := e1 / deg
			if tc.stepDeg < 0 {
				over = -over
			}
			maxOver = max(maxOver, over)
			if k >= len(na)-50 {
				lateErr = max(lateErr, math.Abs(e1)/deg)
			}
		}
		if crossings < 20 || maxOver < 0.5*min(math.Abs(tc.stepDeg), 1) || lateErr < 0.1*min(math.Abs(tc.stepDeg), 1) {
			t.Fatalf("%+v: naive controller crossed the target %d times, overshoot %.2f°, error in the last 50 cycles %.2f°; want oscillation",
				tc, crossings, maxOver, lateErr)
		}
		t.Logf("        naive controller: overshoot %.2f°, %d sign changes in 200 cycles, still %.2f° off after 150",
			maxOver, crossings, lateErr)
	}
}

// TestControllerThroughAdapter drives the plant through the Adapter's
// WriteJoints / AppendJointVelocities with messages built like the
// server's, so that dt comes from the time perceptor, the joint sign is
// applied both ways and RHipYawPitch mirrors LHipYawPitch.
func TestControllerThroughAdapter(t *testing.T) {
	for _, dt := range []float64{0.01, 0.02} {
		cfg := DefaultConfig() // nominal 10 ms: a 20 ms server must be measured
		a := NewAdapter(cfg)
		var plants [simspark.NumJoints]plant
		for i := range plants {
			plants[i].dt = dt
		}
		var cmd hal.JointCommand
		for j := range cmd.Stiffness {
			cmd.Stiffness[j] = 1
		}
		cmd.Angle[hal.HeadPitch] = hal.Deg(20)     // inverted
		cmd.Angle[hal.LHipYawPitch] = hal.Deg(-30) // mirrored to rlj1
		cmd.Angle[hal.LAnkleRoll] = hal.Deg(10)    // not inverted
		cmd.Angle[hal.RKneePitch] = hal.Deg(60)    // inverted
		cmd.Angle[hal.LElbowRoll] = hal.Deg(-40)
		cmd.Angle[hal.LWristYaw] = 1 // not in the model: ignored
		a.WriteJoints(&cmd)
		var p simspark.Perception
		var e simspark.Effectors
		var sb strings.Builder
		replies := map[simspark.JointID]float64{}
		for k := range 40 {
			sb.Reset()
			sb.WriteString("(time (now " + ftoa(100+float64(k)*dt) + "))")
			for _, j := range simJoints {
				sb.WriteString("(HJ (n " + j.PerceptorName() + ") (ax " + ftoa(plants[j].step(replies[j])/deg) + "))")
			}
			parse(t, &p, sb.String())
			a.Update(&p)
			e.Reset()
			a.AppendJointVelocities(&e)
			if len(e.Joints) != 22 {
				t.Fatalf("%d joint commands, want 22", len(e.Joints))
			}
			for _, js := range e.Joints {
				replies[js.ID] = js.V
			}
		}
		if got := a.Cycle(); math.Abs(got-dt) > 1e-9 {
			t.Errorf("measured cycle %v, want %v", got, dt)
		}
		var js hal.JointSensors
		a.ReadJoints(&js)
		for _, j := range []hal.Joint{hal.HeadPitch, hal.LHipYawPitch, hal.LAnkleRoll, hal.RKneePitch, hal.LElbowRoll, hal.HeadYaw} {
			if d := math.Abs((js.Angle[j] - cmd.Angle[j]).Degrees()); d > 0.01 {
				t.Errorf("dt %v: %v at %.3f°, want %.3f°", dt, j, js.Angle[j].Degrees(), cmd.Angle[j].Degrees())
			}
		}
		if d := math.Abs(plants[simspark.RLJ1].angle - plants[simspark.LLJ1].angle); d > 1e-9 {
			t.Errorf("rlj1 %.3f° does not mirror llj1 %.3f°", plants[simspark.RLJ1].angle/deg, plants[simspark.LLJ1].angle/deg)
		}
		if plants[simspark.HJ2].angle > 0 || plants[simspark.LLJ6].angle < 0 {
			t.Errorf("signs: hj2 %.2f° (want -20), llj6 %.2f° (want +10)", plants[simspark.HJ2].angle/deg, plants[simspark.LLJ6].angle/deg)
		}
		// Zero stiffness stops the joint where it is.
		cmd.Stiffness[hal.HeadPitch] = 0
		cmd.Angle[hal.HeadPitch] = 0
		a.WriteJoints(&cmd)
		e.Reset()
		a.AppendJointVelocities(&e)
		for _, js := range e.Joints {
			if js.ID == simspark.HJ2 && js.V != 0 {
				t.Errorf("limp head pitch commanded %v rad/s", js.V)
			}
		}
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// delayPlant is plant with an actuation delay of delay messages (the
// recorded servers: 2) and, if restDelay, the servers' late start: a joint
// that was still for 10 messages or more loses the first cycle of a start.
type delayPlant struct {
	angle     float64
	queue     []float64 // replies not yet acting, oldest first
	dt        float64
	delay     int
	restDelay bool
	still     int
}

func (p *delayPlant) step(reply float64) float64 {
	p.queue = append(p.queue, min(max(reply, -MaxSpeed), MaxSpeed))
	for len(p.queue) < p.delay {
		p.queue = append([]float64{0}, p.queue...)
	}
	v := p.queue[0]
	p.queue = p.queue[1:]
	if v == 0 {
		p.still++
	} else {
		if p.restDelay && p.still >= 10 {
			v = 0 // the body is asleep: this cycle is lost
		}
		p.still = 0
	}
	p.angle += v * p.dt
	return p.angle
}

// TestControllerHonoursSpeed: a head-scan target that moves at 1.5 rad/s
// between ±90°, after 1 s of standing still, is followed at that speed (the
// fastest cycle within 10 %) whether the server's delay is 2 messages (as
// recorded) or 3, with and without the late start after rest. A
// dead-beat controller that assumes 2 on a delay of 3 swings the joint at
// the motor limit.
func TestControllerHonoursSpeed(t *testing.T) {
	const dt, speed = 0.01, 1.5
	for _, tc := range []struct {
		delay     int
		restDelay bool
	}{{2, false}, {2, true}, {3, false}, {3, true}} {
		t.Run(fmt.Sprintf("delay %d, late start %v", tc.delay, tc.restDelay), func(t *testing.T) {
			var c Controller
			p := delayPlant{dt: dt, delay: tc.delay, restDelay: tc.restDelay}
			target, dir := 0.0, 1.0
			var angles [simspark.NumJoints]float64
			reply, peak, worst := 0.0, 0.0, 0.0
			const cycles = 1500
			for k := range cycles {
				prev := angles[simspark.HJ1]
				angles[simspark.HJ1] = p.step(reply)
				c.Observe(&angles, dt)
				if k >= 100 { // still for 1 s, then the scan
					target += dir * speed * dt
					if math.Abs(target) >= math.Pi/2 {
						target, dir = math.Copysign(math.Pi/2, target), -dir
					}
				}
				reply = c.Step(simspark.HJ1, angles[simspark.HJ1], target, dt)
				if k >= 400 { // judged once the delay is known
					peak = max(peak, math.Abs(angles[simspark.HJ1]-prev)/dt)
					worst = max(worst, math.Abs(angles[simspark.HJ1]-target))
				}
			}
			t.Logf("measured delay %d; peak speed %.3f rad/s; largest lag %.1f°", c.Delay(), peak, worst/deg)
			if c.Delay() != tc.delay {
				t.Errorf("measured delay %d, want %d", c.Delay(), tc.delay)
			}
			if peak > 1.1*speed || peak < 0.9*speed {
				t.Errorf("peak speed %.2f rad/s, asked %.2f", peak, speed)
			}
			if worst > float64(tc.delay+1)*speed*dt+1e-9 {
				t.Errorf("lags the target by up to %.2f°", worst/deg)
			}
		})
	}
	t.Run("naive delay-2 prediction on a delay of 3", func(t *testing.T) {
		p := delayPlant{dt: dt, delay: 3}
		var sent, reply, target, peak float64
		for k := range 400 {
			prev := p.angle
			a := p.step(reply)
			target = math.Min(float64(k)*speed*dt, 1)
			reply = min(max((target-(a+sent*dt))/dt, -MaxSpeed), MaxSpeed)
			sent = reply
			if k > 5 {
				peak = max(peak, math.Abs(a-prev)/dt)
			}
		}
		if peak < 0.9*MaxSpeed {
			t.Errorf("peak %.2f rad/s: the instability this controller avoids did not show", peak)
		}
	})
}

// TestCycleFromCoarseServerClock: a server whose float32 clock has run
// for 45 hours moves 15.6 ms (one ULP) per 10 ms physics step; the cycle
// stays the nominal 10 ms and the clock is not offered for tick time.
func TestCycleFromCoarseServerClock(t *testing.T) {
	a := NewAdapter(DefaultConfig())
	var p simspark.Perception
	clock := float32(163000)
	for k := range 400 {
		clock += float32(0.01)
		parse(t, &p, "(time (now "+strconv.FormatFloat(float64(clock), 'f', 2, 32)+"))")
		a.Update(&p)
		if k == 0 {
			continue
		}
	}
	if c := a.Cycle(); math.Abs(c-0.01) > 1e-9 {
		t.Fatalf("measured cycle %.4f s, want 0.0100", c)
	}
	if st, ok := a.SimTime(); ok {
		t.Fatalf("sim time %v offered for tick time", st)
	}
}
