package robot_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/backends/nao"
	"github.com/robotd/robotd/backends/nao/naotest"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/gamecontroller"
	"github.com/robotd/robotd/proto/lola"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
)

// naoRig is robotd's modules on the real NAO backend against the fake LoLA,
// in lock step: every sensor map waits for the answer to the previous one,
// so the command answering map n is the robot's reaction to it.
type naoRig struct {
	t      *testing.T
	srv    *naotest.Server
	safety *blackboard.Reader[msg.Safety]
	motion *blackboard.Reader[msg.MotionState]
	team   *blackboard.Reader[msg.TeamOut]

	// script changes the maps from a sequence number on; set before the
	// map is sent (under mu).
	mu     sync.Mutex
	edits  []edit
	cmds   []naotest.Command
	change chan struct{}
	seq    atomic.Uint64 // the last map sent
}

type edit struct {
	from, to uint64 // maps [from, to); to 0: for ever
	f        func(s *lola.Sensors)
}

func newNAORig(t *testing.T, gc ...*fakeGC) *naoRig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	dir, err := os.MkdirTemp("", "robotd-safety")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	r := &naoRig{t: t, change: make(chan struct{})}
	sample, err := naotest.Sample()
	if err != nil {
		t.Fatal(err)
	}
	// Upright, still, cool, full battery (status word 0: not charging), no
	// buttons.
	sample.Angles = [2]float32{0, 0}
	sample.Accelerometer = [3]float32{0, 0, -9.81}
	sample.Gyroscope = [3]float32{}
	sample.Battery = [4]float32{0.9, 0, 0, 30}
	for i := range sample.Temperature {
		sample.Temperature[i], sample.Status[i], sample.Current[i] = 40, 0, 0.1
	}
	sample.Touch = [14]float32{}
	r.srv, err = naotest.Start(ctx, filepath.Join(dir, "robocup"), naotest.Options{
		LockStep: true, Sensors: &sample, EchoStiffness: true,
		Script: func(seq uint64, s *lola.Sensors) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.seq.Store(seq)
			for _, e := range r.edits {
				if seq >= e.from && (e.to == 0 || seq < e.to) {
					e.f(s)
				}
			}
		},
		OnCommand: func(c *naotest.Command) {
			r.mu.Lock()
			r.cmds = append(r.cmds, *c)
			close(r.change)
			r.change = make(chan struct{})
			r.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.srv.Close() })
	cfg := nao.DefaultConfig()
	cfg.Socket = r.srv.Path()
	cfg.StiffnessRamp.UnmarshalJSON([]byte(`"1ns"`))
	dev, err := nao.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	rcfg := robot.DefaultConfig()
	robot.Identify(&rcfg, 1, 1)
	met, err := runner.NewMetrics(prometheus.NewRegistry(), dev)
	if err != nil {
		t.Fatal(err)
	}
	board := blackboard.New()
	run := runner.New(rcfg.Runner, dev, board, slog.New(slog.DiscardHandler), met)
	run.Add(robot.ModulesFor(&rcfg, robot.Legs)...)
	for _, src := range gc {
		run.Add(gamecontroller.NewModule(gamecontroller.ModuleConfig{Team: 1, Player: 1, Timeout: config.Duration(time.Hour),
			TwoSourcesHold: config.Duration(time.Second), HalfLength: config.Duration(10 * time.Minute)}, src, slog.New(slog.DiscardHandler)))
	}
	if r.safety, err = blackboard.ReadOptional(board, "test", msg.SafetyKey); err != nil {
		t.Fatal(err)
	}
	if r.motion, err = blackboard.ReadOptional(board, "test", msg.MotionStateKey); err != nil {
		t.Fatal(err)
	}
	if r.team, err = blackboard.ReadOptional(board, "test", msg.TeamOutKey); err != nil {
		t.Fatal(err)
	}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- run.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		dev.Close()
	})
	return r
}

// from applies f to every map from the next one on (until to maps later, if
// to > 0) and returns the first map's number.
func (r *naoRig) from(to uint64, f func(s *lola.Sensors)) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	// The script records the map's number and reads the edits under mu:
	// the next map is the one after the last it saw.
	next := r.seq.Load() + 1
	e := edit{from: next, f: f}
	if to > 0 {
		e.to = next + to
	}
	r.edits = append(r.edits, e)
	return next
}

