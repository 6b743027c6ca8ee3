package sim

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/internal/traces"
	"github.com/robotd/robotd/proto/simspark"
)

// TestIMUReplay replays the IMU traces through the adapter and checks the
// converted gyro and the filtered body angles against the known motions.
func TestIMUReplay(t *testing.T) {
	type result struct {
		peak   hal.Vec3 // largest-magnitude gyro reading per axis, rad/s
		yaw    float64  // integrated gyro z, deg
		final  hal.BodyAngles
		accTil hal.BodyAngles // the tilt the last accelerometer reading implies
	}
	tests := []struct {
		file  string
		want  string
		check func(r result) bool
	}{
		{"imu_still.txt", "upright, no rotation", func(r result) bool {
			return math.Abs(r.final.Roll.Degrees()) < 0.5 && math.Abs(r.final.Pitch.Degrees()) < 0.5 &&
				math.Abs(r.peak.X) < 0.01 && math.Abs(r.peak.Y) < 0.01 && math.Abs(r.peak.Z) < 0.01
		}},
		{"imu_fall_forward.txt", "pitch large positive, pitch rate positive", func(r result) bool {
			return r.final.Pitch.Degrees() > 60 && r.peak.Y > 3 && math.Abs(r.final.Roll.Degrees()) < 5
		}},
		{"imu_fall_backward.txt", "pitch large negative", func(r result) bool {
			return r.final.Pitch.Degrees() < -60 && r.peak.Y < -3 && math.Abs(r.final.Roll.Degrees()) < 5
		}},
		{"imu_fall_right.txt", "roll large positive, roll rate positive", func(r result) bool {
			return r.final.Roll.Degrees() > 60 && r.peak.X > 3 && math.Abs(r.final.Pitch.Degrees()) < 5
		}},
		{"imu_fall_left.txt", "roll large negative", func(r result) bool {
			return r.final.Roll.Degrees() < -60 && r.peak.X < -3 && math.Abs(r.final.Pitch.Degrees()) < 5
		}},
		{"imu_yaw_left.txt", "positive yaw rate, +3.26° turn", func(r result) bool {
			return r.peak.Z > 0.3 && math.Abs(r.yaw-3.26) < 0.2
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			a := NewAdapter(DefaultConfig())
			var r result
			started := false
			replay(t, tc.file, func(_ traces.Message, p *simspark.Perception) {
				a.Update(p)
				var imu hal.IMU
				a.ReadIMU(&imu)
				if imu.Accel.Z > 5 && imu.Accel.Z < 15 {
					started = true // after init and the beam's landing
				}
				if !started {
					return
				}
				for _, c := range []struct{ v, pk *float64 }{{&imu.Gyro.X, &r.peak.X}, {&imu.Gyro.Y, &r.peak.Y}, {&imu.Gyro.Z, &r.peak.Z}} {
					if math.Abs(*c.v) > math.Abs(*c.pk) {
						*c.pk = *c.v
					}
				}
				r.yaw += imu.Gyro.Z * a.Cycle() / deg
				a.ReadBodyAngles(&r.final)
				ax, ay, az := imu.Accel.X, imu.Accel.Y, imu.Accel.Z
				r.accTil = hal.BodyAngles{Roll: hal.Radians(math.Atan2(ay, az)), Pitch: hal.Radians(math.Atan2(-ax, math.Hypot(ay, az)))}
			})
			if !tc.check(r) {
				t.Fatalf("want %s: peak gyro (%.2f, %.2f, %.2f) rad/s, yaw %.2f°, final roll %.1f° pitch %.1f°",
					tc.want, r.peak.X, r.peak.Y, r.peak.Z, r.yaw, r.final.Roll.Degrees(), r.final.Pitch.Degrees())
			}
			// At rest at the end, the filter agrees with the accelerometer.
			if d := math.Hypot((r.final.Roll - r.accTil.Roll).Degrees(), (r.final.Pitch - r.accTil.Pitch).Degrees()); d > 3 {
				t.Errorf("final angles (%.1f°, %.1f°) differ from the accelerometer's (%.1f°, %.1f°)",
					r.final.Roll.Degrees(), r.final.Pitch.Degrees(), r.accTil.Roll.Degrees(), r.accTil.Pitch.Degrees())
			}
			t.Logf("%s: peak gyro (%.2f, %.2f, %.2f) rad/s, yaw %+.2f°, final roll %+.1f° pitch %+.1f° (accelerometer %+.1f°, %+.1f°)",
				tc.want, r.peak.X, r.peak.Y, r.peak.Z, r.yaw, r.final.Roll.Degrees(), r.final.Pitch.Degrees(),
				r.accTil.Roll.Degrees(), r.accTil.Pitch.Degrees())
		})
	}
}

