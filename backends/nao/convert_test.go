package nao

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/lola"
)

func TestConvert(t *testing.T) {
	base := func() lola.Sensors {
		var s lola.Sensors
		for i := range lola.NumJoints {
			s.Position[i] = float32(i) / 10
			s.Stiffness[i] = 0.5
			s.Temperature[i] = 30 + float32(i)
			s.Current[i] = float32(i) / 100
			s.Status[i] = uint8(i % 4)
		}
		s.Accelerometer = [3]float32{1, -2, -9.5}
		s.Gyroscope = [3]float32{0.1, -0.2, 0.3}
		s.Angles = [2]float32{0.05, -0.1}
		s.Sonar = [2]float32{0.4, 5}
		s.FSR = [8]float32{1, 2, 3, 4, 5, 6, 7, 8}
		s.Battery = [4]float32{0.9, -32552, 0.25, 30} // -32552 = 0x80D8: 0x80 set, 0x20 clear
		return s
	}
	tests := []struct {
		name   string
		cfg    func(*Config)
		sensor func(*lola.Sensors)
		check  func(t *testing.T, st *state)
	}{
		{"joints in LoLA order", nil, nil, func(t *testing.T, st *state) {
			j := &st.joints
			if j.Present != hal.AllJoints || !j.HasStiffness || !j.HasTemperature || !j.HasCurrent {
				t.Fatalf("present %b, has %v %v %v", j.Present, j.HasStiffness, j.HasTemperature, j.HasCurrent)
			}
			for i := range hal.NumJoints {
				if j.Angle[i] != hal.Radians(float32(i)/10) || j.Temperature[i] != float64(30+float32(i)) ||
					j.Current[i] != float64(float32(i)/100) || j.TemperatureStatus[i] != uint8(i%4) || j.Stiffness[i] != 0.5 {
					t.Errorf("joint %v: %v %v %v %v %v", hal.Joint(i), j.Angle[i], j.Temperature[i], j.Current[i], j.TemperatureStatus[i], j.Stiffness[i])
				}
			}
		}},
		{"accelerometer negated into specific force, gyro raw", nil, nil, func(t *testing.T, st *state) {
			if st.imu.Accel != (hal.Vec3{X: -1, Y: 2, Z: 9.5}) {
				t.Errorf("accel %+v", st.imu.Accel)
			}
			if st.imu.Gyro != (hal.Vec3{X: float64(float32(0.1)), Y: float64(float32(-0.2)), Z: float64(float32(0.3))}) {
				t.Errorf("gyro %+v", st.imu.Gyro)
			}
		}},
		{"gyro z inverted", func(c *Config) { c.InvertGyroZ = true }, nil, func(t *testing.T, st *state) {
			if st.imu.Gyro.Z != -float64(float32(0.3)) || st.imu.Gyro.X != float64(float32(0.1)) {
				t.Errorf("gyro %+v", st.imu.Gyro)
			}
		}},
		{"body angles", nil, nil, func(t *testing.T, st *state) {
			if st.angles.Roll != hal.Radians(float32(0.05)) || st.angles.Pitch != hal.Radians(float32(-0.1)) {
				t.Errorf("angles %+v", st.angles)
			}
		}},
		{"sonar beyond max range is no echo", nil, nil, func(t *testing.T, st *state) {
			if !st.sonar.LeftValid || st.sonar.RightValid || st.sonar.Left != hal.Metres(float32(0.4)) || st.sonar.Right != 5 {
				t.Errorf("sonar %+v", st.sonar)
			}
		}},
		{"fsr per foot", nil, nil, func(t *testing.T, st *state) {
			if st.fsr.Left != [4]float64{1, 2, 3, 4} || st.fsr.Right != [4]float64{5, 6, 7, 8} {
				t.Errorf("fsr %+v", st.fsr)
			}
		}},
		{"touch above 0.5 pressed", nil, func(s *lola.Sensors) {
			s.Touch[0], s.Touch[3], s.Touch[9], s.Touch[13], s.Touch[5] = 1, 0.6, 1, 1, 0.5
		}, func(t *testing.T, st *state) {
			want := hal.Buttons(1<<hal.ChestButton | 1<<hal.HeadRear | 1<<hal.RFootBumperLeft | 1<<hal.RHandRight)
			if st.buttons != want {
				t.Errorf("buttons %014b, want %014b", st.buttons, want)
			}
		}},
		{"battery status-current (default), 0x80 set = charging", nil, nil, func(t *testing.T, st *state) {
			if st.battery != (hal.Battery{Charge: float64(float32(0.9)), Current: 0.25, Temperature: 30, Charging: true}) {
				t.Errorf("battery %+v", st.battery)
			}
		}},
		{"battery current-status", func(c *Config) { c.BatteryOrder = BatteryCurrentStatus }, func(s *lola.Sensors) {
			s.Battery[1], s.Battery[2] = 0.25, -32552
		}, func(t *testing.T, st *state) {
			if st.battery.Current != 0.25 || !st.battery.Charging {
				t.Errorf("battery %+v", st.battery)
			}
		}},
		{"Nao Devils charging: 0x20 clear", func(c *Config) { c.ChargingMask, c.ChargingWhenSet = 0x20, false }, nil, func(t *testing.T, st *state) {
			if !st.battery.Charging {
				t.Errorf("battery %+v: 0x80D8 has 0x20 clear, so charging", st.battery)
			}
		}},
		{"not charging", nil, func(s *lola.Sensors) { s.Battery[1] = 0x40 }, func(t *testing.T, st *state) {
			if st.battery.Charging {
				t.Errorf("battery %+v", st.battery)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			s := base()
			if tc.sensor != nil {
				tc.sensor(&s)
			}
			var st state
			convert(&cfg, &s, &st)
			tc.check(t, &st)
		})
	}
}

func TestFillActuators(t *testing.T) {
	var measured [hal.NumJoints]hal.Radians
	for i := range measured {
		measured[i] = hal.Radians(i) / 100
	}
	var jc hal.JointCommand
	for i := range jc.Angle {
		jc.Angle[i] = hal.Joint(i).Clamp(hal.Radians(i) / 50)
		jc.Stiffness[i] = 0.8
	}
	jc.Angle[hal.HeadPitch] = 3                        // beyond the limit
	jc.Stiffness[hal.LKneePitch] = 1.5                 // above 1
	jc.Angle[hal.RAnkleRoll] = hal.Radians(math.NaN()) // releases the joint
	var leds hal.LEDs
	leds.Chest = hal.RGB{R: 1, G: 0.5, B: -1}
	for i := range 10 {
		leds.LEar[i] = float64(i) / 10
		leds.REar[i] = float64(i) / 10
	}
	for i := range 8 {
		leds.LEye[i] = hal.RGB{R: float64(i) / 10, G: 0.5, B: 2}
		leds.REye[i] = hal.RGB{R: float64(i) / 10}
	}
	leds.Skull[11] = 0.7
	tests := []struct {
		name  string
		cmd   command
		jc    *hal.JointCommand
		check func(t *testing.T, a *lola.Actuators)
	}{
		{"targets clamped, stiffness 0..cap, NaN released", command{stiffnessCap: 1}, &jc, func(t *testing.T, a *lola.Actuators) {
			for i := range hal.NumJoints {
				wantP, wantS := float32(jc.Angle[i]), float32(0.8)
				switch hal.Joint(i) {
				case hal.HeadPitch:
					wantP = float32(hal.Joints[hal.HeadPitch].Max)
				case hal.LKneePitch:
					wantS = 1
				case hal.RAnkleRoll:
					wantP, wantS = float32(hal.Joint(i).Clamp(measured[i])), 0
				}
				if a.Position[i] != wantP || a.Stiffness[i] != wantS {
					t.Errorf("%v: %v/%v, want %v/%v", hal.Joint(i), a.Position[i], a.Stiffness[i], wantP, wantS)
				}
			}
		}},
		{"ramp caps stiffness", command{stiffnessCap: 0.25}, &jc, func(t *testing.T, a *lola.Actuators) {
			if a.Stiffness[hal.HeadYaw] != 0.25 || a.Stiffness[hal.LKneePitch] != 0.25 {
				t.Errorf("stiffness %v", a.Stiffness)
			}
		}},
		{"limp sends measured angles within the limits, stiffness 0", command{limp: true, stiffnessCap: 1}, &jc, func(t *testing.T, a *lola.Actuators) {
			for i := range hal.NumJoints {
				// LElbowRoll's 0.05 is beyond its limit -0.0349.
				if a.Position[i] != float32(hal.Joint(i).Clamp(measured[i])) || a.Stiffness[i] != 0 {
					t.Errorf("%v: %v/%v", hal.Joint(i), a.Position[i], a.Stiffness[i])
				}
			}
		}},
		{"no command yet is limp", command{stiffnessCap: 1}, nil, func(t *testing.T, a *lola.Actuators) {
			if a.Stiffness != [hal.NumJoints]float32{} || a.Position[4] != float32(measured[4]) || a.Position[5] != float32(hal.Joints[5].Max) {
				t.Errorf("stiffness %v position %v", a.Stiffness, a.Position)
			}
		}},
		{"LEDs in wire order", command{}, nil, func(t *testing.T, a *lola.Actuators) {
			if a.Chest != [3]float32{1, 0.5, 0} {
				t.Errorf("chest %v", a.Chest)
			}
			// LEar: index i at i·36°; REar runs 324°, 288°, …, 0°.
			for i := range 10 {
				if a.LEar[i] != float32(i)/10 || a.REar[i] != float32(9-i)/10 {
					t.Errorf("ear %d: %v %v", i, a.LEar[i], a.REar[i])
				}
			}
			// LEye blocks: 45°, 0°, 315°, 270°, 225°, 180°, 135°, 90°.
			lDeg := [8]int{45, 0, 315, 270, 225, 180, 135, 90}
			for k := range 8 {
				if want := float32(lDeg[k]/45) / 10; a.LEye[k] != want || a.LEye[8+k] != 0.5 || a.LEye[16+k] != 1 {
					t.Errorf("LEye slot %d: %v %v %v, want R %v", k, a.LEye[k], a.LEye[8+k], a.LEye[16+k], want)
				}
				if a.REye[k] != float32(k)/10 || a.REye[8+k] != 0 {
					t.Errorf("REye slot %d: %v", k, a.REye[k])
				}
			}
			if a.Skull[11] != 0.7 || a.Sonar != [2]bool{true, true} {
				t.Errorf("skull %v sonar %v", a.Skull, a.Sonar)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a lola.Actuators
			fillActuators(&a, tc.cmd, tc.jc, &measured, &leds, true)
			tc.check(t, &a)
		})
	}
}

func TestChestGesture(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	type ev struct {
		at      int // ms
		pressed bool
	}
	tests := []struct {
		name string
		n    int
		evs  []ev
		fire []int // indices of evs where the gesture completes
	}{
		{"three quick presses", 3, []ev{{0, true}, {100, false}, {200, true}, {300, false}, {400, true}}, []int{4}},
		{"holding is one press", 3, []ev{{0, true}, {100, true}, {200, true}, {300, true}}, nil},
		{"too slow", 3, []ev{{0, true}, {100, false}, {900, true}, {1000, false}, {1600, true}}, nil},
		{"slow start, then quick", 3, []ev{{0, true}, {100, false}, {2000, true}, {2100, false}, {2200, true}, {2300, false}, {2400, true}}, []int{6}},
		{"six presses fire twice", 3, []ev{{0, true}, {1, false}, {2, true}, {3, false}, {4, true}, {5, false}, {6, true}, {7, false}, {8, true}, {9, false}, {10, true}}, []int{4, 10}},
		{"off", 0, []ev{{0, true}, {1, false}, {2, true}, {3, false}, {4, true}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := chestGesture{n: tc.n, window: 1500 * time.Millisecond}
			var fired []int
			for i, e := range tc.evs {
				if g.update(e.pressed, ms(e.at)) {
					fired = append(fired, i)
				}
			}
			if len(fired) != len(tc.fire) {
				t.Fatalf("fired at %v, want %v", fired, tc.fire)
			}
			for i := range fired {
				if fired[i] != tc.fire[i] {
					t.Fatalf("fired at %v, want %v", fired, tc.fire)
				}
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
		err  string
	}{
		{"defaults", func(*Config) {}, ""},
		{"empty socket", func(c *Config) { c.Socket = "" }, `nao.socket: "": want 1..4096 bytes`},
		{"bad battery order", func(c *Config) { c.BatteryOrder = "current" }, `nao.battery_order: "current": want one of`},
		{"read timeout below period", func(c *Config) { c.ReadTimeout = c.Period / 2 }, "read_timeout"},
		{"max packet too small", func(c *Config) { c.MaxPacket = 100 }, "nao.max_packet: 100 is outside 896..1048576"},
		{"chest presses", func(c *Config) { c.ChestPresses = -1 }, "nao.chest_presses: -1 is outside 0..10"},
		{"no sonar range", func(c *Config) { c.SonarMaxRange = 0 }, "nao.sonar_max_range: 0 is outside"},
		{"chest window", func(c *Config) { c.ChestPresses, c.ChestWindow = 2, 0 }, "chest_window 0s must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mod(&c)
			err := c.Validate()
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
}
