package sim

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/traces"
	"github.com/robotd/robotd/proto/simspark"
)

type msg = traces.Message

func readTrace(t *testing.T, name string) []msg { return traces.Read(t, name) }

// plant is the joint model fitted to the recorded step responses: a
// velocity command persists, is clamped at MaxSpeed, and moves the joint by
// v·dt per cycle starting two messages after the one it replies to.
type plant struct {
	angle  float64
	active float64 // the reply to the message before the previous one
}

// step computes the next message's angle: the reply to the message before
// the previous one moves the joint (so the reply to message k shows in
// message k+2), and reply, the reply to the previous message, becomes the
// velocity in force for the next step.
func (p *plant) step(reply float64, dt float64) float64 {
	p.angle += p.active * dt
	p.active = min(max(reply, -MaxSpeed), MaxSpeed)
	return p.angle
}

// TestPlantMatchesRecordedSteps replays the recorded commands of three step
// traces through the plant and compares angles cycle by cycle.
func TestPlantMatchesRecordedSteps(t *testing.T) {
	for _, tc := range []struct {
		file  string
		joint string
	}{{"step_he1_p1.txt", "hj1"}, {"step_he1_p8.txt", "hj1"}, {"step_lae1_p1.txt", "laj1"}, {"step_he1_m0.5.txt", "hj1"}} {
		t.Run(tc.file, func(t *testing.T) {
			msgs := readTrace(t, tc.file)
			eff := strings.Replace(tc.joint, "j", "e", 1)
			replies := map[int]float64{}
			angles := map[int]float64{}
			var p simspark.Perception
			var e simspark.Effectors
			last := 0
			for _, m := range msgs {
				switch m.Dir {
				case "in":
					if err := p.Parse(m.Payload); err != nil {
						t.Fatal(err)
					}
					for _, j := range p.Joints {
						if j.ID.String() == tc.joint {
							angles[m.Cycle] = j.Deg
						}
					}
					last = m.Cycle
				case "out":
					if err := e.Parse(m.Payload); err != nil {
						t.Fatal(err)
					}
					for _, j := range e.Joints {
						if j.ID.EffectorName() == eff {
							replies[m.Cycle] = j.V
						}
					}
				}
			}
			var pl plant
			pl.angle = angles[0] * math.Pi / 180
			worst := 0.0
			var held float64
			for k := 1; k <= last; k++ {
				if v, ok := replies[k-1]; ok {
					held = v
				}
				got := pl.step(held, 0.01) * 180 / math.Pi
				if want, ok := angles[k]; ok {
					worst = max(worst, math.Abs(got-want))
				}
			}
			if worst > 0.05 {
				t.Fatalf("plant differs from the recording by up to %.3f°", worst)
			}
			t.Logf("plant matches %s within %.3f°", tc.file, worst)
		})
	}
}

type tracker interface {
	cmd(angle, target float64) float64
}

type deadbeat struct{ c Controller }

func (d *deadbeat) cmd(angle, target float64) float64 {
	return d.c.Step(simspark.HJ1, angle, target, 0.01)
}

// naive is seed 003 table 3.3's controller: velocity proportional to the
// error, ignoring the commands in flight.
type naive struct{ gain float64 }

func (n *naive) cmd(angle, target float64) float64 { return n.gain * (target - angle) }

func track(c tracker, target float64, cycles int) (angles []float64) {
	var pl plant
	reply := 0.0
	for range cycles {
		a := pl.step(reply, 0.01)
		angles = append(angles, a)
		reply = c.cmd(a, target)
	}
	return angles
}

