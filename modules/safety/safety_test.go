package safety_test

import (
	"bytes"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/safety"
	"github.com/robotd/robotd/msg"
)

const period = 12 * time.Millisecond

type rig struct {
	t     *testing.T
	m     *safety.Module
	b     *blackboard.Board
	tickW *blackboard.Writer[hal.Tick]
	jW    *blackboard.Writer[hal.JointSensors]
	batW  *blackboard.Writer[hal.Battery]
	bsW   *blackboard.Writer[msg.BodySensors]
	gcW   *blackboard.Writer[msg.GameControl]
	out   *blackboard.Reader[msg.Safety]
	leds  *blackboard.Reader[hal.LEDs]
	seq   uint64
	// disconnected makes the next ticks ticks without the hardware: no
	// joint data comes.
	disconnected bool
	j            hal.JointSensors
	bat          hal.Battery
	bs           msg.BodySensors
	gc           msg.GameControl
	logbuf       bytes.Buffer
}

// must panics on a wiring error (a bug in the test).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func newRig(t *testing.T, cfg safety.Config) *rig {
	t.Helper()
	r := &rig{t: t}
	r.m = safety.New(cfg, slog.New(slog.NewTextHandler(&r.logbuf, nil)))
	b := blackboard.New()
	r.b = b
	r.tickW = must(blackboard.Write(b, "hal", msg.TickKey))
	r.jW = must(blackboard.Write(b, "hal", msg.JointsKey))
	r.batW = must(blackboard.Write(b, "hal", msg.BatteryKey))
	r.bsW = must(blackboard.Write(b, "perception", msg.BodySensorsKey))
	r.gcW = must(blackboard.Write(b, "gamecontroller", msg.GameControlKey))
	r.out = must(blackboard.Read(b, "motion", msg.SafetyKey))
	r.leds = must(blackboard.Read(b, "hal", msg.LEDsKey))
	if err := r.m.Wire(b); err != nil {
		t.Fatal(err)
	}
	r.j.Present, r.j.HasTemperature, r.j.HasCurrent = hal.AllJoints, true, true
	for i := range r.j.Temperature {
		r.j.Temperature[i] = 40
	}
	r.bat.Charge = 0.9
	return r
}

// tick publishes the inputs and runs the module once.
func (r *rig) tick() msg.Safety {
	r.t.Helper()
	r.seq++
	tk := hal.Tick{Seq: r.seq, Time: time.Duration(r.seq) * period, Period: period, Connected: !r.disconnected}
	r.b.BeginTick(tk.Seq, tk.Time)
	r.tickW.Set(tk)
	if !r.disconnected {
		r.jW.Set(r.j)
	}
	r.batW.Set(r.bat)
	r.bsW.Set(r.bs)
	r.gcW.Set(r.gc)
	if err := r.m.Tick(tk); err != nil {
		r.t.Fatal(err)
	}
	s, _ := r.out.Get()
	return s
}

func TestHotJoints(t *testing.T) {
	cfg := safety.DefaultConfig()
	for _, tc := range []struct {
		name    string
		heat    func(j *hal.JointSensors)
		ticks   int
		cap     float64
		hotLeg  bool
		counted bool
	}{
		{"cool", func(j *hal.JointSensors) { j.Temperature[hal.LKneePitch] = cfg.HotTemperature - 0.1 }, 1, 1, false, false},
		{"at the hot temperature", func(j *hal.JointSensors) { j.Temperature[hal.LKneePitch] = cfg.HotTemperature }, 1, cfg.HotStiffness, true, true},
		{"LoLA status hot", func(j *hal.JointSensors) { j.TemperatureStatus[hal.LKneePitch] = 1 }, 1, cfg.HotStiffness, true, true},
		{"LoLA status critical", func(j *hal.JointSensors) { j.TemperatureStatus[hal.LKneePitch] = 3 }, 1, 0, true, true},
		{"critical temperature", func(j *hal.JointSensors) { j.Temperature[hal.LKneePitch] = cfg.CriticalTemperature }, 1, 0, true, true},
		{"current, not long enough", func(j *hal.JointSensors) { j.Current[hal.LKneePitch] = cfg.MaxCurrent }, cfg.CurrentTicks - 1, 1, false, false},
		{"current held", func(j *hal.JointSensors) { j.Current[hal.LKneePitch] = cfg.MaxCurrent }, cfg.CurrentTicks, cfg.HotStiffness, true, true},
		{"hot arm", func(j *hal.JointSensors) { j.Temperature[hal.LShoulderPitch] = 80 }, 1, 1, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, cfg)
			r.tick()
			tc.heat(&r.j)
			var s msg.Safety
			for range tc.ticks {
				s = r.tick()
			}
			if s.StiffnessCap[hal.LKneePitch] != tc.cap || s.HotLeg != tc.hotLeg {
				t.Errorf("cap %v hot leg %v, want %v %v", s.StiffnessCap[hal.LKneePitch], s.HotLeg, tc.cap, tc.hotLeg)
			}
			if got := r.m.Count(safety.ActHotJoint) > 0; got != tc.counted {
				t.Errorf("hot_joint counted %v, want %v", got, tc.counted)
			}
			if s.StiffnessCap[hal.RKneePitch] != 1 {
				t.Errorf("a cool joint is capped at %v", s.StiffnessCap[hal.RKneePitch])
			}
		})
	}
}