// TestCameraHeight compares the forward kinematics' camera height with the
// server's mypos z (the camera's true height) in every trace while the
// robot stands (after the beam has landed, before any fall).
func TestCameraHeight(t *testing.T) {
	for _, file := range []string{"imu_still.txt", "vision_headsweep.txt", "step_lle4_p1.txt", "step_he2_p5.txt", "imu_fall_forward.txt"} {
		a := NewAdapter(DefaultConfig())
		worst, n := 0.0, 0
		replay(t, file, func(m traces.Message, p *simspark.Perception) {
			a.Update(p)
			var ba hal.BodyAngles
			a.ReadBodyAngles(&ba)
			if m.Cycle < 20 || !p.HasSee() || math.Abs(ba.Pitch.Degrees()) > 5 || math.Abs(ba.Roll.Degrees()) > 5 {
				return
			}
			h, fk := a.CameraHeight()
			if !fk {
				t.Fatalf("%s:%d: camera height not from the kinematics", file, m.Line)
			}
			worst = max(worst, math.Abs(h-p.See.MyPos[2]))
			n++
		})
		if n < 10 || worst > 0.012 {
			t.Errorf("%s: %d See blocks, camera height off mypos z by up to %.3f m", file, n, worst)
		}
		t.Logf("%s: %d See blocks, kinematic camera height within %.3f m of mypos z (2 decimals)", file, n, worst)
	}
}

func median(x []float64) float64 {
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	return y[len(y)/2]
}

