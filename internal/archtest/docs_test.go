package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The commands in the README's and docs/'s shell blocks are checked as
// written: each block parses as bash (bash -n), and every command of the
// repository's own (go test, go run, go build and the binaries of cmd/)
// names packages that exist, test and benchmark patterns that match a
// function of the package, and flags its command or test binary defines.
// Running them is the docs' reader's job; most run for minutes.

// docCommand is one command of a doc's shell block.
type docCommand struct {
	file string // the doc, relative to the repository root
	line int    // its first line in the doc
	argv []string
}

// shellBlocks returns the shell code blocks of a Markdown file with the
// line number of each block's first line.
func shellBlocks(src string) (blocks []string, lines []int) {
	var cur []string
	in, start := false, 0
	for i, l := range strings.Split(src, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case !in && (t == "```sh" || t == "```bash" || t == "```shell" || t == "```console"):
			in, start, cur = true, i+2, nil
		case in && t == "```":
			in = false
			blocks, lines = append(blocks, strings.Join(cur, "\n")), append(lines, start)
		case in:
			cur = append(cur, l)
		}
	}
	return blocks, lines
}

// splitCommands splits a shell block into simple commands: continuation
// lines joined, comments dropped, split at |, &&, || and ;, redirections
// removed; words unquoted as the shell would (no expansion).
func splitCommands(block string, first int) []docCommand {
	var out []docCommand
	lines := strings.Split(block, "\n")
	for i := 0; i < len(lines); i++ {
		start := first + i
		l := lines[i]
		for strings.HasSuffix(strings.TrimRight(l, " "), "\\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(strings.TrimRight(l, " "), "\\") + " " + lines[i]
		}
		var words []string
		var w strings.Builder
		inWord, q := false, rune(0)
		flush := func() {
			if inWord {
				words = append(words, w.String())
			}
			w.Reset()
			inWord = false
		}
		end := func() {
			flush()
			if argv := dropRedirections(words); len(argv) > 0 {
				out = append(out, docCommand{line: start, argv: argv})
			}
			words = nil
		}
		rs := []rune(l)
		for j := 0; j < len(rs); j++ {
			c := rs[j]
			switch {
			case q != 0 && c == q:
				q = 0
			case q != 0:
				w.WriteRune(c)
			case c == '\'' || c == '"':
				q, inWord = c, true
			case c == '#' && !inWord:
				j = len(rs)
			case c == ' ' || c == '\t':
				flush()
			case c == ';' || (c == '|') || (c == '&' && j+1 < len(rs) && rs[j+1] == '&'):
				if c != ';' && j+1 < len(rs) && rs[j+1] == c {
					j++
				}
				end()
			default:
				w.WriteRune(c)
				inWord = true
			}
		}
		end()
	}
	return out
}

// dropRedirections removes >, 2>&1, >file, <file and their targets.
func dropRedirections(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == ">" || w == ">>" || w == "<" || w == "2>" {
			i++
			continue
		}
		if strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "2>") {
			continue
		}
		out = append(out, w)
	}
	return out
}

// docChecker checks doc commands against the repository at root.
type docChecker struct {
	root  string
	flags map[string]map[string]bool // package dir → flag names its sources define (tests: with test files)
	funcs map[string]map[string]bool // package dir → top-level func names in its test files
}

func newDocChecker(root string) *docChecker {
	return &docChecker{root: root, flags: map[string]map[string]bool{}, funcs: map[string]map[string]bool{}}
}

// goTestFlags are go test's and the test binary's own flags; those marked
// true take a value.
var goTestFlags = map[string]bool{
	"run": true, "bench": true, "benchtime": true, "count": true, "cpu": true, "tags": true,
	"timeout": true, "fuzz": true, "fuzztime": true, "parallel": true, "cpuprofile": true,
	"memprofile": true, "o": true, "skip": true, "coverprofile": true, "exec": true, "p": true,
	"benchmem": false, "race": false, "v": false, "short": false, "json": false, "failfast": false,
	"cover": false, "trimpath": false, "x": false,
}