// await waits until cond holds for a command and returns it.
func (r *naoRig) await(what string, cond func(c *naotest.Command) bool) naotest.Command {
	r.t.Helper()
	deadline := time.After(30 * time.Second)
	i := 0
	for {
		r.mu.Lock()
		for ; i < len(r.cmds); i++ {
			if cond(&r.cmds[i]) {
				c := r.cmds[i]
				r.mu.Unlock()
				return c
			}
		}
		ch := r.change
		r.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			r.t.Fatalf("timed out waiting for a command where %s (%d commands)", what, i)
		}
	}
}

// answering returns the command answering map seq.
func (r *naoRig) answering(seq uint64) naotest.Command {
	r.t.Helper()
	return r.await("it answers a later map", func(c *naotest.Command) bool { return c.Seq >= seq })
}

// fakeGC is a GameController that says PLAYING for team 1.
type fakeGC struct{}

func (fakeGC) Latest() (gamecontroller.Data, time.Time, *net.UDPAddr, bool) {
	d := gamecontroller.Data{Version: 18, PlayersPerTeam: 5, State: gamecontroller.StatePlaying, FirstHalf: true, SecsRemaining: 600}
	d.Teams[0].TeamNumber, d.Teams[1].TeamNumber = 1, 2
	return d, time.Now(), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 3838}, true
}

func (fakeGC) Stats() gamecontroller.ClientStats { return gamecontroller.ClientStats{} }

func standing(c *naotest.Command) bool {
	return c.Act.Stiffness[hal.LKneePitch] >= 0.5 && c.Act.Stiffness[hal.RKneePitch] >= 0.5
}

// TestSafetyHotJointOnLoLA: a knee reported at the hot threshold (75 °C)
// loses its stiffness in the command that answers that very map; the other
// joints keep theirs and the robot keeps standing.
func TestSafetyHotJointOnLoLA(t *testing.T) {
	for _, tc := range []struct {
		name string
		heat func(s *lola.Sensors)
		cap  float32
	}{
		{"temperature", func(s *lola.Sensors) { s.Temperature[hal.LKneePitch] = 75 }, 0.3},
		{"status hot", func(s *lola.Sensors) { s.Status[hal.LKneePitch] = 1 }, 0.3},
		{"critical", func(s *lola.Sensors) { s.Temperature[hal.LKneePitch] = 85 }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newNAORig(t)
			r.await("the robot stands", standing)
			seq := r.from(0, tc.heat)
			c := r.answering(seq)
			if c.Seq != seq {
				t.Fatalf("first command after heating answers map %d, want %d", c.Seq, seq)
			}
			if s := c.Act.Stiffness[hal.LKneePitch]; s > tc.cap {
				t.Fatalf("LKneePitch stiffness %v in the answer to the first hot map, want <= %v", s, tc.cap)
			}
			if s := c.Act.Stiffness[hal.RKneePitch]; s < 0.5 {
				t.Errorf("RKneePitch stiffness %v: the cool joints should keep theirs", s)
			}
			for range 50 {
				c = r.answering(c.Seq + 1)
				if s := c.Act.Stiffness[hal.LKneePitch]; s > tc.cap || c.Act.Stiffness[hal.RKneePitch] < 0.5 {
					t.Fatalf("map %d: LKneePitch %v RKneePitch %v", c.Seq, s, c.Act.Stiffness[hal.RKneePitch])
				}
			}
			if st, _ := r.motion.Get(); st.Active != msg.MotionStand {
				t.Errorf("motion %v, want stand", st.Active)
			}
		})
	}
}