func TestJointTracking(t *testing.T) {
	for _, stepDeg := range []float64{10, 30, 60} {
		target := stepDeg * math.Pi / 180
		angles := track(&deadbeat{}, target, 200)
		ideal := int(math.Ceil(target / (MaxSpeed * 0.01)))
		settled := -1
		overshoot := 0.0
		for k, a := range angles {
			overshoot = max(overshoot, (a-target)*180/math.Pi)
			if settled < 0 && math.Abs(a-target)*180/math.Pi <= 0.5 {
				settled = k
			}
			if settled >= 0 && math.Abs(a-target)*180/math.Pi > 0.5 {
				t.Fatalf("%v°: left the 0.5° band again at cycle %d", stepDeg, k)
			}
		}
		// The first command replies to message 0 and shows at message 2.
		budget := ideal + Delay + 2
		if settled < 0 || settled > budget || overshoot > 0.5 {
			t.Fatalf("%v° step: settled at cycle %d (budget %d = ideal %d + delay %d + 2), overshoot %.3f°", stepDeg, settled, budget, ideal, Delay, overshoot)
		}
		t.Logf("%v° step: within 0.5° at message %d (ideal %d cycles of motion + %d delay), overshoot %.3f°", stepDeg, settled, ideal, Delay, overshoot)

		// The naive proportional controller with a gain of one cycle
		// oscillates: it overshoots and keeps crossing the target.
		na := track(&naive{gain: 100}, target, 200)
		crossings, maxOver := 0, 0.0
		for k := 1; k < len(na); k++ {
			if (na[k]-target)*(na[k-1]-target) < 0 {
				crossings++
			}
			maxOver = max(maxOver, (na[k]-target)*180/math.Pi)
		}
		if crossings < 5 || maxOver < 1 {
			t.Fatalf("%v°: naive controller crossed the target %d times, overshoot %.2f°; want oscillation", stepDeg, crossings, maxOver)
		}
		t.Logf("%v°: naive controller overshoots %.1f° and crosses the target %d times in 2 s", stepDeg, maxOver, crossings)
	}
}

// TestIMUReplay replays the IMU traces and checks the converted readings
// against the known motions.
func TestIMUReplay(t *testing.T) {
	tests := []struct {
		file  string
		check func(peak hal.Vec3, final hal.BodyAngles) bool
		want  string
	}{
		{"imu_still.txt", func(p hal.Vec3, a hal.BodyAngles) bool {
			return math.Abs(a.Roll.Degrees()) < 1 && math.Abs(a.Pitch.Degrees()) < 1
		}, "upright"},
		{"imu_fall_forward.txt", func(p hal.Vec3, a hal.BodyAngles) bool { return a.Pitch.Degrees() > 60 && p.Y > 3 }, "pitches forward"},
		{"imu_fall_backward.txt", func(p hal.Vec3, a hal.BodyAngles) bool { return a.Pitch.Degrees() < -60 && p.Y < -3 }, "pitches backward"},
		{"imu_fall_right.txt", func(p hal.Vec3, a hal.BodyAngles) bool { return a.Roll.Degrees() > 60 && p.X > 3 }, "rolls right"},
		{"imu_fall_left.txt", func(p hal.Vec3, a hal.BodyAngles) bool { return a.Roll.Degrees() < -60 && p.X < -3 }, "rolls left"},
		{"imu_yaw_left.txt", func(p hal.Vec3, a hal.BodyAngles) bool { return p.Z > 0.3 }, "positive yaw rate"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			var p simspark.Perception
			f := AngleFilter{Alpha: 0.98}
			var peak hal.Vec3
			var a hal.BodyAngles
			for _, m := range readTrace(t, tc.file) {
				if m.Dir != "in" {
					continue
				}
				if err := p.Parse(m.Payload); err != nil {
					t.Fatal(err)
				}
				imu := IMU(p.GYR.V, p.ACC.V)
				a = f.Update(imu, 0.01)
				for _, c := range []struct{ v, pk *float64 }{{&imu.Gyro.X, &peak.X}, {&imu.Gyro.Y, &peak.Y}, {&imu.Gyro.Z, &peak.Z}} {
					if math.Abs(*c.v) > math.Abs(*c.pk) {
						*c.pk = *c.v
					}
				}
			}
			if !tc.check(peak, a) {
				t.Fatalf("want %s: peak gyro %+v rad/s, final roll %.1f° pitch %.1f°", tc.want, peak, a.Roll.Degrees(), a.Pitch.Degrees())
			}
			t.Logf("%s: peak gyro (%.2f, %.2f, %.2f) rad/s, final roll %.1f° pitch %.1f°", tc.want, peak.X, peak.Y, peak.Z, a.Roll.Degrees(), a.Pitch.Degrees())
		})
	}
}