// TestVisionHeadsweep converts the recorded See blocks and checks the ball,
// the goal posts and the other robot against the ground truth of the same
// messages: ballpos, mypos/myorien and the field's post coordinates.
func TestVisionHeadsweep(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Team, cfg.Player = "T", 1
	a := NewAdapter(cfg)
	d := field.SPL()
	var ballErr, postErr, robotErr []float64
	var biasX, biasY float64
	ids := map[uint8]int{}
	var robotsSeen, frames int
	// Robot 2 (team O, the right side) was beamed to (-1, 0.6) in its own
	// frame: (1, -0.6) in ours.
	other := hal.Vec2{X: 1, Y: -0.6}
	replay(t, "vision_headsweep.txt", func(m traces.Message, p *simspark.Perception) {
		a.Update(p)
		var v hal.Vision
		a.ReadVision(&v)
		if !v.Fresh || m.Cycle < 10 { // skip the beam
			return
		}
		frames++
		var gt hal.GroundTruth
		a.ReadGroundTruth(&gt)
		if !gt.Valid || !gt.BallValid {
			t.Fatal("no ground truth in a See block")
		}
		// The recorded robot stands: its head (mypos z) is 0.54 m up.
		if h := float64(gt.HeadHeight); math.Abs(h-0.54) > 0.02 {
			t.Fatalf("head height %.3f m from mypos, want the standing 0.54 m", h)
		}
		c, s := math.Cos(float64(gt.Pose.Heading)), math.Sin(float64(gt.Pose.Heading))
		toField := func(o hal.Observation) hal.Vec2 {
			return hal.Vec2{X: float64(gt.Pose.X) + c*o.Pos.X - s*o.Pos.Y, Y: float64(gt.Pose.Y) + s*o.Pos.X + c*o.Pos.Y}
		}
		var js hal.JointSensors
		a.ReadJoints(&js)
		for _, o := range v.Obs[:v.N] {
			// The cut is on the camera's angle, the observation's bearing is
			// seen from the feet; the camera is 5 mm from above the feet.
			if off := math.Abs((o.Bearing - js.Angle[hal.HeadYaw]).Degrees()); off > 60.9/2+2 {
				t.Fatalf("%v at %.1f° from the camera axis, beyond the 60.9° field of view", o.Kind, off)
			}
			f := toField(o)
			switch o.Kind {
			case hal.ObjBall:
				ballErr = append(ballErr, math.Hypot(f.X-gt.Ball.X, f.Y-gt.Ball.Y))
				biasX += f.X - gt.Ball.X
				biasY += f.Y - gt.Ball.Y
			case hal.ObjGoalPost:
				want, ok := d.Post(o.ID)
				if !ok {
					t.Fatalf("goal post without an ID")
				}
				ids[o.ID]++
				postErr = append(postErr, math.Hypot(f.X-want.X, f.Y-want.Y))
			case hal.ObjRobot:
				if o.Team != 1 || o.ID != 1 {
					t.Fatalf("robot team %d id %d, want the opponent's 1 (our own arms must be dropped)", o.Team, o.ID)
				}
				robotsSeen++
				robotErr = append(robotErr, math.Hypot(f.X-other.X, f.Y-other.Y))
			}
		}
	})
	if len(ballErr) < 20 || len(postErr) < 20 || robotsSeen < 10 {
		t.Fatalf("in %d frames: %d balls, %d posts, %d robots in view", frames, len(ballErr), len(postErr), robotsSeen)
	}
	if ids[field.PostOppLeft] == 0 || ids[field.PostOppRight] == 0 || len(ids) != 2 {
		t.Errorf("post IDs seen %v, want both opponent posts only", ids)
	}
	n := float64(len(ballErr))
	mb, mp, mr := median(ballErr), median(postErr), median(robotErr)
	// The server's noise (3.3 % of the distance, 3.3° in angle) gives about
	// 0.12 m for the ball at 2 m and 0.3 m for the posts at 6.5 m; the
	// conversion must add no bias.
	if mb > 0.15 || mp > 0.40 || mr > 0.25 || math.Abs(biasX/n) > 0.03 || math.Abs(biasY/n) > 0.03 {
		t.Fatalf("median errors: ball %.3f m, posts %.3f m, robot %.3f m; ball bias (%.3f, %.3f) m", mb, mp, mr, biasX/n, biasY/n)
	}
	t.Logf("%d frames: %d balls, median error %.3f m, bias (%+.3f, %+.3f) m; %d posts, median %.3f m; %d robots, median %.3f m",
		frames, len(ballErr), mb, biasX/n, biasY/n, len(postErr), mp, robotsSeen, mr)
}

// see builds a perceptor message: joints standing straight, head yaw
// headDeg, and a See block with the given items.
func see(t *testing.T, headDeg float64, items string) *simspark.Perception {
	t.Helper()
	return seeAt(t, 1, headDeg, items)
}

// seeAt is see at server time now (s).
func seeAt(t *testing.T, now, headDeg float64, items string) *simspark.Perception {
	t.Helper()
	var p simspark.Perception
	msg := "(time (now " + strconv.FormatFloat(now, 'f', 2, 64) + "))(GYR (n torso) (rt 0 0 0))(ACC (n torso) (a 0 0 9.81))(HJ (n hj1) (ax " + ftoa(headDeg) + "))(HJ (n hj2) (ax 0))"
	for _, j := range simJoints[2:] {
		msg += "(HJ (n " + j.PerceptorName() + ") (ax 0))"
	}
	parse(t, &p, msg+"(See "+items+")")
	return &p
}

// pol gives the server's polar coordinates of a ground-frame point (robot
// frame, metres) seen by a standing robot with head yaw headDeg.
func pol(x, y, z, headDeg float64) string {
	cam := camera(&[simspark.NumJoints]float64{simspark.HJ1: headDeg * deg}, 0, 0)
	w := geom.Vec3{X: x, Y: y, Z: z}.Sub(cam.P)
	r := cam.R
	l := r.ApplyT(w)
	d := math.Sqrt(l.X*l.X + l.Y*l.Y + l.Z*l.Z)
	return "(pol " + ftoa(d) + " " + ftoa(math.Atan2(l.Y, l.X)/deg) + " " + ftoa(math.Atan2(l.Z, math.Hypot(l.X, l.Y))/deg) + ")"
}