// A hot joint cools only below the hysteresis band, and only once its
// readings have stayed there for CoolHold (after the temperature gone by,
// falling at most at MaxCoolingRate, got there); its log line is not
// repeated within LogEvery.
func TestHotJointHysteresisAndLogRate(t *testing.T) {
	cfg := safety.DefaultConfig()
	cfg.LogEvery = config.Duration(time.Hour)
	r := newRig(t, cfg)
	for range 5 {
		r.j.Temperature[hal.LKneePitch] = cfg.HotTemperature
		r.tick()
		r.j.Temperature[hal.LKneePitch] = cfg.HotTemperature - cfg.Hysteresis/2
		for range ticksIn(3 * cfg.CoolHold.D()) {
			if s := r.tick(); !s.Hot.Has(hal.LKneePitch) {
				t.Fatal("cooled inside the hysteresis band")
			}
		}
		r.j.Temperature[hal.LKneePitch] = cfg.HotTemperature - cfg.Hysteresis - 1
		// The fall from the band's middle out of it at MaxCoolingRate,
		// then CoolHold.
		least := time.Duration(cfg.Hysteresis / 2 / cfg.MaxCoolingRate * float64(time.Second))
		least += cfg.CoolHold.D()
		start := r.seq
		for {
			s := r.tick()
			if !s.Hot.Has(hal.LKneePitch) {
				if s.StiffnessCap[hal.LKneePitch] != 1 {
					t.Fatalf("cooled with cap %v", s.StiffnessCap[hal.LKneePitch])
				}
				break
			}
			if s.StiffnessCap[hal.LKneePitch] != cfg.HotStiffness {
				t.Fatalf("hot with cap %v", s.StiffnessCap[hal.LKneePitch])
			}
			if took := time.Duration(r.seq-start) * period; took > least+time.Second {
				t.Fatalf("still hot %v below the band", took)
			}
		}
		if took := time.Duration(r.seq-start) * period; took < least-period {
			t.Fatalf("cooled after %v below the band, want at least %v", took, least)
		}
	}
	if n := r.m.Count(safety.ActHotJoint); n != 5 {
		t.Errorf("hot_joint counted %d, want 5", n)
	}
	if n := strings.Count(r.logbuf.String(), "safety: hot_joint"); n != 1 {
		t.Errorf("%d hot_joint log lines within LogEvery, want 1:\n%s", n, r.logbuf.String())
	}
}

// ticksIn is the number of ticks that start within d of the first: a hold
// of d that starts on a tick is over on the tick after them.
func ticksIn(d time.Duration) int { return int((d + period - 1) / period) }

