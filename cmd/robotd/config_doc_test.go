//go:build !sim

package main

import (
	"bytes"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/robotd/robotd/config"
)

var updateDoc = flag.Bool("update", false, "rewrite docs/configuration.md from the rules (TestConfigDoc)")

// docMarker ends docs/configuration.md's hand-written introduction; the
// tables after it are generated.
const docMarker = "<!-- Generated from the rules below this line: go generate ./cmd/robotd -->\n"

// TestConfigDoc: docs/configuration.md's tables are what the rules and
// the robot build's defaults say. With -update (go generate ./cmd/robotd)
// it rewrites them.
func TestConfigDoc(t *testing.T) {
	const path = "../../docs/configuration.md"
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	intro, _, ok := strings.Cut(string(old), docMarker)
	if !ok {
		t.Fatalf("%s: no line %q", path, strings.TrimSpace(docMarker))
	}
	var b bytes.Buffer
	b.WriteString(intro + docMarker + "\n")
	cfg := DefaultConfig()
	if err := config.WriteDoc(&b, &cfg, configRules); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(b.Bytes(), old) {
		return
	}
	if *updateDoc {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is out of date: run go generate ./cmd/robotd", path)
}

// TestRuleMeaningsDiffer: within a section, keys of different names do
// not share a meaning (a sentence copied from a comment about several
// fields says what none of them is alone). Keys of one name in different
// sub-sections (real.nao.period, real.robotino.period) may.
func TestRuleMeaningsDiffer(t *testing.T) {
	type place struct{ section, meaning string }
	seen := map[place]string{}
	keys := make([]string, 0, len(configRules))
	for k := range configRules {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		section, _, _ := strings.Cut(key, ".")
		p := place{section, configRules[key].Meaning()}
		if other, ok := seen[p]; ok && lastPart(other) != lastPart(key) {
			t.Errorf("%s and %s share the meaning %q", other, key, p.meaning)
			continue
		}
		seen[p] = key
	}
}

// lastPart is a key's name within its sub-section.
func lastPart(key string) string { return key[strings.LastIndex(key, ".")+1:] }
