// Command racefree prints the packages, of those named, whose tests the
// race detector has nothing to find in: neither the package (its tests
// included) nor any package of the main module that its test binary links
// starts a goroutine, and the test binary links no package from outside
// the standard library and the main module. The race detector only reports
// accesses from two goroutines (https://go.dev/doc/articles/race_detector),
// so scripts/test runs these packages' tests without it.
//
//	racefree [-tags TAGS] PACKAGES...
//
// A Go file counts as starting goroutines when it has a go statement;
// calls a function or method named Go (sync.WaitGroup, errgroup),
// Parallel or RunParallel (parallel tests and benchmarks), AfterFunc
// (time, context), Notify or NotifyContext (os/signal), SetFinalizer or
// AddCleanup (runtime: they run on the finalizer goroutine), Pull or Pull2
// (iter); or imports a standard package that runs the caller's code or
// I/O on goroutines of its own (net/http and net/http/httptest run
// handlers on them, os/exec copies into a caller's writer on them,
// os/signal delivers on them; net does not: its connections do not run
// the caller's code). The
// check reads the syntax, not the types: a name that matches in unrelated
// code keeps the race detector on, never the other way round.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "racefree:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("racefree", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tags := fs.String("tags", "", "the build tags, as go list's -tags")
	dir := fs.String("C", "", "run go list in this directory (default: the current one)")
	why := fs.Bool("why", false, "say on standard error, for each package left out, what starts goroutines in its test binary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("no packages named")
	}
	pkgs, err := list(*dir, *tags, fs.Args())
	if err != nil {
		return err
	}
	free, notFree, err := raceFree(pkgs)
	if err != nil {
		return err
	}
	if *why {
		for _, n := range notFree {
			if _, err := fmt.Fprintln(stderr, n); err != nil {
				return err
			}
		}
	}
	for _, p := range free {
		if _, err := fmt.Fprintln(stdout, p); err != nil {
			return err
		}
	}
	return nil
}

// pkg is the part of `go list -json` racefree reads.
type pkg struct {
	ImportPath string
	Dir        string
	Standard   bool
	Module     *struct{ Main bool }
	GoFiles    []string
	CgoFiles   []string
	Deps       []string
	Error      *struct{ Err string }
}

// list runs go list over patterns with their tests and every dependency.
func list(dir, tags string, patterns []string) ([]pkg, error) {
	args := []string{"list", "-e", "-deps", "-test", "-json=ImportPath,Dir,Standard,Module,GoFiles,CgoFiles,Deps,Error"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command("go", append(args, patterns...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w: %s", strings.Join(patterns, " "), err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// raceFree returns the packages with a test binary among pkgs (go list
// -deps -test's output) that link nothing that starts goroutines, sorted,
// and for each of the others a line saying what does.
func raceFree(pkgs []pkg) (free, notFree []string, err error) {
	// concurrent[p] says why package p (a test variant lists its test
	// files too) starts goroutines, or that it is outside the standard
	// library and the main module (its code is not read: it counts as
	// concurrent).
	concurrent := map[string]string{}
	var tests []pkg
	for _, p := range pkgs {
		if p.Standard {
			continue
		}
		if strings.HasSuffix(p.ImportPath, ".test") {
			tests = append(tests, p)
			continue
		}
		if p.Error != nil {
			return nil, nil, fmt.Errorf("package %s: %s", p.ImportPath, p.Error.Err)
		}
		if p.Module == nil || !p.Module.Main {
			concurrent[p.ImportPath] = "outside the main module"
			continue
		}
		for _, f := range slices.Concat(p.GoFiles, p.CgoFiles) {
			what, err := startsGoroutines(filepath.Join(p.Dir, f))
			if err != nil {
				return nil, nil, err
			}
			if what != "" {
				concurrent[p.ImportPath] = f + ": " + what
				break
			}
		}
	}
	for _, t := range tests {
		name := strings.TrimSuffix(t.ImportPath, ".test")
		i := slices.IndexFunc(t.Deps, func(d string) bool { return concurrent[d] != "" })
		if i < 0 {
			free = append(free, name)
			continue
		}
		notFree = append(notFree, fmt.Sprintf("%s: %s (%s)", name, t.Deps[i], concurrent[t.Deps[i]]))
	}
	slices.Sort(free)
	slices.Sort(notFree)
	return free, notFree, nil
}

// goroutineCalls are the names of the functions and methods that start
// goroutines, or run code on one the runtime or library starts.
var goroutineCalls = map[string]bool{
	"Go": true, "Parallel": true, "RunParallel": true, "AfterFunc": true,
	"Notify": true, "NotifyContext": true, "SetFinalizer": true, "AddCleanup": true,
	"Pull": true, "Pull2": true,
}

// goroutineImports are the standard packages that run a caller's code or
// I/O on goroutines of their own.
var goroutineImports = map[string]bool{
	"net/http": true, "net/http/httptest": true, "os/exec": true, "os/signal": true,
}

// startsGoroutines says what in the Go file at path starts goroutines
// (see the package comment), "" when nothing does.
func startsGoroutines(path string) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return sourceStartsGoroutines(path, src)
}

func sourceStartsGoroutines(name string, src []byte) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return "", fmt.Errorf("parsing %s: %w", name, err)
	}
	for _, im := range f.Imports {
		path, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			return "", fmt.Errorf("%s: import %s: %w", name, im.Path.Value, err)
		}
		if goroutineImports[path] {
			return "imports " + path, nil
		}
	}
	what := ""
	ast.Inspect(f, func(n ast.Node) bool {
		if what != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			what = fmt.Sprintf("line %d: a go statement", fset.Position(n.Pos()).Line)
		case *ast.CallExpr:
			name := ""
			switch fn := n.Fun.(type) {
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			case *ast.Ident:
				name = fn.Name
			}
			if goroutineCalls[name] {
				what = fmt.Sprintf("line %d: calls %s", fset.Position(n.Pos()).Line, name)
			}
		}
		return what == ""
	})
	return what, nil
}
