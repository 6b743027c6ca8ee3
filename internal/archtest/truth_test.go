package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// groundTruthOption is the one file under modules/ that may read the
// simulator's ground truth: perception's documented ground-truth mode
// (perception.Config.GroundTruth, off by default), which the experiment
// and tests use to take perception out of a measurement.
const groundTruthOption = "modules/perception/perception.go"

// groundTruthUses returns where src names the simulator's ground truth:
// the blackboard key msg.GroundTruthKey or the type hal.GroundTruth.
func groundTruthUses(fset *token.FileSet, f *ast.File) []token.Position {
	var out []token.Position
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "msg" && sel.Sel.Name == "GroundTruthKey" || id.Name == "hal" && sel.Sel.Name == "GroundTruth") {
			out = append(out, fset.Position(sel.Pos()))
		}
		return true
	})
	return out
}

// TestModulesDoNotReadGroundTruth: no module reads the simulator's ground
// truth, except perception's ground-truth option.
func TestModulesDoNotReadGroundTruth(t *testing.T) {
	files := goFiles(t, "modules")
	if len(files) == 0 {
		t.Fatal("no files under modules/")
	}
	allowed := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := filepath.Rel(root(t), f)
		uses := groundTruthUses(fset, af)
		if r == groundTruthOption {
			allowed += len(uses)
			continue
		}
		for _, p := range uses {
			t.Errorf("%s: a module reads the simulator's ground truth; only %s's ground-truth option may", p, groundTruthOption)
		}
	}
	if allowed == 0 {
		t.Errorf("%s does not read the ground truth: the rule's exception is stale", groundTruthOption)
	}
}

// TestGroundTruthRuleCatchesAViolation: the check finds a behaviour that
// reads the ground truth, and nothing in one that does not.
func TestGroundTruthRuleCatchesAViolation(t *testing.T) {
	for _, tc := range []struct {
		src  string
		uses int
	}{
		{`package behaviour
import ("github.com/robotd/robotd/blackboard"; "github.com/robotd/robotd/hal"; "github.com/robotd/robotd/msg")
type M struct{ truth *blackboard.Reader[hal.GroundTruth] }
func (m *M) Wire(b *blackboard.Board) (err error) { m.truth, err = blackboard.Read(b, "behaviour", msg.GroundTruthKey); return }`, 2},
		{`package behaviour
import ("github.com/robotd/robotd/blackboard"; "github.com/robotd/robotd/msg")
func Wire(b *blackboard.Board) error { _, err := blackboard.Read(b, "behaviour", msg.RobotPoseKey); return err }`, 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := groundTruthUses(fset, f); len(got) != tc.uses {
			t.Errorf("found %d uses (%v), want %d in\n%s", len(got), got, tc.uses, tc.src)
		}
	}
}
