package archtest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCommandsBuildFromTheRoot: `go build ./cmd/X` run at the repository
// root writes the binary X there, which fails if X is a directory (or
// overwrites a file) of the tree.
func TestCommandsBuildFromTheRoot(t *testing.T) {
	dir := root(t)
	cmds, err := os.ReadDir(filepath.Join(dir, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cmds {
		if !c.IsDir() {
			continue
		}
		n++
		if _, err := os.Lstat(filepath.Join(dir, c.Name())); err == nil {
			t.Errorf("cmd/%s: the root has an entry %q, so `go build ./cmd/%s` cannot write its binary there", c.Name(), c.Name(), c.Name())
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if n < 3 {
		t.Fatalf("found %d commands under cmd/, want robotd, findball and embeddedsim at least", n)
	}
}

// TestRunOutputsAreIgnored: the binaries `go build ./cmd/...` writes at
// the root and the files the commands write by default there are ignored
// by git, so that running the README's commands leaves a clean tree.
func TestRunOutputsAreIgnored(t *testing.T) {
	dir := root(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: cannot ask it what it ignores")
	}
	if err := exec.Command("git", "-C", dir, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("the tree is not a git checkout (an exported copy): nothing to ignore")
	}
	cmds, err := os.ReadDir(filepath.Join(dir, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range cmds {
		if c.IsDir() {
			paths = append(paths, c.Name()) // go build ./cmd/...
		}
	}
	for _, p := range append(paths,
		"robotd.json",                                       // robotd -print-config > robotd.json
		"recordings/robotd-1.rlog",                          // record.dir's default
		"findball.db", "findball.db-wal", "findball.db-shm", // findball -db's default
		"findball-out/report.md",         // findball -out's default
		"findball-slurm/findball.sbatch", // findball submit -dir's default
		"simframes-out/truth.jsonl",      // simframes -out's default
		"cmd/robotd/robotd.test",         // go test -c
	) {
		cmd := exec.Command("git", "-C", dir, "check-ignore", "-q", "--no-index", p)
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == 1 {
				t.Errorf("%s is not ignored by .gitignore", p)
				continue
			}
			t.Fatalf("git check-ignore %s: %v", p, err)
		}
	}
}
