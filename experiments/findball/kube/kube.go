// Package kube writes a find-ball campaign as a Kubernetes indexed Job
// (https://kubernetes.io/docs/concepts/workloads/controllers/job/,
// completionMode: Indexed): a ConfigMap holding the campaign, and a Job of
// one completion per shard whose pods run `findball run` on shard
// INDEX/COMPLETIONS into their own database on a shared volume. The index
// comes from the pod annotation batch.kubernetes.io/job-completion-index
// through the downward API.
package kube

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/robotd/robotd/experiments/findball"
)

// Config is the Job's shape.
type Config struct {
	// Name names the Job and its ConfigMap (default "findball").
	Name string
	// Image is the container image with findball on its PATH (default
	// "robotd/findball:latest").
	Image string
	// Shards is the Job's completions (default 4); Parallelism the pods
	// at once (default Shards).
	Shards, Parallelism int
	// CPU is each pod's CPU request and limit (default 1).
	CPU int
	// Memory is each pod's memory request and limit (default "1Gi").
	Memory string
	// Claim is the PersistentVolumeClaim mounted at /data for the shard
	// databases (default "findball-data"; ReadWriteMany when pods run on
	// several nodes).
	Claim string
	// BackoffLimitPerIndex is how often one shard's pod is retried
	// (default 1).
	BackoffLimitPerIndex int
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

func (c *Config) validate(trials int) error {
	if c.Name == "" {
		c.Name = "findball"
	}
	if c.Image == "" {
		c.Image = "robotd/findball:latest"
	}
	if c.Shards == 0 {
		c.Shards = 4
	}
	if c.Parallelism == 0 {
		c.Parallelism = c.Shards
	}
	if c.CPU == 0 {
		c.CPU = 1
	}
	if c.Memory == "" {
		c.Memory = "1Gi"
	}
	if c.Claim == "" {
		c.Claim = "findball-data"
	}
	if c.BackoffLimitPerIndex == 0 {
		c.BackoffLimitPerIndex = 1
	}
	var errs []error
	if !dnsLabel.MatchString(c.Name) || !dnsLabel.MatchString(c.Claim) {
		errs = append(errs, fmt.Errorf("kube: names %q and %q: want DNS labels", c.Name, c.Claim))
	}
	if c.Shards < 1 || c.Shards > trials {
		errs = append(errs, fmt.Errorf("kube: %d shards for %d trials: want 1 to %d", c.Shards, trials, trials))
	}
	if c.Parallelism < 1 || c.CPU < 1 || c.BackoffLimitPerIndex < 0 {
		errs = append(errs, errors.New("kube: parallelism and CPUs must be positive, the backoff limit not negative"))
	}
	if strings.ContainsAny(c.Image+c.Memory, " \n\"'") {
		errs = append(errs, fmt.Errorf("kube: image %q or memory %q has spaces or quotes", c.Image, c.Memory))
	}
	return errors.Join(errs...)
}

// Manifest returns the ConfigMap and the indexed Job, as YAML (every
// string a JSON string, which YAML reads as it is).
func Manifest(c Config, campaign *findball.Config) (string, error) {
	if err := campaign.Validate(); err != nil {
		return "", err
	}
	if err := c.validate(len(campaign.Plan())); err != nil {
		return "", err
	}
	js, err := json.MarshalIndent(campaign, "", "  ")
	if err != nil {
		return "", fmt.Errorf("kube: encoding the campaign: %w", err)
	}
	q := strconv.Quote
	var b strings.Builder
	indent := func(s string, n int) string {
		pad := strings.Repeat(" ", n)
		return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
	}
	fmt.Fprintf(&b, `# A find-ball campaign as a Kubernetes indexed Job (written by findball submit -k8s).
# Pod i runs shard i/%[3]d into /data/shard-i.db; a pod that fails is retried (the shard
# resumes). When the Job is complete, on the volume:
#   findball merge -db all.db shard-*.db && findball report -db all.db -out report
apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s
data:
  campaign.json: |
%[2]s
---
apiVersion: batch/v1
kind: Job
metadata:
  name: %[1]s
spec:
  completionMode: Indexed
  completions: %[3]d
  parallelism: %[4]d
  backoffLimitPerIndex: %[5]d
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: findball
          image: %[6]s
          command: ["findball"]
          env:
            - name: SHARD
              valueFrom:
                fieldRef:
                  fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"
          args: ["run", "-config", "/campaign/campaign.json", "-db", "/data/shard-$(SHARD).db",
                 "-out", "/data/report-$(SHARD)", "-shard", "$(SHARD)/%[3]d", "-parallel", %[7]s]
          resources:
            requests: {cpu: %[8]s, memory: %[9]s}
            limits: {cpu: %[8]s, memory: %[9]s}
          volumeMounts:
            - {name: campaign, mountPath: /campaign, readOnly: true}
            - {name: data, mountPath: /data}
      volumes:
        - name: campaign
          configMap: {name: %[1]s}
        - name: data
          persistentVolumeClaim: {claimName: %[10]s}
`, c.Name, indent(string(js), 4), c.Shards, c.Parallelism, c.BackoffLimitPerIndex, q(c.Image),
		q(strconv.Itoa(c.CPU+1)), q(strconv.Itoa(c.CPU)), q(c.Memory), c.Claim)
	return b.String(), nil
}
