package perception

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func TestClassify(t *testing.T) {
	lim := hal.Deg(50)
	tests := []struct {
		pitch, roll float64
		want        msg.Fall
	}{
		{0, 0, msg.Upright},
		{40, -40, msg.Upright},
		{80, 10, msg.FallenFront},
		{-85, 20, msg.FallenBack},
		{10, 70, msg.FallenRight},
		{-5, -90, msg.FallenLeft},
	}
	for _, tc := range tests {
		got := Classify(hal.BodyAngles{Pitch: hal.Deg(tc.pitch), Roll: hal.Deg(tc.roll)}, lim)
		if got != tc.want {
			t.Errorf("pitch %v roll %v: %v, want %v", tc.pitch, tc.roll, got, tc.want)
		}
	}
}

func TestDetectFall(t *testing.T) {
	cfg := DefaultConfig()
	bc := BodyConfig{FallAngle: cfg.FallAngle, BodySettings: cfg.Body}
	deg := func(d float64) float64 { return d * math.Pi / 180 }
	tests := []struct {
		name        string
		pitch, roll float64 // degrees
		gyro        hal.Vec3
		want        msg.Fall
		falling     bool
	}{
		{"upright, still", 0, 0, hal.Vec3{}, msg.Upright, false},
		{"upright, turning fast", 5, -3, hal.Vec3{X: 3, Y: -3, Z: 2}, msg.Upright, false},
		{"leaning 35° forward, still", 35, 0, hal.Vec3{}, msg.Upright, false},
		{"leaning 35° forward, recovering", 35, 0, hal.Vec3{Y: -2}, msg.Upright, false},
		{"leaning 35° forward, slowly further", 35, 0, hal.Vec3{Y: 0.5}, msg.Upright, false},
		// Peak rates of the simulator's falls (internal/traces/testdata).
		{"tipping forward", 35, 5, hal.Vec3{Y: deg(277)}, msg.FallenFront, true},
		{"tipping backward", -32, 0, hal.Vec3{Y: -deg(329)}, msg.FallenBack, true},
		{"tipping right", 2, 31, hal.Vec3{X: deg(500)}, msg.FallenRight, true},
		{"tipping left", 0, -40, hal.Vec3{X: -deg(511)}, msg.FallenLeft, true},
		{"tipping forward and right, more forward", 40, 33, hal.Vec3{X: 2, Y: 2}, msg.FallenFront, true},
		{"tipping right, pitch turning back", 31, 36, hal.Vec3{X: 2, Y: -2}, msg.FallenRight, true},
		{"lying face down", 80, 0, hal.Vec3{}, msg.FallenFront, false},
		{"lying on the back", -85, 10, hal.Vec3{}, msg.FallenBack, false},
		{"lying on the right", 0, 75, hal.Vec3{}, msg.FallenRight, false},
		{"hitting the ground on the left", 10, -60, hal.Vec3{X: -4}, msg.FallenLeft, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := hal.BodyAngles{Pitch: hal.Deg(tc.pitch), Roll: hal.Deg(tc.roll)}
			f, falling := DetectFall(a, tc.gyro, bc)
			if f != tc.want || falling != tc.falling {
				t.Errorf("DetectFall = %v, falling %v; want %v, %v", f, falling, tc.want, tc.falling)
			}
		})
	}
}

func TestFallLatchesUntilUpright(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	steps := []struct {
		pitch   float64
		gyroY   float64
		want    msg.Fall
		falling bool
	}{
		{0, 0, msg.Upright, false},
		{20, 1, msg.Upright, false},
		{35, 4, msg.FallenFront, true}, // the gyro says it is going
		{60, 5, msg.FallenFront, true},
		{85, 0, msg.FallenFront, false},  // lying
		{40, -1, msg.FallenFront, false}, // getting up: still fallen
		{28, -1, msg.FallenFront, false},
		{10, 0, msg.Upright, false}, // below the upright angle
	}
	var in input
	in.connected = true
	for i, s := range steps {
		in.angles.Pitch = hal.Deg(s.pitch)
		in.imu.Gyro.Y = s.gyroY
		h.step(t, &in)
		if h.body.Fall != s.want || h.sensors.Falling != s.falling || h.sensors.FallDirection != s.want {
			t.Fatalf("step %d (pitch %v°, gyro %v): fall %v falling %v direction %v; want %v, %v",
				i, s.pitch, s.gyroY, h.body.Fall, h.sensors.Falling, h.sensors.FallDirection, s.want, s.falling)
		}
		if !h.body.Connected {
			t.Fatal("Connected not passed through")
		}
	}
}

