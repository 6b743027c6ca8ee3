package kube

import (
	"reflect"
	"strings"
	"testing"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/experiments/findball"
)

// TestManifest: the Job has one completion per shard, indexed, each pod
// running its shard into its own database, and the ConfigMap holds the
// campaign exactly.
func TestManifest(t *testing.T) {
	cfg := findball.DefaultConfig()
	cfg.Trials = 2
	m, err := Manifest(Config{Shards: 5, CPU: 2, Image: "lab/findball:1"}, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: ConfigMap\n", "kind: Job\n", "completionMode: Indexed\n", "completions: 5\n", "parallelism: 5\n",
		"backoffLimitPerIndex: 1\n", `image: "lab/findball:1"`, `command: ["findball"]`, `"-db", "/data/shard-$(SHARD).db"`, `"-shard", "$(SHARD)/5"`,
		`"-parallel", "3"`, `requests: {cpu: "2", memory: "1Gi"}`, "metadata.annotations['batch.kubernetes.io/job-completion-index']",
		"claimName: findball-data", "restartPolicy: Never"} {
		if !strings.Contains(m, want) {
			t.Errorf("manifest lacks %q:\n%s", want, m)
		}
	}
	if strings.Contains(m, "\t") {
		t.Error("a tab in YAML")
	}
	// The campaign: the block under "campaign.json: |", four spaces in.
	_, rest, ok := strings.Cut(m, "  campaign.json: |\n")
	if !ok {
		t.Fatal("no campaign.json")
	}
	var block []string
	for l := range strings.SplitSeq(rest, "\n") {
		if !strings.HasPrefix(l, "    ") {
			break
		}
		block = append(block, l[4:])
	}
	got := findball.DefaultConfig() // as findball reads it
	if err := config.Decode(strings.NewReader(strings.Join(block, "\n")), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, cfg) {
		t.Errorf("the ConfigMap's campaign\n%+v\nwant\n%+v", got, cfg)
	}
}

func TestManifestInvalid(t *testing.T) {
	cfg := findball.DefaultConfig()
	for _, c := range []Config{{Shards: 201}, {Name: "Find_Ball"}, {Image: "a b"}, {CPU: -1}} {
		if _, err := Manifest(c, &cfg); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	cfg.Trials = 0
	if _, err := Manifest(Config{}, &cfg); err == nil {
		t.Error("an invalid campaign accepted")
	}
}
