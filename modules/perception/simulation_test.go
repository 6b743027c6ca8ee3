package perception

import (
	"strings"
	"sync"
	"testing"

	"github.com/robotd/robotd/internal/racetest"
)

// simulation is called first by a test, or a subtest before t.Parallel,
// that runs the synthetic world for simulated seconds. The module runs in
// one goroutine, and so does each such test: under the race detector all
// that can race is parallel subtests sharing state, which the first two
// subtests of a test show. So under it the other subtests and the tests
// without parallel subtests are skipped; their numbers are asserted
// without the race detector (scripts/test runs the package both ways,
// see internal/racetest).
func simulation(t *testing.T) {
	t.Helper()
	if !racetest.Enabled {
		return
	}
	i := strings.LastIndex(t.Name(), "/")
	if i < 0 {
		t.Skip("a simulation in one goroutine: its numbers are asserted without the race detector")
	}
	simRuns.Lock()
	defer simRuns.Unlock()
	if simRuns.n == nil {
		simRuns.n = map[string]int{}
	}
	parent := t.Name()[:i]
	if simRuns.n[parent]++; simRuns.n[parent] > 2 {
		t.Skip("the first two subtests run in parallel under the race detector; this one's numbers are asserted without it")
	}
}

var simRuns struct {
	sync.Mutex
	n map[string]int // subtests started, by parent test
}
