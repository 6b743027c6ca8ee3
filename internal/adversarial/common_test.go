package adversarial

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
)

// maxHeapGrowth bounds the heap's growth over one test: the hostile input
// must not make robotd hold on to it.
const maxHeapGrowth = 64 << 20

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// checkHeap fails if the heap grew by more than maxHeapGrowth since start.
func checkHeap(t *testing.T, start uint64) {
	t.Helper()
	if now := heapInUse(); now > start+maxHeapGrowth {
		t.Errorf("heap grew from %d to %d MiB", start>>20, now>>20)
	}
}

// daemon is a robot's modules on a backend, run by a runner as robotd
// runs them.
type daemon struct {
	board  *blackboard.Board
	runner *runner.Runner
	cancel context.CancelFunc
	done   chan error
}

func startDaemon(t *testing.T, dev hal.Device, body robot.Body, extra ...runner.Module) *daemon {
	t.Helper()
	cfg := robot.DefaultConfig()
	robot.Identify(&cfg, 1, 1)
	board := blackboard.New()
	r := runner.New(cfg.Runner, dev, board, slog.New(slog.DiscardHandler), nil)
	r.Add(robot.ModulesFor(&cfg, body)...)
	r.Add(extra...)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &daemon{board: board, runner: r, cancel: cancel, done: make(chan error, 1)}
	go func() { d.done <- r.Run(ctx) }()
	return d
}

// stop ends the run (which puts the robot into its safe state).
func (d *daemon) stop(t *testing.T) {
	t.Helper()
	d.cancel()
	select {
	case err := <-d.done:
		if err != nil && err != context.Canceled {
			t.Logf("run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the runner did not stop")
	}
}

// checkBoard fails if an entry holds NaN or ±Inf. The snapshot's JSON
// (what /debug/blackboard serves) must encode, and writes such values as
// strings, which is what it looks for.
func checkBoard(t *testing.T, board *blackboard.Board) {
	t.Helper()
	var buf bytes.Buffer
	if err := board.Snapshot().WriteJSON(&buf); err != nil {
		t.Errorf("the blackboard snapshot does not encode: %v", err)
		return
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"NaN"`)) && !bytes.Contains(buf.Bytes(), []byte(`"+Inf"`)) && !bytes.Contains(buf.Bytes(), []byte(`"-Inf"`)) {
		return
	}
	var snap struct {
		Entries map[string]struct{ Value json.RawMessage }
	}
	_ = json.Unmarshal(buf.Bytes(), &snap)
	for name, e := range snap.Entries {
		if bytes.Contains(e.Value, []byte(`"NaN"`)) || bytes.Contains(e.Value, []byte(`Inf"`)) {
			t.Errorf("blackboard entry %s holds a non-finite value: %s", name, e.Value)
		}
	}
}

// watchBoard checks the board every few milliseconds until stop is
// called, which returns the number of checks.
func watchBoard(t *testing.T, board *blackboard.Board) (stop func() int) {
	var wg sync.WaitGroup
	done := make(chan struct{})
	n := 0
	wg.Go(func() {
		tk := time.NewTicker(5 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				checkBoard(t, board)
				n++
			}
		}
	})
	return func() int {
		close(done)
		wg.Wait()
		checkBoard(t, board)
		return n
	}
}