func TestVisionCuts(t *testing.T) {
	type obs struct {
		kind hal.ObjectKind
		x, y float64
		id   uint8
		team uint8
	}
	tests := []struct {
		name    string
		cfg     func(*Config)
		headDeg float64
		side    string // GS team
		items   string
		want    []obs
		sonar   hal.Sonar
	}{
		{"ball ahead", nil, 0, "left", "(B " + pol(1.5, 0.2, 0.05, 0) + ")", []obs{{kind: hal.ObjBall, x: 1.5, y: 0.2}}, hal.Sonar{}},
		{"ball outside the 60.9° view", nil, 0, "left", "(B " + pol(1, 0.7, 0.05, 0) + ")", nil, hal.Sonar{}},
		{"same ball, head turned to it", nil, 35, "left", "(B " + pol(1, 0.7, 0.05, 35) + ")", []obs{{kind: hal.ObjBall, x: 1, y: 0.7}}, hal.Sonar{}},
		{"wider configured view", func(c *Config) { c.Vision.FOVDeg = 90 }, 0, "left", "(B " + pol(1, 0.7, 0.05, 0) + ")",
			[]obs{{kind: hal.ObjBall, x: 1, y: 0.7}}, hal.Sonar{}},
		{"ball beyond the reliable distance", nil, 0, "left", "(B " + pol(2.6, 0, 0.05, 0) + ")", nil, hal.Sonar{}},
		{"longer reliable distance", func(c *Config) { c.Vision.ReliableBallDistance = 3 }, 0, "left", "(B " + pol(2.6, 0, 0.05, 0) + ")",
			[]obs{{kind: hal.ObjBall, x: 2.6, y: 0}}, hal.Sonar{}},
		{"posts, left team", nil, 0, "left", "(G1R " + pol(4, 0.8, 0.8, 0) + ")(G2R " + pol(4, -0.8, 0.8, 0) + ")",
			[]obs{{kind: hal.ObjGoalPost, x: 4, y: 0.8, id: field.PostOppLeft}, {kind: hal.ObjGoalPost, x: 4, y: -0.8, id: field.PostOppRight}}, hal.Sonar{}},
		{"posts, right team", nil, 0, "right", "(G1L " + pol(4, -0.8, 0.8, 0) + ")(G2L " + pol(4, 0.8, 0.8, 0) + ")",
			[]obs{{kind: hal.ObjGoalPost, x: 4, y: -0.8, id: field.PostOppRight}, {kind: hal.ObjGoalPost, x: 4, y: 0.8, id: field.PostOppLeft}}, hal.Sonar{}},
		{"field features", nil, 0, "left",
			"(CNR (ffs " + pol(3, 1, 0, 0)[5:len(pol(3, 1, 0, 0))-1] + " 45))(TJ (ffs " + pol(2, -1, 0, 0)[5:len(pol(2, -1, 0, 0))-1] + " 0))(CC (ffs " + pol(1, 0, 0, 0)[5:len(pol(1, 0, 0, 0))-1] + " -90))",
			[]obs{{kind: hal.ObjCorner, x: 3, y: 1}, {kind: hal.ObjTJunction, x: 2, y: -1}, {kind: hal.ObjCentreCircle, x: 1, y: 0}}, hal.Sonar{}},
		{"robots: opponent by its feet, teammate by its head, own arms dropped", nil, 0, "left",
			"(P (team O) (id 3) (head " + pol(2, 0.5, 0.54, 0) + ") (lfoot " + pol(2, 0.55, 0.01, 0) + ") (rfoot " + pol(2, 0.45, 0.01, 0) + "))" +
				"(P (team T) (id 2) (head " + pol(1.5, -0.3, 0.54, 0) + "))" +
				"(P (team T) (id 1) (rlowerarm (pol 0.19 -32.38 -20.49)) (llowerarm (pol 0.18 38.35 -22.87)))",
			[]obs{{kind: hal.ObjRobot, x: 2, y: 0.5, id: 3, team: 1}, {kind: hal.ObjRobot, x: 1.5, y: -0.3, id: 2}}, hal.Sonar{}},
		{"sonar: robot 0.5 m ahead slightly left, post 0.67 m to the right", nil, 0, "left",
			"(P (team O) (id 4) (head " + pol(0.5, 0.05, 0.54, 0) + "))(G2R " + pol(0.6, -0.3, 0.8, 0) + ")",
			[]obs{{kind: hal.ObjRobot, x: 0.5, y: 0.05, id: 4, team: 1}, {kind: hal.ObjGoalPost, x: 0.6, y: -0.3, id: field.PostOppRight}},
			hal.Sonar{Left: 0.5025, LeftValid: true, Right: 0.5025, RightValid: true}},
		{"sonar: only the right one hears a post at -25°", nil, 0, "left", "(G2R " + pol(0.5*math.Cos(-25*deg), 0.5*math.Sin(-25*deg), 0.8, 0) + ")",
			[]obs{{kind: hal.ObjGoalPost, x: 0.5 * math.Cos(-25*deg), y: 0.5 * math.Sin(-25*deg), id: field.PostOppRight}},
			hal.Sonar{Right: 0.5, RightValid: true}},
		{"sonar: too close, too far, outside the cone", nil, 0, "left",
			"(P (team O) (id 4) (head " + pol(0.15, 0, 0.54, 0) + "))(P (team O) (id 5) (head " + pol(0.9, 0, 0.54, 0) + "))(G1R " + pol(0.2, 0.5, 0.8, 0) + ")",
			[]obs{{kind: hal.ObjRobot, x: 0.15, y: 0, id: 4, team: 1}, {kind: hal.ObjRobot, x: 0.9, y: 0, id: 5, team: 1}}, hal.Sonar{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Team, cfg.Player = "T", 1
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			a := NewAdapter(cfg)
			var gs simspark.Perception
			parse(t, &gs, "(GS (unum 1) (team "+tc.side+") (t 0) (pm BeforeKickOff))")
			a.Update(&gs)
			a.Update(see(t, tc.headDeg, tc.items))
			var v hal.Vision
			a.ReadVision(&v)
			if !v.Fresh || v.N != len(tc.want) {
				t.Fatalf("fresh %v, %d observations %+v, want %d", v.Fresh, v.N, v.Obs[:v.N], len(tc.want))
			}
			for i, w := range tc.want {
				o := v.Obs[i]
				if o.Kind != w.kind || o.ID != w.id || o.Team != w.team || math.Hypot(o.Pos.X-w.x, o.Pos.Y-w.y) > 0.005 {
					t.Errorf("observation %d: %+v, want %+v", i, o, w)
				}
				if math.Abs(float64(o.Distance)-math.Hypot(o.Pos.X, o.Pos.Y)) > 1e-9 || math.Abs(float64(o.Bearing)-math.Atan2(o.Pos.Y, o.Pos.X)) > 1e-9 {
					t.Errorf("observation %d: polar form (%v, %v) does not match %+v", i, o.Distance, o.Bearing, o.Pos)
				}
			}
			var s hal.Sonar
			a.ReadSonar(&s)
			if s.LeftValid != tc.sonar.LeftValid || s.RightValid != tc.sonar.RightValid ||
				math.Abs(float64(s.Left-tc.sonar.Left)) > 0.005 || math.Abs(float64(s.Right-tc.sonar.Right)) > 0.005 {
				t.Errorf("sonar %+v, want %+v", s, tc.sonar)
			}
			// The next message has no See block: vision is no longer fresh.
			var next simspark.Perception
			parse(t, &next, "(time (now 1.01))")
			a.Update(&next)
			a.ReadVision(&v)
			if v.Fresh || v.N != 0 {
				t.Errorf("vision after a message without See: fresh %v, %d observations", v.Fresh, v.N)
			}
		})
	}
}

