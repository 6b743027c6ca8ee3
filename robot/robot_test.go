package robot

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/teamcomm"
)

func TestConfigRoundTripAndValidate(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	back := DefaultConfig()
	if err := config.Decode(bytes.NewReader(raw), &back); err != nil {
		t.Fatalf("the defaults do not decode strictly: %v", err)
	}
	for _, tc := range []struct{ name, json string }{
		{"search strategy", `{"behaviour": {"search": {"strategy": "2015"}}}`},
		{"role priority", `{"behaviour": {"roles": {"priority": ["striker", "libero"]}}}`},
	} {
		c := DefaultConfig()
		if err := config.Decode(bytes.NewReader([]byte(tc.json)), &c); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.Validate() == nil {
			t.Errorf("%s: invalid configuration validated", tc.name)
		}
	}
	c := DefaultConfig()
	if err := config.Decode(bytes.NewReader([]byte(`{"behaviour": {"search": {"strategy": "2016"}}}`)), &c); err != nil || c.Behaviour.Search.Strategy != "2016" {
		t.Fatalf("behaviour.search.strategy: %v %q", err, c.Behaviour.Search.Strategy)
	}
	Identify(&c, 17, 4)
	if c.Behaviour.Player != 4 || c.TeamComm.UDP.Team != 17 || c.TeamComm.UDP.Player != 4 || c.GameController.Team != 17 || c.GameController.Player != 4 {
		t.Errorf("Identify: %+v %+v %+v", c.Behaviour.Player, c.TeamComm.UDP, c.GameController.ModuleConfig)
	}
}

// TestStartNetwork opens the GameController client and the team endpoint
// (through a hub, as robots on one machine do), hands out their modules
// and metrics, and closes without leaking.
func TestStartNetwork(t *testing.T) {
	defer leaktest.Check(t)()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hub, err := teamcomm.NewHub(teamcomm.HubConfig{Addr: "127.0.0.1:0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = hub.Run(ctx) })
	defer wg.Wait()
	defer cancel()

	cfg := DefaultConfig()
	Identify(&cfg, 17, 3)
	cfg.GameController.Listen = "127.0.0.1:0"
	cfg.TeamComm.UDP.Hub = hub.Addr()
	reg := prometheus.NewRegistry()
	n, err := StartNetwork(ctx, &cfg, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range n.Modules() {
		names = append(names, m.Name())
	}
	if len(names) != 2 || names[0] != "gamecontroller" || names[1] != "teamcomm" {
		t.Fatalf("modules %v", names)
	}
	if err := RegisterRoleMetrics(reg, blackboard.New()); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"robotd_gamecontroller_packets_total": false, "robotd_teamcomm_sent_total": false, "robotd_behaviour_role_switches_per_minute": false}
	for _, mf := range mfs {
		if _, ok := want[mf.GetName()]; ok {
			want[mf.GetName()] = true
		}
	}
	for k, ok := range want {
		if !ok {
			t.Errorf("metric %s not registered", k)
		}
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	// Disabled, nothing is opened and the game state is the backend's.
	cfg.GameController.Enabled, cfg.TeamComm.Enabled = false, false
	n, err = StartNetwork(ctx, &cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Modules()) != 1 {
		t.Errorf("%d modules with the network off", len(n.Modules()))
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKindOf: the body comes from the backend that says it, the NAO v6
// otherwise.
func TestKindOf(t *testing.T) {
	if k := KindOf(kindDevice{k: body.SimSparkNAO}); k != body.SimSparkNAO {
		t.Errorf("a SimSpark backend's body: %v", k)
	}
	if k := KindOf(plainDevice{}); k != body.NAOv6 {
		t.Errorf("a backend that does not say: %v", k)
	}
}

type plainDevice struct{}

func (plainDevice) Next(context.Context) (hal.Tick, error) { return hal.Tick{}, nil }
func (plainDevice) Commit(context.Context) error           { return nil }
func (plainDevice) SafeState(context.Context) error        { return nil }
func (plainDevice) Close() error                           { return nil }

type kindDevice struct {
	plainDevice
	k body.Kind
}

func (d kindDevice) BodyKind() body.Kind { return d.k }
