//go:build ode

package simrun

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/internal/racetest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/simserver"
)

// getUpSample is one tick of a get-up run.
type getUpSample struct {
	t      time.Duration // since the robot connected
	body   msg.BodyState
	motion msg.MotionState
	head   float64 // the server's mypos z (m)
}

// getUpScript asks for a get-up while perception finds the robot fallen
// and for the stand otherwise (as behaviour's "fallen" branch does), and
// records every tick.
type getUpScript struct {
	body   *blackboard.Reader[msg.BodyState]
	motion *blackboard.Reader[msg.MotionState]
	truth  *blackboard.Reader[hal.GroundTruth]
	req    *blackboard.Writer[msg.MotionRequest]
	conn   time.Duration
	ok     bool

	mu      sync.Mutex
	samples []getUpSample
}

func (*getUpScript) Name() string { return "getup" }
func (s *getUpScript) Wire(b *blackboard.Board) (err error) {
	if s.body, err = blackboard.Read(b, s.Name(), msg.BodyStateKey); err != nil {
		return err
	}
	if s.motion, err = blackboard.Use(b, s.Name(), msg.MotionStateKey); err != nil {
		return err
	}
	if s.truth, err = blackboard.Read(b, s.Name(), msg.GroundTruthKey); err != nil {
		return err
	}
	s.req, err = blackboard.Write(b, s.Name(), msg.MotionRequestKey)
	return err
}
func (s *getUpScript) Tick(t hal.Tick) error {
	if !s.ok && t.Connected {
		s.conn, s.ok = t.Time, true
	}
	bs, _ := s.body.Get()
	ms, _ := s.motion.Get()
	gt, _ := s.truth.Get()
	if bs.Fall != msg.Upright {
		s.req.Set(msg.MotionRequest{Kind: msg.MotionGetUp})
	} else {
		s.req.Set(msg.MotionRequest{Kind: msg.MotionStand})
	}
	if s.ok {
		s.mu.Lock()
		s.samples = append(s.samples, getUpSample{t: t.Time - s.conn, body: bs, motion: ms, head: float64(gt.HeadHeight)})
		s.mu.Unlock()
	}
	return nil
}

// sideGetUp is what followed a commanded fall to the side.
type sideGetUp struct {
	how     msg.Fall      // the fall perception saw first
	side    bool          // lay on the side: rolled 60° or more that way with the pitch within ±30°
	onFront time.Duration // first pitched 45° forward after lying on the side (since the fall began), 0 if never
	up      time.Duration // stood: upright, standing, the head above 0.45 m; 0 if never
	stayed  bool          // still standing 2 s later
	help    bool          // motion asked for help
}

func (g sideGetUp) String() string {
	return fmt.Sprintf("seen %v, on its side %v, on its front after %v, up after %v, stayed up %v, asked for help %v", g.how, g.side, g.onFront, g.up, g.stayed, g.help)
}

// layOnSide lays a standing robot on its side in the physics mode at layAt
// (simulation time since it connected, so the run repeats exactly) and
// follows it for d.
func layOnSide(t *testing.T, f Fall, layAt, d time.Duration) sideGetUp {
	t.Helper()
	cfg := simserver.DefaultConfig()
	cfg.Sync, cfg.Physics = true, simserver.PhysicsODE
	w, err := Start(context.Background(), Options{Server: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	}()
	s := &getUpScript{}
	r, err := w.AddRobot(RobotConfig{Team: "robotd", Player: 1, Beam: sim.Beam{X: -1, Y: 1, Deg: 30}, LayDown: f, LayDownAt: layAt,
		Modules: func(c *robot.Config) []runner.Module { return append(robot.ScriptedModules(c), s) }})
	if err != nil {
		t.Fatal(err)
	}
	r.WaitFor(context.Background(), layAt+d, func() bool { return false })
	s.mu.Lock()
	defer s.mu.Unlock()
	var g sideGetUp
	want := 1.0
	if f == FallLeft {
		want = -1
	}
	for _, x := range s.samples {
		if x.t < layAt {
			continue
		}
		p, rl := float64(x.body.Angles.Pitch), float64(x.body.Angles.Roll)
		g.help = g.help || x.motion.NeedsHelp
		switch {
		case g.how == msg.Upright && x.body.Fall != msg.Upright:
			g.how = x.body.Fall
		case !g.side && want*rl > 60*math.Pi/180 && math.Abs(p) < 30*math.Pi/180:
			g.side = true
		case g.side && g.onFront == 0 && p > 45*math.Pi/180:
			g.onFront = x.t - layAt
		case g.up == 0 && g.how != msg.Upright && x.body.Fall == msg.Upright && x.motion.Active == msg.MotionStand && x.head > 0.45:
			g.up, g.stayed = x.t-layAt, true
		case g.up != 0 && (x.body.Fall != msg.Upright || x.head < 0.45):
			g.stayed = false
		}
	}
	if g.up != 0 && s.samples[len(s.samples)-1].t < layAt+g.up+2*time.Second {
		g.stayed = false
	}
	return g
}

// TestSideFallGetUp: laid on its left or right side (its own hip and ankle
// rolls tip it over, as on the real server), the robot lies on that side
// and rolls onto its front within 3 s, every time; it stands up within
// 10 s and stays up in at least 3 of 5 falls started 7 ms apart (the
// moment of the stand's sway at which a fall starts decides, in the
// physics mode as on a server, whether the front get-up after the roll
// works: simmeasure -laystep 7ms had 28 of 30 up; the fall at 2 s is one
// that fails, and one run of the whole suite on a loaded machine had a
// second one fail. Without the side get-up none of the 5 is up). Under the race detector
// (internal/racetest) only the first left fall runs, for 3 s of simulated
// time: it lies on its side and has rolled onto its front.
func TestSideFallGetUp(t *testing.T) {
	const (
		layAt = 2 * time.Second
		step  = 7 * time.Millisecond
		falls = 5
		need  = 3
	)
	for _, f := range []Fall{FallLeft, FallRight} {
		t.Run(f.String(), func(t *testing.T) {
			if racetest.Enabled && f != FallLeft {
				t.Skip("under the race detector the left side alone: the same goroutines")
			}
			defer leaktest.Check(t)()
			want := msg.FallenLeft
			if f == FallRight {
				want = msg.FallenRight
			}
			n, ups := falls, 0
			d := 12 * time.Second
			if racetest.Enabled {
				n, d = 1, 3*time.Second
			}
			for i := range n {
				g := layOnSide(t, f, layAt+time.Duration(i)*step, d)
				t.Logf("laid on its %v side at %v: %v", f, layAt+time.Duration(i)*step, g)
				if g.how != want || !g.side {
					t.Errorf("seen %v, on its side %v; want %v, true", g.how, g.side, want)
				}
				if g.onFront == 0 || g.onFront > 3*time.Second {
					t.Errorf("rolled onto its front after %v; want within 3 s", g.onFront)
				}
				if g.up != 0 && g.up <= 10*time.Second && g.stayed && !g.help {
					ups++
				}
			}
			if !racetest.Enabled && ups < need {
				t.Errorf("up within 10 s and staying up after %d of %d falls; want at least %d", ups, n, need)
			}
		})
	}
}