// TestSafetyLowBatteryOnLoLA: playing, at 5 % charge, not charging, the
// robot sits down (knees bent to the sit pose, with stiffness), then goes
// limp, and its team message says it is out of play.
func TestSafetyLowBatteryOnLoLA(t *testing.T) {
	r := newNAORig(t, &fakeGC{})
	r.await("the robot stands", standing)
	for deadline := time.Now().Add(30 * time.Second); ; {
		if out, _ := r.team.Get(); out.Seq > 0 {
			if out.Msg.Penalised {
				t.Fatalf("before the battery runs low the team message is %+v, want one that says the robot plays", out.Msg)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no team message while playing")
		}
		r.answering(r.seq.Load() + 1)
	}
	r.from(0, func(s *lola.Sensors) { s.Battery[0] = 0.05 })
	bent := r.await("the knees are bent to sit", func(c *naotest.Command) bool {
		return c.Act.Position[hal.LKneePitch] > 2.0 && c.Act.Stiffness[hal.LKneePitch] > 0.5
	})
	r.await("limp after sitting", func(c *naotest.Command) bool { return c.Seq > bent.Seq && c.MaxStiffness() == 0 })
	if sf, _ := r.safety.Get(); !sf.LowBattery || !sf.Sit || !sf.OutOfPlay() {
		t.Errorf("safety %+v", sf)
	}
	// The team is told: the team message says the robot is out of play.
	for deadline := time.Now().Add(30 * time.Second); ; {
		if out, _ := r.team.Get(); out.Msg.Penalised {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the team message never said the robot is out of play")
		}
		r.answering(r.seq.Load() + 1)
	}
}

// TestSafetyChestButtonOnLoLA: with no GameController, one chest-button
// press penalises the robot (chest LED red, it stands) and the next
// unpenalises it (chest LED off).
func TestSafetyChestButtonOnLoLA(t *testing.T) {
	r := newNAORig(t)
	r.await("the robot stands", standing)
	red := func(c *naotest.Command) bool { return c.Act.Chest == [3]float32{1, 0, 0} }
	press := func() uint64 { return r.from(5, func(s *lola.Sensors) { s.Touch[0] = 1 }) }
	seq := press()
	c := r.await("the chest LED is red", red)
	if c.Seq < seq+5 {
		t.Errorf("penalised at map %d, before the press (maps %d..%d) ended", c.Seq, seq, seq+4)
	}
	if sf, _ := r.safety.Get(); !sf.Penalised {
		t.Fatalf("safety %+v, want penalised", sf)
	}
	if !standing(&c) {
		t.Errorf("a penalised robot stands; stiffness %v", c.Act.Stiffness)
	}
	seq = press()
	r.await("the chest LED is off again", func(c *naotest.Command) bool { return c.Seq > seq && !red(c) })
	if sf, _ := r.safety.Get(); sf.Penalised {
		t.Fatalf("safety %+v, want unpenalised", sf)
	}
}

// TestSafetyFallOnLoLA: tipping forward at 2 rad/s, the robot's stiffness
// is at most the fall stiffness, arms in, while the torso is still short of
// 60° (the impact is at 90°); lying still, the get-up brings stiffness back.
func TestSafetyFallOnLoLA(t *testing.T) {
	r := newNAORig(t)
	r.await("the robot stands", standing)
	const perMap = 0.024 // 2 rad/s at 12 ms
	start := r.from(0, func(s *lola.Sensors) {})
	r.mu.Lock()
	r.edits[len(r.edits)-1].f = func(s *lola.Sensors) {
		n := float32(r.seq.Load() - start)
		s.Angles[1] = min(n*perMap, 1.57)
		if s.Angles[1] < 1.57 {
			s.Gyroscope[1] = 2
		}
	}
	r.mu.Unlock()
	limpAt := start + 37 // 0.89 rad, 51°
	c := r.answering(limpAt)
	if c.Seq != limpAt {
		t.Fatalf("answer to map %d is for %d", limpAt, c.Seq)
	}
	if s := c.MaxStiffness(); s > 0.1+1e-6 {
		t.Fatalf("stiffness %v at %.0f° while falling, want <= 0.1", s, float64(c.Seq-start)*perMap*57.3)
	}
	if c.Act.Position[hal.LShoulderRoll] > 0.05 || c.Act.Position[hal.RShoulderRoll] < -0.05 {
		t.Errorf("arms not in: shoulder roll %v %v", c.Act.Position[hal.LShoulderRoll], c.Act.Position[hal.RShoulderRoll])
	}
	r.await("stiffness back for the get-up", func(c *naotest.Command) bool { return c.Seq > limpAt && c.MaxStiffness() >= 0.9 })
}
