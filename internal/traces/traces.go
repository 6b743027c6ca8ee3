// Package traces reads the recorded rcssserver3d traces in its testdata
// directory for tests (testdata/SOURCE.md says where they come from).
package traces

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Message is one line of a trace.
type Message struct {
	File string
	Line int
	// Cycle is the perceptor message index the line belongs to.
	Cycle int
	// Dir is in, out, mon-in or mon-out.
	Dir     string
	Payload []byte
}

// Dir returns the traces' directory, this package's testdata.
func Dir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("traces: cannot locate the repository")
	}
	dir := filepath.Join(filepath.Dir(file), "testdata")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("traces: %v", err)
	}
	return dir
}

// Read returns the messages of one trace file, e.g. "connect.txt".
func Read(t testing.TB, name string) []Message {
	t.Helper()
	path := filepath.Join(Dir(t), name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("traces: %v", err)
	}
	defer f.Close()
	var out []Message
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		p := strings.SplitN(l, "\t", 4)
		if len(p) != 4 {
			t.Fatalf("traces: %s:%d: want 4 tab-separated columns", name, n)
		}
		c, err := strconv.Atoi(p[0])
		if err != nil {
			t.Fatalf("traces: %s:%d: cycle %q: %v", name, n, p[0], err)
		}
		out = append(out, Message{File: name, Line: n, Cycle: c, Dir: p[1], Payload: []byte(p[3])})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("traces: %s: %v", name, err)
	}
	return out
}

// All returns the messages of every trace file.
func All(t testing.TB) []Message {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Dir(t), "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("traces: no trace files: %v", err)
	}
	var out []Message
	for _, f := range files {
		out = append(out, Read(t, filepath.Base(f))...)
	}
	return out
}
