package adversarial

import (
	"context"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/nao"
	"github.com/robotd/robotd/backends/nao/naotest"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/proto/lola"
	"github.com/robotd/robotd/robot"
)

// sockPath is a Unix socket path short enough for sun_path.
func sockPath(t *testing.T) string {
	dir, err := os.MkdirTemp("", "adv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "robocup")
}

// spoil makes map seq implausible in one of several ways.
func spoil(seq uint64, s *lola.Sensors) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	switch seq % 6 {
	case 0:
		s.Gyroscope[0] = nan
	case 1:
		s.Accelerometer[2] = -inf
	case 2:
		s.Angles[1] = 3e38
	case 3:
		s.Position[int(seq)%lola.NumJoints] = nan
	case 4:
		s.FSR[seq%8] = inf
	default:
		s.Battery[0] = nan
	}
}

// garbage is what a hostile LoLA sends instead of map seq: a truncated
// map, bytes that are no msgpack, an actuator map, a huge array header.
func garbage(seq uint64) []byte {
	sample, _ := naotest.Sample()
	full := lola.AppendSensors(nil, &sample)
	switch seq % 4 {
	case 0:
		return full[:len(full)/2]
	case 1:
		return []byte{0xc1, 0xc1, 0xc1}
	case 2:
		return lola.AppendActuators(nil, &lola.Actuators{})
	default:
		return []byte{0xdf, 0xff, 0xff, 0xff, 0xff} // a map of 4 G entries
	}
}

func naoConfig(sock string) nao.Config {
	c := nao.DefaultConfig()
	c.Socket = sock
	c.StiffnessRamp = 0
	c.ReadTimeout = config.Duration(300 * time.Millisecond)
	c.DeadTimeout = config.Duration(2 * time.Second)
	c.BackoffMin = config.Duration(5 * time.Millisecond)
	c.BackoffMax = config.Duration(20 * time.Millisecond)
	return c
}

// checkCommands fails on an actuator map with a target that is not
// finite or a stiffness outside 0..1; it returns the largest stiffness.
func checkCommands(t *testing.T, cmds []naotest.Command) float32 {
	t.Helper()
	most := float32(0)
	for _, c := range cmds {
		for i := range hal.NumJoints {
			p, s := c.Act.Position[i], c.Act.Stiffness[i]
			if math.IsNaN(float64(p)) || math.Abs(float64(p)) > 4 || !(s >= 0 && s <= 1) {
				t.Errorf("command answering map %d: %s target %v stiffness %v", c.Seq, hal.Joints[i].Name, p, s)
			}
		}
		most = max(most, c.MaxStiffness())
	}
	return most
}

// TestHostileLoLA runs the NAO daemon's modules against a LoLA that mixes
// good maps with implausible ones (NaN, Inf, huge) and garbage (cut off,
// not msgpack, the wrong map, absurd sizes): no panic, no NaN on the
// blackboard, every command finite with stiffness 0..1, the robot still
// runs on the good maps, the heap bounded.
func TestHostileLoLA(t *testing.T) {
	defer leaktest.Check(t)()
	heap0 := heapInUse()
	sock := sockPath(t)
	srv, err := naotest.Start(context.Background(), sock, naotest.Options{Period: 4 * time.Millisecond,
		Script: func(seq uint64, s *lola.Sensors) {
			if seq%3 == 0 {
				spoil(seq, s)
			}
		},
		Raw: func(seq uint64) []byte {
			if seq%10 == 5 {
				return garbage(seq / 10)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dev, err := nao.New(naoConfig(sock), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	d := startDaemon(t, dev, robot.Legs)
	stopWatch := watchBoard(t, d.board)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Wait(ctx, func(s *naotest.Server) bool { return s.NumCommands() >= 150 }); err != nil { // Wait holds the server's lock
		t.Fatalf("the hostile LoLA sent %d maps: %v", srv.Sent(), err)
	}
	checks := stopWatch()
	d.stop(t)
	st := dev.Stats()
	most := checkCommands(t, srv.Commands())
	if st.Rejected == 0 || st.Errors == 0 {
		t.Errorf("stats %+v: want implausible and malformed maps counted", st)
	}
	if most == 0 {
		t.Error("the robot never stiffened on the good maps: the test proves nothing")
	}
	t.Logf("%d maps sent, %d commands, stats %+v, %d board checks", srv.Sent(), len(srv.Commands()), st, checks)
	checkHeap(t, heap0)
}

// TestHostileLoLAOnlyBadInput: a LoLA that sends nothing but implausible
// maps and garbage gets no command with stiffness: bad input never moves
// the robot.
func TestHostileLoLAOnlyBadInput(t *testing.T) {
	defer leaktest.Check(t)()
	heap0 := heapInUse()
	sock := sockPath(t)
	var n atomic.Uint64
	srv, err := naotest.Start(context.Background(), sock, naotest.Options{Period: 4 * time.Millisecond,
		Script: func(seq uint64, s *lola.Sensors) { n.Add(1); spoil(seq, s) },
		Raw: func(seq uint64) []byte {
			if seq%5 == 0 {
				return garbage(seq / 5)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dev, err := nao.New(naoConfig(sock), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	d := startDaemon(t, dev, robot.Legs)
	stopWatch := watchBoard(t, d.board)
	deadline := time.Now().Add(30 * time.Second)
	for dev.Stats().Rejected < 100 {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v after %d maps", dev.Stats(), srv.Sent())
		}
		time.Sleep(5 * time.Millisecond)
	}
	stopWatch()
	d.stop(t)
	if most := checkCommands(t, srv.Commands()); most != 0 {
		t.Errorf("a command with stiffness %v out of bad input", most)
	}
	t.Logf("%d maps sent, %d commands, stats %+v", srv.Sent(), len(srv.Commands()), dev.Stats())
	checkHeap(t, heap0)
}