func TestVisionNoise(t *testing.T) {
	const n = 2000
	cfg := DefaultConfig()
	cfg.Vision.NoiseDistance, cfg.Vision.NoiseAngleDeg, cfg.Vision.Seed = 0.05, 1, 7
	cfg.Vision.ReliableBallDistance = 10
	run := func(cfg Config) []float64 {
		a := NewAdapter(cfg)
		p := see(t, 0, "(B "+pol(2, 0, 0.05, 0)+")")
		var out []float64
		for range n {
			a.Update(p)
			var v hal.Vision
			a.ReadVision(&v)
			if v.N == 1 {
				out = append(out, float64(v.Obs[0].Distance))
			}
		}
		return out
	}
	d1, d2 := run(cfg), run(cfg)
	var m, s float64
	for i, d := range d1 {
		if d != d2[i] {
			t.Fatalf("same seed, different noise at %d: %v vs %v", i, d, d2[i])
		}
		m += d
	}
	m /= float64(len(d1))
	for _, d := range d1 {
		s += (d - m) * (d - m)
	}
	s = math.Sqrt(s / float64(len(d1)))
	// 5 % of the 2.07 m slant distance, turned into ground distance.
	if len(d1) != n || math.Abs(m-2) > 0.02 || s < 0.08 || s > 0.14 {
		t.Errorf("%d draws: mean %.3f m (want 2), sd %.3f m (want about 0.11)", len(d1), m, s)
	}
	cfg.Vision.NoiseDistance, cfg.Vision.NoiseAngleDeg = 0, 0
	for _, d := range run(cfg) {
		if math.Abs(d-2) > 1e-6 {
			t.Fatalf("noise off: distance %v, want exactly 2", d)
		}
	}
}

