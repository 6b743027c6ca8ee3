// Package archtest enforces design.md's dependency and time rules on the
// whole tree.
package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/robotd/robotd"

type pkg struct {
	ImportPath string
	Deps       []string
}

// listDeps runs `go list -deps` style listing of every package with its
// transitive dependencies, for the given build tags.
func listDeps(t *testing.T, tags string) []pkg {
	t.Helper()
	args := []string{"list", "-json=ImportPath,Deps"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, module+"/...")
	cmd := exec.Command("go", args...)
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("repository root not found at %s", dir)
	}
	return dir
}

func rel(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, module), "/") }

// area returns "modules/<name>", "backends", "cmd", or the top directory.
func area(p string) string {
	r := rel(p)
	parts := strings.Split(r, "/")
	if parts[0] == "modules" && len(parts) > 1 {
		return "modules/" + parts[1]
	}
	return parts[0]
}

func TestDependencyRules(t *testing.T) {
	for _, tags := range []string{"", "sim"} {
		for _, p := range listDeps(t, tags) {
			for _, d := range p.Deps {
				if why := dependencyViolation(p.ImportPath, d); why != "" {
					t.Errorf("[tags=%q] %s", tags, why)
				}
			}
		}
	}
}

// aboveRobot are the areas that may wire robots from package robot: the
// commands and what runs whole robots (in-process simulation runs, the
// experiments, the scenario tests).
var aboveRobot = map[string]bool{"cmd": true, "simrun": true, "experiments": true, "scenarios": true, "robot": true}

// dependencyViolation says why from may not depend on to (both import
// paths), or "" if it may.
func dependencyViolation(from, to string) string {
	if !strings.HasPrefix(to, module+"/") || !strings.HasPrefix(from, module+"/") {
		return ""
	}
	fa, ta := area(from), area(to)
	switch {
	case strings.HasPrefix(fa, "modules/") && strings.HasPrefix(ta, "modules/") && ta != fa:
		return rel(from) + " depends on another module, " + rel(to)
	case strings.HasPrefix(fa, "modules/") && !allowedForModules[ta] && !strings.HasPrefix(ta, "modules/"):
		return rel(from) + " depends on " + rel(to) + "; modules may use only " + strings.Join(keys(allowedForModules), ", ")
	case fa == "nn" && ta != "nn":
		return rel(from) + " depends on " + rel(to) + "; nn, the network engine, stands on the standard library alone"
	case fa == "backends" && (strings.HasPrefix(ta, "modules/") || ta == "cmd" || ta == "runner"):
		return "backend " + rel(from) + " depends on " + rel(to)
	case fa != "cmd" && ta == "cmd":
		return rel(from) + " depends on a command, " + rel(to)
	case ta == "robot" && !aboveRobot[fa]:
		return rel(from) + " depends on robot, which wires modules into robots: only " + strings.Join(keys(aboveRobot), ", ") + " may"
	}
	return ""
}

// TestDependencyRulesCatchViolations: each rule rejects a deliberate
// violation and lets the tree's kind of dependency through.
func TestDependencyRulesCatchViolations(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	for _, tc := range []struct {
		from, to string
		bad      bool
	}{
		{"modules/behaviour", "modules/motion", true},           // a module on another
		{"modules/motion", "backends/sim", true},                // a module on a backend
		{"modules/perception", "simserver", true},               // a module on the simulator
		{"modules/perception", "simrun", true},                  // a module on simulation runs
		{"modules/behaviour/roles", "modules/behaviour", false}, // within one module
		{"modules/motion", "hal", false},
		{"modules/vision", "nn", false}, // the network engine
		{"nn", "hal", true},             // the engine is a leaf
		{"nn", "nn/internal/gentile", false},
		{"backends/nao", "modules/motion", true}, // a backend on a module
		{"backends/nao", "runner", true},
		{"backends/sim", "proto/simspark", false},
		{"experiments/findball", "cmd/robotd", true}, // a command imported
		{"runner", "robot", true},                    // below robot, on robot
		{"debugview", "robot", true},
		{"backends/replay", "robot", true},
		{"simrun", "robot", false},
		{"cmd/robotd", "robot", false},
		{"experiments/findball", "robot", false},
	} {
		why := dependencyViolation(m(tc.from), m(tc.to))
		if (why != "") != tc.bad {
			t.Errorf("%s → %s: violation %q, want one: %v", tc.from, tc.to, why, tc.bad)
		}
	}
}