func TestBatteryButtonsAndLEDs(t *testing.T) {
	cfg := safety.DefaultConfig()
	r := newRig(t, cfg)
	if s := r.tick(); s.Sit || s.LowBattery {
		t.Fatalf("full battery: %+v", s)
	}
	r.bat.Charge = cfg.LowBattery
	if s := r.tick(); !s.Sit || !s.LowBattery {
		t.Fatalf("low battery: %+v", s)
	}
	if l, _ := r.leds.Get(); l.LEye[0] != (hal.RGB{R: 1}) || l.LEar[0] != 1 || l.LEar[2] != 0 {
		t.Errorf("low battery LEDs: eyes %v ears %v", l.LEye[0], l.LEar)
	}
	r.bat.Charge = cfg.LowBattery + cfg.BatteryHysteresis/2
	if s := r.tick(); !s.Sit {
		t.Fatal("a battery recovering inside the hysteresis band is no longer low")
	}
	r.bat.Charging = true
	for range ticksIn(cfg.BatteryHold.D()) {
		if s := r.tick(); !s.Sit {
			t.Fatal("stood up before charging held for battery_hold")
		}
	}
	if s := r.tick(); s.Sit {
		t.Fatal("still sitting while charging")
	}
	r.bat.Charging, r.bat.Charge = false, cfg.LowBattery/2
	if s := r.tick(); !s.Sit {
		t.Fatal("low again after charging stopped, not sitting")
	}

	// The head's three pads together: safe stop; held together again for
	// resume_hold: resume.
	r.bat.Charge = 0.9
	for range ticksIn(cfg.BatteryHold.D()) + 1 {
		r.tick()
	}
	if s := r.tick(); s.Sit {
		t.Fatalf("charged: %+v", s)
	}
	head := hal.Buttons(1<<hal.HeadFront | 1<<hal.HeadMiddle | 1<<hal.HeadRear)
	r.bs.Buttons, r.bs.Pressed = head, head
	if s := r.tick(); !s.SafeStop || !s.Sit {
		t.Fatalf("head touch: %+v", s)
	}
	r.bs.Pressed = 0
	for range 2 * ticksIn(cfg.ResumeHold.D()) {
		if s := r.tick(); !s.SafeStop {
			t.Fatal("holding the head on resumed")
		}
	}
	r.bs.Buttons = 1 << hal.HeadFront
	r.bs.Pressed = r.bs.Buttons
	if s := r.tick(); !s.SafeStop {
		t.Fatal("one pad resumed")
	}
	r.bs.Buttons, r.bs.Pressed = head, head&^(1<<hal.HeadFront)
	for range ticksIn(cfg.ResumeHold.D()) {
		if s := r.tick(); !s.SafeStop {
			t.Fatal("resumed before resume_hold")
		}
		r.bs.Pressed = 0
	}
	if s := r.tick(); s.SafeStop || s.Sit {
		t.Fatalf("head held again for resume_hold: %+v", s)
	}
	r.bs = msg.BodySensors{}

	// Chest button without a GameController: penalise, unpenalise; chest
	// LED red while penalised.
	r.bs.ChestPresses = 1
	if s := r.tick(); !s.Penalised {
		t.Fatal("one chest press did not penalise")
	}
	r.bs.ChestPresses = 0
	if l, _ := r.leds.Get(); l.Chest != (hal.RGB{R: 1}) {
		t.Errorf("penalised chest %v", l.Chest)
	}
	r.bs.ChestPresses = 3 // the backend's limp gesture, not a penalty
	if s := r.tick(); !s.Penalised {
		t.Fatal("three presses toggled the penalty")
	}
	r.bs.ChestPresses = 1
	if s := r.tick(); s.Penalised {
		t.Fatal("a second press did not unpenalise")
	}
	r.bs.ChestPresses = 0
	// With a GameController the chest button does not penalise, and the
	// chest shows the game state (SPL rules: READY blue, SET yellow,
	// PLAYING green).
	r.gc = msg.GameControl{Source: msg.GameSourceGameController, State: msg.StateReady, OurKickOff: true}
	r.bs.ChestPresses = 1
	if s := r.tick(); s.Penalised {
		t.Fatal("the chest button penalised under a GameController")
	}
	r.bs.ChestPresses = 0
	for _, tc := range []struct {
		state       msg.GameStateKind
		chest, foot hal.RGB
	}{
		{msg.StateInitial, hal.RGB{}, hal.RGB{R: 1, G: 1, B: 1}},
		{msg.StateReady, hal.RGB{B: 1}, hal.RGB{R: 1, G: 1, B: 1}},
		{msg.StateSet, hal.RGB{R: 1, G: 1}, hal.RGB{R: 1, G: 1, B: 1}},
		{msg.StatePlaying, hal.RGB{G: 1}, hal.RGB{}},
		{msg.StateFinished, hal.RGB{}, hal.RGB{}},
	} {
		r.gc.State = tc.state
		r.tick()
		if l, _ := r.leds.Get(); l.Chest != tc.chest || l.RFoot != tc.foot {
			t.Errorf("%v: chest %v right foot %v, want %v %v", tc.state, l.Chest, l.RFoot, tc.chest, tc.foot)
		}
	}
	r.gc.Penalised = true
	r.tick()
	if l, _ := r.leds.Get(); l.Chest != (hal.RGB{R: 1}) {
		t.Errorf("penalised by the GameController: chest %v", l.Chest)
	}
	for a, want := range map[safety.Action]uint64{safety.ActLowBattery: 2, safety.ActSafeStop: 1, safety.ActPenalise: 1, safety.ActUnpenalise: 1} {
		if n := r.m.Count(a); n != want {
			t.Errorf("%v counted %d, want %d", a, n, want)
		}
	}
}

