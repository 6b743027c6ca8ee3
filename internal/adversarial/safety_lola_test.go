package adversarial

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/nao"
	"github.com/robotd/robotd/backends/nao/naotest"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/modules/safety"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/lola"
	"github.com/robotd/robotd/robot"
)

// safetyProbe is a module that reads the safety verdict on every tick,
// after the safety module: how often Sit changed, and each joint's
// highest stiffness cap from skipFirst ticks on.
type safetyProbe struct {
	skipFirst int
	in        *blackboard.Reader[msg.Safety]

	mu         sync.Mutex
	ticks      int
	sit        bool
	sitChanges int
	maxCap     [hal.NumJoints]float64
	last       msg.Safety
}

func (p *safetyProbe) Name() string { return "safety-probe" }

func (p *safetyProbe) Wire(b *blackboard.Board) error {
	var err error
	p.in, err = blackboard.Read(b, p.Name(), msg.SafetyKey)
	return err
}

func (p *safetyProbe) Tick(hal.Tick) error {
	s, meta := p.in.Get()
	if !meta.Valid() {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ticks++
	if s.Sit != p.sit {
		p.sit = s.Sit
		p.sitChanges++
	}
	if p.ticks > p.skipFirst {
		for j, c := range s.StiffnessCap {
			p.maxCap[j] = max(p.maxCap[j], c)
		}
	}
	p.last = s
	return nil
}

// result returns the probe's counts.
func (p *safetyProbe) result() (ticks, sitChanges int, maxCap [hal.NumJoints]float64, last msg.Safety) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ticks, p.sitChanges, p.maxCap, p.last
}

// upright makes a sensor map a robot standing upright on both feet: the
// real sample's joints and battery, a level torso (LoLA's accelerometer
// reads the gravity vector, protocols.md §1.2), weight on the FSRs, no
// button touched.
func upright(s *lola.Sensors) {
	s.Angles = [2]float32{}
	s.Accelerometer = [3]float32{0, 0, -9.81}
	s.Gyroscope = [3]float32{}
	for i := range s.FSR {
		s.FSR[i] = 0.7
	}
	for i := range s.Touch {
		s.Touch[i] = 0
	}
	for i := range s.Status {
		s.Status[i] = 0
	}
	for i := range s.Current {
		s.Current[i] = 0
	}
	for i := range s.Temperature {
		s.Temperature[i] = 40
	}
}

// batteryStatus is the NAO v6 battery status word as LoLA sends it (a
// float, read as int16): 0x80D8, the real sample's, has B-Human's
// charging bit 0x80 set (the NAO backend's default ChargingMask);
// 0x8058 is the same word with it clear.
var batteryStatus = map[bool]float32{true: float32(int16(-0x7F28)), false: float32(int16(-0x7FA8))}

// TestSafetyThroughLoLA runs the NAO daemon's modules (perception,
// safety, motion, ...) on the NAO backend against a fake LoLA whose
// sensor maps, real msgpack through the backend's codec and plausibility
// check, carry glitching joint temperatures and statuses, a current
// beyond max_current the negative way, and head pads or a charging flag
// that flicker with every map. No actuator map gives a hot joint more
// than its cap, and the robot does not stand up and sit down again.
func TestSafetyThroughLoLA(t *testing.T) {
	cfg := safety.DefaultConfig()
	const knee = hal.LKneePitch
	const maps = 400
	noSit := -1 // no limit on Sit's changes
	for _, tc := range []struct {
		name   string
		script func(seq uint64, s *lola.Sensors)
		// cap is the most knee stiffness from command capFrom on (-1: not
		// checked).
		cap     float64
		capFrom int
		// sitChanges is the most changes of Sit (-1: not checked).
		sitChanges int
	}{
		{"knee at 80 °C, every 5th map -40..0 °C", func(seq uint64, s *lola.Sensors) {
			s.Temperature[knee] = 80
			if seq%5 == 0 {
				s.Temperature[knee] = -40 + float32(seq%41)
			}
		}, cfg.HotStiffness, 0, noSit},
		{"knee at 90 °C, every 5th map -40..0 °C", func(seq uint64, s *lola.Sensors) {
			s.Temperature[knee] = 90
			if seq%5 == 0 {
				s.Temperature[knee] = -40 + float32(seq%41)
			}
		}, 0, 0, noSit},
		{"knee status critical, every other map normal", func(seq uint64, s *lola.Sensors) {
			s.Status[knee] = 3 * uint8(seq%2)
		}, 0, 1, noSit},
		{"knee current -3 A", func(seq uint64, s *lola.Sensors) {
			s.Current[knee] = -float32(cfg.MaxCurrent) - 0.5
		}, cfg.HotStiffness, cfg.CurrentTicks + 10, noSit},
		{"head pads flickering with every map", func(seq uint64, s *lola.Sensors) {
			for i := 1; i <= 3; i++ { // Touch 1-3: head front, middle, rear (§1.3)
				s.Touch[i] = float32(seq % 2)
			}
		}, -1, 0, 1},
		{"charging flag flickering at low battery", func(seq uint64, s *lola.Sensors) {
			s.Battery[0] = float32(cfg.LowBattery / 2)
			s.Battery[1] = batteryStatus[seq%2 == 0]
		}, -1, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer leaktest.Check(t)()
			sock := sockPath(t)
			srv, err := naotest.Start(context.Background(), sock, naotest.Options{LockStep: true,
				Script: func(seq uint64, s *lola.Sensors) { upright(s); tc.script(seq, s) }})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			dev, err := nao.New(naoConfig(sock), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			probe := &safetyProbe{skipFirst: tc.capFrom}
			d := startDaemon(t, dev, robot.Legs, probe)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := srv.WaitCommands(ctx, maps); err != nil {
				t.Fatalf("%d maps sent: %v", srv.Sent(), err)
			}
			d.stop(t)
			cmds := srv.Commands()
			checkCommands(t, cmds)
			ticks, sitChanges, maxCap, last := probe.result()
			if ticks < maps/2 {
				t.Fatalf("the probe saw %d ticks of %d maps", ticks, srv.Sent())
			}
			if tc.cap >= 0 {
				asked := float32(0) // the most any other leg joint got
				for i, c := range cmds {
					asked = max(asked, c.Act.Stiffness[hal.RKneePitch])
					if i >= tc.capFrom && c.Act.Stiffness[knee] > float32(tc.cap) {
						t.Fatalf("command %d (answering map %d): knee stiffness %v, want at most %v", i, c.Seq, c.Act.Stiffness[knee], tc.cap)
					}
				}
				if asked <= float32(tc.cap) {
					t.Fatalf("motion asked for no more than %v: the test proves nothing", asked)
				}
				if maxCap[knee] > tc.cap || last.StiffnessCap[knee] != tc.cap {
					t.Errorf("knee cap up to %v, last %v; want %v", maxCap[knee], last.StiffnessCap[knee], tc.cap)
				}
			}
			if tc.sitChanges >= 0 && (sitChanges > tc.sitChanges || !last.Sit) {
				t.Errorf("Sit changed %d times in %d ticks, sitting %v at the end; want at most %d, sitting", sitChanges, ticks, last.Sit, tc.sitChanges)
			}
			t.Logf("%d maps, %d commands, %d ticks, Sit changed %d times", srv.Sent(), len(cmds), ticks, sitChanges)
		})
	}
}