func TestVisionNoiseEpoch(t *testing.T) {
	// From the epoch on, a frame's noise depends on the seed and its time
	// since the epoch alone: not on the frames before, nor on the
	// server's clock.
	cfg := DefaultConfig()
	cfg.Vision.NoiseDistance, cfg.Vision.NoiseAngleDeg, cfg.Vision.Seed = 0.05, 1, 7
	cfg.Vision.ReliableBallDistance = 10
	item := "(B " + pol(2, 0, 0.05, 0) + ")"
	// run feeds frames every 20 ms from server time from until the epoch
	// and 25 frames after it, and returns the distances seen from the
	// epoch on.
	run := func(from, epoch float64, withEpoch bool) []float64 {
		a := NewAdapter(cfg)
		var out []float64
		for k := 0; ; k++ {
			now := from + 0.02*float64(k)
			if now >= epoch+0.5-1e-9 {
				return out
			}
			if withEpoch {
				a.noiseEpoch(epoch)
			}
			a.Update(seeAt(t, now, 0, item))
			var v hal.Vision
			a.ReadVision(&v)
			if v.N != 1 {
				t.Fatalf("frame at %.2f s: %d observations, want the ball", now, v.N)
			}
			if now >= epoch-1e-9 {
				out = append(out, float64(v.Obs[0].Distance))
			}
		}
	}
	a := run(10, 10.5, true)
	for _, tc := range []struct {
		name        string
		from, epoch float64
	}{
		{"fewer frames before", 10.3, 10.5},
		{"another clock", 123.1, 123.5},
	} {
		b := run(tc.from, tc.epoch, true)
		if !slices.Equal(a, b) {
			t.Errorf("%s: distances from the epoch on %v, want %v", tc.name, b, a)
		}
	}
	if c := run(10.3, 10.5, false); slices.Equal(a[1:], c[1:]) {
		t.Errorf("without an epoch, fewer frames before gave the same noise: %v", c)
	}
	spread := 0.0
	for _, d := range a {
		spread = max(spread, math.Abs(d-2))
	}
	if spread == 0 {
		t.Errorf("distances %v: no noise", a)
	}
}