// allowedForModules are what modules may import: the robot's types and
// configuration, and nn, the pure-Go network engine (a leaf: it imports
// only the standard library).
var allowedForModules = map[string]bool{"hal": true, "blackboard": true, "msg": true, "config": true, "field": true, "nn": true}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// goFiles returns the repository's Go files under dir (relative to root).
func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	base := filepath.Join(root(t), dir)
	err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != base {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// forbiddenInModules are the wall-clock and unseeded random functions no
// module may call.
var forbiddenInModules = map[string]map[string]bool{
	"time":         {"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "Tick": true, "NewTimer": true, "NewTicker": true},
	"math/rand":    {"Float64": true, "Intn": true, "Int": true, "Int63": true, "NormFloat64": true, "Perm": true, "Shuffle": true, "Seed": true},
	"math/rand/v2": {"Float64": true, "IntN": true, "Int": true, "N": true, "NormFloat64": true, "Perm": true, "Shuffle": true},
}

// clockViolations lists where the Go file src (named path) calls wall-clock
// time or unseeded global randomness.
func clockViolations(path string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		return nil, err
	}
	names := map[string]string{} // local name -> import path
	for _, im := range af.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(p)
		if p == "math/rand/v2" {
			name = "rand"
		}
		if im.Name != nil {
			name = im.Name.Name
		}
		names[name] = p
	}
	var out []string
	ast.Inspect(af, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if fns := forbiddenInModules[names[id.Name]]; fns[sel.Sel.Name] {
			out = append(out, fmt.Sprintf("%s: %s.%s: modules take time from the tick and randomness from a seeded source",
				fset.Position(sel.Pos()), names[id.Name], sel.Sel.Name))
		}
		return true
	})
	return out, nil
}

// TestModulesTakeTimeFromTheTick forbids wall-clock time and unseeded global
// randomness in non-test files under modules/.
func TestModulesTakeTimeFromTheTick(t *testing.T) {
	files := goFiles(t, "modules")
	if len(files) == 0 {
		t.Fatal("no files under modules/")
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := clockViolations(f, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range v {
			t.Error(s)
		}
	}
}

// TestClockRuleCatchesAViolation: the time rule rejects a module's wall
// clock and global randomness, renamed imports included, and lets tick
// time and a seeded source through.
func TestClockRuleCatchesAViolation(t *testing.T) {
	for _, tc := range []struct {
		src string
		bad bool
	}{
		{"package m\nimport \"time\"\nvar t = time.Now()", true},
		{"package m\nimport wall \"time\"\nfunc f() { wall.Sleep(1) }", true},
		{"package m\nimport \"math/rand/v2\"\nvar x = rand.Float64()", true},
		{"package m\nimport \"time\"\nvar d = 3 * time.Second", false},
		{"package m\nimport \"math/rand/v2\"\nvar r = rand.New(rand.NewPCG(1, 2))\nvar x = r.Float64()", false},
	} {
		v, err := clockViolations("m.go", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if (len(v) > 0) != tc.bad {
			t.Errorf("%q: violations %q, want some: %v", tc.src, v, tc.bad)
		}
	}
}

// simTagged reports whether the Go file src has a build constraint naming
// the sim tag (before its package clause).
func simTagged(src []byte) bool {
	for _, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "package ") {
			return false
		}
		if strings.HasPrefix(l, "//go:build") && strings.Contains(l, "sim") {
			return true
		}
	}
	return false
}

// TestBuildTagRuleCatchesAViolation: a file tagged sim (or !sim) is
// found; other constraints and text after the package clause are not.
func TestBuildTagRuleCatchesAViolation(t *testing.T) {
	for _, tc := range []struct {
		src    string
		tagged bool
	}{
		{"//go:build sim\n\npackage sim", true},
		{"// Package x.\n//go:build !sim\npackage x", true},
		{"//go:build linux\n\npackage x", false},
		{"package x\n\n//go:build sim", false},
	} {
		if got := simTagged([]byte(tc.src)); got != tc.tagged {
			t.Errorf("%q: tagged %v, want %v", tc.src, got, tc.tagged)
		}
	}
}

// TestBuildTagsOnlyInCmd checks that exactly two non-test files carry build
// tags, and that they are cmd/robotd's backend constructors.
func TestBuildTagsOnlyInCmd(t *testing.T) {
	var tagged []string
	for _, f := range goFiles(t, ".") {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if simTagged(src) {
			r, _ := filepath.Rel(root(t), f)
			tagged = append(tagged, r)
		}
	}
	want := "cmd/robotd/backend_real.go,cmd/robotd/backend_sim.go"
	if got := strings.Join(tagged, ","); got != want {
		t.Fatalf("files with a sim build tag: %s; want exactly %s", got, want)
	}
}