// goBuildFlags are go build's and go run's flags used in the docs; true
// takes a value.
var goBuildFlags = map[string]bool{"tags": true, "o": true, "race": false, "trimpath": false, "ldflags": true, "p": true, "x": false, "v": false}

// check returns what is wrong with c ("" if nothing).
func (d *docChecker) check(c docCommand) []string {
	argv := c.argv
	// Leading environment assignments and nice.
	for len(argv) > 0 && regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`).MatchString(argv[0]) {
		argv = argv[1:]
	}
	if len(argv) >= 3 && argv[0] == "nice" && argv[1] == "-n" {
		argv = argv[3:]
	}
	if len(argv) == 0 {
		return nil
	}
	switch prog := strings.TrimPrefix(argv[0], "./"); {
	case prog == "go" && len(argv) > 1 && argv[1] == "test":
		return d.checkGoTest(argv[2:])
	case prog == "go" && len(argv) > 1 && (argv[1] == "run" || argv[1] == "build" || argv[1] == "vet"):
		return d.checkGoRunBuild(argv[1], argv[2:])
	case prog == "bash" && len(argv) > 1:
		if _, err := os.Stat(filepath.Join(d.root, argv[1])); err != nil {
			return []string{fmt.Sprintf("bash %s: no such script", argv[1])}
		}
	default:
		if dir := filepath.Join("cmd", prog); d.isDir(dir) {
			return d.checkFlags(dir, false, argv[1:], nil)
		}
	}
	return nil
}

func (d *docChecker) isDir(dir string) bool {
	fi, err := os.Stat(filepath.Join(d.root, dir))
	return err == nil && fi.IsDir()
}

// pkgDirs resolves ./x and ./x/... to the package directories they name.
func (d *docChecker) pkgDirs(pat string) ([]string, error) {
	if !strings.HasPrefix(pat, "./") && pat != "." {
		return nil, fmt.Errorf("package %q: the docs name packages by path (./dir)", pat)
	}
	p := strings.TrimPrefix(pat, "./")
	if dir, ok := strings.CutSuffix(p, "/..."); ok || p == "..." {
		if p == "..." {
			dir = "."
		}
		if !d.isDir(dir) {
			return nil, fmt.Errorf("package %s: no directory %s", pat, dir)
		}
		return nil, nil // a tree: every package in it
	}
	if p == "" || p == "." {
		p = "."
	}
	m, _ := filepath.Glob(filepath.Join(d.root, p, "*.go"))
	if len(m) == 0 {
		return nil, fmt.Errorf("package %s: no Go files in %s", pat, p)
	}
	return []string{p}, nil
}

func (d *docChecker) checkGoTest(args []string) []string {
	var errs []string
	var dirs []string
	var run, bench string
	var extra []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-args" {
			extra = args[i+1:]
			break
		}
		if name, val, ok := flagOf(a); ok {
			takes, known := goTestFlags[strings.TrimPrefix(name, "test.")]
			if !known {
				errs = append(errs, fmt.Sprintf("go test: unknown flag -%s", name))
				continue
			}
			if takes && val == nil {
				if i+1 >= len(args) {
					errs = append(errs, fmt.Sprintf("go test: -%s wants a value", name))
					break
				}
				i++
				v := args[i]
				val = &v
			}
			switch name {
			case "run":
				run = *val
			case "bench":
				bench = *val
			}
			continue
		}
		ds, err := d.pkgDirs(a)
		if err != nil {
			errs = append(errs, "go test: "+err.Error())
		}
		dirs = append(dirs, ds...)
	}
	for _, dir := range dirs {
		for _, pat := range []struct{ kind, re string }{{"Test", run}, {"Benchmark", bench}} {
			if pat.re == "" || pat.re == "XXX" || pat.re == "^$" || pat.re == "." {
				continue
			}
			top := strings.Split(pat.re, "/")[0]
			re, err := regexp.Compile(top)
			if err != nil {
				errs = append(errs, fmt.Sprintf("go test %s: pattern %q: %v", dir, pat.re, err))
				continue
			}
			found := false
			for f := range d.testFuncs(dir) {
				if strings.HasPrefix(f, pat.kind) && re.MatchString(f) {
					found = true
					break
				}
			}
			if !found {
				errs = append(errs, fmt.Sprintf("go test ./%s: no %s function matches %q", dir, pat.kind, pat.re))
			}
		}
		if len(extra) > 0 {
			errs = append(errs, d.checkFlags(dir, true, extra, nil)...)
		}
	}
	return errs
}

func (d *docChecker) checkGoRunBuild(verb string, args []string) []string {
	var errs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name, val, ok := flagOf(a); ok {
			takes, known := goBuildFlags[name]
			if !known {
				errs = append(errs, fmt.Sprintf("go %s: unknown flag -%s", verb, name))
				continue
			}
			if takes && val == nil {
				i++
			}
			continue
		}
		dirs, err := d.pkgDirs(a)
		if err != nil {
			return append(errs, fmt.Sprintf("go %s: %v", verb, err))
		}
		if verb == "run" && len(dirs) == 1 {
			return append(errs, d.checkFlags(dirs[0], false, args[i+1:], nil)...)
		}
	}
	return errs
}

// checkFlags checks that every -flag in args is one the package's sources
// (and, for tests, its test files) define. A word after a flag without =
// is its value unless it is a flag itself; plain words are subcommands or
// arguments.
func (d *docChecker) checkFlags(dir string, tests bool, args []string, _ []string) []string {
	defined := d.definedFlags(dir, tests)
	var errs []string
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, ok := flagOf(a)
		if !ok {
			continue
		}
		if tests {
			name = strings.TrimPrefix(name, "test.")
		}
		if !defined[name] && !(name == "h" || name == "help") {
			errs = append(errs, fmt.Sprintf("./%s: no flag -%s", dir, name))
		}
	}
	return errs
}

// flagOf splits -name or -name=value (also --name); numbers (-3, -0.5) and
// "-" are not flags.
func flagOf(a string) (name string, val *string, ok bool) {
	if len(a) < 2 || a[0] != '-' || (a[1] >= '0' && a[1] <= '9') || a[1] == '.' {
		return "", nil, false
	}
	a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	if n, v, has := strings.Cut(a, "="); has {
		return n, &v, true
	}
	return a, nil, true
}

// flagFuncs are the flag package's (and FlagSet's) definers: the flag's
// name is their first string-literal argument.
var flagFuncs = map[string]bool{
	"String": true, "Bool": true, "Int": true, "Int64": true, "Uint": true, "Uint64": true, "Float64": true,
	"Duration": true, "Var": true, "Func": true, "BoolFunc": true, "TextVar": true, "StringVar": true,
	"BoolVar": true, "IntVar": true, "Int64Var": true, "UintVar": true, "Uint64Var": true, "Float64Var": true,
	"DurationVar": true,
}

// definedFlags returns the flag names defined in dir's Go files (with its
// test files when tests is set), and in the non-test files of the
// repository's packages those files import directly (a command may
// declare flags through a package's helper, e.g. slurm.AddFlags): the
// first string literal argument of a call of a flagFuncs method.
func (d *docChecker) definedFlags(dir string, tests bool) map[string]bool {
	key := dir + fmt.Sprint(tests)
	if m, ok := d.flags[key]; ok {
		return m
	}
	m := map[string]bool{}
	imports := map[string]bool{}
	d.parseDir(dir, tests, func(f *ast.File) {
		literalFlags(f, m)
		for _, im := range f.Imports {
			if p, err := strconv.Unquote(im.Path.Value); err == nil && strings.HasPrefix(p, module+"/") {
				imports[rel(p)] = true
			}
		}
	})
	for im := range imports {
		if im != dir {
			d.parseDir(im, false, func(f *ast.File) { literalFlags(f, m) })
		}
	}
	d.flags[key] = m
	return m
}

// literalFlags adds the flag names f defines to m: the first string
// literal argument of a call of a flagFuncs method.
func literalFlags(f *ast.File, m map[string]bool) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !flagFuncs[sel.Sel.Name] {
			return true
		}
		for _, a := range call.Args {
			if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					m[s] = true
				}
				break
			}
		}
		return true
	})
}

// testFuncs returns the top-level function names of dir's test files.
func (d *docChecker) testFuncs(dir string) map[string]bool {
	if m, ok := d.funcs[dir]; ok {
		return m
	}
	m := map[string]bool{}
	d.parseDir(dir, true, func(f *ast.File) {
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				m[fn.Name.Name] = true
			}
		}
	})
	d.funcs[dir] = m
	return m
}

// parseDir parses dir's Go files (test files only when tests is set, with
// the others) and calls each.
func (d *docChecker) parseDir(dir string, tests bool, each func(*ast.File)) {
	files, _ := filepath.Glob(filepath.Join(d.root, dir, "*.go"))
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") && !tests {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err == nil {
			each(f)
		}
	}
}

// docFiles are README.md and every Markdown file under docs/.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".md") {
			r, _ := filepath.Rel(root, p)
			files = append(files, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestDocCommands: every shell block of the README and docs/ parses as
// bash, and the repository's commands in it name existing packages,
// tests, benchmarks and flags.
func TestDocCommands(t *testing.T) {
	root := root(t)
	bash, bashErr := exec.LookPath("bash")
	d := newDocChecker(root)
	checked := 0
	for _, file := range docFiles(t, root) {
		src, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		blocks, lines := shellBlocks(string(src))
		for i, b := range blocks {
			if bashErr == nil {
				cmd := exec.Command(bash, "-n")
				cmd.Stdin = strings.NewReader(b)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s:%d: the block does not parse as bash: %v %s", file, lines[i], err, out)
				}
			}
			for _, c := range splitCommands(b, lines[i]) {
				checked++
				for _, e := range d.check(c) {
					t.Errorf("%s:%d: %s", file, c.line, e)
				}
			}
		}
	}
	if bashErr != nil {
		t.Errorf("bash not found (%v): the blocks' syntax was not checked", bashErr)
	}
	t.Logf("%d commands checked", checked)
	if checked < 40 {
		t.Errorf("only %d commands found in the docs' shell blocks", checked)
	}
}

// TestDocCommandsRuleCatchesViolations: the check finds a missing
// package, a test pattern that matches nothing, an unknown test flag, an
// unknown command flag, and lets good commands through.
func TestDocCommandsRuleCatchesViolations(t *testing.T) {
	d := newDocChecker(root(t))
	for _, tc := range []struct {
		line string
		bad  bool
	}{
		{"go test ./internal/archtest -run DocCommands -v", false},
		{"go test ./internal/archtest -run 'Doc|Wiring' -v", false},
		{"go test ./experiments/visioneval -run RenderedFrames -v -args -frames=1000 -seed=2", false},
		{"go run ./cmd/visioneval -real internal/testimages/testdata/realset -pitch-sweep 3", false},
		{"nice -n 5 ./findball run -positions thesis -loss 0.1 -db x.db > log 2>&1", false},
		{"go build -tags sim -o robotd ./cmd/robotd && ./robotd -print-config", false},
		{"go test ./no/such/pkg", true},
		{"go test ./internal/archtest -run NoSuchTest", true},
		{"go test ./internal/archtest -frobnicate", true},
		{"go test ./experiments/visioneval -run RenderedFrames -args -no-such-flag=1", true},
		{"go run ./cmd/visioneval -no-such-flag", true},
		{"./findball run -no-such-flag 3", true},
		{"bash scripts/no-such-script", true},
	} {
		var errs []string
		for _, c := range splitCommands(tc.line, 1) {
			errs = append(errs, d.check(c)...)
		}
		if got := len(errs) > 0; got != tc.bad {
			t.Errorf("%q: problems %q, want bad=%v", tc.line, errs, tc.bad)
		}
	}
}
