package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run is a go test -json stream: package a passes (a test with a
// subtest, one skipped), package b fails in a subtest, package c does
// not build.
const run = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestA"}
{"Action":"output","Package":"m/a","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"m/a","Test":"TestA","Output":"    a_test.go:5: a log line\n"}
{"Action":"output","Package":"m/a","Test":"TestA","Output":"--- PASS: TestA (2.50s)\n"}
{"Action":"pass","Package":"m/a","Test":"TestA","Elapsed":2.5}
{"Action":"output","Package":"m/a","Test":"TestS","Output":"--- SKIP: TestS (0.00s)\n"}
{"Action":"skip","Package":"m/a","Test":"TestS","Elapsed":0}
{"Action":"output","Package":"m/a","Output":"PASS\n"}
{"Action":"output","Package":"m/a","Output":"ok  \tm/a\t2.6s\n"}
{"Action":"pass","Package":"m/a","Elapsed":2.6}
{"Action":"start","Package":"m/b"}
{"Action":"output","Package":"m/b","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"output","Package":"m/b","Test":"TestB/x","Output":"=== RUN   TestB/x\n"}
{"Action":"output","Package":"m/b","Test":"TestB/x","Output":"    b_test.go:9: got 2, want 1\n"}
{"Action":"output","Package":"m/b","Test":"TestB/x","Output":"    --- FAIL: TestB/x (7.00s)\n"}
{"Action":"fail","Package":"m/b","Test":"TestB/x","Elapsed":7}
{"Action":"output","Package":"m/b","Test":"TestB","Output":"--- FAIL: TestB (7.00s)\n"}
{"Action":"fail","Package":"m/b","Test":"TestB","Elapsed":7}
{"Action":"output","Package":"m/b","Output":"FAIL\n"}
{"Action":"output","Package":"m/b","Output":"FAIL\tm/b\t7.1s\n"}
{"Action":"fail","Package":"m/b","Elapsed":7.1}
{"ImportPath":"m/c","Action":"build-output","Output":"c.go:1:1: syntax error\n"}
{"ImportPath":"m/c","Action":"build-fail"}
{"Action":"start","Package":"m/c"}
{"Action":"output","Package":"m/c","Output":"FAIL\tm/c [build failed]\n"}
{"Action":"fail","Package":"m/c","Elapsed":0,"FailedBuild":"m/c"}
`

func TestRelayPrintsWhatGoTestPrints(t *testing.T) {
	var out strings.Builder
	ok, err := relay(strings.NewReader(run+"not json\n"), &out, false)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Error("ok with a failed package and a failed build")
	}
	want := "ok  \tm/a\t2.6s\n" +
		"    b_test.go:9: got 2, want 1\n    --- FAIL: TestB/x (7.00s)\n--- FAIL: TestB (7.00s)\nFAIL\nFAIL\tm/b\t7.1s\n" +
		"c.go:1:1: syntax error\nFAIL\tm/c [build failed]\n" +
		"not json\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}

	out.Reset()
	if _, err := relay(strings.NewReader(run), &out, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "a_test.go:5: a log line") || !strings.Contains(out.String(), "=== RUN   TestA") {
		t.Errorf("-v left out a passing test's output:\n%s", out.String())
	}

	out.Reset()
	ok, _ = relay(strings.NewReader(run[:strings.Index(run, `{"Action":"start","Package":"m/b"}`)]), &out, false)
	if !ok || out.String() != "ok  \tm/a\t2.6s\n" {
		t.Errorf("a passing run: ok %v, printed %q", ok, out.String())
	}
}

func TestTableListsTheSlowestAndTheVerdict(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "robot.json")
	if err := os.WriteFile(f, []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	ok, err := table(&out, 2, []string{"robot=" + f})
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Error("ok with failed packages")
	}
	got := out.String()
	for _, want := range []string{
		"     7.1s  FAIL  m/b (robot)\n     2.6s  ok    m/a (robot)\n",
		"     7.0s  FAIL  m/b TestB (robot)\n     2.5s  ok    m/a TestA (robot)\n",
		"FAIL\tm/b (robot)\nFAIL\tm/c (robot)\nFAIL\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table\n%s\nwant it to contain\n%s", got, want)
		}
	}
	if strings.Contains(got, "TestB/x") {
		t.Errorf("a subtest in the table of tests:\n%s", got)
	}
	if !strings.HasSuffix(got, "\nFAIL\n") {
		t.Errorf("the last line is not the verdict:\n%s", got)
	}

	pass := filepath.Join(dir, "pass.json")
	os.WriteFile(pass, []byte(run[:strings.Index(run, `{"Action":"start","Package":"m/b"}`)]), 0o644)
	out.Reset()
	if ok, err := table(&out, 10, []string{pass}); err != nil || !ok || !strings.HasSuffix(out.String(), "\nPASS\n") {
		t.Errorf("a passing run: ok %v, %v:\n%s", ok, err, out.String())
	}

	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, nil, 0o644)
	if _, err := table(&out, 10, []string{pass, empty}); err == nil {
		t.Error("a run without a package result went unnoticed")
	}
}