func TestFallFromAccelerometerWithoutBodyAngles(t *testing.T) {
	cfg := DefaultConfig()
	b := bodyTracker{cfg: BodyConfig{FallAngle: cfg.FallAngle, BodySettings: cfg.Body}}
	tests := []struct {
		name string
		acc  hal.Vec3 // NAO frame, from the simulator's final ACC
		want msg.Fall
	}{
		{"upright", hal.Vec3{Z: 9.81}, msg.Upright},
		{"face down", hal.Vec3{X: -9.62, Z: 1.92}, msg.FallenFront},
		{"on its back", hal.Vec3{X: 9.81, Z: 0.2}, msg.FallenBack},
		{"on its right", hal.Vec3{Y: 9.47, Z: 2.82}, msg.FallenRight},
		{"on its left", hal.Vec3{Y: -9.40, Z: 2.80}, msg.FallenLeft},
	}
	for _, tc := range tests {
		b.fall = msg.Upright
		in := bodyInputs{hasIMU: true, imu: hal.IMU{Accel: tc.acc}}
		st, _ := b.update(&in, 0, true)
		if st.Fall != tc.want {
			t.Errorf("%s: %v (angles %+v), want %v", tc.name, st.Fall, st.Angles, tc.want)
		}
	}
}

func TestBodySensors(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	var in input
	in.connected = true
	step := func() { h.step(t, &in) }

	// Ground contact with hysteresis, support foot.
	in.fsr = hal.FSR{Left: [4]float64{0.5, 0.5, 0.5, 0.5}, Right: [4]float64{0.2, 0.2, 0.2, 0.2}}
	step()
	if !h.sensors.GroundContact || h.sensors.SupportFoot != msg.LeftFoot || math.Abs(h.sensors.FootLoad[msg.LeftFoot]-2) > 1e-9 {
		t.Fatalf("standing: %+v", h.sensors)
	}
	in.fsr = hal.FSR{Right: [4]float64{0.2, 0.2, 0.2, 0.1}} // 0.7 kg: between the thresholds
	step()
	if !h.sensors.GroundContact || h.sensors.SupportFoot != msg.RightFoot {
		t.Fatalf("0.7 kg: %+v, want contact kept", h.sensors)
	}
	in.fsr = hal.FSR{}
	step()
	if h.sensors.GroundContact {
		t.Fatal("lifted: still in contact")
	}

	// Sonar: valid echoes within range only.
	in.sonar = hal.Sonar{Left: 0.8, LeftValid: true, Right: 3.5, RightValid: true}
	step()
	if !h.sensors.SonarLeftValid || h.sensors.SonarLeft != 0.8 || h.sensors.SonarRightValid {
		t.Fatalf("sonar: %+v", h.sensors)
	}

	// Buttons: held and newly pressed; a chest double press is reported
	// once the gap has passed.
	chest := hal.Buttons(1 << hal.ChestButton)
	head := hal.Buttons(1 << hal.HeadFront)
	seq := []struct {
		buttons hal.Buttons
		ticks   int
	}{{chest | head, 5}, {head, 10}, {chest, 5}, {0, 60}}
	var pressed hal.Buttons
	var presses []uint8
	for _, s := range seq {
		in.buttons = s.buttons
		for range s.ticks {
			step()
			pressed |= h.sensors.Pressed
			if h.sensors.ChestPresses != 0 {
				presses = append(presses, h.sensors.ChestPresses)
			}
			if h.sensors.Buttons != s.buttons {
				t.Fatalf("buttons %b, want %b", h.sensors.Buttons, s.buttons)
			}
		}
	}
	if pressed != chest|head {
		t.Fatalf("pressed %b, want %b", pressed, chest|head)
	}
	if len(presses) != 1 || presses[0] != 2 {
		t.Fatalf("chest sequences %v, want one of 2 presses", presses)
	}
	if !h.sensors.HasFSR || !h.sensors.HasIMU || !h.sensors.HasSonar || !h.sensors.HasButtons {
		t.Fatalf("sensors not marked present: %+v", h.sensors)
	}
}

