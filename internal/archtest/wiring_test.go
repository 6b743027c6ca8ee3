package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// moduleConstructions returns where f builds a module itself: a call of
// New from a package under modules/ (module + "/modules/...") whose New
// returns a module (isModule; a package such as modules/vision whose New
// returns a library type, its image pipeline, is not one).
func moduleConstructions(fset *token.FileSet, f *ast.File, isModule func(importPath string) bool) []token.Position {
	mods := map[string]bool{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if !strings.HasPrefix(p, module+"/modules/") || !isModule(p) {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		mods[name] = true
	}
	var out []token.Position
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "New" {
			if id, ok := sel.X.(*ast.Ident); ok && mods[id.Name] {
				out = append(out, fset.Position(call.Pos()))
			}
		}
		return true
	})
	return out
}

// TestModulesAreWiredInRobot: outside the modules themselves and package
// robot, no non-test code builds a module (modules/X.New): commands,
// simulation runs and the experiment ask robot for a robot's modules.
func TestModulesAreWiredInRobot(t *testing.T) {
	files := goFiles(t, ".")
	checked := 0
	for _, f := range files {
		r, _ := filepath.Rel(root(t), f)
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(r, "modules/") || strings.HasPrefix(r, "robot/") {
			continue
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, p := range moduleConstructions(fset, af, newReturnsModule(t)) {
			t.Errorf("%s: builds a module; robot/ wires modules (ask it for a robot's modules)", p)
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files", checked)
	}
}

// TestWiringRuleCatchesAViolation: the rule finds a command that builds
// motion itself, also under another import name, and lets robot's
// wiring through.
func TestWiringRuleCatchesAViolation(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"builds motion", `package main
import "github.com/robotd/robotd/modules/motion"
func f() { _ = motion.New(motion.DefaultConfig()) }`, 1},
		{"renamed import", `package main
import mo "github.com/robotd/robotd/modules/motion"
func f() { _ = mo.New(mo.DefaultConfig()) }`, 1},
		{"asks robot", `package main
import ("github.com/robotd/robotd/robot"; "github.com/robotd/robotd/modules/motion")
func f() { c := robot.DefaultConfig(); _ = robot.Modules(&c); _ = motion.DefaultHeadConfig() }`, 0},
		{"builds vision's image pipeline (a library; robot wraps it)", `package main
import "github.com/robotd/robotd/modules/vision"
func f() { _, _ = vision.New(vision.DefaultConfig()) }`, 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(moduleConstructions(fset, f, newReturnsModule(t))); got != tc.want {
			t.Errorf("%s: %d constructions found, want %d", tc.name, got, tc.want)
		}
	}
}

// newReturnsModule returns whether the package at an import path under
// module has a func New whose first result's type (pointer or not) has a
// Tick method declared in that package: a runner.Module.
func newReturnsModule(t *testing.T) func(importPath string) bool {
	memo := map[string]bool{}
	return func(importPath string) bool {
		if v, ok := memo[importPath]; ok {
			return v
		}
		rel := strings.TrimPrefix(importPath, module+"/")
		dir := filepath.Join(root(t), rel)
		fset := token.NewFileSet()
		var result string
		ticks := map[string]bool{}
		for _, f := range goFiles(t, rel) {
			if filepath.Dir(f) != dir || strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				switch {
				case fn.Recv == nil && fn.Name.Name == "New" && fn.Type.Results != nil && len(fn.Type.Results.List) > 0:
					result = typeName(fn.Type.Results.List[0].Type)
				case fn.Recv != nil && fn.Name.Name == "Tick" && len(fn.Recv.List) == 1:
					ticks[typeName(fn.Recv.List[0].Type)] = true
				}
			}
		}
		v := result != "" && ticks[result]
		memo[importPath] = v
		return v
	}
}

// typeName is the name of a type expression T or *T ("" for others).
func typeName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
