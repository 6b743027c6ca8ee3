package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The import layering: the tree's areas (its top-level directories; each
// of internal/'s packages on its own) form a directed acyclic graph, so
// no import runs back up; and internal/ holds leaf helpers, importing no
// package of the repository outside internal/.

// imports returns every package of the repository (non-test build, tags
// given) with the repository packages it imports.
func imports(t *testing.T, tags string) map[string][]string {
	t.Helper()
	args := []string{"list", "-json=ImportPath,Imports"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command("go", append(args, module+"/...")...)
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		var own []string
		for _, q := range p.Imports {
			if q == module || strings.HasPrefix(q, module+"/") {
				own = append(own, q)
			}
		}
		m[p.ImportPath] = own
	}
	if len(m) < 20 {
		t.Fatalf("go list found only %d packages", len(m))
	}
	return m
}

// layerArea is the area of a repository package in the layering: its top
// directory, or internal/<name> for internal's packages.
func layerArea(p string) string {
	parts := strings.Split(rel(p), "/")
	if parts[0] == "internal" && len(parts) > 1 {
		return "internal/" + parts[1]
	}
	return parts[0]
}

// areaCycles returns the strongly connected components of more than one
// area in the area graph of pkgs (Tarjan), each sorted, with one import of
// each edge inside it as evidence.
func areaCycles(pkgs map[string][]string) []string {
	edges := map[string]map[string]string{} // from → to → one import behind the edge
	for p, imps := range pkgs {
		a := layerArea(p)
		for _, q := range imps {
			if b := layerArea(q); b != a {
				if edges[a] == nil {
					edges[a] = map[string]string{}
				}
				if _, ok := edges[a][b]; !ok || p+" → "+q < edges[a][b] {
					edges[a][b] = rel(p) + " → " + rel(q)
				}
			}
		}
	}
	var nodes []string
	for a := range edges {
		nodes = append(nodes, a)
	}
	sort.Strings(nodes)
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out []string
	n := 0
	var strong func(v string)
	strong = func(v string) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		on[v] = true
		var tos []string
		for w := range edges[v] {
			tos = append(tos, w)
		}
		sort.Strings(tos)
		for _, w := range tos {
			if _, seen := index[w]; !seen {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			on[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		if len(comp) < 2 {
			return
		}
		sort.Strings(comp)
		in := map[string]bool{}
		for _, c := range comp {
			in[c] = true
		}
		var why []string
		for _, a := range comp {
			for b, imp := range edges[a] {
				if in[b] {
					why = append(why, imp)
				}
			}
		}
		sort.Strings(why)
		out = append(out, fmt.Sprintf("%s import each other (%s)", strings.Join(comp, ", "), strings.Join(why, "; ")))
	}
	for _, v := range nodes {
		if _, seen := index[v]; !seen {
			strong(v)
		}
	}
	return out
}

// internalUpward returns the imports of internal/ packages of a repository
// package outside internal/.
func internalUpward(pkgs map[string][]string) []string {
	var out []string
	for p, imps := range pkgs {
		if !strings.HasPrefix(rel(p), "internal/") {
			continue
		}
		for _, q := range imps {
			if !strings.HasPrefix(rel(q), "internal/") {
				out = append(out, rel(p)+" imports "+rel(q))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestImportLayers: in every build flavour, no import runs back up the
// area graph, and internal/ imports nothing above it.
func TestImportLayers(t *testing.T) {
	for _, tags := range []string{"", "sim", "sim,ode"} {
		pkgs := imports(t, tags)
		for _, c := range areaCycles(pkgs) {
			t.Errorf("tags %q: %s", tags, c)
		}
		for _, u := range internalUpward(pkgs) {
			t.Errorf("tags %q: %s: internal/ holds leaf helpers", tags, u)
		}
	}
}

// TestImportLayersCatchViolations: the rules find a cycle through three
// areas, a two-area cycle, and an internal helper importing a module.
func TestImportLayersCatchViolations(t *testing.T) {
	p := func(s string) string { return module + "/" + s }
	ok := map[string][]string{
		p("cmd/robotd"):        {p("robot"), p("internal/udpshare")},
		p("robot"):             {p("modules/motion"), p("hal")},
		p("modules/motion"):    {p("hal")},
		p("proto/gc"):          {p("internal/udpshare")},
		p("internal/udpshare"): nil,
		p("hal"):               nil,
	}
	if c := areaCycles(ok); len(c) != 0 {
		t.Errorf("layered graph: cycles %q", c)
	}
	if u := internalUpward(ok); len(u) != 0 {
		t.Errorf("layered graph: upward %q", u)
	}
	three := map[string][]string{
		p("proto/gc"):            {p("internal/udpshare")},
		p("internal/udpshare"):   {p("simserver/render")},
		p("simserver/render"):    nil,
		p("simserver"):           {p("proto/gc")},
		p("internal/visioneval"): {p("modules/vision")},
		p("modules/vision"):      nil,
	}
	if c := areaCycles(three); len(c) != 1 || !strings.Contains(c[0], "internal/udpshare, proto, simserver") {
		t.Errorf("proto → internal → simserver → proto: cycles %q", c)
	}
	if u := internalUpward(three); len(u) != 2 {
		t.Errorf("internal importing simserver and modules: upward %q", u)
	}
	two := map[string][]string{p("a/x"): {p("b/y")}, p("b/y"): {p("a/z")}, p("a/z"): nil}
	if c := areaCycles(two); len(c) != 1 {
		t.Errorf("a ↔ b: cycles %q", c)
	}
}
