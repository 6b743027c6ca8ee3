package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// vectorHome is the one vector, rotation and pose library.
const vectorHome = "hal/geom"

// vectorTypesElsewhere are the vector-shaped types outside hal/geom that
// are no copy of it, each with the reason.
var vectorTypesElsewhere = map[string]string{
	"hal.Vec2":             "the contract's ground-plane point, as the blackboard carries it",
	"hal.Pose2":            "the contract's ground-plane pose in typed units (Metres, Radians), as the blackboard carries it; Pose2Of converts",
	"msg.Cov3":             "a covariance matrix (x, y, heading), no rotation",
	"proto/simspark.Polar": "a perceptor's polar coordinates (distance, horizontal and vertical angle) as the wire gives them",
}

// vectorShape says what kind of vector type expr declares ("" if none):
// an array of 2, 3 or 9 float64s or a 3×3 one, a struct of only float
// fields named X, Y and Z, H or Heading, or a pose: a struct of one
// geom.Vec3 and one geom.Mat3.
func vectorShape(expr ast.Expr) string {
	switch t := expr.(type) {
	case *ast.ArrayType:
		n, ok := t.Len.(*ast.BasicLit)
		if !ok {
			return ""
		}
		if id, ok := t.Elt.(*ast.Ident); ok && id.Name == "float64" && (n.Value == "2" || n.Value == "3" || n.Value == "9") {
			return "a [" + n.Value + "]float64 vector or matrix"
		}
		if in, ok := t.Elt.(*ast.ArrayType); ok && n.Value == "3" {
			if m, ok := in.Len.(*ast.BasicLit); ok && m.Value == "3" {
				if id, ok := in.Elt.(*ast.Ident); ok && id.Name == "float64" {
					return "a [3][3]float64 matrix"
				}
			}
		}
	case *ast.StructType:
		if isPose(t) {
			return "a pose (a geom.Vec3 and a geom.Mat3)"
		}
		var names []string
		for _, f := range t.Fields.List {
			for _, n := range f.Names {
				names = append(names, n.Name)
			}
			if len(f.Names) == 0 {
				return ""
			}
		}
		slices.Sort(names)
		switch strings.Join(names, ",") {
		case "X,Y,Z", "H,X,Y", "Heading,X,Y":
			return "a struct of " + strings.Join(names, ", ")
		}
	}
	return ""
}

// isPose reports whether the struct t holds exactly one geom.Vec3 and one
// geom.Mat3, the fields of geom.Pose3.
func isPose(t *ast.StructType) bool {
	var types []string
	for _, f := range t.Fields.List {
		sel, ok := f.Type.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Name != "geom" {
			return false
		}
		for range max(len(f.Names), 1) {
			types = append(types, sel.Sel.Name)
		}
	}
	slices.Sort(types)
	return slices.Equal(types, []string{"Mat3", "Vec3"})
}

// vectorViolations lists the vector types the file src (at the
// repository path path) declares outside the vector library.
func vectorViolations(path string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	dir := filepath.ToSlash(filepath.Dir(path))
	if dir == vectorHome {
		return nil, nil
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			if ts.Assign.IsValid() {
				continue // an alias names a type, it defines none
			}
			shape := vectorShape(ts.Type)
			if shape == "" {
				continue
			}
			if _, ok := vectorTypesElsewhere[dir+"."+ts.Name.Name]; ok {
				continue
			}
			out = append(out, fset.Position(ts.Pos()).String()+": "+ts.Name.Name+" is "+shape+"; vectors, rotations and poses are "+vectorHome+"'s")
		}
	}
	return out, nil
}

// TestOneVectorLibrary: no package but hal/geom defines a vector,
// rotation or pose type (besides the listed contract forms).
func TestOneVectorLibrary(t *testing.T) {
	r := root(t)
	n := 0
	for _, f := range goFiles(t, ".") {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		rp, err := filepath.Rel(r, f)
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := vectorViolations(rp, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range v {
			t.Error(s)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d files read", n)
	}
}

// TestVectorRuleCatchesAViolation: the rule rejects a vector type
// declared outside the library and lets the library and the contract's
// forms through.
func TestVectorRuleCatchesAViolation(t *testing.T) {
	for _, tc := range []struct {
		path, src string
		bad       bool
	}{
		{"modules/motion/kinematics/math.go", "package kinematics\ntype Vec3 [3]float64", true},
		{"simserver/geom.go", "package simserver\ntype mat3 [9]float64", true},
		{"backends/sim/kinematics.go", "package sim\ntype mat3 [3][3]float64", true},
		{"modules/vision/camera/matrix.go", "package camera\ntype Rotation [3][3]float64", true},
		{"modules/motion/walk/pose.go", "package walk\ntype Pose struct{ X, Y, H float64 }", true},
		{"render/camera.go", "package render\ntype Vec3 struct{ X, Y, Z float64 }", true},
		{"render/camera.go", "package render\ntype Pose struct {\n\tPos geom.Vec3\n\tRot geom.Mat3\n}", true},
		{"render/camera.go", "package render\ntype Mount struct {\n\tPos geom.Vec3\n\tTilt float64\n}", false},
		{"modules/motion/walk/pose.go", "package walk\ntype Pose = geom.Pose2", false},
		{"hal/geom/geom.go", "package geom\ntype Vec3 struct{ X, Y, Z float64 }\ntype Mat3 [9]float64", false},
		{"hal/units.go", "package hal\ntype Vec3 struct{ X, Y, Z float64 }", true},
		{"hal/units.go", "package hal\ntype Vec3 = geom.Vec3", false},
		{"hal/body/body.go", "package body\ntype Vec3 struct{ X, Y, Z float64 }", true},
		{"msg/world.go", "package msg\ntype Cov3 [3][3]float64", false},
		{"msg/ball.go", "package msg\ntype Vel [2]float64", true},
		{"field/field.go", "package field\ntype Line struct{ X0, Y0, X1, Y1 float64 }", false},
	} {
		v, err := vectorViolations(tc.path, []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if (len(v) > 0) != tc.bad {
			t.Errorf("%s %q: violations %q, want some: %v", tc.path, tc.src, v, tc.bad)
		}
	}
}