func TestGroundTruthMode(t *testing.T) {
	tests := []struct {
		name       string
		pose, ball bool
	}{
		{"off (default)", false, false},
		{"pose", true, false},
		{"ball", false, true},
		{"both", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.GroundTruthPose, cfg.GroundTruthBall = tc.pose, tc.ball
			h := newHarness(t, cfg)
			// A world the filters cannot see (no vision): only the truth
			// knows where the robot and the ball are.
			w := newWorld(61, hal.Pose2{X: 1, Y: -2, Heading: 2})
			w.ballOn, w.ball, w.ballVel = true, hal.Vec2{X: 2, Y: -1}, hal.Vec2{X: 0.5}
			w.maxRange, w.ballRange = 0, 0
			var in input
			for range 50 {
				w.step(&in)
				h.step(t, &in)
			}
			if tc.pose {
				if h.pose.Pose != w.pose || h.pose.Source != msg.SourceGroundTruth || !h.pose.Valid || h.pose.Confidence != 1 {
					t.Errorf("pose %+v, want the truth %+v", h.pose, w.pose)
				}
			} else if h.pose.Source == msg.SourceGroundTruth || h.pose.Valid {
				t.Errorf("pose %+v from the truth, want the filter's (not localised)", h.pose)
			}
			if tc.ball {
				want := w.pose.Local(w.ball)
				if h.ball.Source != msg.SourceGroundTruth || !h.ball.Seen || h.ball.Lost ||
					math.Abs(h.ball.Pos.X-want.X) > 1e-9 || math.Abs(h.ball.Pos.Y-want.Y) > 1e-9 {
					t.Errorf("ball %+v, want the truth at %+v", h.ball, want)
				}
				wv := w.ballVel.Rotate(-w.pose.Heading)
				if h.ball.Vel.Dist(wv) > 0.01 {
					t.Errorf("ball velocity %+v, want %+v", h.ball.Vel, wv)
				}
				if tc.pose && (!h.ball.FieldValid || h.ball.FieldPos.Dist(w.ball) > 1e-9) {
					t.Errorf("ball on the field %+v, want %+v", h.ball.FieldPos, w.ball)
				}
			} else if h.ball.Source == msg.SourceGroundTruth || h.ball.Valid {
				t.Errorf("ball %+v from the truth, want the filter's (never seen)", h.ball)
			}
		})
	}
}