func TestFalling(t *testing.T) {
	r := newRig(t, safety.DefaultConfig())
	r.bs.Falling, r.bs.FallDirection = true, msg.FallenFront
	if s := r.tick(); !s.Falling || s.FallStiffness != 0.1 {
		t.Fatalf("falling: %+v", s)
	}
	r.bs.Falling = false
	if s := r.tick(); s.Falling {
		t.Fatal("still falling")
	}
	if n := r.m.Count(safety.ActFall); n != 1 {
		t.Errorf("fall counted %d", n)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(c *safety.Config)
		want string
	}{
		{"defaults", func(*safety.Config) {}, ""},
		{"hot", func(c *safety.Config) { c.HotTemperature = 200 }, "safety.hot_temperature"},
		{"critical below hot", func(c *safety.Config) { c.CriticalTemperature = 60 }, "safety.critical_temperature"},
		{"status", func(c *safety.Config) { c.HotStatus = 4 }, "safety.hot_status"},
		{"stiffness", func(c *safety.Config) { c.HotStiffness = 2 }, "safety.hot_stiffness"},
		{"battery", func(c *safety.Config) { c.LowBattery = -1 }, "safety.low_battery"},
		{"current", func(c *safety.Config) { c.CurrentTicks = 0 }, "safety.current_ticks"},
		{"cool hold", func(c *safety.Config) { c.CoolHold = 0 }, "safety.cool_hold"},
		{"resume hold", func(c *safety.Config) { c.ResumeHold = config.Duration(time.Hour) }, "safety.resume_hold"},
		{"battery hold", func(c *safety.Config) { c.BatteryHold = config.Duration(50 * time.Millisecond) }, "safety.battery_hold"},
		{"min temperature", func(c *safety.Config) { c.MinTemperature = -60 }, "safety.min_temperature"},
		{"min temperature in the band", func(c *safety.Config) { c.MinTemperature = 40; c.HotTemperature = 42 }, "want below hot_temperature-hysteresis"},
		{"max temperature", func(c *safety.Config) { c.MaxTemperature = 80 }, "safety.max_temperature"},
		{"max temperature NaN", func(c *safety.Config) { c.MaxTemperature = math.NaN() }, "safety.max_temperature"},
		{"cooling rate", func(c *safety.Config) { c.MaxCoolingRate = 0 }, "safety.max_cooling_rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := safety.DefaultConfig()
			tc.mod(&c)
			err := c.Validate()
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// A tick allocates nothing.
func TestTickAllocatesNothing(t *testing.T) {
	r := newRig(t, safety.DefaultConfig())
	r.j.Temperature[hal.LKneePitch] = 90
	r.tick()
	tk := hal.Tick{Seq: 1, Time: period, Connected: true}
	if n := testing.AllocsPerRun(100, func() { _ = r.m.Tick(tk) }); n != 0 {
		t.Errorf("%v allocations per tick", n)
	}
}
