package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSourceStartsGoroutines(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // "" for none, else a part of what it says
	}{
		{"pure", "package p\nfunc f(x int) int { return x * 2 }\n", ""},
		{"go in a comment and a string", "package p\n// go func() { }()\nvar s = \"go f()\"\n", ""},
		{"net for addresses only", "package p\nimport \"net\"\nfunc f(a string) (string, string, error) { return net.SplitHostPort(a) }\n", ""},
		{"go statement", "package p\nfunc f() { go func() {}() }\n", "go statement"},
		{"WaitGroup.Go", "package p\nimport \"sync\"\nfunc f() { var wg sync.WaitGroup; wg.Go(func() {}); wg.Wait() }\n", "calls Go"},
		{"parallel test", "package p\nimport \"testing\"\nfunc TestX(t *testing.T) { t.Parallel() }\n", "calls Parallel"},
		{"AfterFunc", "package p\nimport \"time\"\nfunc f() { time.AfterFunc(0, func() {}) }\n", "calls AfterFunc"},
		{"finalizer", "package p\nimport \"runtime\"\nfunc f(x *int) { runtime.SetFinalizer(x, nil) }\n", "calls SetFinalizer"},
		{"iter.Pull", "package p\nimport \"iter\"\nfunc f(s iter.Seq[int]) { next, stop := iter.Pull(s); defer stop(); next() }\n", "calls Pull"},
		{"os/exec", "package p\nimport \"os/exec\"\nvar c = exec.Command(\"true\")\n", "imports os/exec"},
		{"httptest", "package p\nimport _ \"net/http/httptest\"\n", "imports net/http/httptest"},
		{"os/signal", "package p\nimport \"os/signal\"\nvar _ = signal.Ignore\n", "imports os/signal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sourceStartsGoroutines(tc.name+".go", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := sourceStartsGoroutines("bad.go", []byte("package p\nfunc (")); err == nil {
		t.Fatal("no error for a file that does not parse")
	}
}

// TestModule runs racefree over a module of its own: a package is race-free
// only when neither it, its tests, nor a package of the module it links
// starts a goroutine; a package without tests is not listed.
func TestModule(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.24\n",
		"pure/p.go":       "package pure\n\nfunc Twice(x int) int { return 2 * x }\n",
		"pure/p_test.go":  "package pure\n\nimport \"testing\"\n\nfunc TestTwice(t *testing.T) {\n\tif Twice(2) != 4 {\n\t\tt.Fatal()\n\t}\n}\n",
		"spawn/s.go":      "package spawn\n\nfunc Run(f func()) { go f() }\n",
		"spawn/s_test.go": "package spawn\n\nimport \"testing\"\n\nfunc TestRun(t *testing.T) {}\n",
		"user/u.go":       "package user\n\nimport \"example.com/m/spawn\"\n\nfunc Use() { spawn.Run(func() {}) }\n",
		"user/u_test.go":  "package user\n\nimport \"testing\"\n\nfunc TestUse(t *testing.T) {}\n",
		// Only its external test links spawn.
		"xuser/x.go":      "package xuser\n",
		"xuser/x_test.go": "package xuser_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/spawn\"\n)\n\nfunc TestX(t *testing.T) { spawn.Run(func() {}) }\n",
		"par/p_test.go":   "package par\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) { t.Parallel() }\n",
		"notests/n.go":    "package notests\n",
		"addr/a.go":       "package addr\n\nimport \"net\"\n\nfunc Host(a string) string { h, _, _ := net.SplitHostPort(a); return h }\n",
		"addr/a_test.go":  "package addr\n\nimport \"testing\"\n\nfunc TestHost(t *testing.T) {}\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-C", dir, "-why", "./..."}, &stdout, &stderr); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if got, want := stdout.String(), "example.com/m/addr\nexample.com/m/pure\n"; got != want {
		t.Errorf("race-free:\n%s\nwant:\n%s", got, want)
	}
	why := stderr.String()
	for _, want := range []string{
		"example.com/m/par: example.com/m/par [example.com/m/par.test] (p_test.go: line 5: calls Parallel)",
		"example.com/m/spawn: example.com/m/spawn",
		"example.com/m/user: example.com/m/spawn (s.go: line 3: a go statement)",
		"example.com/m/xuser: example.com/m/spawn (s.go: line 3: a go statement)",
	} {
		if !strings.Contains(why, want) {
			t.Errorf("-why does not say %q:\n%s", want, why)
		}
	}
	if err := run([]string{"-C", dir}, &stdout, &stderr); err == nil {
		t.Error("no error without packages")
	}
	// A package that does not parse is an error, not a verdict.
	if err := os.MkdirAll(filepath.Join(dir, "broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken", "b.go"), []byte("package broken\n\nfunc ("), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-C", dir, "./broken"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("a package that does not parse: %v", err)
	}
}
