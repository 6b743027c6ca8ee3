// Command testtime reads `go test -json` and prints it as go test would,
// and a table of where the time went, so that a slow package shows in every
// run of scripts/test.
//
//	go test -json ./... | tee robot.json | testtime
//	testtime -top 10 robot=robot.json sim=sim.json
//
// With no file arguments it prints the JSON events on standard input as
// go test prints its results without -v (the "ok" and "FAIL" lines, a
// failed test's "--- FAIL" and its log; with -v every test's output) and
// exits 1 if a package failed or did not build.
//
// With files (each LABEL=FILE or FILE) it prints the slowest packages of
// all the runs, with their elapsed time, and the slowest tests, then a
// closing go test style verdict: a "FAIL\tpackage (label)" line for each
// failed package and "FAIL", or "PASS". It exits 1 if a package failed or
// a file holds no package result at all (a run that did not happen).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Elapsed    float64 // seconds
	Output     string
}

func main() {
	top := flag.Int("top", 10, "rows in each table")
	verbose := flag.Bool("v", false, "copy every test's output (as go test -v), not only a failed test's")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go test -json ... | testtime [-v]\n       testtime [-top N] [LABEL=]FILE...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	var err error
	ok := true
	if flag.NArg() == 0 {
		ok, err = relay(os.Stdin, os.Stdout, *verbose)
	} else {
		ok, err = table(os.Stdout, *top, flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtime:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

// relay copies the events' output to w as go test prints it without -v
// (every line with verbose): a package's own lines ("ok", "FAIL", a
// panic, build errors) and a failed test's output. ok is false if a
// package failed or did not build. Lines that are not JSON (go test's own
// errors) are copied as they are.
func relay(r io.Reader, w io.Writer, verbose bool) (ok bool, err error) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	ok = true
	type key struct{ pkg, test string }
	held := map[key][]string{} // a running test's output
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			bw.Write(line)
			bw.WriteByte('\n')
			bw.Flush()
			continue
		}
		if e.Action == "build-fail" || (e.Action == "fail" && e.Test == "") {
			ok = false
		}
		switch {
		case verbose:
			bw.WriteString(e.Output)
		case e.Test == "" && e.Action == "fail":
			// Whatever its tests still hold (a panic or a timeout ended
			// them), then the package's verdict.
			for k, out := range held {
				if k.pkg == e.Package {
					bw.WriteString(strings.Join(out, ""))
					delete(held, k)
				}
			}
		case e.Test == "" && e.Output != "":
			// -json implies -v: its package-level PASS goes; ok, FAIL,
			// panics and build errors stay.
			if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "=== ") {
				bw.WriteString(e.Output)
			}
		case e.Test != "" && e.Action == "output":
			if !strings.HasPrefix(e.Output, "=== ") {
				k := key{e.Package, e.Test}
				held[k] = append(held[k], e.Output)
			}
		case e.Test != "" && e.Action == "fail":
			k := key{e.Package, e.Test}
			bw.WriteString(strings.Join(held[k], ""))
			delete(held, k)
		case e.Test != "" && (e.Action == "pass" || e.Action == "skip"):
			delete(held, key{e.Package, e.Test})
		}
		// Flush at a package's lines, so that a long run's progress shows.
		if e.Test == "" {
			bw.Flush()
		}
	}
	return ok, sc.Err()
}

// result is one package's or one test's time in one run.
type result struct {
	run, pkg, test string
	elapsed        time.Duration
	failed         bool
}

func table(w io.Writer, top int, args []string) (ok bool, err error) {
	var pkgs, tests []result
	for _, a := range args {
		label, file, found := strings.Cut(a, "=")
		if !found {
			label, file = "", a
		}
		p, t, err := read(label, file)
		if err != nil {
			return false, err
		}
		if len(p) == 0 {
			return false, fmt.Errorf("%s: no package result: the run did not happen", file)
		}
		pkgs, tests = append(pkgs, p...), append(tests, t...)
	}
	slower := func(a, b result) int { return int(b.elapsed - a.elapsed) }
	slices.SortStableFunc(pkgs, slower)
	slices.SortStableFunc(tests, slower)
	var total time.Duration
	for _, p := range pkgs {
		total += p.elapsed
	}
	fmt.Fprintf(w, "\n== the slowest packages (of %d package runs, %s in all, as go test timed each)\n", len(pkgs), secs(total))
	for _, p := range pkgs[:min(top, len(pkgs))] {
		fmt.Fprintf(w, "%9s  %-5s %s%s\n", secs(p.elapsed), verdict(p.failed), p.pkg, label(p.run))
	}
	fmt.Fprintf(w, "== the slowest tests\n")
	for _, t := range tests[:min(top, len(tests))] {
		fmt.Fprintf(w, "%9s  %-5s %s %s%s\n", secs(t.elapsed), verdict(t.failed), short(t.pkg), t.test, label(t.run))
	}
	ok = true
	for _, p := range pkgs {
		if p.failed {
			fmt.Fprintf(w, "FAIL\t%s%s\n", p.pkg, label(p.run))
			ok = false
		}
	}
	if ok {
		fmt.Fprintln(w, "PASS")
	} else {
		fmt.Fprintln(w, "FAIL")
	}
	return ok, nil
}

// read returns the packages' and the top-level tests' results in file.
func read(run, file string) (pkgs, tests []result, err error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if line := sc.Bytes(); len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			continue
		}
		// A package that did not build has a fail event too (with
		// FailedBuild), after its build-fail event.
		if e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
			continue
		}
		r := result{run: run, pkg: e.Package, test: e.Test, elapsed: time.Duration(e.Elapsed * float64(time.Second)), failed: e.Action == "fail"}
		switch {
		case e.Test == "":
			pkgs = append(pkgs, r)
		case !strings.Contains(e.Test, "/"):
			tests = append(tests, r)
		}
	}
	return pkgs, tests, sc.Err()
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

func verdict(failed bool) string {
	if failed {
		return "FAIL"
	}
	return "ok"
}

func label(run string) string {
	if run == "" {
		return ""
	}
	return " (" + run + ")"
}

// short drops the module path, which every package shares.
func short(pkg string) string {
	if i := strings.Index(pkg, "/robotd/robotd/"); i >= 0 {
		return pkg[i+len("/robotd/robotd/"):]
	}
	return pkg
}
