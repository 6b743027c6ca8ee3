package slurmtest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCluster starts a cluster, runs a job array of two tasks on it and a
// job that outlives the test (sleep); stopping the cluster leaves no
// process of it behind.
func TestCluster(t *testing.T) {
	c := Start(t, Config{})
	ctx := context.Background()
	out, err := c.Command(ctx, "sinfo", "-h", "-o", "%c").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != strconv.Itoa(c.CPUs) {
		t.Errorf("the node has %s CPUs, want %d", got, c.CPUs)
	}
	res := filepath.Join(c.Dir, "out-%a.txt")
	out, err = c.Command(ctx, "sbatch", "--parsable", "--array=0-1", "--output="+res,
		"--wrap", "echo task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT").CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v: %s", err, out)
	}
	if _, err := c.Command(ctx, "sbatch", "--wrap", "sleep 600").CombinedOutput(); err != nil {
		t.Fatalf("sbatch: %v", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for i := range 2 {
		name := strings.Replace(res, "%a", strconv.Itoa(i), 1)
		want := "task " + strconv.Itoa(i) + " of 2\n"
		for {
			b, _ := os.ReadFile(name)
			if string(b) == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s holds %q, want %q; logs:\n%s", name, b, want, c.Logs())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	// The sleep must have started before the cluster stops.
	for {
		out, _ := c.Command(ctx, "squeue", "-h", "-t", "RUNNING", "-o", "%j").Output()
		if strings.Contains(string(out), "wrap") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sleep job never ran; logs:\n%s", c.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(c.marked()) == 0 {
		t.Fatal("no process carries the cluster's marker while it runs")
	}
	c.Stop()
	if left := c.marked(); len(left) > 0 {
		t.Errorf("processes left after Stop: %v", left)
	}
	for _, p := range []*proc{c.munged, c.ctld, c.slurmd} {
		if !p.exited() {
			t.Errorf("%s still runs", p.name)
		}
	}
}
