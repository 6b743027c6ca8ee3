package safety_test

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/safety"
	"github.com/robotd/robotd/msg"
)

// TestGlitchNeverRaisesACap: a joint that is hot (cap HotStiffness) or
// critical (cap 0) keeps its cap on every tick while its readings glitch:
// single packets or flickers of implausible, cold or NaN temperatures,
// of a lower LoLA status, of no current; a current over MaxCurrent either
// way makes a joint hot.
func TestGlitchNeverRaisesACap(t *testing.T) {
	cfg := safety.DefaultConfig()
	const j = hal.LKneePitch
	temp := func(v float64) func(*hal.JointSensors) { return func(s *hal.JointSensors) { s.Temperature[j] = v } }
	status := func(v uint8) func(*hal.JointSensors) { return func(s *hal.JointSensors) { s.TemperatureStatus[j] = v } }
	current := func(v float64) func(*hal.JointSensors) { return func(s *hal.JointSensors) { s.Current[j] = v } }
	once := func(f func(*hal.JointSensors)) func(int, *hal.JointSensors) {
		return func(i int, s *hal.JointSensors) {
			if i == 0 {
				f(s)
			}
		}
	}
	everyOther := func(f func(*hal.JointSensors)) func(int, *hal.JointSensors) {
		return func(i int, s *hal.JointSensors) {
			if i%2 == 0 {
				f(s)
			}
		}
	}
	for _, tc := range []struct {
		name   string
		base   func(*hal.JointSensors)
		glitch func(i int, s *hal.JointSensors)
		cap    float64
	}{
		{"80 °C, one packet at -40 °C", temp(80), once(temp(-40)), cfg.HotStiffness},
		{"80 °C, one packet at 0 °C", temp(80), once(temp(0)), cfg.HotStiffness},
		{"80 °C, one packet at 20 °C", temp(80), once(temp(20)), cfg.HotStiffness},
		{"80 °C, every other packet -40..0 °C", temp(80), func(i int, s *hal.JointSensors) {
			if i%2 == 0 {
				s.Temperature[j] = -40 + float64(i%41)
			}
		}, cfg.HotStiffness},
		{"80 °C, every other packet NaN", temp(80), everyOther(temp(math.NaN())), cfg.HotStiffness},
		{"90 °C, one packet at -40 °C", temp(90), once(temp(-40)), 0},
		{"90 °C, one packet at 0 °C", temp(90), once(temp(0)), 0},
		{"90 °C, every other packet at 30 °C", temp(90), everyOther(temp(30)), 0},
		{"90 °C, 40 °C for half of cool_hold", temp(90), func(i int, s *hal.JointSensors) {
			if i < ticksIn(cfg.CoolHold.D()/2) {
				s.Temperature[j] = 40
			}
		}, 0},
		{"90 °C, every other packet at 1000 °C", temp(90), everyOther(temp(1000)), 0},
		{"status critical, one packet normal", status(3), once(status(0)), 0},
		{"status hot, flickering to normal", status(1), everyOther(status(0)), cfg.HotStiffness},
		{"current held, one packet without", current(cfg.MaxCurrent + 0.5), once(current(0)), cfg.HotStiffness},
		{"negative current held", current(-cfg.MaxCurrent - 0.5), func(int, *hal.JointSensors) {}, cfg.HotStiffness},
		{"negative current held, one packet NaN", current(-cfg.MaxCurrent - 0.5), once(current(math.NaN())), cfg.HotStiffness},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, cfg)
			base := r.j
			tc.base(&base)
			r.j = base
			var s msg.Safety
			for range cfg.CurrentTicks + 1 {
				s = r.tick()
			}
			if s.StiffnessCap[j] != tc.cap {
				t.Fatalf("before the glitch: cap %v, want %v", s.StiffnessCap[j], tc.cap)
			}
			for i := range 2 * ticksIn(cfg.CoolHold.D()) {
				r.j = base
				tc.glitch(i, &r.j)
				s = r.tick()
				if s.StiffnessCap[j] != tc.cap || !s.Hot.Has(j) || !s.HotLeg {
					t.Fatalf("glitch tick %d (temperature %v, status %d, current %v): cap %v hot %v, want cap %v",
						i, r.j.Temperature[j], r.j.TemperatureStatus[j], r.j.Current[j], s.StiffnessCap[j], s.Hot.Has(j), tc.cap)
				}
			}
			if n := r.m.Count(safety.ActJointCooled); n != 0 {
				t.Errorf("joint_cooled counted %d", n)
			}
		})
	}
}

