package debugview

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/msg"
)

// TestBehaviourEntries: the behaviour module's real entry types (package
// msg) are under the names the page reads and in the shapes it reads:
// the role by name in Role, the path's Nodes and N, the search grid with
// oblong cells and its targets.
func TestBehaviourEntries(t *testing.T) {
	if msg.RoleKey.Name() != RoleEntry || msg.PathKey.Name() != PathEntry || msg.SearchKey.Name() != SearchEntry {
		t.Fatalf("entry names %s %s %s", msg.RoleKey.Name(), msg.PathKey.Name(), msg.SearchKey.Name())
	}
	b := blackboard.New()
	role, _ := blackboard.Write(b, "behaviour", msg.RoleKey)
	path, _ := blackboard.Write(b, "behaviour", msg.PathKey)
	search, _ := blackboard.Write(b, "behaviour", msg.SearchKey)
	b.BeginTick(1, 0)
	role.Set(msg.RoleState{Role: msg.RoleStriker, Switches: 2, SwitchesPerMinute: 1})
	p := msg.BehaviourPath{N: 3}
	copy(p.Nodes[:], []string{"behaviour", "play", "striker", "stale"})
	path.Set(p)
	s := msg.SearchState{Strategy: 2017, Cols: 3, Rows: 3, CellX: 3, CellY: 2, CellSize: 3, Origin: hal.Vec2{X: -4.5, Y: -3}, NTargets: 1,
		Targets: [msg.MaxSearchTargets]msg.SearchTarget{{Player: 0, Pos: hal.Vec2{X: -3, Y: 2}}}}
	s.Probabilities[4] = 1
	search.Set(s)
	h, err := New(b, prometheus.NewRegistry(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := getState(t, h, "/api/state")
	var r struct{ Role string }
	if err := json.Unmarshal(st.Entries[RoleEntry].Value, &r); err != nil || r.Role != "striker" {
		t.Errorf("role %s (%v)", st.Entries[RoleEntry].Value, err)
	}
	var pv struct {
		N     int
		Nodes []string
	}
	if err := json.Unmarshal(st.Entries[PathEntry].Value, &pv); err != nil || pv.N != 3 || strings.Join(pv.Nodes[:pv.N], "/") != "behaviour/play/striker" {
		t.Errorf("path %s (%v)", st.Entries[PathEntry].Value, err)
	}
	var sv struct {
		Cols, Rows             int
		CellX, CellY, CellSize float64
		Origin                 hal.Vec2
		Probabilities          []float64
		NTargets               int
		Targets                []struct {
			Player int
			Pos    hal.Vec2
		}
	}
	if err := json.Unmarshal(st.Entries[SearchEntry].Value, &sv); err != nil {
		t.Fatal(err)
	}
	if sv.Cols != 3 || sv.Rows != 3 || sv.CellX != 3 || sv.CellY != 2 || sv.Origin.X != -4.5 || sv.Probabilities[4] != 1 ||
		sv.NTargets != 1 || sv.Targets[0].Pos.Y != 2 {
		t.Errorf("search %+v", sv)
	}
}