// TestVisionHeadsweep converts the recorded See blocks and checks the ball
// and the goal posts against the ground truth in the same messages.
func TestVisionHeadsweep(t *testing.T) {
	va := newVisionAdapter(DefaultVisionConfig())
	va.team = []byte("T")
	d := field.SPL()
	var p simspark.Perception
	var ballErr, postErr []float64
	var biasX, biasY float64
	var posts int
	for _, m := range readTrace(t, "vision_headsweep.txt") {
		if m.Dir != "in" {
			continue
		}
		if err := p.Parse(m.Payload); err != nil {
			t.Fatal(err)
		}
		if !p.HasSee() {
			continue
		}
		var headYaw float64
		for _, j := range p.Joints {
			if j.ID == simspark.HJ1 {
				headYaw = j.Deg * math.Pi / 180
			}
		}
		var v hal.Vision
		var sonar hal.Sonar
		var gt hal.GroundTruth
		va.adapt(&p, headYaw, &v, &sonar)
		groundTruth(&p, headYaw, &gt)
		if !gt.Valid || !gt.BallValid {
			t.Fatal("no ground truth in a See block")
		}
		c, s := math.Cos(float64(gt.Pose.Heading)), math.Sin(float64(gt.Pose.Heading))
		toField := func(o hal.Observation) hal.Vec2 {
			return hal.Vec2{X: float64(gt.Pose.X) + c*o.Pos.X - s*o.Pos.Y, Y: float64(gt.Pose.Y) + s*o.Pos.X + c*o.Pos.Y}
		}
		for _, o := range v.Obs[:v.N] {
			if math.Abs(o.Bearing.Degrees()-headYaw*180/math.Pi) > 30.45+1e-9 {
				t.Fatalf("observation at %.1f° from the camera axis, beyond the 60.9° cut", o.Bearing.Degrees()-headYaw*180/math.Pi)
			}
			fp := toField(o)
			switch o.Kind {
			case hal.ObjBall:
				ballErr = append(ballErr, math.Hypot(fp.X-gt.Ball.X, fp.Y-gt.Ball.Y))
				biasX += fp.X - gt.Ball.X
				biasY += fp.Y - gt.Ball.Y
			case hal.ObjGoalPost:
				want, ok := d.Post(o.ID)
				if !ok {
					t.Fatalf("goal post without an ID")
				}
				postErr = append(postErr, math.Hypot(fp.X-want.X, fp.Y-want.Y))
				posts++
			}
		}
	}
	med := func(x []float64) float64 { sort.Float64s(x); return x[len(x)/2] }
	if len(ballErr) < 20 || posts < 10 {
		t.Fatalf("only %d balls and %d posts in view", len(ballErr), posts)
	}
	n := float64(len(ballErr))
	mb, mp := med(ballErr), med(postErr)
	// The server's noise (about 3 % of the distance, plus angular noise)
	// gives ~11 cm for the ball at 2 m and ~30 cm for posts at 6.5 m; the
	// conversion itself must add no bias.
	if mb > 0.15 || mp > 0.40 || math.Abs(biasX/n) > 0.03 || math.Abs(biasY/n) > 0.03 {
		t.Fatalf("median error: ball %.3f m, posts %.3f m; ball bias (%.3f, %.3f) m", mb, mp, biasX/n, biasY/n)
	}
	t.Logf("%d balls, median error %.3f m, bias (%.3f, %.3f) m; %d posts, median error %.3f m", len(ballErr), mb, biasX/n, biasY/n, posts, mp)
}

func TestJointMap(t *testing.T) {
	inverted := 0
	seen := map[hal.Joint]int{}
	for _, j := range SimJoints {
		n, sign, ok := NAOJoint(j)
		if !ok || !hal.Joints[n].InSimSpark {
			t.Fatalf("%v maps to %v", j, n)
		}
		seen[n]++
		if sign < 0 {
			inverted++
		}
	}
	if len(SimJoints) != 22 || len(seen) != 21 || seen[hal.LHipYawPitch] != 2 || inverted != 11 {
		t.Fatalf("%d sim joints onto %d NAO joints, LHipYawPitch driven %d times, %d inverted", len(SimJoints), len(seen), seen[hal.LHipYawPitch], inverted)
	}
	if v := ToNAOFrame([3]float64{1, 2, 3}); v != (hal.Vec3{X: 2, Y: -1, Z: 3}) {
		t.Fatalf("frame map %+v", v)
	}
}