// TestJointCoolsAfterHold: the holds delay a cap's rise, they do not stop
// it: a joint whose readings really fell gets its stiffness back once the
// temperature gone by (falling at most at MaxCoolingRate) is below the
// band and CoolHold has passed, and no sooner; on the way its cap only
// rises.
func TestJointCoolsAfterHold(t *testing.T) {
	cfg := safety.DefaultConfig()
	const j = hal.RHipPitch
	rate := func(from, to float64) time.Duration {
		return time.Duration((from - to) / cfg.MaxCoolingRate * float64(time.Second))
	}
	hold := cfg.CoolHold.D()
	for _, tc := range []struct {
		name     string
		from     func(*hal.JointSensors)
		to       func(*hal.JointSensors)
		from1    int // ticks of from
		cap0     float64
		min, max time.Duration // when the cap is 1 again, after from
	}{
		{"90 °C to 40 °C", func(s *hal.JointSensors) { s.Temperature[j] = 90 }, func(s *hal.JointSensors) { s.Temperature[j] = 40 }, 10, 0,
			rate(90, cfg.HotTemperature-cfg.Hysteresis) + hold - period, rate(90, cfg.HotTemperature-cfg.Hysteresis) + 2*hold + 2*period},
		{"one packet at 149 °C", func(s *hal.JointSensors) { s.Temperature[j] = 149 }, func(s *hal.JointSensors) { s.Temperature[j] = 40 }, 1, 0,
			rate(149, cfg.HotTemperature-cfg.Hysteresis) + hold - period, rate(149, cfg.HotTemperature-cfg.Hysteresis) + 2*hold + 2*period},
		{"one packet of status critical", func(s *hal.JointSensors) { s.TemperatureStatus[j] = 3 }, func(s *hal.JointSensors) {}, 1, 0,
			hold - period, hold + 2*period},
		{"current over max_current, then none", func(s *hal.JointSensors) { s.Current[j] = -3 }, func(s *hal.JointSensors) {}, cfg.CurrentTicks, cfg.HotStiffness,
			hold - period, hold + 2*period},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, cfg)
			base := r.j
			tc.from(&r.j)
			var s msg.Safety
			for range tc.from1 {
				s = r.tick()
			}
			if s.StiffnessCap[j] != tc.cap0 {
				t.Fatalf("cap %v, want %v", s.StiffnessCap[j], tc.cap0)
			}
			r.j = base
			tc.to(&r.j)
			last := s.StiffnessCap[j]
			start := r.seq
			for s.StiffnessCap[j] != 1 {
				s = r.tick()
				if s.StiffnessCap[j] < last {
					t.Fatalf("the cap fell from %v to %v while cooling", last, s.StiffnessCap[j])
				}
				last = s.StiffnessCap[j]
				if took := time.Duration(r.seq-start) * period; took > tc.max {
					t.Fatalf("cap %v after %v, want 1 by %v", s.StiffnessCap[j], took, tc.max)
				}
			}
			if took := time.Duration(r.seq-start) * period; took < tc.min {
				t.Fatalf("cap 1 after %v, want no sooner than %v", took, tc.min)
			}
		})
	}
}

// TestSitHolds: a safe stop and a low-battery sit start on the tick they
// are seen, and end only on a release seen without a break for a hold
// time: head pads or a charging flag that flicker, however fast, do not
// make the robot stand up and sit down again, and a single 12 ms touch of
// the head does not end a safe stop.
func TestSitHolds(t *testing.T) {
	cfg := safety.DefaultConfig()
	head := hal.Buttons(1<<hal.HeadFront | 1<<hal.HeadMiddle | 1<<hal.HeadRear)
	pads := func(on bool) func(int, *rig) {
		return func(_ int, r *rig) {
			b := hal.Buttons(0)
			if on {
				b = head
			}
			// Pressed as perception derives it: went down this tick.
			r.bs.Buttons, r.bs.Pressed = b, b&^r.bs.Buttons
		}
	}
	flicker := func(i int, r *rig) { pads(i%2 == 0)(i, r) }
	battery := func(charge float64, charging bool) func(int, *rig) {
		return func(_ int, r *rig) { r.bat.Charge, r.bat.Charging = charge, charging }
	}
	type phase struct {
		ticks int
		set   func(i int, r *rig)
	}
	second := ticksIn(time.Second)
	resume := ticksIn(cfg.ResumeHold.D())
	for _, tc := range []struct {
		name    string
		phases  []phase
		changes int // of Sit
		sit     bool
	}{
		{"pads flickering at 42 Hz", []phase{{2 * second, flicker}}, 1, true},
		{"pads flickering at 42 Hz in a safe stop", []phase{{1, pads(true)}, {5, pads(false)}, {2 * second, flicker}}, 1, true},
		{"one 12 ms touch in a safe stop", []phase{{1, pads(true)}, {5, pads(false)}, {1, pads(true)}, {second, pads(false)}}, 1, true},
		{"pads held on from the stopping touch", []phase{{2 * second, pads(true)}}, 1, true},
		{"pads held a tick short of resume_hold", []phase{{1, pads(true)}, {5, pads(false)}, {resume, pads(true)}, {second, pads(false)}}, 1, true},
		{"pads held for resume_hold", []phase{{1, pads(true)}, {5, pads(false)}, {resume + 1, pads(true)}, {second, pads(false)}}, 2, false},
		{"charging flag flickering at low battery", []phase{{2 * second, func(i int, r *rig) { battery(cfg.LowBattery/2, i%2 == 0)(i, r) }}}, 1, true},
		{"charge flickering above the band at low battery", []phase{{2 * second, func(i int, r *rig) {
			battery([]float64{cfg.LowBattery / 2, 0.9}[i%2], false)(i, r)
		}}}, 1, true},
		{"charging at low battery, then not for one packet", []phase{
			{2 * second, battery(cfg.LowBattery/2, true)}, {1, battery(cfg.LowBattery/2, false)}, {3 * second, battery(cfg.LowBattery/2, true)}}, 4, false},
		{"charging at low battery for battery_hold", []phase{
			{1, battery(cfg.LowBattery/2, false)}, {ticksIn(cfg.BatteryHold.D()) + 1, battery(cfg.LowBattery/2, true)}}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, cfg)
			sit, changes := false, 0
			for _, p := range tc.phases {
				for i := range p.ticks {
					p.set(i, r)
					if s := r.tick(); s.Sit != sit {
						sit = s.Sit
						changes++
					}
				}
			}
			if changes != tc.changes || sit != tc.sit {
				t.Errorf("sit changed %d times, sitting %v at the end; want %d, %v", changes, sit, tc.changes, tc.sit)
			}
		})
	}
}

