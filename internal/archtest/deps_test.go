package archtest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeListsDependencies: every module go.mod requires directly is
// in the README's Dependencies table with the version go.mod has.
func TestReadmeListsDependencies(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join(root(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := bytes.Cut(readme, []byte("## Dependencies"))
	if !ok {
		t.Fatal("README.md has no Dependencies section")
	}
	rows := map[string]string{} // module -> version cell
	row := regexp.MustCompile("^\\| (.+?) \\| (.+?) \\|")
	mod := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(string(table), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		names := mod.FindAllStringSubmatch(m[1], -1)
		versions := strings.Split(m[2], ", ")
		for i, n := range names {
			if i < len(versions) {
				rows[n[1]] = versions[i]
			}
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	inRequire, n := false, 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "require (":
			inRequire = true
			continue
		case line == ")":
			inRequire = false
			continue
		}
		if !inRequire || strings.HasSuffix(line, "// indirect") || line == "" {
			continue
		}
		f := strings.Fields(line)
		n++
		if got, ok := rows[f[0]]; !ok || got != f[1] {
			t.Errorf("README: %s is listed with version %q, go.mod requires %s", f[0], got, f[1])
		}
	}
	if n == 0 {
		t.Fatal("no direct requirement found in go.mod")
	}
}
