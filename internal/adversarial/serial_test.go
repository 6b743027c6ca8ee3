package adversarial

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/robotino"
	"github.com/robotd/robotd/backends/robotino/robotinotest"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/internal/leaktest"
	proto "github.com/robotd/robotd/proto/robotino"
	"github.com/robotd/robotd/robot"
)

// spoilBase makes the base's n-th reply implausible in one of several
// ways.
func spoilBase(n int, st *robotinotest.State) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	switch n % 5 {
	case 0:
		st.Gyro.Rate = nan
	case 1:
		st.Odometry.X = inf
	case 2:
		st.Power.BatteryVoltage = 3e38
	case 3:
		st.Currents[n%3] = -inf
	default:
		st.Power.SystemCurrent = nan
	}
}

// TestHostileSerialPeer runs the Robotino daemon's modules against a base
// controller, at the other end of a pseudo-terminal, that answers with
// NaN, infinite and huge readings and sends garbage and broken frames
// between its replies. With nothing to do, the base must get only zero
// set-points, whatever the replies say; nothing panics, the blackboard
// never holds NaN, the heap stays bounded. In the second run every reply
// is implausible.
func TestHostileSerialPeer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every int // spoil every n-th reply
	}{
		{"mixed", 3},
		{"only bad", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer leaktest.Check(t)()
			heap0 := heapInUse()
			link := filepath.Join(t.TempDir(), "ttyRobotino")
			var replies atomic.Int64
			ctl, err := robotinotest.Start(context.Background(), link, robotinotest.Options{OnRequest: func(n int, st *robotinotest.State) {
				replies.Store(int64(n))
				st.Gyro = proto.GyroZ{Angle: 0.5, Rate: 0.1}
				st.Odometry = proto.Odometry{X: 0.2, Y: 0.1}
				st.Power = proto.PowerSource{BatteryVoltage: 24, SystemCurrent: 1}
				st.Currents = [proto.NumMotors]float32{0.1, 0.1, 0.1}
				if n%tc.every == 0 {
					spoilBase(n, st)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer ctl.Close()
			cfg := robotino.DefaultConfig()
			cfg.Device = link
			cfg.Period = config.Duration(5 * time.Millisecond)
			cfg.BackoffMin = config.Duration(5 * time.Millisecond)
			cfg.BackoffMax = config.Duration(20 * time.Millisecond)
			dev, err := robotino.New(cfg, slog.New(slog.DiscardHandler), robotino.Options{GPIO: &robotinotest.GPIO{}})
			if err != nil {
				t.Fatal(err)
			}
			defer dev.Close()
			// Garbage and broken frames between the replies.
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(3, 4))
				tk := time.NewTicker(15 * time.Millisecond)
				defer tk.Stop()
				for {
					select {
					case <-ctx.Done():
						return
					case <-tk.C:
					}
					b := make([]byte, 1+rng.IntN(64))
					for i := range b {
						b[i] = byte(rng.Uint32())
					}
					if rng.IntN(2) == 0 {
						b[0] = 0xaa // a frame's start byte, then nonsense
					}
					ctl.Inject(b)
				}
			})
			d := startDaemon(t, dev, robot.OmniBase)
			stopWatch := watchBoard(t, d.board)
			deadline := time.Now().Add(30 * time.Second)
			for replies.Load() < 150 || dev.Stats().Rejected == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("%d replies, stats %+v", replies.Load(), dev.Stats())
				}
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
			wg.Wait()
			checks := stopWatch()
			d.stop(t)
			frames := ctl.MotorFrames()
			for _, f := range frames {
				if rpm, _ := f.MotorSpeeds(); rpm != ([proto.NumMotors]int16{}) {
					t.Errorf("set-points %v out of bad input", rpm)
				}
			}
			st := dev.Stats()
			if len(frames) == 0 || st.Rejected == 0 {
				t.Errorf("%d motor frames, stats %+v: the test proves nothing", len(frames), st)
			}
			t.Logf("%d replies, %d motor frames, stats %+v, %d board checks", replies.Load(), len(frames), st, checks)
			checkHeap(t, heap0)
		})
	}
}