// TestFirstReadingsImplausible: a joint whose first temperature readings
// are all implausible (a robot's first maps glitching) gets no stiffness
// until one is plausible; then a cool joint gets all of it on that tick
// and a hot one its cap.
func TestFirstReadingsImplausible(t *testing.T) {
	cfg := safety.DefaultConfig()
	const j = hal.LKneePitch
	for _, tc := range []struct {
		name         string
		glitch, then float64
		cap          float64
	}{
		{"-40 °C, then 40 °C", -40, 40, 1},
		{"NaN, then 40 °C", math.NaN(), 40, 1},
		{"1000 °C, then 80 °C", 1000, 80, cfg.HotStiffness},
		{"-40 °C, then 90 °C", -40, 90, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, cfg)
			r.j.Temperature[j] = tc.glitch
			for i := range 5 {
				if s := r.tick(); s.StiffnessCap[j] != 0 {
					t.Fatalf("glitching tick %d: cap %v, want 0", i, s.StiffnessCap[j])
				}
			}
			if s := r.tick(); s.StiffnessCap[hal.RKneePitch] != 1 {
				t.Fatalf("the other knee, read at 40 °C: cap %v, want 1", s.StiffnessCap[hal.RKneePitch])
			}
			r.j.Temperature[j] = tc.then
			if s := r.tick(); s.StiffnessCap[j] != tc.cap {
				t.Fatalf("first plausible reading %v °C: cap %v, want %v", tc.then, s.StiffnessCap[j], tc.cap)
			}
		})
	}
}

// TestNoStiffnessWhileUnknown: a tick without the hardware (before its
// first sensor data, or with it gone) gives a joint that has had no
// plausible reading no stiffness, whether or not the hardware reports
// temperatures; a connected tick from hardware without temperature
// sensors (the simulator) gives it full stiffness; after a connected
// tick, a joint read as cool, or one without a sensor, keeps its
// stiffness through a disconnected tick.
func TestNoStiffnessWhileUnknown(t *testing.T) {
	const j = hal.LKneePitch
	for _, sensor := range []bool{true, false} {
		r := newRig(t, safety.DefaultConfig())
		r.j.HasTemperature = sensor
		r.disconnected = true
		for i := range 3 {
			if s := r.tick(); s.StiffnessCap[j] != 0 {
				t.Fatalf("temperature sensor %v, disconnected tick %d before any reading: cap %v, want 0", sensor, i, s.StiffnessCap[j])
			}
		}
		r.disconnected = false
		if s := r.tick(); s.StiffnessCap[j] != 1 {
			t.Fatalf("temperature sensor %v, connected at %v °C: cap %v, want 1", sensor, r.j.Temperature[j], s.StiffnessCap[j])
		}
		r.disconnected = true
		if s := r.tick(); s.StiffnessCap[j] != 1 {
			t.Fatalf("temperature sensor %v, disconnected after a connected tick: cap %v, want 1", sensor, s.StiffnessCap[j])
		}
	}
}
