package simspark

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/robotd/robotd/internal/racetest"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/perception.golden from the current parser")

const goldenFile = "testdata/perception.golden"

// variants calls emit with msg and with malformed copies of it: cut short
// at 8 places, and with one byte replaced or removed at 8 places.
func variants(msg []byte, emit func([]byte)) {
	emit(msg)
	n := len(msg)
	if n < 2 {
		return
	}
	const subst = ")( x-.9\x00"
	buf := make([]byte, 0, n)
	for k := 1; k <= 8; k++ {
		emit(msg[:n*k/9])
		i := (n*k)/9 + k%3
		if i >= n {
			i = n - 1
		}
		buf = append(buf[:0], msg...)
		buf[i] = subst[k-1]
		emit(buf)
		buf = append(append(buf[:0], msg[:i]...), msg[i+1:]...)
		emit(buf)
	}
}

// errKinds are the specific parse errors, in the order a result names them.
var errKinds = []error{ErrUnbalanced, ErrTooDeep, ErrTooLong, ErrBadNumber, ErrUnknownJoint, ErrRepeated, ErrMissing, ErrUnexpected}

// writeResult writes what parsing msg gives: the whole struct, or the
// error's text and kinds.
func writeResult(h hash.Hash, p *Perception, msg []byte) {
	if err := p.Parse(msg); err != nil {
		fmt.Fprintf(h, "error %s [", err)
		for i, k := range errKinds {
			if errors.Is(err, k) {
				fmt.Fprintf(h, " %d", i)
			}
		}
		fmt.Fprintf(h, " %v]\n", errors.Is(err, ErrSyntax))
		return
	}
	fmt.Fprintf(h, "ok %+v\n", *p)
}

// goldenDigests parses every recorded perceptor message (and variants of
// it) and the FuzzPerception corpus, and returns one digest of the results
// per trace file and for the corpus.
func goldenDigests(t *testing.T) map[string]string {
	type acc struct {
		h hash.Hash
		n int
	}
	accs := map[string]*acc{}
	var p Perception
	get := func(name string) *acc {
		a := accs[name]
		if a == nil {
			a = &acc{h: sha256.New()}
			accs[name] = a
		}
		return a
	}
	for _, l := range traces(t) {
		if l.dir != "in" {
			continue
		}
		a := get(l.file)
		variants(l.payload, func(b []byte) {
			writeResult(a.h, &p, b)
			a.n++
		})
	}
	corpus, err := filepath.Glob("testdata/fuzz/FuzzPerception/*")
	if err != nil || len(corpus) == 0 {
		t.Fatalf("no FuzzPerception corpus: %v", err)
	}
	sort.Strings(corpus)
	for _, name := range corpus {
		msg := readCorpusFile(t, name)
		a := get("fuzz/FuzzPerception")
		variants(msg, func(b []byte) {
			writeResult(a.h, &p, b)
			a.n++
		})
	}
	out := map[string]string{}
	for name, a := range accs {
		out[name] = fmt.Sprintf("%d %x", a.n, a.h.Sum(nil))
	}
	return out
}

// readCorpusFile reads a "go test fuzz v1" file holding one []byte.
func readCorpusFile(t *testing.T, name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
		t.Fatalf("%s: not a one-[]byte fuzz corpus file", name)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return []byte(s)
}

// TestPerceptionGolden checks that the parser gives, for every recorded
// perceptor message, malformed variants of each and the fuzz corpus,
// exactly the structs and errors recorded in testdata/perception.golden
// (a digest per trace file). go test -run PerceptionGolden -update
// rewrites the file.
func TestPerceptionGolden(t *testing.T) {
	if racetest.Enabled && !*updateGolden {
		// 108,175 parses on one goroutine: nothing for the race detector,
		// 20 times slower under it. scripts/test runs this package again
		// without -race, where this test runs.
		t.Skip("runs without the race detector (scripts/test's second run of this package)")
	}
	got := goldenDigests(t)
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	sort.Strings(names)
	if *updateGolden {
		var b strings.Builder
		b.WriteString("# Digests of Perception.Parse results per trace file: cases, sha256.\n")
		b.WriteString("# Written by go test -run PerceptionGolden -update.\n")
		for _, name := range names {
			fmt.Fprintf(&b, "%s %s\n", name, got[name])
		}
		if err := os.WriteFile(goldenFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, digest, ok := strings.Cut(l, " ")
		if !ok {
			t.Fatalf("%s: bad line %q", goldenFile, l)
		}
		want[name] = digest
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if want[name] != got[name] {
			t.Errorf("%s: results differ from %s:\ngot  %s\nwant %s", name, goldenFile, got[name], want[name])
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s: in %s but not parsed", name, goldenFile)
		}
	}
}
