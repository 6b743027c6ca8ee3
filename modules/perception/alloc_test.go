package perception

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

func TestTickDoesNotAllocate(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*Config)
		// before runs before every measured run (three ticks, one with a
		// vision frame).
		before func(h *harness, w *world, in *input)
	}{
		{"tracking", func(*Config) {}, func(*harness, *world, *input) {}},
		{"obstacles", func(*Config) {}, func(_ *harness, w *world, _ *input) { w.robots = allocRobots }},
		{"searching the whole field", func(*Config) {}, func(h *harness, _ *world, _ *input) { h.m.loc.unlocalise(false) }},
		{"after a fall", func(*Config) {}, func(h *harness, _ *world, in *input) {
			in.angles.Pitch = 1.4
			h.step(t, in)
			in.angles.Pitch = 0
		}},
		{"unlabeled lines and intersections, team ball", func(c *Config) { c.Localisation.PostIDs = false },
			func(_ *harness, w *world, in *input) {
				w.unlabeled, w.postIDs = true, false
				in.withTeam = true
				in.reports.N = 1
				in.reports.Reports[0] = msg.TeamBallReport{Player: 2, Pos: hal.Vec2{X: -0.5, Y: -1}, PoseConfidence: 1}
			}},
		{"ground truth and team reports", func(c *Config) { c.GroundTruthPose, c.GroundTruthBall = true, true },
			func(_ *harness, _ *world, in *input) {
				in.withTeam = true
				in.reports.N = 3
				for i := range 3 {
					in.reports.Reports[i] = msg.TeamBallReport{Player: uint8(i + 2), Pos: hal.Vec2{X: float64(i)}, PoseConfidence: 1}
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.cfg(&cfg)
			h := newHarness(t, cfg)
			w := newWorld(71, onCircle())
			w.ballOn, w.ball = true, hal.Vec2{X: -0.5, Y: -1}
			var in input
			for range 300 { // the blackboard's version pools grow while warming up
				w.step(&in)
				h.step(t, &in)
			}
			allocs := testing.AllocsPerRun(100, func() {
				tc.before(h, w, &in)
				for range 3 {
					w.step(&in)
					h.step(t, &in)
				}
			})
			if allocs != 0 {
				t.Fatalf("%.1f allocations per three ticks, want 0", allocs)
			}
		})
	}
}

// allocRobots are the robots the "obstacles" case sees.
var allocRobots = []hal.Vec2{{X: 0, Y: 2.1}, {X: 1.3, Y: -1.3}, {X: -1.5, Y: 0.5}}

// lap returns the inputs of one lap of the synthetic world round the
// centre circle (37.7 s), with a ball in play, and its true poses.
func lap(seed uint64) ([]input, []hal.Pose2) {
	w := newWorld(seed, onCircle())
	w.ballOn, w.ball = true, hal.Vec2{X: 0.3, Y: 0.2}
	n := int(math.Round(2 * math.Pi * w.circleR / w.speed / period.Seconds()))
	ins := make([]input, n)
	poses := make([]hal.Pose2, n)
	for i := range ins {
		w.step(&ins[i])
		poses[i] = w.pose
	}
	return ins, poses
}

// BenchmarkTick measures one perception tick (every third with a vision
// frame) while walking round the centre circle with a ball in view,
// localised ("tracking"), and with the localisation searching the whole
// field on every tick ("searching", the worst case after a kidnap).
func BenchmarkTick(b *testing.B) {
	ins, _ := lap(81)
	for _, bc := range []struct {
		name   string
		search bool
	}{{"tracking", false}, {"searching", true}} {
		b.Run(bc.name, func(b *testing.B) {
			h := newHarness(b, DefaultConfig())
			for i := range 500 {
				h.step(b, &ins[i])
			}
			durs := make([]float64, b.N)
			var frameSum float64
			var frames int
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				in := &ins[(500+i)%len(ins)]
				if bc.search {
					h.m.loc.unlocalise(false)
				}
				t0 := time.Now()
				h.step(b, in)
				d := float64(time.Since(t0).Nanoseconds())
				durs[i] = d
				if in.vision.Fresh {
					frameSum += d
					frames++
				}
			}
			b.StopTimer()
			b.ReportMetric(percentile(durs, 0.99), "p99-ns/tick")
			if frames > 0 {
				b.ReportMetric(frameSum/float64(frames), "ns/frame-tick")
			}
		})
	}
}