func TestDefaultConfigIsNotGroundTruthAndRoundTrips(t *testing.T) {
	cfg := DefaultConfig()
	if cfg.GroundTruthPose || cfg.GroundTruthBall {
		t.Fatal("ground truth is on by default")
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"fall_angle"`, `"lost_after":"3s"`, `"particles":300`, `"ground_truth_pose":false`, `"after_fall_window":"5s"`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON lacks %s: %s", key, data)
		}
	}
	var back Config
	if err := config.Decode(strings.NewReader(string(data)), &back); err != nil {
		t.Fatal(err)
	}
	if back != cfg {
		t.Fatalf("round trip: %+v, want %+v", back, cfg)
	}
	// The existing key still works on its own.
	cfg2 := DefaultConfig()
	if err := config.Decode(strings.NewReader(`{"fall_angle": 0.5, "ball": {"lost_after": "2s"}}`), &cfg2); err != nil {
		t.Fatal(err)
	}
	if cfg2.FallAngle != 0.5 || cfg2.Ball.LostAfter.D() != 2*time.Second || cfg2.Localisation.Particles != 300 {
		t.Fatalf("decoded %+v", cfg2)
	}
}

func TestWireWithoutOptionalSensors(t *testing.T) {
	// A robot with nothing but motion: perception still wires and ticks.
	b := blackboard.New()
	w, err := blackboard.Write(b, "motion", msg.MotionStateKey)
	if err != nil {
		t.Fatal(err)
	}
	m := New(DefaultConfig())
	if err := m.Wire(b); err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	b.BeginTick(1, period)
	if err := m.Tick(hal.Tick{Seq: 1, Time: period, Period: period, Connected: true}); err != nil {
		t.Fatal(err)
	}
	w.Set(msg.MotionState{})
	body, _ := blackboard.ReadOptional(b, "test", msg.BodyStateKey)
	if st, meta := body.Get(); !meta.Fresh || st.Fall != msg.Upright || !st.Connected {
		t.Fatalf("body state %+v %+v", st, meta)
	}
	// Without a motion module, perception needs base odometry.
	cfg := DefaultConfig()
	cfg.BaseOdometry = true
	b2 := blackboard.New()
	if err := New(cfg).Wire(b2); err != nil {
		t.Fatal(err)
	}
	if err := b2.Validate(); err != nil {
		t.Fatalf("with base odometry and no base: %v", err)
	}
}

func TestBaseOdometry(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BaseOdometry = true
	b := blackboard.New()
	base, err := blackboard.Write(b, "hal", msg.BaseKey)
	if err != nil {
		t.Fatal(err)
	}
	vis, err := blackboard.Write(b, "hal", msg.VisionKey)
	if err != nil {
		t.Fatal(err)
	}
	m := New(cfg)
	if err := m.Wire(b); err != nil {
		t.Fatal(err)
	}
	ballR, _ := blackboard.Read(b, "test", msg.BallKey)
	// A ball 1 m ahead, then the base drives 0.4 m forward (its odometry
	// starting from an arbitrary integrated pose).
	odo := hal.Pose2{X: 5, Y: -3, Heading: 1}
	for seq := uint64(1); seq <= 41; seq++ {
		b.BeginTick(seq, time.Duration(seq)*period)
		v := hal.Vision{Fresh: seq == 1}
		if seq == 1 {
			v.Add(hal.Observation{Kind: hal.ObjBall, Pos: hal.Vec2{X: 1}})
		}
		vis.Set(v)
		base.Set(hal.BaseState{Odometry: odo})
		if err := m.Tick(hal.Tick{Seq: seq, Time: time.Duration(seq) * period, Connected: true}); err != nil {
			t.Fatal(err)
		}
		odo = odo.Compose(hal.Pose2{X: 0.01})
	}
	ball, _ := ballR.Get()
	if math.Abs(ball.Pos.X-0.6) > 0.01 || math.Abs(ball.Pos.Y) > 0.01 {
		t.Fatalf("ball at %+v after driving 0.4 m towards it, want (0.6, 0)", ball.Pos)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"default", func(*Config) {}, ""},
		{"no particles", func(c *Config) { c.Localisation.Particles = 0 }, "particles"},
		{"too many particles", func(c *Config) { c.Localisation.Particles = MaxParticles + 1 }, "particles"},
		{"good below bad", func(c *Config) { c.Localisation.GoodQuality = 0.05 }, "quality"},
		{"fall angle lowered alone", func(c *Config) { c.FallAngle = 0.5 }, ""},
		{"upright beyond fallen", func(c *Config) { c.FallAngle = 0.4 }, "upright_angle"},
		{"upright beyond falling", func(c *Config) { c.Body.UprightAngle = c.Body.FallingAngle + 0.1 }, "upright_angle"},
		{"ball never lost", func(c *Config) { c.Ball.LostAfter = 0 }, "lost_after"},
		{"ball reinit 0", func(c *Config) { c.Ball.ReinitAfter = 0 }, "reinit_after"},
		{"team ball gate", func(c *Config) { c.TeamBall.Gate = 0 }, "gate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.change(&cfg)
			err := cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want an error naming %s", err, tc.want)
			}
			// Wire refuses it.
			b := blackboard.New()
			if werr := New(cfg).Wire(b); werr == nil {
				t.Fatal("Wire accepted an invalid configuration")
			}
		})
	}
}