func TestGameState(t *testing.T) {
	tests := []struct {
		name string
		msgs []string
		want hal.GameState
	}{
		{"before kick-off, left side",
			[]string{"(GS (unum 1) (team left) (sl 0) (sr 0) (t 0.00) (pm BeforeKickOff))"},
			hal.GameState{Phase: hal.PhaseSet, LeftSide: true, PlayMode: uint8(BeforeKickOff)}},
		{"our kick-off on the right side, scores swapped",
			[]string{"(GS (unum 2) (team right) (sl 1) (sr 2) (t 12.50) (pm KickOff_Right))"},
			hal.GameState{Phase: hal.PhasePlaying, OurKickOff: true, ScoreOwn: 2, ScoreOpp: 1, GameTime: 12500 * time.Millisecond, PlayMode: uint8(KickOffRight)}},
		{"their kick-off; the side sticks without a team field",
			[]string{"(GS (unum 2) (team right) (t 0) (pm BeforeKickOff))", "(GS (sl 0) (sr 3) (t 1) (pm KickOff_Left))"},
			hal.GameState{Phase: hal.PhasePlaying, ScoreOwn: 3, GameTime: time.Second, PlayMode: uint8(KickOffLeft)}},
		{"play on", []string{"(GS (t 30) (pm PlayOn))"},
			hal.GameState{Phase: hal.PhasePlaying, LeftSide: true, GameTime: 30 * time.Second, PlayMode: uint8(PlayOn)}},
		{"goal: back to positions", []string{"(GS (sl 1) (sr 0) (t 40) (pm Goal_Left))"},
			hal.GameState{Phase: hal.PhaseReady, LeftSide: true, ScoreOwn: 1, GameTime: 40 * time.Second, PlayMode: uint8(GoalLeft)}},
		{"set play", []string{"(GS (t 41) (pm corner_kick_right))"},
			hal.GameState{Phase: hal.PhasePlaying, LeftSide: true, GameTime: 41 * time.Second, PlayMode: uint8(CornerKickRight)}},
		{"game over", []string{"(GS (t 600) (pm GameOver))"},
			hal.GameState{Phase: hal.PhaseFinished, LeftSide: true, GameTime: 600 * time.Second, PlayMode: uint8(GameOver)}},
		{"unknown play mode", []string{"(GS (pm Frobnicate))"},
			hal.GameState{Phase: hal.PhasePlaying, LeftSide: true, PlayMode: uint8(UnknownPlayMode)}},
	}
	for _, tc := range tests {
		a := NewAdapter(DefaultConfig())
		var p simspark.Perception
		for _, m := range tc.msgs {
			parse(t, &p, m)
			a.Update(&p)
		}
		var g hal.GameState
		a.ReadGameState(&g)
		if g != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, g, tc.want)
		}
	}
	for m := BeforeKickOff; m <= DirectFreeKickRight; m++ {
		if ParsePlayMode([]byte(m.String())) != m {
			t.Errorf("play mode %d does not round-trip through %q", m, m.String())
		}
	}
}

