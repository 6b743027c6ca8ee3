// Package archtest enforces design.md's dependency and time rules on the
// whole tree.
package archtest

import (
	"bytes"
	"encoding/json"
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
// find-ball experiment, the scenario tests).
var aboveRobot = map[string]bool{"cmd": true, "simrun": true, "experiment": true, "scenarios": true, "robot": true}

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
		{"backends/nao", "modules/motion", true}, // a backend on a module
		{"backends/nao", "runner", true},
		{"backends/sim", "proto/simspark", false},
		{"experiment", "cmd/robotd", true}, // a command imported
		{"runner", "robot", true},          // below robot, on robot
		{"debugview", "robot", true},
		{"backends/replay", "robot", true},
		{"simrun", "robot", false},
		{"cmd/robotd", "robot", false},
		{"experiment", "robot", false},
	} {
		why := dependencyViolation(m(tc.from), m(tc.to))
		if (why != "") != tc.bad {
			t.Errorf("%s → %s: violation %q, want one: %v", tc.from, tc.to, why, tc.bad)
		}
	}
}

var allowedForModules = map[string]bool{"hal": true, "blackboard": true, "msg": true, "config": true, "field": true}

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

// TestModulesTakeTimeFromTheTick forbids wall-clock time and unseeded global
// randomness in non-test files under modules/.
func TestModulesTakeTimeFromTheTick(t *testing.T) {
	forbidden := map[string]map[string]bool{
		"time":         {"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "Tick": true, "NewTimer": true, "NewTicker": true},
		"math/rand":    {"Float64": true, "Intn": true, "Int": true, "Int63": true, "NormFloat64": true, "Perm": true, "Shuffle": true, "Seed": true},
		"math/rand/v2": {"Float64": true, "IntN": true, "Int": true, "N": true, "NormFloat64": true, "Perm": true, "Shuffle": true},
	}
	files := goFiles(t, "modules")
	if len(files) == 0 {
		t.Fatal("no files under modules/")
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]string{} // local name -> import path
		for _, im := range af.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(path)
			if path == "math/rand/v2" {
				name = "rand"
			}
			if im.Name != nil {
				name = im.Name.Name
			}
			names[name] = path
		}
		ast.Inspect(af, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if fns := forbidden[names[id.Name]]; fns[sel.Sel.Name] {
				t.Errorf("%s: %s.%s: modules take time from the tick and randomness from a seeded source",
					fset.Position(sel.Pos()), names[id.Name], sel.Sel.Name)
			}
			return true
		})
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
		for _, l := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(l, "package ") {
				break
			}
			if strings.HasPrefix(l, "//go:build") && strings.Contains(l, "sim") {
				r, _ := filepath.Rel(root(t), f)
				tagged = append(tagged, r)
			}
		}
	}
	want := "cmd/robotd/backend_real.go,cmd/robotd/backend_sim.go"
	if got := strings.Join(tagged, ","); got != want {
		t.Fatalf("files with a sim build tag: %s; want exactly %s", got, want)
	}
}
