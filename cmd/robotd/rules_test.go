package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/robotd/robotd/config"
)

// TestConfigRefusesBadValues: bad values, in a file or with -set, make
// -print-config (and so the daemon, which loads the same way) exit with
// the usage code and an error naming the key. Both builds run it: the
// robot build's keys are checked in the sim build too and vice versa.
func TestConfigRefusesBadValues(t *testing.T) {
	tests := []struct {
		name string
		file string
		sets []string
		err  string
	}{
		{"stiffness above 1", "", []string{"motion.stiffness=7"}, "motion.stiffness: 7 is outside 0..1"},
		{"negative stiffness", "", []string{"motion.stiffness=-1"}, "motion.stiffness: -1 is outside 0..1"},
		{"negative max speed", "", []string{"motion.max_speed=-5"}, "motion.max_speed: -5 is outside"},
		{"return port", "", []string{"gamecontroller.return_port=70000"}, "gamecontroller.return_port: 70000 is outside 1..65535"},
		{"team port", "", []string{"teamcomm.udp.port=70000"}, "teamcomm.udp.port: 70000 is outside 0..65535"},
		{"listen address", "", []string{"gamecontroller.listen=nonsense"}, `gamecontroller.listen: address "nonsense"`},
		{"listen port", "", []string{"gamecontroller.listen=:70000"}, `gamecontroller.listen: address ":70000": port "70000" is outside 0..65535`},
		{"metrics address", "", []string{"metrics.addr=localhost"}, `metrics.addr: address "localhost"`},
		{"broadcast", "", []string{"teamcomm.udp.broadcast=everyone"}, "teamcomm.udp.broadcast: want an IP address"},
		{"robot kind", "", []string{"real.kind=toaster"}, "real.kind: \"toaster\": want one of auto, nao, robotino"},
		{"nao max packet", "", []string{"real.nao.max_packet=-1"}, "real.nao.max_packet: -1 is outside"},
		{"negative baud", "", []string{"real.robotino.baud=-9600"}, "real.robotino.baud: -9600 is outside"},
		{"duration without a unit in a file", `{"runner": {"safe_state_timeout": 1}}`, nil, `want a string with a unit like "10ms"`},
		{"duration without a unit with -set", "", []string{"runner.safe_state_timeout=1"}, `missing unit in duration "1"`},
		{"null", `{"motion": {"stiffness": null}}`, nil, "motion.stiffness: null is not a value"},
		{"null with -set", "", []string{"motion.stiffness=null"}, "motion.stiffness: null is not a value"},
		{"duplicate key", `{"motion": {"stiffness": 0.5, "stiffness": 0.9}}`, nil, "motion.stiffness: the key is given twice"},
		{"unknown strategy", "", []string{"behaviour.search.strategy=2018"}, `behaviour.search.strategy: "2018": want one of 2016, 2017`},
		{"huge duration", "", []string{"gamecontroller.timeout=1000h"}, "gamecontroller.timeout: 1000h0m0s is outside"},
		{"control character", "", []string{"robot.team_name=a\x01b"}, "robot.team_name: \"a\\x01b\": want printable characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-print-config"}
			if tc.file != "" {
				args = append(args, "-config", writeFile(t, tc.file))
			}
			for _, s := range tc.sets {
				args = append(args, "-set", s)
			}
			var out, errOut bytes.Buffer
			code := run(context.Background(), args, &out, &errOut)
			if code != exitUsage || !strings.Contains(errOut.String(), tc.err) || out.Len() != 0 {
				t.Fatalf("exit %d, stderr %q, stdout %d bytes; want exit %d and an error containing %q", code, errOut.String(), out.Len(), exitUsage, tc.err)
			}
		})
	}
}

// TestSetStringWithoutQuotes: a string setting takes the -set value as
// written; quoted JSON works as before.
func TestSetStringWithoutQuotes(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"behaviour.search.strategy=2016", "2016"},
		{`behaviour.search.strategy="2016"`, "2016"},
		{"robot.team_name=123", "123"},
		{"robot.team_name=true", "true"},
		{`robot.team_name="blue"`, "blue"},
		{"robot.team_name=blue", "blue"},
	} {
		cfg := DefaultConfig()
		if err := setValue(&cfg, tc.set); err != nil {
			t.Fatalf("%s: %v", tc.set, err)
		}
		got := cfg.Behaviour.Search.Strategy
		if strings.HasPrefix(tc.set, "robot.") {
			got = cfg.Robot.TeamName
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.set, got, tc.want)
		}
	}
	// Numbers and booleans still take JSON.
	cfg := DefaultConfig()
	if err := setValue(&cfg, "motion.max_speed=1.25"); err != nil || cfg.Motion.MaxSpeed != 1.25 {
		t.Fatalf("max_speed %v, %v", cfg.Motion.MaxSpeed, err)
	}
}

// TestEveryKeyHasARule: every setting has a rule, and every rule a
// setting.
func TestEveryKeyHasARule(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the defaults are refused: %v", err)
	}
	unruled, err := config.Unruled(&cfg, configRules)
	if err != nil {
		t.Fatal(err)
	}
	if len(unruled) > 0 {
		t.Errorf("settings without a rule: %v", unruled)
	}
	tree, err := config.Tree(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	leaves := map[string]bool{}
	for _, k := range config.Leaves(tree, configRules) {
		leaves[k] = true
	}
	for k := range configRules {
		if !leaves[k] {
			t.Errorf("a rule for %q, which is no setting", k)
		}
	}
}

// TestEveryRuleBoundsItsKey puts values far outside any plausible range
// into each setting in turn: every one is refused with an error naming
// that setting, so no key is left unbounded.
func TestEveryRuleBoundsItsKey(t *testing.T) {
	cfg := DefaultConfig()
	tree, err := config.Tree(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	keys := config.Leaves(tree, configRules)
	if len(keys) < 250 {
		t.Fatalf("only %d settings", len(keys))
	}
	for _, key := range keys {
		cur := get(tree, key)
		var bad []any
		switch v := cur.(type) {
		case json.Number:
			bad = []any{json.Number("1e300"), json.Number("-1e300"), "1"}
		case bool:
			bad = []any{"yes", json.Number("1")}
		case string:
			bad = []any{"\x00nonsense\x00", json.Number("1")}
		case []any, map[string]any:
			bad = []any{"x", []any{"\x00nonsense"}, map[string]any{"x": "\x00nonsense"}}
			_ = v
		default:
			t.Errorf("%s: unexpected value %#v", key, cur)
			continue
		}
		for _, b := range bad {
			set(tree, key, b)
			err := config.CheckTree(tree, configRules)
			set(tree, key, cur)
			if err == nil || !strings.HasPrefix(err.Error(), key+": ") {
				t.Errorf("%s = %#v: error %v, want one naming the key", key, b, err)
			}
		}
	}
	if err := config.CheckTree(tree, configRules); err != nil {
		t.Fatalf("the restored defaults are refused: %v", err)
	}
}

func get(tree any, key string) any {
	node := tree
	for _, p := range strings.Split(key, ".") {
		node = node.(map[string]any)[p]
	}
	return node
}

func set(tree any, key string, v any) {
	parts := strings.Split(key, ".")
	node := tree
	for _, p := range parts[:len(parts)-1] {
		node = node.(map[string]any)[p]
	}
	node.(map[string]any)[parts[len(parts)-1]] = v
}