func TestFSR(t *testing.T) {
	const g = float64(hal.Gravity)
	tests := []struct {
		name        string
		frp         string
		left, right [4]float64
	}{
		{"no contact", "", [4]float64{}, [4]float64{}},
		{"left foot, centred", "(FRP (n lf) (c 0 0 -0.01) (f 0 0 " + ftoa(4*g) + "))", [4]float64{1, 1, 1, 1}, [4]float64{}},
		{"right foot on its front-left corner", "(FRP (n rf) (c -0.04 0.08 -0.01) (f 0.1 0.3 " + ftoa(2*g) + "))", [4]float64{}, [4]float64{2, 0, 0, 0}},
		{"both feet, pressure behind and right", "(FRP (n lf) (c 0.02 -0.04 -0.01) (f 0 0 " + ftoa(8*g) + "))(FRP (n rf) (c 0 0 -0.01) (f 0 0 " + ftoa(4*g) + "))",
			[4]float64{0.5, 1.5, 1.5, 4.5}, [4]float64{1, 1, 1, 1}},
		{"pulled, not pushed", "(FRP (n lf) (c 0 0 -0.01) (f 0 0 -5))", [4]float64{}, [4]float64{}},
	}
	for _, tc := range tests {
		a := NewAdapter(DefaultConfig())
		var p simspark.Perception
		parse(t, &p, "(time (now 1))"+tc.frp)
		a.Update(&p)
		var f hal.FSR
		a.ReadFSR(&f)
		for i := range 4 {
			if math.Abs(f.Left[i]-tc.left[i]) > 1e-4 || math.Abs(f.Right[i]-tc.right[i]) > 1e-4 {
				t.Errorf("%s: left %v right %v, want %v %v", tc.name, f.Left, f.Right, tc.left, tc.right)
				break
			}
		}
	}
	// In the recorded stance the robot's weight is on its feet.
	a := NewAdapter(DefaultConfig())
	var total float64
	replay(t, "imu_still.txt", func(_ traces.Message, p *simspark.Perception) {
		a.Update(p)
		var f hal.FSR
		a.ReadFSR(&f)
		total = f.Total()
	})
	if total < 3 || total > 6 {
		t.Errorf("standing: feet carry %.2f kg, want about the model's mass", total)
	}
	t.Logf("standing still, the feet carry %.2f kg", total)
}

func TestCycleFromSimTime(t *testing.T) {
	tests := []struct {
		name  string
		times []string
		want  float64
	}{
		{"nominal until two times", []string{"(time (now 4.05))"}, 0.01},
		{"no time at all", []string{"(GS (t 0))", "(GS (t 0))"}, 0.01},
		{"20 ms server", []string{"(time (now 4.00))", "(time (now 4.02))"}, 0.02},
		{"jump backwards keeps the last", []string{"(time (now 4.00))", "(time (now 4.02))", "(time (now 1.00))", "(time (now 1.02))"}, 0.02},
		{"a long jump keeps the last", []string{"(time (now 4.00))", "(time (now 4.02))", "(time (now 9.00))"}, 0.02},
	}
	for _, tc := range tests {
		cfg := DefaultConfig()
		a := NewAdapter(cfg)
		var p simspark.Perception
		for _, m := range tc.times {
			parse(t, &p, m)
			a.Update(&p)
		}
		if math.Abs(a.Cycle()-tc.want) > 1e-9 {
			t.Errorf("%s: cycle %v, want %v", tc.name, a.Cycle(), tc.want)
		}
	}
	// From a recording.
	a := NewAdapter(DefaultConfig())
	replay(t, "step20ms_he1_p1.txt", func(_ traces.Message, p *simspark.Perception) { a.Update(p) })
	if math.Abs(a.Cycle()-0.02) > 1e-9 {
		t.Errorf("20 ms recording: cycle %v", a.Cycle())
	}
	a.Reset()
	if a.Cycle() != 0.01 {
		t.Errorf("after Reset: cycle %v, want the nominal 0.01", a.Cycle())
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	tests := []struct {
		name string
		mod  func(*Config)
	}{
		{"port", func(c *Config) { c.Port = 0 }},
		{"team with a space", func(c *Config) { c.Team = "a b" }},
		{"team too long", func(c *Config) { c.Team = "abcdefghijklmnopq" }},
		{"player", func(c *Config) { c.Player = 0 }},
		{"period", func(c *Config) { c.Period = 0 }},
		{"backoff order", func(c *Config) { c.BackoffMax = c.BackoffMin / 2 }},
		{"read timeout below a period", func(c *Config) { c.ReadTimeout = c.Period / 2 }},
		{"fov", func(c *Config) { c.Vision.FOVDeg = 130 }},
		{"reliable distance", func(c *Config) { c.Vision.ReliableBallDistance = 0 }},
		{"noise", func(c *Config) { c.Vision.NoiseDistance = -1 }},
		{"sonar range", func(c *Config) { c.Vision.SonarMax = 0.1 }},
		{"sonar cone", func(c *Config) { c.Vision.SonarConeDeg = 0 }},
		{"filter", func(c *Config) { c.AngleFilterTau = 0 }},
	}
	for _, tc := range tests {
		c := DefaultConfig()
		tc.mod(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
